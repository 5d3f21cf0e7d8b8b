"""TOSA data movement and reductions through convert-tosa-to-top against
MLIR's own TOSA lowering (tosa_harness.py): exact for integers, rtol 1e-5
for floats."""
import numpy as np
import pytest

from tosa_harness import check, dense, strata, ttype


def shape_const(name, values):
    return (f"  %{name} = tosa.const_shape {{values = dense<[{', '.join(map(str, values))}]>"
            f" : tensor<{len(values)}xindex>}} : () -> !tosa.shape<{len(values)}>\n")


def one(name, elem, body, ishape, oshape, oelem=None, extra_in=()):
    ti, to = ttype(ishape, elem), ttype(oshape, oelem or elem)
    args = ", ".join([f"%a: {ti}"] + [f"%{n}: {t}" for n, t in extra_in])
    return f"func.func @main({args}) -> {to} {{\n{body}  return %0 : {to}\n}}"


def test_reshape_transpose_slice(rng):
    body = (shape_const("s", [4, 6]) + shape_const("st", [1, 1]) + shape_const("sz", [2, 3])
            + "  %r = tosa.reshape %a, %s : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<4x6xf32>\n"
            "  %t = tosa.transpose %r {perms = array<i32: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>\n"
            "  %0 = tosa.slice %t, %st, %sz : (tensor<6x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf32>\n")
    check(one("m", "f32", body, (2, 3, 4), (2, 3)), [rng.standard_normal((2, 3, 4)).astype(np.float32)])


@pytest.mark.parametrize("elem,value", [("f32", "1.5"), ("i8", "-4")])
def test_pad(elem, value, rng):
    dt = np.float32 if elem == "f32" else np.int8
    body = (shape_const("p", [1, 0, 2, 1])
            + f'  %v = "tosa.const"() {{values = dense<{value}> : tensor<1x{elem}>}} : () -> tensor<1x{elem}>\n'
            f"  %0 = tosa.pad %a, %p, %v : ({ttype((2, 3), elem)}, !tosa.shape<4>, tensor<1x{elem}>) -> {ttype((3, 6), elem)}\n")
    a = (rng.standard_normal((2, 3)) * 10).astype(dt)
    check(one("p", elem, body, (2, 3), (3, 6)), [a])


def test_concat_tile_reverse(rng):
    body = (shape_const("m", [1, 2])
            + "  %c = tosa.concat %a, %b {axis = 1 : i32} : (tensor<2x3xi32>, tensor<2x2xi32>) -> tensor<2x5xi32>\n"
            "  %t = tosa.tile %c, %m : (tensor<2x5xi32>, !tosa.shape<2>) -> tensor<2x10xi32>\n"
            "  %r = tosa.reverse %t {axis = 1 : i32} : (tensor<2x10xi32>) -> tensor<2x10xi32>\n"
            "  %0 = tosa.identity %r : (tensor<2x10xi32>) -> tensor<2x10xi32>\n")
    func = one("c", "i32", body, (2, 3), (2, 10), extra_in=[("b", "tensor<2x2xi32>")])
    check(func, [rng.integers(-99, 99, (2, 3)).astype(np.int32),
                 rng.integers(-99, 99, (2, 2)).astype(np.int32)])


def test_gather(rng):
    body = ("  %0 = tosa.gather %a, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>\n")
    func = one("g", "f32", body, (2, 5, 3), (2, 4, 3), extra_in=[("i", "tensor<2x4xi32>")])
    check(func, [rng.standard_normal((2, 5, 3)).astype(np.float32),
                 rng.integers(0, 5, (2, 4)).astype(np.int32)])


def test_scatter(rng):
    body = ("  %0 = tosa.scatter %a, %i, %u : (tensor<2x5x3xf32>, tensor<2x3xi32>, tensor<2x3x3xf32>)"
            " -> tensor<2x5x3xf32>\n")
    func = one("s", "f32", body, (2, 5, 3), (2, 5, 3),
               extra_in=[("i", "tensor<2x3xi32>"), ("u", "tensor<2x3x3xf32>")])
    idx = np.stack([rng.permutation(5)[:3] for _ in range(2)]).astype(np.int32)  # unique
    check(func, [rng.standard_normal((2, 5, 3)).astype(np.float32), idx,
                 rng.standard_normal((2, 3, 3)).astype(np.float32)])


RESIZE = [
    # mode, scale, offset, border, in hw, out hw
    ("NEAREST_NEIGHBOR", [2, 1, 2, 1], [0, 0], [1, 1], (3, 4), (6, 8)),
    ("BILINEAR", [4, 2, 6, 2], [-1, -2], [1, 2], (3, 4), (6, 12)),
    ("BILINEAR", [2, 1, 3, 1], [0, 0], [0, 0], (3, 4), (5, 10)),
    ("NEAREST_NEIGHBOR", [1, 2, 1, 2], [0, 0], [0, 0], (5, 7), (3, 4)),
]


