"""hl.convert (int8 <-> bf16, the `convert` task) and hl.depth_to_space (DMA
only: each channel group stored interleaved by DRAM strides) on npu-sim,
bit-exact against the reference interpreter (`strata run-ref` on the one-op
HL module), on random shapes, untiled and in a small LRAM (4 KiB: several
chunks), docs/npu.md "HL -> HW". Bad input: an f32 convert is refused by
name."""
import subprocess

import numpy as np
import pytest

from test_npulower_pools_segmented import (SMALL, STRATA, check, save_npz, ty,  # noqa: E402
                                           write_one_op)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("direction", ["i8-bf16", "bf16-i8"])
def test_convert_matches_run_ref(tmp_path, seed, direction):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(900 + seed + 10 * len(direction))
    shape = tuple(int(v) for v in rng.integers(1, 40, int(rng.integers(1, 5))))
    zp = int(rng.integers(-20, 20))
    scale = float(rng.uniform(0.001, 0.2))
    if direction == "i8-bf16":
        x = rng.integers(-128, 128, shape).astype(np.int8)
        t1, t2 = ty(shape), ty(shape, "bf16")
    else:
        # Values around the int8 grid, ties included, and beyond the clip.
        q = rng.integers(-160, 160, shape) + rng.choice([0, 0.5, 0.3], shape)
        x = ((q - zp) * scale).astype(np.float32).astype(ml_dtypes.bfloat16)
        t1, t2 = ty(shape, "bf16"), ty(shape)
    write_one_op(tmp_path / "hl.mlir", f"hl.convert(%x) {{scale = {scale!r} : f64, "
                 f"zp = {zp} : i64}}", t1, t2)
    save_npz(tmp_path / "in.npz", {"input": x})
    listing, _ = check(tmp_path, [([], None, True), ([], SMALL, False)])
    assert 'kernel = "convert"' in listing


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize("elem", ["i8", "bf16"])
def test_depth_to_space_matches_run_ref(tmp_path, seed, mode, elem):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(950 + seed + 7 * len(mode) + len(elem))
    b = int(rng.integers(2, 4))
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 6))
    h, w = (int(v) for v in rng.integers(1, 30, 2))
    shape, out = (n, c * b * b, h, w), (n, c, h * b, w * b)
    if elem == "i8":
        x = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        x = rng.standard_normal(shape).astype(np.float32).astype(ml_dtypes.bfloat16)
    write_one_op(tmp_path / "hl.mlir", f'hl.depth_to_space(%x) {{block = {b} : i64, '
                 f'mode = "{mode}"}}', ty(shape, elem), ty(out, elem))
    save_npz(tmp_path / "in.npz", {"input": x})
    listing, tiled = check(tmp_path, [([], None, True), ([], SMALL, True)])
    assert "npuhw.slice_task" not in listing  # DMA only
    if x.nbytes > 4096:
        assert tiled.count('name = "input"') > b * b, "expected several chunks"


def test_f32_convert_refused(tmp_path):
    write_one_op(tmp_path / "hl.mlir", "hl.convert(%x) {scale = 0.5 : f64, zp = 0 : i64}",
                 ty((4,)), ty((4,), "f32"))
    r = subprocess.run([STRATA, "compile", tmp_path / "hl.mlir", "--target", "npu-sim",
                        "--no-optimize", "-o", tmp_path / "m.strata"],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "hl.convert" in r.stderr and "int8 <-> bf16" in r.stderr, r.stderr
