"""HL -> HW for pools and segmented operands, bit-exact (docs/npu.md, "HL ->
HW"; docs/npu-sim.md, "HL op -> slice task fields"): random HL modules are
compiled with `strata compile --target npu-sim` (every HL op one npu-sim
program: hl-segment-strided rewrites the strided int8 kernels to read
segmented inputs, fused into their producer or through hl.segmentation) and
run with `strata run --device npu-sim`; the outputs must equal, byte for
byte, `strata run-ref` on the same HL module (the interpreter, the NPU's
golden model). Random: odd sizes, strides 2 and 3, dilations, padding,
groups, output channels off the /4 weight blocks, zero points; untiled, tiled
(a 4 KiB LRAM) and double-buffered; with segmentation fused, not fused, and
off (the strided kernels take the stride)."""
import io
import json
import os
import re
import subprocess
import zipfile

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
B = 4  # the default weight_channel_block


def run(*args):
    r = subprocess.run(list(map(str, args)), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, " ".join(map(str, args)) + "\n" + r.stdout + r.stderr
    return r.stdout


def pack(w):
    """[O, ...] -> (O/B) ... B with zero weights past O."""
    o = w.shape[0]
    ob = (o + B - 1) // B
    p = np.zeros((ob * B,) + w.shape[1:], w.dtype)
    p[:o] = w
    return np.ascontiguousarray(np.moveaxis(p.reshape((ob, B) + w.shape[1:]), 1, -1))


def out_size(i, pb, pe, k, s, d):
    return (i + pb + pe - d * (k - 1) - 1) // s + 1


def arr(v):
    return "array<i64: %s>" % ", ".join(map(str, v))


def ty(shape, e="i8"):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), e)


def scale_bias(rng, o):
    return np.stack([rng.integers(-5000, 5000, o), rng.integers(1 << 29, 1 << 31, o),
                     rng.integers(36, 44, o)], axis=1).astype(np.int32)


def write_one_op(path, op_text, in_type, out_type):
    """A module of one HL op `%y = op_text` reading the model input %x."""
    path.write_text(
        f'module {{\n  func.func @main(%x: {in_type} {{top.name = "input"}}) -> '
        f'({out_type} {{top.name = "output"}}) {{\n'
        f"    %y = {op_text} : ({in_type}) -> {out_type}\n"
        f"    return %y : {out_type}\n  }}\n}}\n")


