"""Run-time shapes of the compiled path (docs/codegen.md, "Run-time shapes"):
NonZero, Unique, NonMaxSuppression and Range of run-time bounds compile to
kernel dispatches whose results the runtime returns with their actual shapes.
Each model is compiled once (`strata compile --target cpu`) and run on random
inputs, inputs with empty results and all-zero inputs, compared with numpy
references written here (not the interpreter): integers exact, floats rtol
1e-6 (Range's float elements accumulate in f32 as ONNX's function body does,
numpy multiplies: rtol 1e-5). Bad input at run time (a Range over its bound,
delta 0) and a consumer of a run-time shape at compile time are clear errors.
"""
import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")

# Every test here compiles; the compiled rerun of test/numeric would repeat them.
pytestmark = pytest.mark.skipif(os.environ.get("STRATA_NUMERIC_BACKEND") == "compiled",
                                reason="already compiled in the default run")


def run(*args, ok=True):
    r = subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True, timeout=300)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def compile_onnx(tmp_path, graph, *flags):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path))
    art = tmp_path / "m.strata"
    run("compile", path, "--target", "cpu", "-o", art, *flags)
    return art


def execute(tmp_path, art, inputs, ok=True):
    ins, outs = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(ins, **inputs)
    r = run("run", art, "--input", ins, "--output", outs, ok=ok)
    if not ok:
        return r
    with np.load(outs) as f:
        return {k: f[k] for k in f.files}


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


# ---- NonZero -------------------------------------------------------------

@pytest.fixture(scope="module")
def nonzero_art(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nonzero")
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["y"])], "nz",
        [vi("x", TensorProto.FLOAT, [3, 4, 5])], [vi("y", TensorProto.INT64, [3, None])])
    return tmp, compile_onnx(tmp, g)


@pytest.mark.parametrize("case", ["random", "all_zero", "all_nonzero", "nan_negzero"])
def test_nonzero(nonzero_art, case):
    tmp, art = nonzero_art
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    if case == "random":
        x[rng.random(x.shape) < 0.6] = 0
    elif case == "all_zero":
        x[:] = 0
    elif case == "nan_negzero":
        x[:] = 0
        x[0, 1, 2] = np.nan
        x[1, 0, 0] = -0.0
        x[2, 3, 4] = 1e-30
    y = execute(tmp, art, {"x": x})["y"]
    ref = np.array(np.nonzero(x), dtype=np.int64)
    assert y.dtype == np.int64 and y.shape == ref.shape, (y.shape, ref.shape)
    np.testing.assert_array_equal(y, ref)


def test_nonzero_returned_twice(tmp_path):
    # The second output is a copy of the first: its dims come with it.
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["y"]), helper.make_node("Identity", ["y"], ["z"])],
        "nz2", [vi("x", TensorProto.INT32, [6])],
        [vi("y", TensorProto.INT64, [1, None]), vi("z", TensorProto.INT64, [1, None])])
    art = compile_onnx(tmp_path, g)
    x = np.array([0, 3, 0, -1, 0, 7], np.int32)
    out = execute(tmp_path, art, {"x": x})
    ref = np.array(np.nonzero(x), np.int64)
    np.testing.assert_array_equal(out["y"], ref)
    np.testing.assert_array_equal(out["z"], ref)


# ---- Unique --------------------------------------------------------------

