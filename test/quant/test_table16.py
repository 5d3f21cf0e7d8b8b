"""Int16 activation-table inputs (`--table-input int16`, top.Table16,
strata/Support/IntegerTable16.h, docs/quantization.md "Int16 table
inputs"): the quantized model's tables against numpy's tabulation of the
float activation, the interpreter's lookups against the TOSA int16 TABLE
interpolation written out here, and compiled models (int8 conv / matmul
kernels writing int32, then the table16_i8 kernel) against the
interpreter bit for bit on every ISA path."""
import os
import re
import sys

import numpy as np
import pytest

pytest.importorskip("onnx")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_int8_kernels import build, check_exact, samples  # noqa: E402
from test_quantize import ok, strata  # noqa: E402

TABLE16 = re.compile(
    r"top\.Table16\((%[\w.]+)\) \{table = array<i16: ([-0-9, ]+)>\} : "
    r"\(tensor<[0-9x]+!quant\.uniform<i16:f32, ([-0-9.e+E]+):(-?[0-9]+)>>\) -> "
    r"tensor<[0-9x]+!quant\.uniform<i8:f32, ([-0-9.e+E]+):(-?[0-9]+)>>")


def round_half_even(v):
    return np.round(v)  # numpy rounds ties to even


def lookup(table, x):
    """TOSA's int16 TABLE in its weighted form, then the rounding shift by
    14 (ties away from zero), clamped to int8."""
    t = table.astype(np.int64)
    u = x.astype(np.int64) + 32768
    i, f = u // 128, u % 128
    v = t[i] * (128 - f) + t[i + 1] * f
    r = np.sign(v) * ((np.abs(v) + 8192) // 16384)
    return np.clip(r, -128, 127)


ACTS = {
    "silu": lambda x: x / (1 + np.exp(-x)),
    "hardswish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
}


def quantize_one_table(tmp_path, in_shape, layers, seed):
    """Calibrates (minmax) and quantizes with int16 tables a model with one
    table: the table file, the quantized MLIR and the Table16's entries,
    input and output parameters."""
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(seed))
    samples(tmp_path / "cal", in_shape, 3, seed=1)
    table = tmp_path / "t.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", table))
    ok(strata("quantize", model, "--quantize", "int8", "--calibration", table,
              "--table-input", "int16", "-o", tmp_path / "q", "--name", "m"))
    text = (tmp_path / "q" / "m.mlir").read_text()
    found = TABLE16.findall(text)
    assert len(found) == 1, text
    _, entries, s_in, zp_in, s_out, zp_out = found[0]
    entries = np.array([int(v) for v in entries.split(",")], np.int64)
    assert entries.shape == (513,)
    return table, text, entries, float(s_in), int(zp_in), float(s_out), int(zp_out)


def ref_dump(tmp_path):
    """Every tensor of the quantized model on the first calibration sample
    (`strata run-ref --dump-all`)."""
    ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", tmp_path / "cal" / "s0.npz",
              "--output", tmp_path / "o.npz", "--dump-all"))
    return np.load(tmp_path / "o.npz")


@pytest.mark.parametrize("act", sorted(ACTS))
def test_table_entries_and_lookups_match_numpy(tmp_path, act):
    in_shape = [1, 5, 11, 7]
    _, _, entries, s_in, zp_in, s_out, zp_out = quantize_one_table(
        tmp_path, in_shape, [("conv", 6, 3, 1, 1, 1, 1), (act,)], 7)
    # The entries: the activation at (i * 128 - 32768 - zp_in) * s_in (f32),
    # in the output's steps with 7 fractional bits, zero point included.
    x = ((np.arange(513) * 128 - 32768 - zp_in) * s_in).astype(np.float32).astype(np.float64)
    want = np.clip(round_half_even(128 * (ACTS[act](x) / s_out + zp_out)), -128 * 128, 127 * 128)
    # The interpreter computes the activation in f32: one unit of 1/128 step.
    assert np.abs(entries - want).max() <= 1, np.abs(entries - want).max()
    assert (entries == want).mean() > 0.9
    # The interpreter's lookups: the int8 result of each int16 input.
    dump = ref_dump(tmp_path)
    # The fused layer is named after the activation's output (t1): its
    # int16 pre-activation and int8 result, as storage integers.
    q16 = dump["t1_preact"]
    assert q16.dtype == np.int16, q16.dtype
    q16 = q16.astype(np.int64)
    assert np.ptp(q16) > 20000  # the inputs span much of the int16 range
    got = dump["t1_int8"].astype(np.int64)
    np.testing.assert_array_equal(got, lookup(entries, q16))
    np.testing.assert_array_equal(dump["t1"], ((got - zp_out) * s_out).astype(np.float32))
    # And the result is the activation of the dequantized int16 value, up
    # to the output's rounding (half a step), the entries' (1/256 step) and
    # the interpolation's (below 1/100 step here).
    exact = ACTS[act]((q16 - zp_in) * s_in) / s_out + zp_out
    assert np.abs(got - np.clip(exact, -128, 127)).max() <= 0.5 + 1 / 64


