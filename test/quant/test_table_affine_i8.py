"""A scalar Mul then Add after an activation (PP-LCNetV3's learnable affine
blocks) folded into the default int8 table (docs/quantization.md "Scalar
affine after the activation"): `strata quantize` writes Dequant ->
activation -> top.ScalarAffine -> Quant at the Add's row, the interpreter's
int8 results match numpy's `round((a * f(x) + b) / s) + zp` in f32 steps
bit for bit, the compiled CPU model (table_i8 / table_channels_i8) and the
NPU simulator's hl.table match the interpreter bit for bit."""
import os
import re
import sys

import numpy as np
import pytest

pytest.importorskip("onnx")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_int8_kernels import build, check_exact, samples  # noqa: E402
from test_quantize import ok, strata  # noqa: E402

QTYPE = r"!quant\.uniform<i8:f32, ([-0-9.e+E]+):(-?[0-9]+)>>"


def hardswish(x):
    """The interpreter's HardSwish in double: x * HardSigmoid(x, 1/6, 1/2)."""
    return x * np.clip(x * (1.0 / 6.0) + 0.5, 0.0, 1.0)


def quantize(tmp_path, in_shape, layers, seed, options=()):
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(seed))
    samples(tmp_path / "cal", in_shape, 3, seed=1)
    table = tmp_path / "t.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", table))
    q = ["--quantize", "int8", "--calibration", table, *options]
    ok(strata("quantize", model, *q, "-o", tmp_path / "q", "--name", "m"))
    return model, q, (tmp_path / "q" / "m.mlir").read_text()


@pytest.mark.parametrize("a,b", [(1.7, -0.4), (-0.8, 0.3)])
def test_affine_folded_into_int8_table_matches_numpy(tmp_path, a, b):
    in_shape = [1, 4, 9, 8]
    _, _, text = quantize(tmp_path, in_shape,
                          [("conv", 5, 3, 1, 1, 1, 1), ("hardswish",), ("affine", a, b)], 11)
    assert "top.Mul" not in text and "top.Add" not in text, text
    assert len(re.findall(r"top\.ScalarAffine", text)) == 1, text
    s_in, zp_in = re.search(r"top\.Requant\(.*-> tensor<[0-9x]+" + QTYPE, text).groups()
    affine = re.search(r"(%[\w.]+) = top\.ScalarAffine", text).group(1)
    s_out, zp_out = re.search(r"top\.Quant\(" + affine + r"\) .*-> tensor<[0-9x]+" + QTYPE,
                              text).groups()
    s_in, zp_in, s_out, zp_out = float(s_in), int(zp_in), float(s_out), int(zp_out)
    ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", tmp_path / "cal" / "s0.npz",
              "--output", tmp_path / "o.npz", "--dump-all"))
    dump = np.load(tmp_path / "o.npz")
    # `t1_preact`: the Requant's int8 pre-activation, dumped dequantized
    # (the Dequant carries its name).
    pre = dump["t1_preact"]
    assert pre.dtype == np.float32
    q8 = np.round(pre.astype(np.float64) / s_in).astype(np.int64) + zp_in
    np.testing.assert_array_equal(((q8 - zp_in) * s_in).astype(np.float32), pre)
    got = dump["t2_int8"].astype(np.int64)
    f32 = np.float32
    x = pre.astype(np.float64)
    h = hardswish(x).astype(f32)
    y = ((h * f32(a)).astype(f32) + f32(b)).astype(f32).astype(np.float64)
    want = np.clip(np.round(y / s_out) + zp_out, -128, 127)
    assert len(np.unique(q8)) > 50  # many table entries exercised
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(dump["t2"], ((got - zp_out) * s_out).astype(np.float32))


def test_no_fold_when_the_activation_has_two_readers(tmp_path):
    """The activation's output also read by a residual Add: the Mul and Add
    stay float."""
    in_shape = [1, 4, 9, 8]
    _, _, text = quantize(tmp_path, in_shape,
                          [("conv", 4, 3, 1, 1, 1, 1), ("hardswish",), ("affine", 1.5, 0.2),
                           ("add", 1)], 5)
    assert "top.ScalarAffine" not in text, text
    assert "top.Mul" in text, text