def unique_reference(x, axis, sorted_):
    y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                 return_counts=True, axis=axis)
    inv = inv.reshape(-1)
    if not sorted_:  # order of first occurrence
        order = np.argsort(idx, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        y = np.take(y, order, axis=0 if axis is None else axis)
        idx, cnt, inv = idx[order], cnt[order], rank[inv]
    return y, idx.astype(np.int64), inv.astype(np.int64), cnt.astype(np.int64)


@pytest.mark.parametrize("sorted_", [1, 0])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_unique_flat(tmp_path, sorted_, dtype):
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    g = helper.make_graph(
        [helper.make_node("Unique", ["x"], ["y", "i", "inv", "c"], sorted=sorted_)], "u",
        [vi("x", elem, [4, 5])],
        [vi("y", elem, [None]), vi("i", TensorProto.INT64, [None]),
         vi("inv", TensorProto.INT64, [20]), vi("c", TensorProto.INT64, [None])])
    art = compile_onnx(tmp_path, g)
    rng = np.random.default_rng(2)
    for x in [rng.integers(-3, 4, (4, 5)).astype(dtype), np.zeros((4, 5), dtype),
              np.arange(20, 0, -1).reshape(4, 5).astype(dtype)]:
        out = execute(tmp_path, art, {"x": x})
        ref = unique_reference(x.reshape(-1), None, sorted_)
        for name, r in zip(["y", "i", "inv", "c"], ref):
            assert out[name].shape == r.shape, (name, out[name].shape, r.shape)
            np.testing.assert_array_equal(out[name], r, err_msg=name)


def test_unique_axis(tmp_path):
    g = helper.make_graph(
        [helper.make_node("Unique", ["x"], ["y", "i", "inv", "c"], sorted=1, axis=1)], "u",
        [vi("x", TensorProto.FLOAT, [2, 6, 2])],
        [vi("y", TensorProto.FLOAT, [2, None, 2]), vi("i", TensorProto.INT64, [None]),
         vi("inv", TensorProto.INT64, [6]), vi("c", TensorProto.INT64, [None])])
    art = compile_onnx(tmp_path, g)
    rng = np.random.default_rng(3)
    x = rng.integers(0, 2, (2, 6, 2)).astype(np.float32)
    x[:, 3] = x[:, 0]  # a repeated slice
    out = execute(tmp_path, art, {"x": x})
    ref = unique_reference(x, 1, True)
    for name, r in zip(["y", "i", "inv", "c"], ref):
        assert out[name].shape == r.shape, (name, out[name].shape, r.shape)
        np.testing.assert_array_equal(out[name], r, err_msg=name)


# ---- NonMaxSuppression ---------------------------------------------------

def iou(a, b):
    ay0, ay1 = sorted([a[0], a[2]]); ax0, ax1 = sorted([a[1], a[3]])
    by0, by1 = sorted([b[0], b[2]]); bx0, bx1 = sorted([b[1], b[3]])
    iw = min(ax1, bx1) - max(ax0, bx0)
    ih = min(ay1, by1) - max(ay0, by0)
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter)


def nms_reference(boxes, scores, max_out, iou_t, score_t):
    rows = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            cand = [i for i in range(len(s)) if s[i] > score_t]
            cand.sort(key=lambda i: (-s[i], i))
            kept = []
            for i in cand:
                if len(kept) >= max_out:
                    break
                if all(iou(boxes[b, i].astype(np.float64), boxes[b, k].astype(np.float64)) <= iou_t
                       for k in kept):
                    kept.append(i)
                    rows.append([b, c, i])
    return np.array(rows, np.int64).reshape(-1, 3)


@pytest.mark.parametrize("max_out", [3, 100])
def test_nms(tmp_path, max_out):
    g = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max", "iou", "score"], ["sel"])],
        "nms",
        [vi("boxes", TensorProto.FLOAT, [2, 10, 4]), vi("scores", TensorProto.FLOAT, [2, 3, 10]),
         vi("iou", TensorProto.FLOAT, [1]), vi("score", TensorProto.FLOAT, [1])],
        [vi("sel", TensorProto.INT64, [None, 3])],
        initializer=[helper.make_tensor("max", TensorProto.INT64, [1], [max_out])])
    art = compile_onnx(tmp_path, g)
    rng = np.random.default_rng(4)
    for trial in range(3):
        corner = rng.random((2, 10, 2)) * 4
        boxes = np.concatenate([corner, corner + 0.5 + rng.random((2, 10, 2)) * 2], -1)
        boxes = boxes.astype(np.float32)
        scores = rng.random((2, 3, 10)).astype(np.float32)
        iou_t = np.array([0.3 + 0.2 * trial], np.float32)
        # trial 2: a score threshold above every score, an empty result
        score_t = np.array([0.5 if trial < 2 else 2.0], np.float32)
        out = execute(tmp_path, art, {"boxes": boxes, "scores": scores, "iou": iou_t,
                                      "score": score_t})["sel"]
        ref = nms_reference(boxes, scores, max_out, float(iou_t[0]), float(score_t[0]))
        assert out.shape == ref.shape, (out.shape, ref.shape)
        np.testing.assert_array_equal(out, ref)
        if trial == 2:
            assert out.shape == (0, 3)


# ---- Range ---------------------------------------------------------------

def range_graph(elem):
    return helper.make_graph(
        [helper.make_node("Range", ["s", "l", "d"], ["y"])], "r",
        [vi("s", elem, []), vi("l", elem, []), vi("d", elem, [])], [vi("y", elem, [None])])


