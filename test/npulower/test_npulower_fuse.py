"""Multi-op NPU dispatches (`--convert-hl-to-hw=fuse-dispatches=true`,
docs/npu.md "Multi-op dispatches"), bit-exact: a random int8 hl.conv2d whose
only user is an hl.add (the conv as lhs or rhs of the add) is lowered to one
program that computes the add per output tile in LRAM; the program is
packaged into an npu-sim artifact (`strata-npu package`; its bindings: the
conv's input, weights and scale_bias, the residual, the add's result), run
with `strata run --device npu-sim` and compared byte for byte with the
reference interpreter (`strata run-ref` on the HL module: conv, then add).
Untiled, tiled (a 4 KiB LRAM: row, channel and reduction tiles), single-
and double-buffered; the simulator refuses a program with a race."""
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
OPT = os.path.join(BIN, "strata-opt")
NPU = os.path.join(BIN, "strata-npu")
B = 4  # the default weight_channel_block


def run(*args):
    return subprocess.run(list(map(str, args)), capture_output=True, text=True,
                          timeout=300)


def save(path, arrays):
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(a))
            z.writestr(name + ".npy", buf.getvalue())


def ref_and_listing(tmp_path, opts, mode, lram):
    """run-ref on tmp_path/hl.mlir (weights w.npz, input in.npz), then
    convert-hl-to-hw with `opts`, an LRAM of `lram` bytes unless `mode` is
    "untiled", double-buffered for "tiled-db": (the reference output, the
    listing)."""
    r = run(STRATA, "run-ref", tmp_path / "hl.mlir", "--weights", tmp_path / "w.npz",
            "--input", tmp_path / "in.npz", "--output", tmp_path / "ref.npz")
    assert r.returncode == 0, r.stderr
    ref = np.load(tmp_path / "ref.npz")["output"]
    opts = list(opts)
    if mode != "untiled":
        (tmp_path / "npu.json").write_text(json.dumps({"lram_bytes": lram}))
        opts.append(f"npu-config={tmp_path / 'npu.json'}")
    if mode == "tiled-db":
        opts.append("double-buffer=true")
    r = run(OPT, tmp_path / "hl.mlir", "--convert-hl-to-hw=" + " ".join(opts))
    assert r.returncode == 0, r.stderr
    return ref, r.stdout


def run_packaged(tmp_path, listing, inputs, output):
    """Packages the listing's one program (`strata-npu package`, constants
    w.npz), runs it on npu-sim with in.npz: the output array."""
    start = listing.index("  npuhw.program")
    body = listing[start:].rstrip()
    (tmp_path / "prog.mlir").write_text("module {\n" + body[:-1].rstrip() + "\n}\n")
    args = [a for i in inputs for a in ("--input", i)]
    r = run(NPU, "package", tmp_path / "prog.mlir", "--constants", tmp_path / "w.npz",
            *args, "--output", output, "-o", tmp_path / "m.strata")
    assert r.returncode == 0, r.stderr
    r = run(STRATA, "run", tmp_path / "m.strata", "--input", tmp_path / "in.npz",
            "--output", tmp_path / "out.npz", "--device", "npu-sim")
    assert r.returncode == 0, r.stderr
    return np.load(tmp_path / "out.npz")["output"]


def dims(shape):
    return "x".join(str(d) for d in shape)


