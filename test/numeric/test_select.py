"""Index and selection ops (Trilu, Cumulative, ScatterElements, ScatterND,
GatherND, TopK, OneHot, ReverseSequence, MaxUnpool, MaxPoolIndices) against
independent numpy references on seeded random data, including negative
indices and axes, duplicates and several dtypes. Data movement and integer
results are compared exactly; float scans and reductions with rtol 1e-5,
atol 1e-6. Out-of-range indices must fail with an error naming the op, the
index and the bound."""
import itertools

import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok, run_ref

FLOAT_TOL = dict(rtol=1e-5, atol=1e-6)


def elem(dtype):
    return mlir_type((), dtype)[len("tensor<"):-1]


def types(*arrays):
    return ", ".join(mlir_type(a.shape, a.dtype) for a in arrays)


def run_op(inputs, op_text, out_dtypes):
    """Runs one op; `op_text` follows `%y = ` and has a `{results}`
    placeholder for the unranked result types."""
    m = Model(inputs)
    tys = [f"tensor<*x{elem(d)}>" for d in out_dtypes]
    res = tys[0] if len(tys) == 1 else "(" + ", ".join(tys) + ")"
    n = len(tys)
    m.op(("%y" if n == 1 else f"%y:{n}") + " = " + op_text.replace("{results}", res))
    names = ["%y"] if n == 1 else [f"%y#{i}" for i in range(n)]
    out = run_ok(m, [(v, f"y{i}", t) for i, (v, t) in enumerate(zip(names, tys))])
    return [out[f"y{i}"] for i in range(n)]


def run_fail(inputs, op_text, out_dtype):
    m = Model(inputs)
    t = f"tensor<*x{elem(out_dtype)}>"
    m.op("%y = " + op_text.replace("{results}", t))
    code, _, err = run_ref(m, [("%y", "y", t)])
    assert code != 0
    return err


def assert_same(got, expect):
    assert got.dtype == expect.dtype, (got.dtype, expect.dtype)
    assert got.shape == expect.shape, (got.shape, expect.shape)
    np.testing.assert_array_equal(got, expect)


def rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-20, 20, shape).astype(dtype)


# ----------------------------------------------------------------------------
# Trilu
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8, np.bool_])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("k", [-7, -1, 0, 2, 9])
def test_trilu(dtype, upper, k, rng):
    x = rand(rng, (2, 3, 5), dtype) if dtype != np.bool_ else rng.integers(0, 2, (2, 3, 5)).astype(np.bool_)
    y, = run_op({"x": x}, f"top.Trilu(%x) {{upper = {str(upper).lower()}, diagonal = {k} : i64}}"
                f" : ({types(x)}) -> {{results}}", [dtype])
    rows, cols = np.indices((3, 5))
    keep = (cols - rows >= k) if upper else (cols - rows <= k)
    assert_same(y, np.where(keep, x, np.zeros_like(x)))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("k", [-2, 0, 3])
def test_trilu_runtime_diagonal(upper, k, rng):
    x = rand(rng, (2, 4, 3), np.float32)
    kv = np.array(k, np.int32)
    y, = run_op({"x": x, "k": kv}, f"top.Trilu(%x, %k) {{upper = {str(upper).lower()}}}"
                f" : ({types(x, kv)}) -> {{results}}", [np.float32])
    assert_same(y, np.triu(x, k) if upper else np.tril(x, k))


# ----------------------------------------------------------------------------
# Cumulative
# ----------------------------------------------------------------------------

