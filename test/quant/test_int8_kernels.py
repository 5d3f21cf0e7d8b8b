"""The int8 CPU kernels (lib/Kernels/Int8Gemm.cpp, docs/cpu-kernels.md "int8"):
quantized models compiled with `strata compile --target cpu --quantize int8`
call the int8 kernel dispatches (matmul_gemm_i8, conv2d_1x1_gemm_i8,
conv2d_im2col_gemm_i8, conv2d_depthwise_i8, the Requant fused into the
epilogue) and give the reference interpreter's results exactly
(`strata run-ref` on the quantized model), on every ISA path
(STRATA_CPU_ISA=avx512 / avx2 / portable).

Models: one seeded ONNX layer (or two) per case, random shapes with
stride, dilation, padding, groups and depthwise, relu / relu6 / sigmoid
after, fused sigmoid / SiLU / HardSigmoid as int8 tables (table_i8);
calibrated on seeded random samples (min/max), evaluated on others. The
calibration's `<name>_preact` rows against numpy.
A QDQ model from ONNX Runtime's quantize_static (uint8 activations) and the
PP-OCR direction classifier (when rapidocr is installed) too."""
import os
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_quantize import ROOT, ok, strata  # noqa: E402

STRATA = os.path.join(os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin")),
                      "strata")
ISAS = ("avx512", "avx2", "portable")


