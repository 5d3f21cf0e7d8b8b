"""Quantization end to end: `strata calibrate`, `strata quantize`,
`strata compile --quantize` (docs/quantization.md).

- The calibration table's min/max and its percentile and KL thresholds are
  checked against numpy implementations written here (the KL search as
  TensorRT / TPU-MLIR describe it).
- The int8 model's results (interpreter and compiled CPU artifact) are
  checked for exact equality against a numpy integer reference of the
  documented arithmetic: per-channel symmetric int8 weights, per-tensor
  activations, int32 accumulation and bias, requantization by multiplier and
  rounding right shift (round half away from zero), saturation.
- bf16 / f16 and the PP-OCR direction classifier's int8 cosine (>= 0.99 vs
  f32; measured 0.9999) through the interpreter.
- Bad input: tables, options and sample files."""
import math
import os
import sysconfig

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from quant_harness import ROOT, ok, strata  # noqa: E402


#===----------------------------------------------------------------------===#
# A small CNN: conv3x3+relu, conv1x1, flatten, gemm
#===----------------------------------------------------------------------===#

def make_model(path, seed=0, tiny_channel=False):
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((4, 3, 3, 3)) * 0.4).astype(np.float32)
    b1 = (rng.standard_normal(4) * 0.1).astype(np.float32)
    if tiny_channel:  # weights ~1e-9 next to a bias of 0.5: s_w from the bias
        w1[1] *= 1e-8
        b1[1] = 0.5
    w2 = (rng.standard_normal((6, 4, 1, 1)) * 0.5).astype(np.float32)
    b2 = (rng.standard_normal(6) * 0.1).astype(np.float32)
    w3 = (rng.standard_normal((5, 6 * 5 * 5)) * 0.1).astype(np.float32)
    b3 = (rng.standard_normal(5) * 0.1).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (w3, "w3"), (b3, "b3"))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"]),
        helper.make_node("Flatten", ["c2"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, str(path))
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2, "w3": w3, "b3": b3}


def write_samples(folder, n, seed):
    folder.mkdir(exist_ok=True)
    rng = np.random.default_rng(seed)
    xs = []
    for i in range(n):
        x = (rng.standard_normal((1, 3, 5, 5)) + 0.3).astype(np.float32)
        np.savez(folder / f"s{i}.npz", x=x)
        xs.append(x)
    return xs


def read_table(path):
    rows = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("@"):
            continue
        name, t, lo, hi = line.split()
        rows[name] = (float(t), float(lo), float(hi))
    return rows


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("quant")
    weights = make_model(d / "small.onnx")
    xs = write_samples(d / "cal", 6, seed=1)
    ok(strata("calibrate", d / "small.onnx", "--data", d / "cal", "--method", "minmax",
              "-o", d / "table.txt"))
    return d, weights, xs


#===----------------------------------------------------------------------===#
# Calibration
#===----------------------------------------------------------------------===#

def np_hist(values, bins=2048):
    a = np.abs(values.astype(np.float64))
    top = a.max()
    a = a[a != 0]  # exact zeros are left out
    idx = np.minimum(bins - 1, (a * (bins / top)).astype(np.int64))
    return np.bincount(idx, minlength=bins).astype(np.float64), top / bins


def np_kl_threshold(hist, width, levels=128):
    n = len(hist)
    best, best_kl = n, np.inf
    for i in range(levels, n + 1):
        p = hist[:i].copy()
        p[i - 1] += hist[i:].sum()
        q = np.zeros(i)
        merged = i / levels
        for g in range(levels):
            start = int(g * merged)
            stop = i if g == levels - 1 else int((g + 1) * merged)
            chunk = hist[start:stop]
            nz = chunk != 0
            if nz.any():
                q[start:stop][nz] = chunk.sum() / nz.sum()
        if p.sum() == 0 or q.sum() == 0:
            continue
        pn, qn = p / p.sum(), q / q.sum()
        m = pn > 0
        qm = np.where(qn[m] > 0, qn[m], 1e-12)
        kl = float(np.sum(pn[m] * np.log(pn[m] / qm)))
        if kl < best_kl:
            best_kl, best = kl, i
    return (best + 0.5) * width


