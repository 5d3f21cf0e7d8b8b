"""The element and loop limits (docs/cli.md "Limits"): a static type over the
element limit is refused at import, naming the op, value and shape; at run
time a result over the limit or an allocation that fails is an error naming
the op and value (never an uncaught std::bad_alloc); a Loop that does not end
stops at the iteration limit. Each limit has an option that moves it."""
import os
import resource
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from negative_harness import BIN, assert_clean_failure, strata

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def onnx_model(nodes, inputs, outputs, inits=(), opset=18):
    g = helper.make_graph(nodes, "g",
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                          list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def import_model(tmp_path, m, *extra):
    (tmp_path / "m.onnx").write_bytes(m.SerializeToString())
    return strata("import", tmp_path / "m.onnx", "-o", tmp_path / "out", "--name", "m",
                  "--no-optimize", *extra)


def written(tmp_path):
    out = tmp_path / "out"
    return sorted(os.listdir(out)) if out.exists() else []


# --- static types at import -----------------------------------------------------

def test_static_expand_over_the_limit(tmp_path):
    m = onnx_model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand")],
                   [("x", F, [1])], [("y", F, None)],
                   [numpy_helper.from_array(np.array([2**20, 2**20], np.int64), "s")])
    r = import_model(tmp_path, m)
    assert_clean_failure(r, "'top.Expand' (ONNX node 'expand' (Expand), value 'y')", "[1048576, 1048576]",
                         "1099511627776 elements", "element limit of 2^31", "--max-elements")
    assert written(tmp_path) == []


def test_static_resize_by_a_million(tmp_path):
    m = onnx_model([helper.make_node("Resize", ["x", "", "scales"], ["y"], name="resize",
                                     mode="nearest")],
                   [("x", F, [1, 1, 2, 2])], [("y", F, None)],
                   [numpy_helper.from_array(np.array([1, 1, 1e6, 1e6], np.float32), "scales")])
    r = import_model(tmp_path, m)
    assert_clean_failure(r, "top.Resize", "[1, 1, 2000000, 2000000]", "element limit")
    assert written(tmp_path) == []


def test_static_input_over_a_lowered_limit(tmp_path):
    m = onnx_model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                   [("x", F, [100, 100])], [("y", F, [100, 100])])
    r = import_model(tmp_path, m, "--max-elements=1000")
    assert_clean_failure(r, "[100, 100]", "10000 elements", "element limit of 1000")
    assert import_model(tmp_path, m).returncode == 0


# --- run time -----------------------------------------------------------------------

def dynamic_expand(tmp_path):
    """Imports y = Expand(x, s) with `s` an input: its size is known only at
    run time."""
    m = onnx_model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand")],
                   [("x", F, [1]), ("s", I64, [2])], [("y", F, None)])
    r = import_model(tmp_path, m)
    assert r.returncode == 0, r.stderr
    return tmp_path / "out" / "m_origin.mlir"


def run_expand(tmp_path, shape, *extra, preexec_fn=None):
    model = dynamic_expand(tmp_path)
    np.savez(tmp_path / "in.npz", x=np.ones(1, np.float32), s=np.array(shape, np.int64))
    return subprocess.run([os.path.join(BIN, "strata"), "run-ref", str(model), "--input",
                           str(tmp_path / "in.npz"), "--output", str(tmp_path / "o.npz"),
                           *extra], capture_output=True, text=True, timeout=120,
                          preexec_fn=preexec_fn)


def test_runtime_result_over_a_lowered_limit(tmp_path):
    r = run_expand(tmp_path, [100, 100], "--max-elements=1000")
    assert_clean_failure(r, "top.Expand", "[100, 100]", "more than 1000 elements",
                         "--max-elements")
    assert not (tmp_path / "o.npz").exists()
    assert run_expand(tmp_path, [100, 100]).returncode == 0


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ or sys.platform != "linux",
                    reason="needs RLIMIT_AS, which ASan's shadow memory does not fit in")
def test_runtime_allocation_failure_is_an_error(tmp_path):
    """1.9e9 floats (7.6 GB) is within the element limit; with the address
    space capped at 4 GiB the allocation fails, and the tool says so."""
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    r = run_expand(tmp_path, [2, 950_000_000], preexec_fn=cap)
    assert_clean_failure(r, "out of memory", "for op 'top.Expand'", "(ONNX node 'expand' (Expand), value 'y')",
                         "7600000000 bytes")
    assert "bad_alloc" not in r.stderr and "terminate" not in r.stderr
    assert not (tmp_path / "o.npz").exists()


def test_max_elements_must_be_positive(tmp_path):
    r = run_expand(tmp_path, [1, 1], "--max-elements=0")
    assert_clean_failure(r, "--max-elements must be at least 1")


# --- Loop iterations ------------------------------------------------------------

LOOP_MODEL = """module attributes {top.weight_file = "w.npz"} {
  func.func @main(%m: tensor<i64> {top.name = "m"}, %y0: tensor<3xf32> {top.name = "y0"}) -> (tensor<3xf32> {top.name = "y"}) {
    %none = top.None() : () -> none
    %y = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>) {
    ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<3xf32>):
      top.Yield %c, %yi : tensor<i1>, tensor<3xf32>
    }
    return %y : tensor<3xf32>
  }
}
"""


def run_loop(tmp_path, trips, *extra):
    (tmp_path / "m.mlir").write_text(LOOP_MODEL)
    np.savez(tmp_path / "w.npz")
    np.savez(tmp_path / "in.npz", m=np.array(trips, np.int64), y0=np.zeros(3, np.float32))
    return strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
                  "--output", tmp_path / "out.npz", *extra)


def test_loop_trip_count_2_pow_62(tmp_path):
    r = run_loop(tmp_path, 2**62, "--max-loop-iterations=1000")
    assert_clean_failure(r, "top.Loop", "has run 1000 iterations",
                         "max_trip_count 4611686018427387904", "loop limit of 1000",
                         "--max-loop-iterations")
    assert not (tmp_path / "out.npz").exists()


def test_loop_within_the_limit_runs(tmp_path):
    assert run_loop(tmp_path, 1000, "--max-loop-iterations=1000").returncode == 0
