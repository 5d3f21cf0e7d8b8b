"""Session.run's overhead over the runtime's C API for a tiny model (#16: at
most 20 us) of float32, int8 and bfloat16 (ml_dtypes arrays, read through a
uint16 view), and the process's memory over 1000 runs. Wall time, best of 5. Run against an installed
wheel: make python && scripts/python-venv.sh build/python-venv &&
build/python-venv/bin/python bench/python_session_overhead.py"""
import os
import time

import numpy as np
from onnx import TensorProto, helper

import strata


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def main(iterations=20000):
    for dtype in ("float32", "int8", "bfloat16"):
        measure(dtype, iterations)


def measure(dtype, iterations):
    """A tiny model (Relu, or Transpose for dtypes Relu lacks) of `dtype`."""
    proto = {"float32": TensorProto.FLOAT, "int8": TensorProto.INT8,
             "bfloat16": TensorProto.BFLOAT16}[dtype]
    node = (helper.make_node("Relu", ["x"], ["y"]) if dtype == "float32"
            else helper.make_node("Transpose", ["x"], ["y"], perm=[1, 0]))
    g = helper.make_graph([node], "tiny", [helper.make_tensor_value_info("x", proto, [1, 16])],
                          [helper.make_tensor_value_info("y", proto, [16, 1] if dtype != "float32"
                                                         else [1, 16])])
    session = strata.Session(strata.compile(strata.import_onnx(helper.make_model(g))), threads=1)
    if dtype == "bfloat16":
        import ml_dtypes
        x = np.ones((1, 16), ml_dtypes.bfloat16)
    else:
        x = np.ones((1, 16), dtype)
    feeds = {"x": x}
    for _ in range(1000):
        session.run(feeds)
    best_py = best_c = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(iterations):
            session.run(feeds)
        best_py = min(best_py, (time.perf_counter() - t) / iterations)
        best_c = min(best_c, session._s._time_c_api(feeds, iterations) / iterations)
    print(f"{dtype}: Session.run {best_py * 1e6:.2f} us, C API {best_c * 1e6:.2f} us, "
          f"overhead {(best_py - best_c) * 1e6:.2f} us per call (best of 5 x {iterations})")
    before = rss_kib()
    for _ in range(1000):
        session.run(feeds)
    print(f"{dtype}: RSS over 1000 runs: {before} KiB -> {rss_kib()} KiB")


if __name__ == "__main__":
    main()