def save_npz(path, arrays):
    """np.savez writing ml_dtypes' bfloat16 arrays with a .npy header that
    names bfloat16 (the convention Strata reads, docs/cli.md)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            buf = io.BytesIO()
            if a.dtype.name == "bfloat16":
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": "bfloat16", "fortran_order": False, "shape": a.shape})
                buf.write(a.tobytes())
            else:
                np.lib.format.write_array(buf, a)
            z.writestr(name + ".npy", buf.getvalue())


class Module:
    """An HL module under construction: ops in order, constants by name."""

    def __init__(self, x):
        self.x, self.lines, self.weights, self.n = x, [], {}, 0

    def const(self, a):
        name = f"c{len(self.weights)}"
        self.weights[name] = a
        e = "i32" if a.dtype == np.int32 else "i8"
        self.lines.append(f'%{name} = top.Weight() {{name = "{name}"}} : () -> {ty(a.shape, e)}')
        return f"%{name}", ty(a.shape, e)

    def op(self, text):
        self.n += 1
        self.lines.append(f"%v{self.n} = " + text)
        return f"%v{self.n}"

    def write(self, d, out, out_shape):
        body = "\n    ".join(self.lines)
        (d / "hl.mlir").write_text(
            f'module attributes {{top.weight_file = "w.npz"}} {{\n'
            f'  func.func @main(%x: {ty(self.x.shape)} {{top.name = "input"}}) -> '
            f'({ty(out_shape)} {{top.name = "output"}}) {{\n    {body}\n'
            f"    return {out} : {ty(out_shape)}\n  }}\n}}\n")
        np.savez(d / "w.npz", **self.weights)
        np.savez(d / "in.npz", input=self.x)


def check(d, runs):
    """run-ref once, then npu-sim for each (flags, config, listing?) of
    `runs`: the same bytes. Returns the listings asked for (else None)."""
    run(STRATA, "run-ref", d / "hl.mlir", "--input", d / "in.npz", "--output", d / "ref.npz")
    want = np.load(d / "ref.npz")["output"]
    listings = []
    for i, (flags, config, listing) in enumerate(runs):
        flags = list(flags)
        if config:
            (d / "npu.json").write_text(json.dumps(config))
            flags += ["--npu-config", d / "npu.json"]
        run(STRATA, "compile", d / "hl.mlir", "--target", "npu-sim", "--no-optimize",
            "-o", d / f"m{i}.strata", *flags)
        listings.append(run(STRATA, "compile", d / "hl.mlir", "--target", "npu-sim",
                            "--no-optimize", "--emit", "hw", "-o", "-", *flags)
                        if listing else None)
        run(STRATA, "run", d / f"m{i}.strata", "--input", d / "in.npz", "--output",
            d / f"out{i}.npz", "--device", "npu-sim")
        got = np.load(d / f"out{i}.npz")["output"]
        assert got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (flags, np.argwhere(got != want)[:5])
    return listings


SMALL = {"lram_bytes": 4096}


def pool_attrs(rng, kind, h, w, s):
    kh, kw = (int(v) for v in rng.integers(1, 4, 2))
    dil = [1, 1] if kind == "avgpool" else [int(v) for v in rng.integers(1, 3, 2)]
    pad = [int(rng.integers(0, k)) for k in (kh, kw, kh, kw)]
    oh = out_size(h, pad[0], pad[2], kh, s, dil[0])
    ow = out_size(w, pad[1], pad[3], kw, s, dil[1])
    return kh, kw, dil, pad, oh, ow


@pytest.mark.parametrize("kind", ["maxpool", "avgpool"])
@pytest.mark.parametrize("seed", range(1))
def test_pool_matches_run_ref(tmp_path, kind, seed):
    """A plain pool (stride 1..3, padding, dilation for max pools,
    count_include_pad, zero points and requantization for average pools),
    untiled, tiled and double-buffered. Stride-1 pools are not segmented."""
    rng = np.random.default_rng(300 + seed * 7 + len(kind))
    for n, s in enumerate([1, 2, 3]):
        c = int(rng.integers(1, 11))
        h, w = (int(v) for v in rng.integers(7, 40, 2))
        kh, kw, dil, pad, oh, ow = pool_attrs(rng, kind, h, w, s)
        x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
        m = Module(x)
        common = (f"kernel = {arr([kh, kw])}, pad = {arr(pad)}, stride = {arr([s, s])}, "
                  f"dilation = {arr(dil)}")
        if kind == "avgpool":
            izp, ozp = (int(v) for v in rng.integers(-20, 20, 2))
            common += (f", count_include_pad = {str(bool(rng.random() < 0.5)).lower()}, "
                       f"input_zp = {izp} : i64, output_zp = {ozp} : i64, "
                       f"multiplier = {int(rng.integers(1 << 29, 1 << 31))} : i64, "
                       f"shift = {int(rng.integers(29, 32))} : i64, clip_min = {ozp} : i64")
        out_shape = (1, c, oh, ow)
        y = m.op(f"hl.{kind}(%x) {{{common}}} : ({ty(x.shape)}) -> {ty(out_shape)}")
        d = tmp_path / str(n)
        d.mkdir()
        m.write(d, y, out_shape)
        big = x.nbytes > 4096
        listings = check(d, [([], None, False), ([], SMALL, big),
                             (["--npu-double-buffer"], SMALL, False)])
        if big:
            assert "tile1." in listings[1], "expected several tiles"


def strided_case(rng, kind, s, k=None):
    """A producer (1x1 conv or 3x3/1 average pool, so that the segmentation
    can fuse into it) feeding a stride-s conv2d / depthwise / max pool."""
    g = int(rng.choice([1, 2])) if kind == "conv" else 1
    c = g * int(rng.integers(1, 6))
    kh, kw = (int(v) for v in rng.integers(1, 5, 2))
    dil = [1, 1] if kind == "maxpool" else [int(v) for v in rng.integers(1, 3, 2)]
    if k:
        kh = kw = k
    h, w = (int(v) for v in rng.integers(2 * max(kh, kw) + 3, 24, 2))
    pad = [int(rng.integers(0, k)) for k in (kh, kw, kh, kw)]
    oh, ow = out_size(h, pad[0], pad[2], kh, s, dil[0]), out_size(w, pad[1], pad[3], kw, s, dil[1])
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    m = Module(x)
    # The phases (a, b) holding taps: one task each.
    m.phases = {a * s + b for a in {(i * dil[0]) % s for i in range(kh)}
                for b in {(j * dil[1]) % s for j in range(kw)}}
    # The producer's output zero point is the consumer's pad value: the
    # input zero point of a MAC consumer, -128 for a max pool.
    mid = -128 if kind == "maxpool" else int(rng.integers(-20, 20))
    if rng.random() < 0.5:
        w1, w1t = m.const(pack(rng.integers(-128, 128, (c, c, 1, 1)).astype(np.int8)))
        sb1, sb1t = m.const(scale_bias(rng, c))
        p = m.op(f"hl.conv2d(%x, {w1}, {sb1}) {{pad = {arr([0] * 4)}, stride = {arr([1, 1])}, "
                 f"dilation = {arr([1, 1])}, input_zp = {int(rng.integers(-9, 9))} : i64, "
                 f"output_zp = {mid} : i64, clip_min = {mid} : i64}} : "
                 f"({ty(x.shape)}, {w1t}, {sb1t}) -> {ty(x.shape)}")
    else:
        p = m.op(f"hl.avgpool(%x) {{kernel = {arr([3, 3])}, pad = {arr([1, 1, 1, 1])}, "
                 f"stride = {arr([1, 1])}, dilation = {arr([1, 1])}, input_zp = 5 : i64, "
                 f"multiplier = 1073741824 : i64, shift = 30 : i64, output_zp = {mid} : i64}} : "
                 f"({ty(x.shape)}) -> {ty(x.shape)}")
    window = f"pad = {arr(pad)}, stride = {arr([s, s])}, dilation = {arr(dil)}"
    if kind == "maxpool":
        out_shape = (1, c, oh, ow)
        y = m.op(f"hl.maxpool({p}) {{kernel = {arr([kh, kw])}, {window}}} : "
                 f"({ty(x.shape)}) -> {ty(out_shape)}")
        return m, y, out_shape
    if kind == "dw":
        o = c
        w2, w2t = m.const(pack(rng.integers(-128, 128, (c, kh, kw)).astype(np.int8)))
        op, extra = "hl.depthwise_conv2d", ""
    else:
        o = g * int(rng.integers(1, 7))  # often not a multiple of B
        w2, w2t = m.const(pack(rng.integers(-128, 128, (o, c // g, kh, kw)).astype(np.int8)))
        op, extra = "hl.conv2d", f"groups = {g} : i64, "
    sb2, sb2t = m.const(scale_bias(rng, o))
    out_shape = (1, o, oh, ow)
    ozp = int(rng.integers(-20, 20))
    y = m.op(f"{op}({p}, {w2}, {sb2}) {{{extra}{window}, input_zp = {mid} : i64, "
             f"weight_zp = {int(rng.integers(-3, 4))} : i64, output_zp = {ozp} : i64, "
             f"clip_min = {int(rng.choice([-128, ozp]))} : i64}} : "
             f"({ty(x.shape)}, {w2t}, {sb2t}) -> {ty(out_shape)}")
    return m, y, out_shape


@pytest.mark.parametrize("kind", ["conv", "dw", "maxpool"])
@pytest.mark.parametrize("s", [2, 3])
def test_segmented_matches_run_ref(tmp_path, kind, s):
    """A strided int8 kernel over segmented inputs: per-phase tasks (MAC
    kernels chained through int32 partials, max pools combined by max
    tasks), the segmentation fused into the producer (its stores write the
    phases, the padding its output zero point) or standalone
    (hl.segmentation, DMA only), and the plain strided kernel for
    comparison."""
    rng = np.random.default_rng(400 + 10 * s + len(kind))
    m, y, out_shape = strided_case(rng, kind, s)
    m.write(tmp_path, y, out_shape)
    big = 2 * m.x.nbytes > 4096  # the producer's input and output
    fused, unfused, plain, tiled, _ = check(tmp_path, [
        ([], None, True), (["--no-segment-fusion"], None, True),
        (["--no-segmentation"], None, True), ([], SMALL, big),
        (["--npu-double-buffer"], SMALL, False)])
    assert "output.phase" in fused and "name = \"pad_value\"" in fused
    got = set(int(p) for p in re.findall(r'name = "tile0\.s0\.p(\d+)"', fused))
    assert got == m.phases, (got, m.phases)
    assert "output.phase" in unfused  # hl.segmentation's program
    assert "output.phase" not in plain and ".p0\"" not in plain
    if big:
        assert "tile1." in tiled, "expected several tiles"


def test_pool_that_never_fits_names_the_layer(tmp_path):
    """One output row of one channel of this max pool reads 3 input rows of
    3000 bytes: more than a 4 KiB LRAM even tiled."""
    (tmp_path / "hl.mlir").write_text("""module {
  func.func @main(%x: tensor<1x2x3x3000xi8> {top.name = "input"}) -> (tensor<1x2x1x3000xi8> {top.name = "output"}) {
    %y = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x3x3000xi8>) -> tensor<1x2x1x3000xi8> loc("pool1")
    return %y : tensor<1x2x1x3000xi8>
  }
}
""")
    (tmp_path / "npu.json").write_text(json.dumps({"lram_bytes": 4096}))
    r = subprocess.run([STRATA, "compile", tmp_path / "hl.mlir", "--target", "npu-sim",
                        "--no-optimize", "--npu-config", tmp_path / "npu.json", "-o",
                        tmp_path / "m.strata"], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert ("layer hl.maxpool 'pool1' (1x2x3x3000 -> 1x2x1x3000) does not fit LRAM "
            "(4096 bytes, alignment 64): even the smallest tile (1 output row, 1 output "
            "channel(s)) needs input 9000, output 3000") in r.stderr, r.stderr


def test_tflite_rounding_is_kept(tmp_path):
    """HL's `rounding = "tflite"` (TFLite-imported requantization) reaches
    the tasks: a strided conv segmented and plain, an add and a rescale
    (an HL op whose rounding the lowering dropped gave other bytes)."""
    rng = np.random.default_rng(77)
    m, y, out_shape = strided_case(rng, "conv", 2)
    m.lines[-1] = m.lines[-1].replace("weight_zp", 'rounding = "tflite", weight_zp')
    m.write(tmp_path, y, out_shape)
    check(tmp_path, [([], None, False), (["--no-segmentation"], None, False)])
    d = tmp_path / "ew"
    d.mkdir()
    x = rng.integers(-128, 128, (1, 3, 7, 5)).astype(np.int8)
    e = Module(x)
    t = ty(x.shape)
    # (Two distinct operands: a dispatch binds each value once, and an
    # npu-sim program binds its operands in order.)
    x2 = e.op(f"hl.activation(%x) {{input_zp = 1 : i64, multiplier = 1073741824 : i64, "
              f"shift = 30 : i64, output_zp = 0 : i64}} : ({t}) -> {t}")
    a = e.op(f'hl.add(%x, {x2}) {{rounding = "tflite", lhs_zp = 3 : i64, rhs_zp = 3 : i64, '
             f"left_shift = 20 : i64, lhs_multiplier = 1073741824 : i64, lhs_shift = 0 : i64, "
             f"rhs_multiplier = 1518500250 : i64, rhs_shift = 1 : i64, "
             f"output_multiplier = 1431655765 : i64, output_shift = 19 : i64, "
             f"output_zp = -7 : i64}} : ({t}, {t}) -> {t}")
    r = e.op(f'hl.activation({a}) {{rounding = "tflite", input_zp = -7 : i64, '
             f"multiplier = 1789569707 : i64, shift = 1 : i64, output_zp = 2 : i64}} : ({t}) -> {t}")
    e.write(d, r, x.shape)
    check(d, [([], None, False)])


@pytest.mark.parametrize("kind", ["conv", "dw", "maxpool"])
@pytest.mark.parametrize("s", [2, 3])
def test_segmented_one_phase_matches_run_ref(tmp_path, kind, s):
    """A 1x1 strided kernel over a segmented input (ResNet-50's stride-2
    shortcuts): every tap lies in phase (0, 0), so each tile loads that
    phase only (a 3-dim descriptor striding over the others), untiled,
    tiled and double-buffered, the bytes of run-ref."""
    rng = np.random.default_rng(700 + 10 * s + len(kind))
    m, y, out_shape = strided_case(rng, kind, s, k=1)
    m.write(tmp_path, y, out_shape)
    fused, _, tiled = check(tmp_path, [
        ([], None, True), ([], SMALL, False),
        (["--npu-double-buffer"], SMALL, False)])
    assert re.findall(r'name = "tile0\.s0\.p(\d+)"', fused) == ["0"]
    c = m.x.shape[1]
    consumer, = (p for p in fused.split("npuhw.program @") if "tile0.s0.p0" in p)
    # Untiled: one load of [N, C, Hs*Ws] (phase (0, 0) of every channel),
    # the channels s^2 phase planes apart in DRAM.
    (n, stride), = re.findall(rf"dma_load {{binding = 0 : i32, counts = array<i64: 1, {c}, "
                              rf"(\d+)>, (?:dram_offset = \d+ : i64, )?dram_strides = "
                              rf"array<i64: \d+, (\d+), 1>", consumer)
    assert int(stride) == s * s * int(n), consumer


@pytest.mark.parametrize("consumer", ["maxpool", "conv", "dw"])
@pytest.mark.parametrize("seed", range(2))
def test_segmented_producer_writes_segmented(tmp_path, consumer, seed):
    """ResNet-50's stem: a strided conv reading a segmented input (the
    model input's hl.segmentation) whose result feeds another strided
    kernel: the conv writes its result segmented from its segmented input
    (one store per phase, the padding its output zero point; no second
    hl.segmentation), the bytes of run-ref, plain, tiled and
    double-buffered."""
    rng = np.random.default_rng(820 + seed + 3 * len(consumer))
    c, o = (int(v) for v in rng.integers(1, 7, 2))
    h, w = (int(v) for v in rng.integers(9, 26, 2))
    k1 = int(rng.choice([3, 5]))
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    m = Module(x)
    # The pad value the consumer needs is the conv's output zero point (a
    # max pool's: -128, a ReLU'd conv's zero point at the bottom).
    mid = -128 if consumer == "maxpool" else int(rng.integers(-20, 20))
    w1, w1t = m.const(pack(rng.integers(-128, 128, (o, c, k1, k1)).astype(np.int8)))
    sb1, sb1t = m.const(scale_bias(rng, o))
    p1 = k1 // 2
    h1, w1s = out_size(h, p1, p1, k1, 2, 1), out_size(w, p1, p1, k1, 2, 1)
    y1 = m.op(f"hl.conv2d(%x, {w1}, {sb1}) {{pad = {arr([p1] * 4)}, stride = {arr([2, 2])}, "
              f"dilation = {arr([1, 1])}, input_zp = {int(rng.integers(-9, 9))} : i64, "
              f"output_zp = {mid} : i64, clip_min = {mid} : i64}} : "
              f"({ty(x.shape)}, {w1t}, {sb1t}) -> {ty((1, o, h1, w1s))}")
    h2, w2s = out_size(h1, 1, 1, 3, 2, 1), out_size(w1s, 1, 1, 3, 2, 1)
    window = f"pad = {arr([1, 1, 1, 1])}, stride = {arr([2, 2])}, dilation = {arr([1, 1])}"
    if consumer == "maxpool":
        o2 = o
        y2 = m.op(f"hl.maxpool({y1}) {{kernel = {arr([3, 3])}, {window}}} : "
                  f"({ty((1, o, h1, w1s))}) -> {ty((1, o2, h2, w2s))}")
    else:
        o2 = o if consumer == "dw" else int(rng.integers(1, 7))
        wt = (rng.integers(-128, 128, (o, 3, 3)) if consumer == "dw"
              else rng.integers(-128, 128, (o2, o, 3, 3))).astype(np.int8)
        w2, w2t = m.const(pack(wt))
        sb2, sb2t = m.const(scale_bias(rng, o2))
        op = "hl.depthwise_conv2d" if consumer == "dw" else "hl.conv2d"
        y2 = m.op(f"{op}({y1}, {w2}, {sb2}) {{{window}, input_zp = {mid} : i64, "
                  f"output_zp = 3 : i64}} : ({ty((1, o, h1, w1s))}, {w2t}, {sb2t}) -> "
                  f"{ty((1, o2, h2, w2s))}")
    m.write(tmp_path, y2, (1, o2, h2, w2s))
    fused, _, _ = check(tmp_path, [([], None, True), ([], SMALL, False),
                                   (["--npu-double-buffer"], SMALL, False)])
    # One hl.segmentation (the model input's); the conv stores phases.
    assert fused.count('name = "pad_value"') == 2, fused
    # The conv: per-phase tasks over its segmented input, phase stores.
    assert any("tile0.s0.p" in p and "output.phase" in p and 'kernel = "conv2d"' in p
               for p in fused.split("npuhw.program @")), fused


@pytest.mark.parametrize("kind", ["maxpool", "avgpool"])
def test_bf16_pool_matches_run_ref(tmp_path, kind):
    """bf16 pools (unsegmented: hl-segment-strided leaves bf16 kernels
    strided): HL's f32 max / mean rounded to bf16, bit for bit."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(50 + len(kind))
    for n, s in enumerate([1, 2]):
        c = int(rng.integers(1, 7))
        h, w = (int(v) for v in rng.integers(5, 20, 2))
        kh, kw, dil, pad, oh, ow = pool_attrs(rng, kind, h, w, s)
        x = rng.standard_normal((1, c, h, w)).astype(np.float32).astype(ml_dtypes.bfloat16)
        t1, t2 = ty(x.shape, "bf16"), ty((1, c, oh, ow), "bf16")
        extra = ", count_include_pad = true" if kind == "avgpool" and n else ""
        d = tmp_path / str(n)
        d.mkdir()
        write_one_op(d / "hl.mlir", f"hl.{kind}(%x) {{kernel = {arr([kh, kw])}, "
                     f"pad = {arr(pad)}, stride = {arr([s, s])}, "
                     f"dilation = {arr(dil)}{extra}}}", t1, t2)
        save_npz(d / "in.npz", {"input": x})
        check(d, [([], None, False), (["--npu-double-buffer"], SMALL, False)])


