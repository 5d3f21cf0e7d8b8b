"""TOSA fft2d and rfft2d through convert-tosa-to-top (two top.DFT ops)
against MLIR's own TOSA lowering (tosa_harness.py). The two sum their terms
in different orders (the reference directly in f32, Top's DFT in f64 then
rounded), so the tolerance is rtol 1e-4 with atol 1e-5 * H * W * max|x|."""
import tempfile

import numpy as np
import pytest

from tosa_harness import reference, strata, ttype


def run(func, inputs):
    with tempfile.TemporaryDirectory() as d:
        ref = reference(func, inputs, d)
        got, text = strata(func, inputs, d)
    scale = max(np.abs(x).max() for x in inputs) * np.prod(inputs[0].shape[1:])
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * scale)
    return text


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("hw", [(4, 8), (16, 2)])
def test_fft2d(inverse, hw, rng):
    t = ttype((2, *hw), "f32")
    func = (f"func.func @main(%re: {t}, %im: {t}) -> ({t}, {t}) {{\n"
            f"  %0, %1 = tosa.fft2d %re, %im {{inverse = {str(inverse).lower()}}} : "
            f"({t}, {t}) -> ({t}, {t})\n  return %0, %1 : {t}, {t}\n}}")
    text = run(func, [rng.standard_normal((2, *hw)).astype(np.float32) for _ in range(2)])
    assert text.count("top.DFT") == 2


@pytest.mark.parametrize("hw", [(4, 8), (2, 16)])
def test_rfft2d(hw, rng):
    t = ttype((2, *hw), "f32")
    o = ttype((2, hw[0], hw[1] // 2 + 1), "f32")
    func = (f"func.func @main(%x: {t}) -> ({o}, {o}) {{\n"
            f"  %0, %1 = tosa.rfft2d %x : ({t}) -> ({o}, {o})\n  return %0, %1 : {o}, {o}\n}}")
    run(func, [rng.standard_normal((2, *hw)).astype(np.float32)])
