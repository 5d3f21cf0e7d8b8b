"""Bias correction of int8 weight rounding (docs/quantization.md, "Bias
correction"): `strata calibrate --bias-correction` writes the per-channel
means of the int8 layers' float inputs (`@mean` rows), and `strata quantize`
subtracts (W_q - W) E[x] from each layer's bias before quantizing it.

- The @mean rows are checked against numpy means of the inputs, computed
  here with a numpy convolution (tolerance 1e-5 relative).
- The int32 biases of a conv and a Gemm are checked against a numpy
  implementation of the documented formula (at most 1 LSB apart: the shift
  is summed in another order), and against the uncorrected biases when the
  table has no @mean rows (exact); a depthwise conv is not corrected (no
  @mean row for its input, its bias exact).
- The correction must reduce the mean error of the int8 outputs against f32
  (a property the method exists for; can fail).
- Bad @mean rows are errors naming the tensor."""
import numpy as np
import pytest
from quant_harness import ok, strata

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

DC = np.array([3.0, -2.0, 0.5, 1.0]).reshape(1, 4, 1, 1)


def make_model(path):
    """conv 3x3 (bias) + relu -> depthwise 3x3 (no bias) -> flatten -> gemm."""
    rng = np.random.default_rng(1)
    p = {"w1": (rng.standard_normal((6, 4, 3, 3)) * 0.3).astype(np.float32),
         "b1": (rng.standard_normal(6) * 0.1).astype(np.float32),
         "w2": (rng.standard_normal((6, 1, 3, 3)) * 0.5).astype(np.float32),
         "w3": (rng.standard_normal((5, 216)) * 0.05).astype(np.float32),
         "b3": (rng.standard_normal(5) * 0.1).astype(np.float32)}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], group=6),
        helper.make_node("Flatten", ["c2"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "bc", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [numpy_helper.from_array(v, k) for k, v in p.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              str(path))
    return p


def conv(x, w, b=None, groups=1):
    """NCHW conv, stride 1, padding 1, in float64."""
    n, c, h, wd = x.shape
    o, ig, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((n, o, h, wd))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(ig):
            for dy in range(kh):
                for dx in range(kw):
                    y[:, oc] += w[oc, i, dy, dx] * xp[:, g * ig + i, dy:dy + h, dx:dx + wd]
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def forward(p, x):
    r1 = np.maximum(conv(x, p["w1"], p["b1"]), 0)
    c2 = conv(r1, p["w2"], groups=6)
    f = c2.reshape(1, -1)
    return {"x": x, "r1": r1, "f": f, "y": f @ p["w3"].T.astype(np.float64) + p["b3"]}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp("biascorr")
    p = make_model(d / "m.onnx")
    rng = np.random.default_rng(2)
    (d / "cal").mkdir()
    xs = []
    for i in range(4):
        x = (rng.standard_normal((1, 4, 6, 6)) + DC).astype(np.float32)
        np.savez(d / "cal" / f"s{i}.npz", x=x)
        xs.append(x)
    return d, p, xs


def read_table(path):
    rows, means = {}, {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "@mean":
            means[f[1]] = np.array([float(v) for v in f[2:]])
        else:
            rows[f[0]] = tuple(float(v) for v in f[1:])
    return rows, means


def act_scale_zp(row):
    t, lo, hi = row
    lo, hi = max(min(lo, 0.0), -t), min(max(hi, 0.0), t)
    s = (hi - lo) / 255
    return float(np.float32(s)), int(np.clip(round(-128 - lo / s), -128, 127))


def expected_bias(w, b, s_x, zp, mean, groups=1, matmul=False):
    """int32 bias of docs/quantization.md with (W_q - W) E[x] subtracted
    (mean None: no correction)."""
    o = w.shape[0]
    w64 = w.astype(np.float64)
    s_w = np.abs(w64).reshape(o, -1).max(1) / 127
    s_w = s_w.astype(np.float32).astype(np.float64)
    wq = np.clip(np.round(w64 / s_w.reshape((-1,) + (1,) * (w.ndim - 1))), -127, 127)
    dw = wq * s_w.reshape((-1,) + (1,) * (w.ndim - 1)) - w64
    b = np.zeros(o) if b is None else b.astype(np.float64)
    if mean is not None:
        if matmul:
            shift = dw @ mean
        else:
            ig = w.shape[1]
            og = o // groups
            shift = np.array([(dw[c].sum((1, 2)) * mean[(c // og) * ig:(c // og + 1) * ig]).sum()
                              for c in range(o)])
        b = (b - shift).astype(np.float32).astype(np.float64)
    q = np.round(b / (s_x * s_w))
    if matmul:
        q -= zp * wq.sum(1)
    return q.astype(np.int64)


def test_channel_means_match_numpy(setup):
    d, p, xs = setup
    ok(strata("calibrate", d / "m.onnx", "--data", d / "cal", "--method", "minmax",
              "--bias-correction", "-o", d / "t.txt"))
    _, means = read_table(d / "t.txt")
    outs = [forward(p, x.astype(np.float64)) for x in xs]
    # r1 feeds only the depthwise conv: no row.
    assert sorted(means) == ["f", "x"]
    for name, axes in (("x", (0, 2, 3)), ("f", (0,))):
        ref = np.mean([o[name].mean(axis=axes) for o in outs], axis=0)
        np.testing.assert_allclose(means[name], ref, rtol=1e-5, atol=1e-6)


def test_int32_bias_matches_numpy(setup):
    d, p, xs = setup
    if not (d / "t.txt").exists():
        ok(strata("calibrate", d / "m.onnx", "--data", d / "cal", "--method", "minmax",
                  "--bias-correction", "-o", d / "t.txt"))
    rows, means = read_table(d / "t.txt")
    plain = d / "plain.txt"
    plain.write_text("".join(ln for ln in open(d / "t.txt") if not ln.startswith("@")))
    for table, use in ((d / "t.txt", True), (plain, False)):
        out = d / ("q" if use else "qp")
        ok(strata("quantize", d / "m.onnx", "--quantize", "int8", "--calibration", table,
                  "-o", out, "--name", "m"))
        z = np.load(out / "m_TOP_INT8_weight.npz")
        sx, zx = act_scale_zp(rows["x"])
        sr, zr = act_scale_zp(rows["r1"])
        sf, zf = act_scale_zp(rows["f"])
        m = (lambda k: means[k]) if use else (lambda k: None)
        cases = (("r1_bias_int32", expected_bias(p["w1"], p["b1"], sx, zx, m("x"))),
                 ("c2_bias_int32", expected_bias(p["w2"], None, sr, zr, None, groups=6)),
                 ("y_bias_int32", expected_bias(p["w3"], p["b3"], sf, zf, m("f"), matmul=True)))
        for name, ref in cases:
            got = z[name].astype(np.int64)
            diff = np.abs(got - ref).max()
            assert diff <= (1 if use else 0), (name, use, got, ref)
    # The correction changed the biases.
    a = np.load(d / "q" / "m_TOP_INT8_weight.npz")
    b = np.load(d / "qp" / "m_TOP_INT8_weight.npz")
    assert not np.array_equal(a["r1_bias_int32"], b["r1_bias_int32"])


def test_correction_reduces_mean_error(setup, tmp_path):
    d, p, xs = setup
    rng = np.random.default_rng(3)
    ev = tmp_path / "ev.npz"
    x = (rng.standard_normal((1, 4, 6, 6)) + DC).astype(np.float32)
    np.savez(ev, x=x)
    ok(strata("calibrate", d / "m.onnx", "--data", d / "cal", "--method", "minmax",
              "--bias-correction", "-o", tmp_path / "t.txt"))
    (tmp_path / "p.txt").write_text(
        "".join(ln for ln in open(tmp_path / "t.txt") if not ln.startswith("@")))
    ref = forward(p, x.astype(np.float64))["r1"]
    errs = []
    for t in ("t.txt", "p.txt"):
        q = tmp_path / ("q_" + t)
        ok(strata("quantize", d / "m.onnx", "--quantize", "int8", "--calibration",
                  tmp_path / t, "-o", q, "--name", "m"))
        ok(strata("run-ref", q / "m.mlir", "--input", ev, "--output", tmp_path / "o.npz",
                  "--dump-all"))
        o = np.load(tmp_path / "o.npz")
        # r1's float value: the int8 tensor dequantized with the table's row.
        s, zp = act_scale_zp(read_table(tmp_path / t)[0]["r1"])
        got = (o["r1_int8"].astype(np.float64) - zp) * s
        errs.append(np.abs((got - ref).mean(axis=(0, 2, 3))).mean())
    assert errs[0] < 0.9 * errs[1], errs  # measured 0.0142 vs 0.0183


@pytest.mark.parametrize("row,message", [
    ("@mean x 1 2 3\n", "@mean row of tensor 'x' has 3 channel means, the input has 4 channels"),
    ("@mean x 1 nan 3 4\n", "tensor 'x': channel mean 1 'nan' is not a finite number"),
    ("@mean x\n", "expected '@mean name m0 m1 ...'"),
    ("@mean x 1 2 3 4\n@mean x 1 2 3 4\n", "tensor 'x' has two @mean rows"),
    ("@mean nosuch 1 2\n", "names tensor 'nosuch' in an @mean row, which is not a tensor"),
])
def test_bad_mean_rows(setup, tmp_path, row, message):
    d, _, _ = setup
    if not (d / "t.txt").exists():
        ok(strata("calibrate", d / "m.onnx", "--data", d / "cal", "--method", "minmax",
                  "--bias-correction", "-o", d / "t.txt"))
    t = tmp_path / "bad.txt"
    t.write_text("".join(ln for ln in open(d / "t.txt") if not ln.startswith("@")) + row)
    r = strata("quantize", d / "m.onnx", "--quantize", "int8", "--calibration", t,
               "-o", tmp_path / "q")
    assert r.returncode != 0
    assert message in r.stderr, r.stderr


def test_names_starting_with_at_round_trip(tmp_path):
    """A tensor named '@x' is quoted in both kinds of rows and read back."""
    w = np.full((2, 2, 1, 1), 0.3, np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["@x", "w"], ["y"])], "at",
        [helper.make_tensor_value_info("@x", TensorProto.FLOAT, [1, 2, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])],
        [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              str(tmp_path / "m.onnx"))
    x = np.arange(18, dtype=np.float32).reshape(1, 2, 3, 3)
    np.savez(tmp_path / "s.npz", **{"@x": x})
    ok(strata("calibrate", tmp_path / "m.onnx", "--data", tmp_path / "s.npz",
              "--method", "minmax", "--bias-correction", "-o", tmp_path / "t.txt"))
    text = (tmp_path / "t.txt").read_text()
    assert '\n"@x" ' in text and '\n@mean "@x" 4 13\n' in text, text
    ok(strata("quantize", tmp_path / "m.onnx", "--quantize", "int8", "--calibration",
              tmp_path / "t.txt", "-o", tmp_path / "q"))
