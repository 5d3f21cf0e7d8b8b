"""Conv + residual add + table in one NPU dispatch (`--convert-hl-to-hw=
fuse-dispatches=true fold-tables=true`, docs/npu.md "Multi-op dispatches"),
bit-exact: a random int8 hl.conv2d whose only user is an hl.add (the conv as
lhs or rhs) whose only user is an hl.table (one table or one per channel,
random entries) is lowered to one program: per output tile the conv, the
add over the residual in LRAM, then a table task looking the sum up in
place, before the store. The program is packaged (`strata-npu package`;
bindings: the conv's input, weights and scale_bias, the residual, the
table, the table's result), run with `strata run --device npu-sim` and
compared byte for byte with the reference interpreter (`strata run-ref` on
the HL module: conv, add, table). Untiled, tiled (a small LRAM: row and
channel tiles, each channel tile loading its table rows) single- and
double-buffered. When the three do not fit LRAM together the conv and add
keep their dispatch and the table gets its own (checked on the listing).
An int8 elementwise op (add, sub, mul, min, max, activation) whose only
user is a one-table hl.table: one program, the op's chunks each looked up
in place (`fold-tables=true`), bit-exact the same way."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_npulower_fuse import (OPT, STRATA, case, check_one_program, dims,  # noqa: E402
                                ref_and_listing, run, run_packaged, save)


def with_table(mlir, o, yt, per_channel):
    """The case's module with an hl.table after the add (weight "t")."""
    tt = f"tensor<{o}x256xi8>" if per_channel else "tensor<256xi8>"
    table = (f'    %t = top.Weight() {{name = "t"}} : () -> {tt}\n'
             f"    %o = hl.table(%s, %t) {{lut_entries = 256 : i64}} : ({yt}, {tt}) -> {yt}\n"
             f"    return %o : {yt}\n")
    old = f"    return %s : {yt}\n"
    assert old in mlir
    return mlir.replace(old, table)


def build(tmp_path, seed, big, per_channel):
    rng = np.random.default_rng(300 + seed)
    mlir, packed, sb, xs, ys = case(rng, big=big)
    o = ys[1]
    yt = f"tensor<{dims(ys)}xi8>"
    (tmp_path / "hl.mlir").write_text(with_table(mlir, o, yt, per_channel))
    t = rng.integers(-128, 128, (o, 256) if per_channel else (256,)).astype(np.int8)
    save(tmp_path / "w.npz", {"w": packed, "sb": sb, "t": t})
    x = rng.integers(-128, 128, xs).astype(np.int8)
    r_in = rng.integers(-128, 128, ys).astype(np.int8)
    save(tmp_path / "in.npz", {"input": x, "residual": r_in})
    return xs, ys


OPTS = ["fuse-dispatches=true", "fold-tables=true"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["untiled", "tiled", "tiled-db"])
def test_conv_add_table_one_dispatch(tmp_path, seed, mode):
    per_channel = seed != 1  # seed 1: one table
    xs, ys = build(tmp_path, seed, mode != "untiled", per_channel)
    ref, listing = ref_and_listing(tmp_path, OPTS, mode, 6144)
    # One program: the conv and the add outlined with the table, which
    # holds it; per piece the conv, the add, the table task in place.
    assert listing.count("npu.dispatch_group") == 2, listing
    assert 'kernel = "table"' in listing
    assert listing.count('kernel = "add"') == listing.count('kernel = "table"')
    check_one_program(tmp_path, listing, mode, xs, ys, ref)