def test_calibrate_minmax_table(small):
    d, _, xs = small
    rows = read_table(d / "table.txt")
    allx = np.concatenate([x.ravel() for x in xs])
    t, lo, hi = rows["x"]
    assert lo == pytest.approx(allx.min(), rel=1e-8)
    assert hi == pytest.approx(allx.max(), rel=1e-8)
    assert t == pytest.approx(np.abs(allx).max(), rel=1e-8)
    # Every quantized op's input and output is in the table.
    assert {"x", "r1", "c2", "f", "y"} <= set(rows)
    assert rows["r1"][1] == 0.0  # after relu


@pytest.mark.parametrize("method", ["kl", "percentile"])
def test_calibrate_thresholds_match_numpy(small, method):
    d, _, xs = small
    out = d / f"table_{method}.txt"
    r = ok(strata("calibrate", d / "small.onnx", "--data", d / "cal", "--method", method,
                  "-o", out))
    assert "[6/6]" in r.stderr  # progress
    allx = np.concatenate([x.ravel() for x in xs])
    hist, width = np_hist(allx)
    if method == "kl":
        want = min(np.abs(allx).max(), np_kl_threshold(hist, width))
    else:
        cum = np.cumsum(hist)
        want = (np.argmax(cum >= cum[-1] * 99.99 / 100) + 1) * width
    assert read_table(out)["x"][0] == pytest.approx(want, rel=1e-7)


#===----------------------------------------------------------------------===#
# int8: numpy integer reference
#===----------------------------------------------------------------------===#

def f32(v):
    return float(np.float32(v))


def act_params(row, symmetric):
    t, lo, hi = row
    if symmetric:
        return f32(t / 127), 0
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    s = (hi - lo) / 255
    zp = int(np.clip(np.rint(-128 - lo / s), -128, 127))
    return f32(s), zp


def quantize(x, s, zp):
    return np.clip(np.rint(x.astype(np.float64) / s) + zp, -128, 127).astype(np.int64)


def dequantize(q, s, zp):
    return ((q - zp).astype(np.float64) * s).astype(np.float32)


def weights_int8(w, b, sx):
    """Per output channel (dim 0) symmetric, values in [-127, 127]; the
    scale at least |b| / (sx * 2^30)."""
    flat = w.reshape(w.shape[0], -1).astype(np.float64)
    amax = np.abs(flat).max(axis=1)
    s = np.array([f32(max(a / 127 if a > 0 else 1.0, abs(float(bc)) / (sx * 2 ** 30)))
                  for a, bc in zip(amax, b)])
    q = np.clip(np.rint(flat / s[:, None]), -127, 127).astype(np.int64)
    return q.reshape(w.shape), s


def multiplier_shift(real):
    frac, exp = math.frexp(real)
    m = int(round(frac * 2 ** 31))
    if m == 2 ** 31:
        m //= 2
        exp += 1
    return m, 31 - exp


def requant(acc, acc_scale, s_out, zp_out):
    """acc: int64 [N, C, ...] or [N, C]; per channel multiplier and shift."""
    out = np.empty_like(acc)
    for c in range(acc.shape[1]):
        m, sh = multiplier_shift(acc_scale[c] / s_out)
        p = acc[:, c] * m  # < 2^62: exact in int64
        mag = (np.abs(p) + (1 << (sh - 1))) >> sh
        out[:, c] = np.sign(p) * mag
    return np.clip(out + zp_out, -128, 127)