def conv_node(name, inp, out, w, b, **attrs):
    inits = [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
    return helper.make_node("Conv", [inp, name + "_w", name + "_b"], [out], **attrs), inits


def narrow(w, b, spread):
    """With `spread` ([f]), output channels other than every third get
    weights and bias / f: channels whose ranges differ f-fold."""
    if spread:
        keep = np.arange(w.shape[0]) % 3 == 0
        w[~keep] /= spread[0]
        b[~keep] /= spread[0]


def build(path, in_shape, layers, rng):
    """A chain of layers: ("conv", O, k, stride, pad, dilation, group[, f])
    or ("gemm", N[, f]) after a Flatten (f: channel ranges differing
    f-fold), or ("relu",) / ("relu6",) / ("sigmoid",) / ("silu",) (Sigmoid
    and Mul) / ("hardsigmoid",) / ("hardswish",), or ("add", j): the current
    value plus layer j's output (-1: the input x), or ("maxpool", k, stride,
    pad, ceil_mode), or ("affine", a, b): a scalar Mul then Add."""
    nodes, inits = [], []
    cur, shape = "x", list(in_shape)
    for i, layer in enumerate(layers):
        out = f"t{i}"
        kind = layer[0]
        if kind == "conv":
            _, o, k, s, p, d, g, *spread = layer
            c = shape[1]
            w = (rng.standard_normal((o, c // g, k, k)) * (1.5 / np.sqrt(c // g * k * k))
                 ).astype(np.float32)
            b = (rng.standard_normal(o) * 0.2).astype(np.float32)
            narrow(w, b, spread)
            node, extra = conv_node(f"c{i}", cur, out, w, b, kernel_shape=[k, k],
                                    strides=[s, s], pads=[p] * 4, dilations=[d, d], group=g)
            nodes.append(node)
            inits += extra
            span = d * (k - 1) + 1
            shape = [shape[0], o, (shape[2] + 2 * p - span) // s + 1,
                     (shape[3] + 2 * p - span) // s + 1]
        elif kind == "gemm":
            n, *spread = layer[1:]
            if len(shape) > 2:
                nodes.append(helper.make_node("Flatten", [cur], [f"f{i}"]))
                cur = f"f{i}"
                shape = [shape[0], int(np.prod(shape[1:]))]
            w = (rng.standard_normal((n, shape[1])) / np.sqrt(shape[1])).astype(np.float32)
            b = (rng.standard_normal(n) * 0.2).astype(np.float32)
            narrow(w, b, spread)
            inits += [numpy_helper.from_array(w, f"g{i}_w"), numpy_helper.from_array(b, f"g{i}_b")]
            nodes.append(helper.make_node("Gemm", [cur, f"g{i}_w", f"g{i}_b"], [out], transB=1))
            shape = [shape[0], n]
        elif kind == "relu":
            nodes.append(helper.make_node("Relu", [cur], [out]))
        elif kind == "relu6":
            nodes.append(helper.make_node("Clip", [cur, "lo", "hi"], [out]))
            if not any(t.name == "lo" for t in inits):
                inits += [numpy_helper.from_array(np.array(0, np.float32), "lo"),
                          numpy_helper.from_array(np.array(6, np.float32), "hi")]
        elif kind == "sigmoid":
            nodes.append(helper.make_node("Sigmoid", [cur], [out]))
        elif kind == "silu":
            nodes.append(helper.make_node("Sigmoid", [cur], [f"s{i}"]))
            nodes.append(helper.make_node("Mul", [cur, f"s{i}"], [out]))
        elif kind == "hardsigmoid":
            nodes.append(helper.make_node("HardSigmoid", [cur], [out], alpha=0.2, beta=0.5))
        elif kind == "hardswish":
            nodes.append(helper.make_node("HardSwish", [cur], [out]))
        elif kind == "add":
            other = "x" if layer[1] < 0 else f"t{layer[1]}"
            nodes.append(helper.make_node("Add", [cur, other], [out]))
        elif kind == "maxpool":
            _, k, s, p, ceil = layer
            nodes.append(helper.make_node("MaxPool", [cur], [out], kernel_shape=[k, k],
                                          strides=[s, s], pads=[p] * 4, ceil_mode=ceil))
            rnd = (lambda v: -(-v // s)) if ceil else (lambda v: v // s)
            shape = [shape[0], shape[1], rnd(shape[2] + 2 * p - k) + 1,
                     rnd(shape[3] + 2 * p - k) + 1]
        elif kind == "affine":  # ("affine", a, b): x * a + b, scalars
            _, a, b = layer
            inits += [numpy_helper.from_array(np.array([a], np.float32), f"a{i}"),
                      numpy_helper.from_array(np.array([b], np.float32), f"b{i}")]
            nodes.append(helper.make_node("Mul", [cur, f"a{i}"], [f"m{i}"]))
            nodes.append(helper.make_node("Add", [f"m{i}", f"b{i}"], [out]))
        cur = out
    graph = helper.make_graph(
        nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info(cur, TensorProto.FLOAT, shape)], inits)
    opset = 14 if any(layer[0] == "hardswish" for layer in layers) else 13
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]),
              str(path))


def samples(folder, shape, n, seed):
    folder.mkdir()
    rng = np.random.default_rng(seed)
    for i in range(n):
        np.savez(folder / f"s{i}.npz", x=(rng.standard_normal(shape) + 0.2).astype(np.float32))
    return sorted(folder.glob("*.npz"))


def run_artifact(art, inp, out, isa):
    env = dict(os.environ, STRATA_CPU_ISA=isa)
    r = subprocess.run([STRATA, "run", str(art), "--input", str(inp), "--output", str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return np.load(out)


def check_against_ref(tmp_path, mlir, artifact, inp, rtol=0.0, atol=0.0,
                      isas=ISAS):
    """The artifact's outputs on `inp`, on each ISA, against `strata run-ref`
    on the quantized model `mlir` (exactly when rtol = atol = 0)."""
    ok(strata("run-ref", mlir, "--input", inp, "--output", tmp_path / "ref.npz"))
    want = np.load(tmp_path / "ref.npz")
    for isa in isas:
        got = run_artifact(artifact, inp, tmp_path / "cpu.npz", isa)
        for name in want.files:
            np.testing.assert_allclose(got[name], want[name].astype(np.float64), rtol=rtol,
                                       atol=atol, err_msg=f"{isa} {name} {inp}")


def check_exact(tmp_path, model, in_shape, want_kernels, atol=0.0, quant_options=(),
                per_tensor_tables=False):
    """Calibrates, quantizes (with `quant_options`) and compiles `model`;
    the artifact's outputs on every ISA equal the interpreter's on the
    quantized model (within `atol` when a float op follows the last integer
    one: codegen's and the interpreter's float functions may differ in the
    last bit). With `per_tensor_tables`, the table's `@range` rows are
    dropped (a table from before they existed)."""
    extra = ()
    cal = samples(tmp_path / "cal", in_shape, 3, seed=1)
    evals = samples(tmp_path / "eval", in_shape, 2, seed=2)
    table = tmp_path / "table.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", table,
              *extra))
    if per_tensor_tables:
        lines = open(table).read().splitlines(True)
        assert any(line.startswith("@range ") for line in lines)
        open(table, "w").write("".join(x for x in lines if not x.startswith("@range ")))
    q = ["--quantize", "int8", "--calibration", table, *quant_options]
    ok(strata("quantize", model, *q, "-o", tmp_path / "q", "--name", "m", *extra))
    r = ok(strata("compile", model, "--target", "cpu", *q, "-o", tmp_path / "m.strata",
                  "--report", *extra))
    for k in want_kernels:
        assert f"kernel '{k}'" in r.stdout, r.stdout
    for inp in evals + cal[:1]:
        check_against_ref(tmp_path, tmp_path / "q" / "m.mlir", tmp_path / "m.strata", inp,
                          atol=atol)


CASES = {
    # name: (input shape, layers, kernels the compiled model must call[,
    # atol])
    "conv3x3_relu": ([1, 5, 9, 11], [("conv", 13, 3, 1, 1, 1, 1), ("relu",)],
                     ["conv2d_im2col_gemm_i8"]),
    # Tap-major filters read in place on AVX-512 VNNI (C a multiple of 4,
    # output rows of 14 or more, stride 1; strided above 16): 33 and 17
    # columns, strides 1 and 2.
    "conv3x3_in_place": ([1, 8, 15, 33], [("conv", 12, 3, 1, 1, 1, 1), ("relu",),
                                          ("conv", 16, 3, 2, 1, 1, 1), ("relu",),
                                          ("conv", 16, 3, 1, 1, 1, 1)],
                         ["conv2d_im2col_gemm_i8"]),
    "conv_group_stride_dilation": ([1, 6, 17, 15], [("conv", 10, 3, 2, 2, 2, 2)],
                                   ["conv2d_im2col_gemm_i8"]),
    "conv7x7_stride2_wide": ([1, 3, 20, 70], [("conv", 16, 7, 2, 3, 1, 1), ("relu",)],
                             ["conv2d_im2col_gemm_i8"]),
    "pointwise_chain": ([2, 20, 7, 9], [("conv", 33, 1, 1, 0, 1, 1), ("relu",),
                                        ("conv", 19, 1, 1, 0, 1, 1)],
                        ["conv2d_1x1_gemm_i8"]),
    "depthwise_relu6": ([1, 8, 13, 40], [("conv", 8, 3, 2, 1, 1, 8), ("relu6",),
                                         ("conv", 12, 1, 1, 0, 1, 1)],
                        ["conv2d_depthwise_i8", "conv2d_1x1_gemm_i8"]),
    "depthwise_multiplier": ([1, 4, 11, 21], [("conv", 8, 5, 1, 2, 1, 4)],
                             ["conv2d_depthwise_i8"]),
    # A fused activation: the kernel requantizes to the pre-activation's
    # int8 range, then Dequant -> activation -> Quant, the table_i8 kernel
    # with the entries the interpreter computes (odd sizes: vector tails).
    "conv_sigmoid_table": ([1, 4, 6, 6], [("conv", 7, 3, 1, 1, 1, 1), ("sigmoid",)],
                           ["conv2d_im2col_gemm_i8", "table_i8"]),
    "conv_silu_table": ([1, 6, 13, 9], [("conv", 12, 3, 1, 1, 1, 1), ("silu",),
                                        ("conv", 8, 1, 1, 0, 1, 1), ("silu",)],
                        ["conv2d_im2col_gemm_i8", "conv2d_1x1_gemm_i8", "table_i8"]),
    "depthwise_hardsigmoid_table": ([1, 8, 11, 17], [("conv", 8, 3, 2, 1, 1, 8),
                                                     ("hardsigmoid",)],
                                    ["conv2d_depthwise_i8", "table_i8"]),
    # --per-channel-tables on layers whose channel ranges differ 10-fold:
    # the pre-activation per channel (the calibration's @range rows), the
    # table_channels_i8 kernel with the per-channel entries
    # the interpreter computes (planes under 64 bytes take the byte loop,
    # larger ones the vectors; rank-2 matmul: one element per plane).
    "conv_sigmoid_table_pc": ([1, 4, 6, 6], [("conv", 7, 3, 1, 1, 1, 1, 10), ("sigmoid",)],
                              ["conv2d_im2col_gemm_i8", "table_channels_i8"], 0.0,
                              ["--per-channel-tables"]),
    "conv_silu_table_pc": ([1, 6, 13, 9], [("conv", 12, 3, 1, 1, 1, 1, 10), ("silu",),
                                           ("conv", 8, 1, 1, 0, 1, 1, 10), ("silu",)],
                           ["conv2d_im2col_gemm_i8", "conv2d_1x1_gemm_i8",
                            "table_channels_i8"], 0.0, ["--per-channel-tables"]),
    "depthwise_hardsigmoid_table_pc": ([1, 8, 11, 17], [("conv", 8, 3, 2, 1, 1, 8, 10),
                                                        ("hardsigmoid",)],
                                       ["conv2d_depthwise_i8", "table_channels_i8"], 0.0,
                                       ["--per-channel-tables"]),
    "pointwise_hardswish_table_pc": ([2, 5, 23, 29], [("conv", 11, 1, 1, 0, 1, 1, 10),
                                                      ("hardswish",),
                                                      ("conv", 9, 3, 2, 1, 1, 1, 10),
                                                      ("hardswish",)],
                                     ["conv2d_1x1_gemm_i8", "conv2d_im2col_gemm_i8",
                                      "table_channels_i8"], 0.0, ["--per-channel-tables"]),
    # Channels within 3-fold of each other: per tensor (table_i8) even so.
    "conv_silu_table_even_pc": ([1, 6, 13, 9], [("conv", 12, 3, 1, 1, 1, 1), ("silu",)],
                                ["conv2d_im2col_gemm_i8", "table_i8"], 0.0,
                                ["--per-channel-tables"]),
    "gemm_sigmoid_table_pc": ([3, 40], [("gemm", 37, 10), ("sigmoid",), ("gemm", 19)],
                              ["matmul_gemm_i8", "table_channels_i8"], 0.0,
                              ["--per-channel-tables"]),
    # --float-activations: an int32 accumulator output (no Requant),
    # dequantized for the float sigmoid: 1e-6 covers the float sigmoid's
    # last bit; one accumulator step moves the output by ~1e-4.
    "conv_sigmoid_int32": ([1, 4, 6, 6], [("conv", 7, 3, 1, 1, 1, 1), ("sigmoid",)],
                           ["conv2d_im2col_gemm_i8"], 1e-6, ["--float-activations"]),
    "gemm": ([3, 40], [("gemm", 37), ("relu",), ("gemm", 19)], ["matmul_gemm_i8"]),
    # The int8 Add kernel (a ResNet block's residual Add + relu; an Add of
    # the quantized input without relu); odd element counts (vector tails).
    "residual_add_relu": ([1, 16, 9, 11], [("conv", 16, 3, 1, 1, 1, 1), ("relu",),
                                           ("conv", 16, 1, 1, 0, 1, 1), ("add", 1),
                                           ("relu",)],
                          ["conv2d_im2col_gemm_i8", "conv2d_1x1_gemm_i8", "add_requant_i8"]),
    "add_input": ([1, 5, 7, 9], [("conv", 5, 3, 1, 1, 1, 1), ("add", -1)],
                  ["conv2d_im2col_gemm_i8", "add_requant_i8"]),
    "conv_then_gemm": ([1, 3, 8, 8], [("conv", 6, 3, 2, 1, 1, 1), ("relu",), ("gemm", 21)],
                       ["conv2d_im2col_gemm_i8", "matmul_gemm_i8"]),
    # The int8 max pool kernel: ResNet's stem pool (3x3, stride 2, pad 1) on
    # odd sizes, a ceil-mode 2x2 one and a stride-3 one, each after a conv.
    "conv_maxpool": ([1, 3, 23, 37], [("conv", 9, 3, 1, 1, 1, 1), ("relu",),
                                      ("maxpool", 3, 2, 1, 0), ("conv", 7, 1, 1, 0, 1, 1),
                                      ("maxpool", 2, 2, 0, 1), ("conv", 5, 3, 1, 1, 1, 1),
                                      ("maxpool", 3, 3, 1, 0)],
                     ["conv2d_im2col_gemm_i8", "conv2d_1x1_gemm_i8", "maxpool2d_nchw_i8"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_int8_kernels_match_interpreter(tmp_path, name):
    in_shape, layers, kernels, *atol = CASES[name]
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(sorted(CASES).index(name)))
    check_exact(tmp_path, model, in_shape, kernels, *atol)


@pytest.mark.parametrize("name", ["conv_silu_table_pc", "pointwise_hardswish_table_pc"])
def test_per_channel_tables_from_old_table(tmp_path, name):
    """--per-channel-tables with a calibration table without @range rows
    (written before they existed): the per-tensor form (table_i8) with one
    warning naming the table, still bit-exact."""
    in_shape, layers, kernels, atol, options = CASES[name]
    model = tmp_path / "m.onnx"
    build(model, in_shape, layers, np.random.default_rng(sorted(CASES).index(name)))
    kernels = [k for k in kernels if k != "table_channels_i8"] + ["table_i8"]
    check_exact(tmp_path, model, in_shape, kernels, atol, options, per_tensor_tables=True)
    r = ok(strata("quantize", model, "--quantize", "int8", "--calibration",
                  tmp_path / "table.txt", "--per-channel-tables", "-o", tmp_path / "q2",
                  "--name", "m"))
    assert r.stderr.count("has no '@range' rows") == 1, r.stderr
    assert "table.txt" in r.stderr


def test_qdq_uint8_uses_int8_kernels(tmp_path):
    """ONNX Runtime's QDQ model (uint8 activations, per-channel int8
    weights): the uint8 input path of the kernels."""
    quantization = pytest.importorskip("onnxruntime.quantization")
    in_shape = [1, 4, 10, 10]
    build(tmp_path / "f.onnx", in_shape, [("conv", 8, 3, 1, 1, 1, 1), ("relu",),
                                          ("conv", 8, 3, 2, 1, 1, 8), ("relu",),
                                          ("conv", 6, 1, 1, 0, 1, 1)],
          np.random.default_rng(7))
    rng = np.random.default_rng(3)
    data = [{"x": (rng.standard_normal(in_shape) + 0.2).astype(np.float32)} for _ in range(3)]

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.it = iter(data)

        def get_next(self):
            return next(self.it, None)

    quantization.quantize_static(
        str(tmp_path / "f.onnx"), str(tmp_path / "qdq.onnx"), Reader(),
        quant_format=quantization.QuantFormat.QDQ, per_channel=True,
        activation_type=quantization.QuantType.QUInt8, weight_type=quantization.QuantType.QInt8)
    model = tmp_path / "qdq.onnx"
    ok(strata("quantize", model, "--quantize", "int8", "-o", tmp_path / "q", "--name", "m"))
    r = ok(strata("compile", model, "--target", "cpu", "-o", tmp_path / "m.strata", "--report"))
    for k in ("conv2d_im2col_gemm_i8", "conv2d_depthwise_i8", "conv2d_1x1_gemm_i8"):
        assert f"kernel '{k}'" in r.stdout, r.stdout
    for i, feed in enumerate(data):
        inp = tmp_path / f"in{i}.npz"
        np.savez(inp, **feed)
        check_against_ref(tmp_path, tmp_path / "q" / "m.mlir", tmp_path / "m.strata", inp)


CLS = os.path.join(sysconfig.get_paths()["purelib"], "rapidocr_onnxruntime", "models",
                   "ch_ppocr_mobile_v2.0_cls_infer.onnx")


@pytest.mark.skipif(not os.path.exists(CLS), reason="rapidocr_onnxruntime not installed")
def test_ppocr_cls_int8_compiled_exact(tmp_path):
    """A real network (depthwise, pointwise, hardswish, squeeze-excite):
    the compiled int8 classifier gives the interpreter's outputs bit for
    bit up to its final float softmax, which the f32 softmax kernel computes
    within an ulp or so of the interpreter (rtol 1e-6)."""
    sys.path.insert(0, os.path.join(ROOT, "test", "models"))
    from test_real_models import text_image
    rng = np.random.default_rng(0)
    for folder, n in (("cal", 2), ("eval", 1)):
        (tmp_path / folder).mkdir()
        for i in range(n):
            np.savez(tmp_path / folder / f"s{i}.npz", x=text_image(rng, 48, 192))
    shapes = ["--input-shapes", "x:1x3x48x192"]
    ok(strata("calibrate", CLS, *shapes, "--data", tmp_path / "cal", "--method", "minmax",
              "-o", tmp_path / "t.txt"))
    q = ["--quantize", "int8", "--calibration", tmp_path / "t.txt"]
    ok(strata("quantize", CLS, *shapes, *q, "-o", tmp_path / "q", "--name", "cls"))
    r = ok(strata("compile", CLS, *shapes, *q, "--target", "cpu", "-o", tmp_path / "cls.strata",
                  "--report"))
    assert "kernel 'conv2d_depthwise_i8'" in r.stdout and "kernel 'conv2d_1x1_gemm_i8'" in r.stdout
    check_against_ref(tmp_path, tmp_path / "q" / "cls.mlir", tmp_path / "cls.strata",
                      tmp_path / "eval" / "s0.npz", rtol=1e-6, isas=("avx512",))


def test_bf16_matmul_kernel(tmp_path):
    """`--quantize bf16` MatMul / Gemm (fused relu, relu6, sigmoid) run the
    bf16 kernel (`vdpbf16ps` on AVX512-BF16, else the portable path) and
    match the interpreter within one bf16 ulp of each output (the kernel
    sums K in pairs in f32, the interpreter in another order, before the
    same bf16 rounding; the sigmoid's polynomial is within 1e-7)."""
    in_shape = [5, 40]
    model = tmp_path / "m.onnx"
    build(model, in_shape, [("gemm", 37), ("relu",), ("gemm", 19), ("relu6",), ("gemm", 11),
                            ("sigmoid",), ("gemm", 7)], np.random.default_rng(11))
    ok(strata("quantize", model, "--quantize", "bf16", "-o", tmp_path / "q", "--name", "m"))
    r = ok(strata("compile", model, "--target", "cpu", "--quantize", "bf16", "-o",
                  tmp_path / "m.strata", "--report"))
    assert "kernel 'matmul_gemm_bf16': 4 dispatch" in r.stdout, r.stdout
    for inp in samples(tmp_path / "eval", in_shape, 2, seed=4):
        check_against_ref(tmp_path, tmp_path / "q" / "m.mlir", tmp_path / "m.strata", inp,
                          rtol=2.0 ** -7, atol=1e-6)


def test_calibrate_preact_rows(tmp_path):
    """`strata calibrate` writes a `<name>_preact` row for a Conv whose
    sigmoid the optimizer fused: the range of the convolution before the
    activation, against numpy's 1x1 convolution of the samples, and an
    `@range` row with each channel's range; the layer's own row is the
    sigmoid's range."""
    from test_quantize import read_table
    in_shape = [1, 5, 6, 7]
    model = tmp_path / "m.onnx"
    build(model, in_shape, [("conv", 4, 1, 1, 0, 1, 1), ("sigmoid",)],
          np.random.default_rng(5))
    cal = samples(tmp_path / "cal", in_shape, 3, seed=1)
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax",
              "-o", tmp_path / "t.txt"))
    rows = read_table(tmp_path / "t.txt")
    pre = [n for n in rows if n.endswith("_preact")]
    assert len(pre) == 1, rows
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(model)).graph.initializer}
    w, b = inits["c0_w"][:, :, 0, 0].astype(np.float64), inits["c0_b"].astype(np.float64)
    xs = np.concatenate([np.load(p)["x"] for p in cal]).astype(np.float64)
    conv = np.einsum("oc,nchw->nohw", w, xs) + b[None, :, None, None]
    t, lo, hi = rows[pre[0]]
    assert lo == pytest.approx(conv.min(), rel=1e-5)
    assert hi == pytest.approx(conv.max(), rel=1e-5)
    assert t == pytest.approx(np.abs(conv).max(), rel=1e-5)
    post = rows[pre[0][:-len("_preact")]]
    sig = 1 / (1 + np.exp(-conv))
    assert post[1] == pytest.approx(sig.min(), rel=1e-5)
    assert post[2] == pytest.approx(sig.max(), rel=1e-5)
    # The per-channel ranges (`@range name min0 max0 ...`, one pair per
    # output channel, dim 1).
    ranges = [line.split() for line in open(tmp_path / "t.txt") if line.startswith("@range ")]
    assert len(ranges) == 1 and ranges[0][1] == pre[0], ranges
    got = np.array([float(v) for v in ranges[0][2:]]).reshape(-1, 2)
    want = np.stack([conv.min(axis=(0, 2, 3)), conv.max(axis=(0, 2, 3))], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_per_channel_tables_resolve_narrow_channels(tmp_path):
    """A 1x1 conv + HardSwish whose output channels' ranges differ 60-fold:
    with the per-channel pre-activation (--per-channel-tables, the table's
    @range rows) the narrow channels' pre-activation (`z_preact`, the
    dequantized Requant, dumped by `strata run-ref --dump-all`) is several
    times closer to numpy's float conv than with the per-tensor one (the
    default), the wide channel's no worse. (Not 60x: each channel's range is
    also cut where the activation's output, on the output's per-tensor int8
    steps, does not move.)"""
    in_shape = [1, 4, 16, 16]
    rng = np.random.default_rng(11)
    w = rng.standard_normal((3, 4, 1, 1)).astype(np.float32) * 0.5
    w[0] *= 60  # channel 0 wide, channels 1 and 2 narrow
    b = np.zeros(3, np.float32)
    node, inits = conv_node("c0", "x", "y", w, b, kernel_shape=[1, 1])
    nodes = [node, helper.make_node("HardSwish", ["y"], ["z"])]
    graph = helper.make_graph(
        nodes, "m", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3, 16, 16])], inits)
    model = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), str(model))
    samples(tmp_path / "cal", in_shape, 4, seed=1)
    table = tmp_path / "t.txt"
    ok(strata("calibrate", model, "--data", tmp_path / "cal", "--method", "minmax", "-o", table))
    inp = tmp_path / "cal" / "s0.npz"  # inside the calibrated ranges: no clipping
    x = np.load(inp)["x"].astype(np.float64)
    want = np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.float64), x)
    errors = {}
    for label, extra in (("channel", ["--per-channel-tables"]), ("tensor", [])):
        ok(strata("quantize", model, "--quantize", "int8", "--calibration", table,
                  "-o", tmp_path / label, "--name", "m", *extra))
        ok(strata("run-ref", tmp_path / label / "m.mlir", "--input", inp,
                  "--output", tmp_path / "o.npz", "--dump-all"))
        got = np.load(tmp_path / "o.npz")["z_preact"].astype(np.float64)
        # Where the pre-activation is not cut (HardSwish is flat below -3).
        keep = want > -2.9
        errors[label] = np.array([np.abs(got - want)[:, c][keep[:, c]].max() for c in range(3)])
    ch, pt = errors["channel"], errors["tensor"]
    assert np.all(ch[1:] * 3 < pt[1:]), errors
    assert ch[0] <= pt[0], errors