def cumulative_ref(x, axis, mode, exclusive, reverse):
    """Loop reference, independent of the op's scan order trick."""
    x = np.moveaxis(x, axis, -1)
    out = np.empty_like(x)
    n = x.shape[-1]
    for idx in np.ndindex(x.shape[:-1]):
        acc = x.dtype.type(1 if mode == "prod" else 0)
        order = range(n - 1, -1, -1) if reverse else range(n)
        for j in order:
            if exclusive:
                out[idx + (j,)] = acc
            acc = acc * x[idx + (j,)] if mode == "prod" else acc + x[idx + (j,)]
            if not exclusive:
                out[idx + (j,)] = acc
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("mode", ["sum", "prod"])
@pytest.mark.parametrize("exclusive,reverse", list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize("dtype,axis", [(np.float32, 1), (np.float32, -1), (np.int32, 0),
                                        (np.float64, -3)])
def test_cumulative(mode, exclusive, reverse, dtype, axis, rng):
    x = rand(rng, (3, 4, 5), dtype)
    if dtype == np.int32:
        x = (x % 5).astype(dtype)
    y, = run_op({"x": x}, f"top.Cumulative(%x) {{axis = {axis} : i64, mode = #top.cumulative_mode<{mode}>, "
                f"exclusive = {str(exclusive).lower()}, reverse = {str(reverse).lower()}}}"
                f" : ({types(x)}) -> {{results}}", [dtype])
    with np.errstate(over="ignore"):
        expect = cumulative_ref(x, axis, mode, exclusive, reverse)
    assert y.dtype == expect.dtype and y.shape == expect.shape
    if dtype in (np.float32, np.float64):
        np.testing.assert_allclose(y, expect, **FLOAT_TOL)
    else:
        assert_same(y, expect)


@pytest.mark.parametrize("mode", ["sum", "prod"])
@pytest.mark.parametrize("exclusive,reverse", [(False, False), (True, True), (False, True)])
@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint8])
def test_cumulative_narrow(mode, exclusive, reverse, dtype, rng):
    """f16 accumulates in f32 and rounds each output once; 8-bit integers
    wrap around."""
    x = rand(rng, (3, 6), dtype)
    y, = run_op({"x": x}, f"top.Cumulative(%x) {{axis = 1 : i64, mode = #top.cumulative_mode<{mode}>, "
                f"exclusive = {str(exclusive).lower()}, reverse = {str(reverse).lower()}}}"
                f" : ({types(x)}) -> {{results}}", [dtype])
    if dtype == np.float16:
        expect = cumulative_ref(x.astype(np.float32), 1, mode, exclusive, reverse).astype(np.float16)
        np.testing.assert_allclose(y.astype(np.float32), expect.astype(np.float32), rtol=1e-3, atol=1e-3)
    else:
        with np.errstate(over="ignore"):
            expect = cumulative_ref(x, 1, mode, exclusive, reverse)
        assert_same(y, expect)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
@pytest.mark.parametrize("axis_dtype", [np.int64, np.int32])
def test_cumulative_runtime_axis(axis, axis_dtype, rng):
    """The axis as a run-time operand (ONNX CumSum's input)."""
    x = rand(rng, (3, 4, 5), np.float32)
    a = np.array([axis], axis_dtype)
    y, = run_op({"x": x, "a": a}, f"top.Cumulative(%x, %a) {{axis = 0 : i64, reverse = true}}"
                f" : ({types(x, a)}) -> {{results}}", [np.float32])
    np.testing.assert_allclose(y, cumulative_ref(x, axis, "sum", False, True), **FLOAT_TOL)


@pytest.mark.skipif(not COMPILED, reason="compiled code clamps; the interpreter reports an error")
def test_cumulative_runtime_axis_out_of_range_is_clamped_when_compiled(rng):
    """Compiled code clamps a run-time axis into [0, rank) after adding rank
    to a negative one (docs/codegen-reduction.md)."""
    x = rand(rng, (2, 3), np.int32)
    for axis, used in [(5, 1), (-7, 0)]:
        a = np.array(axis, np.int64)
        y, = run_op({"x": x, "a": a}, f"top.Cumulative(%x, %a) {{axis = 0 : i64}}"
                    f" : ({types(x, a)}) -> {{results}}", [np.int32])
        assert_same(y, cumulative_ref(x, used, "sum", False, False))


