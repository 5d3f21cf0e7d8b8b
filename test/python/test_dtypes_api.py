"""Narrow dtypes across the Python boundary (installed package): Session inputs
and outputs of int8, uint8, int16, uint16, float16, bfloat16 (ml_dtypes'
bfloat16; .venv has ml_dtypes) and bool, compared with numpy; wrong dtypes are
errors naming the input and both dtypes."""
import os

import numpy as np
import pytest

import strata
from python_bad_input_runner import check_errors

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")
from onnx import TensorProto as TP, helper  # noqa: E402

DTYPES = {
    "int8": (TP.INT8, np.int8), "uint8": (TP.UINT8, np.uint8),
    "int16": (TP.INT16, np.int16), "uint16": (TP.UINT16, np.uint16),
    "float16": (TP.FLOAT16, np.float16), "bfloat16": (TP.BFLOAT16, ml_dtypes.bfloat16),
    "bool": (TP.BOOL, np.bool_),
}


def _model(tp, op):
    # y = transpose(x) and z = op(x, x): the layout moves, and a value is computed.
    nodes = [helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0]),
             helper.make_node(op, ["x", "x"], ["z"])]
    g = helper.make_graph(nodes, "narrow", [helper.make_tensor_value_info("x", tp, [3, 5])],
                          [helper.make_tensor_value_info("y", tp, [5, 3]),
                           helper.make_tensor_value_info("z", tp, [3, 5])])
    return strata.import_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))


def _data(dt):
    rng = np.random.default_rng(3)
    if dt is np.bool_:
        return rng.integers(0, 2, (3, 5)).astype(bool)
    if np.issubdtype(np.dtype(dt), np.integer):
        info = np.iinfo(dt)
        return rng.integers(info.min // 2, info.max // 2 + 1, (3, 5)).astype(dt)
    return rng.uniform(-4, 4, (3, 5)).astype(dt)


@pytest.mark.parametrize("name", list(DTYPES))
def test_session_narrow_dtype_in_and_out(name):
    tp, dt = DTYPES[name]
    op = "Or" if dt is np.bool_ else "Add"
    model = _model(tp, op)
    s = strata.Session(strata.compile(model), threads=1)
    assert [i.dtype for i in s.inputs] == [np.dtype(dt)]
    assert [o.dtype for o in s.outputs] == [np.dtype(dt)] * 2
    x = _data(dt)
    out = s.run({"x": x})
    ref_z = x | x if dt is np.bool_ else x + x  # no overflow: |x| <= max // 2
    for got, ref in ((out["y"], x.T), (out["z"], ref_z)):
        assert got.dtype == np.dtype(dt) and got.shape == ref.shape
        np.testing.assert_array_equal(got.view(np.uint8 if dt is np.bool_ else got.dtype), ref)
        assert got.flags.c_contiguous and got.flags.owndata is False  # the capsule owns it
    # The interpreter takes and returns the same dtypes.
    ref = strata.run_ref(model, {"x": x})
    np.testing.assert_array_equal(ref["y"], x.T)
    assert ref["y"].dtype == np.dtype(dt)


def test_bfloat16_values_and_arithmetic():
    model = _model(TP.BFLOAT16, "Add")
    s = strata.Session(strata.compile(model), threads=1)
    x = np.array([[1.5, -2.25, 3.0, 1e-3, 256.0]] * 3, dtype=ml_dtypes.bfloat16)
    z = s.run({"x": x})["z"]
    assert z.dtype == ml_dtypes.bfloat16
    # x + x is exact in bfloat16 (a doubling).
    np.testing.assert_array_equal(z.astype(np.float32), (x.astype(np.float32) * 2))


WRONG_DTYPES = """
import test_dtypes_api as T
from onnx import TensorProto as TP
s = strata.Session(strata.compile(T._model(TP.BFLOAT16, "Add")), threads=1)
for bad in (np.float32, np.uint16, np.float16):
    attempt(lambda: s.run({"x": np.zeros((3, 5), bad)}))
s8 = strata.Session(strata.compile(T._model(TP.INT8, "Add")), threads=1)
attempt(lambda: s8.run({"x": np.zeros((3, 5), np.uint8)}))
attempt(lambda: s8.run({"x": np.zeros((5, 3), np.int8)}))
attempt(lambda: strata.run_ref(T._model(TP.INT16, "Add"), {"x": np.zeros((3, 5), np.int8)}))
"""


def test_wrong_narrow_dtypes_are_errors():
    check_errors(WRONG_DTYPES, ["input 'x' must be bfloat16, not float32",
                "input 'x' must be bfloat16, not uint16",
                "input 'x' must be bfloat16, not float16",
                "input 'x' must be int8, not uint8",
                "input 'x' has shape",
                "input 'x' has dtype int8 but int16 is expected"])


def test_no_memory_growth_bfloat16_1000_runs():
    # The bfloat16 path makes a uint16 view per input and per output: 1000
    # runs of 64x64 (8 KiB each way) would leak 16 MB if a view or its
    # buffer were kept.
    def rss_kib():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    g = helper.make_graph([helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0])], "t",
                          [helper.make_tensor_value_info("x", TP.BFLOAT16, [64, 64])],
                          [helper.make_tensor_value_info("y", TP.BFLOAT16, [64, 64])])
    model = strata.import_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    s = strata.Session(strata.compile(model), threads=1)
    x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64).astype(ml_dtypes.bfloat16)
    for _ in range(200):
        s.run({"x": x})
    before = rss_kib()
    for _ in range(1000):
        y = s.run({"x": x})["y"]
    grown = rss_kib() - before
    assert grown < 2048, f"RSS grew by {grown} KiB over 1000 bfloat16 runs"
    np.testing.assert_array_equal(y, x.T)
