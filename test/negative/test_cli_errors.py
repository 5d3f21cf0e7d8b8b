"""strata run-ref / compare on bad input: clear message, non-zero exit,
never a crash, no output written."""
import zipfile

import numpy as np

from negative_harness import GOOD_MODEL, assert_clean_failure, strata


def run_ref(d, model="m.mlir", inp="in.npz", extra=()):
    return strata("run-ref", d / model, "--input", d / inp, "--output", d / "out.npz", *extra)


def test_good_model_runs(model_dir):
    r = run_ref(model_dir)
    assert r.returncode == 0, r.stderr
    assert np.load(model_dir / "out.npz")["y"].shape == (1, 3, 4, 4)


def test_missing_model_file(model_dir):
    assert_clean_failure(run_ref(model_dir, model="nope.mlir"), "nope.mlir")


def test_malformed_mlir(model_dir):
    (model_dir / "bad.mlir").write_text("module { func.func @main( {")
    assert_clean_failure(run_ref(model_dir, model="bad.mlir"), "bad.mlir")
    assert not (model_dir / "out.npz").exists()


def test_truncated_mlir(model_dir):
    (model_dir / "bad.mlir").write_text(GOOD_MODEL[: len(GOOD_MODEL) // 2])
    assert_clean_failure(run_ref(model_dir, model="bad.mlir"), "error")


def test_unknown_op(model_dir):
    (model_dir / "bad.mlir").write_text(GOOD_MODEL.replace("top.Conv", "top.Bogus"))
    assert_clean_failure(run_ref(model_dir, model="bad.mlir"), "top.Bogus")


def test_wrong_attribute_value(model_dir):
    (model_dir / "bad.mlir").write_text(GOOD_MODEL.replace("pads = array<i64: 1, 1, 1, 1>",
                                                           "pads = array<i64: 1, 1, -1, 1>"))
    assert_clean_failure(run_ref(model_dir, model="bad.mlir"), "'pads'", "-1")


def test_wrong_attribute_type(model_dir):
    (model_dir / "bad.mlir").write_text(GOOD_MODEL.replace("kernel_shape = array<i64: 3, 3>",
                                                           "kernel_shape = \"3x3\""))
    assert_clean_failure(run_ref(model_dir, model="bad.mlir"), "kernel_shape")


def test_missing_weight(model_dir):
    np.savez(model_dir / "w.npz", w=np.zeros((3, 2, 3, 3), np.float32))
    assert_clean_failure(run_ref(model_dir), "weight 'b' is missing")


def test_weight_wrong_shape(model_dir):
    np.savez(model_dir / "w.npz", w=np.zeros((3, 2, 3), np.float32), b=np.zeros(3, np.float32))
    assert_clean_failure(run_ref(model_dir), "weight 'w' has shape [3, 2, 3]", "[3, 2, 3, 3]")


def test_weight_wrong_dtype(model_dir):
    np.savez(model_dir / "w.npz", w=np.zeros((3, 2, 3, 3), np.float64), b=np.zeros(3, np.float32))
    assert_clean_failure(run_ref(model_dir), "weight 'w' has dtype float64", "float32")


def test_short_weight_data(model_dir):
    """An npy member whose payload is shorter than its header says."""
    good = np.zeros((3, 2, 3, 3), np.float32)
    import io
    buf = io.BytesIO()
    np.save(buf, good)
    data = buf.getvalue()[:-20]
    with zipfile.ZipFile(model_dir / "w.npz", "w") as z:
        z.writestr("w.npy", data)
        b = io.BytesIO()
        np.save(b, np.zeros(3, np.float32))
        z.writestr("b.npy", b.getvalue())
    assert_clean_failure(run_ref(model_dir), "array 'w'", "needs 216 bytes")


def test_corrupt_npz(model_dir):
    (model_dir / "w.npz").write_bytes(b"PK\x03\x04garbage" * 10)
    assert_clean_failure(run_ref(model_dir), "w.npz")


def test_truncated_npz(model_dir):
    data = (model_dir / "w.npz").read_bytes()
    (model_dir / "w.npz").write_bytes(data[: len(data) // 2])
    assert_clean_failure(run_ref(model_dir), "w.npz")


def test_npz_member_bad_header(model_dir):
    with zipfile.ZipFile(model_dir / "w.npz", "w") as z:
        z.writestr("w.npy", b"\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'shape': (3,), }  \n")
        z.writestr("b.npy", b"not numpy at all")
    assert_clean_failure(run_ref(model_dir), "w.npz")


def test_npz_fortran_order_is_read(model_dir):
    """Fortran-ordered weights are transposed on reading (test_npz_members.py
    checks the values)."""
    np.savez(model_dir / "w.npz", w=np.asfortranarray(np.zeros((3, 2, 3, 3), np.float32)),
             b=np.zeros(3, np.float32))
    r = run_ref(model_dir)
    assert r.returncode == 0, r.stderr


def test_npz_huge_shape(model_dir):
    """A header claiming an overflowing shape must not allocate or crash."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"
    header += " " * (118 - len(header)) + "\n"
    blob = b"\x93NUMPY\x01\x00" + bytes([len(header), 0]) + header.encode()
    with zipfile.ZipFile(model_dir / "w.npz", "w") as z:
        z.writestr("w.npy", blob)
    assert_clean_failure(run_ref(model_dir), "overflows")


def test_input_wrong_shape(model_dir):
    np.savez(model_dir / "in.npz", x=np.zeros((1, 2, 4, 5), np.float32))
    assert_clean_failure(run_ref(model_dir), "input 'x' has shape [1, 2, 4, 5]", "[1, 2, 4, 4]")


def test_input_wrong_dtype(model_dir):
    np.savez(model_dir / "in.npz", x=np.zeros((1, 2, 4, 4), np.int32))
    assert_clean_failure(run_ref(model_dir), "input 'x' has dtype int32")


def test_input_missing(model_dir):
    np.savez(model_dir / "in.npz", z=np.zeros((1, 2, 4, 4), np.float32))
    assert_clean_failure(run_ref(model_dir), "missing input 'x'")


def test_missing_weight_file(model_dir):
    (model_dir / "w.npz").unlink()
    assert_clean_failure(run_ref(model_dir), "w.npz")


def test_output_not_written_on_failure(model_dir):
    np.savez(model_dir / "in.npz", x=np.zeros((2, 2, 4, 4), np.float32))
    assert_clean_failure(run_ref(model_dir))
    assert not (model_dir / "out.npz").exists()


def test_output_unwritable(model_dir):
    r = strata("run-ref", model_dir / "m.mlir", "--input", model_dir / "in.npz",
               "--output", model_dir / "no" / "such" / "dir" / "out.npz")
    assert_clean_failure(r, "out.npz")


def test_compare_bad_tolerance(model_dir):
    assert_clean_failure(strata("compare", model_dir / "in.npz", model_dir / "in.npz",
                                "--tolerance", "abc"), "--tolerance")


def test_compare_detects_difference(model_dir):
    np.savez(model_dir / "a.npz", t=np.arange(10, dtype=np.float32))
    np.savez(model_dir / "b.npz", t=-np.arange(10, dtype=np.float32))
    r = strata("compare", model_dir / "a.npz", model_dir / "b.npz")
    assert r.returncode == 1
    assert "NOT_SIMILAR" in r.stdout


def test_compare_shape_mismatch(model_dir):
    np.savez(model_dir / "a.npz", t=np.zeros((2, 3), np.float32))
    np.savez(model_dir / "b.npz", t=np.zeros((3, 2), np.float32))
    r = strata("compare", model_dir / "a.npz", model_dir / "b.npz")
    assert r.returncode == 1
    assert "MISMATCH" in r.stdout


def test_compare_rules(model_dir):
    """EQUAL, CLOSE (allclose rtol 1e-3), SIMILAR (cos/euclid >= tol)."""
    x = np.linspace(1, 2, 100).astype(np.float32)
    np.savez(model_dir / "a.npz", eq=x, close=x, sim=x)
    np.savez(model_dir / "b.npz", eq=x, close=x * (1 + 5e-4), sim=x * 1.001 + 0.002)
    r = strata("compare", model_dir / "a.npz", model_dir / "b.npz")
    assert r.returncode == 0, r.stdout
    assert "eq: EQUAL" in r.stdout and "close: CLOSE" in r.stdout and "sim: SIMILAR" in r.stdout
    assert "3 passed, 0 failed" in r.stdout


def test_unknown_subcommand():
    r = strata("frobnicate")
    assert r.returncode != 0 and r.returncode < 128


def compare(d, a, b, *extra):
    np.savez(d / "a.npz", **a)
    np.savez(d / "b.npz", **b)
    return strata("compare", d / "a.npz", d / "b.npz", *extra)


def test_compare_infinities_must_match(model_dir):
    """An infinity matches only the same infinity at the same position."""
    inf = np.float32(np.inf)
    for ref, tgt in [([inf, 1.0], [-inf, 1.0]), ([inf, 1.0], [0.0, 1.0]),
                     ([1.0, 1.0], [1.0, -inf])]:
        r = compare(model_dir, {"t": np.array(ref, np.float32)},
                    {"t": np.array(tgt, np.float32)})
        assert r.returncode == 1, (ref, tgt, r.stdout)
        assert "NOT_SIMILAR" in r.stdout and "infinities must match" in r.stdout
    same = np.array([inf, -inf, 1.0], np.float32)
    r = compare(model_dir, {"t": same}, {"t": same.copy()})
    assert r.returncode == 0 and "t: EQUAL" in r.stdout, r.stdout
    r = compare(model_dir, {"t": same}, {"t": np.array([inf, -inf, 1.0 + 1e-5], np.float32)})
    assert r.returncode == 0 and "t: CLOSE" in r.stdout, r.stdout


def test_compare_tolerance_range(model_dir):
    """Negative, NaN or above-1 thresholds would pass anything: refused."""
    x = np.arange(1, 11, dtype=np.float32)
    for tol in ["-1,-1e30", "nan,0.9", "0.9,nan", "0.5,-0.1", "1.5,0.9"]:
        r = compare(model_dir, {"t": x}, {"t": -x}, "--tolerance", tol)
        assert_clean_failure(r, "--tolerance")
        assert r.returncode == 2, (tol, r.returncode)
    r = compare(model_dir, {"t": x}, {"t": -x}, "--tolerance", "0,0")
    assert r.returncode == 1  # cosine -1 is below 0


def test_compare_dtype_mismatch(model_dir):
    r = compare(model_dir, {"t": np.arange(4, dtype=np.int64)},
                {"t": np.arange(4, dtype=np.float32)})
    assert r.returncode == 1, r.stdout
    assert "MISMATCH" in r.stdout and "dtype" in r.stdout


def test_compare_missing_from_target_fails(model_dir):
    x = np.arange(4, dtype=np.float32)
    r = compare(model_dir, {"t": x, "u": x}, {"t": x, "extra": x})
    assert r.returncode == 1, r.stdout
    assert "FAIL u: missing from" in r.stdout
    assert "extra: only in" in r.stdout  # extra target tensors are listed, not failed
    assert "1 passed, 1 failed" in r.stdout


def test_module_without_weight_file(model_dir):
    """No top.weight_file and no --weights: say so, not that a weight is
    missing from a weight file that does not exist."""
    (model_dir / "nofile.mlir").write_text(
        GOOD_MODEL.replace(' attributes {top.weight_file = "w.npz"}', ""))
    r = run_ref(model_dir, model="nofile.mlir")
    assert_clean_failure(r, "has weights whose data is in a file (top.Weight 'w') but no "
                         "top.weight_file attribute naming it", "--weights")
    assert "missing from the weight file" not in r.stderr
    r = run_ref(model_dir, model="nofile.mlir", extra=("--weights", model_dir / "w.npz"))
    assert r.returncode == 0, r.stderr
