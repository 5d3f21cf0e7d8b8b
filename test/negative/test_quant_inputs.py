"""strata run-ref with quantized inputs and weights: the npz must hold the
storage integers of the !quant.uniform type (int8 for i8, uint8 for u8); any
other dtype is rejected with a message naming the tensor and both dtypes."""

import numpy as np
import pytest


from negative_harness import assert_clean_failure, strata


MODEL = """module attributes {{top.weight_file = "w.npz"}} {{
  func.func @main(%arg0: tensor<1x4x{q}> {{top.name = "x"}}) -> (tensor<1x4xf32> {{top.name = "y"}}) {{
    %x = top.Input(%arg0) : (tensor<1x4x{q}>) -> tensor<1x4x{q}>
    %w = top.Weight() {{name = "w"}} : () -> tensor<1x4x{q}>
    %a = top.Dequant(%x) : (tensor<1x4x{q}>) -> tensor<1x4xf32>
    %b = top.Dequant(%w) : (tensor<1x4x{q}>) -> tensor<1x4xf32>
    %y = top.Add(%a, %b) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    return %y : tensor<1x4xf32>
  }}
}}
"""
I8 = "!quant.uniform<i8:f32, 0.5:-1>"
U8 = "!quant.uniform<u8:f32, 0.5:128>"


def run(tmp_path, qtype, x, w):
    (tmp_path / "m.mlir").write_text(MODEL.format(q=qtype))
    np.savez(tmp_path / "w.npz", w=w)
    np.savez(tmp_path / "in.npz", x=x)
    return strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
                  "--output", tmp_path / "out.npz")


def test_int8_storage_runs(tmp_path):
    x = np.array([[-128, -1, 0, 127]], np.int8)
    w = np.array([[1, 2, 3, 4]], np.int8)
    r = run(tmp_path, I8, x, w)
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "out.npz")["y"]
    expect = (x.astype(np.int64) + 1) * 0.5 + (w.astype(np.int64) + 1) * 0.5
    np.testing.assert_array_equal(y, expect.astype(np.float32))


def test_uint8_storage_runs(tmp_path):
    x = np.array([[0, 1, 128, 255]], np.uint8)
    w = np.array([[130, 2, 3, 4]], np.uint8)
    r = run(tmp_path, U8, x, w)
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "out.npz")["y"]
    expect = (x.astype(np.int64) - 128) * 0.5 + (w.astype(np.int64) - 128) * 0.5
    np.testing.assert_array_equal(y, expect.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.uint8])
def test_int8_weight_wrong_dtype(tmp_path, dtype):
    x = np.zeros((1, 4), np.int8)
    r = run(tmp_path, I8, x, np.zeros((1, 4), dtype))
    assert_clean_failure(r, f"weight 'w' has dtype {np.dtype(dtype).name} but int8 is expected")
    assert not (tmp_path / "out.npz").exists()


def test_int8_input_wrong_dtype(tmp_path):
    r = run(tmp_path, I8, np.zeros((1, 4), np.int32), np.zeros((1, 4), np.int8))
    assert_clean_failure(r, "input 'x' has dtype int32 but int8 is expected")
    assert not (tmp_path / "out.npz").exists()


def test_uint8_weight_given_int8(tmp_path):
    r = run(tmp_path, U8, np.zeros((1, 4), np.uint8), np.zeros((1, 4), np.int8))
    assert_clean_failure(r, "weight 'w' has dtype int8 but uint8 is expected")


def test_uint8_input_given_float(tmp_path):
    r = run(tmp_path, U8, np.zeros((1, 4), np.float32), np.zeros((1, 4), np.uint8))
    assert_clean_failure(r, "input 'x' has dtype float32 but ")
    assert not (tmp_path / "out.npz").exists()


def test_dynamic_quantize_linear_imports_cleanly(tmp_path):
    """DynamicQuantizeLinear's converter once read its three outputs from a
    braced list that died before the loop read it (ASan:
    stack-use-after-scope). Under the ASan build (make test) any such read
    fails this test; on both builds the outputs must be right."""
    import onnx
    from onnx import TensorProto, helper

    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [4]),
                           helper.make_tensor_value_info("s", TensorProto.FLOAT, []),
                           helper.make_tensor_value_info("z", TensorProto.UINT8, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, tmp_path / "m.onnx")
    r = strata("import", tmp_path / "m.onnx", "-o", tmp_path, "--name", "m")
    assert r.returncode == 0, r.stderr
    for bad in ("AddressSanitizer", "runtime error:"):
        assert bad not in r.stderr, r.stderr
    x = np.array([-1.0, 0.0, 0.5, 2.0], np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    r = strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
               "--output", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "out.npz")
    scale = (2.0 - -1.0) / 255
    zp = np.clip(np.round(0 - -1.0 / scale), 0, 255)
    np.testing.assert_allclose(out["s"], scale, rtol=1e-6)
    assert out["z"] == zp
    np.testing.assert_array_equal(
        out["y"], np.clip(np.round(x / scale) + zp, 0, 255).astype(np.uint8))