def conv_int(xq, zp, wq, bias, pad):
    x = np.pad(xq - zp, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    o, _, kh, kw = wq.shape
    n, _, h, w = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    acc = np.zeros((n, o, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            acc += np.einsum("nchw,oc->nohw", x[:, :, i:i + oh, j:j + ow], wq[:, :, i, j])
    return acc + bias[None, :, None, None]


def reference_int8(x, weights, rows, symmetric):
    sx, zx = act_params(rows["x"], symmetric)
    s1, z1 = act_params(rows["r1"], symmetric)
    s2, z2 = act_params(rows["c2"], symmetric)
    sf, zf = act_params(rows["f"], symmetric)
    sy, zy = act_params(rows["y"], symmetric)
    xq = quantize(x, sx, zx)
    w1, sw1 = weights_int8(weights["w1"], weights["b1"], sx)
    a1 = sx * sw1
    acc1 = np.maximum(conv_int(xq, zx, w1, np.rint(weights["b1"] / a1).astype(np.int64), 1), 0)
    q1 = requant(acc1, a1, s1, z1)
    w2, sw2 = weights_int8(weights["w2"], weights["b2"], s1)
    a2 = s1 * sw2
    q2 = requant(conv_int(q1, z1, w2, np.rint(weights["b2"] / a2).astype(np.int64), 0),
                 a2, s2, z2)
    # Dequant, Flatten (float), Quant with the flatten output's parameters.
    fq = quantize(dequantize(q2, s2, z2).reshape(1, -1), sf, zf)
    w3, sw3 = weights_int8(weights["w3"], weights["b3"], sf)
    a3 = sf * sw3
    acc3 = (fq - zf) @ w3.T + np.rint(weights["b3"] / a3).astype(np.int64)
    return dequantize(requant(acc3, a3, sy, zy), sy, zy)


@pytest.mark.parametrize("symmetric", [False, True])
def test_int8_interpreter_and_compiled_match_numpy(small, tmp_path, symmetric):
    d, weights, _ = small
    extra = ["--symmetric"] if symmetric else []
    ok(strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
              d / "table.txt", "-o", tmp_path / "q", *extra))
    text = (tmp_path / "q" / "small.mlir").read_text()
    assert text.count("top.Requant") == 3 and "top.Dequant" in text
    ok(strata("compile", d / "small.onnx", "--target", "cpu", "--quantize", "int8",
              "--calibration", d / "table.txt", "-o", tmp_path / "q.strata", *extra))
    rows = read_table(d / "table.txt")
    eval_inputs = write_samples(tmp_path / "eval", 3, seed=7)
    for i, x in enumerate(eval_inputs):
        inp = tmp_path / "eval" / f"s{i}.npz"
        ok(strata("run-ref", tmp_path / "q" / "small.mlir", "--input", inp,
                  "--output", tmp_path / "ref.npz"))
        ok(strata("run", tmp_path / "q.strata", "--input", inp, "--output",
                  tmp_path / "cpu.npz"))
        want = reference_int8(x, weights, rows, symmetric)
        got = np.load(tmp_path / "ref.npz")["y"]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.load(tmp_path / "cpu.npz")["y"], got)


def test_int8_tiny_weights_large_bias(tmp_path):
    """A channel whose int32 bias would overflow with s_w = max|W| / 127."""
    weights = make_model(tmp_path / "tiny.onnx", tiny_channel=True)
    xs = write_samples(tmp_path / "cal", 2, seed=1)
    ok(strata("calibrate", tmp_path / "tiny.onnx", "--data", tmp_path / "cal", "--method",
              "minmax", "-o", tmp_path / "t.txt"))
    ok(strata("quantize", tmp_path / "tiny.onnx", "--quantize", "int8", "--calibration",
              tmp_path / "t.txt", "-o", tmp_path / "q", "--name", "m"))
    ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", tmp_path / "cal" / "s0.npz",
              "--output", tmp_path / "o.npz"))
    want = reference_int8(xs[0], weights, read_table(tmp_path / "t.txt"), False)
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["y"], want)


def test_int8_keep_float(small, tmp_path):
    d, _, _ = small
    names = tmp_path / "keep.txt"
    names.write_text("# keep the classifier in float\ny\n")
    ok(strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
              d / "table.txt", "--keep-float-file", names, "-o", tmp_path / "q"))
    text = (tmp_path / "q" / "small.mlir").read_text()
    assert text.count("top.Requant") == 2
    ok(strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
              d / "table.txt", "--keep-float", "r1,y", "-o", tmp_path / "q2"))
    assert (tmp_path / "q2" / "small.mlir").read_text().count("top.Requant") == 1


