#!/usr/bin/env python3
"""Builds the CPU benchmark models with onnx.helper and seeded random weights
(nothing is downloaded): ResNet-50 v1.5, MobileNetV2 and a 4-layer BERT-style
encoder (sequence 128), all batch 1, opset 17, with the topology PyTorch's
exporter produces (BatchNorm folded into the convolutions, as
`torch.onnx.export` does in eval mode).

    scripts/build-bench-models.py OUTDIR [--models resnet50,mobilenetv2,bert4]
                                  [--seed 0]

writes OUTDIR/resnet50.onnx, OUTDIR/mobilenetv2.onnx, OUTDIR/bert4.onnx
(and, when asked for, resnet50_nhwc.onnx and mobilenetv2_nhwc.onnx).

- resnet50: input "input" f32 [1, 3, 224, 224] -> "logits" [1, 1000].
  7x7/2 stem, 3x3/2 max pool, bottleneck stages [3, 4, 6, 3] (widths 64..512,
  expansion 4) with the stride on the 3x3 conv (v1.5) and 1x1 projection
  shortcuts, global average pool, Flatten, Gemm.
- mobilenetv2: input "input" f32 [1, 3, 224, 224] -> "logits" [1, 1000].
  Inverted residual blocks (expand 1x1, depthwise 3x3, project 1x1), ReLU6
  as Clip(0, 6) with constant min/max inputs, the standard (t, c, n, s)
  table, 1x1 conv to 1280, global average pool, Flatten, Gemm.
- bert4: inputs "input_ids" i64 [1, 128], "attention_mask" i64 [1, 128] ->
  "last_hidden_state" f32 [1, 128, 768], "pooler_output" f32 [1, 768].
  BERT-base sizes (hidden 768, 12 heads, FFN 3072, vocabulary 30522) with 4
  layers: word + position + token-type embeddings (Gather) and
  LayerNormalization; per layer Q/K/V MatMul+Add, Reshape/Transpose to
  heads, MatMul, Div by sqrt(64), additive mask, Softmax, MatMul, Transpose/
  Reshape back, output MatMul+Add, residual, LayerNormalization, FFN with
  exact GELU as Div/Erf/Add/Mul/Mul; pooler Gather(token 0) + Gemm + Tanh.

- resnet50_nhwc, mobilenetv2_nhwc: the same networks as tf2onnx writes a
  TensorFlow / Keras model: input "input" f32 [1, 224, 224, 3] (NHWC), a
  Transpose to NCHW before every Conv and MaxPool and one back to NHWC after
  it, elementwise ops (Relu, Clip, Add) in NHWC, and the global average pool
  as ReduceMean over axes [1, 2] (keepdims 0) before the Gemm.

Weights are He-scaled normals (residual branch outputs scaled down so
activations stay in range), so the models are numerically sane for
comparisons.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import use_venv  # noqa: E402  (runs this script with .venv's python)

use_venv.reexec()

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class Graph:
    """Collects nodes and initializers with unique names."""

    def __init__(self, rng, nhwc=False):
        self.rng = rng
        self.nhwc = nhwc  # activations NHWC, NCHW ops between Transposes
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, array, hint="const"):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def node(self, op, inputs, hint=None, outputs=1, **attrs):
        outs = [self.name(hint or op.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=self.name(op), **attrs))
        return outs[0] if outputs == 1 else outs

    def normal(self, shape, std):
        return (self.rng.standard_normal(shape) * std).astype(np.float32)

    def model(self, inputs, outputs, name):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="strata build-bench-models.py")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


#===----------------------------------------------------------------------===#
# CNNs
#===----------------------------------------------------------------------===#

def nchw_op(g, op, inputs, hint=None, **attrs):
    """An NCHW op; in an NHWC graph between Transposes, as tf2onnx writes it."""
    if not g.nhwc:
        return g.node(op, inputs, hint, **attrs)
    x = g.node("Transpose", [inputs[0]], perm=[0, 3, 1, 2])
    y = g.node(op, [x] + list(inputs[1:]), hint, **attrs)
    return g.node("Transpose", [y], perm=[0, 2, 3, 1])


def conv(g, x, cin, cout, k, stride=1, group=1, scale=1.0):
    """Conv with bias (BatchNorm folded), He-initialized."""
    fan_in = cin // group * k * k
    w = g.const(g.normal((cout, cin // group, k, k), scale * np.sqrt(2.0 / fan_in)), "weight")
    b = g.const(g.normal((cout,), 0.05), "bias")
    pad = k // 2
    return nchw_op(g, "Conv", [x, w, b], "conv", kernel_shape=[k, k], strides=[stride, stride],
                   pads=[pad] * 4, group=group, dilations=[1, 1])


def classifier_head(g, x, channels):
    if g.nhwc:
        flat = g.node("ReduceMean", [x], axes=[1, 2], keepdims=0)
    else:
        flat = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    w = g.const(g.normal((1000, channels), np.sqrt(1.0 / channels)), "fc_weight")
    b = g.const(g.normal((1000,), 0.01), "fc_bias")
    g.nodes.append(helper.make_node("Gemm", [flat, w, b], ["logits"], name="fc",
                                    alpha=1.0, beta=1.0, transB=1))


def image_input(g, size=224):
    shape = [1, size, size, 3] if g.nhwc else [1, 3, size, size]
    return [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)]


def logits_output():
    return [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])]


def build_resnet50(rng, nhwc=False):
    g = Graph(rng, nhwc)
    x = g.node("Relu", [conv(g, "input", 3, 64, 7, stride=2)])
    x = nchw_op(g, "MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            s = stride if i == 0 else 1
            cout = width * 4
            y = g.node("Relu", [conv(g, x, cin, width, 1)])
            y = g.node("Relu", [conv(g, y, width, width, 3, stride=s)])
            y = conv(g, y, width, cout, 1, scale=0.2)
            shortcut = conv(g, x, cin, cout, 1, stride=s) if (s != 1 or cin != cout) else x
            x = g.node("Relu", [g.node("Add", [y, shortcut])])
            cin = cout
    classifier_head(g, x, cin)
    return g.model(image_input(g), logits_output(), "resnet50" + "_nhwc" * nhwc)


def build_mobilenetv2(rng, nhwc=False, size=224):
    """`size` (a multiple of 32) shrinks the input for quick tests."""
    g = Graph(rng, nhwc)
    zero = g.const(np.array(0.0, np.float32), "clip_min")
    six = g.const(np.array(6.0, np.float32), "clip_max")

    def relu6(v):
        return g.node("Clip", [v, zero, six], "relu6")

    x = relu6(conv(g, "input", 3, 32, 3, stride=2))
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x
            if t != 1:
                y = relu6(conv(g, y, cin, hidden, 1))
            y = relu6(conv(g, y, hidden, hidden, 3, stride=stride, group=hidden))
            y = conv(g, y, hidden, c, 1, scale=0.5)
            x = g.node("Add", [x, y]) if stride == 1 and cin == c else y
            cin = c
    x = relu6(conv(g, x, cin, 1280, 1))
    classifier_head(g, x, 1280)
    return g.model(image_input(g, size), logits_output(), "mobilenetv2" + "_nhwc" * nhwc)


#===----------------------------------------------------------------------===#
# BERT-style encoder
#===----------------------------------------------------------------------===#

SEQ, HIDDEN, HEADS, FFN, VOCAB, LAYERS = 128, 768, 12, 3072, 30522, 4
HEAD = HIDDEN // HEADS


def dense(g, x, n_in, n_out, scale=1.0):
    w = g.const(g.normal((n_in, n_out), scale * np.sqrt(1.0 / n_in)), "dense_weight")
    b = g.const(g.normal((n_out,), 0.02), "dense_bias")
    return g.node("Add", [g.node("MatMul", [x, w]), b])


def layer_norm(g, x):
    scale = g.const((1.0 + g.normal((HIDDEN,), 0.05)).astype(np.float32), "ln_weight")
    bias = g.const(g.normal((HIDDEN,), 0.02), "ln_bias")
    return g.node("LayerNormalization", [x, scale, bias], "ln", axis=-1, epsilon=1e-12)


def gelu(g, x):
    """Exact GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt(2)))."""
    e = g.node("Erf", [g.node("Div", [x, g.const(np.array(np.sqrt(2.0), np.float32))])])
    one = g.node("Add", [e, g.const(np.array(1.0, np.float32))])
    return g.node("Mul", [g.node("Mul", [x, one]), g.const(np.array(0.5, np.float32))])


def attention(g, x, mask_bias):
    heads_shape = g.const(np.array([1, SEQ, HEADS, HEAD], np.int64), "shape")

    def split_heads(v, perm):
        return g.node("Transpose", [g.node("Reshape", [v, heads_shape])], perm=perm)

    q = split_heads(dense(g, x, HIDDEN, HIDDEN), [0, 2, 1, 3])
    k = split_heads(dense(g, x, HIDDEN, HIDDEN), [0, 2, 3, 1])
    v = split_heads(dense(g, x, HIDDEN, HIDDEN), [0, 2, 1, 3])
    scores = g.node("Div", [g.node("MatMul", [q, k]),
                            g.const(np.array(np.sqrt(HEAD), np.float32))])
    probs = g.node("Softmax", [g.node("Add", [scores, mask_bias])], axis=-1)
    ctx = g.node("Transpose", [g.node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    ctx = g.node("Reshape", [ctx, g.const(np.array([1, SEQ, HIDDEN], np.int64), "shape")])
    return dense(g, ctx, HIDDEN, HIDDEN, scale=0.5)


def build_bert4(rng):
    g = Graph(rng)
    words = g.node("Gather", [g.const(g.normal((VOCAB, HIDDEN), 0.5), "word_embeddings"),
                              "input_ids"], axis=0)
    positions = g.node("Gather", [g.const(g.normal((512, HIDDEN), 0.5), "position_embeddings"),
                                  g.const(np.arange(SEQ, dtype=np.int64)[None], "position_ids")],
                       axis=0)
    types = g.node("Gather", [g.const(g.normal((2, HIDDEN), 0.5), "token_type_embeddings"),
                              g.const(np.zeros((1, SEQ), np.int64), "token_type_ids")], axis=0)
    x = layer_norm(g, g.node("Add", [g.node("Add", [words, positions]), types]))

    # Extended attention mask: (1 - mask[:, None, None, :]) * float32 min.
    m = g.node("Unsqueeze", ["attention_mask", g.const(np.array([1, 2], np.int64), "axes")])
    m = g.node("Cast", [m], to=TensorProto.FLOAT)
    m = g.node("Sub", [g.const(np.array(1.0, np.float32)), m])
    mask_bias = g.node("Mul", [m, g.const(np.array(np.finfo(np.float32).min, np.float32))])

    for _ in range(LAYERS):
        x = layer_norm(g, g.node("Add", [attention(g, x, mask_bias), x]))
        h = gelu(g, dense(g, x, HIDDEN, FFN))
        x = layer_norm(g, g.node("Add", [dense(g, h, FFN, HIDDEN, scale=0.5), x]))
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    first = g.node("Gather", [x, g.const(np.array(0, np.int64), "index")], axis=1)
    w = g.const(g.normal((HIDDEN, HIDDEN), np.sqrt(1.0 / HIDDEN)), "pooler_weight")
    b = g.const(g.normal((HIDDEN,), 0.02), "pooler_bias")
    pooled = g.node("Gemm", [first, w, b], transB=1)
    g.nodes.append(helper.make_node("Tanh", [pooled], ["pooler_output"], name="pooler"))

    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, [1, SEQ])
              for n in ("input_ids", "attention_mask")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                             [1, SEQ, HIDDEN]),
               helper.make_tensor_value_info("pooler_output", TensorProto.FLOAT, [1, HIDDEN])]
    return g.model(inputs, outputs, "bert4")


BUILDERS = {"resnet50": build_resnet50, "mobilenetv2": build_mobilenetv2,
            "bert4": build_bert4}
EXTRA_BUILDERS = {"resnet50_nhwc": lambda rng: build_resnet50(rng, nhwc=True),
                  "mobilenetv2_nhwc": lambda rng: build_mobilenetv2(rng, nhwc=True)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(BUILDERS),
                    help="comma-separated subset of " + ", ".join(BUILDERS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.models.split(","):
        builder = BUILDERS.get(name) or EXTRA_BUILDERS.get(name)
        if builder is None:
            known = ", ".join(list(BUILDERS) + list(EXTRA_BUILDERS))
            ap.error(f"unknown model '{name}' (known: {known})")
        model = builder(np.random.default_rng(args.seed))
        path = os.path.join(args.outdir, name + ".onnx")
        onnx.save(model, path)
        print(f"wrote {path} ({len(model.graph.node)} nodes)")


if __name__ == "__main__":
    main()
