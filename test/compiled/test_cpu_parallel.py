"""Workgroups and vector code of `strata compile --target cpu`: a model of big
elementwise, reduction, pooling and softmax ops compiles into dispatches
split into several workgroups (`strata inspect --json`), and runs with 1 and
2 threads to the same bits, matching numpy.

Tolerances: float32 against a float64 numpy reference, rtol 1e-5 /
atol 1e-6 (the vector code sums 16 lanes at a time, numpy pairwise)."""
import json
import os
import subprocess

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")

MODEL = """
func.func @main(%x_arg: tensor<1x32x64x64xf32> {top.name = "x"}, %b_arg: tensor<1x32x1x1xf32> {top.name = "b"})
    -> (tensor<1x32x64x64xf32> {top.name = "act"}, tensor<1x32x64xf32> {top.name = "rowsum"},
        tensor<1x32x32x32xf32> {top.name = "pool"}, tensor<1x32x64x64xf32> {top.name = "soft"}) {
  %x = top.Input(%x_arg) : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
  %b = top.Input(%b_arg) : (tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
  %a = top.Add(%x, %b) : (tensor<1x32x64x64xf32>, tensor<1x32x1x1xf32>) -> tensor<1x32x64x64xf32>
  %r = top.Relu(%a) : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
  %t = top.Tanh(%r) : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
  %s = top.Reduce(%a) {axes = array<i64: 3>, keepdims = false, mode = #top.reduce_mode<ReduceSum>} : (tensor<1x32x64x64xf32>) -> tensor<1x32x64xf32>
  %p = top.MaxPool(%a) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x64x64xf32>) -> tensor<1x32x32x32xf32>
  %m = top.Softmax(%a) {axis = -1 : i64} : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
  return %t, %s, %p, %m : tensor<1x32x64x64xf32>, tensor<1x32x64xf32>, tensor<1x32x32x32xf32>, tensor<1x32x64x64xf32>
}
"""


def strata(*args):
    r = subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def reference(x, b):
    a = x.astype(np.float64) + b
    t = np.tanh(np.maximum(a, 0))
    s = a.sum(axis=3)
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    p = np.full((1, 32, 32, 32), -np.inf)
    for i in range(3):
        for j in range(3):
            p = np.maximum(p, padded[:, :, i:i + 63:2, j:j + 63:2])
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return {"act": t, "rowsum": s, "pool": p, "soft": e / e.sum(axis=-1, keepdims=True)}


def test_split_dispatches_agree_across_threads(tmp_path):
    model = tmp_path / "m.mlir"
    model.write_text(MODEL)
    art = tmp_path / "m.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art, "--report")
    assert "dispatch(es) split into more than one" in r.stdout, r.stdout
    info = json.loads(strata("inspect", art, "--json").stdout)
    dispatches = info["variants"][0]["dispatches"]
    # Add, Relu, Tanh, the row sum (over its rows), the pool and the
    # softmax: each is big enough to split along a parallel loop.
    assert len(dispatches) == 6, dispatches
    assert all(d["workgroup_count"] > 1 for d in dispatches), dispatches

    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 32, 64, 64)).astype(np.float32)
    b = rng.standard_normal((1, 32, 1, 1)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x, b=b)
    got = {}
    for threads in (1, 2):
        out = tmp_path / f"out{threads}.npz"
        strata("run", art, "--input", tmp_path / "in.npz", "--output", out,
               "--threads", threads)
        with np.load(out) as z:
            got[threads] = {k: z[k] for k in z.files}
    want = reference(x, b)
    for k, v in want.items():
        np.testing.assert_array_equal(got[1][k], got[2][k], err_msg=k)
        np.testing.assert_allclose(got[1][k], v, rtol=1e-5, atol=1e-6, err_msg=k)
