"""Pins down the one rounding difference between Strata's TFLite requantization
and the TFLite interpreter's CONV_2D (docs/tflite.md, "Rounding differences").

Both compute the int32 accumulator exactly and apply TFLite's Q31 multiplier
M and right shift s as two roundings: SaturatingRoundingDoublingHighMul
(round(acc * M / 2^31)), then a rounding right shift by s. TFLite's reference
kernels (gemmlowp's RoundingDivideByPOT) and Strata's `top.Requant` TFLite
mode round ties of that shift away from zero; the interpreter's CONV_2D
(ai-edge-litert's builtin kernels, its GEMM path) rounds them up, toward
+infinity (ARM's SQRDMULH + rounding shift). The two differ exactly on
negative ties that the fused activation does not clamp: -19.5 -> -19 vs -20.

The reference here is numpy on the model's own integers (read back from the
interpreter): every element of a uint8 and an int8 CONV_2D must equal the
interpreter under "ties up", and Strata's output under "ties away from
zero"; the inputs are seeded so that negative ties occur (asserted). If
either side changes its rounding, this test says which."""
import tempfile

import numpy as np
import pytest

from tflite_builder import Case, enum, run_strata, run_tflite, tensor_ranges

A = enum("ActivationFunctionType")
P = enum("Padding")
XS, WS = (1, 8, 7, 4), (5, 2, 3, 4)  # VALID, stride 1, no activation


def build(c, seed):
    rng = np.random.default_rng(seed + 10)
    x = c.input("x", XS)
    f = c.weight("w", (rng.standard_normal(WS) * 0.5).astype(np.float32), axis=0)
    b = c.bias("b", (rng.standard_normal(WS[0]) * 0.5).astype(np.float32), "x", "w")
    y = c.act("y", (1, 7, 5, 5))
    c.b.op("CONV_2D", [x, f, b], [y], "Conv2DOptions", padding=P.VALID, strideH=1,
           strideW=1, dilationHFactor=1, dilationWFactor=1,
           fusedActivationFunction=A.NONE)
    return [y]


def model_integers(model, feed):
    """Filter, bias, and the (scale, zero point) of x, w, y from the
    interpreter's view of the model."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_content=model, num_threads=1,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                     experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], feed)
    it.invoke()
    t = {d["name"]: d for d in it.get_tensor_details()}
    q = {n: (np.asarray(t[n]["quantization_parameters"]["scales"], np.float32),
             np.asarray(t[n]["quantization_parameters"]["zero_points"], np.int64))
         for n in ("x", "w", "y")}
    return (it.get_tensor(t["w"]["index"]).astype(np.int64),
            it.get_tensor(t["b"]["index"]).astype(np.int64), q)


def quantize_multiplier(real):
    """TFLite's QuantizeMultiplier: (Q31 multiplier, right shift)."""
    frac, exp = np.frexp(real)
    m = np.round(frac * (1 << 31)).astype(np.int64)
    exp = np.where(m == 1 << 31, exp + 1, exp)
    m = np.where(m == 1 << 31, m // 2, m)
    return m, -exp


def high_mul(acc, m):
    """gemmlowp's SaturatingRoundingDoublingHighMul (no saturation case here)."""
    p = acc * m
    v = p + np.where(p >= 0, 1 << 30, 1 - (1 << 30))
    return np.where(v >= 0, v >> 31, -((-v) >> 31))


@pytest.mark.parametrize("qtype,seeds", [("uint8", range(4)), ("int8", range(6))])
def test_conv2d_negative_ties(qtype, seeds):
    info = np.iinfo(np.dtype(qtype))
    differ = 0
    for seed in seeds:
        x = {"x": np.random.default_rng(seed).standard_normal(XS).astype(np.float32)}
        c = Case()
        ranges = tensor_ranges(c.b.finish(build(c, seed)), x)
        c = Case(qtype, ranges)
        model = c.b.finish(build(c, seed))
        feed = c.quantize_input("x", x["x"])
        interp = run_tflite(model, {"x": feed})["y"].astype(np.int64)
        with tempfile.TemporaryDirectory() as tmp:
            got = run_strata(model, {"x": feed}, tmp, optimized=True)["y"].astype(np.int64)

        w, bias, q = model_integers(model, feed)
        (sx, zx), (sw, zw), (sy, zy) = q["x"], q["w"], q["y"]
        xi = feed.astype(np.int64) - zx[0]
        wi = w - zw.reshape(-1, 1, 1, 1) if zw.size > 1 else w - zw[0]
        acc = np.zeros(interp.shape, np.int64)
        for i in range(7):
            for j in range(5):
                acc[:, i, j, :] = np.einsum("nhwc,ohwc->no", xi[:, i:i + 2, j:j + 3, :], wi) + bias
        real = sx[0].astype(np.float64) * sw.astype(np.float64) / sy[0].astype(np.float64)
        m, s = quantize_multiplier(real)
        h = high_mul(acc, m)
        half = 1 << (s - 1)
        rem = h & ((1 << s) - 1)
        up = (h + half) >> s                      # ties toward +infinity
        away = (h >> s) + (rem > half - 1 + (h < 0))  # ties away from zero
        up = np.clip(up + zy[0], info.min, info.max)
        away = np.clip(away + zy[0], info.min, info.max)
        differ += int((up != away).sum())
        np.testing.assert_array_equal(interp, up, err_msg=f"{qtype} seed {seed}: interpreter")
        np.testing.assert_array_equal(got, away, err_msg=f"{qtype} seed {seed}: strata")
    assert differ > 0, "no element where the two roundings differ: the test shows nothing"
