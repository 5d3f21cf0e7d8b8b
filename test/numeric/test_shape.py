"""Shape and data-movement ops (Permute, Concat, Split, Slice, Pad, Gather,
Tile, Expand, Reshape) and reductions (Reduce, ArgMax) against numpy on
randomized shapes, including negative axes, size-1 and zero-size dims and
several dtypes. Data movement is compared exactly; float reductions with
rtol 1e-5."""
import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok, run_ref

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1

# Data movement copies bytes, so every element width is exercised.
MOVE_DTYPES = [np.float32, np.int64, np.bool_, np.int8, np.float16, np.uint8]


def arr(values):
    return ", ".join(str(int(v)) for v in values)


def i64s(values):
    """An MLIR DenseI64ArrayAttr literal."""
    return f"array<i64: {arr(values)}>" if len(values) else "array<i64>"


def elem(dtype):
    """The MLIR element type of a numpy dtype ("f32", "i1", ...)."""
    return mlir_type((), dtype)[len("tensor<"):-1]


def rand(rng, shape, dtype):
    """Random data of any dtype; integers span the dtype's whole range."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def rand_shape(rng, rank, lo=0, hi=5):
    return tuple(int(d) for d in rng.integers(lo, hi + 1, rank))


def run_op(inputs, op_text, out_dtypes):
    """Runs one op on `inputs` (name -> array); `op_text` is the op after
    `%y = ` with a `{results}` placeholder for the unranked result types.
    Returns the outputs y0, y1, ... in order."""
    m = Model(inputs)
    types = [f"tensor<*x{elem(d)}>" for d in out_dtypes]
    res = types[0] if len(types) == 1 else "(" + ", ".join(types) + ")"
    n = len(types)
    lhs = "%y" if n == 1 else f"%y:{n}"
    m.op(f"{lhs} = " + op_text.replace("{results}", res))
    names = ["%y"] if n == 1 else [f"%y#{i}" for i in range(n)]
    out = run_ok(m, [(v, f"y{i}", t) for i, (v, t) in enumerate(zip(names, types))])
    return [out[f"y{i}"] for i in range(n)]


def operand_types(*arrays):
    return ", ".join(mlir_type(a.shape, a.dtype) for a in arrays)


def assert_same(got, expect):
    """Exact equality of values, shape and dtype."""
    assert got.dtype == expect.dtype, (got.dtype, expect.dtype)
    assert got.shape == expect.shape, (got.shape, expect.shape)
    np.testing.assert_array_equal(got, expect)


# ----------------------------------------------------------------------------
# Permute
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("rank", [0, 1, 2, 3, 4, 5])
def test_permute(rank, dtype, rng):
    x = rand(rng, rand_shape(rng, rank, 1, 4), dtype)
    order = rng.permutation(rank)
    y, = run_op({"x": x}, f"top.Permute(%x) {{order = {i64s(order)}}} : "
                f"({operand_types(x)}) -> {{results}}", [dtype])
    assert_same(y, np.transpose(x, order))


@pytest.mark.parametrize("shape,order", [((2, 0, 3), (2, 0, 1)), ((1, 1, 5), (2, 1, 0)),
                                         ((3, 1, 4, 1), (1, 3, 0, 2))])
def test_permute_edge_shapes(shape, order, rng):
    x = rand(rng, shape, np.float32)
    y, = run_op({"x": x}, f"top.Permute(%x) {{order = {i64s(order)}}} : "
                f"({operand_types(x)}) -> {{results}}", [np.float32])
    assert_same(y, np.transpose(x, order))


# ----------------------------------------------------------------------------
# Concat and Split
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("case", range(5))
def test_concat(case, dtype, rng):
    rank = int(rng.integers(1, 5))
    axis = int(rng.integers(-rank, rank))
    base = rand_shape(rng, rank, 1, 4)
    count = int(rng.integers(1, 5))
    xs = {}
    for i in range(count):
        shape = list(base)
        shape[axis] = int(rng.integers(0, 4))  # may be empty along axis
        xs[f"x{i}"] = rand(rng, tuple(shape), dtype)
    args = ", ".join(f"%{n}" for n in xs)
    y, = run_op(xs, f"top.Concat({args}) {{axis = {axis} : i64}} : "
                f"({operand_types(*xs.values())}) -> {{results}}", [dtype])
    assert_same(y, np.concatenate(list(xs.values()), axis=axis))


def test_concat_zero_size_other_dim(rng):
    a, b = rand(rng, (0, 2), np.int64), rand(rng, (0, 3), np.int64)
    y, = run_op({"a": a, "b": b}, f"top.Concat(%a, %b) {{axis = 1 : i64}} : "
                f"({operand_types(a, b)}) -> {{results}}", [np.int64])
    assert_same(y, np.concatenate([a, b], axis=1))


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("case", range(5))
def test_split(case, dtype, rng):
    rank = int(rng.integers(1, 5))
    axis = int(rng.integers(-rank, rank))
    shape = list(rand_shape(rng, rank, 1, 4))
    count = int(rng.integers(1, 5))
    sizes = [int(s) for s in rng.integers(0, 4, count)]  # zeros allowed
    shape[axis] = sum(sizes)
    x = rand(rng, tuple(shape), dtype)
    ys = run_op({"x": x}, f"top.Split(%x) {{axis = {axis} : i64, split = {i64s(sizes)}}} : "
                f"({operand_types(x)}) -> {{results}}", [dtype] * count)
    expect = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    assert len(ys) == count
    for y, e in zip(ys, expect):
        assert_same(y, e)


# ----------------------------------------------------------------------------
# Slice
# ----------------------------------------------------------------------------

def onnx_slice(x, starts, ends, axes, steps):
    """ONNX Slice as specified (and as onnxruntime does it): like Python
    slicing except that a start below -dim with a negative step clamps to 0
    (Python gives an empty range)."""
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        d = x.shape[a]
        s, e = s + d if s < 0 else s, e + d if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), d), min(max(e, 0), d)
        else:
            s, e = min(max(s, 0), d - 1), min(max(e, -1), d - 1)
        index[a] = slice(s, None if e < 0 else e, st) if d else slice(0, 0)
    return x[tuple(index)]


def slice_text(x, starts, ends, axes=None, steps=None):
    attrs = f"starts = {i64s(starts)}, ends = {i64s(ends)}"
    if axes is not None:
        attrs += f", axes = {i64s(axes)}"
    if steps is not None:
        attrs += f", steps = {i64s(steps)}"
    return f"top.Slice(%x) {{{attrs}}} : ({operand_types(x)}) -> {{results}}"


SLICE_CASES = [
    # (shape, starts, ends, axes, steps)
    ((5, 6), [1], [4], None, None),
    ((5, 6), [-4, 1], [-1, 100], None, None),
    ((5, 6), [-1], [INT64_MIN], [1], [-1]),            # reverse
    ((5, 6), [INT64_MAX], [INT64_MIN], [-2], [-2]),     # clamped, reverse stride 2
    ((5, 6), [0, -100], [INT64_MAX, 100], [-1, 0], [3, 2]),
    ((5, 6), [3], [1], [0], [1]),                       # empty
    ((5, 6), [1], [3], [0], [-1]),                      # empty, negative step
    ((4, 0, 3), [0, 0], [2, 5], [1, 2], [1, -1]),       # zero-size dim
    ((1, 7), [-100, 6], [100, -8], [0, 1], [1, -3]),
    ((2, 3, 4, 5), [1, -2, 0], [INT64_MAX, 0, 5], [3, 1, 0], [2, -1, INT64_MAX]),
    ((6,), [5], [0], [0], [INT64_MIN]),                 # one element
    ((2, 3), [-5], [-5], [0], [-1]),                    # start clamps to 0
]


@pytest.mark.parametrize("case", SLICE_CASES, ids=[str(i) for i in range(len(SLICE_CASES))])
def test_slice_cases(case, rng):
    shape, starts, ends, axes, steps = case
    x = rand(rng, shape, np.float32)
    y, = run_op({"x": x}, slice_text(x, starts, ends, axes, steps), [np.float32])
    full_axes = axes if axes is not None else list(range(len(starts)))
    full_axes = [a % x.ndim for a in full_axes]
    full_steps = steps if steps is not None else [1] * len(starts)
    assert_same(y, onnx_slice(x, starts, ends, full_axes, full_steps))


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("case", range(6))
def test_slice_random(case, dtype, rng):
    rank = int(rng.integers(1, 5))
    x = rand(rng, rand_shape(rng, rank, 0, 6), dtype)
    naxes = int(rng.integers(1, rank + 1))
    axes = [int(a) for a in rng.permutation(rank)[:naxes]]
    axes = [a - rank if rng.integers(2) else a for a in axes]  # some negative
    starts, ends, steps = [], [], []
    for a in axes:
        d = x.shape[a]
        starts.append(int(rng.integers(-2 * d - 2, 2 * d + 3)))
        ends.append(int(rng.integers(-2 * d - 2, 2 * d + 3)))
        steps.append(int(rng.choice([-3, -2, -1, 1, 2, 3])))
    y, = run_op({"x": x}, slice_text(x, starts, ends, axes, steps), [dtype])
    assert_same(y, onnx_slice(x, starts, ends, [a % rank for a in axes], steps))


# ----------------------------------------------------------------------------
# Pad
# ----------------------------------------------------------------------------

def np_pad(x, pads, mode, value):
    """ONNX Pad: positive pads with np.pad, then negative ones crop."""
    r = x.ndim
    begins, ends = pads[:r], pads[r:]
    width = [(max(b, 0), max(e, 0)) for b, e in zip(begins, ends)]
    kw = {"constant_values": value} if mode == "constant" else {}
    y = np.pad(x, width, mode=mode, **kw)
    crop = tuple(slice(max(-b, 0), y.shape[i] - max(-e, 0))
                 for i, (b, e) in enumerate(zip(begins, ends)))
    return y[crop]


def pad_text(x, pads, mode, value):
    return (f"top.Pad(%x) {{pads = {i64s(pads)}, mode = #top.pad_mode<{mode}>, "
            f"value = {float(value)!r}}} : ({operand_types(x)}) -> {{results}}")


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.int8, np.float16])
@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
@pytest.mark.parametrize("case", range(4))
def test_pad_random(case, mode, dtype, rng):
    rank = int(rng.integers(1, 5))
    x = rand(rng, rand_shape(rng, rank, 1, 5), dtype)
    pads = []
    for side in range(2):
        for d in x.shape:
            hi = d - 1 if mode == "reflect" else 3
            pads.append(int(rng.integers(-(d // 2), hi + 1)))  # negative crops
    value = {np.bool_: 1, np.int8: -7, np.int64: 123456789012}.get(dtype, 2.5)
    y, = run_op({"x": x}, pad_text(x, pads, mode, value), [dtype])
    assert_same(y, np_pad(x, pads, mode, np.array(value).astype(dtype)))


@pytest.mark.parametrize("shape,pads,mode", [
    ((0, 3), [2, 0, 1, 1], "constant"),      # empty input grows
    ((2, 0), [0, 0, 0, 0], "reflect"),       # empty, no pad
    ((2, 0), [1, 0, 1, 0], "edge"),          # pads the non-empty dim only
    ((3, 4), [-3, 0, 0, 0], "constant"),     # cropped to empty
    ((1, 4), [0, 3, 0, 2], "reflect"),
    ((1, 1), [2, 3, 1, 0], "edge"),
])
def test_pad_edge_shapes(shape, pads, mode, rng):
    x = rand(rng, shape, np.float32)
    y, = run_op({"x": x}, pad_text(x, pads, mode, -1.5), [np.float32])
    assert_same(y, np_pad(x, pads, mode, np.float32(-1.5)))


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.float16])
def test_pad_constant_value_converts(dtype, rng):
    """The pad value is converted to the element type as the interpreter
    converts it: saturated and truncated for integers, rounded for floats."""
    x = rand(rng, (2, 3), dtype)
    y, = run_op({"x": x}, pad_text(x, [1, 0, 0, 2], "constant", 300.7), [dtype])
    value = np.uint8(255) if dtype == np.uint8 else np.array(300.7).astype(dtype)
    assert_same(y, np_pad(x, [1, 0, 0, 2], "constant", value))


# ----------------------------------------------------------------------------
# Gather
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32, np.int8])
@pytest.mark.parametrize("case", range(3))
def test_gather(case, index_dtype, dtype, rng):
    rank = int(rng.integers(1, 4))
    x = rand(rng, rand_shape(rng, rank, 1, 5), dtype)
    axis = int(rng.integers(-rank, rank))
    d = x.shape[axis]
    idx_shape = rand_shape(rng, int(rng.integers(0, 3)), 0, 3)  # 0-d and empty too
    idx = rng.integers(-d, d, idx_shape).astype(index_dtype)
    y, = run_op({"x": x, "i": idx}, f"top.Gather(%x, %i) {{axis = {axis} : i64}} : "
                f"({operand_types(x, idx)}) -> {{results}}", [dtype])
    assert_same(y, np.take(x, idx.astype(np.int64), axis=axis))


@pytest.mark.parametrize("bad", [5, -6, 127])
@pytest.mark.interpreter_only
def test_gather_out_of_range(bad, rng):
    x = rand(rng, (3, 5), np.float32)
    idx = np.array([[0, 4], [bad, -5]], dtype=np.int64 if bad != 127 else np.int8)
    m = Model({"x": x, "i": idx})
    m.op(f"%y = top.Gather(%x, %i) {{axis = -1 : i64}} : ({operand_types(x, idx)}) -> tensor<*xf32>")
    code, out, err = run_ref(m, [("%y", "y", "tensor<*xf32>")])
    assert code != 0 and out is None
    assert f"index {bad} at flat position 2 of 'indices' is out of range for dim 1 of size 5" in err, err


@pytest.mark.interpreter_only
def test_gather_out_of_range_empty_result(rng):
    """A bad index fails even when the result has no elements."""
    x = rand(rng, (0, 4), np.float32)
    idx = np.array([7], dtype=np.int64)
    m = Model({"x": x, "i": idx})
    m.op(f"%y = top.Gather(%x, %i) {{axis = 1 : i64}} : ({operand_types(x, idx)}) -> tensor<*xf32>")
    code, _, err = run_ref(m, [("%y", "y", "tensor<*xf32>")])
    assert code != 0
    assert "index 7 at flat position 0" in err, err


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements(axis, index_dtype, dtype, rng):
    x = rand(rng, (3, 4, 5), dtype)
    a = axis % 3
    ishape = [2, 3, 4]
    ishape[a] = 6  # may be longer than the data along the axis
    d = x.shape[a]
    idx = rng.integers(-d, d, ishape).astype(index_dtype)
    y, = run_op({"x": x, "i": idx}, f"top.GatherElements(%x, %i) {{axis = {axis} : i64}} : "
                f"({operand_types(x, idx)}) -> {{results}}", [dtype])
    wrapped = np.where(idx < 0, idx + d, idx).astype(np.int64)
    sub = x[tuple(slice(0, n) if i != a else slice(None) for i, n in enumerate(ishape))]
    assert_same(y, np.take_along_axis(sub, wrapped, axis=a))


# ----------------------------------------------------------------------------
# Squeeze and Unsqueeze (axes known at run time)
# ----------------------------------------------------------------------------

@pytest.mark.xfail(COMPILED, strict=True,
                   reason="the result shape depends on the axes' values: compiled code needs static shapes")
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_squeeze_unsqueeze_axes_operand(dtype, rng):
    """Axes from an operand, read at run time (shape inference does not
    fold weights into the result shape either)."""
    x = rand(rng, (1, 3, 1, 4), dtype)
    z = rand(rng, (3, 4), dtype)
    m = Model({"x": x, "z": z}, {"sa": np.array([0, -2], np.int64), "ua": np.array([-1, 1], np.int32)})
    t = f"tensor<*x{elem(dtype)}>"
    m.op(f"%s = top.Squeeze(%x, %sa) : ({operand_types(x)}, tensor<2xi64>) -> {t}")
    m.op(f"%u = top.Unsqueeze(%z, %ua) : ({operand_types(z)}, tensor<2xi32>) -> {t}")
    out = run_ok(m, [("%s", "s", t), ("%u", "u", t)])
    assert_same(out["s"], np.squeeze(x, axis=(0, 2)))
    assert_same(out["u"], z.reshape(3, 1, 4, 1))


# ----------------------------------------------------------------------------
# Tile and Expand
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("case", range(4))
def test_tile(case, dtype, rng):
    rank = int(rng.integers(1, 5))
    x = rand(rng, rand_shape(rng, rank, 0, 3), dtype)
    repeats = [int(r) for r in rng.integers(0 if case == 0 else 1, 4, rank)]
    y, = run_op({"x": x}, f"top.Tile(%x) {{repeats = {i64s(repeats)}}} : "
                f"({operand_types(x)}) -> {{results}}", [dtype])
    assert_same(y, np.tile(x, repeats))


def onnx_expand(x, shape):
    """ONNX Expand: broadcast of both shapes (a 1 in `shape` keeps x's dim)."""
    out = np.broadcast_shapes(x.shape, tuple(shape))
    return np.broadcast_to(x, out)


EXPAND_CASES = [
    ((3, 1), (2, 1, 4)),
    ((1,), (2, 3)),
    ((2, 3), (1, 1)),       # 1s keep the input dims
    ((), (3, 2)),           # scalar
    ((4, 1, 2), (4, 0, 2)),  # to zero-size
    ((1, 5), (3, 1, 1)),
    ((2, 1, 1, 3), (2, 2, 1)),
]


@pytest.mark.parametrize("dtype", MOVE_DTYPES)
@pytest.mark.parametrize("case", EXPAND_CASES, ids=[str(i) for i in range(len(EXPAND_CASES))])
def test_expand(case, dtype, rng):
    shape, target = case
    x = rand(rng, shape, dtype)
    y, = run_op({"x": x}, f"top.Expand(%x) {{shape = {i64s(target)}}} : "
                f"({operand_types(x)}) -> {{results}}", [dtype])
    assert_same(y, np.ascontiguousarray(onnx_expand(x, target)))


# ----------------------------------------------------------------------------
# Reshape (with a fold-prone chain) and a combined data-movement graph
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.bool_])
def test_pixel_shuffle_chain(dtype, rng):
    """Reshape -> Permute -> Reshape (depth-to-space), then Slice and Concat."""
    n, c, h, w, r = 2, 8, 3, 5, 2
    x = rand(rng, (n, c, h, w), dtype)
    e = elem(dtype)
    m = Model({"x": x})
    m.op(f"%a = top.Reshape(%x) {{shape = array<i64: {n}, {c // (r * r)}, {r}, {r}, {h}, {w}>}} : "
         f"({operand_types(x)}) -> tensor<*x{e}>")
    m.op(f"%b = top.Permute(%a) {{order = array<i64: 0, 1, 4, 2, 5, 3>}} : (tensor<*x{e}>) -> tensor<*x{e}>")
    m.op(f"%c = top.Reshape(%b) {{shape = array<i64: 0, 0, -1, {w * r}>}} : (tensor<*x{e}>) -> tensor<*x{e}>")
    m.op(f"%d = top.Slice(%c) {{starts = array<i64: -1>, ends = array<i64: {INT64_MIN}>, axes = array<i64: 3>, "
         f"steps = array<i64: -1>}} : (tensor<*x{e}>) -> tensor<*x{e}>")
    m.op(f"%y = top.Concat(%c, %d) {{axis = 1 : i64}} : (tensor<*x{e}>, tensor<*x{e}>) -> tensor<*x{e}>")
    out = run_ok(m, [("%y", "y", f"tensor<*x{e}>")])
    ps = x.reshape(n, c // 4, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // 4, h * r, w * r)
    assert_same(out["y"], np.concatenate([ps, ps[..., ::-1]], axis=1))


# ----------------------------------------------------------------------------
# Reduce
# ----------------------------------------------------------------------------

MODES = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"]


def np_reduce(x, axes, keepdims, mode):
    """Reference with the op's integer semantics: int64 accumulation that
    wraps, truncating mean, then conversion to x's dtype."""
    ax = tuple(range(x.ndim)) if not axes else tuple(a % x.ndim for a in axes)
    if x.dtype.kind == "f":
        w = x.astype(np.float64)
        fn = {"ReduceSum": np.sum, "ReduceMean": np.mean, "ReduceMax": np.max,
              "ReduceMin": np.min, "ReduceProd": np.prod}[mode]
        return fn(w, axis=ax, keepdims=keepdims).astype(x.dtype)
    w = x.astype(np.int64)
    if mode in ("ReduceMax", "ReduceMin"):
        fn = np.max if mode == "ReduceMax" else np.min
        return fn(w, axis=ax, keepdims=keepdims).astype(x.dtype)
    if mode == "ReduceProd":
        return np.prod(w, axis=ax, keepdims=keepdims).astype(x.dtype)
    s = np.sum(w, axis=ax, keepdims=keepdims)
    if mode == "ReduceMean":
        count = int(np.prod([x.shape[a] for a in ax]))
        s = np.sign(s) * (np.abs(s) // count)
    return s.astype(x.dtype)


def reduce_text(x, axes, keepdims, mode):
    return (f"top.Reduce(%x) {{axes = {i64s(axes)}, keepdims = {str(keepdims).lower()}, "
            f"mode = #top.reduce_mode<{mode}>}} : ({operand_types(x)}) -> {{results}}")


def random_axes(rng, rank):
    count = int(rng.integers(0, rank + 1))  # 0 = all dims
    axes = [int(a) for a in rng.permutation(rank)[:count]]
    return [a - rank if rng.integers(2) else a for a in axes]


@pytest.mark.parametrize("keepdims", [True, False])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", range(4))
def test_reduce_f32(case, mode, keepdims, rng):
    rank = int(rng.integers(1, 5))
    x = rand(rng, rand_shape(rng, rank, 1, 5), np.float32)
    if mode == "ReduceProd":
        x = (np.sign(x) * (0.5 + np.abs(x) % 1)).astype(np.float32)  # keep products finite
    axes = random_axes(rng, rank)
    y, = run_op({"x": x}, reduce_text(x, axes, keepdims, mode), [np.float32])
    expect = np_reduce(x, axes, keepdims, mode)
    assert y.shape == expect.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, expect, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_reduce_f64_f16(mode, rng):
    for dtype, rtol in ((np.float64, 1e-12), (np.float16, 2e-3)):
        x = rand(rng, (3, 4, 5), dtype)
        y, = run_op({"x": x}, reduce_text(x, [0, 2], False, mode), [dtype])
        expect = np_reduce(x, [0, 2], False, mode)
        assert y.dtype == dtype and y.shape == expect.shape
        np.testing.assert_allclose(y, expect, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.int32])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", range(3))
def test_reduce_int(case, mode, dtype, rng):
    rank = int(rng.integers(1, 4))
    x = rand(rng, rand_shape(rng, rank, 1, 4), dtype)
    if dtype == np.int64 and mode in ("ReduceSum", "ReduceMean"):
        x = (x // 16).astype(dtype)  # wrap-around differs from numpy's float mean
    keepdims = bool(case % 2)
    axes = random_axes(rng, rank)
    y, = run_op({"x": x}, reduce_text(x, axes, keepdims, mode), [dtype])
    assert_same(y, np_reduce(x, axes, keepdims, mode))


@pytest.mark.parametrize("mode", ["ReduceMax", "ReduceMin", "ReduceSum"])
def test_reduce_bool(mode, rng):
    x = rand(rng, (3, 4, 2), np.bool_)
    x[0] = True
    x[1] = False
    y, = run_op({"x": x}, reduce_text(x, [1, -1], False, mode), [np.bool_])
    expect = {"ReduceMax": x.any(axis=(1, 2)), "ReduceMin": x.all(axis=(1, 2)),
              "ReduceSum": x.sum(axis=(1, 2)) != 0}[mode]
    assert_same(y, expect)


@pytest.mark.parametrize("mode,expect", [("ReduceSum", 0.0), ("ReduceProd", 1.0), ("ReduceMax", -np.inf),
                                         ("ReduceMin", np.inf), ("ReduceMean", np.nan)])
def test_reduce_empty_f32(mode, expect):
    x = np.zeros((2, 0, 3), np.float32)
    y, = run_op({"x": x}, reduce_text(x, [1], False, mode), [np.float32])
    assert_same(y, np.full((2, 3), expect, np.float32))


@pytest.mark.parametrize("mode,expect", [("ReduceSum", 0), ("ReduceMean", 0), ("ReduceProd", 1),
                                         ("ReduceMax", -128), ("ReduceMin", 127)])
def test_reduce_empty_i8(mode, expect):
    x = np.zeros((0, 2), np.int8)
    y, = run_op({"x": x}, reduce_text(x, [0], True, mode), [np.int8])
    assert_same(y, np.full((1, 2), expect, np.int8))


def test_reduce_empty_result(rng):
    x = rand(rng, (0, 3), np.float32)
    y, = run_op({"x": x}, reduce_text(x, [1], False, "ReduceMax"), [np.float32])
    assert_same(y, np.zeros((0,), np.float32))


@pytest.mark.parametrize("mode", ["ReduceMax", "ReduceMin", "ReduceSum"])
def test_reduce_nan(mode, rng):
    x = rand(rng, (3, 4), np.float32)
    x[1, 2] = np.nan
    y, = run_op({"x": x}, reduce_text(x, [-1], False, mode), [np.float32])
    fn = {"ReduceMax": np.max, "ReduceMin": np.min, "ReduceSum": np.sum}[mode]
    np.testing.assert_allclose(y, fn(x.astype(np.float64), axis=-1).astype(np.float32), rtol=1e-6)
    assert np.isnan(y[1]) and not np.isnan(y[[0, 2]]).any()


def test_reduce_scalar(rng):
    x = rand(rng, (), np.float32)
    y, = run_op({"x": x}, reduce_text(x, [], True, "ReduceSum"), [np.float32])
    assert_same(y, x)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
@pytest.mark.parametrize("mode", MODES)
def test_reduce_unsigned(mode, dtype, rng):
    """Unsigned max/min compare unsigned: values above the signed range are
    the largest."""
    x = rand(rng, (3, 4, 2), dtype)
    x[0, 0, 0] = np.iinfo(dtype).max
    x[1, 2, 1] = np.iinfo(dtype).max // 2 + 1
    y, = run_op({"x": x}, reduce_text(x, [1, -1], True, mode), [dtype])
    assert_same(y, np_reduce(x, [1, -1], True, mode))


# ----------------------------------------------------------------------------
# ArgMax
# ----------------------------------------------------------------------------

def np_argmax(x, axis, keepdims, last):
    if last:
        flipped = np.flip(x, axis=axis)
        r = x.shape[axis] - 1 - np.argmax(flipped, axis=axis)
    else:
        r = np.argmax(x, axis=axis)
    r = r.astype(np.int64)
    return np.expand_dims(r, axis) if keepdims else r


def argmax_text(x, axis, keepdims, last):
    return (f"top.ArgMax(%x) {{axis = {axis} : i64, keepdims = {str(keepdims).lower()}, "
            f"select_last_index = {str(last).lower()}}} : ({operand_types(x)}) -> {{results}}")


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int8, np.bool_, np.float16])
@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("case", range(3))
def test_argmax(case, last, dtype, rng):
    rank = int(rng.integers(1, 5))
    shape = list(rand_shape(rng, rank, 1, 5))
    axis = int(rng.integers(-rank, rank))
    shape[axis] = max(shape[axis], 3)
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(-2, 3, shape).astype(dtype)  # many ties
    else:
        x = rand(rng, tuple(shape), dtype)
        if dtype != np.bool_:
            x = np.round(x).astype(dtype)  # ties
    keepdims = bool(case % 2)
    y, = run_op({"x": x}, argmax_text(x, axis, keepdims, last), [np.int64])
    expect = np_argmax(x, axis % rank, keepdims, last)
    assert_same(y, expect)


