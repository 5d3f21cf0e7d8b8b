"""Int16 activation tables on npu-sim, bit-exact (docs/npu.md, "Int16 tables
in the activation unit"): a hand-written Top model in the form `strata
quantize --table-input int16` writes for a convolution with a fused
activation -- int8 conv (i32) -> top.Requant to a per-tensor int16
pre-activation (per-channel multipliers and shifts, a zero point) ->
top.Table16 (513 random entries) -> int8 -- with random shapes (odd channel
counts, 1x1 / 3x3, depthwise, stride 1 and 2, ReLU). `strata compile
--target npu-sim` writes hl.conv2d (an int16 result) + hl.table16, folded
into the conv's dispatch (the activation unit's interpolated table); `strata
run --device npu-sim` must give, byte for byte, `strata run-ref` on the Top
model (the Top interpreter, the reference of the CPU int8 path), and an
independent numpy model of the table (TOSA's int16 TABLE then a rounding
shift by 14) applied to the int16 pre-activation the Top interpreter
computes must give the same bytes too. Untiled and tiled (a 4 KiB LRAM: row
and channel tiles), single- and double-buffered."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "compiled"))
from cpu_isa_harness import STRATA, strata as run_strata  # noqa: E402


def strata(*args, ok=True):
    r = run_strata(*args)
    if ok:
        assert r.returncode == 0, " ".join(map(str, args)) + "\n" + r.stdout + r.stderr
    return r


def table16_numpy(table, x):
    """TOSA's int16 TABLE and Strata's rounding shift by 14 (round half away
    from zero), saturated to int8 -- written from docs/quantization.md, not
    from the C++ header."""
    u = x.astype(np.int64) + 32768
    idx, frac = u >> 7, u & 127
    t = table.astype(np.int64)
    v = t[idx] * 128 + (t[idx + 1] - t[idx]) * frac
    r = np.sign(v) * ((np.abs(v) + (1 << 13)) >> 14)
    return np.clip(r, -128, 127).astype(np.int8)


def top_model(rng, depthwise, big, stride=1, relu=False, table_out=True):
    m = 3 if big else 1
    o = int(rng.integers(1, 10 * m)) | 1  # odd channel counts
    c = o if depthwise else int(rng.integers(1, 9 * m))
    # Stride 2: 3x3 (the segmented-input kernels).
    k = int(rng.choice([1, 3])) if stride == 1 else 3
    lo = 2 if stride == 1 else 6
    h, w = int(rng.integers(lo, 13 * m)), int(rng.integers(lo, 13 * m))
    p = k // 2
    oh, ow = (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
    g = o if depthwise else 1
    wt = rng.integers(-128, 128, (o, c // g, k, k)).astype(np.int8)
    bias = rng.integers(-3000, 3000, o).astype(np.int32)
    mult = rng.integers(1 << 29, 1 << 31, o)
    # Pre-activations spread over the int16 range (and past it: the clamp).
    spread = 9500 * np.sqrt((c // g) * k * k)
    shift = 30 + np.round(np.log2(spread / 12000)).astype(int) + rng.integers(-1, 2, o)
    zp16 = int(rng.integers(-300, 300))
    izp = int(rng.integers(-10, 10))
    # Random entries in the int8 output's range with 7 fraction bits (a
    # smooth curve plus noise, so neighbours differ in sign and size).
    xs = np.linspace(-4, 4, 513)
    curve = 127 * 128 * np.tanh(xs) + rng.integers(-900, 900, 513)
    table = np.clip(np.round(curve), -128 * 128, 127 * 128).astype(np.int16)
    pre = f"!quant.uniform<i16:f32, 0.0005:{zp16}>"
    out = "!quant.uniform<i8:f32, 0.03:-5>"
    xin = f"!quant.uniform<i8:f32, 0.05:{izp}>"
    xt, acct = f"tensor<1x{c}x{h}x{w}x{xin}>", f"tensor<1x{o}x{oh}x{ow}xi32>"
    pt, yt = f"tensor<1x{o}x{oh}x{ow}x{pre}>", f"tensor<1x{o}x{oh}x{ow}x{out}>"
    arr = lambda v: "array<i64: %s>" % ", ".join(str(int(x)) for x in v)  # noqa: E731
    group = f", group = {g} : i64" if g > 1 else ""
    r = ", do_relu = true" if relu else ""
    entries = ", ".join(str(int(v)) for v in table)
    ret, rt = ("%y", yt) if table_out else ("%pre", pt)
    text = f"""module attributes {{top.weight_file = "w.npz"}} {{
  func.func @main(%x: {xt} {{top.name = "input"}}) -> ({rt} {{top.name = "output"}}) {{
    %w = top.Weight() {{name = "w"}} : () -> tensor<{o}x{c // g}x{k}x{k}xi8>
    %b = top.Weight() {{name = "b"}} : () -> tensor<{o}xi32>
    %acc = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: {k}, {k}>, pads = array<i64: {p}, {p}, {p}, {p}>, strides = array<i64: {stride}, {stride}>, input_zp = array<i64: {izp}>{group}{r}}} : ({xt}, tensor<{o}x{c // g}x{k}x{k}xi8>, tensor<{o}xi32>) -> {acct}
    %pre = top.Requant(%acc) {{multiplier = {arr(mult)}, rshift = {arr(shift)}, axis = 1 : i64}} : ({acct}) -> {pt}
    %y = top.Table16(%pre) {{table = array<i16: {entries}>}} : ({pt}) -> {yt}
    return {ret} : {rt}
  }}
}}
"""
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    return text, {"w": wt, "b": bias}, x, table


MODES = {"untiled": [], "tiled": ["small"], "tiled-db": ["small", "--npu-double-buffer"]}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("mode", sorted(MODES))
def test_conv_table16(tmp_path, seed, mode):
    rng = np.random.default_rng(1600 + seed)
    # Seeds 3, 4: stride 2 (the conv reads the segmented input, an
    # hl.segmentation dispatch before it); seed 2: ReLU on the accumulator.
    stride = 2 if seed >= 3 else 1
    text, weights, x, table = top_model(rng, depthwise=seed % 2 == 1,
                                        big=mode != "untiled", stride=stride,
                                        relu=seed == 2)
    (tmp_path / "small.json").write_text('{"lram_bytes": 4096}')
    flags = []
    for f in MODES[mode]:
        flags += ["--npu-config", tmp_path / "small.json"] if f == "small" else [f]
    (tmp_path / "m.mlir").write_text(text)
    np.savez(tmp_path / "w.npz", **weights)
    np.savez(tmp_path / "in.npz", input=x)
    strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "ref.npz")
    want = np.load(tmp_path / "ref.npz")["output"]
    # The independent reference: the int16 pre-activation (the Top model
    # cut before its Table16) through the numpy table.
    (tmp_path / "pre.mlir").write_text(
        top_model(np.random.default_rng(1600 + seed), depthwise=seed % 2 == 1,
                  big=mode != "untiled", stride=stride, relu=seed == 2,
                  table_out=False)[0])
    strata("run-ref", tmp_path / "pre.mlir", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "pre.npz")
    pre = np.load(tmp_path / "pre.npz")["output"]
    assert pre.dtype == np.int16
    assert len(np.unique(pre)) > min(16, pre.size // 3), "pre-activations too uniform"
    assert table16_numpy(table, pre).tobytes() == want.tobytes()
    report = strata("compile", tmp_path / "m.mlir", "--target", "npu-sim", "--no-optimize",
                    *flags, "-o", tmp_path / "m.strata", "--report").stdout
    profile = strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
                     "--output", tmp_path / "out.npz", "--device", "npu-sim").stdout
    got = np.load(tmp_path / "out.npz")["output"]
    assert got.tobytes() == want.tobytes(), np.argwhere(got != want)[:5]
    # The conv and its table in one dispatch (+ the segmentation: untiled,
    # a strided conv reads the segmented input; in 4 KiB one may not fit and
    # the conv walks its input at stride 2).
    n = 1 + (stride > 1 and mode == "untiled")
    ns = (n, 2) if stride > 1 else (n,)
    got_n = [k for k in ns
             if f"{k} npu-sim dispatch(es), 0 CPU dispatch(es)" in report]
    assert got_n, report
    assert len(re.findall(r"npu-sim dispatch \d+ ", profile)) == got_n[0], profile


@pytest.mark.parametrize("lram", [None, 4096])
def test_standalone_table16_every_int16_value(tmp_path, lram):
    """A standalone hl.table16 (the `table` task on int16 input) over every
    int16 value, in an odd shape (65538 elements: all 65536 values and two
    more), lowered with `strata-opt --convert-hl-to-hw` (untiled, and with a
    4 KiB LRAM: chunks with a tail), packaged (`strata-npu package`) and run
    on npu-sim: the bytes of `strata run-ref` on the HL module and of the
    numpy table."""
    rng = np.random.default_rng(1616)
    shape = (1, 3, 21846)
    x = np.concatenate([rng.permutation(np.arange(-32768, 32768)),
                        [-32768, 32767]]).astype(np.int16).reshape(shape)
    xs = np.linspace(-6, 6, 513)
    table = np.clip(np.round(127 * 128 * np.sin(xs) + rng.integers(-2000, 2000, 513)),
                    -128 * 128, 127 * 128).astype(np.int16)
    ti = "x".join(map(str, shape))
    mlir = f"""module {{
  func.func @main(%x: tensor<{ti}xi16> {{top.name = "input"}}) -> (tensor<{ti}xi8> {{top.name = "output"}}) {{
    %t = top.Weight() {{name = "lut"}} : () -> tensor<513xi16>
    %o = hl.table16(%x, %t) : (tensor<{ti}xi16>, tensor<513xi16>) -> tensor<{ti}xi8>
    return %o : tensor<{ti}xi8>
  }}
}}
"""
    (tmp_path / "hl.mlir").write_text(mlir)
    np.savez(tmp_path / "in.npz", input=x)
    np.savez(tmp_path / "w.npz", lut=table)
    strata("run-ref", tmp_path / "hl.mlir", "--weights", tmp_path / "w.npz",
           "--input", tmp_path / "in.npz", "--output", tmp_path / "ref.npz")
    ref = np.load(tmp_path / "ref.npz")["output"]
    assert ref.tobytes() == table16_numpy(table, x).tobytes()
    assert len(np.unique(ref)) > 200
    bin_dir = os.path.dirname(STRATA)
    opt = [os.path.join(bin_dir, "strata-opt"), tmp_path / "hl.mlir"]
    if lram:
        (tmp_path / "npu.json").write_text('{"lram_bytes": %d}' % lram)
        opt.append(f"--convert-hl-to-hw=npu-config={tmp_path / 'npu.json'}")
    else:
        opt.append("--convert-hl-to-hw")
    r = subprocess.run(list(map(str, opt)), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert ("chunk1." in r.stdout) == bool(lram)
    start = r.stdout.index("  npuhw.program")
    body = r.stdout[start:].rstrip()
    (tmp_path / "prog.mlir").write_text("module {\n" + body[:-1].rstrip() + "\n}\n")
    r = subprocess.run(list(map(str, [
        os.path.join(bin_dir, "strata-npu"), "package", tmp_path / "prog.mlir",
        "--constants", tmp_path / "w.npz", "--input", f"input=i16:{ti}",
        "--output", f"output=i8:{ti}", "-o", tmp_path / "m.strata"])),
        capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "out.npz", "--device", "npu-sim")
    got = np.load(tmp_path / "out.npz")["output"]
    assert got.tobytes() == ref.tobytes()


def test_standalone_top_table16(tmp_path):
    """A top.Table16 whose int16 input does not come from a convertible
    convolution (here the model's input) becomes a standalone hl.table16 on
    the NPU: npu-sim's bytes are run-ref's and the numpy table's."""
    rng = np.random.default_rng(1617)
    shape = (1, 5, 7, 9)
    xs = np.linspace(-3, 5, 513)
    table = np.clip(np.round(127 * 128 * np.tanh(xs) + rng.integers(-500, 500, 513)),
                    -128 * 128, 127 * 128).astype(np.int16)
    ti = "x".join(map(str, shape))
    xt = f"tensor<{ti}x!quant.uniform<i16:f32, 0.001:-40>>"
    yt = f"tensor<{ti}x!quant.uniform<i8:f32, 0.02:3>>"
    entries = ", ".join(str(int(v)) for v in table)
    (tmp_path / "m.mlir").write_text(f"""module {{
  func.func @main(%x: {xt} {{top.name = "input"}}) -> ({yt} {{top.name = "output"}}) {{
    %y = top.Table16(%x) {{table = array<i16: {entries}>}} : ({xt}) -> {yt}
    return %y : {yt}
  }}
}}
""")
    x = rng.integers(-32768, 32768, shape).astype(np.int16)
    np.savez(tmp_path / "in.npz", input=x)
    strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "ref.npz")
    want = np.load(tmp_path / "ref.npz")["output"]
    assert want.tobytes() == table16_numpy(table, x).tobytes()
    report = strata("compile", tmp_path / "m.mlir", "--target", "npu-sim", "--no-optimize",
                    "-o", tmp_path / "m.strata", "--report", "--explain-strategy").stdout
    assert re.search(r"^top\.Table16 '[^']*': hl\.table16$", report, re.M), report
    assert "1 npu-sim dispatch(es), 0 CPU dispatch(es)" in report, report
    strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "out.npz", "--device", "npu-sim")
    got = np.load(tmp_path / "out.npz")["output"]
    assert got.tobytes() == want.tobytes()