# ----------------------------------------------------------------------------
# ScatterElements and ScatterND
# ----------------------------------------------------------------------------

REDUCE = {"none": lambda a, b: b, "add": lambda a, b: a + b, "mul": lambda a, b: a * b,
          "min": min, "max": max}


@pytest.mark.parametrize("reduction", list(REDUCE))
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_scatter_elements(reduction, axis, dtype, rng):
    data = rand(rng, (4, 5), dtype)
    ishape = (3, 2) if axis == 0 else (4, 3)
    a = axis % 2
    indices = rng.integers(-data.shape[a], data.shape[a], ishape).astype(np.int64)
    updates = rand(rng, ishape, dtype)
    y, = run_op({"d": data, "i": indices, "u": updates},
                f"top.ScatterElements(%d, %i, %u) {{axis = {axis} : i64, reduction = #top.scatter_reduction<{reduction}>}}"
                f" : ({types(data, indices, updates)}) -> {{results}}", [dtype])
    expect = data.copy()
    for p in np.ndindex(ishape):
        q = list(p)
        q[a] = indices[p] % data.shape[a]
        expect[tuple(q)] = REDUCE[reduction](expect[tuple(q)], updates[p])
    assert y.dtype == expect.dtype
    np.testing.assert_allclose(y, expect, **FLOAT_TOL)


@pytest.mark.parametrize("reduction", list(REDUCE))
@pytest.mark.parametrize("k", [1, 2, 3])
def test_scatter_nd(reduction, k, rng):
    data = rand(rng, (3, 4, 2), np.float32)
    rows = 5
    indices = np.stack([rng.integers(-data.shape[j], data.shape[j], rows) for j in range(k)],
                       axis=-1).astype(np.int64)
    updates = rand(rng, (rows,) + data.shape[k:], np.float32)
    y, = run_op({"d": data, "i": indices, "u": updates},
                f"top.ScatterND(%d, %i, %u) {{reduction = #top.scatter_reduction<{reduction}>}}"
                f" : ({types(data, indices, updates)}) -> {{results}}", [np.float32])
    expect = data.copy()
    for r in range(rows):
        at = tuple(int(v) % data.shape[j] for j, v in enumerate(indices[r]))
        expect[at] = np.vectorize(REDUCE[reduction])(expect[at], updates[r]) \
            if reduction in ("min", "max") else REDUCE[reduction](expect[at], updates[r])
    np.testing.assert_allclose(y, expect, **FLOAT_TOL)


@pytest.mark.parametrize("reduction", ["add", "mul", "max"])
def test_scatter_elements_f16_reduces_in_f32(reduction, rng):
    """f16 data reduces in f32 and rounds once at the end."""
    data = (rng.standard_normal((2, 3)) * 100).astype(np.float16)
    indices = np.zeros((2, 6), np.int64)  # every update lands on column 0
    updates = (rng.standard_normal((2, 6)) * 3).astype(np.float16)
    y, = run_op({"d": data, "i": indices, "u": updates},
                f"top.ScatterElements(%d, %i, %u) {{axis = 1 : i64, reduction = #top.scatter_reduction<{reduction}>}}"
                f" : ({types(data, indices, updates)}) -> {{results}}", [np.float16])
    expect = data.astype(np.float32)
    for r in range(2):
        for c in range(6):
            expect[r, 0] = REDUCE[reduction](expect[r, 0], np.float32(updates[r, c]))
    assert_same(y, expect.astype(np.float16))


@pytest.mark.interpreter_only
def test_scatter_elements_index_out_of_range(rng):
    data = rand(rng, (3, 3), np.float32)
    indices = np.array([[0, 3]], np.int64)
    err = run_fail({"d": data, "i": indices, "u": np.ones((1, 2), np.float32)},
                   f"top.ScatterElements(%d, %i, %u) {{axis = 1 : i64}} : "
                   f"({types(data, indices, indices.astype(np.float32))}) -> {{results}}", np.float32)
    assert "top.ScatterElements" in err and "index 3" in err and "[-3, 3)" in err


