"""`strata tune` and `strata compile --tuning-log`: the tuner writes one
valid record per timed candidate of each distinct workload (repeated ops
once), and the compiled artifact follows the lowest cost per workload
(--explain-strategy names the record); records of another machine are
ignored; the artifact still matches numpy (rtol 1e-4 / atol 1e-4)."""
import json
import re

import numpy as np

from test_cpu_kernels import conv_ref, dynamic_matmul_case, strata, ty, weight

FIELDS = {"workload", "target", "machine", "implementation", "config", "cost"}


def small_model(tmp_path):
    """Two 3x3 convs of one shape (one workload), a 1x1 conv and a MatMul."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 16, 10, 10)).astype(np.float32)
    w1 = rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2
    w2 = rng.standard_normal((16, 16, 3, 3)).astype(np.float32) * 0.2
    w3 = rng.standard_normal((8, 16, 1, 1)).astype(np.float32) * 0.2
    wm = rng.standard_normal((10, 6)).astype(np.float32)
    zero16 = np.zeros(16)
    y = np.maximum(conv_ref(x, w1, zero16, (1, 1), (1, 1, 1, 1), (1, 1), 1), 0)
    y = np.maximum(conv_ref(y, w2, zero16, (1, 1), (1, 1, 1, 1), (1, 1), 1), 0)
    y = conv_ref(y, w3, np.zeros(8), (1, 1), (0, 0, 0, 0), (1, 1), 1)
    y = y @ wm
    t16, t8 = "tensor<1x16x10x10xf32>", "tensor<1x8x10x10xf32>"
    conv3 = ("kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, "
             "pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1, "
             "do_relu = true")
    conv1 = ("kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, "
             "pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1")
    text = f"""
func.func @main(%x_arg: {t16} {{top.name = "x"}}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({t16}) -> {t16}
  %n = top.None() : () -> none
  {weight("w1", w1)}
  {weight("w2", w2)}
  {weight("w3", w3)}
  {weight("wm", wm)}
  %0 = top.Conv(%x, %w1, %n) {{{conv3}}} : ({t16}, {ty(w1)}, none) -> {t16}
  %1 = top.Conv(%0, %w2, %n) {{{conv3}}} : ({t16}, {ty(w2)}, none) -> {t16}
  %2 = top.Conv(%1, %w3, %n) {{{conv1}}} : ({t16}, {ty(w3)}, none) -> {t8}
  %3 = top.MatMul(%2, %wm, %n) : ({t8}, {ty(wm)}, none) -> {ty(y)}
  return %3 : {ty(y)}
}}
"""
    model = tmp_path / "m.mlir"
    model.write_text(text)
    return model, x, y


def run_matches(tmp_path, art, x, y):
    np.savez(tmp_path / "in.npz", x=x)
    r = strata("run", art, "--input", tmp_path / "in.npz", "--output", tmp_path / "o.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o.npz") as z:
        np.testing.assert_allclose(z["y"], y, rtol=1e-4, atol=1e-4)


def read_log(path):
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            assert set(rec) == FIELDS, rec
            assert rec["target"] == "cpu"
            assert isinstance(rec["cost"], float) and rec["cost"] > 0
            assert all(isinstance(v, int) for v in rec["config"].values())
            records.append(rec)
    return records


def best_per_workload(records):
    best = {}
    for rec in records:
        k = rec["workload"]
        if k not in best or rec["cost"] < best[k]["cost"]:
            best[k] = rec
    return best


def test_tune_writes_records_and_compile_follows_them(tmp_path):
    model, x, y = small_model(tmp_path)
    log = tmp_path / "tune.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--min-time-ms", "2",
               "--budget-seconds", "120")
    assert r.returncode == 0, r.stderr
    assert "appended" in r.stdout, r.stdout
    records = read_log(log)
    workloads = {rec["workload"] for rec in records}
    # The two 3x3 convs share one workload; 1x1 conv and MatMul are the others.
    assert len(workloads) == 3, workloads
    assert sum(k.startswith("top.Conv(") and "kernel_shape = [3, 3]" in k
               for k in workloads) == 1
    machines = {rec["machine"] for rec in records}
    assert len(machines) == 1
    impls = {rec["implementation"] for rec in records}
    assert {"conv2d.im2col_gemm", "conv2d.1x1_gemm", "codegen"} <= impls, impls

    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize",
               "--tuning-log", log, "--explain-strategy")
    assert r.returncode == 0, r.stderr
    best = best_per_workload(records)
    # Each op's explain block: its workload, then the winner from the record.
    blocks = r.stdout.split("on target 'cpu'\n")[1:]
    seen = 0
    for block in blocks:
        m = re.search(r"^  workload: (.*)$", block, re.M)
        if not m or m.group(1) not in best:
            continue
        seen += 1
        want = best[m.group(1)]["implementation"]
        assert re.search(rf"^  winner: {re.escape(want)} \(tuning record, line \d+\)",
                         block, re.M), block
    assert seen == 4  # both 3x3 convs, the 1x1 conv, the MatMul
    run_matches(tmp_path, art, x, y)

    # The same records measured on another machine are ignored: priorities
    # decide again.
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(dict(rec, machine="other-machine")) + "\n"
                             for rec in records))
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize",
               "--tuning-log", other, "--explain-strategy")
    assert r.returncode == 0, r.stderr
    assert "(tuning record" not in r.stdout
    assert "ignored, measured on machine 'other-machine'" in r.stdout


def test_tune_record_overrides_priority(tmp_path):
    """A record forcing codegen for the 1x1 conv beats its kernel's priority."""
    model, x, y = small_model(tmp_path)
    log = tmp_path / "tune.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--min-time-ms", "0",
               "--implementations", "codegen")
    assert r.returncode == 0, r.stderr
    records = read_log(log)
    assert {rec["implementation"] for rec in records} == {"codegen"}
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize",
               "--tuning-log", log, "--report")
    assert r.returncode == 0, r.stderr
    assert "kernel '" not in r.stdout, r.stdout  # every op generated code
    run_matches(tmp_path, art, x, y)


