#!/usr/bin/env python3
"""Seeds and dictionaries for the npz and .mlir fuzzers (fuzz/npz_fuzzer.cpp,
fuzz/mlir_fuzzer.cpp), made at run time by scripts/run-fuzz.sh.

usage: make-seeds.py npz|mlir OUT_DIR [--dict FILE]

npz: small archives written by numpy (savez and savez_compressed; every dtype
Strata reads; 0-d, empty and multi-member arrays; fortran order and
big-endian members) and single .npy arrays.
mlir: every `// -----` chunk of the lit tests under test/Dialect, so that the
seeds cover every op, attribute and verifier error; the dictionary lists
the op names and attribute names they use.
"""
import argparse
import glob
import io
import os
import re

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
            with open(os.path.join(out, f"{rel}.{i}.mlir"), "w") as f:
                f.write(body)
            n += 1
    if dict_path:
        with open(dict_path, "w") as f:
            for t in sorted(tokens):
                f.write('"%s"\n' % t.replace("\\", "\\\\").replace('"', '\\"'))
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("kind", choices=["npz", "mlir"])
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
    else:
        n = mlir_seeds(args.out, args.dict)
    print(f"make-seeds: {n} {args.kind} seeds in {args.out}")


if __name__ == "__main__":
    main()
