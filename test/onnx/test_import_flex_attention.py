"""ai.onnx.preview FlexAttention against onnx.reference (float32: rtol 1e-5,
atol 1e-6; float16: rtol 1e-3, atol 1e-3): grouped-query heads, explicit
scale, score_mod / prob_mod subgraphs (a causal mask, a tanh soft cap, a
rescale), softmax precision; and the errors."""
import zlib

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from onnx_harness import import_error, run_strata

PREVIEW = "ai.onnx.preview"


def mod_graph(name, nodes, dtype=TensorProto.FLOAT, inits=()):
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info("s", dtype, None)],
                             [helper.make_tensor_value_info("o", dtype, None)], list(inits))


def model(shapes, dtype=TensorProto.FLOAT, **attrs):
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain=PREVIEW, **attrs)
    inputs = [helper.make_tensor_value_info(n, dtype, s) for n, s in zip("QKV", shapes)]
    g = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("Y", dtype, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 26),
                                            helper.make_opsetid(PREVIEW, 1)])
    m.ir_version = 10
    return m


def feeds_for(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    return {n: rng.standard_normal(s).astype(dtype) for n, s in zip("QKV", shapes)}


def check(m, feeds, rtol=1e-5, atol=1e-6):
    code, got, err = run_strata(m, feeds)
    assert code == 0, err
    want = ReferenceEvaluator(m).run(None, feeds)[0]
    assert got["Y"].dtype == want.dtype and got["Y"].shape == want.shape
    np.testing.assert_allclose(got["Y"], want, rtol=rtol, atol=atol)


SHAPES = [(2, 4, 5, 8), (2, 2, 6, 8), (2, 2, 6, 3)]  # GQA: 4 query heads, 2 kv heads


def soft_cap():
    cap = helper.make_tensor("cap", TensorProto.FLOAT, [], [2.0])
    return mod_graph("soft_cap", [helper.make_node("Div", ["s", "cap"], ["d"]),
                                  helper.make_node("Tanh", ["d"], ["t"]),
                                  helper.make_node("Mul", ["t", "cap"], ["o"])], inits=[cap])


def causal():
    nodes = [helper.make_node("Shape", ["s"], ["shape"]),
             helper.make_node("Trilu", ["ones"], ["lower"], upper=0),
             helper.make_node("Cast", ["lower"], ["keep"], to=TensorProto.BOOL),
             helper.make_node("Where", ["keep", "s", "ninf"], ["o"])]
    ones = helper.make_tensor("ones", TensorProto.FLOAT, [5, 6], [1.0] * 30)
    ninf = helper.make_tensor("ninf", TensorProto.FLOAT, [], [-np.inf])
    return mod_graph("causal", nodes, inits=[ones, ninf])


def rescale():
    half = helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])
    return mod_graph("rescale", [helper.make_node("Mul", ["s", "half"], ["o"])], inits=[half])


@pytest.mark.parametrize("attrs", [{}, {"scale": 0.3}, {"score_mod": "soft_cap"},
                                   {"score_mod": "causal"}, {"prob_mod": "rescale"},
                                   {"softmax_precision": TensorProto.DOUBLE}],
                         ids=["plain", "scale", "soft_cap", "causal", "prob_mod", "f64_softmax"])
def test_flex_attention_matches_reference(attrs):
    graphs = {"soft_cap": soft_cap, "causal": causal, "rescale": rescale}
    attrs = {k: graphs[v]() if isinstance(v, str) else v for k, v in attrs.items()}
    m = model(SHAPES, **attrs)
    check(m, feeds_for(SHAPES, np.float32, zlib.crc32(str(sorted(attrs)).encode())))


def test_flex_attention_float16():
    m = model(SHAPES, TensorProto.FLOAT16)
    check(m, feeds_for(SHAPES, np.float16, 5), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shapes,message", [
    ([(2, 3, 5, 8), (2, 2, 6, 8), (2, 2, 6, 3)], "query heads (3) must be a multiple of the key/value heads (2)"),
    ([(2, 4, 5, 8), (2, 2, 6, 7), (2, 2, 6, 3)], "do not fit"),
    ([(4, 5, 8), (2, 6, 8), (2, 6, 3)], "must have rank 4"),
])
def test_flex_attention_shape_errors(shapes, message):
    err = import_error(model(shapes))
    assert "FlexAttention" in err and message in err, err


def test_flex_attention_bad_mod_graph():
    two = helper.make_graph([helper.make_node("Identity", ["s"], ["o"])], "two",
                            [helper.make_tensor_value_info("s", TensorProto.FLOAT, None),
                             helper.make_tensor_value_info("t", TensorProto.FLOAT, None)],
                            [helper.make_tensor_value_info("o", TensorProto.FLOAT, None)])
    err = import_error(model(SHAPES, score_mod=two))
    assert "attribute 'score_mod' must be a graph of one input and one output" in err, err


def test_preview_domain_errors():
    m = model(SHAPES)
    m.graph.node[0].op_type = "FrobAttention"
    assert "op type 'FrobAttention' of domain 'ai.onnx.preview' is not supported" in import_error(m)
    m = model(SHAPES)
    del m.opset_import[1]
    assert "does not import domain 'ai.onnx.preview'" in import_error(m)
