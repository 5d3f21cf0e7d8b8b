#!/usr/bin/env python3
"""Seeds and dictionaries for the npz, .mlir and TFLite fuzzers
(fuzz/npz_fuzzer.cpp, fuzz/mlir_fuzzer.cpp, fuzz/tflite_import_fuzzer.cpp),
made at run time by scripts/run-fuzz.sh.

usage: make-seeds.py npz|mlir|tflite OUT_DIR [--dict FILE]

tflite: small models built with test/tflite/tflite_builder.py (float and
int8 convolutions, a fully connected layer, data movement, quantization).

npz: small archives written by numpy (savez and savez_compressed; every dtype
Strata reads; 0-d, empty and multi-member arrays; fortran order and
big-endian members) and single .npy arrays.
mlir: every `// -----` chunk of the lit tests under test/Dialect, so that the
seeds cover every op, attribute and verifier error; the dictionary lists
the op names and attribute names they use. The first 24 chunks that
mlir-opt reads are also written as MLIR bytecode (MLIR_OPT, default
/usr/lib/llvm-22/bin/mlir-opt, Strata's ops as unregistered ones), so that
mutations reach the bytecode reader, which Strata runs in a child process.
"""
import argparse
import glob
import io
import os
import re
import subprocess

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def npz_seeds(out):
    rng = np.random.default_rng(0)
    arrays = {
        "f32": rng.standard_normal((2, 3)).astype(np.float32),
        "f64": np.arange(5, dtype=np.float64),
        "f16": np.ones((4,), np.float16),
        "i8": np.arange(-3, 3, dtype=np.int8),
        "u8": np.arange(6, dtype=np.uint8).reshape(2, 3),
        "i16": np.arange(4, dtype=np.int16),
        "i32": np.arange(4, dtype=np.int32).reshape(1, 2, 2),
        "i64": np.arange(3, dtype=np.int64),
        "u16": np.arange(3, dtype=np.uint16),
        "u32": np.arange(3, dtype=np.uint32),
        "u64": np.arange(3, dtype=np.uint64),
        "bool": np.array([True, False]),
        "scalar": np.float32(1.5).reshape(()),
        "empty": np.zeros((0, 4), np.float32),
    }
    n = 0
    for name, a in arrays.items():
        np.savez(os.path.join(out, f"{name}.npz"), **{name: a})
        buf = io.BytesIO()
        np.save(buf, a)
        with open(os.path.join(out, f"{name}.npy"), "wb") as f:
            f.write(buf.getvalue())
        n += 2
    np.savez(os.path.join(out, "many.npz"), **arrays)
    np.savez_compressed(os.path.join(out, "compressed.npz"), **arrays)
    np.savez(os.path.join(out, "fortran.npz"),
             a=np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    np.savez(os.path.join(out, "bigendian.npz"), a=np.arange(4, dtype=">i4"))
    return n + 4


def mlir_seeds(out, dict_path):
    n = 0
    bytecode = 0
    mlir_opt = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
    tokens = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "test", "Dialect", "**", "*.mlir"),
                                 recursive=True)):
        with open(path) as f:
            text = f.read()
        tokens.update(re.findall(r"\btop\.\w+", text))
        tokens.update(a + " = " for a in re.findall(r"\b([a-z_]+) = ", text))
        for i, chunk in enumerate(text.split("// -----")):
            body = "\n".join(line for line in chunk.splitlines()
                             if not line.lstrip().startswith("//"))
            if not body.strip():
                continue
            rel = os.path.relpath(path, ROOT).replace(os.sep, "_")
            seed = os.path.join(out, f"{rel}.{i}.mlir")
            with open(seed, "w") as f:
                f.write(body)
            n += 1
            if bytecode < 24 and os.path.exists(mlir_opt):
                r = subprocess.run([mlir_opt, "--allow-unregistered-dialect", seed,
                                    "--emit-bytecode", "-o", seed + "bc"],
                                   capture_output=True)
                if r.returncode == 0:
                    bytecode += 1
                    n += 1
                elif os.path.exists(seed + "bc"):
                    os.remove(seed + "bc")
    if dict_path:
        with open(dict_path, "w") as f:
            for t in sorted(tokens):
                f.write('"%s"\n' % t.replace("\\", "\\\\").replace('"', '\\"'))
    return n


