"""HL -> HW, per kernel, bit-exact: random hl.conv2d / hl.depthwise_conv2d /
hl.fully_connected layers (odd sizes, strides, dilations, pads, groups,
output channels not a multiple of the weight block B, int8 and bf16) are
lowered by `strata-opt --convert-hl-to-hw`, packaged into an npu-sim
artifact (`strata-npu package`), run with `strata run --device npu-sim` and
compared byte for byte with the reference interpreter (`strata run-ref` on
the HL module: the golden model of the NPU, docs/npu.md). Each case runs
untiled (default 512 KiB LRAM) and tiled (a 4 KiB LRAM forces output-row,
output-channel and reduction tiles (int32 partials); the listing is checked
to hold several tiles), single- and double-buffered. A layer that can never
fit is an error naming the layer and the sizes."""
import io
import json
import os
import zipfile
import re
import subprocess

import ml_dtypes
import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
OPT = os.path.join(BIN, "strata-opt")
NPU = os.path.join(BIN, "strata-npu")
B = 4  # the default weight_channel_block


def run(*args):
    r = subprocess.run(list(map(str, args)), capture_output=True, text=True,
                       timeout=300)
    return r


def save_npz(path, arrays):
    """np.savez keeping ml_dtypes names (bfloat16) in the .npy headers, the
    convention Strata reads (docs/cli.md, "npz files")."""
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            a = np.asarray(a, order="C")
            buf = io.BytesIO()
            if a.dtype.type.__module__ == "ml_dtypes":
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": a.dtype.name, "fortran_order": False,
                          "shape": a.shape})
                buf.write(a.tobytes())
            else:
                np.lib.format.write_array(buf, a)
            z.writestr(name + ".npy", buf.getvalue())


def dims(shape):
    return "x".join(str(d) for d in shape)


def pack(w):
    """[O, ...] -> (O/B) ... B with zero weights past O."""
    o = w.shape[0]
    ob = (o + B - 1) // B
    p = np.zeros((ob * B,) + w.shape[1:], w.dtype)
    p[:o] = w
    p = p.reshape((ob, B) + w.shape[1:])
    return np.ascontiguousarray(np.moveaxis(p, 1, -1))


def out_size(i, pb, pe, k, s, d):
    return (i + pb + pe - d * (k - 1) - 1) // s + 1


