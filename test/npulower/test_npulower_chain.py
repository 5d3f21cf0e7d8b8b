"""conv -> conv NPU dispatches with next-layer weight prefetch
(`--convert-hl-to-hw=prefetch-weights=true`, docs/npu.md "Multi-op
dispatches"), bit-exact: two random int8 hl.conv2d, the second reading the
first's result only, are lowered to one program (the first keeps its whole
output in LRAM, the second reads it there, the second's first weight loads
are placed inside the first's schedule); the program is packaged into an
npu-sim artifact (`strata-npu package`; bindings: the input, both layers'
weights and scale_bias, the result), run with `strata run --device npu-sim`
and compared byte for byte with the reference interpreter (`strata run-ref`
on the HL module). Untiled, tiled (an 8 KiB LRAM) and double-buffered; the
simulator refuses a program with a race, so a prefetch that overlaps the
first layer's buffers would fail here."""
import numpy as np
import pytest

from test_npulower_fuse import (B, OPT, STRATA, dims, ref_and_listing, run,  # noqa: E402
                                run_packaged, save)


def layer(rng, c, o, k, tag, spread):
    """Packed weights and scale_bias rows; the shift keeps the output's
    spread near 40 for an input of spread `spread` (no saturation)."""
    shift = int(30 + np.log2(np.sqrt(c * k * k) * spread * 74 / 40))
    ob = (o + B - 1) // B
    wt = np.zeros((ob * B, c, k, k), np.int8)
    wt[:o] = rng.integers(-128, 128, (o, c, k, k))
    packed = np.ascontiguousarray(np.moveaxis(wt.reshape(ob, B, c, k, k), 1, -1))
    sb = np.stack([rng.integers(-5000, 5000, o), rng.integers(1 << 29, 1 << 31, o),
                   np.full(o, shift)], axis=1).astype(np.int32)
    return {f"w{tag}": packed, f"sb{tag}": sb}


def case(rng, big):
    m = 2 if big else 1
    c, mid, o = (int(v) for v in rng.integers(1, 10 * m, 3))
    k1, k2 = (int(v) for v in rng.choice([1, 3], 2))
    s2 = int(rng.choice([1, 2]))
    h, w = (int(v) for v in rng.integers(3, 10 * m, 2))
    p1, p2 = k1 // 2, k2 // 2
    oh, ow = (h + 2 * p2 - k2) // s2 + 1, (w + 2 * p2 - k2) // s2 + 1
    weights = {**layer(rng, c, mid, k1, 1, 74), **layer(rng, mid, o, k2, 2, 40)}
    z = [int(v) for v in rng.integers(-20, 20, 3)]
    xt, yt, zt = (f"tensor<1x{c}x{h}x{w}xi8>", f"tensor<1x{mid}x{h}x{w}xi8>",
                  f"tensor<1x{o}x{oh}x{ow}xi8>")
    ty = {n: f"tensor<{dims(a.shape)}x{'i8' if n[0] == 'w' else 'i32'}>"
          for n, a in weights.items()}
    mlir = f"""module {{
  func.func @main(%x: {xt} {{top.name = "input"}}) -> ({zt} {{top.name = "output"}}) {{
    %w1 = top.Weight() {{name = "w1"}} : () -> {ty['w1']}
    %sb1 = top.Weight() {{name = "sb1"}} : () -> {ty['sb1']}
    %w2 = top.Weight() {{name = "w2"}} : () -> {ty['w2']}
    %sb2 = top.Weight() {{name = "sb2"}} : () -> {ty['sb2']}
    %y = hl.conv2d(%x, %w1, %sb1) {{dilation = array<i64: 1, 1>, input_zp = {z[0]} : i64, output_zp = {z[1]} : i64, pad = array<i64: {p1}, {p1}, {p1}, {p1}>, stride = array<i64: 1, 1>}} : ({xt}, {ty['w1']}, {ty['sb1']}) -> {yt}
    %z = hl.conv2d(%y, %w2, %sb2) {{dilation = array<i64: 1, 1>, input_zp = {z[1]} : i64, output_zp = {z[2]} : i64, pad = array<i64: {p2}, {p2}, {p2}, {p2}>, stride = array<i64: {s2}, {s2}>}} : ({yt}, {ty['w2']}, {ty['sb2']}) -> {zt}
    return %z : {zt}
  }}
}}
"""
    return mlir, weights, (1, c, h, w), (1, o, oh, ow)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["untiled", "tiled", "tiled-db"])
def test_conv_conv_one_dispatch(tmp_path, seed, mode):
    rng = np.random.default_rng(31 + seed)
    mlir, weights, xs, zs = case(rng, big=mode != "untiled")
    (tmp_path / "hl.mlir").write_text(mlir)
    save(tmp_path / "w.npz", weights)
    x = rng.integers(-128, 128, xs).astype(np.int8)
    save(tmp_path / "in.npz", {"input": x})
    ref, listing = ref_and_listing(tmp_path, ["prefetch-weights=true"], mode, 8192)
    # One program: the first conv is outlined with the second, which holds
    # it; the intermediate is never stored (one store binding: 5).
    assert "npu.dispatch_group" in listing, listing
    assert listing.count("npuhw.program @") == 1
    assert "binding = 5" in listing and "dma_store {binding = 3" not in listing
    got = run_packaged(tmp_path, listing, [f"input=i8:{dims(xs)}"], f"output=i8:{dims(zs)}")
    assert got.tobytes() == ref.tobytes(), np.argwhere(got != ref)[:5]
    assert len(np.unique(ref)) > 3 or ref.size < 8


