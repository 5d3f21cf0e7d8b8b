"""Elementwise and activation ops of the Top dialect against numpy.

Shapes are randomized (seeded per test) and include numpy broadcasting with
rank-0 operands, rank differences, size-1 and zero-size dims.

Tolerances (numpy.testing.assert_allclose, NaN == NaN, inf == inf):
  f32: rtol 1e-5, atol 1e-6
  f64: rtol 1e-12, atol 1e-12
  f16: rtol 1e-3, atol 1e-4 (one f16 ulp; results are rounded from f32/f64)
Integer and bool results are compared exactly, including wrap-around.
"""
import math

import numpy as np
import pytest

from numeric_harness import COMPILED, Model, mlir_type, run_ok, run_ref

TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12),
       np.float16: (1e-3, 1e-4)}
FLOATS = [np.float32, np.float64, np.float16]


def elem(dtype):
    """MLIR element type name of a numpy dtype ("f32", "i1", ...)."""
    return mlir_type((), dtype)[len("tensor<"):-1]


def run_op(op, operands, result_type, attrs=""):
    """Runs `%y = top.<op>(operands) {attrs}` and returns y."""
    m = Model(dict(operands))
    names = ", ".join(f"%{n}" for n, _ in operands)
    types = ", ".join(mlir_type(a.shape, a.dtype) for _, a in operands)
    attr = f" {{{attrs}}}" if attrs else ""
    m.op(f"%out = top.{op}({names}){attr} : ({types}) -> {result_type}")
    return run_ok(m, [("%out", "out", result_type)])["out"]


def run_cases(op, cases, attrs=""):
    """Runs one `top.<op>` per case in a single model (one strata process).

    cases: list of (operands [(name, array)], result_type); returns the
    results in order.
    """
    m = Model({f"{n}{i}": a for i, (ops, _) in enumerate(cases)
               for n, a in ops})
    outs = []
    attr = f" {{{attrs}}}" if attrs else ""
    for i, (ops, rt) in enumerate(cases):
        names = ", ".join(f"%{n}{i}" for n, _ in ops)
        types = ", ".join(mlir_type(a.shape, a.dtype) for _, a in ops)
        m.op(f"%out{i} = top.{op}({names}){attr} : ({types}) -> {rt}")
        outs.append((f"%out{i}", f"out{i}", rt))
    res = run_ok(m, outs)
    return [res[f"out{i}"] for i in range(len(cases))]


def run_op_error(op, operands, result_type, attrs=""):
    """Runs the op expecting failure; returns strata's stderr."""
    m = Model(dict(operands))
    names = ", ".join(f"%{n}" for n, _ in operands)
    types = ", ".join(mlir_type(a.shape, a.dtype) for _, a in operands)
    attr = f" {{{attrs}}}" if attrs else ""
    m.op(f"%out = top.{op}({names}){attr} : ({types}) -> {result_type}")
    code, _, err = run_ref(m, [("%out", "out", result_type)])
    assert code != 0
    return err


def check_close(got, expect, dtype, what=""):
    """Shape, dtype and values within the dtype's tolerance."""
    assert got.shape == expect.shape, what
    assert got.dtype == np.dtype(dtype), what
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(got.astype(np.float64),
                               expect.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg=what)


def check_equal(got, expect, what=""):
    assert got.shape == expect.shape, what
    assert got.dtype == expect.dtype, what
    np.testing.assert_array_equal(got, expect, err_msg=what)


# Shape pairs that broadcast: equal, rank-0, rank-different, size-1 and
# zero-size dims; "randN" draws a random broadcasting pair.
SHAPE_PAIRS = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((4, 1, 3), (5, 1)),
    ((), (2, 3)),
    ((3, 2), ()),
    ((), ()),
    ((1,), (3, 4)),
    ((3, 1, 2), (1, 4, 1)),
    ((0, 3), (1, 3)),
    ((2, 0), (2, 1)),
    ((1, 0), (3, 1)),
] + [f"rand{i}" for i in range(4)]


