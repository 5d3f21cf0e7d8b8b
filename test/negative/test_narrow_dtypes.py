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


def save_ml_npz(path, **arrays):
    """in.npz whose ml_dtypes arrays keep their name as the .npy descr."""
    import io
    import zipfile
    with zipfile.ZipFile(path, "w") as z:
        for name, a in arrays.items():
            buf = io.BytesIO()
            if a.dtype.type.__module__ == "ml_dtypes":
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": a.dtype.name, "fortran_order": False, "shape": a.shape})
                buf.write(a.tobytes())
            else:
                np.lib.format.write_array(buf, a)
            z.writestr(name + ".npy", buf.getvalue())


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """MODEL (a float8_e4m3fn input) compiled for the CPU."""
    d = tmp_path_factory.mktemp("narrow")
    (d / "m.mlir").write_text(MODEL)
    np.savez(d / "w.npz")
    r = strata("compile", d / "m.mlir", "--target", "cpu", "-o", d / "m.strata")
    assert r.returncode == 0, r.stderr
    return d / "m.strata"


@pytest.mark.parametrize("x,name", [
    (np.zeros(4, ml_dtypes.float8_e5m2), "f8e5m2"),  # another float8
    (np.zeros(4, ml_dtypes.int4), "i4"),             # another narrow type
    (np.zeros(4, np.uint8), "u8"),                   # its storage type
])
def test_compiled_wrong_narrow_type(tmp_path, compiled, x, name):
    """`strata run` refuses an input of another type, even one of the same
    one-byte storage, naming both (the runtime's names)."""
    save_ml_npz(tmp_path / "in.npz", x=x)
    out = tmp_path / "out.npz"
    r = strata("run", compiled, "--input", tmp_path / "in.npz", "--output", out)
    assert_clean_failure(r, "strata run: ", f"input 'x' is f8e4m3fn, not {name}")
    assert r.returncode == 1
    assert not out.exists()


def test_compiled_right_narrow_type_runs(tmp_path, compiled):
    """The same artifact with its own type runs (so the refusals above are
    about the type): four float8_e4m3fn values, NaN (0x7F) included."""
    x = np.array([0x00, 0x38, 0xC8, 0x7F], np.uint8).view(ml_dtypes.float8_e4m3fn)
    save_ml_npz(tmp_path / "in.npz", x=x)
    out = tmp_path / "out.npz"
    r = strata("run", compiled, "--input", tmp_path / "in.npz", "--output", out)
    assert r.returncode == 0, r.stderr
    with np.load(out) as z:
        y = z["y"]
    np.testing.assert_array_equal(y, x.astype(np.float32))