@pytest.mark.parametrize("kind", ["conv", "dw"])
@pytest.mark.parametrize("s", [2, 3])
def test_bf16_segmented_matches_run_ref(tmp_path, kind, s):
    """bf16 strided convolutions over segmented inputs: a transpose task puts
    each tile's phases back into the padded image, then the kernel runs
    with its stride (bf16 phases cannot chain); fused (the producer stores
    phases, padding +0.0) and standalone."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(600 + 10 * s + len(kind))
    bf = lambda a: a.astype(np.float32).astype(ml_dtypes.bfloat16)
    c = int(rng.integers(1, 7))
    kh, kw = (int(v) for v in rng.integers(1, 5, 2))
    dil = [int(v) for v in rng.integers(1, 3, 2)]
    h, w = (int(v) for v in rng.integers(2 * max(kh, kw) + 3, 20, 2))
    pad = [int(rng.integers(0, k)) for k in (kh, kw, kh, kw)]
    oh, ow = out_size(h, pad[0], pad[2], kh, s, dil[0]), out_size(w, pad[1], pad[3], kw, s, dil[1])
    x = bf(rng.standard_normal((1, c, h, w)))
    w1 = pack(bf(rng.standard_normal((c, c, 1, 1)) * 0.5))
    if kind == "dw":
        o, op = c, "hl.depthwise_conv2d"
        w2 = pack(bf(rng.standard_normal((c, kh, kw)) * 0.3))
    else:
        o, op = int(rng.integers(1, 10)), "hl.conv2d"
        w2 = pack(bf(rng.standard_normal((o, c, kh, kw)) * 0.3))
    consts = {"w1": w1, "b1": rng.standard_normal(c).astype(np.float32), "w2": w2,
              "b2": rng.standard_normal(o).astype(np.float32)}
    t = lambda a: ty(a.shape, "f32" if a.dtype == np.float32 else "bf16")
    tx, ty_out = ty(x.shape, "bf16"), ty((1, o, oh, ow), "bf16")
    lines = [f'%{n} = top.Weight() {{name = "{n}"}} : () -> {t(a)}' for n, a in consts.items()]
    lines.append(f"%p = hl.conv2d(%x, %w1, %b1) {{pad = {arr([0] * 4)}, stride = {arr([1, 1])}, "
                 f"dilation = {arr([1, 1])}, relu = true}} : ({tx}, {t(w1)}, {t(consts['b1'])}) -> {tx}")
    lines.append(f"%y = {op}(%p, %w2, %b2) {{pad = {arr(pad)}, stride = {arr([s, s])}, "
                 f"dilation = {arr(dil)}, relu = true, relu_limit = 1.0 : f64}} : "
                 f"({tx}, {t(w2)}, {t(consts['b2'])}) -> {ty_out}")
    body = "\n    ".join(lines)
    (tmp_path / "hl.mlir").write_text(
        f'module attributes {{top.weight_file = "w.npz"}} {{\n'
        f'  func.func @main(%x: {tx} {{top.name = "input"}}) -> ({ty_out} {{top.name = "output"}}) {{\n'
        f"    {body}\n    return %y : {ty_out}\n  }}\n}}\n")
    save_npz(tmp_path / "w.npz", consts)
    save_npz(tmp_path / "in.npz", {"input": x})
    fused, _, _ = check(tmp_path, [([], None, True), (["--no-segment-fusion"], None, False),
                                   (["--npu-double-buffer"], {"lram_bytes": 16384}, False)])
    assert ".image\"" in fused and "output.phase" in fused


@pytest.mark.parametrize("seed", range(2))
def test_reduce_mean_matches_run_ref(tmp_path, seed):
    """hl.reduce_mean over random axes of rank-2..5 tensors (int8 with zero
    points and requantization, and bf16), split over 1 to 3 slices; a
    tensor larger than LRAM is an error naming the layer (not tiled)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(700 + seed)
    for n in range(3):
        rank = int(rng.integers(2, 6))
        shape = tuple(int(v) for v in rng.integers(1, 9, rank))
        axes = sorted(int(a) for a in rng.choice(rank, int(rng.integers(1, rank + 1)),
                                                 replace=False))
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
        bf16 = n == 2
        e = "bf16" if bf16 else "i8"
        x = (rng.standard_normal(shape).astype(np.float32).astype(ml_dtypes.bfloat16) if bf16
             else rng.integers(-128, 128, shape).astype(np.int8))
        attrs = "" if bf16 else (
            f", input_zp = {int(rng.integers(-9, 9))} : i64, output_zp = 3 : i64, "
            f"multiplier = {int(rng.integers(1 << 29, 1 << 31))} : i64, "
            f"shift = {int(rng.integers(29, 32))} : i64")
        d = tmp_path / str(n)
        d.mkdir()
        write_one_op(d / "hl.mlir", f"hl.reduce_mean(%x) {{axes = {arr(axes)}{attrs}}}",
                     ty(shape, e), ty(out, e))
        save_npz(d / "in.npz", {"input": x})
        check(d, [([], {"slices": int(rng.integers(1, 4))}, False)])
    d = tmp_path / "big"
    d.mkdir()
    (d / "hl.mlir").write_text(
        'module {\n  func.func @main(%x: tensor<1x8x40x40xi8>) -> tensor<1x8x1x1xi8> {\n'
        '    %y = hl.reduce_mean(%x) {axes = array<i64: 2, 3>} : (tensor<1x8x40x40xi8>) -> '
        'tensor<1x8x1x1xi8> loc("gap")\n    return %y : tensor<1x8x1x1xi8>\n  }\n}\n')
    (d / "npu.json").write_text(json.dumps(SMALL))
    r = subprocess.run([STRATA, "compile", d / "hl.mlir", "--target", "npu-sim", "--no-optimize",
                        "--npu-config", d / "npu.json", "-o", d / "m.strata"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert ("hl.reduce_mean 'gap' (1x8x40x40 -> 1x8x1x1) does not fit LRAM (4096 bytes, "
            "alignment 64): input 12800, output 8 (reduce_mean is not tiled)") in r.stderr, r.stderr