def tflite_seeds(out, dict_path):
    """Small .tflite models built with test/tflite/tflite_builder.py (flatc's
    Python code from the in-tree schema): float and int8 convolutions, a
    fully connected layer, data movement, quantize/dequantize."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "test", "tflite"))
    from tflite_builder import ModelBuilder, enum
    P = enum("Padding")
    A = enum("ActivationFunctionType")
    rng = np.random.default_rng(0)
    models = {}

    b = ModelBuilder()
    x = b.input("x", [1, 5, 5, 2])
    w = b.const("w", rng.standard_normal((3, 3, 3, 2)).astype(np.float32))
    bias = b.const("b", np.zeros(3, np.float32))
    y = b.tensor("y", [1, 3, 3, 3])
    b.op("CONV_2D", [x, w, bias], [y], "Conv2DOptions", padding=P.SAME, strideH=2,
         strideW=2, dilationHFactor=1, dilationWFactor=1, fusedActivationFunction=A.RELU6)
    p = b.tensor("p", [1, 2, 2, 3])
    b.op("MAX_POOL_2D", [y], [p], "Pool2DOptions", padding=P.SAME, strideH=2, strideW=2,
         filterHeight=2, filterWidth=2)
    models["conv_float"] = b.finish([p])

    b = ModelBuilder()
    x = b.input("x", [1, 4, 4, 2], np.int8, quant=(0.05, -3))
    w = b.const("w", rng.integers(-127, 128, (4, 1, 1, 2)).astype(np.int8),
                quant=([0.01, 0.02, 0.03, 0.04], [0, 0, 0, 0], 0))
    bias = b.const("b", np.arange(4, dtype=np.int32))
    y = b.tensor("y", [1, 4, 4, 4], np.int8, quant=(0.1, 5))
    b.op("CONV_2D", [x, w, bias], [y], "Conv2DOptions", padding=P.VALID, strideH=1,
         strideW=1, dilationHFactor=1, dilationWFactor=1, fusedActivationFunction=A.RELU)
    r = b.tensor("r", [16, 4], np.int8, quant=(0.1, 5))
    b.op("RESHAPE", [y, b.const("s", np.array([16, 4], np.int32))], [r])
    fw = b.const("fw", rng.integers(-127, 128, (3, 4)).astype(np.int8), quant=(0.02, 0))
    f = b.tensor("f", [16, 3], np.int8, quant=(0.2, -1))
    b.op("FULLY_CONNECTED", [r, fw, -1], [f], "FullyConnectedOptions")
    d = b.tensor("d", [16, 3])
    b.op("DEQUANTIZE", [f], [d])
    models["int8"] = b.finish([d])

    b = ModelBuilder()
    a = b.input("a", [2, 3])
    c = b.tensor("c", [2, 6])
    b.op("CONCATENATION", [a, a], [c], "ConcatenationOptions", axis=1)
    s0, s1 = b.tensor("s0", [2, 3]), b.tensor("s1", [2, 3])
    b.op("SPLIT", [b.const("ax", np.array([1], np.int32)), c], [s0, s1], "SplitOptions",
         numSplits=2)
    t = b.tensor("t", [3, 2])
    b.op("TRANSPOSE", [s1, b.const("perm", np.array([1, 0], np.int32))], [t])
    m = b.tensor("m", [3, 1])
    b.op("MEAN", [t, b.const("axes", np.array([1], np.int32))], [m], "ReducerOptions",
         keepDims=True)
    q = b.tensor("q", [3, 1], np.uint8, quant=(0.02, 128))
    b.op("QUANTIZE", [m], [q])
    models["shape"] = b.finish([s0, q])

    for name, data in models.items():
        with open(os.path.join(out, name + ".tflite"), "wb") as f:
            f.write(data)
    if dict_path:
        with open(dict_path, "w") as f:
            for t in ["TFL3", "\\x03\\x00\\x00\\x00", "\\xff\\xff\\xff\\xff"]:
                f.write(f'"{t}"\n')
    return len(models)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", choices=["npz", "mlir", "tflite"])
    p.add_argument("out")
    p.add_argument("--dict")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.kind == "npz":
        n = npz_seeds(args.out)
        if args.dict:
            with open(args.dict, "w") as f:
                for t in ["\\x93NUMPY", "PK\\x03\\x04", "PK\\x01\\x02", "PK\\x05\\x06",
                          "'descr': '<f4'", "'fortran_order': True", "'shape': (",
                          ".npy", "<i8", ">f4", "|b1", "|O", "<U"]:
                    f.write(f'"{t}"\n')
    elif args.kind == "tflite":
        n = tflite_seeds(args.out, args.dict)
    else:
        n = mlir_seeds(args.out, args.dict)
    print(f"make-seeds: {n} {args.kind} seeds in {args.out}")


if __name__ == "__main__":
    main()