def test_conv_add_table_does_not_fit(tmp_path):
    """A 4 KiB LRAM where the conv and its add fit (a 1x1 conv 1 -> 4 over
    rows of 400: one row tile is 400 input bytes, 2 x 1600 output and
    residual bytes) but not with the tile's four table rows (1024 bytes):
    the conv and the add keep their dispatch, the table gets its own."""
    yt, xt = "tensor<1x4x2x400xi8>", "tensor<1x1x2x400xi8>"
    add = ("lhs_multiplier = 1073741824 : i64, lhs_shift = 31 : i64, lhs_zp = 0 : i64, "
           "rhs_multiplier = 1073741824 : i64, rhs_shift = 31 : i64, rhs_zp = 0 : i64, "
           "left_shift = 20 : i64, output_multiplier = 1073741824 : i64, "
           "output_shift = 50 : i64, output_zp = 0 : i64")
    mlir = f"""module {{
  func.func @main(%x: {xt}, %r: {yt}) -> {yt} {{
    %w = top.Weight() {{name = "w"}} : () -> tensor<1x1x1x1x4xi8>
    %sb = top.Weight() {{name = "sb"}} : () -> tensor<4x3xi32>
    %t = top.Weight() {{name = "t"}} : () -> tensor<4x256xi8>
    %y = hl.conv2d(%x, %w, %sb) {{dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : ({xt}, tensor<1x1x1x1x4xi8>, tensor<4x3xi32>) -> {yt}
    %s = hl.add(%y, %r) {{{add}}} : ({yt}, {yt}) -> {yt}
    %o = hl.table(%s, %t) {{lut_entries = 256 : i64}} : ({yt}, tensor<4x256xi8>) -> {yt}
    return %o : {yt}
  }}
}}
"""
    (tmp_path / "hl.mlir").write_text(mlir)
    (tmp_path / "npu.json").write_text('{"lram_bytes": 4096}')
    listings = {}
    for fold in ("true", "false"):
        r = run(OPT, tmp_path / "hl.mlir", "--convert-hl-to-hw=fuse-dispatches=true "
                f"fold-tables={fold} npu-config={tmp_path / 'npu.json'}")
        assert r.returncode == 0, r.stderr
        listings[fold] = r.stdout
    # The same two programs folding or not: conv + add, then the table.
    for listing in listings.values():
        assert listing.count("npuhw.program @") == 2, listing
        assert listing.count("npu.dispatch_group") == 1, listing
        assert 'kernel = "table"' in listing
    assert listings["true"] == listings["false"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("mode", ["untiled", "tiled"])
def test_elementwise_table_one_dispatch(tmp_path, seed, mode):
    """An int8 hl.add / sub / mul / min / max / activation whose only user
    is an hl.table of one 256-entry table: one program (`fold-tables=true`),
    each slice's piece looked up in place after the op, the table loaded
    once; chunks of a 4 KiB LRAM when tiled. Bit-exact against run-ref (op,
    then table)."""
    rng = np.random.default_rng(500 + seed)
    kind = ["add", "sub", "mul", "min", "max", "activation"][seed]
    # Tiled: at least 1600 elements, a 4 KiB LRAM holds chunks of ~1200.
    lo, hi = (4, 20) if mode == "tiled" else (1, 2)
    shape = (1, int(rng.integers(lo, 9)), int(rng.integers(hi, hi + 12)),
             int(rng.integers(hi, hi + 12)))
    st = f"tensor<{dims(shape)}xi8>"
    if kind == "activation":
        fields = dict(input_zp=int(rng.integers(-10, 10)),
                      multiplier=int(rng.integers(1 << 29, 1 << 31)),
                      shift=int(rng.integers(30, 32)), output_zp=int(rng.integers(-10, 10)),
                      clip_min=-100, clip_max=120)
        operands, types = "%x", st
    else:
        fields = dict(left_shift=20, lhs_zp=int(rng.integers(-10, 10)),
                      rhs_zp=int(rng.integers(-10, 10)),
                      output_zp=int(rng.integers(-10, 10)),
                      lhs_multiplier=int(rng.integers(1 << 29, 1 << 30)), lhs_shift=31,
                      rhs_multiplier=int(rng.integers(1 << 29, 1 << 30)), rhs_shift=31,
                      output_multiplier=int(rng.integers(1 << 29, 1 << 31)),
                      output_shift=int(rng.integers(48, 51)) if kind != "mul" else 38,
                      clip_min=-120, clip_max=127)
        operands, types = "%x, %r", f"{st}, {st}"
    text = ", ".join(f"{a} = {v} : i64" for a, v in sorted(fields.items()))
    second = f', %r: {st} {{top.name = "input2"}}' if kind != "activation" else ""
    (tmp_path / "hl.mlir").write_text(f"""module {{
  func.func @main(%x: {st} {{top.name = "input"}}{second}) -> ({st} {{top.name = "output"}}) {{
    %t = top.Weight() {{name = "t"}} : () -> tensor<256xi8>
    %s = hl.{kind}({operands}) {{{text}}} : ({types}) -> {st}
    %o = hl.table(%s, %t) {{lut_entries = 256 : i64}} : ({st}, tensor<256xi8>) -> {st}
    return %o : {st}
  }}
}}
""")
    save(tmp_path / "w.npz", {"t": rng.integers(-128, 128, 256).astype(np.int8)})
    inputs = {"input": rng.integers(-128, 128, shape).astype(np.int8)}
    if kind != "activation":
        inputs["input2"] = rng.integers(-128, 128, shape).astype(np.int8)
    save(tmp_path / "in.npz", inputs)
    ref, listing = ref_and_listing(tmp_path, ["fold-tables=true"], mode, 4096)
    assert listing.count("npu.dispatch_group") == 1, listing
    assert listing.count("npuhw.program @") == 1, listing
    assert listing.count('name = "table"') == 1, listing  # loaded once
    task = "rescale" if kind == "activation" else kind
    assert listing.count(f'kernel = "{task}"') == listing.count('kernel = "table"')
    if mode == "tiled":
        assert "chunk1." in listing, listing
    got = run_packaged(tmp_path, listing, [f"{n}=i8:{dims(shape)}" for n in inputs],
                       f"output=i8:{dims(shape)}")
    assert got.tobytes() == ref.tobytes(), np.argwhere(got != ref)[:5]
    assert len(np.unique(ref)) > 10


@pytest.mark.parametrize("seed", range(2))
def test_conv_add_table_compiled(tmp_path, seed):
    """Through `strata compile --target npu-sim` (the HL module as the
    model): the CPU back end's outliner puts the conv, the add and the table
    in one dispatch (it follows npu.dispatch_group from the conv to the
    add to the table), the npu-sim hook binds the group's outside values;
    folded and not (`--npu-fold-tables=false`: the table a dispatch of its
    own), the bytes of run-ref."""
    build(tmp_path, 10 + seed, seed == 1, seed == 0)
    text = (tmp_path / "hl.mlir").read_text()
    (tmp_path / "hl.mlir").write_text(
        text.replace("module {", 'module attributes {top.weight_file = "w.npz"} {', 1))
    r = run(STRATA, "run-ref", tmp_path / "hl.mlir", "--input", tmp_path / "in.npz",
            "--output", tmp_path / "ref.npz")
    assert r.returncode == 0, r.stderr
    ref = np.load(tmp_path / "ref.npz")["output"]
    for fold, n in (("true", 1), ("false", 2)):
        r = run(STRATA, "compile", tmp_path / "hl.mlir", "--target", "npu-sim",
                "--no-optimize", f"--npu-fold-tables={fold}", "-o", tmp_path / "m.strata",
                "--report")
        assert r.returncode == 0, r.stderr
        assert f"{n} npu-sim dispatch(es), 0 CPU dispatch(es)" in r.stdout + r.stderr
        r = run(STRATA, "run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
                "--output", tmp_path / "out.npz", "--device", "npu-sim")
        assert r.returncode == 0, r.stderr
        got = np.load(tmp_path / "out.npz")["output"]
        assert got.tobytes() == ref.tobytes(), (fold, np.argwhere(got != ref)[:5])
    assert len(np.unique(ref)) > 10