@pytest.mark.parametrize("case", RESIZE, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_resize_float(case, rng):
    mode, scale, offset, border, (ih, iw), (oh, ow) = case
    ti, to = ttype((1, ih, iw, 2), "f32"), ttype((1, oh, ow, 2), "f32")
    body = (shape_const("sc", scale) + shape_const("of", offset) + shape_const("bo", border)
            + f"  %0 = tosa.resize %a, %sc, %of, %bo {{mode = #tosa.resize_mode<{mode}>}} : "
            f"({ti}, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> {to}\n")
    check(one("r", "f32", body, (1, ih, iw, 2), (1, oh, ow, 2)),
          [rng.standard_normal((1, ih, iw, 2)).astype(np.float32)])


def test_resize_int8_nearest(rng):
    ti, to = ttype((1, 3, 3, 1), "i8"), ttype((1, 6, 6, 1), "i8")
    body = (shape_const("sc", [2, 1, 2, 1]) + shape_const("of", [0, 0]) + shape_const("bo", [1, 1])
            + f"  %0 = tosa.resize %a, %sc, %of, %bo {{mode = #tosa.resize_mode<NEAREST_NEIGHBOR>}} : "
            f"({ti}, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> {to}\n")
    check(one("r", "i8", body, (1, 3, 3, 1), (1, 6, 6, 1)),
          [rng.integers(-128, 128, (1, 3, 3, 1)).astype(np.int8)])


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min", "reduce_product"])
@pytest.mark.parametrize("elem", ["f32", "i32"])
def test_reduce(op, elem, rng):
    body = f"  %0 = tosa.{op} %a {{axis = 1 : i32}} : ({ttype((3, 4, 2), elem)}) -> {ttype((3, 1, 2), elem)}\n"
    a = (rng.standard_normal((3, 4, 2)) * 3).astype(np.float32 if elem == "f32" else np.int32)
    check(one("r", elem, body, (3, 4, 2), (3, 1, 2)), [a])


@pytest.mark.parametrize("op", ["reduce_all", "reduce_any"])
def test_reduce_bool(op, rng):
    body = f"  %0 = tosa.{op} %a {{axis = 0 : i32}} : (tensor<3x5xi1>) -> tensor<1x5xi1>\n"
    check(one("r", "i1", body, (3, 5), (1, 5)), [rng.random((3, 5)) < 0.7])


@pytest.mark.parametrize("elem", ["f32", "i8"])
def test_argmax(elem, rng):
    body = f"  %0 = tosa.argmax %a {{axis = 2 : i32}} : ({ttype((2, 3, 6), elem)}) -> tensor<2x3xi32>\n"
    a = (rng.standard_normal((2, 3, 6)) * 50).astype(np.float32 if elem == "f32" else np.int8)
    check(one("a", elem, body, (2, 3, 6), (2, 3), oelem="i32"), [a])


# Shape ops: MLIR's TOSA lowering has none (tosa.dim "failed to legalize"), so
# the reference is numpy: the reshape to the shape the op computes, with the
# op's value computed here from the TOSA spec.
SHAPE_OPS = [("add_shape", 4, 2, 6), ("sub_shape", 8, 2, 6), ("mul_shape", 3, 2, 6),
             ("div_floor_shape", 13, 2, 6), ("div_ceil_shape", 11, 2, 6),
             ("mod_shape", 20, 7, 6), ("max_shape", 6, 1, 6), ("min_shape", 6, 9, 6),
             ("exp2_shape", 3, None, 8), ("log2_ceil_shape", 5, None, 3),
             ("log2_floor_shape", 9, None, 3)]


@pytest.mark.parametrize("op,a,b,x", SHAPE_OPS, ids=lambda v: str(v))
def test_shape_op_reshape(op, a, b, x, rng, tmp_path):
    y = 24 // x
    call = f"tosa.{op} %a, %b : (!tosa.shape<1>, !tosa.shape<1>)" if b is not None \
        else f"tosa.{op} %a : (!tosa.shape<1>)"
    body = (shape_const("a", [a]) + (shape_const("b", [b]) if b is not None else "")
            + shape_const("y", [y])
            + f"  %x = {call} -> !tosa.shape<1>\n"
            "  %s = tosa.concat_shape %x, %y : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>\n"
            f"  %0 = tosa.reshape %a0, %s : (tensor<24xf32>, !tosa.shape<2>) -> {ttype((x, y), 'f32')}\n")
    func = (f"func.func @main(%a0: tensor<24xf32>) -> {ttype((x, y), 'f32')} {{\n{body}"
            f"  return %0 : {ttype((x, y), 'f32')}\n}}")
    data = rng.standard_normal(24).astype(np.float32)
    got, text = strata(func, [data], str(tmp_path))
    np.testing.assert_array_equal(got[0], data.reshape(x, y))
    assert f"shape = array<i64: {x}, {y}>" in text


def test_dim_and_slice_shape(rng, tmp_path):
    func = """func.func @main(%t: tensor<1x6x4xf32>) -> tensor<6x4xf32> {
  %d0 = tosa.dim %t {axis = 0 : i32} : (tensor<1x6x4xf32>) -> !tosa.shape<1>
  %d1 = tosa.dim %t {axis = 1 : i32} : (tensor<1x6x4xf32>) -> !tosa.shape<1>
  %d2 = tosa.dim %t {axis = 2 : i32} : (tensor<1x6x4xf32>) -> !tosa.shape<1>
  %all = tosa.concat_shape %d0, %d1, %d2 : (!tosa.shape<1>, !tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<3>
  %st = "tosa.const"() {values = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %sz = "tosa.const"() {values = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = tosa.slice_shape %all, %st, %sz : (!tosa.shape<3>, tensor<1xi32>, tensor<1xi32>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<1x6x4xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}"""
    data = rng.standard_normal((1, 6, 4)).astype(np.float32)
    got, _ = strata(func, [data], str(tmp_path))
    np.testing.assert_array_equal(got[0], data.reshape(6, 4))
