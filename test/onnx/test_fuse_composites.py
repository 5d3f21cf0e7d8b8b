"""Composite fusion end to end: ONNX models whose model-local functions
compute layer norm, RMS norm, GELU, SiLU, an embedding lookup, attention and
Keras-style LSTM / GRU op by op. The importer marks each function
`strata.implements = "custom.<name>"`; `top-optimize` (top-fuse-composites)
replaces it by the fused Top op. Checks: the optimized model (`m.mlir`)
holds the fused op and no call, and its outputs equal the imported model's
(`m_origin.mlir`, which runs the function body op by op) within rtol 1e-5 /
atol 1e-6, and an independent reference (onnx.reference, or numpy for the
recurrent layers) within rtol 1e-4 / atol 1e-5."""
import os
import re
import subprocess
import tempfile
import zlib

import numpy as np
import onnx
import pytest
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from onnx_harness import STRATA, run_ref_file

DOMAIN = "custom"
OPSET = [helper.make_opsetid("", 17)]


@pytest.fixture
def rng(request):
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def const(name, value):
    """A Constant node `name` holding `value` (numpy)."""
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(value), name + "_v"))


def attr_const(name, attr):
    """A Constant float node bound to the function attribute `attr`."""
    n = helper.make_node("Constant", [], [name])
    n.attribute.append(helper.make_attribute_ref("value_float", AttributeProto.FLOAT,
                                                 ref_attr_name=attr))
    return n


def function(name, inputs, outputs, nodes, defaults=None, attributes=()):
    f = helper.make_function(DOMAIN, name, inputs, outputs, nodes, OPSET,
                             attributes=list(attributes))
    for k, v in (defaults or {}).items():
        f.attribute_proto.append(helper.make_attribute(k, v))
    return f


def model(f, inputs, inits, n_out, **attrs):
    """main(inputs) = f(*inputs, *inits) with `n_out` outputs y0.."""
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(f.name, list(inputs) + list(inits), outs, domain=DOMAIN, **attrs)
    g_in = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in inputs.items()]
    g_init = [numpy_helper.from_array(a, n) for n, a in inits.items()]
    graph = helper.make_graph([node], "g", g_in, [helper.make_empty_tensor_value_info(o) for o in outs],
                              g_init)
    m = helper.make_model(graph, functions=[f],
                          opset_imports=OPSET + [helper.make_opsetid(DOMAIN, 1)])
    m.ir_version = 10
    return m


