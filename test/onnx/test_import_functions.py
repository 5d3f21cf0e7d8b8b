"""ONNX model-local functions (ModelProto.functions): imported as private
`func.func`s marked `strata.implements`, called with `func.call`, run by the
interpreter and inlined by `top-inline-functions`; checked against ONNX
Runtime."""
import os
import re
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper

from onnx_harness import BIN, STRATA, check_against_ort, import_error, run_ort

RNG = np.random.default_rng(0)
DOMAIN = "custom"


def randf(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def scaled_add():
    """custom.ScaledAdd(a, b) = a * alpha + b, alpha an attribute parameter
    (default 2.0 via attribute_proto)."""
    alpha = helper.make_node("Constant", [], ["alpha"])
    ref = helper.make_attribute_ref("value_float", AttributeProto.FLOAT, ref_attr_name="alpha")
    alpha.attribute.append(ref)
    nodes = [alpha,
             helper.make_node("Mul", ["a", "alpha"], ["t"]),
             helper.make_node("Add", ["t", "b"], ["y"])]
    f = helper.make_function(DOMAIN, "ScaledAdd", ["a", "b"], ["y"], nodes,
                             [helper.make_opsetid("", 17)], attributes=[])
    f.attribute_proto.append(helper.make_attribute("alpha", 2.0))
    return f


def twice_scaled():
    """custom.TwiceScaled(x) = ScaledAdd(x, x) with alpha=beta: a nested
    call passing an attribute through."""
    call = helper.make_node("ScaledAdd", ["x", "x"], ["y"], domain=DOMAIN)
    call.attribute.append(helper.make_attribute_ref("alpha", AttributeProto.FLOAT, ref_attr_name="beta"))
    return helper.make_function(DOMAIN, "TwiceScaled", ["x"], ["y"], [call],
                                [helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)],
                                attributes=["beta"])


def model_with(nodes, inputs, outputs, functions):
    g_in = [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in inputs.items()]
    g_out = [helper.make_empty_tensor_value_info(n) for n in outputs]
    graph = helper.make_graph(nodes, "g", g_in, g_out)
    model = helper.make_model(graph, functions=functions,
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)])
    model.ir_version = 10
    return model


def import_mlir(model):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        r = subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with open(os.path.join(tmp, "m_origin.mlir")) as f:
            return f.read()


def test_function_default_and_bound_attributes():
    a, b = randf(2, 3), randf(2, 3)
    nodes = [helper.make_node("ScaledAdd", ["a", "b"], ["y0"], domain=DOMAIN),
             helper.make_node("ScaledAdd", ["a", "b"], ["y1"], domain=DOMAIN, alpha=-0.5),
             helper.make_node("ScaledAdd", ["y0", "y1"], ["y2"], domain=DOMAIN, alpha=-0.5)]
    model = model_with(nodes, {"a": a, "b": b}, ["y0", "y1", "y2"], [scaled_add()])
    check_against_ort(model, {"a": a, "b": b})
    mlir = import_mlir(model)
    # One instantiation per distinct binding (default 2.0 and -0.5), each
    # marked with the ONNX function it implements.
    fns = re.findall(r"func\.func private @(\S+)\(", mlir)
    assert len(fns) == 2, mlir
    assert mlir.count('strata.implements = "custom.ScaledAdd"') == 2
    assert mlir.count("call @") == 3
    assert "alpha = -5.000000e-01 : f32" in mlir and "alpha = 2.000000e+00 : f32" in mlir


def test_nested_function_call():
    x = randf(4)
    nodes = [helper.make_node("TwiceScaled", ["x"], ["y"], domain=DOMAIN, beta=3.0)]
    model = model_with(nodes, {"x": x}, ["y"], [scaled_add(), twice_scaled()])
    check_against_ort(model, {"x": x})
    mlir = import_mlir(model)
    assert 'strata.implements = "custom.TwiceScaled"' in mlir
    assert 'strata.implements = "custom.ScaledAdd"' in mlir


def test_inline_functions_pass_keeps_results():
    x = randf(4)
    nodes = [helper.make_node("TwiceScaled", ["x"], ["y"], domain=DOMAIN, beta=3.0)]
    model = model_with(nodes, {"x": x}, ["y"], [scaled_add(), twice_scaled()])
    want = run_ort(model, {"x": x})["y"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m"], check=True,
                       capture_output=True)
        inlined = os.path.join(tmp, "inlined.mlir")
        subprocess.run([os.path.join(BIN, "strata-opt"), os.path.join(tmp, "m_origin.mlir"),
                        "--top-inline-functions", "-o", inlined], check=True, capture_output=True)
        text = open(inlined).read()
        assert "func.call" not in text and "call @" not in text
        assert "func.func private" not in text
        inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, x=x)
        # run-ref finds the weight file next to the module.
        os.replace(inlined, os.path.join(tmp, "m_origin.mlir"))
        r = subprocess.run([STRATA, "run-ref", os.path.join(tmp, "m_origin.mlir"),
                            "--input", inp, "--output", outp], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with np.load(outp) as z:
            np.testing.assert_allclose(z["y"], want, rtol=1e-5, atol=1e-6)


def test_function_unknown_attribute():
    a, b = randf(2), randf(2)
    nodes = [helper.make_node("ScaledAdd", ["a", "b"], ["y"], domain=DOMAIN, gamma=1.0)]
    err = import_error(model_with(nodes, {"a": a, "b": b}, ["y"], [scaled_add()]))
    assert "custom.ScaledAdd" in err and "gamma" in err


def test_recursive_function_is_rejected():
    f = helper.make_function(DOMAIN, "Forever", ["x"], ["y"],
                             [helper.make_node("Forever", ["x"], ["y"], domain=DOMAIN)],
                             [helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)])
    nodes = [helper.make_node("Forever", ["x"], ["y"], domain=DOMAIN)]
    err = import_error(model_with(nodes, {"x": randf(2)}, ["y"], [f]))
    assert "deep" in err