def test_search_sensitive(small, tmp_path):
    """Layers kept in float until the output cosine on the samples reaches
    the target; the test recomputes that cosine from run-ref outputs."""
    d, _, _ = small
    ok(strata("compile", d / "small.onnx", "-o", tmp_path / "f", "--name", "m"))

    def min_cosine(model_dir):
        worst = 1.0
        for i in range(3):
            inp = d / "cal" / f"s{i}.npz"
            outs = []
            for m in (tmp_path / "f", model_dir):
                ok(strata("run-ref", m / "m.mlir", "--input", inp, "--output",
                          tmp_path / "o.npz"))
                outs.append(np.load(tmp_path / "o.npz")["y"].ravel().astype(np.float64))
            a, b = outs
            worst = min(worst, a @ b / np.linalg.norm(a) / np.linalg.norm(b))
        return worst

    ok(strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
              d / "table.txt", "-o", tmp_path / "all", "--name", "m"))
    full = min_cosine(tmp_path / "all")
    target = 1 - (1 - full) / 4  # stricter than full int8 reaches
    r = ok(strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
                  d / "table.txt", "--search-sensitive", "--data", d / "cal", "--samples", 3,
                  "--target-cosine", target, "-o", tmp_path / "s", "--name", "m"))
    assert "layer sensitivity" in r.stdout
    kept = [l for l in (tmp_path / "s" / "m_keep_float.txt").read_text().split("\n")
            if l and not l.startswith("#")]
    assert 1 <= len(kept) <= 3
    assert min_cosine(tmp_path / "s") >= target
    # A target full int8 meets keeps nothing.
    r = ok(strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
                  d / "table.txt", "--search-sensitive", "--data", d / "cal",
                  "--target-cosine", 0.5, "-o", tmp_path / "n", "--name", "m"))
    assert "kept in float: 0 of 3 layers" in r.stdout


@pytest.mark.parametrize("mode,dtype", [("bf16", "bfloat16"), ("f16", "float16")])
def test_low_float(small, tmp_path, mode, dtype):
    """Conv/Gemm read inputs and weights rounded to the type; f32 out (the
    compiled artifact equal to the interpreter). The
    reference rounds the same way in numpy (f16 exactly, bf16 by
    round-to-nearest-even on the f32 bits) and computes in f64; the
    tolerance covers f32 accumulation and the rounding of each result."""
    d, weights, _ = small
    ok(strata("quantize", d / "small.onnx", "--quantize", mode, "-o", tmp_path / "q"))
    x = write_samples(tmp_path / "eval", 1, seed=3)[0]
    ok(strata("run-ref", tmp_path / "q" / "small.mlir", "--input", tmp_path / "eval" / "s0.npz",
              "--output", tmp_path / "o.npz"))

    def rnd(a):
        a = np.asarray(a, np.float32)
        if mode == "f16":
            return a.astype(np.float16).astype(np.float64)
        bits = a.view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)

    def conv(x, w, b, pad):
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        o, _, kh, kw = w.shape
        oh, ow = xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
        acc = np.zeros((1, o, oh, ow))
        for i in range(kh):
            for j in range(kw):
                acc += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
        return acc + b[None, :, None, None]

    h = rnd(np.maximum(conv(rnd(x), rnd(weights["w1"]), weights["b1"], 1), 0))
    h = rnd(conv(h, rnd(weights["w2"]), weights["b2"], 0))
    y = rnd(h.reshape(1, -1) @ rnd(weights["w3"]).T + weights["b3"])
    got = np.load(tmp_path / "o.npz")["y"]
    ok(strata("compile", d / "small.onnx", "--quantize", mode, "--target", "cpu", "-o",
              tmp_path / "m.strata"))
    ok(strata("run", tmp_path / "m.strata", "--input", tmp_path / "eval" / "s0.npz",
              "--output", tmp_path / "c.npz"))
    np.testing.assert_array_equal(np.load(tmp_path / "c.npz")["y"], got)
    tol = 2 ** -7 if mode == "bf16" else 2 ** -10
    np.testing.assert_allclose(got, y, rtol=2 * tol, atol=2 * tol * np.abs(y).max())


#===----------------------------------------------------------------------===#
# A real model: the PP-OCR direction classifier
#===----------------------------------------------------------------------===#

CLS = os.path.join(sysconfig.get_paths()["purelib"], "rapidocr_onnxruntime", "models",
                   "ch_ppocr_mobile_v2.0_cls_infer.onnx")