def random_shapes(rng, n=2):
    """`n` shapes broadcasting together: suffixes of a random shape of rank
    0-4 with some dims set to 1."""
    rank = int(rng.integers(0, 5))
    out = [int(rng.integers(1, 6)) for _ in range(rank)]

    def derive():
        r = int(rng.integers(0, rank + 1))
        return tuple(1 if rng.random() < 0.3 else d for d in out[rank - r:])
    return tuple(derive() for _ in range(n))


def shapes_of(case, rng):
    return random_shapes(rng) if isinstance(case, str) else case


def rand_float(rng, shape, dtype, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def rand_int(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


#===----------------------------------------------------------------------===#
# Binary arithmetic
#===----------------------------------------------------------------------===#

BINARY_FLOAT = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Div": np.divide, "Max": np.maximum, "Min": np.minimum,
}


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", list(BINARY_FLOAT) + ["Pow"])
def test_binary_float(op, dtype, rng):
    """Every shape pair of SHAPE_PAIRS; unranked results check shape
    inference too."""
    cases, refs = [], []
    for case in SHAPE_PAIRS:
        sa, sb = shapes_of(case, rng)
        a = rand_float(rng, sa, dtype)
        b = rand_float(rng, sb, dtype)
        if op == "Pow":
            a = (np.abs(a) + 0.1).astype(dtype)  # positive base
        if op == "Div":
            b = np.where(np.abs(b) < 0.1, 0.5, b).astype(dtype)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        ref = np.power(a64, b64) if op == "Pow" else BINARY_FLOAT[op](a64, b64)
        cases.append(([("a", a), ("b", b)], f"tensor<*x{elem(dtype)}>"))
        refs.append(ref.astype(dtype))
    for got, ref, (ops, _) in zip(run_cases(op, cases), refs, cases):
        check_close(got, ref, dtype, f"shapes {ops[0][1].shape} {ops[1][1].shape}")


@pytest.mark.parametrize("op", list(BINARY_FLOAT) + ["Pow"])
def test_binary_do_relu(op, rng):
    a = rand_float(rng, (3, 4), np.float32)
    b = rand_float(rng, (4,), np.float32)
    if op == "Pow":
        b = np.round(b)  # negative bases with integer exponents
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = np.power(a64, b64) if op == "Pow" else BINARY_FLOAT[op](a64, b64)
    got = run_op(op, [("a", a), ("b", b)], "tensor<3x4xf32>", "do_relu = true")
    assert (got >= 0).all()
    check_close(got, np.maximum(ref, 0).astype(np.float32), np.float32)


def test_binary_float_special_values():
    """inf, NaN and signed zeros follow IEEE and numpy (NaN propagates
    through Max/Min)."""
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan],
                    dtype=np.float32)
    a, b = np.meshgrid(vals, vals, indexing="ij")
    a, b = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        for op, fn in list(BINARY_FLOAT.items()) + [("Pow", np.power)]:
            got = run_op(op, [("a", a), ("b", b)], "tensor<7x7xf32>")
            check_close(got, fn(a, b), np.float32)
            # NaN positions match exactly.
            np.testing.assert_array_equal(np.isnan(got), np.isnan(fn(a, b)))


INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
             np.uint64]
INT_BINARY = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
              "Max": np.maximum, "Min": np.minimum}


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", list(INT_BINARY))
def test_binary_int(op, dtype, rng):
    """Full-range values: Add/Sub/Mul wrap around like numpy."""
    a = rand_int(rng, (3, 1, 4), dtype)
    b = rand_int(rng, (5, 1), dtype)
    with np.errstate(all="ignore"):
        ref = INT_BINARY[op](a, b)
    got = run_op(op, [("a", a), ("b", b)], f"tensor<*x{elem(dtype)}>")
    check_equal(got, ref)


