"""ONNX CausalConvWithState (opset 27) against onnx.reference (rtol 1e-5,
atol 1e-6 in float32), including a streaming check: running a sequence in two
chunks, feeding the first chunk's present_state as the second's past_state,
gives the one-shot result."""
import zlib

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import import_error, make_model, run_strata


def build(inputs, inits=None, activation=None):
    names = [n if n in inputs or n in (inits or {}) else "" for n in
             ("input", "weight", "bias", "past_state")]
    while names and not names[-1]:
        names.pop()
    attrs = {"activation": activation} if activation else {}
    node = helper.make_node("CausalConvWithState", names, ["output", "present_state"], **attrs)
    return make_model([node], inputs, ["output", "present_state"], inits, opset=27)


def run(model, feeds):
    code, got, err = run_strata(model, feeds)
    assert code == 0, err
    return got


@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("past", [False, True])
@pytest.mark.parametrize("activation", [None, "silu"])
def test_causal_conv_matches_reference(k, bias, past, activation):
    rng = np.random.default_rng(zlib.crc32(b"%d%d%d%s" % (k, bias, past, str(activation).encode())))
    feeds = {"input": rng.standard_normal((2, 3, 7)).astype(np.float32)}
    inits = {"weight": rng.standard_normal((3, 1, k)).astype(np.float32)}
    if bias:
        inits["bias"] = rng.standard_normal(3).astype(np.float32)
    if past:
        feeds["past_state"] = rng.standard_normal((2, 3, k - 1)).astype(np.float32)
    model = build(dict(feeds), inits, activation)
    got = run(model, feeds)
    want = ReferenceEvaluator(model).run(None, feeds)
    for name, w in zip(["output", "present_state"], want):
        assert got[name].shape == w.shape
        np.testing.assert_allclose(got[name], w, rtol=1e-5, atol=1e-6, err_msg=name)


def test_causal_conv_streams_in_chunks():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 4, 10)).astype(np.float32)
    inits = {"weight": rng.standard_normal((4, 1, 4)).astype(np.float32)}
    whole = run(build({"input": x}, inits), {"input": x})
    first = run(build({"input": x[:, :, :6]}, inits), {"input": x[:, :, :6]})
    feeds = {"input": x[:, :, 6:], "past_state": first["present_state"]}
    second = run(build(dict(feeds), inits), feeds)
    np.testing.assert_allclose(np.concatenate([first["output"], second["output"]], axis=2),
                               whole["output"], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(second["present_state"], whole["present_state"])


@pytest.mark.parametrize("change,message", [
    ({"weight": np.zeros((3, 2, 3), np.float32)}, "input 'weight' must have shape [3, 1, k]"),
    ({"past_state": np.zeros((2, 3, 5), np.float32)}, "input 'past_state' must have shape [2, 3, 2]"),
    ({"bias": np.zeros(4, np.float32)}, "input 'bias' must have shape [3]"),
    ({"activation": "gelu"}, "attribute 'activation' = 'gelu' must be"),
])
def test_causal_conv_errors(change, message):
    inits = {"weight": np.zeros((3, 1, 3), np.float32)}
    inits.update({k: v for k, v in change.items() if k != "activation"})
    model = build({"input": np.zeros((2, 3, 7), np.float32)}, inits, change.get("activation"))
    err = import_error(model)
    assert "CausalConvWithState" in err and message in err, err
