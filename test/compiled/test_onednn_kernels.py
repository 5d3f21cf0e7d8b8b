"""The oneDNN-backed kernels (onednn_conv2d_f32, onednn_matmul_f32): a
tuning record made by `strata tune --implementations ...` makes the strategy
pick them, and `strata run` matches numpy (float64 reference, rtol 1e-4 /
atol 1e-4) at 1 and 2 threads. A runtime without oneDNN refuses such an
artifact with an error naming the kernel. Skipped in a build without oneDNN
(its registry has no oneDNN candidate: unittests/Strategy/OneDnnStrategyTest)."""
import json
import os

import numpy as np
import pytest

from test_cpu_kernels import (CONVS, batched_matmul_case, compile_and_check, conv_case,
                              matmul_case, strata)


@pytest.fixture
def needs_onednn(tmp_path):
    r = strata("tune", tmp_path / "unused.mlir", "--log", tmp_path / "unused.jsonl",
               "--implementations", "conv2d.onednn_f32", "--dry-run")
    if "lacks the optional library 'onednn'" in r.stderr:
        pytest.skip("Strata was built without oneDNN")


def tune_log(tmp_path, text, impl):
    """The log of `strata tune` timing only `impl` on the model `text`."""
    model = tmp_path / "m.mlir"
    model.write_text(text)
    log = tmp_path / "tune.jsonl"
    r = strata("tune", model, "--no-optimize", "--log", log, "--implementations", impl,
               "--min-time-ms", "0")
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [rec["implementation"] for rec in records] == [impl]
    return log


def check_onednn(tmp_path, text, inputs, want, impl, kernel):
    log = tune_log(tmp_path, text, impl)
    report = compile_and_check(tmp_path, text, inputs, want, kernel,
                               extra=("--tuning-log", log, "--explain-strategy"))
    assert f"winner: {impl} (tuning record, line 1)" in report, report


# The GEMM-convolution cases of test_cpu_kernels (not the depthwise one).
ONEDNN_CONVS = [c[:-1] for c in CONVS if c[-1] != "conv2d_depthwise_f32"]


@pytest.mark.parametrize("name,xs,ws,stride,pads,dil,group,attrs", ONEDNN_CONVS,
                         ids=[c[0] for c in ONEDNN_CONVS])
def test_onednn_conv(tmp_path, needs_onednn, name, xs, ws, stride, pads, dil, group, attrs):
    text, x, y = conv_case(name, xs, ws, stride, pads, dil, group, attrs)
    check_onednn(tmp_path, text, {"x": x}, y, "conv2d.onednn_f32", "onednn_conv2d_f32")


def test_onednn_matmul_bias_relu(tmp_path, needs_onednn):
    text, inputs, y = matmul_case()
    check_onednn(tmp_path, text, inputs, y, "matmul.onednn_f32", "onednn_matmul_f32")


def test_onednn_batched_matmul_transposed(tmp_path, needs_onednn):
    text, inputs, y = batched_matmul_case()
    check_onednn(tmp_path, text, inputs, y, "matmul.onednn_f32", "onednn_matmul_f32")


def test_runtime_without_onednn_refuses_the_artifact(tmp_path, needs_onednn):
    text, inputs, _ = matmul_case()
    log = tune_log(tmp_path, text, "matmul.onednn_f32")
    art = tmp_path / "m.strata"
    r = strata("compile", tmp_path / "m.mlir", "--target", "cpu", "-o", art, "--no-optimize",
               "--tuning-log", log)
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", **inputs)
    env = dict(os.environ, STRATA_RUNTIME_NO_ONEDNN="1")
    r = strata("run", art, "--input", tmp_path / "in.npz", "--output", tmp_path / "o.npz",
               env=env)
    assert r.returncode == 1
    assert "kernel 'onednn_matmul_f32' needs oneDNN, and this runtime was built without it" \
        in r.stderr, r.stderr
    r = strata("inspect", art)
    assert r.returncode == 0, r.stderr
