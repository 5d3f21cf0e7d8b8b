"""The Resize, Concat and unary runtime kernels (resize_2d_f32, concat_f32,
relu/sigmoid/tanh/exp/silu/gelu_f32; lib/Kernels/OpKernels*) and the
BatchNorm / bias folding into a transposed convolution, compiled from ONNX
models: `strata inspect --json` shows the kernel dispatch (so a silent
fallback to generated code fails), and `strata run` matches ONNX Runtime
(Resize: rtol 1e-5, atol 1e-6; nearest exactly) and the reference
interpreter (`strata run-ref`, same tolerances) on every ISA path this CPU
has at 1 thread and the best one at 2 threads. Unary ops and Concat compare
with float64 numpy."""
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

# These tests compile for the CPU themselves: run them once, not again in the
# STRATA_NUMERIC_BACKEND=compiled pass over test/numeric.
pytestmark = pytest.mark.skipif(os.environ.get("STRATA_NUMERIC_BACKEND") == "compiled",
                                reason="compiles for the CPU already")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "compiled"))
from cpu_isa_harness import ISAS, strata  # noqa: E402


def save(tmp_path, nodes, inputs, outputs, inits=(), opset=19):
    g = helper.make_graph(nodes, "m", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    return path


def compile_and_kernels(tmp_path, path):
    art = tmp_path / "m.strata"
    r = strata("compile", path, "--target", "cpu", "-o", art, "--report")
    assert r.returncode == 0, r.stderr
    r = strata("inspect", art, "--json")
    assert r.returncode == 0, r.stderr
    ds = json.loads(r.stdout)["variants"][0]["dispatches"]
    return art, [(d["kind"], d["symbol"]) for d in ds]


def run_everywhere(tmp_path, art, feeds, want, rtol, atol, exact=False):
    """Runs every ISA at 1 thread and the best at 2; returns the last outputs."""
    np.savez(tmp_path / "in.npz", **feeds)
    got = {}
    for isa, threads in [(i, 1) for i in ISAS] + [(ISAS[-1], 2)]:
        env = dict(os.environ, STRATA_CPU_ISA=isa)
        r = strata("run", art, "--input", tmp_path / "in.npz", "--output",
                   tmp_path / "out.npz", "--threads", threads, env=env)
        assert r.returncode == 0, r.stderr
        with np.load(tmp_path / "out.npz") as z:
            for name, w in want.items():
                msg = f"{name}: {isa}, {threads} threads"
                if exact:
                    np.testing.assert_array_equal(z[name], w, err_msg=msg)
                else:
                    np.testing.assert_allclose(z[name], w, rtol=rtol, atol=atol, err_msg=msg)
                got[name] = z[name]
    return got


def run_ref(tmp_path, path, feeds):
    np.savez(tmp_path / "ref_in.npz", **feeds)
    r = strata("compile", path, "-o", tmp_path / "top")
    assert r.returncode == 0, r.stderr
    mlir = next(p for p in (tmp_path / "top").iterdir() if p.suffix == ".mlir")
    r = strata("run-ref", mlir, "--input", tmp_path / "ref_in.npz", "--output",
               tmp_path / "ref_out.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "ref_out.npz") as z:
        return {k: z[k] for k in z.files}


#===----------------------------------------------------------------------===#
# Resize
#===----------------------------------------------------------------------===#

# (mode, coordinate mode, nearest mode, input shape, sizes or scales)
RESIZES = [
    ("nearest", "asymmetric", "floor", (1, 24, 20, 20), ("scales", (1, 1, 8, 8))),
    ("nearest", "half_pixel", "round_prefer_floor", (2, 3, 7, 9), ("sizes", (2, 3, 17, 5))),
    ("nearest", "half_pixel", "round_prefer_ceil", (1, 5, 9, 13), ("sizes", (1, 5, 4, 26))),
    ("nearest", "align_corners", "ceil", (1, 3, 6, 33), ("sizes", (1, 3, 17, 70))),
    ("nearest", "pytorch_half_pixel", "round_prefer_floor", (1, 2, 5, 8), ("sizes", (1, 2, 1, 16))),
    ("nearest", "half_pixel_symmetric", "floor", (1, 4, 4, 4), ("scales", (1, 1, 1.75, 2.5))),
    ("nearest", "asymmetric", "round_prefer_ceil", (3, 37, 11), ("sizes", (3, 74, 33))),
    ("linear", "half_pixel", "round_prefer_floor", (1, 3, 7, 9), ("sizes", (1, 3, 15, 20))),
    ("linear", "asymmetric", "round_prefer_floor", (2, 2, 10, 10), ("scales", (1, 1, 2, 3))),
    ("linear", "align_corners", "round_prefer_floor", (1, 3, 9, 13), ("sizes", (1, 3, 4, 5))),
    ("linear", "pytorch_half_pixel", "round_prefer_floor", (1, 2, 5, 8), ("sizes", (1, 2, 1, 17))),
    ("linear", "half_pixel_symmetric", "round_prefer_floor", (1, 4, 4, 4),
     ("scales", (1, 1, 1.75, 2.5))),
]


@pytest.mark.parametrize("mode,coord,nearest,shape,target", RESIZES,
                         ids=[f"{r[0]}-{r[1]}-{r[2]}-{'x'.join(map(str, r[3]))}" for r in RESIZES])
def test_resize_matches_onnxruntime_and_interpreter(tmp_path, mode, coord, nearest, shape, target):
    kind, values = target
    rank = len(shape)
    roi = numpy_helper.from_array(np.zeros(0, np.float32), "roi")
    if kind == "scales":
        tv = numpy_helper.from_array(np.array(values, np.float32), "scales")
        ins = ["x", "roi", "scales"]
    else:
        tv = numpy_helper.from_array(np.array(values, np.int64), "sizes")
        ins = ["x", "roi", "", "sizes"]
    node = helper.make_node("Resize", ins, ["y"], mode=mode,
                            coordinate_transformation_mode=coord, nearest_mode=nearest)
    x = np.random.default_rng(rank + len(coord)).standard_normal(shape).astype(np.float32)
    want = ort.InferenceSession(
        save(tmp_path, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
             [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, tv])
        .as_posix(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    path = save(tmp_path, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, want.shape)], [roi, tv])
    art, kinds = compile_and_kernels(tmp_path, path)
    assert kinds == [("kernel", "resize_2d_f32")], kinds
    exact = mode == "nearest"
    got = run_everywhere(tmp_path, art, {"x": x}, {"y": want}, 1e-5, 1e-6, exact=exact)["y"]
    ref = run_ref(tmp_path, path, {"x": x})["y"]
    if exact:
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_resize_forms_the_kernel_does_not_take_stay_generated(tmp_path):
    """Cubic, and a Resize of the channel dim, compile to generated code that
    still matches ONNX Runtime; the report names why."""
    shape = (1, 3, 6, 6)
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    roi = numpy_helper.from_array(np.zeros(0, np.float32), "roi")
    for mode, scales, why in [("cubic", (1, 1, 2, 2), "its mode is 'cubic'"),
                              ("nearest", (1, 2, 2, 2), "it resamples dim 1")]:
        tv = numpy_helper.from_array(np.array(scales, np.float32), "scales")
        node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode=mode)
        want = ort.InferenceSession(
            save(tmp_path, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [roi, tv])
            .as_posix(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        path = save(tmp_path, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, want.shape)], [roi, tv])
        r = strata("compile", path, "--target", "cpu", "-o", tmp_path / "m.strata", "--report")
        assert r.returncode == 0, r.stderr
        assert why in r.stdout + r.stderr, r.stdout + r.stderr
        art, kinds = compile_and_kernels(tmp_path, path)
        assert kinds[0][0] == "native", kinds
        run_everywhere(tmp_path, art, {"x": x}, {"y": want}, 1e-5, 1e-5)


#===----------------------------------------------------------------------===#
# Concat
#===----------------------------------------------------------------------===#

@pytest.mark.parametrize("shapes,axis", [
    ([(1, 24, 40, 40)] * 4, 1),
    ([(2, 3, 5), (2, 1, 5), (2, 4, 5)], -2),
    ([(3, 7), (5, 7)], 0),
    ([(2, 3, 1), (2, 3, 17)], 2),
], ids=["ppocr-head", "neg-axis", "axis0", "last-axis"])
def test_concat(tmp_path, shapes, axis):
    rng = np.random.default_rng(len(shapes))
    xs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    names = [f"x{i}" for i in range(len(xs))]
    # A first input used twice checks repeated bindings.
    ins = names + [names[0]]
    want = np.concatenate(xs + [xs[0]], axis=axis)
    node = helper.make_node("Concat", ins, ["y"], axis=axis)
    path = save(tmp_path, [node],
                [helper.make_tensor_value_info(n, TensorProto.FLOAT, x.shape) for n, x in zip(names, xs)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, want.shape)])
    art, kinds = compile_and_kernels(tmp_path, path)
    assert kinds == [("kernel", "concat_f32")], kinds
    run_everywhere(tmp_path, art, dict(zip(names, xs)), {"y": want}, 0, 0, exact=True)


