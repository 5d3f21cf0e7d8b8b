"""The ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum) and the
ai.onnx.ml ops Binarizer and ArrayFeatureExtractor against onnx.reference
(float32: rtol 1e-5, atol 1e-6), with the step count T a runtime input both
0 and positive; and the domain errors."""
import zlib

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import import_error, run_strata

TRAINING, ML = "ai.onnx.preview.training", "ai.onnx.ml"


def model(node, inputs, outputs, domain, default_opset=None):
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in inputs.items()]
    outs = [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outputs]
    opsets = [helper.make_opsetid(domain, 1 if domain == TRAINING else 3)]
    if default_opset:
        opsets.append(helper.make_opsetid("", default_opset))
    m = helper.make_model(helper.make_graph([node], "g", ins, outs), opset_imports=opsets)
    m.ir_version = 10
    return m


def check(m, feeds):
    code, got, err = run_strata(m, feeds)
    assert code == 0, err
    want = ReferenceEvaluator(m).run(None, feeds)
    for out, w in zip(m.graph.output, want):
        w = np.asarray(w)
        assert got[out.name].shape == w.shape, out.name
        np.testing.assert_allclose(got[out.name], w.astype(got[out.name].dtype),
                                   rtol=1e-5, atol=1e-6, err_msg=out.name)


def optimizer_feeds(n, groups, t, seed):
    rng = np.random.default_rng(seed)
    feeds = {"R": np.array(0.1, np.float32), "T": np.array(t, np.int64)}
    for g in range(groups):
        for i in range(n):
            a = rng.standard_normal((3, 2)).astype(np.float32)
            feeds["s%d_%d" % (g, i)] = np.abs(a) if g == groups - 1 else a
    return feeds


@pytest.mark.parametrize("op,groups,attrs", [
    ("Adagrad", 3, {"decay_factor": 0.1, "epsilon": 1e-6, "norm_coefficient": 0.01}),
    ("Adam", 4, {"alpha": 0.9, "beta": 0.999, "epsilon": 1e-7, "norm_coefficient": 0.01,
                 "norm_coefficient_post": 0.02}),
    ("Momentum", 3, {"alpha": 0.9, "beta": 0.8, "mode": "standard", "norm_coefficient": 0.01}),
    ("Momentum", 3, {"alpha": 0.9, "beta": 0.8, "mode": "nesterov", "norm_coefficient": 0.01}),
], ids=["adagrad", "adam", "momentum", "nesterov"])
@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("t", [0, 3])
def test_optimizers_match_reference(op, groups, attrs, n, t):
    feeds = optimizer_feeds(n, groups, t, zlib.crc32(("%s%d%d" % (op, n, t)).encode()))
    tensors = [k for k in feeds if k not in ("R", "T")]
    outputs = ["o%d" % i for i in range(n * (groups - 1))]
    node = helper.make_node(op, ["R", "T"] + tensors, outputs, domain=TRAINING, **attrs)
    check(model(node, feeds, outputs, TRAINING), feeds)


@pytest.mark.parametrize("threshold", [0.0, 0.5])
def test_binarizer(threshold):
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    node = helper.make_node("Binarizer", ["x"], ["y"], domain=ML, threshold=threshold)
    check(model(node, {"x": x}, ["y"], ML), {"x": x})


@pytest.mark.parametrize("shape,indices", [((5,), [4, 0]), ((3, 4), [[1, 3, 3]]),
                                           ((2, 3, 4), [0, 2, 1])])
def test_array_feature_extractor(shape, indices):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    feeds = {"x": x, "i": np.array(indices, np.int64)}
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain=ML)
    check(model(node, feeds, ["y"], ML), feeds)


def test_extra_domain_errors():
    x = np.zeros((2,), np.float32)
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], domain=ML)
    err = import_error(model(node, {"x": x}, ["y"], ML))
    assert "(TreeEnsembleRegressor of ai.onnx.ml)" in err
    assert "op type 'TreeEnsembleRegressor' of domain 'ai.onnx.ml' is not supported" in err
    node = helper.make_node("Binarizer", ["x"], ["y"], domain=ML)
    err = import_error(model(node, {"x": x}, ["y"], TRAINING))
    assert "the model does not import domain 'ai.onnx.ml'" in err, err
    node = helper.make_node("Relu", ["x"], ["y"])
    err = import_error(model(node, {"x": x}, ["y"], ML))
    assert "the model imports no default-domain opset" in err, err
    feeds = optimizer_feeds(1, 3, 1, 0)
    node = helper.make_node("Momentum", ["R", "T", "s0_0", "s1_0", "s2_0"], ["a", "b"],
                            domain=TRAINING, alpha=0.9, beta=0.1, mode="heavy",
                            norm_coefficient=0.0)
    err = import_error(model(node, feeds, ["a", "b"], TRAINING))
    assert "attribute 'mode' = 'heavy' must be 'standard' or 'nesterov'" in err, err
