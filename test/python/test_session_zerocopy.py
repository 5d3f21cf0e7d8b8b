"""Session.run without copies (docs/python.md, "Session"): the runtime reads
each input from the array's own memory and writes each output into the array
returned (a new one, or the caller's through `outputs=`). Checked: an output
array supplied is the one returned and holds numpy's result; new outputs share
memory with nothing else; an input bound in place is seen by the runtime (an
output over it is refused as overlapping); non-contiguous and misaligned
inputs go through one copy and give numpy's result; a run-time shaped output
is a view of its bound; bad output arrays are errors naming the output.
Values are exact (Relu, Add, NonZero)."""
import numpy as np
import pytest

import strata

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as TP, helper  # noqa: E402


def _session(nodes, inputs, outputs):
    g = helper.make_graph(nodes, "m", [helper.make_tensor_value_info(*i) for i in inputs],
                          [helper.make_tensor_value_info(*o) for o in outputs])
    model = strata.import_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    return strata.Session(strata.compile(model), threads=1)


@pytest.fixture(scope="module")
def add_relu():
    # y = relu(x), z = x + x
    return _session([helper.make_node("Relu", ["x"], ["y"]),
                     helper.make_node("Add", ["x", "x"], ["z"])],
                    [("x", TP.FLOAT, [2, 3])],
                    [("y", TP.FLOAT, [2, 3]), ("z", TP.FLOAT, [2, 3])])


def _x(seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, (2, 3)).astype(np.float32)


def test_outputs_are_written_into_the_callers_arrays(add_relu):
    x = _x()
    y = np.full((2, 3), np.nan, np.float32)
    out = add_relu.run({"x": x}, outputs={"y": y})
    assert out["y"] is y
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    np.testing.assert_array_equal(out["z"], x + x)
    # 4-byte aligned but not 64: element alignment is all the runtime needs.
    buf = np.zeros(2 * 3 + 16, np.float32)
    start = next(i for i in range(16) if buf[i:].ctypes.data % 64)
    z = buf[start:start + 6].reshape(2, 3)
    assert z.ctypes.data % 64 != 0
    out = add_relu.run({"x": x}, outputs={"z": z})
    assert out["z"] is z
    np.testing.assert_array_equal(z, x + x)
    assert not buf[:start].any() and not buf[start + 6:].any()  # nothing else written


def test_new_outputs_share_memory_with_nothing(add_relu):
    x1, x2 = _x(1), _x(2)
    a = add_relu.run({"x": x1})
    b = add_relu.run({"x": x2})
    arrays = [x1, x2, a["y"], a["z"], b["y"], b["z"]]
    for i, p in enumerate(arrays):
        for q in arrays[i + 1:]:
            assert not np.shares_memory(p, q)
    np.testing.assert_array_equal(a["y"], np.maximum(x1, 0))  # not overwritten
    np.testing.assert_array_equal(b["z"], x2 + x2)
    assert a["y"].flags.c_contiguous and a["y"].flags.writeable


def test_inputs_are_read_in_place(add_relu):
    # The runtime sees the input array's own memory: an output over it overlaps.
    x = _x(3)
    with pytest.raises(strata.Error, match="output 'y' is bound to memory that overlaps input 'x'"):
        add_relu.run({"x": x}, outputs={"y": x})
    np.testing.assert_array_equal(x, _x(3))  # the input was not written


def test_non_contiguous_and_misaligned_inputs_are_copied_once(add_relu):
    x = np.ascontiguousarray(_x(4).T).T  # Fortran order
    assert not x.flags.c_contiguous
    out = add_relu.run({"x": x})
    np.testing.assert_array_equal(out["y"], np.maximum(x, 0))
    raw = bytearray(4 * 6 + 1)
    odd = np.frombuffer(raw, np.float32, count=6, offset=1).reshape(2, 3)
    assert odd.ctypes.data % 4 != 0
    odd_values = _x(5)
    raw[1:] = odd_values.tobytes()
    out = add_relu.run({"x": odd})
    np.testing.assert_array_equal(out["z"], odd_values + odd_values)


def test_bad_output_arrays(add_relu):
    x = _x()
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    cases = [({"y": np.zeros((2, 3), np.float64)}, "output 'y' must be float32, not float64"),
             ({"y": np.zeros((3, 2), np.float32)}, r"output 'y' must have shape \(2, 3\), not \(3, 2\)"),
             ({"y": np.zeros((3, 2), np.float32).T}, "output 'y' must be C-contiguous"),
             ({"y": ro}, "output 'y' is read-only"),
             ({"w": np.zeros((2, 3), np.float32)}, r"'w' is not an output of the model \(its outputs: 'y', 'z'\)"),
             ({"y": [0.0] * 6}, "output 'y' is not an array")]
    for outputs, message in cases:
        with pytest.raises(strata.Error, match=message):
            add_relu.run({"x": x}, outputs=outputs)
    with pytest.raises(strata.Error, match="outputs must be a dict"):
        add_relu.run({"x": x}, outputs=[ro])
    np.testing.assert_array_equal(add_relu.run({"x": x})["y"], np.maximum(x, 0))


def test_run_time_shaped_output_is_a_view_of_its_bound():
    s = _session([helper.make_node("NonZero", ["x"], ["y"])], [("x", TP.FLOAT, [3, 4])],
                 [("y", TP.INT64, [2, None])])
    x = np.zeros((3, 4), np.float32)
    x[0, 1] = x[2, 3] = x[1, 0] = 1.5
    ref = np.array(np.nonzero(x), np.int64)
    y = s.run({"x": x})["y"]
    assert y.shape == ref.shape == (2, 3)
    np.testing.assert_array_equal(y, ref)
    # A supplied array of the bound (2 x 12 int64): the result is a view of it.
    bound = np.full(2 * 12, -1, np.int64)
    y = s.run({"x": x}, outputs={"y": bound})["y"]
    np.testing.assert_array_equal(y, ref)
    assert np.shares_memory(y, bound) and y.ctypes.data == bound.ctypes.data
    np.testing.assert_array_equal(bound[:6], ref.ravel())
    with pytest.raises(strata.Error, match=r"output 'y' has 184 bytes; the run needs 192 "
                                           r"\(int64 \(2, 12\), the bound"):
        s.run({"x": x}, outputs={"y": np.zeros(23, np.int64)})