@pytest.mark.parametrize("last", [False, True])
def test_argmax_ties(last):
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [-1, -5, -1, -7]], np.int8)
    y, = run_op({"x": x}, argmax_text(x, 1, False, last), [np.int64])
    assert_same(y, np.array([2, 3, 2] if last else [1, 0, 0], np.int64))


@pytest.mark.parametrize("last", [False, True])
def test_argmax_nan(last, rng):
    x = rand(rng, (2, 6), np.float32)
    x[0, 1] = np.nan
    x[0, 4] = np.nan
    y, = run_op({"x": x}, argmax_text(x, 1, False, last), [np.int64])
    assert_same(y, np_argmax(x, 1, False, last))
    assert y[0] == (4 if last else 1)


def test_argmax_empty_other_dim(rng):
    x = rand(rng, (0, 4), np.float32)
    y, = run_op({"x": x}, argmax_text(x, -1, True, False), [np.int64])
    assert_same(y, np.zeros((0, 1), np.int64))


@pytest.mark.parametrize("last", [False, True])
def test_argmax_unsigned(last, rng):
    """Unsigned elements compare unsigned (200 > 100 > 5)."""
    x = rng.integers(0, 100, (4, 6)).astype(np.uint8)
    x[:, 2] = 200
    x[1, 5] = 200
    x[3, 2] = 5
    y, = run_op({"x": x}, argmax_text(x, 1, False, last), [np.int64])
    assert_same(y, np_argmax(x, 1, False, last))
