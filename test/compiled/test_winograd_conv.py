"""3x3 stride-1 convolutions with outputs of at least 14x14 compile to the
Winograd F(4x4, 3x3) kernel (conv2d_winograd_f43_f32, the transformed filter
stored in the artifact) and match a float64 numpy reference on every ISA
path this CPU has and at 1 and 2 threads. Tolerance: rtol 1e-4 plus an
absolute 5e-5 * max |y| (the bound unittests/Kernels/WinogradTest states
from the error measured over ResNet-50's 3x3 layers). A tuning record's
tile_hw reaches the kernel's params; a filter that is not a constant is
transformed at run time."""
import json
import os

import numpy as np
import pytest

from test_cpu_kernels import ISAS, conv_ref, strata, ty, weight

KERNEL = "conv2d_winograd_f43_f32"


def check(y, want, what):
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=5e-5 * np.abs(want).max(),
                               err_msg=what)


def conv_text(x, w, b, y, attrs, filter_input=False):
    extra = (", " + attrs) if attrs else ""
    if filter_input:
        args = (f'%x_arg: {ty(x)} {{top.name = "x"}}, %w_arg: {ty(w)} {{top.name = "w"}}')
        wdef = f"%w = top.Input(%w_arg) : ({ty(w)}) -> {ty(w)}"
    else:
        args = f'%x_arg: {ty(x)} {{top.name = "x"}}'
        wdef = weight("w", w)
    return f"""
func.func @main({args}) -> ({ty(y)} {{top.name = "y"}}) {{
  %x = top.Input(%x_arg) : ({ty(x)}) -> {ty(x)}
  {wdef}
  {weight("b", b)}
  %0 = top.Conv(%x, %w, %b) {{kernel_shape = array<i64: 3, 3>,
      strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 2, 1>,
      dilations = array<i64: 1, 1>, group = 1{extra}}}
      : ({ty(x)}, {ty(w)}, {ty(b)}) -> {ty(y)}
  return %0 : {ty(y)}
}}
"""


def make(seed, c=20, o=24, h=17, w_=19):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, c, h, w_)).astype(np.float32)
    w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    return x, w, b, conv_ref(x, w, b, (1, 1), (1, 0, 2, 1), (1, 1), 1)


def compile_model(tmp_path, text, *extra):
    model = tmp_path / "m.mlir"
    model.write_text(text)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize", "--report",
               *extra)
    assert r.returncode == 0, r.stderr
    assert f"kernel '{KERNEL}': 1 dispatch(es)" in r.stdout, r.stdout
    return model, art, r.stdout


def run_all(tmp_path, art, inputs, want):
    np.savez(tmp_path / "in.npz", **inputs)
    for isa in ISAS:
        for threads in (1, 2):
            env = dict(os.environ, STRATA_CPU_ISA=isa)
            r = strata("run", art, "--input", tmp_path / "in.npz", "--output",
                       tmp_path / "out.npz", "--threads", threads, env=env)
            assert r.returncode == 0, r.stderr
            with np.load(tmp_path / "out.npz") as z:
                check(z["y"], want, f"{isa}, {threads} threads")


@pytest.mark.parametrize("attrs,act", [("do_relu = true", "relu"),
                                       ("do_relu = true, relu_limit = 0.5 : f64", "clip"),
                                       ("", "none")])
def test_winograd_conv_matches_numpy(tmp_path, attrs, act):
    x, w, b, y = make(len(act))
    if act == "relu":
        y = np.maximum(y, 0)
    elif act == "clip":
        y = np.clip(y, 0, 0.5)
    _, art, report = compile_model(tmp_path, conv_text(x, w, b, y, attrs))
    # The transformed filter: 36 packed 24 x 20 matrices (rows padded to 2
    # panels of 12): 36 * 24 * 20 * 4 bytes.
    assert f"packed weights: {36 * 24 * 20 * 4} bytes" in report, report
    run_all(tmp_path, art, {"x": x}, y)


def test_winograd_filter_not_constant(tmp_path):
    x, w, b, y = make(5, c=16, o=16, h=14, w_=15)
    _, art, report = compile_model(tmp_path, conv_text(x, w, b, y, "", filter_input=True))
    assert "packed weights" not in report, report
    run_all(tmp_path, art, {"x": x, "w": w}, y)


def test_winograd_tile_hw_from_tuning_record(tmp_path):
    x, w, b, y = make(6)
    model, art, _ = compile_model(tmp_path, conv_text(x, w, b, y, ""), "--explain-strategy")
    r = strata("compile", model, "--target", "cpu", "-o", art, "--no-optimize",
               "--explain-strategy")
    key = next(line.split("workload: ", 1)[1] for line in r.stdout.splitlines()
               if line.startswith("  workload: "))
    machine_probe = tmp_path / "probe.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", machine_probe, "--implementations",
               "conv2d.winograd_f43", "--min-time-ms", "0")
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in machine_probe.read_text().splitlines()]
    assert {rec["workload"] for rec in recs} == {key}
    assert sorted(rec["config"]["tile_hw"] for rec in recs) == [16, 32, 64, 128]
    forced = dict(recs[0], config={"tile_hw": 7}, cost=1e-9)
    log = tmp_path / "t.jsonl"
    log.write_text(json.dumps(forced) + "\n")
    _, art, _ = compile_model(tmp_path, conv_text(x, w, b, y, ""), "--tuning-log", log)
    r = strata("inspect", art, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)["variants"][0]["dispatches"][0]
    assert d["symbol"] == KERNEL
    assert d["params"][-1] == 7
    run_all(tmp_path, art, {"x": x}, y)