@pytest.mark.parametrize("a,b", [(1.7, -0.4), (-0.8, 0.3)])
def test_scalar_affine_after_the_activation_is_folded_into_the_table(tmp_path, a, b):
    """A float Mul then Add by scalars after the activation (PP-LCNetV3's
    learnable affine blocks) become part of the table: the table's int8
    output is `a * f(x) + b` in the Add's steps, one rounding."""
    in_shape = [1, 4, 9, 8]
    table, text, entries, s_in, zp_in, s_out, zp_out = quantize_one_table(
        tmp_path, in_shape,
        [("conv", 5, 3, 1, 1, 1, 1), ("hardswish",), ("affine", a, b)], 11)
    assert "top.Mul" not in text and "top.Add" not in text, text
    # The output's parameters are the Add's (t2) row: asymmetric minmax.
    lo, hi = [float(v) for v in next(line.split()[2:4] for line in open(table)
                                     if line.startswith("t2 "))]
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    assert s_out == pytest.approx((hi - lo) / 255, rel=1e-6)
    f32 = np.float32
    x = ((np.arange(513) * 128 - 32768 - zp_in) * s_in).astype(f32)
    y = (ACTS["hardswish"](x.astype(np.float64)).astype(f32) * f32(a) + f32(b)).astype(np.float64)
    want = np.clip(round_half_even(128 * (y / s_out + zp_out)), -128 * 128, 127 * 128)
    assert np.abs(entries - want).max() <= 1, np.abs(entries - want).max()
    assert (entries == want).mean() > 0.9
    # The interpreter's lookups and the result against the exact affine of
    # the activation of the int16 value (half an output step, 1/64 more).
    dump = ref_dump(tmp_path)
    q16 = dump["t1_preact"].astype(np.int64)
    got = dump["t2_int8"].astype(np.int64)
    np.testing.assert_array_equal(got, lookup(entries, q16))
    np.testing.assert_array_equal(dump["t2"], ((got - zp_out) * s_out).astype(np.float32))
    exact = (a * ACTS["hardswish"]((q16 - zp_in) * s_in) + b) / s_out + zp_out
    assert np.abs(got - np.clip(exact, -128, 127)).max() <= 0.5 + 1 / 64


@pytest.mark.parametrize("case", [
    # odd plane sizes and channel counts; per-channel requant multipliers
    ("conv_hardswish", [1, 3, 17, 13], [("conv", 7, 3, 2, 1, 1, 1), ("hardswish",)],
     ["conv2d_im2col_gemm_i8", "table16_i8"]),
    ("depthwise_silu", [1, 9, 15, 11], [("conv", 9, 3, 1, 1, 1, 9), ("silu",),
                                        ("conv", 5, 1, 1, 0, 1, 1), ("sigmoid",)],
     ["conv2d_depthwise_i8", "conv2d_1x1_gemm_i8", "table16_i8"]),
    ("gemm_hardsigmoid", [3, 37], [("gemm", 21), ("hardsigmoid",)],
     ["matmul_gemm_i8", "table16_i8"]),
    # The max pool keeps top-optimize from folding the affine into the next
    # convolution's weights, so the affine reaches the table.
    ("conv_hardswish_affine", [1, 5, 13, 11], [("conv", 6, 3, 1, 1, 1, 1), ("hardswish",),
                                               ("affine", 1.3, 0.25),
                                               ("maxpool", 2, 2, 0, 0),
                                               ("conv", 4, 1, 1, 0, 1, 1)],
     ["conv2d_im2col_gemm_i8", "conv2d_1x1_gemm_i8", "table16_i8"]),
], ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_compiled_int16_tables_match_interpreter(tmp_path, case):
    _, in_shape, layers, kernels = case
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(161))
    check_exact(tmp_path, model, in_shape, kernels, quant_options=["--table-input", "int16"])
    text = (tmp_path / "q" / "m.mlir").read_text()
    assert "top.Table16" in text, text
    if any(layer[0] == "affine" for layer in layers):
        assert "top.Mul" not in text and "top.Add" not in text, text  # folded