def test_tune_dry_run_budget_and_errors(tmp_path):
    model, _, _ = small_model(tmp_path)
    log = tmp_path / "tune.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "3 workload(s) with candidates to compare" in r.stdout, r.stdout
    assert "  conv2d.im2col_gemm {}" in r.stdout
    assert not log.exists()
    r = strata("tune", model, "--no-optimize", "--log", log, "--budget-seconds", "0.000001")
    assert r.returncode == 0, r.stderr
    assert "stopped at the --budget-seconds limit" in r.stdout, r.stdout
    r = strata("tune", model, "--log", log, "--implementations", "conv2d.nope")
    assert r.returncode == 2
    assert "--implementations names 'conv2d.nope', which no op has on target 'cpu'" in r.stderr
    r = strata("tune", model, "--log", log, "--budget-seconds", "0")
    assert r.returncode == 2 and "--budget-seconds 0 must be > 0" in r.stderr, r.stderr
    r = strata("tune", model, "--log", tmp_path / "no" / "such" / "t.jsonl")
    assert r.returncode == 1 and "cannot open the log" in r.stderr, r.stderr


def test_tune_dynamic_shapes_need_input_shapes(tmp_path):
    """A MatMul with a dynamic batch is not tuned without --input-shapes; with
    them, its workload is the static one compile sees."""
    text, _ = dynamic_matmul_case(np.random.default_rng(4))
    model = tmp_path / "d.mlir"
    model.write_text(text)
    log = tmp_path / "t.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "1 op(s) have shapes not known at compile time" in r.stdout, r.stdout
    assert "0 workload(s)" in r.stdout
    r = strata("tune", model, "--no-optimize", "--log", log, "--input-shapes", "x:5x40",
               "--min-time-ms", "0")
    assert r.returncode == 0, r.stderr
    keys = {rec["workload"] for rec in read_log(log)}
    assert keys == {"top.MatMul(f32[5, 40], f32[40, 24], none) -> (f32[5, 24]) "
                    "{do_relu = false, relu_limit = -1.000000e+00, right_transpose = false}"}, keys
    art = tmp_path / "d.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize",
               "--input-shapes", "x:5x40", "--tuning-log", log, "--explain-strategy")
    assert r.returncode == 0, r.stderr
    assert "(tuning record, line" in r.stdout, r.stdout
