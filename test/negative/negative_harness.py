"""Bad-input tests: every case must exit non-zero with a clear message and no
crash (no signal, no sanitizer report, no partial output file)."""
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))

GOOD_MODEL = """module attributes {top.weight_file = "w.npz"} {
  func.func @main(%arg0: tensor<1x2x4x4xf32> {top.name = "x"}) -> (tensor<1x3x4x4xf32> {top.name = "y"}) {
    %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %w = top.Weight() {name = "w"} : () -> tensor<3x2x3x3xf32>
    %b = top.Weight() {name = "b"} : () -> tensor<3xf32>
    %1 = top.Conv(%0, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
    return %1 : tensor<1x3x4x4xf32>
  }
}
"""


def strata(*args, cwd=None):
    """Runs the strata CLI; returns the CompletedProcess."""
    return subprocess.run([os.path.join(BIN, "strata"), *map(str, args)],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def assert_clean_failure(r, *fragments):
    """Non-zero exit without a crash, and every fragment in stderr."""
    assert r.returncode > 0, f"expected failure, got {r.returncode}\n{r.stderr}"
    assert r.returncode < 128, f"crashed with {r.returncode}\n{r.stderr}"
    for bad in ("Stack dump", "AddressSanitizer", "runtime error:", "LLVM ERROR", "Assertion"):
        assert bad not in r.stderr, r.stderr
    for f in fragments:
        assert f in r.stderr, f"missing {f!r} in:\n{r.stderr}"


@pytest.fixture
def model_dir(tmp_path):
    """A folder with a valid model, weights and input."""
    rng = np.random.default_rng(0)
    (tmp_path / "m.mlir").write_text(GOOD_MODEL)
    np.savez(tmp_path / "w.npz", w=rng.standard_normal((3, 2, 3, 3)).astype(np.float32),
             b=rng.standard_normal(3).astype(np.float32))
    np.savez(tmp_path / "in.npz", x=rng.standard_normal((1, 2, 4, 4)).astype(np.float32))
    return tmp_path
