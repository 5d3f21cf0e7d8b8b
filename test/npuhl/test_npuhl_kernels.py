"""The NPU's HL kernels mean what the quantized Top model means (docs/npu.md).

For random shapes and attributes (odd sizes, strides 1-3, dilations,
paddings, groups, depthwise, fully connected, tails of the (O/B) weight
layout for B = 4, 3 and 8), an ONNX model is calibrated and quantized to
int8 by `strata quantize`, converted by `strata compile --target npu-sim
--emit hl` (convert-top-to-hl, hl-segment-strided with and without fusion)
and both models run through the reference interpreter (`strata run-ref
--dump-all`). Every int8 tensor of the HL model must equal the Top model's
bit for bit; the HL module must hold the kernels the conversion claims
(so a conversion that silently left everything on the CPU fails). The Top
int8 interpreter is itself checked against a numpy integer reference in
test/quant/test_quantize.py.

bf16: the same models quantized to bf16; HL sums in the documented order
(bias, then ic, kh, kw in f32) while Top's interpreter uses a GEMM, so the
outputs agree within 2 bf16 ulps.
"""
import json
import os
import re
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
STRATA_OPT = os.path.join(BIN, "strata-opt")


def strata(*args):
    return subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def ok(r):
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def conv_out(n, k, s, p0, p1, d):
    return (n + p0 + p1 - d * (k - 1) - 1) // s + 1