def trunc_div_ref(a, b, dtype):
    """C division (truncating toward zero) with wrap-around, in Python ints."""
    bits = np.iinfo(dtype).bits
    signed = np.iinfo(dtype).min < 0

    def div(x, y):
        q = abs(int(x)) // abs(int(y))
        q = -q if (x < 0) != (y < 0) else q
        q %= 1 << bits
        return q - (1 << bits) if signed and q >= 1 << (bits - 1) else q
    out = np.vectorize(div, otypes=[object])(a, b)
    return np.array(out.tolist(), dtype=dtype).reshape(out.shape)


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
def test_div_int_truncates(dtype, rng):
    """Full-range values over every shape pair of SHAPE_PAIRS."""
    cases, refs = [], []
    for case in SHAPE_PAIRS:
        sa, sb = shapes_of(case, rng)
        a = rand_int(rng, sa, dtype)
        b = rand_int(rng, sb, dtype)
        b[b == 0] = 1
        if np.iinfo(dtype).min < 0 and b.size:
            b.flat[0] = -1  # min / -1 wraps
            if a.size:
                a.flat[0] = np.iinfo(dtype).min
        cases.append(([("a", a), ("b", b)], f"tensor<*x{elem(dtype)}>"))
        refs.append(trunc_div_ref(a, b, dtype))
    for got, ref, (ops, _) in zip(run_cases("Div", cases), refs, cases):
        check_equal(got, ref, f"shapes {ops[0][1].shape} {ops[1][1].shape}")


def test_div_int_small_values():
    """Signs of the quotient: -7/2 == -3 (not numpy's floor -4)."""
    a = np.array([7, -7, 7, -7, 0, 1, -1], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, -5, 5], dtype=np.int32)
    got = run_op("Div", [("a", a), ("b", b)], "tensor<7xi32>")
    check_equal(got, np.array([3, -3, -3, 3, 0, 0, 0], dtype=np.int32))


@pytest.mark.interpreter_only
@pytest.mark.parametrize("shapes", [((4,), (4,)), ((2, 3), ()), ((), ())])
def test_div_int_by_zero_is_an_error(shapes):
    a = np.arange(int(np.prod(shapes[0])), dtype=np.int32).reshape(shapes[0])
    b = np.zeros(shapes[1], dtype=np.int32)
    if b.ndim:
        b = np.array([1, 2, 0, 3], dtype=np.int32)
    err = run_op_error("Div", [("a", a), ("b", b)], "tensor<*xi32>")
    assert "'top.Div' op integer division by zero" in err


@pytest.mark.skipif(not COMPILED, reason="the interpreter reports an error")
@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_div_int_by_zero_compiled(dtype, rng):
    """Compiled code defines x / 0 = 0 (docs/codegen-elementwise.md) and
    does not trap (x86 idiv raises SIGFPE), also next to MIN / -1."""
    a = rand_int(rng, (3, 6), dtype)
    b = rand_int(rng, (6,), dtype)
    b[b == 0] = 1
    b[[1, 4]] = 0
    if np.iinfo(dtype).min < 0:
        b[2] = -1
        a[0, 2] = np.iinfo(dtype).min
    expect = trunc_div_ref(a, np.where(b == 0, 1, b), dtype)
    expect[:, b == 0] = 0
    got = run_op("Div", [("a", a), ("b", b)], f"tensor<3x6x{elem(dtype)}>")
    check_equal(got, expect)


def test_div_int_by_zero_empty_result():
    """A zero divisor that is never used (empty result) is fine."""
    a = np.zeros((0, 3), dtype=np.int32)
    b = np.zeros((1, 3), dtype=np.int32)
    got = run_op("Div", [("a", a), ("b", b)], "tensor<*xi32>")
    check_equal(got, np.zeros((0, 3), dtype=np.int32))


def test_binary_int_do_relu(rng):
    a = rand_int(rng, (4, 5), np.int32)
    b = rand_int(rng, (5,), np.int32)
    got = run_op("Sub", [("a", a), ("b", b)], "tensor<4x5xi32>", "do_relu = true")
    with np.errstate(all="ignore"):
        check_equal(got, np.maximum(a - b, 0))


#===----------------------------------------------------------------------===#
# Unary float ops
#===----------------------------------------------------------------------===#

erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_ref(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def gelu_tanh_ref(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi)
                                    * (x + 0.044715 * x ** 3)))


def hard_sigmoid_ref(x, alpha=0.2, beta=0.5):
    return np.maximum(0.0, np.minimum(1.0, alpha * x + beta))


