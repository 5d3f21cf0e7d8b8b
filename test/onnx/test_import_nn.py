"""ONNX import of normalization, softmax, resize, deconvolution, quantization
and integer conv/matmul ops, checked against ONNX Runtime."""
import numpy as np
import pytest
from onnx import helper

from onnx_harness import check_against_ort, import_error, make_model

RNG = np.random.default_rng(0)


def randf(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def single(op, inputs, attrs=None, inits=None, opset=17, names=None, outs=("y",)):
    names = names if names is not None else list(inputs) + list(inits or {})
    node = helper.make_node(op, names, list(outs), **(attrs or {}))
    return make_model([node], inputs, list(outs), inits, opset)


@pytest.mark.parametrize("opset", [7, 9, 15])
def test_batchnorm(opset):
    x = randf(2, 3, 4, 5)
    inits = {"s": randf(3), "b": randf(3), "m": randf(3),
             "v": np.abs(randf(3)) + 0.5}
    check_against_ort(single("BatchNormalization", {"x": x}, {"epsilon": 1e-3},
                             inits, opset), {"x": x})


@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_norm(axis):
    x = randf(2, 3, 4)
    shape = x.shape[axis:] if axis >= 0 else x.shape[axis:]
    inits = {"s": randf(*shape), "b": randf(*shape)}
    check_against_ort(single("LayerNormalization", {"x": x}, {"axis": axis},
                             inits), {"x": x})


def test_layer_norm_mean_inv_std_dev_outputs():
    x = randf(2, 3, 4)
    m = single("LayerNormalization", {"x": x}, {"axis": 1, "epsilon": 1e-3},
               {"s": randf(3, 4)}, outs=("y", "mean", "inv"))
    check_against_ort(m, {"x": x})


def test_conv_transpose_output_shape_beyond_full_output():
    x = randf(1, 1, 3, 3)
    m = single("ConvTranspose", {"x": x}, {"strides": [3, 2], "output_shape": [10, 8]},
               {"w": randf(1, 2, 3, 3)})
    check_against_ort(m, {"x": x})


def test_dequantize_dynamic_scale_and_int16():
    x = RNG.integers(-300, 300, (2, 3)).astype(np.int16)
    ins = {"x": x, "s": np.array([0.5, 0.25, 2.0], np.float32),
           "z": np.array([1, -2, 3], np.int16)}
    m = single("DequantizeLinear", ins, {"axis": 1}, opset=21)
    check_against_ort(m, ins)


@pytest.mark.parametrize("opset", [18, 21])
def test_group_norm(opset):
    x = randf(2, 6, 3, 3)
    n = 2 if opset == 18 else 6
    inits = {"s": randf(n), "b": randf(n)}
    model = single("GroupNormalization", {"x": x}, {"num_groups": 2}, inits, opset)
    if opset == 18:
        # onnxruntime implements no opset-18 GroupNormalization: numpy.
        from onnx_harness import run_strata
        code, got, err = run_strata(model, {"x": x})
        assert code == 0, err
        g = x.reshape(2, 2, -1).astype(np.float64)
        y = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
        y = y.reshape(2, 2, 3, 3, 3) * inits["s"].reshape(1, 2, 1, 1, 1) \
            + inits["b"].reshape(1, 2, 1, 1, 1)
        np.testing.assert_allclose(got["y"], y.reshape(x.shape), rtol=1e-4, atol=1e-5)
    else:
        check_against_ort(model, {"x": x})


def test_instance_norm():
    x = randf(2, 3, 4, 5)
    check_against_ort(single("InstanceNormalization", {"x": x}, {},
                             {"s": randf(3), "b": randf(3)}), {"x": x})


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("opset,axis", [(11, 1), (11, -1), (13, 1), (13, -1)])
def test_softmax_family(op, opset, axis):
    x = randf(2, 3, 4)
    check_against_ort(single(op, {"x": x}, {"axis": axis}, opset=opset), {"x": x})


@pytest.mark.parametrize("opset", [11, 13])
def test_hardmax_empty_axis(opset):
    """Hardmax along an axis of size 0: a legal, empty result (not an ArgMax
    over nothing)."""
    x = np.zeros((3, 0), np.float32)
    check_against_ort(single("Hardmax", {"x": x}, {"axis": -1}, opset=opset), {"x": x})


def test_mvn_and_lpnorm():
    x = randf(2, 3, 4, 5)
    check_against_ort(single("MeanVarianceNormalization", {"x": x}), {"x": x})
    for p in (1, 2):
        check_against_ort(single("LpNormalization", {"x": x}, {"p": p, "axis": 1}),
                          {"x": x})


def test_global_max_pool():
    x = randf(1, 3, 4, 5)
    check_against_ort(single("GlobalMaxPool", {"x": x}), {"x": x})


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_space(mode):
    x = randf(1, 8, 2, 3)
    check_against_ort(single("DepthToSpace", {"x": x}, {"blocksize": 2, "mode": mode}),
                      {"x": x})
    check_against_ort(single("SpaceToDepth", {"x": randf(1, 2, 4, 6)}, {"blocksize": 2}),
                      {"x": randf(1, 2, 4, 6)})


@pytest.mark.parametrize("attrs", [
    {"strides": [2, 2]},
    {"strides": [2, 2], "output_shape": [7, 9]},
    {"strides": [2, 2], "auto_pad": "SAME_UPPER"},
    {"strides": [3, 2], "output_padding": [1, 1], "pads": [1, 0, 0, 1]},
])
def test_conv_transpose(attrs):
    x = randf(1, 2, 3, 4)
    check_against_ort(single("ConvTranspose", {"x": x}, attrs,
                             {"w": randf(2, 3, 3, 3), "b": randf(3)}), {"x": x})


@pytest.mark.parametrize("mode,ctm", [
    ("nearest", "asymmetric"), ("nearest", "half_pixel"), ("linear", "half_pixel"),
    ("linear", "align_corners"), ("linear", "pytorch_half_pixel")])
def test_resize_scales(mode, ctm):
    x = randf(1, 2, 3, 4)
    inits = {"roi": np.zeros(0, np.float32),
             "scales": np.array([1, 1, 2, 1.5], np.float32)}
    check_against_ort(single("Resize", {"x": x},
                             {"mode": mode, "coordinate_transformation_mode": ctm},
                             inits, opset=13), {"x": x})


def test_resize_sizes_and_cubic():
    x = randf(1, 1, 4, 4)
    inits = {"sizes": np.array([1, 1, 3, 7], np.int64)}
    names = ["x", "", "", "sizes"]
    check_against_ort(single("Resize", {"x": x}, {}, inits, 19, names), {"x": x})
    check_against_ort(single("Resize", {"x": x}, {"mode": "cubic"}, inits, 19, names), {"x": x})


def test_upsample():
    x = randf(1, 1, 2, 3)
    check_against_ort(single("Upsample", {"x": x}, {"scales": [1.0, 1.0, 2.0, 3.0]},
                             opset=7), {"x": x})
    check_against_ort(single("Upsample", {"x": x}, {},
                             {"s": np.array([1, 1, 2, 2], np.float32)}, opset=9), {"x": x})


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_quantize_dequantize(dtype):
    x = randf(2, 3, 4) * 10
    q = single("QuantizeLinear", {"x": x}, {},
               {"s": np.array(0.07, np.float32), "z": np.array(3, dtype)}, 13)
    check_against_ort(q, {"x": x})
    xi = RNG.integers(0, 100, (2, 3, 4)).astype(dtype)
    d = single("DequantizeLinear", {"x": xi}, {"axis": 1},
               {"s": np.array([0.1, 0.2, 0.3], np.float32),
                "z": np.array([1, 2, 3], dtype)}, 13)
    check_against_ort(d, {"x": xi})


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
def test_quantize_16bit_per_axis(dtype):
    x = randf(2, 3) * 1000
    m = single("QuantizeLinear", {"x": x}, {"axis": 1},
               {"s": np.array([0.5, 0.03, 2.0], np.float32),
                "z": np.array([10, 300, 7], dtype)}, 21)
    check_against_ort(m, {"x": x})


def test_blocked_quantization():
    x = randf(2, 4) * 5
    inits = {"s": np.array([[0.1, 0.2], [0.3, 0.05]], np.float32),
             "z": np.array([[1, -3], [0, 4]], np.int8)}
    m = single("QuantizeLinear", {"x": x}, {"axis": 1, "block_size": 2}, inits, 21)
    check_against_ort(m, {"x": x})
    xi = RNG.integers(-100, 100, (2, 4)).astype(np.int8)
    m = single("DequantizeLinear", {"x": xi}, {"axis": 1, "block_size": 2}, inits, 21)
    check_against_ort(m, {"x": xi})


def test_blocked_quantization_must_tile():
    x = randf(2, 5)
    m = single("QuantizeLinear", {"x": x}, {"axis": 1, "block_size": 2},
               {"s": np.ones((2, 3), np.float32), "z": np.zeros((2, 3), np.int8)}, 21)
    assert "block_size" in import_error(m)


@pytest.mark.parametrize("trans_a,trans_b,alpha,beta,cshape", [
    (0, 0, 1.0, 1.0, (5,)), (1, 0, 0.5, 2.0, (3, 5)), (0, 1, 1.0, 0.5, (1,)),
    (1, 1, 2.0, 1.0, (3, 1))])
def test_gemm(trans_a, trans_b, alpha, beta, cshape):
    a = randf(4, 3) if trans_a else randf(3, 4)
    b = randf(5, 4) if trans_b else randf(4, 5)
    check_against_ort(single("Gemm", {"a": a}, {"transA": trans_a, "transB": trans_b,
                                                "alpha": alpha, "beta": beta},
                             {"b": b, "c": randf(*cshape)}, 13), {"a": a})


def test_matmul_integer():
    # Small values: onnxruntime's u8 x s8 kernel saturates 16-bit pair sums.
    a = RNG.integers(0, 64, (3, 4)).astype(np.uint8)
    b = RNG.integers(-32, 32, (4, 5)).astype(np.int8)
    inits = {"b": b, "az": np.array(12, np.uint8),
             "bz": np.array([1, -2, 3, 0, 5], np.int8)}
    check_against_ort(single("MatMulInteger", {"a": a}, {}, inits, 10), {"a": a})


def test_conv_integer():
    x = RNG.integers(0, 255, (1, 2, 5, 5)).astype(np.uint8)
    w = RNG.integers(0, 255, (3, 2, 3, 3)).astype(np.uint8)
    inits = {"w": w, "xz": np.array(7, np.uint8), "wz": np.array(9, np.uint8)}
    check_against_ort(single("ConvInteger", {"x": x}, {"pads": [1, 1, 1, 1]}, inits, 10),
                      {"x": x})


def test_conv_integer_per_output_channel_zero_point():
    # onnxruntime rejects a per-channel w_zero_point: compare with a float
    # Conv of the zero-point-corrected values (exact in f32 at this size).
    from onnx_harness import run_ort, run_strata
    x = RNG.integers(-128, 127, (1, 2, 5, 5)).astype(np.int8)
    w = RNG.integers(-128, 127, (3, 2, 3, 3)).astype(np.int8)
    wz = np.array([1, -2, 3], np.int8)
    m = single("ConvInteger", {"x": x}, {"pads": [1, 0, 1, 2]},
               {"w": w, "xz": np.array(-5, np.int8), "wz": wz}, 10)
    code, got, err = run_strata(m, {"x": x})
    assert code == 0, err
    xf = x.astype(np.float32) + 5
    wf = w.astype(np.float32) - wz.astype(np.float32).reshape(3, 1, 1, 1)
    ref = single("Conv", {"x": xf}, {"pads": [1, 0, 1, 2]}, {"w": wf}, 11)
    want = run_ort(ref, {"x": xf})["y"]
    assert got["y"].dtype == np.int32
    np.testing.assert_array_equal(got["y"], want.astype(np.int32))


def test_maxpool_dilations_pads():
    x = randf(1, 2, 7, 7)
    check_against_ort(single("MaxPool", {"x": x}, {"kernel_shape": [3, 3],
                                                   "dilations": [2, 2],
                                                   "pads": [1, 2, 2, 1]}, opset=12),
                      {"x": x})


def test_quantize_dynamic_scale_rounds_half_to_even():
    x = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 300.0, -300.0]], np.float32)
    ins = {"x": x, "s": np.array([1.0, 0.5], np.float32),
           "z": np.array([3, -1], np.int8)}
    check_against_ort(single("QuantizeLinear", ins, {"axis": 0}, opset=13), ins)


