"""ONNX import of elementwise, activation, comparison, logic and cast ops:
Strata's reference run against ONNX Runtime."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnx_harness import check_against_ort, import_error, make_model

RNG = np.random.default_rng(0)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def unary_model(op, x, opset=17, **attrs):
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    return make_model([node], {"x": x}, ["y"], opset=opset)


UNARY = [
    ("Relu", {}), ("Sigmoid", {}), ("Tanh", {}), ("Exp", {}), ("Abs", {}),
    ("Neg", {}), ("Erf", {}), ("Softplus", {}), ("Softsign", {}),
    ("Elu", {"alpha": 0.7}), ("Selu", {}), ("Celu", {"alpha": 1.5}),
    ("ThresholdedRelu", {"alpha": 0.3}), ("Mish", {}),
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}), ("HardSwish", {}),
    ("LeakyRelu", {"alpha": 0.2}), ("Reciprocal", {}), ("Sign", {}),
    ("Floor", {}), ("Ceil", {}), ("Round", {}), ("IsNaN", {}), ("IsInf", {}),
]


@pytest.mark.parametrize("op,attrs", UNARY, ids=[u[0] for u in UNARY])
def test_unary(op, attrs):
    x = randn(3, 4) * 3
    x[0, :4] = [np.nan, np.inf, -np.inf, 0.0] if op in ("IsNaN", "IsInf") else x[0, :4]
    check_against_ort(unary_model(op, x, opset=18, **attrs), {"x": x})


def test_log_sqrt():
    x = np.abs(randn(2, 5)) + 0.1
    check_against_ort(unary_model("Log", x), {"x": x})
    check_against_ort(unary_model("Sqrt", x), {"x": x})


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    x = randn(2, 6)
    check_against_ort(unary_model("Gelu", x, opset=20, approximate=approximate), {"x": x})


def test_softplus_large_values_do_not_overflow():
    x = np.array([-200.0, -20.0, 0.0, 20.0, 200.0], np.float32)
    check_against_ort(unary_model("Softplus", x), {"x": x})


def test_round_half_to_even_and_large():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.7, 1.2e8, 3.5e9,
                  np.nan, np.inf], np.float32)
    check_against_ort(unary_model("Round", x), {"x": x})
    check_against_ort(unary_model("Floor", x), {"x": x})
    check_against_ort(unary_model("Ceil", x), {"x": x})


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64])
def test_sign_types(dtype):
    x = np.array([5, 0, 7], dtype) if dtype == np.uint8 else np.array([-5, 0, 7], dtype)
    check_against_ort(unary_model("Sign", x), {"x": x})


def test_relu_int_opset14():
    x = np.array([-5, 0, 7], np.int8)
    check_against_ort(unary_model("Relu", x, opset=14), {"x": x})


def test_swish_opset24():
    x = randn(3, 3)
    model = unary_model("Swish", x, opset=24, alpha=0.5)
    # ONNX Runtime may not implement Swish yet; compare with the formula.
    from onnx_harness import run_strata
    code, got, err = run_strata(model, {"x": x})
    assert code == 0, err
    want = x / (1 + np.exp(-0.5 * x))
    np.testing.assert_allclose(got["y"], want, rtol=1e-5, atol=1e-6)


BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "GreaterOrEqual", "Less",
          "LessOrEqual"]


@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcast(op):
    a = np.abs(randn(2, 3, 4)) + 0.5
    b = randn(4)
    node = helper.make_node(op, ["a", "b"], ["y"])
    check_against_ort(make_model([node], {"a": a, "b": b}, ["y"]), {"a": a, "b": b})


def test_int_arithmetic():
    a = np.array([[7, -7, 3]], np.int64)
    b = np.array([2, 2, -4], np.int64)
    nodes = [helper.make_node("Div", ["a", "b"], ["d"]),
             helper.make_node("Add", ["a", "b"], ["s"])]
    check_against_ort(make_model(nodes, {"a": a, "b": b}, ["d", "s"]), {"a": a, "b": b})


@pytest.mark.parametrize("base,exp", [(np.float32, np.int64), (np.int32, np.float32),
                                      (np.int64, np.int64), (np.float32, np.float64)])
def test_pow_mixed_types(base, exp):
    a = np.array([1, 2, 3, 4], base)
    b = np.array([2, 3, 1, 0], exp)
    node = helper.make_node("Pow", ["a", "b"], ["y"])
    check_against_ort(make_model([node], {"a": a, "b": b}, ["y"], opset=15), {"a": a, "b": b})


@pytest.mark.parametrize("op", ["Max", "Min", "Sum", "Mean"])
def test_variadic(op):
    ins = {"a": randn(3, 1), "b": randn(1, 4), "c": randn(4)}
    node = helper.make_node(op, list(ins), ["y"])
    check_against_ort(make_model([node], ins, ["y"]), ins)


def test_variadic_single_input():
    x = randn(2, 2)
    check_against_ort(unary_model("Mean", x), {"x": x})


def test_clip_opset10_attrs():
    x = randn(4, 5) * 3
    check_against_ort(unary_model("Clip", x, opset=10, min=-1.0, max=0.5), {"x": x})
    check_against_ort(unary_model("Clip", x, opset=10, max=0.5), {"x": x})


def test_clip_constant_and_dynamic_bounds():
    x = randn(4, 5) * 3
    inits = {"lo": np.array(-0.5, np.float32), "hi": np.array(1.0, np.float32)}
    node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"])
    check_against_ort(make_model([node], {"x": x}, ["y"], inits), {"x": x})
    node = helper.make_node("Clip", ["x", "", "hi"], ["y"])
    check_against_ort(make_model([node], {"x": x}, ["y"], {"hi": inits["hi"]}), {"x": x})
    ins = {"x": x, "lo": np.array(0.2, np.float32)}
    node = helper.make_node("Clip", ["x", "lo"], ["y"])
    check_against_ort(make_model([node], ins, ["y"]), ins)


def test_clip_min_greater_than_max_and_int():
    x = randn(6) * 3
    inits = {"lo": np.array(1.0, np.float32), "hi": np.array(-1.0, np.float32)}
    node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"])
    check_against_ort(make_model([node], {"x": x}, ["y"], inits), {"x": x})
    xi = np.array([-100, -3, 0, 5, 120], np.int8)
    inits = {"lo": np.array(-4, np.int8), "hi": np.array(6, np.int8)}
    check_against_ort(make_model([node], {"x": xi}, ["y"], inits), {"x": xi})


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_prelu(dtype):
    x = (randn(2, 3, 4) * 5).astype(dtype)
    slope = np.array([[1], [2], [3]], dtype) if dtype == np.int32 else randn(3, 1)
    node = helper.make_node("PRelu", ["x", "s"], ["y"])
    check_against_ort(make_model([node], {"x": x}, ["y"], {"s": slope}, opset=16), {"x": x})


def test_where_and_logic():
    a = RNG.random((3, 4)) > 0.5
    b = RNG.random((4,)) > 0.5
    x, y = randn(3, 4), randn(1, 4)
    nodes = [helper.make_node("Not", ["a"], ["n"]),
             helper.make_node("And", ["a", "b"], ["and"]),
             helper.make_node("Or", ["a", "b"], ["or"]),
             helper.make_node("Xor", ["a", "b"], ["xor"]),
             helper.make_node("Where", ["a", "x", "y"], ["w"])]
    ins = {"a": a, "b": b, "x": x, "y": y}
    check_against_ort(make_model(nodes, ins, ["n", "and", "or", "xor", "w"]), ins)


@pytest.mark.parametrize("to,src", [(TensorProto.INT32, np.float32), (TensorProto.FLOAT16, np.int64),
                                    (TensorProto.BOOL, np.float32), (TensorProto.DOUBLE, np.uint8),
                                    (TensorProto.FLOAT, np.float32)])
def test_cast(to, src):
    x = (randn(3, 4) * 10).astype(src)
    check_against_ort(unary_model("Cast", x, opset=19, to=to), {"x": x})


def test_castlike():
    x, like = randn(5) * 10, np.zeros(1, np.int16)
    node = helper.make_node("CastLike", ["x", "t"], ["y"])
    ins = {"x": x, "t": like}
    check_against_ort(make_model([node], ins, ["y"]), ins)


@pytest.mark.parametrize("to,name", [(TensorProto.STRING, "STRING"),
                                     (TensorProto.COMPLEX64, "COMPLEX64")])
def test_cast_unsupported_target(to, name):
    err = import_error(unary_model("Cast", randn(2), opset=19, to=to))
    assert "attribute 'to'" in err and name in err, err


def test_gelu_bad_approximate():
    err = import_error(unary_model("Gelu", randn(2), opset=20, approximate="fast"))
    assert "approximate" in err and "fast" in err, err


@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint16])
def test_mod_int(fmod, dtype):
    if dtype == np.uint16:
        a, b = np.array([7, 9, 0, 13], dtype), np.array([3, 4, 5, 13], dtype)
    else:
        a, b = np.array([7, -7, 7, -7, 0, -128 if dtype == np.int8 else 5], dtype), \
            np.array([3, 3, -3, -3, 2, -1], dtype)
    node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
    check_against_ort(make_model([node], {"a": a, "b": b}, ["y"]), {"a": a, "b": b})


def test_mod_float_needs_fmod():
    # Float Mod (fmod = 1) is tested in test_import_math.py.
    node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=0)
    err = import_error(make_model([node], {"a": randn(2), "b": randn(2)}, ["y"]))
    assert "(Mod, opset 17): attribute 'fmod' = 0 is invalid" in err, err