def test_npu_without_the_interpolated_table(tmp_path):
    """An NPU description with `lut16_entries` 0 keeps the conv and its
    top.Table16 on the CPU (same bytes); a value other than 0 or 513 is a
    clear error naming the field, nothing written."""
    rng = np.random.default_rng(1618)
    text, weights, x, _ = top_model(rng, depthwise=False, big=False)
    (tmp_path / "m.mlir").write_text(text)
    np.savez(tmp_path / "w.npz", **weights)
    np.savez(tmp_path / "in.npz", input=x)
    (tmp_path / "none.json").write_text('{"lut16_entries": 0}')
    (tmp_path / "bad.json").write_text('{"lut16_entries": 7}')
    report = strata("compile", tmp_path / "m.mlir", "--target", "npu-sim", "--no-optimize",
                    "--npu-config", tmp_path / "none.json", "-o", tmp_path / "m.strata",
                    "--report").stdout
    assert "0 npu-sim dispatch(es)" in report, report
    strata("run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "out.npz", "--device", "npu-sim")
    strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
           "--output", tmp_path / "ref.npz")
    assert (np.load(tmp_path / "out.npz")["output"].tobytes()
            == np.load(tmp_path / "ref.npz")["output"].tobytes())
    r = strata("compile", tmp_path / "m.mlir", "--target", "npu-sim", "--no-optimize",
               "--npu-config", tmp_path / "bad.json", "-o", tmp_path / "bad.strata", ok=False)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "field 'lut16_entries' is 7, expected 513" in r.stderr, r.stderr
    assert not (tmp_path / "bad.strata").exists()