def test_concat_of_nine_inputs_stays_generated(tmp_path):
    xs = [np.full((1, 2), i, np.float32) for i in range(9)]
    names = [f"x{i}" for i in range(9)]
    node = helper.make_node("Concat", names, ["y"], axis=0)
    path = save(tmp_path, [node],
                [helper.make_tensor_value_info(n, TensorProto.FLOAT, (1, 2)) for n in names],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, (9, 2))])
    art, kinds = compile_and_kernels(tmp_path, path)
    assert kinds == [("native", kinds[0][1])], kinds
    run_everywhere(tmp_path, art, dict(zip(names, xs)), {"y": np.concatenate(xs)}, 0, 0,
                   exact=True)


#===----------------------------------------------------------------------===#
# Unary
#===----------------------------------------------------------------------===#

def _erf(x):
    from math import erf
    return np.vectorize(erf)(x)


UNARY = [
    ("Relu", "relu_f32", lambda x: np.maximum(x, 0), 0, 0),
    ("Sigmoid", "sigmoid_f32", lambda x: 1 / (1 + np.exp(-x)), 1e-6, 1e-7),
    ("Tanh", "tanh_f32", np.tanh, 1e-6, 1e-7),
    ("Exp", "exp_f32", np.exp, 1e-6, 1e-30),
    ("Gelu", "gelu_f32", lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))), 1e-6, 3e-7),
]