# ----------------------------------------------------------------------------
# GatherND
# ----------------------------------------------------------------------------

def gather_nd_ref(data, indices, b):
    batch = int(np.prod(data.shape[:b], dtype=np.int64))
    d = data.reshape((batch,) + data.shape[b:])
    i = indices.reshape((batch, -1, indices.shape[-1]))
    out = []
    for bi in range(batch):
        for row in i[bi]:
            out.append(d[bi][tuple(row)])
    k = indices.shape[-1]
    return np.array(out, dtype=data.dtype).reshape(indices.shape[:-1] + data.shape[b + k:])


@pytest.mark.parametrize("b,k", [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (2, 1)])
def test_gather_nd(b, k, rng):
    data = rand(rng, (2, 3, 4), np.int32)
    dims = data.shape[b:b + k]
    indices = np.stack([rng.integers(-n, n, (2, 3, 2)[:b] + (2,)) for n in dims],
                       axis=-1).astype(np.int64) if b < 2 else \
        np.stack([rng.integers(-n, n, (2, 3)) for n in dims], axis=-1).astype(np.int64)
    y, = run_op({"d": data, "i": indices},
                f"top.GatherND(%d, %i) {{batch_dims = {b} : i64}} : ({types(data, indices)}) -> {{results}}",
                [np.int32])
    assert_same(y, gather_nd_ref(data, indices, b))


@pytest.mark.interpreter_only
def test_gather_nd_index_out_of_range(rng):
    data = rand(rng, (2, 3), np.float32)
    indices = np.array([[1, -4]], np.int64)
    err = run_fail({"d": data, "i": indices},
                   f"top.GatherND(%d, %i) : ({types(data, indices)}) -> {{results}}", np.float32)
    assert "top.GatherND" in err and "index -4" in err and "[-3, 3)" in err


# ----------------------------------------------------------------------------
# TopK
# ----------------------------------------------------------------------------

def topk_ref(x, k, axis, largest):
    """Stable order: ties keep the lower index first."""
    keyed = -x if largest and x.dtype.kind == "f" else x
    if largest and x.dtype.kind != "f":
        order = np.argsort(x, axis=axis, kind="stable")
        # Descending stable order: sort the reversed array, map back.
        n = x.shape[axis]
        rev = np.flip(x, axis=axis)
        order = n - 1 - np.flip(np.argsort(rev, axis=axis, kind="stable"), axis=axis)
    else:
        order = np.argsort(keyed, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint64, np.int8])
@pytest.mark.parametrize("axis,k", [(1, 3), (-1, 0), (0, 2), (-2, 4)])
def test_topk(largest, dtype, axis, k, rng):
    x = rng.integers(0, 6, (4, 5)).astype(dtype)  # many ties
    if dtype == np.uint64:
        x[0, 0] = np.uint64(2 ** 64 - 1)  # beyond int64 and double precision
        x[0, 1] = np.uint64(2 ** 64 - 2)
    v, i = run_op({"x": x}, f"top.TopK(%x) {{k = {k} : i64, axis = {axis} : i64, "
                  f"largest = {str(largest).lower()}}} : ({types(x)}) -> {{results}}",
                  [dtype, np.int64])
    ev, ei = topk_ref(x, k, axis, largest)
    assert_same(i, ei)
    assert_same(v, ev)


def test_topk_nan_is_largest():
    x = np.array([1.0, np.nan, 3.0, -np.inf], np.float32)
    v, i = run_op({"x": x}, f"top.TopK(%x) {{k = 2 : i64}} : ({types(x)}) -> {{results}}",
                  [np.float32, np.int64])
    assert_same(i, np.array([1, 2], np.int64))