@pytest.fixture(scope="module")
def range_art(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("range")
    arts = {}
    for dtype, elem in [(np.int64, TensorProto.INT64), (np.float32, TensorProto.FLOAT)]:
        sub = tmp / np.dtype(dtype).name
        sub.mkdir()
        arts[dtype] = compile_onnx(sub, range_graph(elem), "--max-range-elements", "50")
    return tmp, arts


@pytest.mark.parametrize("dtype,bounds", [
    (np.int64, (0, 10, 3)), (np.int64, (10, -7, -4)), (np.int64, (5, 5, 1)), (np.int64, (5, 0, 1)),
    (np.int64, (0, 50, 1)), (np.float32, (0.5, 4.0, 0.25)), (np.float32, (1.0, -2.0, -0.3))])
def test_range(range_art, dtype, bounds):
    tmp, arts = range_art
    s, l, d = (np.array(v, dtype) for v in bounds)
    y = execute(tmp, arts[dtype], {"s": s, "l": l, "d": d})["y"]
    ref = np.arange(s, l, d, dtype=dtype)
    assert y.dtype == dtype and y.shape == ref.shape, (y.shape, ref.shape)
    if dtype == np.int64:
        np.testing.assert_array_equal(y, ref)
    else:
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_range_over_bound_is_an_error(range_art):
    tmp, arts = range_art
    r = execute(tmp, arts[np.int64], {"s": np.array(0, np.int64), "l": np.array(51, np.int64),
                                      "d": np.array(1, np.int64)}, ok=False)
    assert r.returncode != 0
    assert "Range" in r.stderr and "[51]" in r.stderr and "exceeds its compiled bound [50]" \
        in r.stderr, r.stderr
    r = execute(tmp, arts[np.float32], {"s": np.array(0, np.float32),
                                        "l": np.array(np.inf, np.float32),
                                        "d": np.array(1, np.float32)}, ok=False)
    assert r.returncode != 0 and "exceeds its compiled bound" in r.stderr, r.stderr
    r = execute(tmp, arts[np.int64], {"s": np.array(0, np.int64), "l": np.array(5, np.int64),
                                      "d": np.array(0, np.int64)}, ok=False)
    assert r.returncode != 0 and "delta is 0" in r.stderr, r.stderr


def test_elementwise_on_a_runtime_shape(tmp_path):
    # Cast and Mul by a scalar run over the bound and share NonZero's dims.
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["n"]),
         helper.make_node("Cast", ["n"], ["f"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["f", "s"], ["y"])],
        "nze", [vi("x", TensorProto.FLOAT, [3, 4]), vi("s", TensorProto.FLOAT, [1])],
        [vi("y", TensorProto.FLOAT, [2, None]), vi("n", TensorProto.INT64, [2, None])])
    art = compile_onnx(tmp_path, g)
    rng = np.random.default_rng(7)
    for zeros in [0.5, 1.0]:
        x = rng.standard_normal((3, 4)).astype(np.float32)
        x[rng.random(x.shape) < zeros] = 0
        s = np.array([2.5], np.float32)
        out = execute(tmp_path, art, {"x": x, "s": s})
        ref = np.array(np.nonzero(x), np.int64)
        np.testing.assert_array_equal(out["n"], ref)
        assert out["y"].shape == ref.shape
        np.testing.assert_array_equal(out["y"], ref.astype(np.float32) * s)


def test_other_consumer_of_a_runtime_shape_is_a_compile_error(tmp_path):
    g = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["n"]),
         helper.make_node("Transpose", ["n"], ["y"], perm=[1, 0])],
        "nzc", [vi("x", TensorProto.FLOAT, [4])], [vi("y", TensorProto.INT64, [None, 1])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(tmp_path / "m.onnx"))
    r = run("compile", tmp_path / "m.onnx", "--target", "cpu", "-o", tmp_path / "m.strata",
            ok=False)
    assert r.returncode != 0
    assert "has no CPU code-generation lowering yet for an operand whose shape is decided at run time by 'top.NonZero'" \
        in r.stderr, r.stderr


# ---- Loop with scan outputs and a constant trip count --------------------