@pytest.mark.parametrize("op,kernel,fn,rtol,atol", UNARY, ids=[u[0] for u in UNARY])
def test_unary(tmp_path, op, kernel, fn, rtol, atol):
    x = (np.random.default_rng(9).standard_normal((3, 5, 37)) * 4).astype(np.float32)
    x.flat[:6] = [0.0, -0.0, 1e-6, -1e-6, 20.0, -20.0]
    want = fn(x.astype(np.float64))
    node = helper.make_node(op, ["x"], ["y"])
    path = save(tmp_path, [node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)], opset=20)
    art, kinds = compile_and_kernels(tmp_path, path)
    assert kinds == [("kernel", kernel)], kinds
    run_everywhere(tmp_path, art, {"x": x}, {"y": want}, rtol, atol, exact=(op == "Relu"))


#===----------------------------------------------------------------------===#
# BatchNorm and a bias Add folded into a grouped ConvTranspose
#===----------------------------------------------------------------------===#

def test_deconv_bias_batchnorm_relu_sigmoid_run_in_the_deconv_kernel(tmp_path):
    """PP-OCR det's head: ConvTranspose -> Add(bias) -> BatchNorm -> Relu ->
    ConvTranspose -> Add(bias) -> Sigmoid becomes two deconv kernel dispatches
    (the BatchNorm and Adds folded into filter and bias, the activations in
    the epilogue)."""
    rng = np.random.default_rng(10)
    c, o = 4, 6
    x = rng.standard_normal((1, c, 9, 7)).astype(np.float32)
    w1 = rng.standard_normal((c, o // 2, 2, 2)).astype(np.float32)
    w2 = rng.standard_normal((o, 1, 2, 2)).astype(np.float32)
    b1 = rng.standard_normal((o, 1, 1)).astype(np.float32)
    b2 = rng.standard_normal((1, 1, 1)).astype(np.float32)
    gamma, beta = rng.random(o).astype(np.float32) + 0.5, rng.standard_normal(o).astype(np.float32)
    mean, var = rng.standard_normal(o).astype(np.float32), rng.random(o).astype(np.float32) + 0.5
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, "w1"), (w2, "w2"), (b1, "b1"), (b2, "b2"), (gamma, "g"), (beta, "be"),
              (mean, "mu"), (var, "var")]]
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w1"], ["d1"], kernel_shape=[2, 2],
                         strides=[2, 2], group=2),
        helper.make_node("Add", ["d1", "b1"], ["a1"]),
        helper.make_node("BatchNormalization", ["a1", "g", "be", "mu", "var"], ["bn"],
                         epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r"]),
        helper.make_node("ConvTranspose", ["r", "w2"], ["d2"], kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Add", ["d2", "b2"], ["a2"]),
        helper.make_node("Sigmoid", ["a2"], ["y"]),
    ]
    path = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 1, 36, 28))], inits)
    want = ort.InferenceSession(path.as_posix(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    art, kinds = compile_and_kernels(tmp_path, path)
    assert kinds == [("kernel", "deconv2d_gemm_f32")] * 2, kinds
    run_everywhere(tmp_path, art, {"x": x}, {"y": want}, 1e-5, 1e-6)


@pytest.mark.parametrize("group,stride,per_channel", [(1, 1, False), (2, 2, True)],
                         ids=["scalar", "grouped-strided-per-channel"])
def test_affine_folded_into_the_next_unpadded_conv(tmp_path, group, stride, per_channel):
    """x * s + t before a convolution without padding (PP-LCNet's learnable
    affine before a 1x1 conv) folds into its filter and bias: one conv kernel
    dispatch, matching ONNX Runtime; before a padded conv it stays."""
    rng = np.random.default_rng(11)
    c, o = 4, 6
    x = rng.standard_normal((1, c, 9, 7)).astype(np.float32)
    shape = (1, c, 1, 1) if per_channel else (1,)
    s = (rng.random(shape) + 0.5).astype(np.float32)
    t = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((o, c // group, 1, 1)).astype(np.float32)
    w3 = rng.standard_normal((o, o, 3, 3)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(s, "s"), (t, "t"), (w, "w"), (b, "b"), (w3, "w3")]]
    nodes = [
        helper.make_node("Mul", ["s", "x"], ["m"]),
        helper.make_node("Add", ["m", "t"], ["a"]),
        helper.make_node("Conv", ["a", "w", "b"], ["y1"], kernel_shape=[1, 1], group=group,
                         strides=[stride, stride]),
        helper.make_node("Relu", ["y1"], ["r"]),
        helper.make_node("Mul", ["r", "s2"], ["m2"]),
        helper.make_node("Add", ["m2", "t2"], ["a2"]),
        helper.make_node("Conv", ["a2", "w3"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    ]
    inits += [numpy_helper.from_array(np.array([1.5], np.float32), "s2"),
              numpy_helper.from_array(np.array([0.25], np.float32), "t2")]
    oh = (9 - 1) // stride + 1
    ow = (7 - 1) // stride + 1
    path = save(tmp_path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, o, oh, ow))], inits)
    want = ort.InferenceSession(path.as_posix(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    art, kinds = compile_and_kernels(tmp_path, path)
    # The first affine is gone; the second (before the padded conv) stays.
    assert [k for _, k in kinds].count("mul_bcast_f32") == 1, kinds
    assert [k for _, k in kinds].count("add_bcast_f32") == 1, kinds
    assert kinds[0][1].startswith("conv2d_"), kinds
    run_everywhere(tmp_path, art, {"x": x}, {"y": want}, 1e-4, 1e-4)