def topk_nan_ref(row, k, largest, sorted_):
    """Positions of one row's top k: NaN above every number, ties by index."""
    if largest:
        order = sorted(range(len(row)), key=lambda j: (0, 0.0) if np.isnan(row[j]) else (1, -float(row[j])))
    else:
        order = sorted(range(len(row)), key=lambda j: (1, 0.0) if np.isnan(row[j]) else (0, float(row[j])))
    top = order[:k]
    return top if sorted_ else sorted(top)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted_", [True, False])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_topk_nan_ties_unsorted(largest, sorted_, dtype, rng):
    """NaN is the largest (last when smallest), ties keep the lower index;
    unsorted gives the selected elements in index order."""
    x = rng.integers(0, 4, (3, 7)).astype(dtype)
    x[0, 2] = np.nan
    x[1, [1, 5]] = np.nan
    k = 4
    v, i = run_op({"x": x}, f"top.TopK(%x) {{k = {k} : i64, axis = 1 : i64, largest = {str(largest).lower()}, "
                  f"sorted = {str(sorted_).lower()}}} : ({types(x)}) -> {{results}}", [dtype, np.int64])
    ei = np.array([topk_nan_ref(r, k, largest, sorted_) for r in x], np.int64)
    assert_same(i, ei)
    assert_same(v, np.take_along_axis(x, ei, axis=1))


# ----------------------------------------------------------------------------
# OneHot
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0, 1, -3])
@pytest.mark.parametrize("idx_dtype", [np.int64, np.float32, np.int32])
def test_one_hot(axis, idx_dtype, rng):
    depth = 5
    indices = rng.integers(-7, 7, (2, 3)).astype(idx_dtype)  # some out of range
    values = np.array([-1.5, 4.0], np.float32)
    y, = run_op({"i": indices, "v": values},
                f"top.OneHot(%i, %v, %none) {{depth = {depth} : i64, axis = {axis} : i64}} : "
                f"({types(indices, values)}, none) -> {{results}}", [np.float32])
    idx = indices.astype(np.int64)
    idx = np.where(idx < 0, idx + depth, idx)
    hot = np.arange(depth).reshape((1, 1, depth)) == idx[..., None]
    expect = np.moveaxis(np.where(hot, values[1], values[0]).astype(np.float32), -1, axis)
    assert_same(y, expect)


@pytest.mark.xfail(COMPILED, strict=True,
                   reason="the result shape depends on the depth value: compiled code needs static shapes")
@pytest.mark.parametrize("axis", [-1, 0])
def test_one_hot_runtime_depth(axis, rng):
    """The depth only known at run time (float, truncated)."""
    depth = 5
    indices = rng.integers(-7, 7, (2, 3)).astype(np.int64)
    values = np.array([-1.5, 4.0], np.float32)
    d = np.array([depth + 0.7], np.float32)
    y, = run_op({"i": indices, "v": values, "d": d},
                f"top.OneHot(%i, %v, %d) {{axis = {axis} : i64}} : "
                f"({types(indices, values, d)}) -> {{results}}", [np.float32])
    idx = np.where(indices < 0, indices + depth, indices)
    hot = np.arange(depth).reshape((1, 1, depth)) == idx[..., None]
    assert_same(y, np.moveaxis(np.where(hot, values[1], values[0]).astype(np.float32), -1, axis))


# ----------------------------------------------------------------------------
# ReverseSequence
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("batch_axis,time_axis", [(0, 1), (1, 0)])
def test_reverse_sequence(batch_axis, time_axis, rng):
    shape = [0, 0, 3]
    shape[batch_axis], shape[time_axis] = 4, 5
    x = rand(rng, tuple(shape), np.float32)
    lens = rng.integers(0, 6, 4).astype(np.int64)
    y, = run_op({"x": x, "l": lens},
                f"top.ReverseSequence(%x, %l) {{batch_axis = {batch_axis} : i64, "
                f"time_axis = {time_axis} : i64}} : ({types(x, lens)}) -> {{results}}",
                [np.float32])
    xb = np.moveaxis(x, (batch_axis, time_axis), (0, 1)).copy()
    for b, n in enumerate(lens):
        xb[b, :n] = xb[b, :n][::-1]
    assert_same(y, np.moveaxis(xb, (0, 1), (batch_axis, time_axis)))