# name -> (attrs, numpy reference on f64, input range)
UNARY = {
    "Sigmoid": ("", lambda x: 1.0 / (1.0 + np.exp(-x)), (-8, 8)),
    "Tanh": ("", np.tanh, (-4, 4)),
    "Gelu": ("", gelu_ref, (-5, 5)),
    "GeluTanh": ('approximate = #top.gelu_approximation<tanh>', gelu_tanh_ref, (-5, 5)),
    "SiLU": ("", lambda x: x / (1.0 + np.exp(-x)), (-8, 8)),
    "HardSigmoid": ("", hard_sigmoid_ref, (-5, 5)),
    "HardSigmoidAttrs": ("alpha = 0.5 : f64, beta = 0.25 : f64",
                         lambda x: hard_sigmoid_ref(x, 0.5, 0.25), (-3, 3)),
    "HardSwish": ("", lambda x: x * np.maximum(0, np.minimum(1, x / 6 + 0.5)),
                  (-5, 5)),
    "Exp": ("", np.exp, (-8, 8)),
    "Log": ("", np.log, (0.01, 10)),
    "Sqrt": ("", np.sqrt, (0, 10)),
    "Rsqrt": ("", lambda x: 1.0 / np.sqrt(x), (0.01, 10)),
    "Erf": ("", erf, (-3, 3)),
    "Abs": ("", np.abs, (-3, 3)),
    "Neg": ("", np.negative, (-3, 3)),
    "Relu": ("", lambda x: np.maximum(x, 0), (-3, 3)),
    "LeakyRelu": ("", lambda x: np.where(x >= 0, x, 0.01 * x), (-3, 3)),
    "LeakyReluAlpha": ("alpha = 0.25 : f64",
                       lambda x: np.where(x >= 0, x, 0.25 * x), (-3, 3)),
    "Clip": ("min = -1.5 : f64, max = 0.5 : f64",
             lambda x: np.clip(x, -1.5, 0.5), (-3, 3)),
}
UNARY_SHAPES = [(2, 3, 4), (), (0, 3), (1, 7), "rand"]


def op_name(name):
    """Strips the test-case suffix: "GeluTanh" -> "Gelu"."""
    for base in ("Gelu", "HardSigmoid", "LeakyRelu"):
        if name.startswith(base) and name != "HardSwish":
            return base
    return name


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_float(name, dtype, rng):
    attrs, fn, (lo, hi) = UNARY[name]
    cases, refs = [], []
    for shape in UNARY_SHAPES:
        if shape == "rand":
            shape = tuple(int(d) for d in rng.integers(1, 6, rng.integers(1, 5)))
        x = rand_float(rng, shape, dtype, lo, hi)
        cases.append(([("x", x)], mlir_type(shape, dtype)))
        refs.append(fn(x.astype(np.float64)).astype(dtype))
    for got, ref, (ops, _) in zip(run_cases(op_name(name), cases, attrs),
                                  refs, cases):
        check_close(got, ref, dtype, f"shape {ops[0][1].shape}")


def test_unary_special_values():
    """NaN propagates; log(0) = -inf; sqrt/log of negatives are NaN;
    rsqrt(0) = inf; saturating activations at +-inf."""
    x = np.array([np.nan, 0.0, -0.0, -1.0, 1.0, np.inf, -np.inf],
                 dtype=np.float32)
    with np.errstate(all="ignore"):
        for name, (attrs, fn, _) in UNARY.items():
            if name.startswith("Gelu") or name == "SiLU" or name == "HardSwish":
                continue  # x * f(x) at -inf is NaN vs 0 depending on formula
            got = run_op(op_name(name), [("x", x)], "tensor<7xf32>", attrs)
            ref = fn(x.astype(np.float64)).astype(np.float32)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(ref),
                                          err_msg=name)
            check_close(got, ref, np.float32)


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", ["Abs", "Neg", "Relu"])
def test_unary_int(op, dtype, rng):
    """Full range including the minimum value (Abs and Neg wrap it)."""
    x = rand_int(rng, (4, 6), dtype)
    info = np.iinfo(dtype)
    x.flat[0], x.flat[1], x.flat[2] = info.min, info.max, 0
    fn = {"Abs": np.abs, "Neg": np.negative,
          "Relu": lambda v: np.maximum(v, 0).astype(dtype)}[op]
    with np.errstate(all="ignore"):
        ref = fn(x)
    got = run_op(op, [("x", x)], mlir_type(x.shape, dtype))
    check_equal(got, ref)


