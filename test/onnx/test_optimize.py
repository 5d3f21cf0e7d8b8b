"""top-optimize keeps meaning: models built with onnx.helper are imported
(`strata import` writes the imported `m_origin.mlir` and the optimized
`m.mlir`), both are run with `strata run-ref`, and the optimized outputs must
match the unoptimized ones (cosine >= 0.99999, allclose rtol 1e-5 atol 1e-5)
and ONNX Runtime's (rtol 1e-4, atol 1e-5); the op counts show each fold
fired (or, for the negative cases, did not)."""
import os
import re
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import pytest
from onnx import helper

from onnx_harness import STRATA, make_model, run_ort, run_ref_file

@pytest.fixture
def rng(request):
    """A generator seeded from the test's name, so a failure reproduces."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


OP_RE = re.compile(r"=\s*top\.([A-Za-z0-9]+)\(")


def ops(path):
    with open(path) as f:
        names = [m.group(1) for m in OP_RE.finditer(f.read())]
    return [n for n in names if n not in ("Weight", "Input", "None")]


run = run_ref_file


def optimize_and_compare(model, inputs):
    """(ops before, ops after); asserts the outputs agree."""
    import onnx
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        r = subprocess.run([STRATA, "import", path, "-o", tmp, "--name", "m"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        origin = run(os.path.join(tmp, "m_origin.mlir"), inputs, tmp, "origin")
        optimized = run(os.path.join(tmp, "m.mlir"), inputs, tmp, "opt")
        want = run_ort(model, inputs)
        for n, w in want.items():
            a, b = origin[n].astype(np.float64).ravel(), optimized[n].astype(np.float64).ravel()
            cos = a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30)
            assert cos >= 0.99999, (n, cos)
            np.testing.assert_allclose(optimized[n], origin[n], rtol=1e-5, atol=1e-5, err_msg=n)
            np.testing.assert_allclose(optimized[n], w, rtol=1e-4, atol=1e-5, err_msg=n)
        return ops(os.path.join(tmp, "m_origin.mlir")), ops(os.path.join(tmp, "m.mlir"))


def conv_node(x, w, y, b=None, pads=(1, 1, 1, 1), group=1):
    ins = [x, w] + ([b] if b else [])
    return helper.make_node("Conv", ins, [y], kernel_shape=[3, 3], pads=list(pads), group=group)


def test_conv_batchnorm_relu(rng):
    x = rng.standard_normal((1, 4, 9, 9)).astype(np.float32)
    inits = {"w": rng.standard_normal((6, 4, 3, 3)).astype(np.float32),
             "b": rng.standard_normal(6).astype(np.float32),
             "g": rng.uniform(0.5, 2, 6).astype(np.float32),
             "be": rng.standard_normal(6).astype(np.float32),
             "m": rng.standard_normal(6).astype(np.float32),
             "v": rng.uniform(0.1, 3, 6).astype(np.float32)}
    nodes = [conv_node("x", "w", "c", "b"),
             helper.make_node("BatchNormalization", ["c", "g", "be", "m", "v"], ["n"], epsilon=1e-3),
             helper.make_node("Relu", ["n"], ["y"])]
    before, after = optimize_and_compare(make_model(nodes, {"x": x}, ["y"], inits), {"x": x})
    assert "BatchNorm" in before and "Relu" in before
    assert after == ["Conv"]


def test_depthwise_scale_shift_relu6(rng):
    x = rng.standard_normal((1, 5, 8, 8)).astype(np.float32)
    inits = {"w": rng.standard_normal((5, 1, 3, 3)).astype(np.float32),
             "s": rng.standard_normal((5, 1, 1)).astype(np.float32),
             "t": rng.standard_normal((1, 5, 1, 1)).astype(np.float32),
             "lo": np.array(0, np.float32), "hi": np.array(6, np.float32)}
    nodes = [conv_node("x", "w", "c", group=5),
             helper.make_node("Mul", ["c", "s"], ["m"]),
             helper.make_node("Add", ["t", "m"], ["a"]),
             helper.make_node("Clip", ["a", "lo", "hi"], ["y"])]
    before, after = optimize_and_compare(make_model(nodes, {"x": x}, ["y"], inits), {"x": x})
    assert before.count("Conv") == 1 and len(before) == 4
    assert after == ["Conv"]


def test_pad_into_conv_and_maxpool(rng):
    x = rng.standard_normal((1, 3, 7, 7)).astype(np.float32)
    inits = {"w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
             "p": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)}
    nodes = [helper.make_node("Pad", ["x", "p"], ["px"]),
             conv_node("px", "w", "y", pads=(0, 0, 0, 0))]
    before, after = optimize_and_compare(make_model(nodes, {"x": x}, ["y"], inits), {"x": x})
    assert "Pad" in before and after == ["Conv"]


def test_constant_subgraph_folds(rng):
    """The importer already folds ONNX constants, so this model is Top IR
    with inline weight values, optimized by `strata-opt --top-optimize`."""
    x = rng.standard_normal((2, 6)).astype(np.float32)
    a = rng.standard_normal((3, 2)).astype(np.float32)
    dense = "[" + ", ".join("[" + ", ".join("%.9e" % v for v in row) + "]" for row in a) + "]"
    text = f"""