@pytest.mark.interpreter_only
def test_reverse_sequence_bad_length(rng):
    x = rand(rng, (3, 2), np.float32)
    lens = np.array([1, 4], np.int64)
    err = run_fail({"x": x, "l": lens}, f"top.ReverseSequence(%x, %l) : ({types(x, lens)}) -> {{results}}",
                   np.float32)
    assert "top.ReverseSequence" in err and "sequence length 4" in err


# Compiled code cannot report bad indices: it clamps them
# (docs/codegen-data-movement.md). These pin that choice down.
compiled_only = pytest.mark.skipif(not COMPILED, reason="the interpreter rejects these inputs")


@compiled_only
def test_compiled_clamps_out_of_range_indices(rng):
    data = rand(rng, (3, 4), np.float32)
    idx = np.array([[0, 7, -9], [-1, 100, -4]], np.int64)
    clamped = np.clip(np.where(idx < 0, idx + 4, idx), 0, 3)
    gathered, = run_op({"d": data, "i": idx},
                       f"top.GatherElements(%d, %i) {{axis = 1 : i64}} : ({types(data, idx)}) -> {{results}}",
                       [np.float32])
    assert_same(gathered, np.take_along_axis(data[:2], clamped, axis=1))
    upd = rand(rng, idx.shape, np.float32)
    scattered, = run_op({"d": data, "i": idx, "u": upd},
                        f"top.ScatterElements(%d, %i, %u) {{axis = 1 : i64, reduction = #top.scatter_reduction<add>}} : "
                        f"({types(data, idx, upd)}) -> {{results}}", [np.float32])
    expect = data.copy()
    for r in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            expect[r, clamped[r, c]] += upd[r, c]
    np.testing.assert_allclose(scattered, expect, **FLOAT_TOL)


@compiled_only
def test_compiled_clamps_sequence_lengths(rng):
    x = rand(rng, (3, 2), np.float32)
    lens = np.array([-2, 9], np.int64)
    y, = run_op({"x": x, "l": lens}, f"top.ReverseSequence(%x, %l) : ({types(x, lens)}) -> {{results}}",
                [np.float32])
    expect = x.copy()
    expect[:, 1] = x[::-1, 1]   # 9 clamps to the 3 steps; -2 to 0
    assert_same(y, expect)


# ----------------------------------------------------------------------------
# MaxPoolIndices and MaxUnpool
# ----------------------------------------------------------------------------

def maxpool_indices_ref(x, k, s, p, storage_order):
    n, c, h, w = x.shape
    oh = (h + p[0] + p[2] - k[0]) // s[0] + 1
    ow = (w + p[1] + p[3] - k[1]) // s[1] + 1
    out = np.zeros((n, c, oh, ow), np.int64)
    for ni, ci, i, j in np.ndindex(out.shape):
        best = None
        for a in range(k[0]):
            for b in range(k[1]):
                hh, ww = i * s[0] - p[0] + a, j * s[1] - p[1] + b
                if 0 <= hh < h and 0 <= ww < w and (best is None or x[ni, ci, hh, ww] > best[0]):
                    best = (x[ni, ci, hh, ww], hh, ww)
        plane = (ni * c + ci) * h * w
        out[ni, ci, i, j] = plane + (best[2] * h + best[1] if storage_order else best[1] * w + best[2])
    return out


