"""Per-channel activation tables on npu-sim, bit-exact (docs/npu.md, "Multi-op
dispatches"): a hand-written int8 Top model in the form `strata quantize`
writes for a convolution with a fused activation whose pre-activation is
quantized per channel -- conv (i32) -> top.Requant to a per-axis (dim 1)
int8 type -> top.Dequant -> HardSwish / Sigmoid / SiLU -> top.Quant
(per-tensor) -- with random shapes (odd channel counts, 1x1 / 3x3,
depthwise, stride 1 and 2), per-channel multipliers, shifts, scales and
zero points (one seed keeps today's per-tensor pre-activation: one table).
It is compiled with `strata compile --target npu-sim` (the conv becomes an
hl.conv2d with per-channel output zero points, the activation a
per-channel hl.table), folded into the conv's dispatch (the default,
--npu-fold-tables) and not, and run with `strata run --device npu-sim`; the
output must equal, byte for byte, `strata run-ref` on the Top model (the
Top interpreter, the reference of the CPU int8 path), untiled and tiled (a
4 KiB LRAM: row and channel tiles, chunks of the table's planes), single-
and double-buffered."""
import os
import re
import sys

import numpy as np
import pytest

# The binary path and subprocess wrapper of the compiled tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "compiled"))
from cpu_isa_harness import strata as run_strata  # noqa: E402


def strata(*args):
    r = run_strata(*args)
    assert r.returncode == 0, " ".join(map(str, args)) + "\n" + r.stdout + r.stderr
    return r.stdout


