#!/usr/bin/env python3
"""Part of `make demo`: compares the compiled model's outputs with the
reference interpreter's and ONNX Runtime's, and times all three.

    demo-compare.py MODEL.onnx INPUT.npz COMPILED.npz INTERPRETER.npz \
        COMPILED_MS INTERPRETER_MS

Prints a table per output (max abs difference, cosine) and the latencies;
exits 1 when the compiled outputs are not within cosine >= 0.9999 and
allclose(rtol=1e-3, atol=1e-4) of both references (the tolerances of
test/models)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import use_venv  # noqa: E402

use_venv.reexec()

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return 1.0 if na == 0 and nb == 0 else float(a @ b / (na * nb))


def main():
    model, inp, compiled, interp, compiled_ms, interp_ms = sys.argv[1:7]
    with np.load(inp) as z:
        inputs = {k: z[k] for k in z.files}
    with np.load(compiled) as z:
        got = {k: z[k] for k in z.files}
    with np.load(interp) as z:
        ref = {k: z[k] for k in z.files}
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    want = dict(zip(names, sess.run(None, inputs)))
    times = []
    for _ in range(20):
        start = time.perf_counter()
        sess.run(None, inputs)
        times.append((time.perf_counter() - start) * 1e3)
    ort_ms = float(np.median(times))

    ok = True
    print(f"{'output':<12} {'shape':<14} {'vs interpreter':>28} {'vs ONNX Runtime':>28}")
    for n, w in want.items():
        g = got[n]
        row = []
        for other in (ref[n], w):
            diff = float(np.max(np.abs(g.astype(np.float64) - other))) if g.size else 0.0
            cos = cosine(g, other)
            row.append(f"max|d| {diff:.2e} cos {cos:.6f}")
            ok &= g.shape == other.shape and cos >= 0.9999 and \
                bool(np.allclose(g, other, rtol=1e-3, atol=1e-4))
        print(f"{n:<12} {str(list(g.shape)):<14} {row[0]:>28} {row[1]:>28}")
    print()
    print("median latency, 1 thread:")
    print(f"  strata compiled (strata run)     {float(compiled_ms):9.3f} ms")
    print(f"  ONNX Runtime {ort.__version__:<8} CPU      {ort_ms:9.3f} ms  (compiled / ORT = {float(compiled_ms) / ort_ms:.2f}x)")
    print(f"  strata reference interpreter     {float(interp_ms):9.3f} ms  (one run, incl. process start)")
    if not ok:
        print("demo: the compiled outputs differ from the references")
        return 1
    print("compiled outputs match the interpreter and ONNX Runtime "
          "(cosine >= 0.9999, allclose rtol 1e-3 atol 1e-4)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