@pytest.mark.parametrize("storage_order", [0, 1])
@pytest.mark.parametrize("k,s,p", [((2, 2), (2, 2), (0, 0, 0, 0)), ((3, 2), (1, 2), (1, 0, 1, 1))])
def test_maxpool_indices_and_unpool(storage_order, k, s, p, rng):
    x = rng.integers(0, 4, (2, 3, 5, 6)).astype(np.float32)  # ties: first wins
    i, = run_op({"x": x}, f"top.MaxPoolIndices(%x) {{kernel_shape = array<i64: {k[0]}, {k[1]}>, "
                f"strides = array<i64: {s[0]}, {s[1]}>, pads = array<i64: {', '.join(map(str, p))}>, "
                f"storage_order = {storage_order} : i64}} : ({types(x)}) -> {{results}}", [np.int64])
    expect = maxpool_indices_ref(x, k, s, p, storage_order)
    assert_same(i, expect)
    if storage_order:
        return
    pooled = x.reshape(-1)[expect]
    y, = run_op({"v": pooled, "i": expect},
                f"top.MaxUnpool(%v, %i) {{output_shape = array<i64: 2, 3, 5, 6>}} : "
                f"({types(pooled, expect)}) -> {{results}}", [np.float32])
    ref = np.zeros(x.size, np.float32)
    ref[expect.reshape(-1)] = pooled.reshape(-1)
    assert_same(y, ref.reshape(x.shape))


def test_maxpool_indices_minus_inf_and_padding(rng):
    """Windows of -inf values next to the padding: the first input element
    wins, never a padded position."""
    x = np.full((1, 2, 3, 4), -np.inf, np.float32)
    x[0, 1, 2, 3] = 5.0
    i, = run_op({"x": x}, "top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 2>, "
                "strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : "
                f"({types(x)}) -> {{results}}", [np.int64])
    assert_same(i, maxpool_indices_ref(x, (2, 2), (1, 1), (1, 1, 1, 1), 0))


@pytest.mark.interpreter_only
def test_maxunpool_index_out_of_range():
    v = np.ones((1, 1, 1, 2), np.float32)
    i = np.array([[[[0, 16]]]], np.int64)
    err = run_fail({"v": v, "i": i}, f"top.MaxUnpool(%v, %i) {{output_shape = array<i64: 1, 1, 4, 4>}} : "
                   f"({types(v, i)}) -> {{results}}", np.float32)
    assert "top.MaxUnpool" in err and "index 16" in err and "[0, 16)" in err


# ----------------------------------------------------------------------------
# Data-dependent result shapes: NonZero, Unique, NonMaxSuppression
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 0, 3), (2, 3, 2)])
def test_nonzero(dtype, shape, rng):
    x = rng.integers(0, 3, shape).astype(dtype)
    y, = run_op({"x": x}, f"top.NonZero(%x) : ({types(x)}) -> {{results}}", [np.int64])
    assert_same(y, np.array(np.nonzero(x), np.int64).reshape(len(shape), -1))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_unique_sorted(axis, dtype, rng):
    x = rng.integers(0, 3, (4, 3)).astype(dtype)
    x[2] = x[0]  # a repeated slice along axis 0
    attrs = "sorted = true" + ("" if axis is None else f", has_axis = true, axis = {axis} : i64")
    y, first, inverse, counts = run_op(
        {"x": x}, f"top.Unique(%x) {{{attrs}}} : ({types(x)}) -> {{results}}",
        [dtype, np.int64, np.int64, np.int64])
    ey, ef, ei, ec = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                               axis=axis)
    assert_same(y, ey)
    assert_same(first, ef.astype(np.int64))
    assert_same(inverse, ei.reshape(-1).astype(np.int64))
    assert_same(counts, ec.astype(np.int64))