def top_model(rng, act, depthwise, big, per_axis=True, stride=1):
    """The Top text and its weights: x (per-tensor int8) -> conv -> per-axis
    (or per-tensor: today's form) Requant -> Dequant -> act -> Quant."""
    m = 3 if big else 1
    o = int(rng.integers(1, 10 * m)) | 1  # odd channel counts
    c = o if depthwise else int(rng.integers(1, 9 * m))
    k = int(rng.choice([1, 3]))
    lo = 2 if stride == 1 else 6
    h, w = int(rng.integers(lo, 13 * m)), int(rng.integers(lo, 13 * m))
    p = k // 2
    oh, ow = (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
    g = o if depthwise else 1
    wt = rng.integers(-128, 128, (o, c // g, k, k)).astype(np.int8)
    bias = rng.integers(-3000, 3000, o).astype(np.int32)
    mult = rng.integers(1 << 29, 1 << 31, o)
    # Pre-activations spread over the int8 range (acc's spread ~ 9500 *
    # sqrt(reduction), m ~ 2^30).
    spread = 9500 * np.sqrt((c // g) * k * k)
    shift = 30 + np.round(np.log2(spread / 40)).astype(int) + rng.integers(-1, 2, o)
    scales = rng.uniform(0.01, 0.2, o)
    zps = rng.integers(-30, 30, o)
    izp = int(rng.integers(-10, 10))
    pre = "!quant.uniform<i8:f32:1, {%s}>" % ", ".join(
        f"{s:.6f}:{z}" for s, z in zip(scales, zps))
    if not per_axis:
        pre = f"!quant.uniform<i8:f32, {scales[0]:.6f}:{zps[0]}>"
    out = "!quant.uniform<i8:f32, 0.03:-90>"
    xin = f"!quant.uniform<i8:f32, 0.05:{izp}>"
    xt, acct = f"tensor<1x{c}x{h}x{w}x{xin}>", f"tensor<1x{o}x{oh}x{ow}xi32>"
    pt, ft, yt = (f"tensor<1x{o}x{oh}x{ow}x{pre}>", f"tensor<1x{o}x{oh}x{ow}xf32>",
                  f"tensor<1x{o}x{oh}x{ow}x{out}>")
    arr = lambda v: "array<i64: %s>" % ", ".join(str(int(x)) for x in v)  # noqa: E731
    group = f", group = {g} : i64" if g > 1 else ""
    text = f"""module attributes {{top.weight_file = "w.npz"}} {{
  func.func @main(%x: {xt} {{top.name = "input"}}) -> ({yt} {{top.name = "output"}}) {{
    %w = top.Weight() {{name = "w"}} : () -> tensor<{o}x{c // g}x{k}x{k}xi8>
    %b = top.Weight() {{name = "b"}} : () -> tensor<{o}xi32>
    %acc = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: {k}, {k}>, pads = array<i64: {p}, {p}, {p}, {p}>, strides = array<i64: {stride}, {stride}>, input_zp = array<i64: {izp}>{group}}} : ({xt}, tensor<{o}x{c // g}x{k}x{k}xi8>, tensor<{o}xi32>) -> {acct}
    %pre = top.Requant(%acc) {{multiplier = {arr(mult)}, rshift = {arr(shift)}, axis = 1 : i64}} : ({acct}) -> {pt}
    %d = top.Dequant(%pre) : ({pt}) -> {ft}
    %a = top.{act}(%d) : ({ft}) -> {ft}
    %y = top.Quant(%a) : ({ft}) -> {yt}
    return %y : {yt}
  }}
}}
"""
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    return text, {"w": wt, "b": bias}, x


def compile_and_compare(d, text, weights, x, flags):
    d.mkdir()
    (d / "m.mlir").write_text(text)
    np.savez(d / "w.npz", **weights)
    np.savez(d / "in.npz", input=x)
    strata("run-ref", d / "m.mlir", "--input", d / "in.npz", "--output", d / "ref.npz")
    want = np.load(d / "ref.npz")["output"]
    report = strata("compile", d / "m.mlir", "--target", "npu-sim", "--no-optimize",
                    *flags, "-o", d / "m.strata", "--report")
    profile = strata("run", d / "m.strata", "--input", d / "in.npz", "--output",
                     d / "out.npz", "--device", "npu-sim")
    got = np.load(d / "out.npz")["output"]
    assert len(np.unique(want)) > min(8, want.size // 3), "the test's values are too uniform"
    assert got.tobytes() == want.tobytes(), (flags, np.argwhere(got != want)[:5])
    return report, profile


MODES = {"untiled": [], "tiled": ["small"], "tiled-db": ["small", "--npu-double-buffer"]}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("mode", sorted(MODES))
def test_conv_channel_table(tmp_path, seed, mode):
    """Folded into the conv's dispatch (the default, --npu-fold-tables: the
    activation unit looks each result up in its channel's table) and not
    (--npu-fold-tables=false: the table a dispatch of its own)."""
    rng = np.random.default_rng(140 + seed)
    act = ["HardSwish", "Sigmoid", "SiLU", "HardSwish", "SiLU", "Sigmoid"][seed]
    # Seed 3: a per-tensor pre-activation (one table), today's form. Seeds
    # 4, 5: stride 2 (the conv reads the segmented input, an hl.segmentation
    # dispatch before it).
    stride = 2 if seed >= 4 else 1
    text, weights, x = top_model(rng, act, depthwise=seed % 2 == 1,
                                 big=mode != "untiled", per_axis=seed != 3,
                                 stride=stride)
    (tmp_path / "small.json").write_text('{"lram_bytes": 4096}')
    flags = []
    for f in MODES[mode]:
        flags += ["--npu-config", tmp_path / "small.json"] if f == "small" else [f]
    for fold in (True, False):
        d = tmp_path / f"fold{int(fold)}"
        extra = [] if fold else ["--npu-fold-tables=false"]
        report, profile = compile_and_compare(d, text, weights, x, flags + extra)
        # Everything on the NPU: the conv and the table, in one dispatch or
        # two.
        n = (1 if fold else 2) + (stride > 1)
        assert f"{n} npu-sim dispatch(es), 0 CPU dispatch(es)" in report, report
        assert len(re.findall(r"npu-sim dispatch \d+ ", profile)) == n, profile