@pytest.mark.parametrize("case", [
    # (a max pool after the affine: a conv there absorbs the Mul / Add into
    # its weights before quantization)
    ("per_tensor", [("conv", 6, 3, 1, 1, 1, 1), ("hardswish",), ("affine", 1.3, 0.25),
                    ("maxpool", 2, 2, 0, 0), ("conv", 4, 1, 1, 0, 1, 1)], [], "table_i8"),
    # channel ranges differing 20-fold: one table per channel
    ("per_channel", [("conv", 6, 3, 1, 1, 1, 1, 20), ("hardswish",), ("affine", -0.7, 0.4),
                     ("maxpool", 2, 2, 0, 0), ("conv", 4, 1, 1, 0, 1, 1)],
     ["--per-channel-tables"],
     "table_channels_i8"),
], ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_compiled_folded_int8_tables_match_interpreter(tmp_path, case):
    _, layers, options, kernel = case
    in_shape = [1, 5, 13, 11]
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(161))
    check_exact(tmp_path, model, in_shape, ["conv2d_1x1_gemm_i8", kernel],
                quant_options=options)
    text = (tmp_path / "q" / "m.mlir").read_text()
    assert "top.ScalarAffine" in text and "top.Mul" not in text, text


def test_npu_sim_tabulates_the_affine(tmp_path):
    """`--target npu-sim`: the conv and its folded table run on the NPU
    (hl.table), with the interpreter's bytes."""
    in_shape = [1, 4, 9, 9]
    model, q, text = quantize(tmp_path, in_shape,
                              [("conv", 8, 3, 1, 1, 1, 1), ("hardswish",), ("affine", 1.2, -0.3)],
                              3)
    assert "top.ScalarAffine" in text, text
    inp = tmp_path / "cal" / "s0.npz"
    ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", inp, "--output",
              tmp_path / "ref.npz"))
    want = np.load(tmp_path / "ref.npz")
    # The table folded into the conv's dispatch (the default), and a
    # dispatch of its own: both on the NPU (the input's Quant and the
    # output's Dequant on the CPU).
    for extra, n in (([], 1), (["--npu-fold-tables=false"], 2)):
        r = ok(strata("compile", model, "--target", "npu-sim", *q, *extra,
                      "-o", tmp_path / "m.strata", "--report"))
        assert f"{n} npu-sim dispatch(es), 2 CPU dispatch(es)" in r.stdout, r.stdout
        ok(strata("run", tmp_path / "m.strata", "--device", "npu-sim", "--input", inp,
                  "--output", tmp_path / "npu.npz"))
        got = np.load(tmp_path / "npu.npz")
        for name in want.files:
            np.testing.assert_array_equal(got[name], want[name])


def test_scalar_affine_float_path_matches_numpy(tmp_path):
    """top.ScalarAffine compiled in float (the linalg lowering: a multiply
    then an add, each rounded to f32) and interpreted, against numpy's two
    f32 roundings, bit for bit."""
    a, b = np.float32(1.3), np.float32(-0.7)
    (tmp_path / "m.mlir").write_text(f"""
module attributes {{top.name = "m"}} {{
  func.func @main(%arg0: tensor<4x1000xf32>) -> tensor<4x1000xf32> {{
    %0 = top.Input(%arg0) : (tensor<4x1000xf32>) -> tensor<4x1000xf32> loc("x")
    %1 = top.ScalarAffine(%0) {{scale = {float(a)!r} : f64, offset = {float(b)!r} : f64}} : (tensor<4x1000xf32>) -> tensor<4x1000xf32> loc("y")
    return %1 : tensor<4x1000xf32>
  }}
}}
""")
    x = (np.random.default_rng(5).standard_normal((4, 1000)) * 100).astype(np.float32)
    np.savez(tmp_path / "in.npz", input0=x)
    want = ((x * a).astype(np.float32) + b).astype(np.float32)
    assert not np.array_equal(want, (x.astype(np.float64) * a + b).astype(np.float32))
    ok(strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz", "--output",
              tmp_path / "ref.npz"))
    ok(strata("compile", tmp_path / "m.mlir", "--target", "cpu", "-o", tmp_path / "m.strata"))
    ok(strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz", "--output",
              tmp_path / "cpu.npz"))
    for f in ("ref.npz", "cpu.npz"):
        got = np.load(tmp_path / f)
        np.testing.assert_array_equal(got[got.files[0]], want, err_msg=f)