def test_loop_scan_constant_trip_count(tmp_path):
    # The trip count and condition are initializers (in the weight file):
    # the compiler gives the scan output its static length and keeps them as
    # constants inside the Loop's dispatch.
    body = helper.make_graph(
        [helper.make_node("Add", ["prev", "delta"], ["next"]),
         helper.make_node("Mul", ["prev", "prev"], ["sq"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("prev", TensorProto.FLOAT, [2])],
        [vi("cond_out", TensorProto.BOOL, []), vi("next", TensorProto.FLOAT, [2]),
         vi("sq", TensorProto.FLOAT, [2])])
    trips = 6
    g = helper.make_graph(
        [helper.make_node("Loop", ["m", "c", "start"], ["last", "scan"], body=body)], "loop",
        [vi("start", TensorProto.FLOAT, [2]), vi("delta", TensorProto.FLOAT, [2])],
        [vi("last", TensorProto.FLOAT, [2]), vi("scan", TensorProto.FLOAT, [None, 2])],
        initializer=[helper.make_tensor("m", TensorProto.INT64, [], [trips]),
                     helper.make_tensor("c", TensorProto.BOOL, [], [True])])
    art = compile_onnx(tmp_path, g)
    rng = np.random.default_rng(5)
    start = rng.standard_normal(2).astype(np.float32)
    delta = rng.standard_normal(2).astype(np.float32)
    out = execute(tmp_path, art, {"start": start, "delta": delta})
    prev, rows = start.copy(), []
    for _ in range(trips):
        rows.append(prev * prev)
        prev = (prev + delta).astype(np.float32)
    assert out["scan"].shape == (trips, 2)
    np.testing.assert_allclose(out["scan"], np.array(rows), rtol=1e-6)
    np.testing.assert_allclose(out["last"], prev, rtol=1e-6)


# ---- Loop with scan outputs and a run-time trip count --------------------

@pytest.fixture(scope="module")
def runtime_loop_art(tmp_path_factory):
    # y = y * 0.5 + x while i < m and any(y >= 1): the trip count is an
    # input and the body may stop early; the scan output's length is
    # decided at run time (bound 8 here).
    tmp = tmp_path_factory.mktemp("rloop")
    body = helper.make_graph(
        [helper.make_node("Mul", ["y_in", "half"], ["h"]),
         helper.make_node("Add", ["h", "x"], ["y_out"]),
         helper.make_node("GreaterOrEqual", ["y_out", "one"], ["ge"]),
         helper.make_node("Cast", ["ge"], ["gef"], to=TensorProto.FLOAT),
         helper.make_node("ReduceMax", ["gef"], ["anyf"], keepdims=0),
         helper.make_node("Cast", ["anyf"], ["cond_out"], to=TensorProto.BOOL)],
        "body",
        [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("y_in", TensorProto.FLOAT, [3])],
        [vi("cond_out", TensorProto.BOOL, []), vi("y_out", TensorProto.FLOAT, [3]),
         vi("y_out", TensorProto.FLOAT, [3])],
        initializer=[helper.make_tensor("half", TensorProto.FLOAT, [], [0.5]),
                     helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "y0"], ["last", "scan"], body=body)], "rloop",
        [vi("m", TensorProto.INT64, []), vi("y0", TensorProto.FLOAT, [3]),
         vi("x", TensorProto.FLOAT, [3])],
        [vi("last", TensorProto.FLOAT, [3]), vi("scan", TensorProto.FLOAT, [None, 3])])
    return tmp, compile_onnx(tmp, g, "--max-scan-length", "8")


def loop_reference(m, y0, x):
    y, rows = y0.copy(), []
    for _ in range(max(int(m), 0)):
        y = (y * np.float32(0.5) + x).astype(np.float32)
        rows.append(y)
        if not np.any(y >= 1):
            break
    return y, np.array(rows, np.float32).reshape(-1, 3)


@pytest.mark.parametrize("m,scale", [(5, 4.0), (0, 4.0), (-3, 4.0), (8, 4.0), (50, 0.1)])
def test_loop_runtime_trip_count(runtime_loop_art, m, scale):
    tmp, art = runtime_loop_art
    rng = np.random.default_rng(6)
    y0 = (rng.random(3) * scale).astype(np.float32)
    x = (rng.random(3) * scale).astype(np.float32)
    out = execute(tmp, art, {"m": np.array(m, np.int64), "y0": y0, "x": x})
    last, scan = loop_reference(m, y0, x)
    assert out["scan"].shape == scan.shape, (out["scan"].shape, scan.shape)
    np.testing.assert_allclose(out["scan"], scan, rtol=1e-6)
    np.testing.assert_allclose(out["last"], last, rtol=1e-6)


def test_loop_over_its_scan_bound_is_an_error(runtime_loop_art):
    tmp, art = runtime_loop_art
    r = execute(tmp, art, {"m": np.array(9, np.int64), "y0": np.full(3, 4, np.float32),
                           "x": np.full(3, 4, np.float32)}, ok=False)
    assert r.returncode != 0
    assert "Loop" in r.stderr and "[9, 3] exceeds its compiled bound [8, 3]" in r.stderr, r.stderr
