"""HL ops against the same computation as hand-built npuhw programs: each
case runs an HL op through the reference interpreter (`strata run-ref`, HL's
golden model) and a program written with docs/npu-sim.md's "HL op -> slice
task fields" table through `strata-npu package` + `strata run` (the npu-sim
device), on random shapes and attributes, and compares the bytes (bit-exact).
Covers the kernels whose semantics had to be aligned with HL: avg_pool
(rounded mean, then requantized), max_pool with dilation and windows of
padding only, reduce_mean (rounded mean, then requantized) and convert
(top.Quant's rounding in f64, an f64 scale that is not an f32 value)."""
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
NPU = os.path.join(BIN, "strata-npu")


def run(*args):
    return subprocess.run(list(map(str, args)), capture_output=True, text=True,
                          timeout=120)


def ty(shape, dtype="i8"):
    return "tensor<" + "x".join(map(str, shape)) + f"x{dtype}>"


def arr(v):
    return "array<i64: " + ", ".join(str(int(x)) for x in v) + ">"


def run_hl(tmp, body, x, out_shape):
    """`body` (HL lines reading %x, defining %y) on the int8 input `x`."""
    lines = [f"func.func @main(%a: {ty(x.shape)}) -> {ty(out_shape)} {{",
             f'  %x = top.Input(%a) : ({ty(x.shape)}) -> {ty(x.shape)} loc("x")']
    lines += ["  " + b for b in body]
    lines += [f"  return %y : {ty(out_shape)}", "}"]
    (tmp / "hl.mlir").write_text("\n".join(lines) + "\n")
    np.savez(tmp / "in.npz", input0=x)
    r = run(STRATA, "run-ref", tmp / "hl.mlir", "--input", tmp / "in.npz",
            "--output", tmp / "hl_out.npz")
    assert r.returncode == 0, r.stderr
    out = np.load(tmp / "hl_out.npz")
    return out[out.files[0]]


def operand(addr, dims, elem_bytes=1):
    strides, s = [], elem_bytes
    for d in reversed(dims):
        strides.insert(0, s)
        s *= d
    return ("#npuhw.operand<address = %d, dims = [%s], strides = [%s]>"
            % (addr, ", ".join(map(str, dims)), ", ".join(map(str, strides))))


def run_npu(tmp, x, out_shape, tasks, out_addr):
    """A program loading `x` at LRAM 0, running `tasks` (npuhw.slice_task
    lines, waits between them) and storing `out_shape` int8 from
    `out_addr`."""
    n_in, n_out = x.size, int(np.prod(out_shape))
    binds = ('#npuhw.binding<name = "x", size = %d, writable = false>, '
             '#npuhw.binding<name = "y", size = %d, writable = true>' % (n_in, n_out))
    dma = ("    npuhw.%s {binding = %d : i32, lram_address = %d : i64, counts = "
           "array<i64: %d>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}\n")
    body = dma % ("dma_load", 0, 0, n_in) + "    npuhw.wait\n"
    for t in tasks:
        body += "    " + t + "\n    npuhw.wait\n"
    body += dma % ("dma_store", 1, out_addr, n_out)
    (tmp / "p.mlir").write_text(
        "npuhw.program @p attributes {config = {}, bindings = [%s]} {\n"
        "  npuhw.segment {\n%s  }\n}\n" % (binds, body))
    shape = lambda a: "x".join(map(str, a))
    r = run(NPU, "package", tmp / "p.mlir", "--input", "x=i8:" + shape(x.shape),
            "--output", "y=i8:" + shape(out_shape), "-o", tmp / "p.strata")
    assert r.returncode == 0, r.stderr + (tmp / "p.mlir").read_text()
    np.savez(tmp / "npu_in.npz", x=x)
    r = run(STRATA, "run", tmp / "p.strata", "--input", tmp / "npu_in.npz",
            "--output", tmp / "npu_out.npz")
    assert r.returncode == 0, r.stderr
    return np.load(tmp / "npu_out.npz")["y"]


def align(v):
    return (v + 63) // 64 * 64


