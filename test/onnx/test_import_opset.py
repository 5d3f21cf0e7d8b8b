"""Opset handling: models of opset 1-6 import for the ops whose schema did not
change up to opset 7; others get an error naming the op and the versions;
the domain "ai.onnx" is the default domain."""
import numpy as np
from onnx import helper

from onnx_harness import check_against_ort, import_error, make_model

RNG = np.random.default_rng(0)


def test_opset1_not():
    x = RNG.integers(0, 2, (3, 4)).astype(np.bool_)
    model = make_model([helper.make_node("Not", ["x"], ["y"])], {"x": x}, ["y"], opset=1)
    check_against_ort(model, {"x": x})


def test_opset6_relu_unchanged_since():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": x}, ["y"], opset=6)
    check_against_ort(model, {"x": x})


def test_opset6_add_changed_at_7():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    model = make_model([helper.make_node("Add", ["x", "x"], ["y"])], {"x": x}, ["y"], opset=6)
    err = import_error(model)
    assert "'Add' version 6" in err and "opset-7 schema (version 7)" in err


def test_ai_onnx_domain_is_default():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    model = make_model([helper.make_node("Relu", ["x"], ["y"], domain="ai.onnx")], {"x": x}, ["y"])
    del model.opset_import[:]
    model.opset_import.append(helper.make_opsetid("ai.onnx", 17))
    check_against_ort(model, {"x": x})