def test_unique_first_occurrence_order():
    x = np.array([2.0, 1.0, 1.0, 3.0, 4.0, 3.0], np.float32)
    y, first, inverse, counts = run_op(
        {"x": x}, f"top.Unique(%x) {{sorted = false}} : ({types(x)}) -> {{results}}",
        [np.float32, np.int64, np.int64, np.int64])
    assert_same(y, np.array([2, 1, 3, 4], np.float32))
    assert_same(first, np.array([0, 1, 3, 4], np.int64))
    assert_same(inverse, np.array([0, 1, 1, 2, 3, 2], np.int64))
    assert_same(counts, np.array([1, 2, 2, 1], np.int64))


def nms_ref(boxes, scores, max_out, iou_thr, score_thr, center):
    """Straightforward greedy NMS written from the ONNX operator text."""
    def corners(b):
        if center:
            return b[0] - b[2] / 2, b[0] + b[2] / 2, b[1] - b[3] / 2, b[1] + b[3] / 2
        return min(b[1], b[3]), max(b[1], b[3]), min(b[0], b[2]), max(b[0], b[2])

    def iou(a, b):
        ax0, ax1, ay0, ay1 = corners(a)
        bx0, bx1, by0, by1 = corners(b)
        iw, ih = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
        if iw <= 0 or ih <= 0:
            return 0.0
        inter = iw * ih
        return inter / ((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter)

    out = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            cand = [i for i in range(len(s)) if score_thr is None or s[i] > score_thr]
            cand.sort(key=lambda i: (-s[i], i))
            kept = []
            for i in cand:
                if len(kept) >= max_out:
                    break
                if all(iou(boxes[b, i].astype(np.float64), boxes[b, j].astype(np.float64)) <= iou_thr
                       for j in kept):
                    kept.append(i)
                    out.append((b, c, i))
    return np.array(out, np.int64).reshape(-1, 3)


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("score_thr", [None, 0.5])
@pytest.mark.parametrize("max_out", [0, 2, 10])
def test_non_max_suppression(center, score_thr, max_out, rng):
    xy = rng.uniform(0, 6, (2, 10, 2))
    wh = rng.uniform(1, 4, (2, 10, 2))
    boxes = (np.concatenate([xy, wh], -1) if center else
             np.concatenate([xy + wh, xy], -1)).astype(np.float32)  # flipped corners
    scores = rng.uniform(0, 1, (2, 3, 10)).astype(np.float32)
    scores[0, 0, 3] = scores[0, 0, 5]  # a tie: lower index first
    ins = {"b": boxes, "s": scores, "m": np.array([max_out], np.int64),
           "t": np.array([0.25], np.float32), "st": np.array([score_thr or 0], np.float32)}
    st = "%st" if score_thr is not None else "%none"
    st_type = "tensor<1xf32>" if score_thr is not None else "none"
    if score_thr is None:
        del ins["st"]
    y, = run_op(ins, f"top.NonMaxSuppression(%b, %s, %m, %t, {st}) {{center_point_box = {center} : i64}}"
                f" : ({types(boxes, scores)}, tensor<1xi64>, tensor<1xf32>, {st_type}) -> {{results}}",
                [np.int64])
    assert_same(y, nms_ref(boxes, scores, max_out, 0.25, score_thr, center))


def test_data_dependent_result_can_be_consumed(rng):
    """The interpreter fixes NonZero's `?` dim when it runs it, so a later
    op (here a Reshape) sees a static shape."""
    x = rng.integers(0, 2, (4,)).astype(np.float32)
    x[0] = 1
    m = Model({"x": x})
    m.op(f"%n = top.NonZero(%x) : ({types(x)}) -> tensor<*xi64>")
    m.op("%y = top.Reshape(%n) {shape = array<i64: -1>} : (tensor<*xi64>) -> tensor<*xi64>")
    code, out, err = run_ref(m, [("%y", "y", "tensor<*xi64>")])
    assert code == 0, err
    np.testing.assert_array_equal(out["y"], np.stack(np.nonzero(x)).reshape(-1))