@pytest.mark.parametrize("seed", range(4))
def test_pools_match_hl(tmp_path, seed):
    rng = np.random.default_rng(500 + seed)
    c, h, w = (int(v) for v in rng.integers([1, 3, 3], [5, 10, 10]))
    k = [int(v) for v in rng.integers(1, 4, 2)]
    s = [int(v) for v in rng.integers(1, 3, 2)]
    dil = [int(v) for v in rng.integers(1, 3, 2)]
    ext = [(k[i] - 1) * dil[i] + 1 for i in range(2)]
    # Padding up to a whole window, so some windows hold padding only.
    pad = [int(rng.integers(0, ext[0] + 1)), int(rng.integers(0, ext[1] + 1)),
           int(rng.integers(0, ext[0] + 1)), int(rng.integers(0, ext[1] + 1))]
    oh = (h + pad[0] + pad[2] - ext[0]) // s[0] + 1
    ow = (w + pad[1] + pad[3] - ext[1]) // s[1] + 1
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    out = (1, c, oh, ow)
    # Scales 1/4..2 and a wide clip: the outputs do not saturate.
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-20, 21))
    m, sh = int(rng.integers(2**29, 2**31 - 1)), int(rng.integers(30, 32))
    lo, hi = int(rng.integers(-128, -90)), int(rng.integers(90, 128))
    include = bool(rng.integers(0, 2))
    window = f"pad = {arr(pad)}, stride = {arr(s)}, dilation = {arr(dil)}"
    hl_max = [f"%y = hl.maxpool(%x) {{kernel = {arr(k)}, {window}}} : "
              f"({ty(x.shape)}) -> {ty(out)}"]
    hl_avg = [f"%y = hl.avgpool(%x) {{kernel = {arr(k)}, {window}, count_include_pad = "
              f"{str(include).lower()}, input_zp = {izp} : i64, output_zp = {ozp} : i64, "
              f"multiplier = {m} : i64, shift = {sh} : i64, clip_min = {lo} : i64, "
              f"clip_max = {hi} : i64}} : ({ty(x.shape)}) -> {ty(out)}"]
    oa = align(x.size)
    common = (f"kernel_size = {arr(k)}, stride = {arr(s)}, dilation = {arr(dil)}, "
              f"pad = {arr(pad)}, input = {operand(0, list(x.shape))}, "
              f"output = {operand(oa, list(out))}")
    npu_max = ['npuhw.slice_task {kernel = "max_pool", ' + common + "}"]
    npu_avg = ['npuhw.slice_task {kernel = "avg_pool", ' + common +
               f", count_include_pad = {str(include).lower()}, input_zp = {izp}, "
               f"output_zp = {ozp}, multiplier = {m}, shift = {sh}, clip_min = {lo}, "
               f"clip_max = {hi}}}"]
    for hl, npu in ((hl_max, npu_max), (hl_avg, npu_avg)):
        want = run_hl(tmp_path, hl, x, out)
        got = run_npu(tmp_path, x, out, npu, oa)
        assert want.size < 8 or len(np.unique(want)) > 2, want  # not saturated
        np.testing.assert_array_equal(got, want, err_msg=hl[0])


@pytest.mark.parametrize("seed", range(3))
def test_reduce_mean_and_convert_match_hl(tmp_path, seed):
    rng = np.random.default_rng(600 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 7, 4))
    x = rng.integers(-128, 128, shape).astype(np.int8)
    axes = sorted(int(a) for a in rng.choice(4, int(rng.integers(1, 4)), replace=False))
    out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-20, 21))
    m, sh = int(rng.integers(2**29, 2**31 - 1)), int(rng.integers(30, 32))
    hl = [f"%y = hl.reduce_mean(%x) {{axes = {arr(axes)}, input_zp = {izp} : i64, "
          f"output_zp = {ozp} : i64, multiplier = {m} : i64, shift = {sh} : i64}} : "
          f"({ty(shape)}) -> {ty(out)}"]
    oa = align(x.size)
    npu = [f'npuhw.slice_task {{kernel = "reduce_mean", reduce_axes = '
           f"{sum(1 << a for a in axes)} : i32, input_zp = {izp}, output_zp = {ozp}, "
           f"multiplier = {m}, shift = {sh}, input = {operand(0, list(shape))}, "
           f"output = {operand(oa, list(out))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, x, out, npu, oa),
                                  run_hl(tmp_path, hl, x, out))

    # int8 -> bf16 -> int8 with f64 scales that are not f32 values: the
    # quotient's rounding (half to even) must be the f64 one.
    s1 = float(rng.choice([0.1, 0.3, 1.0 / 3.0])) * float(rng.uniform(0.5, 2))
    s2 = float(rng.choice([0.1, 0.7, 2.0 / 3.0])) * float(rng.uniform(0.5, 2))
    z1, z2 = (int(v) for v in rng.integers(-20, 20, 2))
    if seed == 0:
        # x = q / 4 exactly; x / 0.1 = 2.5 q: every odd q is a tie in f64
        # (and not one with the f32 value of 0.1).
        s1, z1, s2 = 0.25, 0, 0.1
    x = (x.astype(np.int16) // 3).astype(np.int8)  # 2.5 x stays in int8
    bt = ty(shape, "bf16")
    hl = [f"%f = hl.convert(%x) {{scale = {s1!r} : f64, zp = {z1} : i64}} : "
          f"({ty(shape)}) -> {bt}",
          f"%y = hl.convert(%f) {{scale = {s2!r} : f64, zp = {z2} : i64}} : "
          f"({bt}) -> {ty(shape)}"]
    fa, qa = align(x.size), align(x.size) + align(2 * x.size)
    npu = [f'npuhw.slice_task {{kernel = "convert", output_format = "bf16", '
           f"scale = {s1!r} : f64, input_zp = {z1}, input = {operand(0, list(shape))}, "
           f"output = {operand(fa, list(shape), 2)}}}",
           f'npuhw.slice_task {{kernel = "convert", format = "bf16", '
           f"scale = {s2!r} : f64, output_zp = {z2}, input = {operand(fa, list(shape), 2)}, "
           f"output = {operand(qa, list(shape))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, x, shape, npu, qa),
                                  run_hl(tmp_path, hl, x, shape))