def make_case(rng, kind, bf16=False, big=False):
    """A random layer: the HL op text, its weights and an input. `big`
    layers exceed a 4 KiB LRAM."""
    n = 1
    m = 3 if big else 1
    ety = "bf16" if bf16 else "i8"
    attrs = {}
    if kind == "fc":
        i, o = int(rng.integers(1, 70 * m)), int(rng.integers(1, 23 * m))
        n = int(rng.integers(1, 4))
        w = pack(rng.integers(-128, 128, (o, i)).astype(np.int8))
        in_shape, out_shape = (n, i), (n, o)
        op = "hl.fully_connected"
    else:
        c = int(rng.integers(1, 13 * m))
        groups = 1
        if kind == "conv" and rng.random() < 0.3:
            groups = int(rng.choice([2, 3]))
            c = groups * int(rng.integers(1, 5))
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        dh, dw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        h = int(rng.integers(dh * (kh - 1) + 1, 20 * m))
        wd = int(rng.integers(dw * (kw - 1) + 1, 20 * m))
        pad = [int(rng.integers(0, kh)), int(rng.integers(0, kw)),
               int(rng.integers(0, kh)), int(rng.integers(0, kw))]
        oh = out_size(h, pad[0], pad[2], kh, sh, dh)
        ow = out_size(wd, pad[1], pad[3], kw, sw, dw)
        if kind == "dw":
            o = c
            w = pack(rng.integers(-128, 128, (c, kh, kw)).astype(np.int8))
            op = "hl.depthwise_conv2d"
        else:
            o = int(rng.integers(1, 10 * m)) * groups
            w = pack(rng.integers(-128, 128, (o, c // groups, kh, kw)).astype(np.int8))
            op = "hl.conv2d"
            if groups > 1:
                attrs["groups"] = f"{groups} : i64"
        attrs["pad"] = "array<i64: %s>" % ", ".join(map(str, pad))
        attrs["stride"] = f"array<i64: {sh}, {sw}>"
        attrs["dilation"] = f"array<i64: {dh}, {dw}>"
        in_shape, out_shape = (n, c, h, wd), (n, o, oh, ow)
    if bf16:
        x = (rng.standard_normal(in_shape).astype(np.float32))
        w = (rng.standard_normal(w.shape) * 0.3).astype(np.float32)
        sb = rng.standard_normal(o).astype(np.float32)
        if rng.random() < 0.5:
            attrs["relu"] = "true"
            if rng.random() < 0.5:
                attrs["relu_limit"] = "1.0 : f64"
        wty = f"tensor<{dims(w.shape)}xbf16>"
        sbty = f"tensor<{o}xf32>"
    else:
        x = rng.integers(-128, 128, in_shape).astype(np.int8)
        izp, wzp, ozp = (int(v) for v in rng.integers(-20, 20, 3))
        lo = int(rng.choice([-128, ozp]))
        hi = int(rng.choice([127, 100]))
        attrs.update(input_zp=f"{izp} : i64", weight_zp=f"{wzp} : i64",
                     output_zp=f"{ozp} : i64", clip_min=f"{lo} : i64",
                     clip_max=f"{hi} : i64")
        sb = np.stack([rng.integers(-5000, 5000, o),
                       rng.integers(1 << 29, 1 << 31, o),
                       rng.integers(36, 44, o)], axis=1).astype(np.int32)
        wty = f"tensor<{dims(w.shape)}xi8>"
        sbty = f"tensor<{o}x3xi32>"
    text_attrs = ", ".join(f"{k} = {v}" for k, v in sorted(attrs.items()))
    xty = f"tensor<{dims(in_shape)}x{ety}>"
    yty = f"tensor<{dims(out_shape)}x{ety}>"
    mlir = f"""module {{
  func.func @main(%x: {xty} {{top.name = "input"}}) -> ({yty} {{top.name = "output"}}) {{
    %w = top.Weight() {{name = "w"}} : () -> {wty}
    %sb = top.Weight() {{name = "sb"}} : () -> {sbty}
    %y = {op}(%x, %w, %sb) {{{text_attrs}}} : ({xty}, {wty}, {sbty}) -> {yty}
    return %y : {yty}
  }}
}}
"""
    return dict(mlir=mlir, x=x, w=w, sb=sb, in_shape=in_shape,
                out_shape=out_shape, bf16=bf16)


def extract_program(listing):
    """The npuhw.program of a converted module, as a module of its own."""
    start = listing.index("  npuhw.program")
    body = listing[start:].rstrip()
    assert body.endswith("}")
    return "module {\n" + body[:-1].rstrip() + "\n}\n"


def run_case(tmp_path, case, config=None, double_buffer=False):
    """Lowers, packages and runs the case on npu-sim; compares with run-ref.
    Returns the listing."""
    src = tmp_path / "hl.mlir"
    src.write_text(case["mlir"])
    bf16 = case["bf16"]
    w = case["w"].astype(ml_dtypes.bfloat16) if bf16 else case["w"]
    x = case["x"].astype(ml_dtypes.bfloat16) if bf16 else case["x"]
    save_npz(tmp_path / "w.npz", {"w": w, "sb": case["sb"]})
    save_npz(tmp_path / "in.npz", {"input": x})
    # The golden model (run-ref reads bf16 weights as uint16 bits and
    # inputs as bf16 bits too).
    r = run(STRATA, "run-ref", src, "--weights", tmp_path / "w.npz",
            "--input", tmp_path / "in.npz", "--output", tmp_path / "ref.npz")
    assert r.returncode == 0, r.stderr
    ref = np.load(tmp_path / "ref.npz")["output"]

    opts = []
    if config is not None:
        (tmp_path / "npu.json").write_text(json.dumps(config))
        opts.append(f"npu-config={tmp_path / 'npu.json'}")
    if double_buffer:
        opts.append("double-buffer=true")
    r = run(OPT, src, "--convert-hl-to-hw=" + " ".join(opts))
    assert r.returncode == 0, r.stderr
    listing = r.stdout
    (tmp_path / "prog.mlir").write_text(extract_program(listing))
    dt = "bf16" if bf16 else "i8"
    r = run(NPU, "package", tmp_path / "prog.mlir", "--constants",
            tmp_path / "w.npz", "--input", f"input={dt}:{dims(case['in_shape'])}",
            "--output", f"output={dt}:{dims(case['out_shape'])}", "-o",
            tmp_path / "m.strata")
    assert r.returncode == 0, r.stderr
    r = run(STRATA, "run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
            "--output", tmp_path / "out.npz", "--device", "npu-sim")
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out.npz")["output"]
    assert got.shape == ref.shape
    assert got.view(np.uint8).tobytes() == ref.view(np.uint8).tobytes(), (
        case["mlir"], np.argwhere(got.view(np.uint8) != ref.view(np.uint8))[:5])
    return listing


SMALL = {"lram_bytes": 4096}


@pytest.mark.parametrize("kind", ["conv", "dw", "fc"])
@pytest.mark.parametrize("seed", range(3))
def test_kernel_untiled_and_tiled(tmp_path, kind, seed):
    rng = np.random.default_rng(1000 * seed + len(kind))
    case = make_case(rng, kind)
    listing = run_case(tmp_path, case)
    assert listing.count("tile1.") == 0  # fits: one tile
    # Force tiling: a layer bigger than a 4 KiB LRAM.
    big = None
    for _ in range(50):
        c = make_case(rng, kind, big=True)
        nbytes = c["x"].nbytes + c["w"].nbytes + c["sb"].nbytes + int(np.prod(c["out_shape"]))
        if nbytes > 4096:
            big = c
            break
    if big is None:
        pytest.skip("no layer larger than 4 KiB drawn")
    for db in (False, True):
        d = tmp_path / f"db{int(db)}"
        d.mkdir()
        listing = run_case(d, big, SMALL, db)
        assert "tile1." in listing, "expected several tiles"


@pytest.mark.parametrize("kind", ["conv", "dw", "fc"])
def test_kernel_bf16(tmp_path, kind):
    rng = np.random.default_rng(77 + len(kind))
    run_case(tmp_path, make_case(rng, kind, bf16=True))


@pytest.mark.parametrize("double_buffer", [False, True])
def test_reduction_tiled(tmp_path, double_buffer):
    """Layers whose one output row needs more than a 4 KiB LRAM over the
    whole reduction: the input channels are tiled (int32 partials)."""
    rng = np.random.default_rng(5)
    for kind, i in (("fc", 1500), ("conv", 0)):
        if kind == "fc":
            w = pack(rng.integers(-128, 128, (6, i)).astype(np.int8))
            mlir = f"""module {{
  func.func @main(%x: tensor<2x{i}xi8> {{top.name = "input"}}) -> (tensor<2x6xi8> {{top.name = "output"}}) {{
    %w = top.Weight() {{name = "w"}} : () -> tensor<2x{i}x4xi8>
    %sb = top.Weight() {{name = "sb"}} : () -> tensor<6x3xi32>
    %y = hl.fully_connected(%x, %w, %sb) {{input_zp = 3 : i64, weight_zp = -2 : i64, output_zp = 1 : i64}} : (tensor<2x{i}xi8>, tensor<2x{i}x4xi8>, tensor<6x3xi32>) -> tensor<2x6xi8>
    return %y : tensor<2x6xi8>
  }}
}}
"""
            in_shape, out_shape, o = (2, i), (2, 6), 6
        else:
            # 3x3 over 100 channels of 12x12: 3 rows x 100 channels x 12 and
            # a 3600-byte weight block per output row.
            w = pack(rng.integers(-128, 128, (7, 100, 3, 3)).astype(np.int8))
            mlir = """module {
  func.func @main(%x: tensor<1x100x12x12xi8> {top.name = "input"}) -> (tensor<1x7x12x12xi8> {top.name = "output"}) {
    %w = top.Weight() {name = "w"} : () -> tensor<2x100x3x3x4xi8>
    %sb = top.Weight() {name = "sb"} : () -> tensor<7x3xi32>
    %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = -5 : i64, output_zp = 2 : i64, clip_min = 2 : i64} : (tensor<1x100x12x12xi8>, tensor<2x100x3x3x4xi8>, tensor<7x3xi32>) -> tensor<1x7x12x12xi8>
    return %y : tensor<1x7x12x12xi8>
  }
}
"""
            in_shape, out_shape, o = (1, 100, 12, 12), (1, 7, 12, 12), 7
        sb = np.stack([rng.integers(-5000, 5000, o), rng.integers(1 << 29, 1 << 31, o),
                       rng.integers(38, 46, o)], axis=1).astype(np.int32)
        case = dict(mlir=mlir, x=rng.integers(-128, 128, in_shape).astype(np.int8),
                    w=w, sb=sb, in_shape=in_shape, out_shape=out_shape, bf16=False)
        d = tmp_path / kind
        d.mkdir()
        listing = run_case(d, case, SMALL, double_buffer)
        assert "partial = " in listing and 'output_format = "int32"' in listing


@pytest.mark.parametrize("k", [1, 3])
def test_reduction_streamed(tmp_path, k):
    """Double-buffered, the planner streams the reduction (int32 partials)
    of a layer whose whole reduction fits too, when that overlaps more of
    its loads (test/Conversion/HLToHW/reduction-stream.mlir shows the
    schedule): the simulator accepts the program (no race) and its bytes are
    run-ref's. Single-buffered the same layer keeps its whole reduction."""
    rng = np.random.default_rng(11 + k)
    c, o, h = 512, 64, 8
    pad = k // 2
    w = pack(rng.integers(-128, 128, (o, c, k, k)).astype(np.int8))
    mlir = f"""module {{
  func.func @main(%x: tensor<1x{c}x{h}x{h}xi8> {{top.name = "input"}}) -> (tensor<1x{o}x{h}x{h}xi8> {{top.name = "output"}}) {{
    %w = top.Weight() {{name = "w"}} : () -> tensor<{o // 4}x{c}x{k}x{k}x4xi8>
    %sb = top.Weight() {{name = "sb"}} : () -> tensor<{o}x3xi32>
    %y = hl.conv2d(%x, %w, %sb) {{pad = array<i64: {pad}, {pad}, {pad}, {pad}>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, input_zp = 7 : i64, weight_zp = -3 : i64, output_zp = -4 : i64, clip_min = -4 : i64}} : (tensor<1x{c}x{h}x{h}xi8>, tensor<{o // 4}x{c}x{k}x{k}x4xi8>, tensor<{o}x3xi32>) -> tensor<1x{o}x{h}x{h}xi8>
    return %y : tensor<1x{o}x{h}x{h}xi8>
  }}
}}
"""
    sb = np.stack([rng.integers(-5000, 5000, o), rng.integers(1 << 29, 1 << 31, o),
                   rng.integers(40, 48, o)], axis=1).astype(np.int32)
    case = dict(mlir=mlir, x=rng.integers(-128, 128, (1, c, h, h)).astype(np.int8),
                w=w, sb=sb, in_shape=(1, c, h, h), out_shape=(1, o, h, h), bf16=False)
    config = {"lram_bytes": 49152 if k == 1 else 65536}
    for db in (False, True):
        d = tmp_path / f"db{int(db)}"
        d.mkdir()
        listing = run_case(d, case, config, db)
        assert ("partial = " in listing) == db, listing[:4000]


def test_layer_never_fits(tmp_path):
    # A depthwise 3x3 over rows 3000 wide: one output row of 4 channels reads
    # 36000 input bytes, and depthwise has no reduction to tile.
    mlir = """module {
  func.func @main(%x: tensor<1x4x3x3000xi8>) -> tensor<1x4x1x3000xi8> {
    %w = top.Weight() {name = "w"} : () -> tensor<1x3x3x4xi8>
    %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
    %y = hl.depthwise_conv2d(%x, %w, %sb) {pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x3x3000xi8>, tensor<1x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x1x3000xi8> loc("dw1")
    return %y : tensor<1x4x1x3000xi8>
  }
}
"""
    (tmp_path / "m.mlir").write_text(mlir)
    (tmp_path / "npu.json").write_text(json.dumps(SMALL))
    r = run(OPT, tmp_path / "m.mlir",
            f"--convert-hl-to-hw=npu-config={tmp_path / 'npu.json'}")
    assert r.returncode != 0
    assert ("hl.depthwise_conv2d 'dw1' (1x4x3x3000 -> 1x4x1x3000) does not fit "
            "LRAM (4096 bytes") in r.stderr
    assert "input 36000" in r.stderr


@pytest.mark.parametrize("bf16", [False, True])
def test_transpose(tmp_path, bf16):
    """hl.transpose (the NHWC <-> NCHW transposes left at a model's
    boundary) is DMA only: a gather by permuted strides, in chunks of the
    outermost dim under a 4 KiB LRAM."""
    rng = np.random.default_rng(11 + bf16)
    for n, perm in enumerate([(0, 3, 1, 2), (0, 2, 3, 1), (2, 0, 3, 1)]):
        shape = tuple(int(v) for v in rng.integers(1, 20, 4))
        out_shape = tuple(shape[p] for p in perm)
        ety = "bf16" if bf16 else "i8"
        x = (rng.standard_normal(shape).astype(np.float32) if bf16
             else rng.integers(-128, 128, shape).astype(np.int8))
        xty, yty = f"tensor<{dims(shape)}x{ety}>", f"tensor<{dims(out_shape)}x{ety}>"
        mlir = f"""module {{
  func.func @main(%x: {xty} {{top.name = "input"}}) -> ({yty} {{top.name = "output"}}) {{
    %y = hl.transpose(%x) {{perm = array<i64: {", ".join(map(str, perm))}>}} : ({xty}) -> {yty}
    return %y : {yty}
  }}
}}
"""
        d = tmp_path / str(n)
        d.mkdir()
        (d / "hl.mlir").write_text(mlir)
        xs = x.astype(ml_dtypes.bfloat16) if bf16 else x
        save_npz(d / "in.npz", {"input": xs})
        (d / "npu.json").write_text(json.dumps(SMALL))
        r = run(OPT, d / "hl.mlir", f"--convert-hl-to-hw=npu-config={d / 'npu.json'}")
        assert r.returncode == 0, r.stderr
        (d / "prog.mlir").write_text(extract_program(r.stdout))
        dt = "bf16" if bf16 else "i8"
        r = run(NPU, "package", d / "prog.mlir", "--input", f"input={dt}:{dims(shape)}",
                "--output", f"output={dt}:{dims(out_shape)}", "-o", d / "m.strata")
        assert r.returncode == 0, r.stderr
        r = run(STRATA, "run", d / "m.strata", "--input", d / "in.npz", "--output",
                d / "out.npz", "--device", "npu-sim")
        assert r.returncode == 0, r.stderr
        got = np.load(d / "out.npz")["output"]
        want = np.ascontiguousarray(xs.transpose(perm))
        assert got.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()


@pytest.mark.parametrize("op", ["add", "sub", "mul", "min", "max", "activation", "table"])
def test_elementwise(tmp_path, op):
    """The int8 elementwise kernels over the flat tensor, in chunks under a
    4 KiB LRAM, bit-exact against run-ref (TFLite-style multipliers: Q0.31
    multipliers, left_shift 20)."""
    rng = np.random.default_rng(len(op))
    shape = (1, 7, 23, 19)  # 3059 elements: several chunks of a 4 KiB LRAM
    ty = f"tensor<{dims(shape)}xi8>"
    x = rng.integers(-128, 128, shape).astype(np.int8)
    arrays = {"input": x}
    weights = {}
    if op in ("add", "sub", "mul", "min", "max"):
        y = rng.integers(-128, 128, shape).astype(np.int8)
        arrays["input2"] = y
        attrs = dict(lhs_zp=int(rng.integers(-10, 10)), rhs_zp=int(rng.integers(-10, 10)),
                     output_zp=int(rng.integers(-10, 10)), clip_min=-100, clip_max=120)
        if op == "mul":
            attrs.update(output_multiplier=int(rng.integers(1 << 29, 1 << 31)),
                         output_shift=int(rng.integers(36, 40)))
        else:
            attrs.update(left_shift=20,
                         lhs_multiplier=int(rng.integers(1 << 29, 1 << 30)), lhs_shift=31,
                         rhs_multiplier=int(rng.integers(1 << 29, 1 << 30)), rhs_shift=31,
                         output_multiplier=int(rng.integers(1 << 29, 1 << 31)),
                         output_shift=int(rng.integers(48, 52)))
        text = ", ".join(f"{k} = {v} : i64" for k, v in sorted(attrs.items()))
        args = f'%x: {ty} {{top.name = "input"}}, %y: {ty} {{top.name = "input2"}}'
        body = f"%o = hl.{op}(%x, %y) {{{text}}} : ({ty}, {ty}) -> {ty}"
        inputs = [("input", shape), ("input2", shape)]
    elif op == "activation":
        attrs = dict(input_zp=3, output_zp=-4, multiplier=int(rng.integers(1 << 29, 1 << 31)),
                     shift=31, clip_min=-4, clip_max=127)
        text = ", ".join(f"{k} = {v} : i64" for k, v in sorted(attrs.items()))
        args = f'%x: {ty} {{top.name = "input"}}'
        body = f"%o = hl.activation(%x) {{{text}}} : ({ty}) -> {ty}"
        inputs = [("input", shape)]
    else:
        weights["lut"] = rng.integers(-128, 128, 256).astype(np.int8)
        args = f'%x: {ty} {{top.name = "input"}}'
        body = ('%t = top.Weight() {name = "lut"} : () -> tensor<256xi8>\n    '
                f"%o = hl.table(%x, %t) {{lut_entries = 256 : i64}} : ({ty}, tensor<256xi8>) -> {ty}")
        inputs = [("input", shape)]
    mlir = f"""module {{
  func.func @main({args}) -> ({ty} {{top.name = "output"}}) {{
    {body}
    return %o : {ty}
  }}
}}
"""
    (tmp_path / "hl.mlir").write_text(mlir)
    save_npz(tmp_path / "in.npz", arrays)
    save_npz(tmp_path / "w.npz", weights or {"unused": np.zeros(1, np.int8)})
    r = run(STRATA, "run-ref", tmp_path / "hl.mlir", "--weights", tmp_path / "w.npz",
            "--input", tmp_path / "in.npz", "--output", tmp_path / "ref.npz")
    assert r.returncode == 0, r.stderr
    ref = np.load(tmp_path / "ref.npz")["output"]
    (tmp_path / "npu.json").write_text(json.dumps(SMALL))
    r = run(OPT, tmp_path / "hl.mlir",
            f"--convert-hl-to-hw=npu-config={tmp_path / 'npu.json'}")
    assert r.returncode == 0, r.stderr
    assert "chunk1." in r.stdout  # several chunks
    (tmp_path / "prog.mlir").write_text(extract_program(r.stdout))
    package = [NPU, "package", tmp_path / "prog.mlir", "-o", tmp_path / "m.strata",
               "--output", f"output=i8:{dims(shape)}"]
    for name, s in inputs:
        package += ["--input", f"{name}=i8:{dims(s)}"]
    if weights:
        package += ["--constants", tmp_path / "w.npz"]
    r = run(*package)
    assert r.returncode == 0, r.stderr
    r = run(STRATA, "run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
            "--output", tmp_path / "out.npz", "--device", "npu-sim")
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out.npz")["output"]
    assert got.tobytes() == ref.tobytes()
    # Not all saturated: the test can tell wrong multipliers apart.
    assert len(np.unique(ref)) > 20