@pytest.mark.skipif(not os.path.exists(CLS), reason="rapidocr_onnxruntime not installed")
def test_ppocr_cls_int8_cosine(tmp_path):
    import sys
    sys.path.insert(0, os.path.join(ROOT, "test", "models"))
    from test_real_models import text_image
    rng = np.random.default_rng(0)
    for folder, n in (("cal", 4), ("eval", 2)):
        (tmp_path / folder).mkdir()
        for i in range(n):
            np.savez(tmp_path / folder / f"s{i}.npz", x=text_image(rng, 48, 192))
    shapes = ["--input-shapes", "x:1x3x48x192"]
    ok(strata("calibrate", CLS, *shapes, "--data", tmp_path / "cal", "--method", "minmax",
              "-o", tmp_path / "t.txt"))
    ok(strata("quantize", CLS, *shapes, "--quantize", "int8", "--calibration",
              tmp_path / "t.txt", "-o", tmp_path / "q", "--name", "cls"))
    ok(strata("compile", CLS, *shapes, "-o", tmp_path / "f", "--name", "cls"))
    for i in range(2):
        inp = tmp_path / "eval" / f"s{i}.npz"
        outs = []
        for m in ("f", "q"):
            ok(strata("run-ref", tmp_path / m / "cls.mlir", "--input", inp, "--output",
                      tmp_path / f"{m}.npz"))
            npz = np.load(tmp_path / f"{m}.npz")
            outs.append(npz[npz.files[0]].ravel().astype(np.float64))
        a, b = outs
        assert a @ b / np.linalg.norm(a) / np.linalg.norm(b) >= 0.99


#===----------------------------------------------------------------------===#
# Bad input
#===----------------------------------------------------------------------===#

def test_bad_tables(small, tmp_path):
    d, _, _ = small
    cases = {
        "unknown": ("x 1 -1 1\nnot_a_tensor 1 0 1\n",
                    "names tensor 'not_a_tensor', which is not a tensor of the model"),
        "nan": ("x nan -1 1\n", "tensor 'x': threshold 'nan' is not a finite number"),
        "negative": ("x -3 -1 1\n", "tensor 'x': threshold -3 must be positive"),
        "fields": ("x 1 2\n", "expected 'name threshold min max', got 3 field(s)"),
        "range": ("x 1 2 1\n", "tensor 'x': min 2 is greater than max 1"),
        "twice": ("x 1 -1 1\nx 1 -1 1\n", "tensor 'x' is listed twice"),
        "missing": ("x 1 -1 1\n", "tensor 'r1' has no entry in the calibration table"),
    }
    for name, (text, message) in cases.items():
        table = tmp_path / f"{name}.txt"
        table.write_text(text)
        r = strata("quantize", d / "small.onnx", "--quantize", "int8", "--calibration",
                   table, "-o", tmp_path / "out")
        assert r.returncode == 1, name
        assert message in r.stderr, (name, r.stderr)


def test_bad_options(small, tmp_path):
    d, _, _ = small
    onnx_path = d / "small.onnx"
    cases = [
        (["quantize", onnx_path, "--quantize", "int4", "-o", tmp_path / "o"],
         "--quantize 'int4' must be int8, bf16 or f16"),
        (["quantize", onnx_path, "--quantize", "bf16", "--calibration", d / "table.txt",
          "-o", tmp_path / "o"], "--calibration is only used by --quantize int8"),
        (["compile", onnx_path, "--calibration", d / "table.txt", "-o", tmp_path / "o"],
         "need --quantize"),
        (["quantize", onnx_path, "--quantize", "int8", "--calibration", d / "table.txt",
          "--search-sensitive", "-o", tmp_path / "o"],
         "--search-sensitive needs --quantize int8 and --data"),
        (["quantize", onnx_path, "--quantize", "int8", "--calibration", d / "table.txt",
          "--data", d / "cal", "-o", tmp_path / "o"],
         "--data, --samples, --target-cosine and --search-activations need "
         "--search-sensitive"),
        (["quantize", onnx_path, "--quantize", "int8", "--calibration", d / "table.txt",
          "--search-activations", "-o", tmp_path / "o"],
         "--search-activations need --search-sensitive"),
        (["calibrate", onnx_path, "--data", d / "cal", "--method", "mse", "-o",
          tmp_path / "t"], "--method 'mse' must be minmax, percentile or kl"),
        (["calibrate", onnx_path, "--data", d / "cal", "--samples", "7", "-o",
          tmp_path / "t"], "--samples 7 but --data holds 6 sample(s)"),
        (["calibrate", onnx_path, "--data", tmp_path / "none", "-o", tmp_path / "t"],
         "does not exist"),
    ]
    for args, message in cases:
        r = strata(*args)
        assert r.returncode == 2, args
        assert message in r.stderr, (args, r.stderr)