def test_relu_bool(rng):
    """Relu of i1 is the identity (max(x, 0) of 0 and 1)."""
    x = rng.random((3, 5)) < 0.5
    check_equal(run_op("Relu", [("x", x)], mlir_type(x.shape, np.bool_)), x)


#===----------------------------------------------------------------------===#
# PRelu
#===----------------------------------------------------------------------===#

PRELU_SHAPES = [
    ((2, 3, 4, 5), (3, 1, 1)),
    ((2, 3, 4, 5), (5,)),
    ((2, 3, 4, 5), (1,)),
    ((2, 3, 4), ()),
    ((3, 4), (3, 4)),
    ((0, 3, 2), (3, 1)),
    ((), ()),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_prelu(dtype, rng):
    cases, refs = [], []
    for sx, ss in PRELU_SHAPES:
        x = rand_float(rng, sx, dtype)
        s = rand_float(rng, ss, dtype, 0.0, 1.0)
        x64, s64 = x.astype(np.float64), s.astype(np.float64)
        refs.append(np.where(x64 >= 0, x64, s64 * x64).astype(dtype))
        cases.append(([("x", x), ("s", s)], f"tensor<*x{elem(dtype)}>"))
    for got, ref, (ops, _) in zip(run_cases("PRelu", cases), refs, cases):
        check_close(got, ref, dtype, f"shapes {ops[0][1].shape} {ops[1][1].shape}")


#===----------------------------------------------------------------------===#
# Where, Compare, Cast
#===----------------------------------------------------------------------===#

WHERE_SHAPES = [
    ((2, 1, 4), (3, 1), (4,)),
    ((), (2, 3), ()),
    ((2, 3), (), (1, 3)),
    ((0, 1), (1, 5), (5,)),
    ((), (), ()),
    "rand0", "rand1",
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8,
                                   np.uint64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_where(dtype, rng):
    """3-way broadcasting over WHERE_SHAPES."""
    cases, refs = [], []
    for case in WHERE_SHAPES:
        sc, sx, sy = random_shapes(rng, 3) if isinstance(case, str) else case
        c = np.asarray(rng.random(sc) < 0.5)
        if dtype == np.bool_:
            x, y = rng.random(sx) < 0.5, rng.random(sy) < 0.5
        elif np.issubdtype(dtype, np.integer):
            x, y = rand_int(rng, sx, dtype), rand_int(rng, sy, dtype)
        else:
            x, y = rand_float(rng, sx, dtype), rand_float(rng, sy, dtype)
        x, y = np.asarray(x), np.asarray(y)
        cases.append(([("c", c), ("x", x), ("y", y)], f"tensor<*x{elem(dtype)}>"))
        refs.append(np.where(c, x, y).astype(dtype))
    for got, ref, (ops, _) in zip(run_cases("Where", cases), refs, cases):
        check_equal(got, ref, f"shapes {[a.shape for _, a in ops]}")


COMPARE = {"Equal": np.equal, "Greater": np.greater,
           "GreaterOrEqual": np.greater_equal, "Less": np.less,
           "LessOrEqual": np.less_equal, "NotEqual": np.not_equal}


def compare_operands(rng, dtype, sa, sb):
    """Values with many ties (and NaN for floats)."""
    if dtype == np.bool_:
        return rng.random(sa) < 0.5, rng.random(sb) < 0.5
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max],
                        dtype=dtype)
        return rng.choice(pool, sa), rng.choice(pool, sb)
    pool = np.array([-np.inf, -1.5, -0.0, 0.0, 0.25, 1.5, np.inf, np.nan],
                    dtype=dtype)
    return rng.choice(pool, sa), rng.choice(pool, sb)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32,
                                   np.int64, np.uint64, np.uint8, np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("mode", list(COMPARE))