def case(rng, big):
    """A conv (1x1 or 3x3, stride 1, pad keeping the size) and its add."""
    m = 3 if big else 1
    c, o = int(rng.integers(1, 12 * m)), int(rng.integers(1, 12 * m))
    k = int(rng.choice([1, 3]))
    h, w = int(rng.integers(2, 14 * m)), int(rng.integers(2, 14 * m))
    p = k // 2
    ob = (o + B - 1) // B
    wt = np.zeros((ob * B, c, k, k), np.int8)
    wt[:o] = rng.integers(-128, 128, (o, c, k, k))
    packed = np.ascontiguousarray(np.moveaxis(wt.reshape(ob, B, c, k, k), 1, -1))
    sb = np.stack([rng.integers(-5000, 5000, o), rng.integers(1 << 29, 1 << 31, o),
                   rng.integers(36, 42, o)], axis=1).astype(np.int32)
    izp, ozp = (int(v) for v in rng.integers(-20, 20, 2))
    conv_lhs = bool(rng.integers(0, 2))
    add = dict(left_shift=20, lhs_zp=int(rng.integers(-10, 10)),
               rhs_zp=int(rng.integers(-10, 10)), output_zp=int(rng.integers(-10, 10)),
               lhs_multiplier=int(rng.integers(1 << 29, 1 << 30)), lhs_shift=31,
               rhs_multiplier=int(rng.integers(1 << 29, 1 << 30)), rhs_shift=31,
               output_multiplier=int(rng.integers(1 << 29, 1 << 31)),
               output_shift=int(rng.integers(48, 51)), clip_min=-120, clip_max=127)
    xt, yt = f"tensor<1x{c}x{h}x{w}xi8>", f"tensor<1x{o}x{h}x{w}xi8>"
    wty, sbty = f"tensor<{dims(packed.shape)}xi8>", f"tensor<{o}x3xi32>"
    text = ", ".join(f"{a} = {v} : i64" for a, v in sorted(add.items()))
    operands = "%y, %r" if conv_lhs else "%r, %y"
    mlir = f"""module {{
  func.func @main(%x: {xt} {{top.name = "input"}}, %r: {yt} {{top.name = "residual"}}) -> ({yt} {{top.name = "output"}}) {{
    %w = top.Weight() {{name = "w"}} : () -> {wty}
    %sb = top.Weight() {{name = "sb"}} : () -> {sbty}
    %y = hl.conv2d(%x, %w, %sb) {{dilation = array<i64: 1, 1>, input_zp = {izp} : i64, output_zp = {ozp} : i64, pad = array<i64: {p}, {p}, {p}, {p}>, stride = array<i64: 1, 1>}} : ({xt}, {wty}, {sbty}) -> {yt}
    %s = hl.add({operands}) {{{text}}} : ({yt}, {yt}) -> {yt}
    return %s : {yt}
  }}
}}
"""
    return mlir, packed, sb, (1, c, h, w), (1, o, h, w)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["untiled", "tiled", "tiled-db"])
def test_conv_add_one_dispatch(tmp_path, seed, mode):
    rng = np.random.default_rng(77 + seed)
    mlir, packed, sb, xs, ys = case(rng, big=mode != "untiled")
    (tmp_path / "hl.mlir").write_text(mlir)
    save(tmp_path / "w.npz", {"w": packed, "sb": sb})
    x = rng.integers(-128, 128, xs).astype(np.int8)
    r_in = rng.integers(-128, 128, ys).astype(np.int8)
    save(tmp_path / "in.npz", {"input": x, "residual": r_in})
    ref, listing = ref_and_listing(tmp_path, ["fuse-dispatches=true"], mode, 4096)
    # One program: the conv is outlined with its add, which holds it.
    assert "npu.dispatch_group" in listing
    check_one_program(tmp_path, listing, mode, xs, ys, ref)


def check_one_program(tmp_path, listing, mode, xs, ys, ref):
    """The listing holds one program (several tiles unless untiled) that,
    packaged with inputs `input` (shape xs) and `residual` (ys) and run on
    npu-sim, gives `ref`'s bytes."""
    assert listing.count("npuhw.program @") == 1, listing
    assert 'kernel = "add"' in listing
    if mode != "untiled":
        assert "tile1." in listing, listing  # several tiles
    got = run_packaged(tmp_path, listing, [f"input=i8:{dims(xs)}",
                                           f"residual=i8:{dims(ys)}"],
                       f"output=i8:{dims(ys)}")
    assert got.tobytes() == ref.tobytes(), np.argwhere(got != ref)[:5]
    # Not all one value: the test can tell a wrong result apart.
    assert len(np.unique(ref)) > 10
