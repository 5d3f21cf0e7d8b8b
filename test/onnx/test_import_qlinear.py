"""QLinearMatMul, QLinearConv and DynamicQuantizeLinear against the ONNX
reference implementation (onnx.reference), bit-exactly: the integer outputs
must be equal and the float scale equal to the last bit. Scales and zero points
are graph inputs (runtime values) or initializers."""
import zlib

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import import_error, make_model, run_strata


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def check_exact(model, feeds):
    code, got, err = run_strata(model, feeds)
    assert code == 0, err
    want = ReferenceEvaluator(model).run(None, feeds)
    for out, w in zip(model.graph.output, want):
        g = got[out.name]
        assert g.dtype == w.dtype and g.shape == w.shape, (out.name, g.dtype, w.dtype, g.shape)
        np.testing.assert_array_equal(g, w, err_msg=out.name)


def qrange(dtype):
    return (-128, 128) if dtype == np.int8 else (0, 256)


@pytest.mark.parametrize("adt,bdt,ydt", [(np.uint8, np.uint8, np.uint8),
                                         (np.int8, np.int8, np.int8),
                                         (np.uint8, np.int8, np.int8)])
@pytest.mark.parametrize("scale_dt", [np.float32, np.float16])
@pytest.mark.parametrize("per_column", [False, True])
@pytest.mark.parametrize("runtime", [False, True])
def test_qlinear_matmul(adt, bdt, ydt, scale_dt, per_column, runtime):
    rng = rng_for("qmm%s%s%s%s%s%s" % (adt, bdt, ydt, scale_dt, per_column, runtime))
    a = rng.integers(*qrange(adt), (2, 5, 16)).astype(adt)
    b = rng.integers(*qrange(bdt), (16, 6)).astype(bdt)
    n = 6 if per_column else 1
    params = {
        "a_scale": np.array(rng.uniform(0.01, 0.05), scale_dt),
        "a_zp": np.array(rng.integers(*qrange(adt)), adt),
        "b_scale": rng.uniform(0.01, 0.05, n).astype(scale_dt).reshape(() if n == 1 else (n,)),
        "b_zp": rng.integers(*qrange(bdt), n).astype(bdt).reshape(() if n == 1 else (n,)),
        "y_scale": np.array(rng.uniform(0.5, 2.0), scale_dt),
        "y_zp": np.array(rng.integers(*qrange(ydt)) // 2, ydt),
    }
    node = helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zp", "b", "b_scale", "b_zp",
                                              "y_scale", "y_zp"], ["y"])
    feeds = {"a": a, "b": b}
    inputs, inits = dict(feeds), {}
    (inputs if runtime else inits).update(params)
    if runtime:
        feeds.update(params)
    check_exact(make_model([node], inputs, ["y"], inits, opset=21), feeds)


@pytest.mark.parametrize("xdt", [np.uint8, np.int8])
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("runtime_zp", [False, True])
def test_qlinear_conv(xdt, per_channel, bias, runtime_zp):
    rng = rng_for("qconv%s%s%s%s" % (xdt, per_channel, bias, runtime_zp))
    x = rng.integers(*qrange(xdt), (1, 4, 7, 7)).astype(xdt)
    o = 6
    w = rng.integers(-128, 128, (o, 2, 3, 3)).astype(np.int8)
    n = o if per_channel else 1
    shape = (n,) if per_channel else ()
    params = {"x_scale": np.array(0.02, np.float32),
              "x_zp": np.array(rng.integers(*qrange(xdt)), xdt),
              "w_scale": rng.uniform(0.002, 0.01, n).astype(np.float32).reshape(shape),
              "w_zp": np.zeros(shape, np.int8),
              "y_scale": np.array(0.05, np.float32),
              "y_zp": np.array(rng.integers(*qrange(xdt)) // 2, xdt)}
    names = ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"]
    inits = {k: v for k, v in params.items() if not (runtime_zp and k == "x_zp")}
    inits["w"] = w
    if bias:
        inits["B"] = rng.integers(-2000, 2000, o).astype(np.int32)
        names.append("B")
    feeds = {"x": x}
    if runtime_zp:
        feeds["x_zp"] = params["x_zp"]
    node = helper.make_node("QLinearConv", names, ["y"], pads=[1, 0, 1, 2], strides=[2, 1],
                            group=2)
    check_exact(make_model([node], dict(feeds), ["y"], inits, opset=10), feeds)


@pytest.mark.parametrize("kind", ["mixed", "positive", "negative", "constant", "zero", "wide"])
def test_dynamic_quantize_linear(kind):
    rng = rng_for("dql" + kind)
    x = {"mixed": rng.standard_normal((3, 17)) * 4,
         "positive": rng.uniform(0.5, 9, (3, 17)),
         "negative": -rng.uniform(0.5, 9, (3, 17)),
         "constant": np.full((3, 17), 2.5),
         "zero": np.zeros((3, 17)),
         "wide": rng.standard_normal((3, 17)) * 1e4}[kind].astype(np.float32)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    check_exact(make_model([node], {"x": x}, ["y", "s", "z"], opset=11), {"x": x})


def test_qlinear_matmul_int32_output_is_rejected():
    a = np.zeros((2, 3), np.uint8)
    inits = {"sa": np.array(1, np.float32), "za": np.array(0, np.uint8),
             "b": np.zeros((3, 2), np.uint8), "sb": np.array(1, np.float32),
             "zb": np.array(0, np.uint8), "sy": np.array(1, np.float32),
             "zy": np.array(0, np.int32)}
    node = helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"])
    err = import_error(make_model([node], {"a": a}, ["y"], inits, opset=10))
    assert "QLinearMatMul" in err and "output type" in err and "int8 and uint8" in err, err


def test_qlinear_conv_float_bias_is_rejected():
    x = np.zeros((1, 1, 3, 3), np.uint8)
    inits = {"sx": np.array(1, np.float32), "zx": np.array(0, np.uint8),
             "w": np.zeros((1, 1, 1, 1), np.uint8), "sw": np.array(1, np.float32),
             "zw": np.array(0, np.uint8), "sy": np.array(1, np.float32),
             "zy": np.array(0, np.uint8), "B": np.zeros(1, np.float32)}
    node = helper.make_node("QLinearConv", ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "B"],
                            ["y"])
    err = import_error(make_model([node], {"x": x}, ["y"], inits, opset=10))
    assert "QLinearConv" in err and "input 'B' must be int32" in err, err


def test_dynamic_quantize_linear_needs_float32():
    x = np.zeros((2,), np.float16)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    err = import_error(make_model([node], {"x": x}, ["y", "s", "z"], opset=11))
    assert "DynamicQuantizeLinear" in err and "must be float32" in err, err
