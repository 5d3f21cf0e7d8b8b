#!/usr/bin/env python3
"""Seed corpus and dictionary for the ONNX importer fuzzer
(fuzz/onnx_import_fuzzer.cpp), made at run time by scripts/run-fuzz.sh.

usage: make-corpus.py OUT_DIR [--node-tests N] [--dict FILE]

OUT_DIR gets a handful of small valid models built with onnx.helper (one per
converter family, initializers in every storage form, external data naming
the fuzzer's data.bin) and N node-test models of the pinned onnx package
(those of test/onnx/conformance-subset.txt first, so the seeds import). The
dictionary lists op types, attribute names and strings the importer looks
for, in libFuzzer's format.
"""
import argparse
import hashlib
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def model(nodes, inputs, outputs, inits=(), opset=17):
    """inputs/outputs: (name, elem_type, shape) triples."""
    g = helper.make_graph(
        nodes, "seed",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 7


F = TensorProto.FLOAT
I64 = TensorProto.INT64


def seeds():
    yield "conv_relu", model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])],
        [("x", F, [1, 2, 4, 4])], [("y", F, [1, 3, 4, 4])],
        [numpy_helper.from_array(f32(3, 2, 3, 3), "w"), numpy_helper.from_array(f32(3), "b")])
    yield "matmul_add", model(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
        [("x", F, [2, 3])], [("y", F, [2, 4])],
        [helper.make_tensor("w", F, [3, 4], f32(3, 4).ravel().tolist()),  # float_data
         numpy_helper.from_array(f32(4), "b")])
    yield "gather_reshape", model(
        [helper.make_node("Gather", ["x", "i"], ["g"], axis=1),
         helper.make_node("Reshape", ["g", "s"], ["y"])],
        [("x", F, [2, 5])], [("y", F, [6])],
        [helper.make_tensor("i", I64, [3], [0, 4, -1]),  # int64_data
         numpy_helper.from_array(np.array([6], np.int64), "s")])
    yield "transpose_concat", model(
        [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0, 2]),
         helper.make_node("Concat", ["t", "t"], ["y"], axis=2)],
        [("x", F, [2, 3, 4])], [("y", F, [3, 2, 8])])
    yield "constant_slice", model(
        [helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(f32(2, 6))),
         helper.make_node("Slice", ["k", "st", "en", "ax"], ["s"]),
         helper.make_node("Mul", ["x", "s"], ["y"])],
        [("x", F, [2, 3])], [("y", F, [2, 3])],
        [numpy_helper.from_array(np.array([1], np.int64), "st"),
         numpy_helper.from_array(np.array([4], np.int64), "en"),
         numpy_helper.from_array(np.array([1], np.int64), "ax")])
    yield "pool_softmax", model(
        [helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("Softmax", ["f"], ["y"], axis=-1)],
        [("x", F, [1, 1, 4, 4])], [("y", F, [1, 4])])
    yield "batchnorm", model(
        [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-5)],
        [("x", F, [1, 2, 3, 3])], [("y", F, [1, 2, 3, 3])],
        [numpy_helper.from_array(f32(2) + 1, n) for n in "sbmv"])
    yield "int_types", model(
        [helper.make_node("Cast", ["x"], ["c"], to=TensorProto.INT32),
         helper.make_node("Add", ["c", "k"], ["y"])],
        [("x", F, [4])], [("y", TensorProto.INT32, [4])],
        [helper.make_tensor("k", TensorProto.INT32, [4], [1, -2, 3, -4])])  # int32_data
    yield "reduce_where", model(
        [helper.make_node("ReduceMean", ["x"], ["r"], axes=[1], keepdims=1),
         helper.make_node("Greater", ["x", "r"], ["g"]),
         helper.make_node("Where", ["g", "x", "r"], ["y"])],
        [("x", F, [2, 3])], [("y", F, [2, 3])], opset=13)
    ext = helper.make_tensor("w", F, [4], np.zeros(4, np.float32).ravel().tolist())
    ext.ClearField("float_data")
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "data.bin"), ("offset", "16"), ("length", "16")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    yield "external_data", model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [("x", F, [4])], [("y", F, [4])], [ext])


def node_tests(n):
    """Up to n node-test models: the conformance subset first, then the rest,
    each in a fixed pseudo-random order (so every op family the subset covers
    is likely among them); small files only."""
    subset_file = os.path.join(ROOT, "test", "onnx", "conformance-subset.txt")
    first = []
    if os.path.exists(subset_file):
        first = [l.strip() for l in open(subset_file) if l.strip() and not l.startswith("#")]
    shuffled = lambda names: sorted(names, key=lambda t: hashlib.sha1(t.encode()).hexdigest())
    first, rest = shuffled(first), shuffled(os.listdir(NODE_DIR))
    picked, seen = [], set()
    for t in first + rest:
        path = os.path.join(NODE_DIR, t, "model.onnx")
        if t in seen or not os.path.exists(path) or os.path.getsize(path) > 8192:
            continue
        seen.add(t)
        picked.append((t, path))
        if len(picked) >= n:
            break
    return picked


def dictionary():
    words = set()
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in ("", "ai.onnx", "ai.onnx.preview", "ai.onnx.preview.training",
                        "ai.onnx.ml"):
            words.add(s.name)
            words.update(s.attributes.keys())
    words.update(["ai.onnx", "ai.onnx.preview", "ai.onnx.preview.training", "ai.onnx.ml",
                  "com.microsoft", "location", "offset", "length", "checksum",
                  "data.bin", "../data.bin", "/etc/passwd", "x", "y"])
    out = []
    for w in sorted(words):
        esc = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "\\x%02x" % ord(c) for c in w)
        out.append(f'"{esc}"')
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--node-tests", type=int, default=200)
    ap.add_argument("--dict")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    count = 0
    for name, m in seeds():
        with open(os.path.join(a.out, f"seed_{name}.onnx"), "wb") as f:
            f.write(m.SerializeToString())
        count += 1
    for t, path in node_tests(a.node_tests):
        shutil.copyfile(path, os.path.join(a.out, f"node_{t}.onnx"))
        count += 1
    if a.dict:
        with open(a.dict, "w") as f:
            f.write(dictionary())
    print(f"make-corpus: {count} seeds in {a.out}")


if __name__ == "__main__":
    main()
