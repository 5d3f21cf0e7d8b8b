"""`@table16 <name>_preact` rows of the calibration table
(docs/quantization.md "The calibration table", "Int16 table inputs"): only
the named layers' activation tables read an int16 input, the others stay
int8 tables. The int16 layer's 513 entries are checked against numpy's
tabulation of SiLU, the other layer is an int8 table, the compiled CPU
model gives the interpreter's bytes, and malformed rows are clear errors."""
import os
import re
import sys

import numpy as np
import pytest

pytest.importorskip("onnx")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_int8_kernels import build, samples  # noqa: E402
from test_table16 import TABLE16, round_half_even  # noqa: E402
from quant_harness import ok, strata  # noqa: E402

LAYERS = [("conv", 6, 3, 1, 1, 1, 1), ("hardswish",), ("conv", 5, 3, 1, 1, 1, 1), ("silu",)]


def model_and_table(tmp_path):
    in_shape = [1, 4, 9, 8]
    model = tmp_path / "m.onnx"
    build(model, in_shape, LAYERS, np.random.default_rng(23))
    samples(tmp_path / "cal", in_shape, 3, seed=1)
    table = tmp_path / "t.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", table))
    return model, table


def test_table16_row_makes_only_that_layer_int16(tmp_path):
    model, table = model_and_table(tmp_path)
    text = table.read_text()
    assert "@table16" not in text  # calibrate never writes them
    table.write_text(text + "@table16 t3_preact\n")
    q = ["--quantize", "int8", "--calibration", table]
    ok(strata("quantize", model, *q, "-o", tmp_path / "q", "--name", "m"))
    mlir = (tmp_path / "q" / "m.mlir").read_text()
    found = TABLE16.findall(mlir)
    assert len(found) == 1, mlir
    _, entries, s_in, zp_in, s_out, zp_out = found[0]
    s_in, zp_in, s_out, zp_out = float(s_in), int(zp_in), float(s_out), int(zp_out)
    entries = np.array([int(v) for v in entries.split(",")], np.int64)
    x = ((np.arange(513) * 128 - 32768 - zp_in) * s_in).astype(np.float32).astype(np.float64)
    want = np.clip(round_half_even(128 * (x / (1 + np.exp(-x)) / s_out + zp_out)),
                   -128 * 128, 127 * 128)
    assert np.abs(entries - want).max() <= 1, np.abs(entries - want).max()
    ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", tmp_path / "cal" / "s0.npz",
              "--output", tmp_path / "ref.npz", "--dump-all"))
    dump = np.load(tmp_path / "ref.npz")
    # The named layer's pre-activation is int16 storage; the HardSwish
    # layer's is the int8 table's input (dumped dequantized, f32), on an
    # int8 scale: 256 levels at most.
    assert dump["t3_preact"].dtype == np.int16
    pre = dump["t1_preact"]
    assert pre.dtype == np.float32
    assert len(np.unique(pre)) <= 256
    assert re.search(r"top\.Requant\(.*-> tensor<1x6x9x8x!quant\.uniform<i8:", mlir), mlir
    # Compiled for the CPU: the interpreter's bytes.
    ok(strata("compile", model, "--target", "cpu", *q, "-o", tmp_path / "m.strata"))
    ok(strata("run", tmp_path / "m.strata", "--input", tmp_path / "cal" / "s1.npz",
              "--output", tmp_path / "cpu.npz"))
    ok(strata("run-ref", tmp_path / "q" / "m.mlir", "--input", tmp_path / "cal" / "s1.npz",
              "--output", tmp_path / "ref1.npz"))
    got, ref = np.load(tmp_path / "cpu.npz"), np.load(tmp_path / "ref1.npz")
    for name in ref.files:
        np.testing.assert_array_equal(got[name], ref[name])


@pytest.mark.parametrize("rows,message", [
    ("@table16\n", "expected '@table16 name'"),
    ("@table16 t3_preact t1_preact\n", "expected '@table16 name'"),
    ("@table16 t3_preact\n@table16 t3_preact\n", "tensor 't3_preact' has two @table16 rows"),
    ("@table16 t2\n", "names tensor 't2' in an @table16 row, which is not the pre-activation"),
    ("@table16 nothing_preact\n", "'nothing_preact' in an @table16 row"),
])
def test_table16_row_errors(tmp_path, rows, message):
    model, table = model_and_table(tmp_path)
    table.write_text(table.read_text() + rows)
    r = strata("quantize", model, "--quantize", "int8", "--calibration", table,
               "-o", tmp_path / "q", "--name", "m")
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
