"""The bf16 convolution kernels (`conv2d_im2col_gemm_bf16`, lib/Kernels/
Bf16Gemm.cpp bf16Conv2d, and `conv2d_depthwise_bf16`, the f32 depthwise
kernel on planes widened to f32; docs/cpu-kernels.md "bf16"): Conv layers of models
compiled with `strata compile --target cpu --quantize bf16` run the kernel
(AVX512-BF16 under STRATA_CPU_ISA=avx512 on a CPU that has it, the portable
path under avx2 / portable) and

- a single convolution matches a numpy reference on the bf16-rounded input
  and filter (f64 sums, f32 bias, relu, then the bf16 rounding of the
  result), within f32 accumulation's bound plus one bf16 rounding:
  |got - want| <= 2^-8 |want| + K 2^-24 sum|x w| + 1e-30;
- chains (1x1, strided, padded, dilated, relu between, a residual Add)
  match the interpreter (`strata run-ref` on the `strata quantize --quantize
  bf16` model) within rtol 2^-7 plus atol 2^-7 max|want|: both round each
  layer's result to bf16, but sum K in another order, so an intermediate
  may differ by one bf16 ulp and the next layer carries that on.
- every ISA path gives the same bits for the GEMM convolutions (the paths
  sum in the same order); the depthwise kernel is the f32 one, whose
  AVX-512 / AVX2 / portable paths may differ by f32 rounding, so there
  only the bounds above are checked."""
import os
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_int8_kernels import ISAS, build, run_artifact, samples  # noqa: E402
from test_quantize import ok, strata  # noqa: E402

CASES = {
    "pointwise": ([1, 19, 11, 13], [("conv", 29, 1, 1, 0, 1, 1), ("relu",)]),
    "stem_7x7_s2": ([1, 3, 29, 27], [("conv", 17, 7, 2, 3, 1, 1)]),
    "3x3_pad": ([2, 16, 18, 18], [("conv", 20, 3, 1, 1, 1, 1), ("relu",)]),
    "dilated": ([1, 6, 13, 12], [("conv", 9, 3, 1, 2, 2, 1)]),
    "strided_1x1": ([1, 33, 15, 13], [("conv", 24, 1, 2, 0, 1, 1)]),
    "depthwise": ([1, 12, 15, 14], [("conv", 12, 3, 1, 1, 1, 12), ("relu6",)]),
    "depthwise_s2": ([2, 8, 17, 17], [("conv", 16, 3, 2, 1, 1, 8)]),
}

CHAINS = {
    "bottleneck": ([1, 24, 17, 17], [("conv", 12, 1, 1, 0, 1, 1), ("relu",),
                                     ("conv", 12, 3, 1, 1, 1, 1), ("relu",),
                                     ("conv", 24, 1, 1, 0, 1, 1), ("add", -1), ("relu",)]),
    "downsample": ([1, 8, 20, 20], [("conv", 16, 3, 2, 1, 1, 1), ("relu",),
                                    ("conv", 32, 3, 1, 1, 1, 1), ("relu",),
                                    ("conv", 10, 1, 1, 0, 1, 1)]),
    "inverted_residual": ([1, 8, 14, 14], [("conv", 32, 1, 1, 0, 1, 1), ("relu6",),
                                           ("conv", 32, 3, 1, 1, 1, 32), ("relu6",),
                                           ("conv", 8, 1, 1, 0, 1, 1), ("add", -1)]),
}


def bf16(a):
    return np.asarray(a, np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def conv_ref(x, w, b, stride, pad, dil, group):
    """f64 NCHW convolution of the given values; also sum |x w|."""
    if group > 1:
        cg, og = x.shape[1] // group, w.shape[0] // group
        parts = [conv_ref(x[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og],
                          b[g * og:(g + 1) * og], stride, pad, dil, 1) for g in range(group)]
        return (np.concatenate([p[0] for p in parts], 1),
                np.concatenate([p[1] for p in parts], 1))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - dil * (kh - 1) - 1) // stride + 1
    ow = (wd + 2 * pad - dil * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, o, oh, ow))
    mag = np.zeros((n, o, oh, ow))
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, :, ky * dil: ky * dil + stride * (oh - 1) + 1: stride,
                       kx * dil: kx * dil + stride * (ow - 1) + 1: stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, ky, kx])
            mag += np.einsum("nchw,oc->nohw", np.abs(patch), np.abs(w[:, :, ky, kx]))
    return y + b[None, :, None, None], mag + np.abs(b)[None, :, None, None]


def compile_bf16(tmp_path, model):
    r = ok(strata("compile", model, "--target", "cpu", "--quantize", "bf16", "-o",
                  tmp_path / "m.strata", "--report"))
    return r.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_bf16_conv_matches_numpy(tmp_path, name):
    in_shape, layers = CASES[name]
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(5))
    report = compile_bf16(tmp_path, model)
    kernel = "depthwise" if layers[0][6] > 1 else "im2col_gemm"
    assert f"kernel 'conv2d_{kernel}_bf16': 1 dispatch" in report, report
    m = onnx.load(str(model))
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    _, _, k, s, p, d, g = layers[0]
    inp = samples(tmp_path / "eval", in_shape, 1, seed=3)[0]
    x = np.load(inp)["x"]
    want, mag = conv_ref(bf16(x), bf16(inits["c0_w"]), inits["c0_b"].astype(np.float64), s, p, d, g)
    if len(layers) > 1:
        want = np.clip(want, 0, 6 if layers[1][0] == "relu6" else np.inf)
    kk = inits["c0_w"][0].size
    tol = 2.0 ** -8 * np.abs(want) + kk * 2.0 ** -24 * mag + 1e-30
    outs = []
    for isa in ISAS:
        got = run_artifact(tmp_path / "m.strata", inp, tmp_path / "cpu.npz", isa)
        y = got[got.files[0]].astype(np.float64)
        assert np.all(np.abs(y - want) <= tol), \
            f"{isa}: worst excess {np.max(np.abs(y - want) - tol)}"
        outs.append(got[got.files[0]])
    if g == 1:
        for o in outs[1:]:
            assert np.array_equal(o, outs[0]), "ISA paths differ"


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_bf16_conv_chain_matches_interpreter(tmp_path, name):
    in_shape, layers = CHAINS[name]
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(7))
    convs = sum(1 for layer in layers if layer[0] == "conv" and layer[6] == 1)
    report = compile_bf16(tmp_path, model)
    assert f"kernel 'conv2d_im2col_gemm_bf16': {convs} dispatch" in report, report
    if any(layer[0] == "conv" and layer[6] > 1 for layer in layers):
        assert "kernel 'conv2d_depthwise_bf16': 1 dispatch" in report, report
    ok(strata("quantize", model, "--quantize", "bf16", "-o", tmp_path / "q", "--name", "m"))
    for inp in samples(tmp_path / "eval", in_shape, 2, seed=9):
        ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", inp, "--output",
                  tmp_path / "ref.npz"))
        ref = np.load(tmp_path / "ref.npz")
        outs = []
        for isa in ISAS:
            got = run_artifact(tmp_path / "m.strata", inp, tmp_path / "cpu.npz", isa)
            for k in ref.files:
                want = ref[k].astype(np.float64)
                np.testing.assert_allclose(got[k], want, rtol=2.0 ** -7,
                                           atol=2.0 ** -7 * np.max(np.abs(want)),
                                           err_msg=f"{isa} {k} {inp}")
            outs.append(got[ref.files[0]])
        if not any(layer[0] == "conv" and layer[6] > 1 for layer in layers):
            for o in outs[1:]:
                assert np.array_equal(o, outs[0]), "ISA paths differ"