def test_compare(mode, dtype, rng):
    cases = []
    for sa, sb in [((3, 1, 4), (5, 1)), ((), (6,)), ((0, 2), (2,))]:
        a, b = compare_operands(rng, dtype, sa, sb)
        a, b = np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype)
        cases.append(([("a", a), ("b", b)], "tensor<*xi1>"))
    for got, (ops, _) in zip(run_cases("Compare", cases, f'mode = #top.compare_mode<{mode}>'),
                             cases):
        check_equal(got, COMPARE[mode](ops[0][1], ops[1][1]))


def test_compare_broadcast(rng):
    cases, refs = [], []
    for case in SHAPE_PAIRS:
        sa, sb = shapes_of(case, rng)
        a = rng.integers(-2, 3, sa).astype(np.float32)
        b = rng.integers(-2, 3, sb).astype(np.float32)
        cases.append(([("a", a), ("b", b)], "tensor<*xi1>"))
        refs.append(np.less_equal(a, b))
    for got, ref, (ops, _) in zip(
            run_cases("Compare", cases, 'mode = #top.compare_mode<LessOrEqual>'), refs, cases):
        check_equal(got, ref, f"shapes {ops[0][1].shape} {ops[1][1].shape}")


def saturating_cast(x, dtype):
    """Float -> int: truncate toward zero, saturate, NaN -> 0."""
    info = np.iinfo(dtype)
    y = np.trunc(x.astype(np.float64))
    y = np.where(np.isnan(y), 0, np.clip(y, info.min, info.max))
    return y.astype(dtype)


CAST_FLOAT_TO_INT = [(np.float32, np.int32), (np.float32, np.int8),
                     (np.float32, np.uint8), (np.float64, np.int16),
                     (np.float16, np.int32), (np.float64, np.uint32)]


@pytest.mark.parametrize("types", CAST_FLOAT_TO_INT,
                         ids=lambda t: f"{np.dtype(t[0]).name}-{np.dtype(t[1]).name}")
def test_cast_float_to_int(types, rng):
    """Truncates toward zero; out-of-range saturates; NaN -> 0."""
    src, dst = types
    x = rand_float(rng, (4, 5), src, -300.0, 300.0)
    x.flat[:6] = [np.nan, np.inf, -np.inf, -0.7, 0.7, -2.5]
    got = run_op("Cast", [("x", x)], mlir_type(x.shape, dst))
    check_equal(got, saturating_cast(x, dst))


CAST_EXACT = [(np.int32, np.int8), (np.int8, np.uint16), (np.uint8, np.int8),
              (np.int64, np.int32), (np.int16, np.float32),
              (np.int32, np.float64), (np.uint64, np.uint8),
              (np.float32, np.float64), (np.float16, np.float32)]


@pytest.mark.parametrize("types", CAST_EXACT,
                         ids=lambda t: f"{np.dtype(t[0]).name}-{np.dtype(t[1]).name}")
def test_cast_exact(types, rng):
    """Integer narrowing wraps like numpy astype; widening is exact."""
    src, dst = types
    if np.issubdtype(src, np.integer):
        x = rand_int(rng, (3, 7), src)
    else:
        x = rand_float(rng, (3, 7), src, -100, 100)
    got = run_op("Cast", [("x", x)], mlir_type(x.shape, dst))
    check_equal(got, x.astype(dst))


@pytest.mark.parametrize("types", [(np.float64, np.float32),
                                   (np.float32, np.float16),
                                   (np.int32, np.float32)],
                         ids=lambda t: f"{np.dtype(t[0]).name}-{np.dtype(t[1]).name}")
def test_cast_rounds_to_nearest(types, rng):
    """Narrowing float casts round to nearest even, like numpy (f16
    overflow gives inf)."""
    src, dst = types
    if src == np.int32:
        x = rng.integers(-2**31, 2**31, (50,), dtype=np.int32)
    else:
        x = (rng.standard_normal(50) * 1e3).astype(src)
        x[:3] = [70000.0, -1e6, np.nan]
    got = run_op("Cast", [("x", x)], mlir_type(x.shape, dst))
    with np.errstate(over="ignore"):
        check_equal(got, x.astype(dst))