def fuse_and_run(m, inputs, fused_op, keep=None):
    """(imported outputs, optimized outputs); asserts the optimized model
    holds `fused_op` and calls nothing, and that both agree."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(m, path)
        if keep:
            onnx.save(m, keep)
        r = subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "left unfused" not in r.stderr, r.stderr
        text = open(os.path.join(tmp, "m.mlir")).read()
        assert re.search(r"top\." + fused_op + r"\(", text), text
        assert "call @" not in text, text
        origin_text = open(os.path.join(tmp, "m_origin.mlir")).read()
        assert "top." + fused_op + "(" not in origin_text
        origin = run_ref_file(os.path.join(tmp, "m_origin.mlir"), inputs, tmp, "origin")
        optimized = run_ref_file(os.path.join(tmp, "m.mlir"), inputs, tmp, "opt")
    for n in origin:
        np.testing.assert_allclose(optimized[n], origin[n], rtol=1e-5, atol=1e-6, err_msg=n)
    return origin, optimized


def check_against_onnx_reference(m, inputs, fused_op):
    from onnx.reference import ReferenceEvaluator
    _, got = fuse_and_run(m, inputs, fused_op)
    want = ReferenceEvaluator(m).run(None, inputs)
    for i, w in enumerate(want):
        np.testing.assert_allclose(got[f"y{i}"], w, rtol=1e-4, atol=1e-5, err_msg=f"y{i}")


def test_layer_norm(rng):
    nodes = [helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
             helper.make_node("Sub", ["x", "m"], ["d"]),
             helper.make_node("Mul", ["d", "d"], ["d2"]),
             helper.make_node("ReduceMean", ["d2"], ["var"], axes=[-1]),
             attr_const("eps", "epsilon"),
             helper.make_node("Add", ["var", "eps"], ["ve"]),
             helper.make_node("Sqrt", ["ve"], ["sd"]),
             helper.make_node("Div", ["d", "sd"], ["n"]),
             helper.make_node("Mul", ["n", "scale"], ["ns"]),
             helper.make_node("Add", ["ns", "bias"], ["y"])]
    f = function("layer_norm", ["x", "scale", "bias"], ["y"], nodes, {"epsilon": 1e-5})
    x = rng.standard_normal((2, 3, 16)).astype(np.float32)
    inits = {"g": rng.uniform(0.5, 1.5, 16).astype(np.float32),
             "b": rng.standard_normal(16).astype(np.float32)}
    check_against_onnx_reference(model(f, {"x": x}, inits, 1, epsilon=1e-3), {"x": x}, "LayerNorm")


def test_rms_norm(rng):
    nodes = [helper.make_node("Mul", ["x", "x"], ["x2"]),
             helper.make_node("ReduceMean", ["x2"], ["ms"], axes=[-1]),
             attr_const("eps", "epsilon"),
             helper.make_node("Add", ["ms", "eps"], ["me"]),
             helper.make_node("Sqrt", ["me"], ["r"]),
             helper.make_node("Div", ["x", "r"], ["n"]),
             helper.make_node("Mul", ["n", "scale"], ["y"])]
    f = function("RMSNorm", ["x", "scale"], ["y"], nodes, {"epsilon": 1e-6})
    x = rng.standard_normal((4, 32)).astype(np.float32)
    inits = {"g": rng.uniform(0.5, 1.5, 32).astype(np.float32)}
    check_against_onnx_reference(model(f, {"x": x}, inits, 1, epsilon=1e-6), {"x": x}, "RMSNorm")


def gelu_erf_nodes():
    return [const("s2", np.float32(np.sqrt(2.0))), const("one", np.float32(1)),
            const("half", np.float32(0.5)),
            helper.make_node("Div", ["x", "s2"], ["t"]),
            helper.make_node("Erf", ["t"], ["e"]),
            helper.make_node("Add", ["e", "one"], ["e1"]),
            helper.make_node("Mul", ["x", "e1"], ["xe"]),
            helper.make_node("Mul", ["xe", "half"], ["y"])]


def gelu_tanh_nodes():
    return [const("c", np.float32(np.sqrt(2 / np.pi))), const("k", np.float32(0.044715)),
            const("one", np.float32(1)), const("half", np.float32(0.5)),
            helper.make_node("Mul", ["x", "x"], ["x2"]),
            helper.make_node("Mul", ["x2", "x"], ["x3"]),
            helper.make_node("Mul", ["x3", "k"], ["kx3"]),
            helper.make_node("Add", ["x", "kx3"], ["in"]),
            helper.make_node("Mul", ["in", "c"], ["cin"]),
            helper.make_node("Tanh", ["cin"], ["t"]),
            helper.make_node("Add", ["t", "one"], ["t1"]),
            helper.make_node("Mul", ["x", "t1"], ["xt"]),
            helper.make_node("Mul", ["xt", "half"], ["y"])]


@pytest.mark.parametrize("name,nodes", [("Gelu", gelu_erf_nodes), ("gelu_tanh", gelu_tanh_nodes)])
def test_gelu(rng, name, nodes):
    f = function(name, ["x"], ["y"], nodes())
    x = (3 * rng.standard_normal((3, 17))).astype(np.float32)
    check_against_onnx_reference(model(f, {"x": x}, {}, 1), {"x": x}, "Gelu")


def test_silu(rng):
    f = function("SiLU", ["x"], ["y"], [helper.make_node("Sigmoid", ["x"], ["s"]),
                                        helper.make_node("Mul", ["x", "s"], ["y"])])
    x = (3 * rng.standard_normal((2, 3, 5))).astype(np.float32)
    check_against_onnx_reference(model(f, {"x": x}, {}, 1), {"x": x}, "SiLU")


def test_embedding_lookup(rng):
    nodes = [const("depth", np.int64(10)), const("values", np.array([0, 1], np.float32)),
             helper.make_node("OneHot", ["ids", "depth", "values"], ["oh"]),
             helper.make_node("MatMul", ["oh", "table"], ["y"])]
    f = function("embedding_lookup", ["table", "ids"], ["y"], nodes)
    ids = np.array([[3, 0, 9], [1, 1, 4]], np.int64)
    inits = {"t": rng.standard_normal((10, 6)).astype(np.float32)}
    m = model(f, {}, inits, 1)
    # ids is a graph input after the table.
    node = m.graph.node[0]
    node.input.append("ids")
    m.graph.input.append(helper.make_tensor_value_info("ids", TensorProto.INT64, ids.shape))
    check_against_onnx_reference(m, {"ids": ids}, "Gather")


def test_scaled_dot_product_attention(rng):
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             attr_const("sc", "scale"),
             helper.make_node("Mul", ["s", "sc"], ["ss"]),
             helper.make_node("Softmax", ["ss"], ["p"], axis=-1),
             helper.make_node("MatMul", ["p", "v"], ["y"])]
    f = function("scaled_dot_product_attention", ["q", "k", "v"], ["y"], nodes,
                 attributes=["scale"])
    q = rng.standard_normal((1, 2, 5, 8)).astype(np.float32)
    k = rng.standard_normal((1, 2, 7, 8)).astype(np.float32)
    v = rng.standard_normal((1, 2, 7, 4)).astype(np.float32)
    inputs = {"q": q, "k": k, "v": v}
    check_against_onnx_reference(model(f, inputs, {}, 1, scale=0.3), inputs, "Attention")


#----------------------------------------------------------------------------
# Keras-style recurrent layers, unrolled op by op in the function body.
#----------------------------------------------------------------------------

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_step_nodes(t, x_t, h, c, hidden):
    """Nodes of one Keras LSTM step (gates i, f, c, o); returns (nodes, h, c)."""
    p = f"s{t}_"
    nodes = [helper.make_node("MatMul", [x_t, "kernel"], [p + "xk"]),
             helper.make_node("MatMul", [h, "recurrent_kernel"], [p + "hr"]),
             helper.make_node("Add", [p + "xk", p + "hr"], [p + "z0"]),
             helper.make_node("Add", [p + "z0", "bias"], [p + "z"]),
             helper.make_node("Split", [p + "z", "split4"], [p + g for g in "ifco"], axis=1),
             helper.make_node("Sigmoid", [p + "i"], [p + "si"]),
             helper.make_node("Sigmoid", [p + "f"], [p + "sf"]),
             helper.make_node("Tanh", [p + "c"], [p + "tc"]),
             helper.make_node("Sigmoid", [p + "o"], [p + "so"]),
             helper.make_node("Mul", [p + "sf", c], [p + "fc"]),
             helper.make_node("Mul", [p + "si", p + "tc"], [p + "ic"]),
             helper.make_node("Add", [p + "fc", p + "ic"], [p + "cn"]),
             helper.make_node("Tanh", [p + "cn"], [p + "tcn"]),
             helper.make_node("Mul", [p + "so", p + "tcn"], [p + "hn"])]
    return nodes, p + "hn", p + "cn"


def keras_lstm_ref(x, kernel, rkernel, bias, h, c):
    hidden = rkernel.shape[0]
    ys = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ rkernel + bias
        i, f, g, o = (z[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        ys.append(h)
    return np.stack(ys, 1), h, c


def lstm_weights(rng, inp, hidden):
    return {"K": (0.5 * rng.standard_normal((inp, 4 * hidden))).astype(np.float32),
            "R": (0.5 * rng.standard_normal((hidden, 4 * hidden))).astype(np.float32),
            "B": (0.5 * rng.standard_normal(4 * hidden)).astype(np.float32)}


def test_keras_lstm(rng):
    n, steps, inp, hidden = 2, 4, 5, 3
    nodes = [const("split4", np.full(4, hidden, np.int64)), const("ax1", np.array([1], np.int64))]
    h, c, ys = "h0", "c0", []
    for t in range(steps):
        nodes += [const(f"t{t}", np.int64(t)),
                  helper.make_node("Gather", ["x", f"t{t}"], [f"x{t}"], axis=1)]
        step, h, c = lstm_step_nodes(t, f"x{t}", h, c, hidden)
        nodes += step + [helper.make_node("Unsqueeze", [h, "ax1"], [f"u{t}"])]
        ys.append(f"u{t}")
    nodes += [helper.make_node("Concat", ys, ["y"], axis=1),
              helper.make_node("Identity", [h], ["h"]), helper.make_node("Identity", [c], ["c"])]
    f = function("lstm", ["x", "kernel", "recurrent_kernel", "bias", "h0", "c0"], ["y", "h", "c"], nodes)
    inputs = {"x": rng.standard_normal((n, steps, inp)).astype(np.float32),
              "h0": rng.standard_normal((n, hidden)).astype(np.float32),
              "c0": rng.standard_normal((n, hidden)).astype(np.float32)}
    w = lstm_weights(rng, inp, hidden)
    m = model(f, {"x": inputs["x"]}, w, 3)
    # Initial states are graph inputs following the weights.
    m.graph.node[0].input.extend(["h0", "c0"])
    m.graph.input.extend([helper.make_tensor_value_info(s, TensorProto.FLOAT, (n, hidden))
                          for s in ("h0", "c0")])
    _, got = fuse_and_run(m, inputs, "LSTM", keep=os.environ.get("KEEP_LSTM"))
    want = keras_lstm_ref(inputs["x"], w["K"], w["R"], w["B"], inputs["h0"], inputs["c0"])
    for i, wv in enumerate(want):
        np.testing.assert_allclose(got[f"y{i}"], wv, rtol=1e-4, atol=1e-5, err_msg=f"y{i}")


def test_lstm_cell(rng):
    inp, hidden = 6, 4
    nodes = [const("split4", np.full(4, hidden, np.int64))]
    step, h, c = lstm_step_nodes(0, "x", "h", "c", hidden)
    nodes += step + [helper.make_node("Identity", [h], ["h_out"]),
                     helper.make_node("Identity", [c], ["c_out"])]
    f = function("lstm_cell", ["x", "h", "c", "kernel", "recurrent_kernel", "bias"],
                 ["h_out", "c_out"], nodes)
    inputs = {"x": rng.standard_normal((3, inp)).astype(np.float32),
              "h": rng.standard_normal((3, hidden)).astype(np.float32),
              "c": rng.standard_normal((3, hidden)).astype(np.float32)}
    w = lstm_weights(rng, inp, hidden)
    _, got = fuse_and_run(model(f, inputs, w, 2), inputs, "LSTM")
    x1 = inputs["x"][:, None]
    _, h_want, c_want = keras_lstm_ref(x1, w["K"], w["R"], w["B"], inputs["h"], inputs["c"])
    np.testing.assert_allclose(got["y0"], h_want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["y1"], c_want, rtol=1e-4, atol=1e-5)


def keras_gru_ref(x, kernel, rkernel, bias, h):
    hidden = rkernel.shape[0]
    ys = []
    for t in range(x.shape[1]):
        xz = x[:, t] @ kernel + bias[0]
        hz = h @ rkernel + bias[1]
        part = lambda a, k: a[:, k * hidden:(k + 1) * hidden]
        z = sigmoid(part(xz, 0) + part(hz, 0))
        r = sigmoid(part(xz, 1) + part(hz, 1))
        hh = np.tanh(part(xz, 2) + r * part(hz, 2))
        h = z * h + (1 - z) * hh
        ys.append(h)
    return np.stack(ys, 1), h


def test_keras_gru(rng):
    n, steps, inp, hidden = 2, 3, 4, 5
    nodes = [const("split3", np.full(3, hidden, np.int64)), const("ax1", np.array([1], np.int64)),
             const("zero", np.int64(0)), const("one_i", np.int64(1)),
             const("one", np.float32(1)),
             helper.make_node("Gather", ["bias", "zero"], ["bx"], axis=0),
             helper.make_node("Gather", ["bias", "one_i"], ["bh"], axis=0)]
    h, ys = "h0", []
    for t in range(steps):
        p = f"s{t}_"
        nodes += [const(f"t{t}", np.int64(t)),
                  helper.make_node("Gather", ["x", f"t{t}"], [p + "x"], axis=1),
                  helper.make_node("MatMul", [p + "x", "kernel"], [p + "xk"]),
                  helper.make_node("Add", [p + "xk", "bx"], [p + "xz"]),
                  helper.make_node("MatMul", [h, "recurrent_kernel"], [p + "hr"]),
                  helper.make_node("Add", [p + "hr", "bh"], [p + "hz"]),
                  helper.make_node("Split", [p + "xz", "split3"], [p + "xz_z", p + "xz_r", p + "xz_h"], axis=1),
                  helper.make_node("Split", [p + "hz", "split3"], [p + "hz_z", p + "hz_r", p + "hz_h"], axis=1),
                  helper.make_node("Add", [p + "xz_z", p + "hz_z"], [p + "az"]),
                  helper.make_node("Sigmoid", [p + "az"], [p + "z"]),
                  helper.make_node("Add", [p + "xz_r", p + "hz_r"], [p + "ar"]),
                  helper.make_node("Sigmoid", [p + "ar"], [p + "r"]),
                  helper.make_node("Mul", [p + "r", p + "hz_h"], [p + "rh"]),
                  helper.make_node("Add", [p + "xz_h", p + "rh"], [p + "ah"]),
                  helper.make_node("Tanh", [p + "ah"], [p + "hh"]),
                  helper.make_node("Mul", [p + "z", h], [p + "zh"]),
                  helper.make_node("Sub", ["one", p + "z"], [p + "omz"]),
                  helper.make_node("Mul", [p + "omz", p + "hh"], [p + "zhh"]),
                  helper.make_node("Add", [p + "zh", p + "zhh"], [p + "h"]),
                  helper.make_node("Unsqueeze", [p + "h", "ax1"], [p + "u"])]
        h = p + "h"
        ys.append(p + "u")
    nodes += [helper.make_node("Concat", ys, ["y"], axis=1), helper.make_node("Identity", [h], ["h"])]
    f = function("GRU", ["x", "kernel", "recurrent_kernel", "bias", "h0"], ["y", "h"], nodes)
    inputs = {"x": rng.standard_normal((n, steps, inp)).astype(np.float32),
              "h0": rng.standard_normal((n, hidden)).astype(np.float32)}
    w = {"K": (0.5 * rng.standard_normal((inp, 3 * hidden))).astype(np.float32),
         "R": (0.5 * rng.standard_normal((hidden, 3 * hidden))).astype(np.float32),
         "B": (0.5 * rng.standard_normal((2, 3 * hidden))).astype(np.float32)}
    m = model(f, {"x": inputs["x"]}, w, 2)
    m.graph.node[0].input.append("h0")
    m.graph.input.append(helper.make_tensor_value_info("h0", TensorProto.FLOAT, (n, hidden)))
    _, got = fuse_and_run(m, inputs, "GRU")
    want = keras_gru_ref(inputs["x"], w["K"], w["R"], w["B"], inputs["h0"])
    for i, wv in enumerate(want):
        np.testing.assert_allclose(got[f"y{i}"], wv, rtol=1e-4, atol=1e-5, err_msg=f"y{i}")


def test_unfusable_composite_warns_and_still_runs(rng):
    """A layer_norm whose scale does not fit the normalized shape is left as
    written (inlined), with a warning naming the function and the check."""
    nodes = [helper.make_node("Mul", ["x", "scale"], ["y"])]
    f = function("layer_norm", ["x", "scale"], ["y"], nodes)
    x = rng.standard_normal((2, 8)).astype(np.float32)
    m = model(f, {"x": x}, {"g": rng.standard_normal((2, 1)).astype(np.float32)}, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(m, path)
        r = subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "composite 'custom.layer_norm' (custom.layer_norm): input 1 (scale) must have 8 elements" in r.stderr, r.stderr
        text = open(os.path.join(tmp, "m.mlir")).read()
        assert "top.LayerNorm(" not in text and "top.Mul(" in text
        got = run_ref_file(os.path.join(tmp, "m.mlir"), {"x": x}, tmp, "opt")
        scale = numpy_helper.to_array(m.graph.initializer[0])
        np.testing.assert_allclose(got["y0"], x * scale, rtol=1e-6)


def test_keras_lstm_last_output_time_major(rng):
    """lstm(x, kernel, recurrent_kernel) with time_major = 1 and
    return_sequences = 0: x is [S, N, I], no bias, zero initial states, and
    the only result is the last h."""
    n, steps, inp, hidden = 3, 5, 4, 2
    nodes = [const("split4", np.full(4, hidden, np.int64)),
             const("zeros", np.zeros((n, hidden), np.float32)),
             const("bias", np.zeros(4 * hidden, np.float32))]
    h, c = "zeros", "zeros"
    for t in range(steps):
        nodes += [const(f"t{t}", np.int64(t)),
                  helper.make_node("Gather", ["x", f"t{t}"], [f"x{t}"], axis=0)]
        step, h, c = lstm_step_nodes(t, f"x{t}", h, c, hidden)
        nodes += step
    nodes += [helper.make_node("Identity", [h], ["y"])]
    f = function("keras_lstm", ["x", "kernel", "recurrent_kernel"], ["y"], nodes,
                 attributes=["time_major", "return_sequences"])
    x = rng.standard_normal((steps, n, inp)).astype(np.float32)
    w = lstm_weights(rng, inp, hidden)
    del w["B"]
    m = model(f, {"x": x}, w, 1, time_major=1, return_sequences=0)
    _, got = fuse_and_run(m, {"x": x}, "LSTM")
    zeros = np.zeros((n, hidden), np.float32)
    _, h_want, _ = keras_lstm_ref(x.transpose(1, 0, 2), w["K"], w["R"],
                                  np.zeros(4 * hidden, np.float32), zeros, zeros)
    np.testing.assert_allclose(got["y0"], h_want, rtol=1e-4, atol=1e-5)


def test_keras_gru_reset_before(rng):
    """gru with reset_after = 0 (Keras 1 style): one bias [3H] and the reset
    gate applied before the recurrent product, hh = tanh(x Wh + (r * h) Rh
    + bh); outputs the sequence only."""
    n, steps, inp, hidden = 2, 3, 4, 3
    nodes = [const("split3", np.full(3, hidden, np.int64)), const("ax1", np.array([1], np.int64)),
             const("one", np.float32(1)), const("h0", np.zeros((n, hidden), np.float32)),
             helper.make_node("Split", ["recurrent_kernel", "split3"], ["Rz", "Rr", "Rh"], axis=1),
             helper.make_node("Split", ["bias", "split3"], ["bz", "br", "bh"], axis=0)]
    h, ys = "h0", []
    for t in range(steps):
        p = f"s{t}_"
        nodes += [const(f"t{t}", np.int64(t)),
                  helper.make_node("Gather", ["x", f"t{t}"], [p + "x"], axis=1),
                  helper.make_node("MatMul", [p + "x", "kernel"], [p + "xk"]),
                  helper.make_node("Split", [p + "xk", "split3"], [p + "xz", p + "xr", p + "xh"], axis=1)]
        for g in "zr":
            nodes += [helper.make_node("MatMul", [h, "R" + g], [p + "h" + g]),
                      helper.make_node("Add", [p + "x" + g, p + "h" + g], [p + "a" + g]),
                      helper.make_node("Add", [p + "a" + g, "b" + g], [p + "ab" + g]),
                      helper.make_node("Sigmoid", [p + "ab" + g], [p + g])]
        nodes += [helper.make_node("Mul", [p + "r", h], [p + "rh"]),
                  helper.make_node("MatMul", [p + "rh", "Rh"], [p + "rhR"]),
                  helper.make_node("Add", [p + "xh", p + "rhR"], [p + "ah"]),
                  helper.make_node("Add", [p + "ah", "bh"], [p + "abh"]),
                  helper.make_node("Tanh", [p + "abh"], [p + "hh"]),
                  helper.make_node("Mul", [p + "z", h], [p + "zh"]),
                  helper.make_node("Sub", ["one", p + "z"], [p + "omz"]),
                  helper.make_node("Mul", [p + "omz", p + "hh"], [p + "zhh"]),
                  helper.make_node("Add", [p + "zh", p + "zhh"], [p + "h"]),
                  helper.make_node("Unsqueeze", [p + "h", "ax1"], [p + "u"])]
        h = p + "h"
        ys.append(p + "u")
    nodes += [helper.make_node("Concat", ys, ["y"], axis=1)]
    f = function("gru", ["x", "kernel", "recurrent_kernel", "bias"], ["y"], nodes,
                 attributes=["reset_after"])
    x = rng.standard_normal((n, steps, inp)).astype(np.float32)
    w = {"K": (0.5 * rng.standard_normal((inp, 3 * hidden))).astype(np.float32),
         "R": (0.5 * rng.standard_normal((hidden, 3 * hidden))).astype(np.float32),
         "B": (0.5 * rng.standard_normal(3 * hidden)).astype(np.float32)}
    _, got = fuse_and_run(model(f, {"x": x}, w, 1, reset_after=0), {"x": x}, "GRU")
    # numpy reference, reset gate before the recurrent product.
    hv, ys = np.zeros((n, hidden), np.float32), []
    part = lambda a, k: a[..., k * hidden:(k + 1) * hidden]
    for t in range(steps):
        xk = x[:, t] @ w["K"]
        z = sigmoid(part(xk, 0) + hv @ part(w["R"], 0) + part(w["B"], 0))
        r = sigmoid(part(xk, 1) + hv @ part(w["R"], 1) + part(w["B"], 1))
        hh = np.tanh(part(xk, 2) + (r * hv) @ part(w["R"], 2) + part(w["B"], 2))
        hv = z * hv + (1 - z) * hh
        ys.append(hv)
    np.testing.assert_allclose(got["y0"], np.stack(ys, 1), rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention_rank3_bool_mask(rng):
    """Rank-3 q, k, v (one head, default scale 1/sqrt(D)) and a bool mask
    (true = attend) as the fourth input."""
    d = 6
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
             helper.make_node("MatMul", ["q", "kt"], ["s"]),
             const("sc", np.float32(1 / np.sqrt(d))),
             helper.make_node("Mul", ["s", "sc"], ["ss"]),
             const("ninf", np.float32(-np.inf)),
             helper.make_node("Where", ["mask", "ss", "ninf"], ["ms"]),
             helper.make_node("Softmax", ["ms"], ["p"], axis=-1),
             helper.make_node("MatMul", ["p", "v"], ["y"])]
    f = function("ScaledDotProductAttention", ["q", "k", "v", "mask"], ["y"], nodes)
    mask = rng.random((4, 5)) < 0.6
    mask[:, 0] = True  # every query attends to something
    inputs = {"q": rng.standard_normal((2, 4, d)).astype(np.float32),
              "k": rng.standard_normal((2, 5, d)).astype(np.float32),
              "v": rng.standard_normal((2, 5, 3)).astype(np.float32),
              "mask": mask}
    check_against_onnx_reference(model(f, inputs, {}, 1), inputs, "Attention")
