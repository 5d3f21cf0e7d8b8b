"""bench/range_search.py (docs/quantization.md "A per-tensor range search"):
the greedy per-tensor choice of calibration rows by the output cosine.

A conv -> HardSwish -> conv model is calibrated (minmax); a "clipped" base
table has every tensor row's range shrunk 20-fold (heavy clipping), the
alternative is the calibrated table. The search must put back rows from
the alternative, write a table whose every line is the base's or the
alternative's line for that tensor (the `@` rows the base's), and the int8
model compiled with it must have a higher cosine against f32 than the
base's on the search inputs, computed here with numpy on `strata run`
outputs (independent of the script's own scoring)."""
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("onnx")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_int8_kernels import build, samples  # noqa: E402
from quant_harness import BIN, ROOT, ok, strata  # noqa: E402



def shrink(line, f):
    name, t, lo, hi = line.split()
    return f"{name} {float(t) / f:.9g} {float(lo) / f:.9g} {float(hi) / f:.9g}"


def cosines(tmp_path, model, table, inputs):
    ok(strata("compile", model, "--target", "cpu", "-o", tmp_path / "f.strata"))
    ok(strata("compile", model, "--target", "cpu", "--quantize", "int8", "--calibration", table,
              "-o", tmp_path / "q.strata"))
    out = []
    for p in inputs:
        r = {}
        for k in ("f", "q"):
            ok(strata("run", tmp_path / f"{k}.strata", "--input", p, "--output",
                      tmp_path / f"{k}.npz"))
            with np.load(tmp_path / f"{k}.npz") as z:
                r[k] = z[z.files[0]].ravel().astype(np.float64)
        out.append(r["f"] @ r["q"] / (np.linalg.norm(r["f"]) * np.linalg.norm(r["q"])))
    return np.array(out)


def test_range_search_restores_clipped_rows(tmp_path):
    in_shape = [1, 3, 10, 10]
    model = tmp_path / "m.onnx"
    build(model, in_shape, [("conv", 6, 3, 1, 1, 1, 1), ("hardswish",),
                            ("conv", 4, 3, 1, 1, 1, 1)], np.random.default_rng(5))
    cal = samples(tmp_path / "cal", in_shape, 2, seed=1)
    good = tmp_path / "good.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", good))
    lines = open(good).read().splitlines()
    tensor = [i for i, ln in enumerate(lines)
              if ln and not ln.startswith("#") and not ln.startswith("@")]
    assert len(tensor) >= 3, lines
    bad_lines = list(lines)
    for i in tensor:
        bad_lines[i] = shrink(lines[i], 20)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(bad_lines) + "\n")
    out = tmp_path / "searched.txt"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "range_search.py"), model,
                        "--base", bad, "--alt", good, "--data", cal[0], "--data", cal[1],
                        "-o", out, "--work", tmp_path / "work", "--bin", BIN],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = out.read_text().splitlines()
    assert len(got) == len(lines)
    replaced = 0
    for i, ln in enumerate(got):
        if i in tensor:
            assert ln in (lines[i], bad_lines[i]), ln
            replaced += ln == lines[i] and ln != bad_lines[i]
        else:
            assert ln == bad_lines[i], ln
    assert replaced >= 1, r.stderr
    before = cosines(tmp_path, model, bad, cal)
    after = cosines(tmp_path, model, out, cal)
    assert after.mean() > before.mean() + 1e-3, (before, after)


def test_range_search_rejects_a_missing_table(tmp_path):
    (tmp_path / "m.onnx").write_bytes(b"")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "range_search.py"),
                        tmp_path / "m.onnx", "--base", tmp_path / "none.txt", "--alt",
                        tmp_path / "none.txt", "--data", tmp_path / "x.npz", "-o",
                        tmp_path / "o.txt", "--bin", BIN],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "table" in r.stderr and "none.txt' does not exist" in r.stderr, r.stderr
