"""Replays every input the ONNX importer fuzzer (fuzz/onnx_import_fuzzer.cpp)
ever crashed on, kept in test/onnx/fuzz-regressions/: `strata import` must
either succeed (and write both files) or fail with a clear error, exit
non-zero and write nothing. Runs under the ASan + UBSan build in `make test`
as well."""
import os
from pathlib import Path

import pytest

from negative_harness import ROOT, assert_clean_failure, strata

# What a successful `strata import` writes: the imported model and the
# optimized one, each with its weight file.
IMPORTED_FILES = ["m.mlir", "m_TOP_F32_all_weight.npz", "m_TOP_F32_weight.npz",
                  "m_origin.mlir"]

CASES = sorted(Path(ROOT, "test", "onnx", "fuzz-regressions").glob("*.onnx"))


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_fuzz_regression(tmp_path, path):
    out = tmp_path / "out"
    r = strata("import", path, "-o", out, "--name", "m")
    files = sorted(os.listdir(out)) if out.exists() else []
    if r.returncode == 0:
        assert files == IMPORTED_FILES, files
    else:
        assert_clean_failure(r, "error: ")
        assert files == [], f"partial output: {files}"


def test_regressions_are_kept():
    """The folder exists and holds at least one case (each crash the fuzzer
    found is kept here)."""
    assert CASES, "test/onnx/fuzz-regressions/ has no .onnx files"