def make_chain(path, rng, layers, c_in, h, w, fc):
    """An ONNX chain of convolutions (each optionally followed by Relu), then
    optionally Flatten + Gemm. `layers`: dicts with out, k, stride, pad,
    dil, group, relu."""
    inits, nodes = [], []
    c, cur = c_in, "x"
    in_shape = [1, c_in, h, w]
    for i, L in enumerate(layers):
        o, g = L["out"], L["group"]
        wt = (rng.standard_normal((o, c // g, L["k"], L["k"])) * 0.5).astype(np.float32)
        b = (rng.standard_normal(o) * 0.2).astype(np.float32)
        inits += [numpy_helper.from_array(wt, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        pt, pl, pb, pr = L["pad"]
        nodes.append(helper.make_node(
            "Conv", [cur, f"w{i}", f"b{i}"], [f"c{i}"], pads=[pt, pl, pb, pr],
            strides=[L["stride"]] * 2, dilations=[L["dil"]] * 2, group=g,
            kernel_shape=[L["k"]] * 2))
        cur = f"c{i}"
        if L["relu"]:
            nodes.append(helper.make_node("Relu", [cur], [f"r{i}"]))
            cur = f"r{i}"
        h = conv_out(h, L["k"], L["stride"], pt, pb, L["dil"])
        w = conv_out(w, L["k"], L["stride"], pl, pr, L["dil"])
        c = o
    out_shape = [1, c, h, w]
    if fc:
        n_out = int(rng.integers(3, 11))
        wf = (rng.standard_normal((n_out, c * h * w)) * 0.2).astype(np.float32)
        bf = (rng.standard_normal(n_out) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(wf, "wf"), numpy_helper.from_array(bf, "bf")]
        nodes += [helper.make_node("Flatten", [cur], ["flat"]),
                  helper.make_node("Gemm", ["flat", "wf", "bf"], ["y"], transB=1)]
        out_shape = [1, n_out]
    else:
        nodes.append(helper.make_node("Identity", [cur], ["y"]))
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def random_layers(rng, c_in, h, w, n):
    layers, c = [], c_in
    for _ in range(n):
        kind = rng.choice(["conv", "group", "depthwise"], p=[0.5, 0.2, 0.3])
        k = int(rng.choice([1, 2, 3, 5]))
        stride = int(rng.choice([1, 1, 2, 2, 3]))
        dil = int(rng.choice([1, 1, 2])) if k > 1 else 1
        pad = [int(v) for v in rng.integers(0, k, 4)] if k > 1 else [0, 0, 0, 0]
        if conv_out(h, k, stride, pad[0], pad[2], dil) < 1 or \
                conv_out(w, k, stride, pad[1], pad[3], dil) < 1:
            stride, dil, pad = 1, 1, [k // 2] * 4
        if kind == "depthwise":
            g, o = c, c
        elif kind == "group" and c % 2 == 0:
            g = 2
            o = 2 * int(rng.integers(1, 5))
        else:
            g, o = 1, int(rng.integers(1, 12))
        layers.append(dict(out=o, k=k, stride=stride, pad=pad, dil=dil, group=g,
                           relu=bool(rng.integers(0, 2))))
        h = conv_out(h, k, stride, pad[0], pad[2], dil)
        w = conv_out(w, k, stride, pad[1], pad[3], dil)
        c = o
    return layers


def prepare(tmp, seed, n_layers=3, fc=True):
    rng = np.random.default_rng(seed)
    c_in = int(rng.integers(1, 7))
    h, w = int(rng.integers(7, 16)), int(rng.integers(7, 16))
    layers = random_layers(rng, c_in, h, w, n_layers)
    model = tmp / "m.onnx"
    make_chain(model, rng, layers, c_in, h, w, fc)
    samples = tmp / "samples"
    samples.mkdir()
    for i in range(2):
        np.savez(samples / f"s{i}.npz",
                 x=rng.standard_normal((1, c_in, h, w)).astype(np.float32))
    return model, samples, layers


def segment(x, s, pad, value):
    """numpy hl.segmentation: N x C x H x W -> N x C x s*s x Hs x Ws."""
    t, l, b, r = pad
    n, c, h, w = x.shape
    hs, ws = -(-(h + t + b) // s), -(-(w + l + r) // s)
    p = np.full((n, c, hs * s, ws * s), value, x.dtype)
    p[:, :, t:t + h, l:l + w] = x
    return p.reshape(n, c, hs, s, ws, s).transpose(0, 1, 3, 5, 2, 4).reshape(
        n, c, s * s, hs, ws)


def same_tensor(got, want, text, zp_of=None):
    """`got` equals `want`, or is `want` written segmented by a fused
    producer (one of the module's segment_output attributes, padded with
    the output zero point)."""
    if got.shape == want.shape:
        return np.array_equal(got, want)
    for line in text.splitlines():
        m = re.search(r"segment_output = array<i64: (\d+), (\d+), (\d+), (\d+), (\d+)>", line)
        if not m:
            continue
        s, t, l, b, r = map(int, m.groups())
        zp = re.search(r"output_zp = (-?\d+)", line)
        zp = int(zp.group(1)) if zp else 0
        seg = segment(want, s, (t, l, b, r), zp)
        if seg.shape == got.shape and np.array_equal(seg, got):
            return True
    return False


def dump(model, inputs, out):
    ok(strata("run-ref", model, "--input", inputs, "--output", out, "--dump-all"))
    return dict(np.load(out))


def to_hl(tmp, quantized, name, *extra):
    out = tmp / name
    r = ok(strata("compile", quantized, "--target", "npu-sim", "--emit", "hl",
                  "--no-optimize", "-o", out, "--report", *extra))
    return out / "m.mlir", (out / "m.mlir").read_text(), r.stdout


def expected_kernels(layers, fc):
    counts = {"hl.conv2d": 0, "hl.depthwise_conv2d": 0, "hl.fully_connected": int(fc)}
    for L in layers:
        dw = L["group"] > 1 and L["group"] == L["out"]
        counts["hl.depthwise_conv2d" if dw else "hl.conv2d"] += 1
    return counts


@pytest.mark.parametrize("seed", range(8))
def test_int8_chain_bit_exact(tmp_path, seed):
    model, samples, layers = prepare(tmp_path, seed)
    ok(strata("calibrate", model, "--data", samples, "-o", tmp_path / "t.txt",
              "--method", "minmax"))
    ok(strata("quantize", model, "--quantize", "int8", "--calibration", tmp_path / "t.txt",
              "-o", tmp_path / "q", "--name", "m"))
    quantized = tmp_path / "q" / "m.mlir"
    ref = dump(quantized, samples / "s0.npz", tmp_path / "ref.npz")
    variants = [("hl4", []), ("hl3", ["--npu-config", "b3"]), ("hl8", ["--npu-config", "b8"])]
    for name, extra in variants:
        if extra:
            cfg = tmp_path / f"{extra[1]}.json"
            cfg.write_text(json.dumps({"weight_channel_block": int(extra[1][1:])}))
            extra = ["--npu-config", cfg]
        hl_model, text, report = to_hl(tmp_path, quantized, name, *extra)
        for op, n in expected_kernels(layers, True).items():
            assert len(re.findall(rf"= {op}\(", text)) == n, (op, layers, text)
        # Strided kernels read segmented inputs: no strided HL window op is
        # left with segments = 1.
        strided = sum(L["stride"] > 1 for L in layers)
        assert len(re.findall(r"segments = [23]", text)) == strided, text
        got = dump(hl_model, samples / "s0.npz", tmp_path / f"{name}.npz")
        compared = 0
        for key, want in ref.items():
            if key in got and want.dtype == np.int8:
                assert got[key].dtype == want.dtype and \
                    same_tensor(got[key], want, text), (key, name, layers)
                compared += 1
        assert compared >= len(layers), (sorted(ref), sorted(got))
        assert np.array_equal(got["y"], ref["y"])


@pytest.mark.parametrize("seed", [11, 12])
def test_segmentation_fusion_is_exact(tmp_path, seed):
    """A stride-2 conv after a conv: the producer writes its output already
    segmented (segment_output); without fusion an hl.segmentation stands
    between them. Both equal the Top model."""
    rng = np.random.default_rng(seed)
    layers = [dict(out=5, k=3, stride=1, pad=[1, 1, 1, 1], dil=1, group=1, relu=True),
              dict(out=6, k=3, stride=2, pad=[1, 0, 1, 1], dil=1, group=1, relu=False),
              dict(out=6, k=1, stride=1, pad=[0, 0, 0, 0], dil=1, group=1, relu=True),
              dict(out=6, k=3, stride=2, pad=[1, 1, 1, 1], dil=1, group=6, relu=True)]
    model = tmp_path / "m.onnx"
    make_chain(model, rng, layers, 3, 13, 11, False)
    samples = tmp_path / "samples"
    samples.mkdir()
    np.savez(samples / "s0.npz", x=rng.standard_normal((1, 3, 13, 11)).astype(np.float32))
    ok(strata("calibrate", model, "--data", samples, "-o", tmp_path / "t.txt",
              "--method", "minmax"))
    ok(strata("quantize", model, "--quantize", "int8", "--calibration", tmp_path / "t.txt",
              "-o", tmp_path / "q", "--name", "m"))
    quantized = tmp_path / "q" / "m.mlir"
    ref = dump(quantized, samples / "s0.npz", tmp_path / "ref.npz")
    hl_model, text, report = to_hl(tmp_path, quantized, "hl")
    # conv0 feeds only conv1 (stride 2): fused; conv2 feeds only the
    # stride-2 depthwise: fused too. (An op reading a segmented input does
    # not write a segmented output yet.)
    assert text.count("segment_output") == 2, text
    assert "hl.segmentation" not in text
    assert "segmentations fused into their producer: 2" in report
    got = dump(hl_model, samples / "s0.npz", tmp_path / "hl.npz")
    assert np.array_equal(got["y"], ref["y"])
    # Unfused: the explicit segmentation ops give the same bytes.
    hl_model, text, report = to_hl(tmp_path, quantized, "unfused", "--no-segment-fusion")
    assert text.count("hl.segmentation") == 2 and "segment_output" not in text
    got = dump(hl_model, samples / "s0.npz", tmp_path / "unfused.npz")
    assert np.array_equal(got["y"], ref["y"])


def test_bf16_chain_close(tmp_path):
    model, samples, layers = prepare(tmp_path, 21, n_layers=3)
    ok(strata("quantize", model, "--quantize", "bf16", "-o", tmp_path / "q", "--name", "m"))
    quantized = tmp_path / "q" / "m.mlir"
    ref = dump(quantized, samples / "s0.npz", tmp_path / "ref.npz")
    hl_model, text, _ = to_hl(tmp_path, quantized, "hl")
    for op, n in expected_kernels(layers, True).items():
        assert len(re.findall(rf"= {op}\(", text)) == n, (op, text)
    got = dump(hl_model, samples / "s0.npz", tmp_path / "hl.npz")
    # Intermediate bf16 tensors: within 2 ulps of bf16 (8 significant bits).
    compared = 0
    for key, want in ref.items():
        # (a tensor written segmented for a strided consumer is checked
        # through that consumer's output)
        if key in got and key != "x" and want.dtype != np.float32 and \
                got[key].shape == want.shape:
            a = want.astype(np.float32)
            b = got[key].astype(np.float32)
            ulp = np.maximum(np.abs(a), 1e-30) * 2.0 ** -7
            assert np.all(np.abs(a - b) <= 2 * ulp + 1e-30), key
            compared += 1
    assert compared >= 1


def test_bf16_nhwc_transposes_cancel(tmp_path):
    """`--layout nhwc` makes every convolution NHWC (the model keeps its
    NCHW interface: a top.Permute at the input and one at the output): each
    becomes an NCHW HL kernel between two transposes, and
    hl-cancel-transposes removes them all, the model's own two included.
    The results stay within 2 bf16 ulps of the Top bf16 model's."""
    model, samples, layers = prepare(tmp_path, 31, n_layers=4, fc=False)
    common = ["--layout", "nhwc", "--quantize", "bf16", "--name", "m"]
    ok(strata("compile", model, *common, "-o", tmp_path / "top"))
    top_text = (tmp_path / "top" / "m.mlir").read_text()
    assert top_text.count("layout = #top.layout<NHWC>") == len(layers), top_text
    r = ok(strata("compile", model, *common, "--target", "npu-sim", "--emit", "hl",
                  "-o", tmp_path / "hl", "--report"))
    text = (tmp_path / "hl" / "m.mlir").read_text()
    for op, n in expected_kernels(layers, False).items():
        assert len(re.findall(rf"= {op}\(", text)) == n, (op, text)
    assert top_text.count("top.Permute") == 2, top_text
    assert "transposes left: 0 " in r.stdout, r.stdout
    ref = dump(tmp_path / "top" / "m.mlir", samples / "s0.npz", tmp_path / "ref.npz")
    got = dump(tmp_path / "hl" / "m.mlir", samples / "s0.npz", tmp_path / "hl.npz")
    a, b = ref["y"].astype(np.float32), got["y"].astype(np.float32)
    assert a.shape == b.shape
    ulp = np.maximum(np.abs(a), 2.0 ** -20) * 2.0 ** -7
    assert np.all(np.abs(a - b) <= 2 * ulp), np.abs(a - b).max()


CHAINS = [
    ["top.Sigmoid"], ["top.SiLU"], ["top.HardSwish"], ["top.Tanh", "top.Relu"],
    ["top.LeakyRelu {alpha = 0.2 : f64}"], ["top.Gelu"], ["top.Exp"],
    ["top.Clip {min = -0.5 : f64, max = 1.5 : f64}"],
]


def assert_same_bytes(tmp, model, hl_model, inputs, keys=("o",)):
    """Runs both models on `inputs` (npz arrays by input name) through the
    interpreter; the tensors `keys` must be byte-identical."""
    np.savez(tmp / "x.npz", **inputs)
    ref = dump(model, tmp / "x.npz", tmp / "ref.npz")
    got = dump(hl_model, tmp / "x.npz", tmp / "got.npz")
    for key in keys:
        assert ref[key].tobytes() == got[key].tobytes(), key


def qtype(shape, scale, zp):
    return "tensor<" + "x".join(map(str, shape)) + f"x!quant.uniform<i8:f32, {scale}:{zp}>>"


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: "_".join(o.split()[0][4:] for o in c))
def test_int8_tables_and_maxpool_exact(tmp_path, chain):
    """Float ops between a Dequant and a Quant of int8 become hl.table (the
    chain tabulated through the Top ops' own semantics), a max pool
    hl.maxpool + hl.table: exactly the Top model's bytes."""
    rng = np.random.default_rng(abs(hash(tuple(chain))) % 2**32)
    shape = (1, 3, 7, 9)
    s_in, zp_in = float(rng.uniform(0.005, 0.05)), int(rng.integers(-20, 20))
    s_mid, zp_mid = float(rng.uniform(0.005, 0.05)), int(rng.integers(-20, 20))
    s_out, zp_out = float(rng.uniform(0.002, 0.02)), int(rng.integers(-128, 0))
    f = "tensor<1x3x7x9xf32>"
    lines = ["func.func @main(%arg0: tensor<1x3x7x9xf32>) -> (tensor<1x3x7x9xf32>, tensor<1x3x4x5xf32>) {",
             f'  %x = top.Input(%arg0) : ({f}) -> {f} loc("x")',
             f'  %q = top.Quant(%x) : ({f}) -> {qtype(shape, s_in, zp_in)} loc("q")',
             f'  %d = top.Dequant(%q) : ({qtype(shape, s_in, zp_in)}) -> {f} loc("d")']
    cur = "%d"
    for i, op in enumerate(chain):
        name, _, attrs = op.partition(" ")
        lines.append(f'  %a{i} = {name}({cur}) {attrs} : ({f}) -> {f} loc("a{i}")')
        cur = f"%a{i}"
    lines += [f'  %y = top.Quant({cur}) : ({f}) -> {qtype(shape, s_out, zp_out)} loc("y")',
              f'  %o = top.Dequant(%y) : ({qtype(shape, s_out, zp_out)}) -> {f} loc("o")',
              # a 3x3 / 2 max pool with padding, requantized on the way out
              f'  %d2 = top.Dequant(%q) : ({qtype(shape, s_in, zp_in)}) -> {f} loc("d2")',
              f'  %m = top.MaxPool(%d2) {{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, '
              f'pads = array<i64: 1, 1, 1, 1>}} : ({f}) -> tensor<1x3x4x5xf32> loc("m")',
              f'  %mq = top.Quant(%m) : (tensor<1x3x4x5xf32>) -> {qtype((1, 3, 4, 5), s_mid, zp_mid)} loc("mq")',
              f'  %mo = top.Dequant(%mq) : ({qtype((1, 3, 4, 5), s_mid, zp_mid)}) -> tensor<1x3x4x5xf32> loc("mo")',
              "  return %o, %mo : tensor<1x3x7x9xf32>, tensor<1x3x4x5xf32>", "}"]
    model = tmp_path / "m.mlir"
    model.write_text("\n".join(lines) + "\n")
    hl_model, text, report = to_hl(tmp_path, model, "hl", "--explain-strategy")
    assert text.count("= hl.table(") == 2 and text.count("= hl.maxpool(") == 1, report + text
    assert "top.MaxPool" not in text and chain[0].split()[0] not in text, text
    assert_same_bytes(tmp_path, model, hl_model,
                      {"input0": (rng.standard_normal(shape) * 2).astype(np.float32)}, ("o", "mo"))


def test_int8_concat_exact(tmp_path):
    """Concat between int8 Dequants and a Quant: each input requantized by
    its table (none when it already has the output's quantization), then
    hl.concat; the Top model's bytes."""
    rng = np.random.default_rng(5)
    shapes = [(1, 2, 3, 4), (1, 3, 3, 4), (1, 1, 3, 4)]
    params = [(0.02, 3), (0.05, -7), (0.013, 0)]  # the last one is the output's
    f = ["tensor<" + "x".join(map(str, s)) + "xf32>" for s in shapes]
    lines = ["func.func @main(" + ", ".join(f"%arg{i}: {t}" for i, t in enumerate(f)) +
             ") -> tensor<1x6x3x4xf32> {"]
    deqs = []
    for i, (shape, (sc, zp)) in enumerate(zip(shapes, params)):
        q = qtype(shape, sc, zp)
        lines += [f'  %x{i} = top.Input(%arg{i}) : ({f[i]}) -> {f[i]} loc("x{i}")',
                  f'  %q{i} = top.Quant(%x{i}) : ({f[i]}) -> {q} loc("q{i}")',
                  f'  %d{i} = top.Dequant(%q{i}) : ({q}) -> {f[i]} loc("d{i}")']
        deqs.append(f"%d{i}")
    out_q = qtype((1, 6, 3, 4), 0.013, 0)
    lines += [f'  %c = top.Concat({", ".join(deqs)}) {{axis = 1 : i64}} : ({", ".join(f)}) -> '
              f'tensor<1x6x3x4xf32> loc("c")',
              f'  %y = top.Quant(%c) : (tensor<1x6x3x4xf32>) -> {out_q} loc("y")',
              f'  %o = top.Dequant(%y) : ({out_q}) -> tensor<1x6x3x4xf32> loc("o")',
              "  return %o : tensor<1x6x3x4xf32>", "}"]
    model = tmp_path / "m.mlir"
    model.write_text("\n".join(lines) + "\n")
    hl_model, text, report = to_hl(tmp_path, model, "hl")
    assert text.count("= hl.concat(") == 1 and text.count("= hl.table(") == 2, report + text
    assert "top.Concat" not in text
    assert_same_bytes(tmp_path, model, hl_model,
                      {f"input{i}": (rng.standard_normal(s) * 2).astype(np.float32)
                       for i, s in enumerate(shapes)})


@pytest.mark.parametrize("attrs,out_hw,converted", [
    ("{scales = array<f64: 1.0, 1.0, 2.0, 3.0>}", (10, 21), True),
    ("{sizes = array<i64: 1, 3, 8, 11>, coordinate_transformation_mode = "
     "#top.coordinate_mode<asymmetric>, nearest_mode = #top.nearest_mode<floor>}", (8, 11), True),
    ("{sizes = array<i64: 1, 3, 8, 11>}", (8, 11), False),  # half_pixel: other pixels
], ids=["x2x3", "asymmetric_floor", "half_pixel_fractional"])
def test_int8_resize_nearest(tmp_path, attrs, out_hw, converted):
    """A nearest Resize between int8 Dequant and Quant is hl.resize_nearest
    (+ the Dequant -> Quant table) when the Top op's own semantics, probed
    on element indices, pick the NPU's source pixels; otherwise it stays on
    the CPU with the reason. Either way: the Top model's bytes."""
    rng = np.random.default_rng(len(attrs))
    shape, out = (1, 3, 5, 7), (1, 3) + out_hw
    f, fo = "tensor<1x3x5x7xf32>", "tensor<" + "x".join(map(str, out)) + "xf32>"
    qi, qo = qtype(shape, 0.03, 4), qtype(out, 0.05, -9)
    lines = [f"func.func @main(%arg0: {f}) -> {fo} {{",
             f'  %x = top.Input(%arg0) : ({f}) -> {f} loc("x")',
             f'  %q = top.Quant(%x) : ({f}) -> {qi} loc("q")',
             f'  %d = top.Dequant(%q) : ({qi}) -> {f} loc("d")',
             f'  %r = top.Resize(%d) {attrs} : ({f}) -> {fo} loc("r")',
             f'  %y = top.Quant(%r) : ({fo}) -> {qo} loc("y")',
             f'  %o = top.Dequant(%y) : ({qo}) -> {fo} loc("o")',
             f"  return %o : {fo}", "}"]
    model = tmp_path / "m.mlir"
    model.write_text("\n".join(lines) + "\n")
    hl_model, text, report = to_hl(tmp_path, model, "hl", "--explain-strategy")
    assert (text.count("= hl.resize_nearest(") == 1) == converted, report + text
    if not converted:
        assert "picks other source pixels" in report, report
    assert_same_bytes(tmp_path, model, hl_model,
                      {"input0": (rng.standard_normal(shape) * 2).astype(np.float32)})
