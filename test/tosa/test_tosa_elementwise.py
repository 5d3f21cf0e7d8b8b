"""TOSA elementwise ops through convert-tosa-to-top against MLIR's own TOSA
lowering (tosa_harness.py): exact for integers, rtol 1e-5 for floats."""
import numpy as np
import pytest

from tosa_harness import check, ttype

F = "f32"


def unary(op, shape, elem, extra="", attrs=""):
    t = ttype(shape, elem)
    return (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = tosa.{op} %a{extra} {attrs}: ({t}) -> {t}\n"
            f"  return %0 : {t}\n}}")


def binary(op, shape_a, shape_b, elem, out_elem=None, attrs=""):
    ta, tb = ttype(shape_a, elem), ttype(shape_b, elem)
    out = ttype(np.broadcast_shapes(shape_a, shape_b), out_elem or elem)
    return (f"func.func @main(%a: {ta}, %b: {tb}) -> {out} {{\n"
            f"  %0 = tosa.{op} %a, %b {attrs}: ({ta}, {tb}) -> {out}\n"
            f"  return %0 : {out}\n}}")


FLOAT_UNARY = ["abs", "exp", "log", "rsqrt", "reciprocal", "sigmoid", "tanh",
               "erf", "floor", "ceil", "sin", "cos"]


@pytest.mark.parametrize("op", FLOAT_UNARY)
def test_float_unary(op, rng):
    x = rng.standard_normal((2, 3, 4)).astype(np.float32) * 3
    if op in ("log", "rsqrt"):
        x = np.abs(x) + 0.1
    x.flat[0] = 2.5  # a tie for floor/ceil neighbours
    check(unary(op, (2, 3, 4), F), [x])


FLOAT_BINARY = ["add", "sub", "maximum", "minimum", "pow"]


@pytest.mark.parametrize("op", FLOAT_BINARY)
def test_float_binary(op, rng):
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((1, 3, 1)).astype(np.float32)
    if op == "pow":
        a = np.abs(a) + 0.5
    check(binary(op, (2, 3, 4), (1, 3, 1), F), [a, b])


INT_BINARY = ["add", "sub", "maximum", "minimum", "bitwise_and", "bitwise_or",
              "bitwise_xor", "intdiv"]


@pytest.mark.parametrize("op", INT_BINARY)
def test_int32_binary(op, rng):
    a = rng.integers(-1000, 1000, (2, 5)).astype(np.int32)
    b = rng.integers(-50, 50, (1, 5)).astype(np.int32)
    if op == "intdiv":
        b[b == 0] = 7
    check(binary(op, (2, 5), (1, 5), "i32"), [a, b])


@pytest.mark.parametrize("op", ["equal", "greater", "greater_equal"])
@pytest.mark.parametrize("elem", ["f32", "i32"])
def test_compare(op, elem, rng):
    a = rng.integers(-3, 3, (3, 4)).astype(elem.replace("f", "float").replace("i", "int"))
    b = rng.integers(-3, 3, (3, 4)).astype(a.dtype)
    check(binary(op, (3, 4), (3, 4), elem, "i1"), [a, b])


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
def test_logical(op, rng):
    a = rng.integers(0, 2, (4, 4)).astype(bool)
    b = rng.integers(0, 2, (1, 4)).astype(bool)
    check(binary(op, (4, 4), (1, 4), "i1"), [a, b])


def test_logical_not_and_select(rng):
    t, f = ttype((3, 4), "i1"), ttype((3, 4), F)
    func = (f"func.func @main(%c: {t}, %a: {f}, %b: {f}) -> {f} {{\n"
            f"  %n = tosa.logical_not %c : ({t}) -> {t}\n"
            f"  %0 = tosa.select %n, %a, %b : ({t}, {f}, {f}) -> {f}\n"
            f"  return %0 : {f}\n}}")
    check(func, [rng.integers(0, 2, (3, 4)).astype(bool),
                 rng.standard_normal((3, 4)).astype(np.float32),
                 rng.standard_normal((3, 4)).astype(np.float32)])


@pytest.mark.parametrize("op", ["logical_left_shift", "logical_right_shift"])
@pytest.mark.parametrize("elem", ["i8", "i32"])
def test_logical_shift(op, elem, rng):
    bits = 8 if elem == "i8" else 32
    dt = np.int8 if elem == "i8" else np.int32
    a = rng.integers(-(1 << (bits - 1)), 1 << (bits - 1), (3, 5)).astype(dt)
    b = rng.integers(0, bits, (3, 5)).astype(dt)
    check(binary(op, (3, 5), (3, 5), elem), [a, b])


@pytest.mark.parametrize("rnd", ["true", "false"])
def test_arithmetic_right_shift(rnd, rng):
    a = rng.integers(-100000, 100000, (4, 6)).astype(np.int32)
    b = rng.integers(0, 12, (4, 6)).astype(np.int32)
    check(binary("arithmetic_right_shift", (4, 6), (4, 6), "i32",
                 attrs=f"{{round = {rnd}}} "), [a, b])