@pytest.mark.parametrize("case", ["conv_silu", "dw_strided_hardswish"])
def test_npu_sim_runs_int16_tables_on_the_npu(tmp_path, case):
    """`--target npu-sim`: each int8 conv and its top.Table16 run on the NPU
    as one dispatch (hl.conv2d writing int16 + hl.table16, the activation
    unit's interpolated table), with the CPU int8 path's bytes (`--target
    cpu`) and the interpreter's (`strata run-ref`)."""
    in_shape = [1, 4, 9, 9]
    layers = {
        "conv_silu": [("conv", 6, 3, 1, 1, 1, 1), ("silu",), ("conv", 5, 1, 1, 0, 1, 1),
                      ("hardswish",)],
        # A depthwise conv (group = channels), then a stride-2 3x3 conv.
        "dw_strided_hardswish": [("conv", 4, 3, 1, 1, 1, 4), ("hardswish",),
                                 ("conv", 7, 3, 2, 1, 1, 1), ("silu",)],
    }[case]
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(3))
    samples(tmp_path / "cal", in_shape, 2, seed=1)
    table = tmp_path / "t.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", table))
    q = ["--quantize", "int8", "--calibration", table, "--table-input", "int16"]
    ok(strata("quantize", model, *q, "-o", tmp_path / "q", "--name", "m"))
    assert (tmp_path / "q" / "m.mlir").read_text().count("top.Table16") == 2
    r = ok(strata("compile", model, "--target", "npu-sim", *q, "-o", tmp_path / "m.strata",
                  "--report", "--explain-strategy"))
    # Both convs with their tables on the NPU: conv_silu's two 9x9 convs are
    # one conv -> conv chain dispatch (the first one's output stays in LRAM,
    # its table16 applied); the strided case a dispatch per conv and the
    # segmentation. The input's Quant and the output's Dequant on the CPU.
    first = "depthwise_conv2d" if case == "dw_strided_hardswish" else "conv2d"
    kernels = re.findall(r"^top\.Conv '\w+': (.*)$", r.stdout, re.M)
    assert kernels == [f"hl.{first} + hl.table16", "hl.conv2d + hl.table16"], r.stdout
    assert "2 of 2 candidate op(s) run on the NPU" in r.stdout, r.stdout
    n = 3 if case == "dw_strided_hardswish" else 1
    assert f"{n} npu-sim dispatch(es), 2 CPU dispatch(es)" in r.stdout, r.stdout
    ok(strata("compile", model, "--target", "cpu", *q, "-o", tmp_path / "c.strata"))
    for s in ("s0", "s1"):
        inp = tmp_path / "cal" / f"{s}.npz"
        ok(strata("run", tmp_path / "m.strata", "--device", "npu-sim", "--input", inp,
                  "--output", tmp_path / "npu.npz"))
        ok(strata("run", tmp_path / "c.strata", "--input", inp, "--output", tmp_path / "cpu.npz"))
        ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", inp, "--output",
                  tmp_path / "ref.npz"))
        got, cpu, want = (np.load(tmp_path / f) for f in ("npu.npz", "cpu.npz", "ref.npz"))
        assert want.files
        for name in want.files:
            assert got[name].tobytes() == cpu[name].tobytes(), name
            assert got[name].tobytes() == want[name].tobytes(), name
