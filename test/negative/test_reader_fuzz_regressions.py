"""Replays the inputs the npz and .mlir fuzzers (fuzz/npz_fuzzer.cpp,
fuzz/mlir_fuzzer.cpp, fuzz/tflite_import_fuzzer.cpp) found a bug with, kept in
test/negative/fuzz-regressions/{npz,mlir,tflite}/: the CLI reading each one must
succeed or fail with a clear error, never crash. Runs under the ASan + UBSan
build in `make test` as well."""
from pathlib import Path

import pytest

from negative_harness import ROOT, assert_clean_failure, strata

CASES = Path(ROOT, "test", "negative", "fuzz-regressions")
NPZ = sorted((CASES / "npz").glob("*"))
MLIR = sorted((CASES / "mlir").glob("*"))
TFLITE = sorted((CASES / "tflite").glob("*.tflite"))


def finished_cleanly(r):
    """Success, or a clean failure with an error message."""
    if r.returncode != 0:
        assert_clean_failure(r, "error")


@pytest.mark.parametrize("path", NPZ, ids=[p.name for p in NPZ])
def test_npz_regression(model_dir, path):
    """As run-ref's --input file and as the model's weight file."""
    r = strata("run-ref", model_dir / "m.mlir", "--input", path,
               "--output", model_dir / "out.npz")
    assert_clean_failure(r)
    assert not (model_dir / "out.npz").exists()
    (model_dir / "w.npz").write_bytes(path.read_bytes())
    r = strata("run-ref", model_dir / "m.mlir", "--input", model_dir / "in.npz",
               "--output", model_dir / "out.npz")
    assert_clean_failure(r)


@pytest.mark.parametrize("path", MLIR, ids=[p.name for p in MLIR])
def test_mlir_regression(tmp_path, path):
    finished_cleanly(strata("compile", path, "-o", tmp_path / "out"))


@pytest.mark.parametrize("path", TFLITE, ids=[p.name for p in TFLITE])
def test_tflite_regression(tmp_path, path):
    finished_cleanly(strata("import", path, "-o", tmp_path / "out"))


def test_tflite_accumulator_scale_outside_f32_is_named(tmp_path):
    """A CONV_2D whose input scale x filter scale underflows f32 (the
    accumulator's !quant.uniform type cannot hold it) is an import error
    naming the operator and the channel; it once produced a module that did
    not parse back."""
    path = CASES / "tflite" / "conv-accumulator-scale-underflows-f32.tflite"
    r = strata("import", path, "-o", tmp_path / "out")
    assert_clean_failure(r, "operator 0 (CONV_2D)")
    assert "accumulator scale of channel 2" in r.stderr
    assert "outside the f32 range" in r.stderr


def test_regressions_are_kept():
    """Each reader fuzzer's folder holds at least one case once it has found
    a bug (npz has)."""
    assert NPZ, "test/negative/fuzz-regressions/npz/ has no files"
