"""TFLite importer, one small model per op family, float and quantized,
against the TFLite interpreter (ai-edge-litert).

Tolerances: float outputs have cosine >= 0.9999 and are allclose with
rtol 1e-4, atol 1e-4 * max|ref| (Strata computes in f32/f64, TFLite's
XNNPACK kernels in f32 with other summation orders). Quantized outputs are
within 1 LSB on >= 99.9% of the elements and never more than 2 LSB apart
(see docs/tflite.md: the ops that Strata computes in float after
dequantizing differ from TFLite's integer kernels and lookup tables by
rounding); the int8/uint8 convolutions and fully connected layers,
requantized in Requant's TosaSingleRound mode as the interpreter's
single-rounding MultiplyByQuantizedMultiplier, must be equal (`exact`). Both the imported model
(`m_origin.mlir`) and the optimized one (`m.mlir`) are checked."""
import json
import os
import tempfile

import numpy as np
import pytest

from tflite_builder import (Case, ModelBuilder, cosine, enum, run_strata, run_tflite,
                            tensor_ranges)

A = enum("ActivationFunctionType")
P = enum("Padding")
RESULTS = {}


def _record(op, variant, ok):
    for o in op.split(","):
        RESULTS.setdefault(o, {})[variant] = RESULTS.get(o, {}).get(variant, True) and ok


@pytest.fixture(scope="module", autouse=True)
def _write_results():
    yield
    out = os.environ.get("STRATA_TFLITE_OPS_JSON")
    if out:
        os.makedirs(os.path.dirname(out), exist_ok=True)
        old = {}
        if os.path.exists(out):
            with open(out) as f:
                old = json.load(f)
        for op, v in RESULTS.items():
            old.setdefault(op, {}).update(v)
        with open(out, "w") as f:
            json.dump(old, f, indent=1, sort_keys=True)


def compare(ref, got, quantized, what, exact=False):
    assert ref.dtype == got.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    assert ref.shape == got.shape, f"{what}: shape {got.shape} != {ref.shape}"
    if exact:  # TFLite's integer arithmetic itself (Requant TosaSingleRound)
        np.testing.assert_array_equal(got, ref, err_msg=what)
    if quantized:
        d = np.abs(ref.astype(np.int64) - got.astype(np.int64))
        frac = float((d <= 1).mean()) if d.size else 1.0
        stats = os.environ.get("STRATA_TFLITE_LSB_STATS")  # JSON lines
        if stats:
            with open(stats, "a") as f:
                f.write(json.dumps({"what": what, "n": int(d.size),
                                    "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
                                    "exact": int((d == 0).sum()),
                                    "one": int((d == 1).sum())}) + "\n")
        assert frac >= 0.999 and d.max(initial=0) <= 2, \
            f"{what}: {frac:.4%} within 1 LSB, max {d.max()}"
    else:
        c = cosine(ref, got)
        assert c >= 0.9999, f"{what}: cosine {c}"
        atol = 1e-4 * max(float(np.abs(ref).max(initial=0)), 1e-6)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=atol, err_msg=what)


def check(build, inputs, qtype=None, seed=0, exact=False):
    """Builds the model (float, or quantized with ranges from the float
    model), runs it in TFLite and through strata, compares every output."""
    rng = np.random.default_rng(seed)
    x = {n: rng.standard_normal(s).astype(np.float32) for n, s in inputs.items()}
    c = Case()
    outs = build(c)
    model = c.b.finish(outs)
    feed = x
    if qtype:
        ranges = tensor_ranges(model, x)
        c = Case(qtype, ranges)
        outs = build(c)
        model = c.b.finish(outs)
        feed = {n: c.quantize_input(n, v) for n, v in x.items()}
    ref = run_tflite(model, feed)
    with tempfile.TemporaryDirectory() as tmp:
        for optimized in (False, True):
            got = run_strata(model, feed, tmp, optimized)
            for name, r in ref.items():
                compare(r, got[name], qtype is not None,
                        f"{name} ({'optimized' if optimized else 'imported'})", exact)


VARIANTS = [None, "int8"]


def run_case(op, build, inputs, qtype, seed=0, exact=False):
    variant = qtype or "float32"
    try:
        check(build, inputs, qtype, seed, exact)
    except BaseException:
        _record(op, variant, False)
        raise
    _record(op, variant, True)


def w(shape, seed=1, scale=0.5):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


# --- convolutions -------------------------------------------------------------