def test_prefetch_inside_first_layer(tmp_path):
    """The second layer's weights load in the first layer's segment, after
    its slice tasks start (they overlap its compute), into LRAM the first
    layer never touches (the simulator's race check would refuse it)."""
    rng = np.random.default_rng(5)
    mlir, weights, xs, zs = case(rng, big=False)
    (tmp_path / "hl.mlir").write_text(mlir)
    r = run(OPT, tmp_path / "hl.mlir", "--convert-hl-to-hw=prefetch-weights=true")
    assert r.returncode == 0, r.stderr
    first = r.stdout.split("npuhw.segment")[1]
    assert 'kernel = "conv2d"' in first
    assert first.index("dma_load {binding = 3") > first.index('kernel = "conv2d"')
    # Off: two programs, the intermediate stored and loaded.
    r = run(OPT, tmp_path / "hl.mlir", "--convert-hl-to-hw")
    assert r.stdout.count("npuhw.program @") == 2


def with_tables(rng, mlir, weights, mid, o, producer, consumer, per_channel):
    """The case with an hl.table after the first conv (`producer`) and / or
    the second (`consumer`): random entries, one per channel or one."""
    lines = mlir.splitlines(keepends=True)
    out = []
    for line in lines:
        if "%z = hl.conv2d(%y," in line and producer:
            line = line.replace("%z = hl.conv2d(%y,", "%z = hl.conv2d(%ya,")
        if line.strip().startswith("return %z") and consumer:
            line = line.replace("return %z", "return %za")
        out.append(line)
        for tag, on, src, rows in (("1", producer, "%y", mid), ("2", consumer, "%z", o)):
            if on and line.strip().startswith(f"{src} = hl.conv2d"):
                shape = (rows, 256) if per_channel else (256,)
                tt = f"tensor<{dims(shape)}xi8>"
                rt = line.rsplit("-> ", 1)[1].strip()
                out.append(f'    %t{tag} = top.Weight() {{name = "t{tag}"}} : () -> {tt}\n')
                out.append(f"    {src}a = hl.table({src}, %t{tag}) {{lut_entries = 256 : i64}}"
                           f" : ({rt}, {tt}) -> {rt}\n")
                weights[f"t{tag}"] = rng.integers(-128, 128, shape).astype(np.int8)
    return "".join(out)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["untiled", "tiled", "tiled-db"])
def test_conv_table_chain(tmp_path, seed, mode):
    """conv (+ table) -> conv (+ table) chains (`prefetch-weights=true
    fold-tables=true`): the first conv's folded table applied before its
    output stays in LRAM, the second conv's applied before its store; one
    program whose bindings are the input, the first conv's weights,
    scale_bias and table, the second's, the result. Bit-exact against
    run-ref (seeds: a table after the first, the second, both, both per
    channel)."""
    rng = np.random.default_rng(61 + seed)
    mlir, weights, xs, zs = case(rng, big=mode != "untiled")
    mid = weights["sb1"].shape[0]
    producer, consumer = [(True, False), (False, True), (True, True), (True, True)][seed]
    mlir = with_tables(rng, mlir, weights, mid, zs[1], producer, consumer, seed == 3)
    (tmp_path / "hl.mlir").write_text(mlir)
    save(tmp_path / "w.npz", weights)
    x = rng.integers(-128, 128, xs).astype(np.int8)
    save(tmp_path / "in.npz", {"input": x})
    ref, listing = ref_and_listing(tmp_path, ["prefetch-weights=true", "fold-tables=true"],
                                   mode, 8192)
    assert listing.count("npuhw.program @") == 1, listing
    assert listing.count("npu.dispatch_group") == 1 + producer + consumer, listing
    assert listing.count("lut = ") >= producer + consumer, listing
    assert 'kernel = "table"' not in listing
    got = run_packaged(tmp_path, listing, [f"input=i8:{dims(xs)}"], f"output=i8:{dims(zs)}")
    assert got.tobytes() == ref.tobytes(), np.argwhere(got != ref)[:5]
    assert len(np.unique(ref)) > 3 or ref.size < 8
    if mode == "untiled":
        # Through strata compile: the outliner follows the marks to one
        # dispatch, the npu-sim hook binds its outside values once each
        # (strided as in the HL module: no segmentation).
        (tmp_path / "hl.mlir").write_text(
            mlir.replace("module {", 'module attributes {top.weight_file = "w.npz"} {', 1))
        r = run(STRATA, "compile", tmp_path / "hl.mlir", "--target", "npu-sim",
                "--no-optimize", "--no-segmentation", "-o", tmp_path / "m.strata",
                "--report")
        assert r.returncode == 0, r.stderr
        assert "1 npu-sim dispatch(es), 0 CPU dispatch(es)" in r.stdout + r.stderr
        r = run(STRATA, "run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
                "--output", tmp_path / "out.npz", "--device", "npu-sim")
        assert r.returncode == 0, r.stderr
        got = np.load(tmp_path / "out.npz")["output"]
        assert got.tobytes() == ref.tobytes(), np.argwhere(got != ref)[:5]