func.func @main(%arg0: tensor<2x6xf32>) -> tensor<2x6xf32> {{
  %x = top.Input(%arg0) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %a = top.Weight() {{name = "a", value = dense<{dense}> : tensor<3x2xf32>}} : () -> tensor<3x2xf32>
  %t = top.Permute(%a) {{order = array<i64: 1, 0>}} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %r = top.Reshape(%t) {{shape = array<i64: 6>}} : (tensor<2x3xf32>) -> tensor<6xf32>
  %e = top.Exp(%r) : (tensor<6xf32>) -> tensor<6xf32>
  %y = top.Mul(%x, %e) : (tensor<2x6xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        src, opt = os.path.join(tmp, "m.mlir"), os.path.join(tmp, "opt.mlir")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([os.path.join(os.path.dirname(STRATA), "strata-opt"), src,
                            "--top-optimize", "-o", opt], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert ops(src) == ["Permute", "Reshape", "Exp", "Mul"]
        assert ops(opt) == ["Mul"]
        got = run(opt, {"input0": x}, tmp, "opt")["output0"]
    np.testing.assert_allclose(got, x * np.exp(a.T.reshape(6)), rtol=1e-6, atol=0)


def test_multi_use_conv_is_not_fused(rng):
    """The conv's raw output is also a model output: neither BatchNorm nor
    relu may be folded into it."""
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    inits = {"w": rng.standard_normal((3, 2, 3, 3)).astype(np.float32),
             "g": np.ones(3, np.float32), "be": np.zeros(3, np.float32),
             "m": rng.standard_normal(3).astype(np.float32),
             "v": np.ones(3, np.float32)}
    nodes = [conv_node("x", "w", "c"),
             helper.make_node("BatchNormalization", ["c", "g", "be", "m", "v"], ["n"]),
             helper.make_node("Relu", ["c"], ["r"])]
    before, after = optimize_and_compare(
        make_model(nodes, {"x": x}, ["c", "n", "r"], inits), {"x": x})
    assert sorted(after) == sorted(before)


def compile_model(args):
    return subprocess.run([STRATA, "compile"] + args, capture_output=True, text=True)


def test_compile_onnx_and_origin_agree(rng):
    """`strata compile` optimizes an ONNX model and an imported
    `_origin.mlir` the same way; `--no-optimize` keeps the imported ops."""
    import onnx
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    inits = {"w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
             "s": rng.uniform(0.5, 2, (1, 4, 1, 1)).astype(np.float32)}
    nodes = [conv_node("x", "w", "c"), helper.make_node("Mul", ["c", "s"], ["m"]),
             helper.make_node("Relu", ["m"], ["y"])]
    model = make_model(nodes, {"x": x}, ["y"], inits)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.onnx")
        onnx.save(model, path)
        r = compile_model([path, "-o", os.path.join(tmp, "a")])
        assert r.returncode == 0, r.stderr
        r = subprocess.run([STRATA, "import", path, "-o", tmp, "--no-optimize"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        origin = os.path.join(tmp, "net_origin.mlir")
        r = compile_model([origin, "-o", os.path.join(tmp, "b")])
        assert r.returncode == 0, r.stderr
        r = compile_model([origin, "-o", os.path.join(tmp, "c"), "--no-optimize",
                           "--name", "raw"])
        assert r.returncode == 0, r.stderr
        a, b = os.path.join(tmp, "a", "net.mlir"), os.path.join(tmp, "b", "net.mlir")
        assert ops(a) == ops(b) == ["Conv"]
        assert ops(os.path.join(tmp, "c", "raw.mlir")) == ops(origin) == ["Conv", "Mul", "Relu"]
        want = run_ort(model, {"x": x})["y"]
        for p in (a, b, os.path.join(tmp, "c", "raw.mlir")):
            got = run(p, {"x": x}, tmp, "run")["y"]
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("args,message", [
    (["missing.onnx"], "cannot read 'missing.onnx'"),
    (["m.onnx", "--target", "npu"], "--target 'npu' is not available"),
    (["m_origin.mlir", "--input-shapes", "x:1x4"], "does not fit the input's type"),
    (["m_origin.mlir", "--input-shapes", "y:1x3"], "'y', which is not an input of the model"),
    (["m.onnx", "--input-shapes", "x:1xq"], "dim 'q' is not a non-negative integer"),
])
def test_compile_errors(args, message):
    import onnx
    x = np.zeros((1, 3), np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        onnx.save(make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": x}, ["y"], {}),
                  os.path.join(tmp, "m.onnx"))
        r = subprocess.run([STRATA, "import", "m.onnx", "-o", ".", "--no-optimize"],
                           capture_output=True, text=True, cwd=tmp)
        assert r.returncode == 0, r.stderr
        out = os.path.join(tmp, "out")
        r = subprocess.run([STRATA, "compile"] + args + ["-o", out],
                           capture_output=True, text=True, cwd=tmp)
        assert r.returncode != 0 and message in r.stderr, r.stderr
        assert not os.path.exists(out)


def test_graph_report_onnx_and_origin(rng):
    """scripts/graph-report counts the same ops for an ONNX model and for
    its imported `_origin.mlir`, and ends with the summary line."""
    import json
    import onnx
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    nodes = [conv_node("x", "w", "c"), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Transpose", ["r"], ["y"], perm=[0, 2, 3, 1])]
    report = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "graph-report")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.onnx")
        onnx.save(make_model(nodes, {"x": x}, ["y"], {"w": w}), path)
        r = subprocess.run([STRATA, "import", path, "-o", tmp, "--no-optimize"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        lines = []
        for model in (path, os.path.join(tmp, "net_origin.mlir")):
            js = os.path.join(tmp, "r.json")
            r = subprocess.run([sys.executable, report, model,
                                "--bin", os.path.dirname(STRATA), "--json", js],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            lines.append(r.stdout.strip().splitlines()[-1])
            with open(js) as f:
                data = json.load(f)
            assert data["before"] == {"Conv": 1, "Relu": 1, "Permute": 1}
            assert data["after"] == {"Conv": 1, "Permute": 1}
        assert lines == ["ops: 3 -> 2, transposes: 1"] * 2


def gelu_erf_nodes(x, y, half_first=False):
    """x * 0.5 * (1 + erf(x / sqrt(2))) as PyTorch exports it."""
    p = y + "_"
    return [helper.make_node("Div", [x, "sqrt2"], [p + "d"]),
            helper.make_node("Erf", [p + "d"], [p + "e"]),
            helper.make_node("Add", [p + "e", "one"], [p + "a"]),
            helper.make_node("Mul", [x, p + "a"], [p + "m"]),
            helper.make_node("Mul", [p + "m", "half"], [y])]


def layernorm_nodes(x, y, eps="eps"):
    p = y + "_"
    return [helper.make_node("ReduceMean", [x], [p + "mean"], axes=[-1]),
            helper.make_node("Sub", [x, p + "mean"], [p + "c"]),
            helper.make_node("Pow", [p + "c", "two"], [p + "sq"]),
            helper.make_node("ReduceMean", [p + "sq"], [p + "var"], axes=[-1]),
            helper.make_node("Add", [p + "var", eps], [p + "ve"]),
            helper.make_node("Sqrt", [p + "ve"], [p + "s"]),
            helper.make_node("Div", [p + "c", p + "s"], [p + "n"]),
            helper.make_node("Mul", [p + "n", "gamma"], [p + "g"]),
            helper.make_node("Add", [p + "g", "beta"], [y])]


SCALARS = {"sqrt2": np.array(np.sqrt(2), np.float32), "one": np.array(1, np.float32),
           "half": np.array(0.5, np.float32), "two": np.array(2, np.float32),
           "three": np.array(3, np.float32), "six": np.array(6, np.float32),
           "zero": np.array(0, np.float32), "eps": np.array(1e-5, np.float32)}


def test_transformer_block_idioms(rng):
    """MatMul + bias + GELU (erf form), MatMul + bias, residual, LayerNorm
    (primitive form) become two MatMuls (bias, gelu epilogue), an Add and a
    LayerNorm."""
    x = rng.standard_normal((2, 6, 8)).astype(np.float32)
    inits = dict(SCALARS,
                 w1=rng.standard_normal((8, 16)).astype(np.float32) * 0.3,
                 b1=rng.standard_normal(16).astype(np.float32),
                 w2=rng.standard_normal((16, 8)).astype(np.float32) * 0.3,
                 b2=rng.standard_normal((1, 8)).astype(np.float32),
                 gamma=rng.uniform(0.5, 2, 8).astype(np.float32),
                 beta=rng.standard_normal(8).astype(np.float32))
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h1"]),
             *gelu_erf_nodes("h1", "g"),
             helper.make_node("MatMul", ["g", "w2"], ["o0"]),
             helper.make_node("Add", ["b2", "o0"], ["o1"]),
             helper.make_node("Add", ["o1", "x"], ["r"]),
             *layernorm_nodes("r", "y")]
    before, after = optimize_and_compare(make_model(nodes, {"x": x}, ["y"], inits), {"x": x})
    assert len(before) == len(nodes)
    assert sorted(after) == ["Add", "LayerNorm", "MatMul", "MatMul"]


def test_conv_silu_hardswish_idioms(rng):
    """x * sigmoid(x) and x * clip(x + 3, 0, 6) / 6 after convolutions become
    their epilogues."""
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    inits = dict(SCALARS, w1=rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
                 w2=rng.standard_normal((5, 4, 3, 3)).astype(np.float32))
    nodes = [conv_node("x", "w1", "c1"),
             helper.make_node("Sigmoid", ["c1"], ["s"]),
             helper.make_node("Mul", ["c1", "s"], ["a1"]),
             conv_node("a1", "w2", "c2"),
             helper.make_node("Add", ["c2", "three"], ["t"]),
             helper.make_node("Clip", ["t", "zero", "six"], ["cl"]),
             helper.make_node("Mul", ["c2", "cl"], ["m"]),
             helper.make_node("Div", ["m", "six"], ["y"])]
    before, after = optimize_and_compare(make_model(nodes, {"x": x}, ["y"], inits), {"x": x})
    assert len(before) == len(nodes)
    assert after == ["Conv", "Conv"]


def test_softmax_rmsnorm_gelu_tanh_idioms(rng):
    x = rng.standard_normal((3, 10)).astype(np.float32) * 2
    inits = dict(SCALARS, gamma=rng.uniform(0.5, 2, 10).astype(np.float32),
                 k=np.array(np.sqrt(2 / np.pi), np.float32),
                 c=np.array(0.044715, np.float32))
    nodes = [helper.make_node("ReduceMax", ["x"], ["mx"], axes=[1]),
             helper.make_node("Sub", ["x", "mx"], ["d"]),
             helper.make_node("Exp", ["d"], ["e"]),
             helper.make_node("ReduceSum", ["e", "ax"], ["se"]),
             helper.make_node("Div", ["e", "se"], ["y1"]),
             helper.make_node("Pow", ["x", "two"], ["sq"]),
             helper.make_node("ReduceMean", ["sq"], ["ms"], axes=[-1]),
             helper.make_node("Add", ["ms", "eps"], ["mse"]),
             helper.make_node("Sqrt", ["mse"], ["rms"]),
             helper.make_node("Div", ["x", "rms"], ["xn"]),
             helper.make_node("Mul", ["gamma", "xn"], ["y2"]),
             helper.make_node("Pow", ["x", "three"], ["x3"]),
             helper.make_node("Mul", ["x3", "c"], ["cx3"]),
             helper.make_node("Add", ["x", "cx3"], ["inner"]),
             helper.make_node("Mul", ["inner", "k"], ["ki"]),
             helper.make_node("Tanh", ["ki"], ["th"]),
             helper.make_node("Add", ["th", "one"], ["th1"]),
             helper.make_node("Mul", ["half", "x"], ["hx"]),
             helper.make_node("Mul", ["hx", "th1"], ["y3"])]
    inits["ax"] = np.array([1], np.int64)
    before, after = optimize_and_compare(
        make_model(nodes, {"x": x}, ["y1", "y2", "y3"], inits), {"x": x})
    assert len(before) == len(nodes)
    assert sorted(after) == ["Gelu", "RMSNorm", "Softmax"]


def test_idioms_not_fused(rng):
    """A MatMul whose result is also an output keeps its Add; GELU with a
    wrong constant (0.6 instead of 0.5) and a LayerNorm whose centred value
    is also an output stay primitive; outputs still agree."""
    x = rng.standard_normal((4, 8)).astype(np.float32)
    inits = dict(SCALARS, w=rng.standard_normal((8, 8)).astype(np.float32),
                 b=rng.standard_normal(8).astype(np.float32),
                 bad=np.array(0.6, np.float32),
                 gamma=rng.uniform(0.5, 2, 8).astype(np.float32),
                 beta=rng.standard_normal(8).astype(np.float32))
    gelu = gelu_erf_nodes("x", "g")
    gelu[-1] = helper.make_node("Mul", ["g_m", "bad"], ["g"])
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"]),
             helper.make_node("Add", ["mm", "b"], ["y1"]),
             *gelu, *layernorm_nodes("x", "y2")]
    before, after = optimize_and_compare(
        make_model(nodes, {"x": x}, ["mm", "y1", "g", "y2", "y2_c"], inits), {"x": x})
    assert after.count("Add") == 4 and "Erf" in after and "LayerNorm" not in after
    assert len(after) == len(before)
