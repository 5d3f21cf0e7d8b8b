"""npz arrays of ml_dtypes types saved by plain numpy (raw bytes, type lost) and
narrow-type mismatches: clear message, non-zero exit, never a crash."""
import numpy as np
import pytest

from negative_harness import assert_clean_failure, strata

ml_dtypes = pytest.importorskip("ml_dtypes")

MODEL = """module attributes {top.weight_file = "w.npz"} {
  func.func @main(%a: tensor<4xf8E4M3FN> {top.name = "x"}) -> (tensor<4xf32> {top.name = "y"}) {
    %x = top.Input(%a) : (tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
    %y = top.Cast(%x) : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
"""


def run(d, x):
    (d / "m.mlir").write_text(MODEL)
    np.savez(d / "w.npz")
    np.savez(d / "in.npz", x=x)
    return strata("run-ref", d / "m.mlir", "--input", d / "in.npz", "--output", d / "out.npz")


@pytest.mark.parametrize("dtype,descr", [(ml_dtypes.float8_e4m3fn, "<V1"),
                                         (ml_dtypes.float8_e5m2, "<f1")])
def test_plain_numpy_save_of_ml_dtypes_array(tmp_path, dtype, descr):
    r = run(tmp_path, np.zeros(4, dtype))
    assert_clean_failure(r, f"unsupported npy dtype '{descr}'", "ml_dtypes name", "docs/cli.md")
    assert not (tmp_path / "out.npz").exists()


def test_wrong_narrow_type(tmp_path):
    r = run(tmp_path, np.zeros(4, np.uint8))
    assert_clean_failure(r, "uint8", "float8_e4m3fn")