CONV_CASES = [
    # (input shape, filter OHWI, padding, stride, dilation, activation)
    ((1, 9, 9, 3), (8, 3, 3, 3), P.SAME, 2, 1, A.RELU6),
    ((1, 8, 7, 4), (5, 2, 3, 4), P.VALID, 1, 1, A.NONE),
    ((2, 10, 10, 2), (4, 3, 3, 2), P.SAME, 1, 2, A.RELU),
    ((1, 6, 6, 4), (6, 3, 3, 2), P.SAME, 1, 1, A.RELU_N1_TO_1),  # grouped (2)
]


@pytest.mark.parametrize("qtype", VARIANTS + ["uint8", "int16"])
@pytest.mark.parametrize("i", range(len(CONV_CASES)))
def test_conv2d(i, qtype):
    xs, ws, pad, s, d, act = CONV_CASES[i]
    if qtype and act == A.RELU_N1_TO_1:
        act = A.RELU
    if qtype and ws[3] != xs[3]:
        pytest.skip("TFLite's quantized kernels have no grouped conv")

    def build(c):
        x = c.input("x", xs)
        f = c.weight("w", w(ws), axis=0)
        b = c.bias("b", w(ws[0], 2), "x", "w")
        oh = -(-xs[1] // s) if pad == P.SAME else (xs[1] - (ws[1] - 1) * d - 1) // s + 1
        ow = -(-xs[2] // s) if pad == P.SAME else (xs[2] - (ws[2] - 1) * d - 1) // s + 1
        y = c.act("y", (xs[0], oh, ow, ws[0]))
        c.b.op("CONV_2D", [x, f, b], [y], "Conv2DOptions", padding=pad, strideH=s,
               strideW=s, dilationHFactor=d, dilationWFactor=d,
               fusedActivationFunction=act)
        return [y]
    # int8 (per-channel filters) and uint8 (per-tensor): TFLite's
    # requantization exactly.
    run_case("CONV_2D", build, {"x": xs}, qtype, exact=qtype in ("int8", "uint8"))


@pytest.mark.parametrize("qtype", VARIANTS + ["uint8"])
@pytest.mark.parametrize("mult,stride", [(1, 2), (2, 1)])
def test_depthwise_conv2d(mult, stride, qtype):
    xs = (1, 8, 8, 3)

    def build(c):
        x = c.input("x", xs)
        f = c.weight("w", w((1, 3, 3, 3 * mult)), axis=3)
        b = c.bias("b", w(3 * mult, 2), "x", "w")
        o = -(-8 // stride)
        y = c.act("y", (1, o, o, 3 * mult))
        c.b.op("DEPTHWISE_CONV_2D", [x, f, b], [y], "DepthwiseConv2DOptions",
               padding=P.SAME, strideH=stride, strideW=stride, depthMultiplier=mult,
               dilationHFactor=1, dilationWFactor=1, fusedActivationFunction=A.RELU)
        return [y]
    run_case("DEPTHWISE_CONV_2D", build, {"x": xs}, qtype,
             exact=qtype in ("int8", "uint8"))


@pytest.mark.parametrize("qtype", VARIANTS + ["uint8", "int16"])
@pytest.mark.parametrize("keep", [False, True])
def test_fully_connected(keep, qtype):
    xs = (2, 3, 16)

    def build(c):
        x = c.input("x", xs)
        f = c.weight("w", w((10, 16)), axis=None if qtype else 0)
        b = c.bias("b", w(10, 2), "x", "w")
        y = c.act("y", (2, 3, 10) if keep else (6, 10))
        c.b.op("FULLY_CONNECTED", [x, f, b], [y], "FullyConnectedOptions",
               keepNumDims=keep, fusedActivationFunction=A.RELU)
        return [y]
    run_case("FULLY_CONNECTED", build, {"x": xs}, qtype,
             exact=qtype in ("int8", "uint8"))


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("pad", [P.SAME, P.VALID])
def test_transpose_conv(pad, qtype):
    xs = (1, 5, 5, 4)
    out = (1, 10, 10, 3) if pad == P.SAME else (1, 11, 11, 3)

    def build(c):
        shape = c.b.const("shape", np.array(out, np.int32))
        f = c.weight("w", w((3, 3, 3, 4)), axis=0)
        x = c.input("x", xs)
        y = c.act("y", out)
        c.b.op("TRANSPOSE_CONV", [shape, f, x], [y], "TransposeConvOptions",
               padding=pad, strideH=2, strideW=2)
        return [y]
    run_case("TRANSPOSE_CONV", build, {"x": xs}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("op", ["MAX_POOL_2D", "AVERAGE_POOL_2D"])
@pytest.mark.parametrize("pad", [P.SAME, P.VALID])
def test_pool(op, pad, qtype):
    xs = (1, 9, 9, 4)

    def build(c):
        x = c.input("x", xs)
        o = 5 if pad == P.SAME else 4
        y = c.act("y", (1, o, o, 4), same="x")
        c.b.op(op, [x], [y], "Pool2DOptions", padding=pad, strideH=2, strideW=2,
               filterHeight=3, filterWidth=3)
        return [y]
    run_case(op, build, {"x": xs}, qtype)


# --- elementwise ----------------------------------------------------------------

@pytest.mark.parametrize("qtype", VARIANTS + ["int16"])
@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "DIV"])
def test_binary(op, qtype):
    if qtype and op == "DIV":
        pytest.skip("TFLite has no int8 DIV")
    opts = {"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions",
            "DIV": "DivOptions"}[op]

    def build(c):
        a = c.input("a", (2, 4, 4, 3))
        b = c.input("b", (1, 1, 4, 3))
        y = c.act("y", (2, 4, 4, 3))
        c.b.op(op, [a, b], [y], opts, fusedActivationFunction=A.RELU)
        return [y]
    inputs = {"a": (2, 4, 4, 3), "b": (1, 1, 4, 3)}
    if op == "DIV":
        # Keep the divisor away from 0.
        def build_div(c):
            a = c.input("a", (2, 4, 4, 3))
            k = c.weight("k", np.linspace(0.5, 2.0, 12, dtype=np.float32).reshape(1, 1, 4, 3), axis=None)
            y = c.act("y", (2, 4, 4, 3))
            c.b.op("DIV", [a, k], [y], "DivOptions", fusedActivationFunction=A.NONE)
            return [y]
        return run_case(op, build_div, {"a": (2, 4, 4, 3)}, qtype)
    run_case(op, build, inputs, qtype)


UNARY = {
    "LOGISTIC": (None, {"scale": 1 / 256, "zp": -128}),
    "TANH": (None, {"scale": 1 / 128, "zp": 0}),
    "RELU": (None, {}), "RELU6": (None, {}), "RELU_N1_TO_1": (None, {}),
    "HARD_SWISH": (None, {}),
    "LEAKY_RELU": ("LeakyReluOptions", {}),
    "EXP": (None, {}), "ABS": (None, {}), "NEG": (None, {}),
}


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, qtype):
    opts, fixed = UNARY[op]
    if qtype and op in ("EXP", "NEG"):
        pytest.skip(f"no int8 {op} in this comparison")

    def build(c):
        x = c.input("x", (2, 5, 7))
        y = c.act("y", (2, 5, 7), **(fixed if qtype else {}))
        if opts:
            c.b.op(op, [x], [y], opts, alpha=0.1)
        else:
            c.b.op(op, [x], [y])
        return [y]
    run_case(op, build, {"x": (2, 5, 7)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("beta", [1.0, 0.5])
def test_softmax(beta, qtype):
    def build(c):
        x = c.input("x", (3, 10))
        y = c.act("y", (3, 10), **({"scale": 1 / 256, "zp": -128} if qtype else {}))
        c.b.op("SOFTMAX", [x], [y], "SoftmaxOptions", beta=beta)
        return [y]
    run_case("SOFTMAX", build, {"x": (3, 10)}, qtype)


# --- shape ----------------------------------------------------------------------

@pytest.mark.parametrize("qtype", VARIANTS)
def test_reshape_transpose_squeeze(qtype):
    def build(c):
        x = c.input("x", (1, 4, 6, 1))
        shape = c.b.const("shape", np.array([4, -1], np.int32))
        r = c.act("r", (4, 6), same="x")
        c.b.op("RESHAPE", [x, shape], [r])
        perm = c.b.const("perm", np.array([1, 0], np.int32))
        t = c.act("t", (6, 4), same="x")
        c.b.op("TRANSPOSE", [r, perm], [t])
        axis = c.b.const("axis", np.array([0], np.int32))
        e = c.act("e", (1, 6, 4), same="x")
        c.b.op("EXPAND_DIMS", [t, axis], [e])
        s = c.act("s", (6, 4), same="x")
        c.b.op("SQUEEZE", [e], [s], "SqueezeOptions", squeezeDims=[0])
        return [s]
    run_case("RESHAPE,TRANSPOSE,EXPAND_DIMS,SQUEEZE", build, {"x": (1, 4, 6, 1)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
def test_concat_pack_unpack_split(qtype):
    def build(c):
        a = c.input("a", (2, 3, 4))
        b = c.input("b", (2, 3, 4), same="a")
        cat = c.act("cat", (2, 3, 8), same="a")
        c.b.op("CONCATENATION", [a, b], [cat], "ConcatenationOptions", axis=-1)
        pk = c.act("pk", (2, 2, 3, 4), same="a")
        c.b.op("PACK", [a, b], [pk], "PackOptions", valuesCount=2, axis=1)
        u0, u1, u2 = c.act("u0", (2, 4), same="a"), c.act("u1", (2, 4), same="a"), c.act("u2", (2, 4), same="a")
        c.b.op("UNPACK", [a], [u0, u1, u2], "UnpackOptions", num=3, axis=1)
        ax = c.b.const("ax", np.array([2], np.int32))
        s0, s1 = c.act("s0", (2, 3, 4), same="cat"), c.act("s1", (2, 3, 4), same="cat")
        c.b.op("SPLIT", [ax, cat], [s0, s1], "SplitOptions", numSplits=2)
        sizes = c.b.const("sizes", np.array([1, -1], np.int32))
        v0, v1 = c.act("v0", (2, 3, 1), same="b"), c.act("v1", (2, 3, 3), same="b")
        c.b.op("SPLIT_V", [b, sizes, ax], [v0, v1], "SplitVOptions", numSplits=2)
        return [cat, pk, u1, s1, v1]
    run_case("CONCATENATION,PACK,UNPACK,SPLIT,SPLIT_V", build,
             {"a": (2, 3, 4), "b": (2, 3, 4)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("op", ["PAD", "PADV2", "MIRROR_PAD"])
def test_pad(op, qtype):
    def build(c):
        x = c.input("x", (1, 4, 5, 2))
        p = c.b.const("p", np.array([[0, 0], [1, 2], [2, 1], [0, 0]], np.int32))
        y = c.act("y", (1, 7, 8, 2))
        if op == "PADV2":
            v = c.weight("v", np.array(0.25, np.float32).reshape(()), axis=None) \
                if not c.quantized else c.b.const("v", np.array(c.params["x"][1], np.int8).reshape(()),
                                             quant=c.params["x"])
            c.b.op(op, [x, p, v], [y])
        elif op == "MIRROR_PAD":
            c.b.op(op, [x, p], [y], "MirrorPadOptions", mode=enum("MirrorPadMode").REFLECT)
        else:
            c.b.op(op, [x, p], [y])
        return [y]
    run_case(op, build, {"x": (1, 4, 5, 2)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("op,keep", [("MEAN", True), ("MEAN", False), ("SUM", False),
                                     ("REDUCE_MAX", True)])
def test_reduce(op, keep, qtype):
    def build(c):
        x = c.input("x", (2, 5, 6, 3))
        ax = c.b.const("ax", np.array([1, 2], np.int32))
        y = c.act("y", (2, 1, 1, 3) if keep else (2, 3),
                  same="x" if op == "REDUCE_MAX" else None)
        c.b.op(op, [x, ax], [y], "ReducerOptions", keepDims=keep)
        return [y]
    run_case(op, build, {"x": (2, 5, 6, 3)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
def test_strided_slice_slice_gather(qtype):
    def build(c):
        x = c.input("x", (2, 6, 8, 3))
        b = c.b.const("b", np.array([0, 1, -1, 0], np.int32))
        e = c.b.const("e", np.array([1, 6, 0, 2], np.int32))
        s = c.b.const("s", np.array([1, 2, -2, 1], np.int32))
        y = c.act("y", (3, 4, 2), same="x")
        # begin_mask on dim 3 (start 0), shrink dim 0.
        c.b.op("STRIDED_SLICE", [x, b, e, s], [y], "StridedSliceOptions",
               beginMask=8, endMask=0, shrinkAxisMask=1)
        sb = c.b.const("sb", np.array([1, 0, 2, 1], np.int32))
        ss = c.b.const("ss", np.array([1, -1, 3, 2], np.int32))
        z = c.act("z", (1, 6, 3, 2), same="x")
        c.b.op("SLICE", [x, sb, ss], [z])
        idx = c.b.const("idx", np.array([[5, 0], [2, 2]], np.int32))
        g = c.act("g", (2, 2, 2, 8, 3), same="x")
        c.b.op("GATHER", [x, idx], [g], "GatherOptions", axis=1)
        return [y, z, g]
    run_case("STRIDED_SLICE,SLICE,GATHER", build, {"x": (2, 6, 8, 3)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
def test_strided_slice_ellipsis_new_axis(qtype):
    """STRIDED_SLICE's ellipsis_mask and new_axis_mask: x[:, newaxis, ...,
    ::-1] and x[1, ..., 2] (shrink around an ellipsis)."""
    def build(c):
        x = c.input("x", (2, 6, 8, 3))
        z4 = c.b.const("z4", np.zeros(4, np.int32))
        st = c.b.const("st", np.array([1, 1, 1, -1], np.int32))
        y = c.act("y", (2, 1, 6, 8, 3), same="x")
        c.b.op("STRIDED_SLICE", [x, z4, z4, st], [y], "StridedSliceOptions",
               beginMask=0b1001, endMask=0b1001, newAxisMask=0b0010,
               ellipsisMask=0b0100)
        b = c.b.const("b", np.array([1, 0, 2], np.int32))
        e = c.b.const("e", np.array([2, 0, 3], np.int32))
        s1 = c.b.const("s1", np.array([1, 1, 1], np.int32))
        z = c.act("z", (6, 8), same="x")
        c.b.op("STRIDED_SLICE", [x, b, e, s1], [z], "StridedSliceOptions",
               shrinkAxisMask=0b101, ellipsisMask=0b010)
        return [y, z]
    run_case("STRIDED_SLICE", build, {"x": (2, 6, 8, 3)}, qtype)


@pytest.mark.parametrize("flag", [True, False])
def test_if(flag):
    """IF: the then branch adds, the else branch multiplies; the
    condition is a graph input."""
    b = ModelBuilder()
    c = b.input("c", (), np.bool_)
    x = b.input("x", (2, 3), np.float32)
    y = b.input("y", (2, 3), np.float32)
    branches = []
    for op in ("ADD", "MUL"):
        g = b.subgraph()
        gx, gy = g.input("gx", (2, 3)), g.input("gy", (2, 3))
        go = g.tensor("go", (2, 3))
        g.op(op, [gx, gy], [go], "AddOptions" if op == "ADD" else "MulOptions")
        g.outputs = [go]
        branches.append(g.index)
    r = b.tensor("r", (2, 3))
    b.op("IF", [c, x, y], [r], "IfOptions", thenSubgraphIndex=branches[0],
         elseSubgraphIndex=branches[1])
    model = b.finish([r])
    rng = np.random.default_rng(0)
    feed = {"c": np.array(flag), "x": rng.standard_normal((2, 3)).astype(np.float32),
            "y": rng.standard_normal((2, 3)).astype(np.float32)}
    ref = run_tflite(model, feed)
    with tempfile.TemporaryDirectory() as tmp:
        for optimized in (False, True):
            got = run_strata(model, feed, tmp, optimized)
            np.testing.assert_allclose(got["r"], ref["r"], rtol=1e-6)
    _record("IF", "float32", True)


def test_while():
    """WHILE: doubles x and counts until the count reaches n (a graph
    input), i.e. i < n is checked before each iteration."""
    b = ModelBuilder()
    i0 = b.input("i0", ())
    n = b.input("n", ())
    x = b.input("x", (4,))
    cond = b.subgraph()
    ci, cn, cx = cond.input("ci", ()), cond.input("cn", ()), cond.input("cx", (4,))
    co = cond.tensor("co", (), np.bool_)
    cond.op("LESS", [ci, cn], [co])
    cond.outputs = [co]
    body = b.subgraph()
    bi, bn, bx = body.input("bi", ()), body.input("bn", ()), body.input("bx", (4,))
    one = body.const("one", np.array(1, np.float32))
    bi1, bx2 = body.tensor("bi1", ()), body.tensor("bx2", (4,))
    body.op("ADD", [bi, one], [bi1], "AddOptions")
    body.op("ADD", [bx, bx], [bx2], "AddOptions")
    body.outputs = [bi1, bn, bx2]
    ri, rn, rx = b.tensor("ri", ()), b.tensor("rn", ()), b.tensor("rx", (4,))
    b.op("WHILE", [i0, n, x], [ri, rn, rx], "WhileOptions",
         condSubgraphIndex=cond.index, bodySubgraphIndex=body.index)
    model = b.finish([ri, rx])
    for start, count in ((0, 5), (3, 3), (4, 2)):  # 5, 0 and 0 iterations
        feed = {"i0": np.array(start, np.float32), "n": np.array(count, np.float32),
                "x": np.arange(4, dtype=np.float32) - 1.5}
        ref = run_tflite(model, feed)
        with tempfile.TemporaryDirectory() as tmp:
            got = run_strata(model, feed, tmp, True)
        np.testing.assert_array_equal(got["ri"], ref["ri"])
        np.testing.assert_array_equal(got["rx"], ref["rx"])
    _record("WHILE", "float32", True)


def test_reshape_shape_from_tensor():
    """RESHAPE whose shape is a graph input (known only at run time): the
    output's declared shape is used, and the data must match TFLite."""
    b = ModelBuilder()
    x = b.input("x", (2, 6), np.float32)
    shape = b.input("shape", (2,), np.int32)
    r = b.tensor("r", (3, 4), np.float32)
    b.op("RESHAPE", [x, shape], [r])
    model = b.finish([r])
    feed = {"x": np.arange(12, dtype=np.float32).reshape(2, 6),
            "shape": np.array([3, 4], np.int32)}
    ref = run_tflite(model, feed)
    with tempfile.TemporaryDirectory() as tmp:
        got = run_strata(model, feed, tmp)
    np.testing.assert_array_equal(got["r"], ref["r"])
    _record("RESHAPE", "float32", True)


@pytest.mark.parametrize("qtype", VARIANTS)
@pytest.mark.parametrize("op,align,half", [
    ("RESIZE_BILINEAR", False, False), ("RESIZE_BILINEAR", True, False),
    ("RESIZE_BILINEAR", False, True), ("RESIZE_NEAREST_NEIGHBOR", False, False),
    ("RESIZE_NEAREST_NEIGHBOR", True, False), ("RESIZE_NEAREST_NEIGHBOR", False, True)])
def test_resize(op, align, half, qtype):
    opts = "ResizeBilinearOptions" if op == "RESIZE_BILINEAR" else "ResizeNearestNeighborOptions"

    def build(c):
        x = c.input("x", (1, 5, 4, 2))
        size = c.b.const("size", np.array([9, 7], np.int32))
        y = c.act("y", (1, 9, 7, 2), same="x")
        c.b.op(op, [x, size], [y], opts, alignCorners=align, halfPixelCenters=half)
        return [y]
    run_case(op, build, {"x": (1, 5, 4, 2)}, qtype)


@pytest.mark.parametrize("adj", [(False, False), (True, False), (False, True)])
def test_batch_matmul(adj):
    xs = (2, 5, 3) if adj[0] else (2, 3, 5)
    ys = (2, 4, 5) if adj[1] else (2, 5, 4)

    def build(c):
        x = c.input("x", xs)
        y = c.input("y", ys)
        z = c.act("z", (2, 3, 4))
        c.b.op("BATCH_MATMUL", [x, y], [z], "BatchMatMulOptions", adjX=adj[0], adjY=adj[1])
        return [z]
    run_case("BATCH_MATMUL", build, {"x": xs, "y": ys}, None)


def test_float16_weights():
    """fp16-quantized models: float16 weights behind DEQUANTIZE."""
    def build(c):
        x = c.input("x", (1, 6, 6, 3))
        w16 = c.b.const("w16", w((4, 3, 3, 3)).astype(np.float16))
        f = c.act("w32", (4, 3, 3, 3))
        c.b.op("DEQUANTIZE", [w16], [f])
        y = c.act("y", (1, 6, 6, 4))
        b = c.b.const("b", w(4, 2))
        c.b.op("CONV_2D", [x, f, b], [y], "Conv2DOptions", padding=P.SAME,
               strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1)
        return [y]
    run_case("DEQUANTIZE", build, {"x": (1, 6, 6, 3)}, None)


@pytest.mark.parametrize("qtype", ["int8", "uint8"])
def test_quantize_dequantize(qtype):
    """A float model with int8/uint8 inside: QUANTIZE, a requantizing
    QUANTIZE (new scale), DEQUANTIZE."""
    def build(c):
        x = c.b.tensor("x", (3, 17))
        c.b.inputs.append(x)
        dt = np.dtype(qtype)
        zp = 3 if dt == np.int8 else 131
        q = c.b.tensor("q", (3, 17), dt, quant=(0.02, zp))
        c.b.op("QUANTIZE", [x], [q])
        r = c.b.tensor("r", (3, 17), dt, quant=(0.035, -zp if dt == np.int8 else 100))
        c.b.op("QUANTIZE", [q], [r])
        y = c.b.tensor("y", (3, 17))
        c.b.op("DEQUANTIZE", [r], [y])
        return [q, y]
    run_case("QUANTIZE,DEQUANTIZE", build, {"x": (3, 17)}, None)


@pytest.mark.parametrize("qtype", VARIANTS)
def test_compare_select(qtype):
    def build(c):
        a = c.input("a", (2, 3, 4))
        b = c.input("b", (2, 3, 4), same="a")
        outs = []
        for op in ("LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "EQUAL", "NOT_EQUAL"):
            t = c.b.tensor(op.lower(), (2, 3, 4), np.bool_)
            c.b.op(op, [a, b], [t])
            outs.append(t)
        s = c.act("sel", (2, 3, 4), same="a")
        c.b.op("SELECT_V2", [outs[0], a, b], [s])
        return outs + [s]
    run_case("LESS,LESS_EQUAL,GREATER,GREATER_EQUAL,EQUAL,NOT_EQUAL,SELECT_V2", build,
             {"a": (2, 3, 4), "b": (2, 3, 4)}, qtype)


@pytest.mark.parametrize("qtype", VARIANTS)
def test_depth_space(qtype):
    def build(c):
        x = c.input("x", (1, 4, 6, 8))
        d = c.act("d", (1, 8, 12, 2), same="x")
        c.b.op("DEPTH_TO_SPACE", [x], [d], "DepthToSpaceOptions", blockSize=2)
        s = c.act("s", (1, 2, 3, 32), same="x")
        c.b.op("SPACE_TO_DEPTH", [x], [s], "SpaceToDepthOptions", blockSize=2)
        return [d, s]
    run_case("DEPTH_TO_SPACE,SPACE_TO_DEPTH", build, {"x": (1, 4, 6, 8)}, qtype)


def test_float_extras():
    """LOG_SOFTMAX, SQUARE, ARG_MAX/ARG_MIN (int32 and int64), BROADCAST_TO,
    CUMSUM (exclusive, reverse)."""
    def build(c):
        x = c.input("x", (3, 7))
        ls = c.act("ls", (3, 7))
        c.b.op("LOG_SOFTMAX", [x], [ls], "LogSoftmaxOptions")
        sq = c.act("sq", (3, 7))
        c.b.op("SQUARE", [x], [sq])
        ax = c.b.const("ax", np.array([1], np.int32))
        am = c.b.tensor("am", (3,), np.int32)
        c.b.op("ARG_MAX", [x, ax], [am], "ArgMaxOptions", outputType=enum("TensorType").INT32)
        an = c.b.tensor("an", (3,), np.int64)
        c.b.op("ARG_MIN", [x, ax], [an], "ArgMinOptions", outputType=enum("TensorType").INT64)
        bt = c.act("bt", (2, 3, 7))
        c.b.op("BROADCAST_TO", [x, c.b.const("shape", np.array([2, 3, 7], np.int32))], [bt])
        cs = c.act("cs", (3, 7))
        c.b.op("CUMSUM", [x, ax], [cs], "CumsumOptions", exclusive=True, reverse=True)
        return [ls, sq, am, an, bt, cs]
    run_case("LOG_SOFTMAX,SQUARE,ARG_MAX,ARG_MIN,BROADCAST_TO,CUMSUM", build, {"x": (3, 7)}, None)


def test_densify():
    """A sparse (CSR) constant expanded by DENSIFY, feeding FULLY_CONNECTED."""
    from tflite_builder import csr_sparsity
    dense = w((6, 10), 3)
    dense[np.abs(dense) < 0.4] = 0

    def build(c):
        x = c.input("x", (2, 10))
        sp, values = csr_sparsity(dense)
        s = c.b.const("sparse", values.astype(np.float32))
        c.b.tensors[s].shape = [6, 10]
        c.b.tensors[s].sparsity = sp
        d = c.act("dense", (6, 10))
        c.b.op("DENSIFY", [s], [d])
        y = c.act("y", (2, 6))
        c.b.op("FULLY_CONNECTED", [x, d, -1], [y], "FullyConnectedOptions")
        return [y]
    run_case("DENSIFY", build, {"x": (2, 10)}, None)


@pytest.mark.parametrize("qtype", VARIANTS)
def test_more_elementwise(qtype):
    """MAXIMUM, MINIMUM, SQUARED_DIFFERENCE, PRELU, RELU_0_TO_1 (float and
    int8); POW, SQRT, RSQRT, LOG, GELU (float, on positive inputs where
    they need them)."""
    def build(c):
        a = c.input("a", (2, 3, 4))
        b = c.input("b", (2, 3, 4), same="a")
        outs = []
        for op in ("MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"):
            # TFLite's int8 MAXIMUM/MINIMUM compare the stored integers.
            t = c.act(op.lower(), (2, 3, 4), same="a" if op != "SQUARED_DIFFERENCE" else None)
            c.b.op(op, [a, b], [t])
            outs.append(t)
        slope = c.weight("slope", np.linspace(0.1, 0.4, 4, dtype=np.float32), axis=None)
        p = c.act("prelu", (2, 3, 4))
        c.b.op("PRELU", [a, slope], [p])
        r = c.act("relu01", (2, 3, 4))
        c.b.op("RELU_0_TO_1", [a], [r])
        outs += [p, r]
        if not c.quantized:
            pos = c.act("pos", (2, 3, 4))
            c.b.op("EXP", [b], [pos])
            for op in ("SQRT", "RSQRT", "LOG"):
                t = c.act(op.lower(), (2, 3, 4))
                c.b.op(op, [pos], [t])
                outs.append(t)
            pw = c.act("pow", (2, 3, 4))
            c.b.op("POW", [pos, a], [pw])
            g = c.act("gelu", (2, 3, 4))
            c.b.op("GELU", [a], [g], "GeluOptions", approximate=True)
            outs += [pw, g]
        return outs
    ops = "MAXIMUM,MINIMUM,SQUARED_DIFFERENCE,PRELU,RELU_0_TO_1"
    if not qtype:
        ops += ",SQRT,RSQRT,LOG,POW,GELU"
    run_case(ops, build, {"a": (2, 3, 4), "b": (2, 3, 4)}, qtype)


def test_more_shape():
    """TILE, SHAPE, CAST, REDUCE_MIN, REDUCE_PROD, SELECT (float)."""
    def build(c):
        x = c.input("x", (2, 3))
        t = c.act("tile", (4, 9))
        c.b.op("TILE", [x, c.b.const("m", np.array([2, 3], np.int32))], [t])
        s = c.b.tensor("shape", (2,), np.int32)
        c.b.op("SHAPE", [t], [s], "ShapeOptions", outType=enum("TensorType").INT32)
        ci = c.b.tensor("cast", (2, 3), np.int32)
        c.b.op("CAST", [x], [ci])
        ax = c.b.const("ax", np.array([1], np.int32))
        mn = c.act("rmin", (2,))
        c.b.op("REDUCE_MIN", [x, ax], [mn], "ReducerOptions", keepDims=False)
        pr = c.act("rprod", (2, 1))
        c.b.op("REDUCE_PROD", [x, ax], [pr], "ReducerOptions", keepDims=True)
        cond = c.b.tensor("cond", (2, 3), np.bool_)
        c.b.op("GREATER", [x, c.b.const("zero", np.zeros((2, 3), np.float32))], [cond])
        sel = c.act("sel", (2, 3))
        c.b.op("SELECT", [cond, x, c.b.const("k", np.full((2, 3), 0.5, np.float32))], [sel])
        return [t, s, ci, mn, pr, sel]
    run_case("TILE,SHAPE,CAST,REDUCE_MIN,REDUCE_PROD,SELECT", build, {"x": (2, 3)}, None)


def test_argmin_int8_extremes():
    """ARG_MIN/ARG_MAX of plain int8 data holding -128 and 127."""
    b = ModelBuilder()
    x = b.input("x", (3, 5), np.int8)
    ax = b.const("ax", np.array([1], np.int32))
    lo, hi = b.tensor("lo", (3,), np.int32), b.tensor("hi", (3,), np.int32)
    b.op("ARG_MIN", [x, ax], [lo], "ArgMinOptions", outputType=enum("TensorType").INT32)
    b.op("ARG_MAX", [x, ax], [hi], "ArgMaxOptions", outputType=enum("TensorType").INT32)
    model = b.finish([lo, hi])
    feed = {"x": np.array([[5, -128, 3, -128, 0], [127, 1, 127, -5, 2], [0, 0, 0, 0, 0]], np.int8)}
    ref = run_tflite(model, feed)
    with tempfile.TemporaryDirectory() as tmp:
        got = run_strata(model, feed, tmp)
    for k in ref:
        np.testing.assert_array_equal(got[k], ref[k])
