"""TFLite int8/uint8 FULLY_CONNECTED compiled for the CPU (`strata compile
--target cpu`), bit-exact against the TFLite interpreter on every ISA path
(STRATA_CPU_ISA=avx512 / avx2 / portable): the generated code of Requant's
TFLiteHalfUp mode. (The import's int32 MatMul on zero-point-shifted
operands does not reach the int8 kernels; their TFLiteHalfUp epilogue is
tested in unittests/Kernels/RuntimeInt8KernelsTest.cpp and
test/Target/Cpu/outline-int8-requant.mlir.) The layer has no activation
and the seed is the first whose output has a negative tie: gemmlowp's
ties-away rounding (Requant's TFLite mode) would differ from the
interpreter there (asserted, numpy on the model's integers), so code
rounding the other way fails."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

from test_tflite_conv_rounding import (accumulator, build_fc, model_integers,
                                       quantize_multiplier, rounding_rules)
from tflite_builder import STRATA, Case, import_model, run_tflite, tensor_ranges

ISAS = ("avx512", "avx2", "portable")


def build(c, seed):
    return build_fc(c, seed, rows=24, k=40, n=19)


def seeded(qtype, seed):
    """(model, feed, interpreter output, gemmlowp's ties-away output)."""
    x = np.random.default_rng(seed).standard_normal((24, 40)).astype(np.float32)
    c = Case()
    ranges = tensor_ranges(c.b.finish(build(c, seed)), {"x": x})
    c = Case(qtype, ranges)
    model = c.b.finish(build(c, seed))
    feed = c.quantize_input("x", x)
    want = run_tflite(model, {"x": feed})["y"]
    w, bias, q = model_integers(model, feed)
    (sx, zx), (sw, zw), (sy, zy) = q["x"], q["w"], q["y"]
    acc = accumulator("FULLY_CONNECTED", feed.astype(np.int64) - zx[0], w - zw[0], bias,
                      want.shape)
    m, s = quantize_multiplier(sx[0].astype(np.float64) * sw.astype(np.float64)
                               / sy[0].astype(np.float64))
    info = np.iinfo(want.dtype)
    away = np.clip(rounding_rules(acc, m, s)["ties away"] + zy[0], info.min, info.max)
    return model, feed, want, away


@pytest.mark.parametrize("qtype", ["int8", "uint8"])
def test_fully_connected_compiled_matches_interpreter(qtype):
    for seed in range(10):
        model, feed, want, away = seeded(qtype, seed)
        if (away != want).any():
            break
    assert (away != want).any(), "no negative tie: the test cannot tell the roundings apart"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.tflite")
        with open(path, "wb") as f:
            f.write(model)
        r = import_model(path, tmp)
        assert r.returncode == 0, r.stderr
        mlir = os.path.join(tmp, "m.mlir")
        with open(mlir) as f:
            assert "requant_mode<TFLiteHalfUp>" in f.read()
        art = os.path.join(tmp, "m.strata")
        r = subprocess.run([STRATA, "compile", mlir, "--target", "cpu", "-o", art],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        inp, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, x=feed)
        for isa in ISAS:
            r = subprocess.run([STRATA, "run", art, "--input", inp, "--output", out],
                               capture_output=True, text=True,
                               env=dict(os.environ, STRATA_CPU_ISA=isa))
            assert r.returncode == 0, r.stderr
            with np.load(out) as z:
                np.testing.assert_array_equal(z["y"], want, err_msg=f"{qtype} {isa}")