def test_int16_table_input_matches_interpreter(tmp_path):
    """`--table-input int16`: each fused SiLU's accumulator is requantized
    to int16 and looked up in an interpolated 513-entry table (top.Table16,
    strata/Support/IntegerTable16.h). The compiled model runs the int8
    conv kernels (writing int32) and table16_i8 (requantizing to int16 and
    interpolating) and gives the interpreter's bytes exactly on every ISA."""
    in_shape = [1, 6, 13, 9]
    model = tmp_path / "m.onnx"
    build(model, in_shape, [("conv", 12, 3, 1, 1, 1, 1), ("silu",),
                            ("conv", 8, 1, 1, 0, 1, 1), ("silu",)],
          np.random.default_rng(1616))
    check_exact(tmp_path, model, in_shape,
                ["conv2d_im2col_gemm_i8", "conv2d_1x1_gemm_i8", "table16_i8"],
                quant_options=["--table-input", "int16"])
    text = (tmp_path / "q" / "m.mlir").read_text()
    assert text.count("!quant.uniform<i16:f32") >= 2, text
    assert text.count("top.Table16") == 2, text


def test_table_input_bad_value(tmp_path):
    """--table-input takes int8 or int16: another value is an error naming
    the option and the value, before anything is quantized."""
    model = tmp_path / "m.onnx"
    build(model, [1, 2, 5, 5], [("conv", 3, 3, 1, 1, 1, 1), ("silu",)],
          np.random.default_rng(1617))
    r = strata("compile", model, "--target", "cpu", "--quantize", "int8", "--calibration",
               tmp_path / "none.txt", "--table-input", "int12", "-o", tmp_path / "m.strata")
    assert r.returncode != 0
    assert "--table-input 'int12' must be int8 or int16" in r.stderr, r.stderr