def test_bitwise_not_and_clz(rng):
    t = ttype((3, 5), "i32")
    func = (f"func.func @main(%a: {t}) -> ({t}, {t}) {{\n"
            f"  %0 = tosa.bitwise_not %a : ({t}) -> {t}\n"
            f"  %1 = tosa.clz %a : ({t}) -> {t}\n"
            f"  return %0, %1 : {t}, {t}\n}}")
    a = rng.integers(-(1 << 31), 1 << 31, (3, 5), dtype=np.int64).astype(np.int32)
    a.flat[:3] = [0, 1, -1]
    check(func, [a])


def mul(elem, out, shift, shape=(3, 4)):
    t, o = ttype(shape, elem), ttype(shape, out)
    return (f"func.func @main(%a: {t}, %b: {t}) -> {o} {{\n"
            f"  %s = \"tosa.const\"() {{values = dense<{shift}> : tensor<1xi8>}}"
            f" : () -> tensor<1xi8>\n"
            f"  %0 = tosa.mul %a, %b, %s : ({t}, {t}, tensor<1xi8>) -> {o}\n"
            f"  return %0 : {o}\n}}")


def test_mul_float(rng):
    a, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    check(mul("f32", "f32", 0), [a, b])


def test_mul_int8_widens(rng):
    a, b = (rng.integers(-128, 128, (3, 4)).astype(np.int8) for _ in range(2))
    check(mul("i8", "i32", 0), [a, b])


@pytest.mark.parametrize("shift", [1, 5, 17])
def test_mul_int32_shift(shift, rng):
    a = rng.integers(-30000, 30000, (3, 4)).astype(np.int32)
    b = rng.integers(-30000, 30000, (3, 4)).astype(np.int32)
    a.flat[0], b.flat[0] = -3, 1  # a negative exact half for shift 1
    check(mul("i32", "i32", shift), [a, b])


def test_negate_with_zero_points(rng):
    t = ttype((4, 4), "i8")
    func = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %z1 = \"tosa.const\"() {{values = dense<5> : tensor<1xi8>}} : () -> tensor<1xi8>\n"
            f"  %z2 = \"tosa.const\"() {{values = dense<-3> : tensor<1xi8>}} : () -> tensor<1xi8>\n"
            f"  %0 = tosa.negate %a, %z1, %z2 : ({t}, tensor<1xi8>, tensor<1xi8>) -> {t}\n"
            f"  return %0 : {t}\n}}")
    a = rng.integers(-128, 128, (4, 4)).astype(np.int8)
    a.flat[:2] = [-128, 127]
    check(func, [a])


def test_negate_float(rng):
    t = ttype((4, 4), F)
    func = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %z = \"tosa.const\"() {{values = dense<0.0> : tensor<1xf32>}} : () -> tensor<1xf32>\n"
            f"  %0 = tosa.negate %a, %z, %z : ({t}, tensor<1xf32>, tensor<1xf32>) -> {t}\n"
            f"  return %0 : {t}\n}}")
    check(func, [rng.standard_normal((4, 4)).astype(np.float32)])


@pytest.mark.parametrize("elem,lo,hi", [("f32", "-1.0 : f32", "2.5 : f32"),
                                        ("i8", "-20 : i8", "100 : i8"),
                                        ("i32", "0 : i32", "6000 : i32")])
def test_clamp(elem, lo, hi, rng):
    t = ttype((5, 6), elem)
    func = (f"func.func @main(%a: {t}) -> {t} {{\n"
            f"  %0 = tosa.clamp %a {{min_val = {lo}, max_val = {hi}}} : ({t}) -> {t}\n"
            f"  return %0 : {t}\n}}")
    if elem == "f32":
        a = rng.standard_normal((5, 6)).astype(np.float32) * 3
    elif elem == "i8":
        a = rng.integers(-128, 128, (5, 6)).astype(np.int8)
    else:
        a = rng.integers(-10000, 10000, (5, 6)).astype(np.int32)
    check(func, [a])


@pytest.mark.parametrize("src,dst", [("f32", "i8"), ("f32", "i32"), ("i32", "i8"),
                                     ("i8", "f32"), ("i32", "i1"), ("f32", "f16"),
                                     ("i1", "i32")])
def test_cast(src, dst, rng):
    t, o = ttype((4, 5), src), ttype((4, 5), dst)
    func = (f"func.func @main(%a: {t}) -> {o} {{\n"
            f"  %0 = tosa.cast %a : ({t}) -> {o}\n"
            f"  return %0 : {o}\n}}")
    if src == "f32":
        a = (rng.standard_normal((4, 5)) * 100).astype(np.float32)
        a.flat[:6] = [0.5, 1.5, 2.5, -0.5, -1.5, 1000.0]  # ties, saturation
    elif src == "i1":
        a = rng.integers(0, 2, (4, 5)).astype(bool)
    else:
        a = rng.integers(-1000, 1000, (4, 5)).astype(np.int32 if src == "i32" else np.int8)
    check(func, [a])