def test_resize_half_pixel_symmetric():
    x = randf(1, 1, 3, 4)
    inits = {"sizes": np.array([1, 1, 5, 2], np.int64)}
    m = single("Resize", {"x": x}, {"mode": "linear",
                                    "coordinate_transformation_mode": "half_pixel_symmetric"},
               inits, 19, ["x", "", "", "sizes"])
    check_against_ort(m, {"x": x})
    inits = {"roi": np.zeros(0, np.float32), "scales": np.array([1, 1, 1, 0.6], np.float32)}
    m = single("Resize", {"x": x}, {"mode": "linear",
                                    "coordinate_transformation_mode": "half_pixel_symmetric"},
               inits, 19)
    check_against_ort(m, {"x": x})


@pytest.mark.parametrize("mode,scales", [("nearest", [1, 1, 2, 3]), ("nearest", [1, 1, 0.5, 0.6]),
                                         ("linear", [1, 1, 2, 1.5])])
def test_resize_opset10(mode, scales):
    x = randf(1, 2, 4, 5)
    m = single("Resize", {"x": x}, {"mode": mode},
               {"scales": np.array(scales, np.float32)}, 10)
    check_against_ort(m, {"x": x})


def test_upsample_linear_opset9():
    x = randf(1, 1, 3, 4)
    m = single("Upsample", {"x": x}, {"mode": "linear"},
               {"s": np.array([1, 1, 2, 1.5], np.float32)}, 9)
    check_against_ort(m, {"x": x})