def saturating_cast_exact(x, dtype):
    """Float -> 64-bit int in Python integers: truncate toward zero, values
    at or beyond the bounds saturate, NaN -> 0."""
    info = np.iinfo(dtype)
    out = []
    for v in x.astype(np.float64):
        if math.isnan(v):
            out.append(0)
        elif v >= info.max:
            out.append(int(info.max))
        elif v <= info.min:
            out.append(int(info.min))
        else:
            out.append(int(v))
    return np.array(out, dtype=dtype).reshape(x.shape)


@pytest.mark.parametrize("types", [(np.float32, np.int64), (np.float64, np.int64),
                                   (np.float32, np.uint64), (np.float64, np.uint64),
                                   (np.float16, np.int64)],
                         ids=lambda t: f"{np.dtype(t[0]).name}-{np.dtype(t[1]).name}")
def test_cast_float_to_int64_bounds(types):
    """Saturation at the 64-bit bounds (2^63 and 2^64 are the first floats
    past the maxima); the largest floats below them convert exactly."""
    src, dst = types
    vals = [2.0**63, -2.0**63, 2.0**64, -2.0**64, 1e30, -1e30, np.inf, -np.inf,
            np.nan, 0.5, -0.5, -1.0, 2.0**62, -(2.0**62), 12345.75]
    vals += [np.nextafter(np.float32(2.0**63), np.float32(0)),
             np.nextafter(np.float32(2.0**64), np.float32(0)),
             np.nextafter(2.0**63, 0), np.nextafter(2.0**64, 0)]
    with np.errstate(over="ignore"):
        x = np.array(vals, dtype=np.float64).astype(src)
    got = run_op("Cast", [("x", x)], mlir_type(x.shape, dst))
    check_equal(got, saturating_cast_exact(x, dst))


def test_cast_rounds_through_f64_and_f32():
    """64-bit integers convert through f64 and f64 converts to f16 through
    f32, as the interpreter does (each step rounds to nearest even, so the
    result may differ from a single rounding: 2^62 + 2^38 + 1 is 2^62 in
    f32, 1 + 2^-11 + 2^-40 is 1 in f16)."""
    i = np.array([2**62 + 2**38 + 1, -(2**62 + 2**38 + 1), 2**53 + 1, 2**24 + 1,
                  2**63 - 1, -2**63, 0, -7], dtype=np.int64)
    got = run_op("Cast", [("x", i)], mlir_type(i.shape, np.float32))
    check_equal(got, i.astype(np.float64).astype(np.float32))
    assert got[0] == np.float32(2.0**62)
    u = np.array([2**64 - 1, 2**63 + 2**39 + 1, 2**53 + 1, 5], dtype=np.uint64)
    got = run_op("Cast", [("x", u)], mlir_type(u.shape, np.float16))
    with np.errstate(over="ignore"):
        check_equal(got, u.astype(np.float64).astype(np.float32).astype(np.float16))
    d = np.array([1 + 2.0**-11 + 2.0**-40, -(1 + 2.0**-11 + 2.0**-40), 65519.99,
                  1e-8, np.nan, -np.inf, 3.14159], dtype=np.float64)
    got = run_op("Cast", [("x", d)], mlir_type(d.shape, np.float16))
    with np.errstate(over="ignore"):
        check_equal(got, d.astype(np.float32).astype(np.float16))
    assert got[0] == np.float16(1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_cast_bool(dtype, rng):
    """x != 0 to i1 (NaN is true); i1 to 0/1."""
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-2, 3, (4, 4)).astype(dtype)
    else:
        x = rng.integers(-2, 3, (4, 4)).astype(dtype)
        x.flat[:3] = [np.nan, -0.0, 0.5]
    got = run_op("Cast", [("x", x)], "tensor<4x4xi1>")
    check_equal(got, x.astype(np.bool_))
    b = rng.random((2, 3)) < 0.5
    got = run_op("Cast", [("b", b)], mlir_type(b.shape, dtype))
    check_equal(got, b.astype(dtype))


def test_cast_zero_size_and_scalar(rng):
    for shape in [(0, 4), ()]:
        x = rand_float(rng, shape, np.float32, -9, 9)
        got = run_op("Cast", [("x", np.asarray(x))], f"tensor<*xi16>")
        check_equal(got, saturating_cast(np.asarray(x), np.int16))