def test_int8_without_table(small, tmp_path):
    d, _, _ = small
    r = strata("quantize", d / "small.onnx", "--quantize", "int8", "-o", tmp_path / "o")
    assert r.returncode == 1
    assert "mode=int8 needs a calibration table" in r.stderr


def test_bad_samples(small, tmp_path):
    d, _, _ = small
    (tmp_path / "garbage.npz").write_bytes(b"not a zip file")
    np.savez(tmp_path / "noinput.npz", other=np.zeros((1, 3, 5, 5), np.float32))
    np.savez(tmp_path / "shape.npz", x=np.zeros((1, 3, 4, 4), np.float32))
    for f, message in (("garbage.npz", "sample '"), ("noinput.npz", "has no array 'x'"),
                       ("shape.npz", "running the model on sample")):
        r = strata("calibrate", d / "small.onnx", "--data", tmp_path / f, "-o", tmp_path / "t")
        assert r.returncode == 1, f
        assert message in r.stderr, (f, r.stderr)


#===----------------------------------------------------------------------===#
# int8 Add (+relu), MaxPool, GlobalAvgPool (docs/quantization.md, "Integer
# Add and pools"): numpy integer reference
#===----------------------------------------------------------------------===#

def make_chain_model(path, seed=3):
    """conv3x3+relu -> r1; conv1x1 -> c2; relu(c2 + r1) -> a; maxpool 2x2 ->
    m; conv1x1 -> c3; concat(m, c3) -> cat; global avg pool -> g; flatten;
    gemm -> y."""
    rng = np.random.default_rng(seed)
    shapes = {"w1": (4, 3, 3, 3), "b1": (4,), "w2": (4, 4, 1, 1), "b2": (4,),
              "w3": (4, 4, 1, 1), "b3": (4,), "w4": (5, 8), "b4": (5,)}
    w = {k: (rng.standard_normal(s) * 0.4).astype(np.float32) for k, s in shapes.items()}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"]),
        helper.make_node("Add", ["c2", "r1"], ["s"]),
        helper.make_node("Relu", ["s"], ["a"]),
        helper.make_node("MaxPool", ["a"], ["m"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["m", "w3", "b3"], ["c3"]),
        helper.make_node("Concat", ["m", "c3"], ["cat"], axis=1),
        helper.make_node("GlobalAveragePool", ["cat"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w4", "b4"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(a, n) for n, a in w.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return w


def rescale(q, real):
    """round_half_away_from_zero(q * m / 2^s), (m, s) = multiplier_shift(real)."""
    m, sh = multiplier_shift(real)
    p = q.astype(np.int64) * m
    return np.sign(p) * ((np.abs(p) + (1 << (sh - 1))) >> sh)


def reference_chain(x, w, rows):
    p = {k: act_params(rows[k], False) for k in ("x", "r1", "c2", "a", "c3", "cat", "g", "y")}

    def conv(q, zp_in, s_in, wk, bk, pad, out, relu=False):
        wq, sw = weights_int8(w[wk], w[bk], s_in)
        acc = conv_int(q, zp_in, wq, np.rint(w[bk] / (s_in * sw)).astype(np.int64), pad)
        return requant(np.maximum(acc, 0) if relu else acc, s_in * sw, *p[out])

    sx, zx = p["x"]
    r1 = conv(quantize(x, sx, zx), zx, sx, "w1", "b1", 1, "r1", relu=True)
    c2 = conv(r1, p["r1"][1], p["r1"][0], "w2", "b2", 0, "c2")
    # Add: both inputs to the int32 scale max(s) / 2^20, relu, requant.
    si = max(p["c2"][0], p["r1"][0]) / 2 ** 20
    acc = rescale(c2 - p["c2"][1], p["c2"][0] / si) + rescale(r1 - p["r1"][1], p["r1"][0] / si)
    sa, za = p["a"]
    a = np.clip(rescale(np.maximum(acc, 0), si / sa) + za, -128, 127)
    m = a.reshape(1, 4, 3, 2, 3, 2).max(axis=(3, 5))  # same scale as a
    c3 = conv(m, za, sa, "w3", "b3", 0, "c3")
    # Concat stays float between Dequant and Quant (the NPU converts that
    # form exactly); the GlobalAvgPool reads the Quant of its result.
    scat, zcat = p["cat"]
    cat = quantize(np.concatenate([dequantize(m, sa, za), dequantize(c3, *p["c3"])], axis=1),
                   scat, zcat)
    # GlobalAvgPool: round_half_away(sum(x - zp) / n), then requant.
    total = (cat - zcat).sum(axis=(2, 3), keepdims=True)
    n = 9
    mean = np.sign(total) * ((2 * np.abs(total) + n) // (2 * n))
    sg, zg = p["g"]
    g = np.clip(rescale(mean, scat / sg) + zg, -128, 127).reshape(1, 8)
    wq, sw = weights_int8(w["w4"].astype(np.float32), w["b4"], sg)
    acc = (g - zg) @ wq.T + np.rint(w["b4"] / (sg * sw)).astype(np.int64)
    return dequantize(requant(acc, sg * sw, *p["y"]), *p["y"])


def test_int8_add_pools_concat_match_numpy(tmp_path):
    """Conv, Add + relu, MaxPool, GlobalAvgPool and Gemm run on int8 values
    (the Concat in float between Dequant and Quant); run-ref equals the
    numpy integer reference, the CPU artifact equals run-ref, and the int8
    output is close to f32."""
    w = make_chain_model(tmp_path / "chain.onnx")
    rng = np.random.default_rng(5)
    (tmp_path / "cal").mkdir()
    for i in range(4):
        np.savez(tmp_path / "cal" / f"s{i}.npz",
                 x=rng.standard_normal((1, 3, 6, 6)).astype(np.float32))
    ok(strata("calibrate", tmp_path / "chain.onnx", "--data", tmp_path / "cal", "--method",
              "minmax", "-o", tmp_path / "t.txt"))
    ok(strata("quantize", tmp_path / "chain.onnx", "--quantize", "int8", "--calibration",
              tmp_path / "t.txt", "-o", tmp_path / "q", "--name", "m"))
    text = (tmp_path / "q" / "m.mlir").read_text()
    assert text.count("top.Quant(") == 2 and text.count("top.Dequant(") == 3, text
    assert "top.MaxPool(" in text and "top.Reduce(" in text and "top.Add(" in text
    ok(strata("compile", tmp_path / "chain.onnx", "--target", "cpu", "--quantize", "int8",
              "--calibration", tmp_path / "t.txt", "-o", tmp_path / "q.strata"))
    ok(strata("compile", tmp_path / "chain.onnx", "-o", tmp_path / "f", "--name", "m"))
    rows = read_table(tmp_path / "t.txt")
    for i in range(4):
        inp = tmp_path / "cal" / f"s{i}.npz"
        ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", inp, "--output",
                  tmp_path / "ref.npz"))
        got = np.load(tmp_path / "ref.npz")["y"]
        np.testing.assert_array_equal(got, reference_chain(np.load(inp)["x"], w, rows))
        ok(strata("run", tmp_path / "q.strata", "--input", inp, "--output", tmp_path / "c.npz"))
        np.testing.assert_array_equal(np.load(tmp_path / "c.npz")["y"], got)
        ok(strata("run-ref", tmp_path / "f" / "m.mlir", "--input", inp, "--output",
                  tmp_path / "f.npz"))
        f = np.load(tmp_path / "f.npz")["y"].ravel().astype(np.float64)
        g = got.ravel().astype(np.float64)
        assert f @ g / (np.linalg.norm(f) * np.linalg.norm(g)) > 0.98
