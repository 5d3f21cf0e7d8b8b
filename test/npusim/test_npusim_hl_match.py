"""HL ops against the same computation as hand-built npuhw programs: each
case runs an HL op through the reference interpreter (`strata run-ref`, HL's
golden model) and a program written with docs/npu-sim.md's "HL op -> slice
task fields" table through `strata-npu package` + `strata run` (the npu-sim
device), on random shapes and attributes, and compares the bytes (bit-exact).
Covers the kernels whose semantics had to be aligned with HL: avg_pool
(rounded mean, then requantized), max_pool with dilation and windows of
padding only, reduce_mean (rounded mean, then requantized) and convert
(top.Quant's rounding in f64, an f64 scale that is not an f32 value); and the
table's other rows: elementwise ops with HL's left_shift rescale, activation
with a narrowed clip, table, transpose, resize_nearest, depth_to_space (DCR,
CRD) and a matmul whose two batch dims the task sees flattened."""
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


def run_hl(tmp, body, x, out_shape, extra=()):
    """`body` (HL lines reading %x, or %x0.. for several inputs, defining %y)
    on the input `x` (an int8 array, or a list of (array, element type))."""
    inputs = [(x, "i8")] if isinstance(x, np.ndarray) else list(x)
    names = ["%x"] if isinstance(x, np.ndarray) else [f"%x{i}" for i in range(len(inputs))]
    args = ", ".join(f"%a{i}: {ty(a.shape, d)}" for i, (a, d) in enumerate(inputs))
    lines = [f"func.func @main({args}) -> {ty(out_shape)} {{"]
    for i, ((a, d), n) in enumerate(zip(inputs, names)):
        lines.append(f'  {n} = top.Input(%a{i}) : ({ty(a.shape, d)}) -> {ty(a.shape, d)} loc("x{i}")')
    lines += ["  " + b for b in list(extra) + list(body)]
    lines += [f"  return %y : {ty(out_shape)}", "}"]
    (tmp / "hl.mlir").write_text("\n".join(lines) + "\n")
    np.savez(tmp / "in.npz", **{f"input{i}": a for i, (a, _) in enumerate(inputs)})
    r = run(STRATA, "run-ref", tmp / "hl.mlir", "--input", tmp / "in.npz",
            "--output", tmp / "hl_out.npz")
    assert r.returncode == 0, r.stderr + (tmp / "hl.mlir").read_text()
    out = np.load(tmp / "hl_out.npz")
    return out[out.files[0]]


def operand(addr, dims, elem_bytes=1):
    strides, s = [], elem_bytes
    for d in reversed(dims):
        strides.insert(0, s)
        s *= d
    return ("#npuhw.operand<address = %d, dims = [%s], strides = [%s]>"
            % (addr, ", ".join(map(str, dims)), ", ".join(map(str, strides))))


TYPES = {np.dtype(np.int8): "i8", np.dtype(np.int32): "i32"}


def layout(arrays):
    """LRAM addresses of `arrays` placed one after another (64-byte
    aligned), and the first free address after them."""
    addr, nxt = [], 0
    for a in arrays:
        addr.append(nxt)
        nxt = align(nxt + a.nbytes)
    return addr, nxt


def run_npu(tmp, x, out_shape, tasks, out_addr):
    """A program loading `x` (an array, or a list of arrays) at the LRAM
    addresses of layout(), running `tasks` (npuhw.slice_task lines, waits
    between them) and storing `out_shape` int8 from `out_addr`."""
    xs = [x] if isinstance(x, np.ndarray) else list(x)
    addr, _ = layout(xs)
    n_out = int(np.prod(out_shape))
    binds = ", ".join(['#npuhw.binding<name = "x%d", size = %d, writable = false>'
                       % (i, a.nbytes) for i, a in enumerate(xs)] +
                      ['#npuhw.binding<name = "y", size = %d, writable = true>' % n_out])
    dma = ("    npuhw.%s {binding = %d : i32, lram_address = %d : i64, counts = "
           "array<i64: %d>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}\n")
    body = "".join(dma % ("dma_load", i, addr[i], a.nbytes) for i, a in enumerate(xs))
    body += "    npuhw.wait\n"
    for t in tasks:
        body += "    " + t + "\n    npuhw.wait\n"
    body += dma % ("dma_store", len(xs), out_addr, n_out)
    (tmp / "p.mlir").write_text(
        "npuhw.program @p attributes {config = {}, bindings = [%s]} {\n"
        "  npuhw.segment {\n%s  }\n}\n" % (binds, body))
    shape = lambda a: "x".join(map(str, a))
    args = []
    for i, a in enumerate(xs):
        args += ["--input", "x%d=%s:%s" % (i, TYPES[a.dtype], shape(a.shape))]
    r = run(NPU, "package", tmp / "p.mlir", *args,
            "--output", "y=i8:" + shape(out_shape), "-o", tmp / "p.strata")
    assert r.returncode == 0, r.stderr + (tmp / "p.mlir").read_text()
    np.savez(tmp / "npu_in.npz", **{"x%d" % i: a for i, a in enumerate(xs)})
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


def dense(a, dtype):
    return f"dense<{np.asarray(a).tolist()}> : {ty(a.shape, dtype)}"


@pytest.mark.parametrize("seed", range(2))
def test_elementwise_activation_table_match_hl(tmp_path, seed):
    rng = np.random.default_rng(700 + seed)
    shape = tuple(int(v) for v in rng.integers(1, 6, 3))
    a = rng.integers(-128, 128, shape).astype(np.int8)
    b = rng.integers(-128, 128, shape).astype(np.int8)
    t = ty(shape)
    addr, free = layout([a, b])
    el = operand(free, list(shape))
    for op in ("add", "sub", "min", "max", "mul"):
        za, zb, zo = (int(v) for v in rng.integers(-20, 21, 3))
        ma, mb = (int(v) for v in rng.integers(2**29, 2**30, 2))
        mo = int(rng.integers(2**29, 2**30))
        so = 37 if op == "mul" else 48
        lo, hi = int(rng.integers(-128, -100)), int(rng.integers(100, 128))
        hl = [f"%y = hl.{op}(%x0, %x1) {{lhs_zp = {za} : i64, rhs_zp = {zb} : i64, "
              f"lhs_multiplier = {ma} : i64, lhs_shift = 31 : i64, rhs_multiplier = {mb} : i64, "
              f"rhs_shift = 31 : i64, left_shift = 20 : i64, output_multiplier = {mo} : i64, "
              f"output_shift = {so} : i64, output_zp = {zo} : i64, clip_min = {lo} : i64, "
              f"clip_max = {hi} : i64}} : ({t}, {t}) -> {t}"]
        rescale = ("" if op == "mul" else
                   f"input_multiplier = {ma}, input_shift = 31, input2_multiplier = {mb}, "
                   f"input2_shift = 31, left_shift = 20, ")
        npu = [f'npuhw.slice_task {{kernel = "{op}", input_zp = {za}, input2_zp = {zb}, '
               f"{rescale}multiplier = {mo}, shift = {so}, output_zp = {zo}, clip_min = {lo}, "
               f"clip_max = {hi}, input = {operand(addr[0], list(shape))}, "
               f"input2 = {operand(addr[1], list(shape))}, output = {el}}}"]
        want = run_hl(tmp_path, hl, [(a, "i8"), (b, "i8")], shape)
        assert want.size < 8 or len(np.unique(want)) > 2, (op, want)
        np.testing.assert_array_equal(run_npu(tmp_path, [a, b], shape, npu, free),
                                      want, err_msg=op)

    # hl.activation (a ReLU6-like narrowed clip) -> rescale.
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-20, 21))
    m, sh = int(rng.integers(2**29, 2**31 - 1)), int(rng.integers(30, 32))
    hl = [f"%y = hl.activation(%x) {{input_zp = {izp} : i64, multiplier = {m} : i64, "
          f"shift = {sh} : i64, output_zp = {ozp} : i64, clip_min = {ozp} : i64, "
          f"clip_max = {ozp + 50} : i64}} : ({t}) -> {t}"]
    npu = [f'npuhw.slice_task {{kernel = "rescale", input_zp = {izp}, multiplier = {m}, '
           f"shift = {sh}, output_zp = {ozp}, clip_min = {ozp}, clip_max = {ozp + 50}, "
           f"input = {operand(0, list(shape))}, output = {operand(align(a.size), list(shape))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, a, shape, npu, align(a.size)),
                                  run_hl(tmp_path, hl, a, shape), err_msg="activation")

    # hl.table: the table constant becomes the task's lut (int8 input:
    # HL's table[x + 128] is lut[x + 128]).
    table = rng.integers(-128, 128, 256).astype(np.int8)
    extra = [f'%tb = top.Weight() {{name = "tb", value = {dense(table, "i8")}}} : () -> {ty((256,))}']
    hl = [f"%y = hl.table(%x0, %tb) {{lut_entries = 256 : i64}} : ({t}, {ty((256,))}) -> {t}"]
    addr, free = layout([a, table])
    npu = [f'npuhw.slice_task {{kernel = "table", input = {operand(addr[0], list(shape))}, '
           f"lut = {operand(addr[1], [256])}, output = {operand(free, list(shape))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, [a, table], shape, npu, free),
                                  run_hl(tmp_path, hl, [(a, "i8")], shape, extra),
                                  err_msg="table")


@pytest.mark.parametrize("seed", range(2))
def test_data_movement_and_matmul_match_hl(tmp_path, seed):
    rng = np.random.default_rng(800 + seed)
    n, c, h, w = (int(v) for v in rng.integers([1, 1, 1, 1], [3, 5, 6, 6]))
    x = rng.integers(-128, 128, (n, c, h, w)).astype(np.int8)
    t = ty(x.shape)
    oa = align(x.size)
    src = operand(0, list(x.shape))

    perm = [int(v) for v in rng.permutation(4)]
    out = tuple(x.shape[p] for p in perm)
    hl = [f"%y = hl.transpose(%x) {{perm = {arr(perm)}}} : ({t}) -> {ty(out)}"]
    npu = [f'npuhw.slice_task {{kernel = "transpose", perm = {arr(perm)}, input = {src}, '
           f"output = {operand(oa, list(out))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, x, out, npu, oa),
                                  run_hl(tmp_path, hl, x, out), err_msg="transpose")

    out = (n, c, int(rng.integers(1, 12)), int(rng.integers(1, 12)))
    hl = [f"%y = hl.resize_nearest(%x) : ({t}) -> {ty(out)}"]
    npu = [f'npuhw.slice_task {{kernel = "resize_nearest", input = {src}, '
           f"output = {operand(oa, list(out))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, x, out, npu, oa),
                                  run_hl(tmp_path, hl, x, out), err_msg="resize")

    blk = 2
    xd = rng.integers(-128, 128, (n, c * blk * blk, h, w)).astype(np.int8)
    out = (n, c, h * blk, w * blk)
    for mode in ("DCR", "CRD"):
        hl = [f'%y = hl.depth_to_space(%x) {{block = {blk} : i64, mode = "{mode}"}} : '
              f"({ty(xd.shape)}) -> {ty(out)}"]
        crd = ", crd = true" if mode == "CRD" else ""
        npu = [f'npuhw.slice_task {{kernel = "depth_to_space", block = {blk}{crd}, '
               f"input = {operand(0, list(xd.shape))}, output = {operand(align(xd.size), list(out))}}}"]
        np.testing.assert_array_equal(run_npu(tmp_path, xd, out, npu, align(xd.size)),
                                      run_hl(tmp_path, hl, xd, out), err_msg=mode)

    # hl.matmul with two batch dims: the task sees them flattened.
    b1, b2, m, k, nn = (int(v) for v in rng.integers([1, 1, 1, 1, 1], [3, 4, 6, 9, 7]))
    lhs = rng.integers(-128, 128, (b1, b2, m, k)).astype(np.int8)
    rhs = rng.integers(-128, 128, (b1, b2, k, nn)).astype(np.int8)
    sb = np.stack([rng.integers(-3000, 3000, nn), rng.integers(2**29, 2**31 - 1, nn),
                   rng.integers(36, 40, nn)], 1).astype(np.int32)
    izp, wzp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-3, 4)), int(rng.integers(-9, 10))
    out = (b1, b2, m, nn)
    extra = [f'%sb = top.Weight() {{name = "sb", value = {dense(sb, "i32")}}} : () -> {ty(sb.shape, "i32")}']
    hl = [f"%y = hl.matmul(%x0, %x1, %sb) {{input_zp = {izp} : i64, weight_zp = {wzp} : i64, "
          f"output_zp = {ozp} : i64}} : ({ty(lhs.shape)}, {ty(rhs.shape)}, "
          f"{ty(sb.shape, 'i32')}) -> {ty(out)}"]
    addr, free = layout([lhs, rhs, sb])
    bt = b1 * b2
    npu = [f'npuhw.slice_task {{kernel = "matmul", input_zp = {izp}, weight_zp = {wzp}, '
           f"output_zp = {ozp}, input = {operand(addr[0], [bt, m, k])}, "
           f"weights = {operand(addr[1], [bt, k, nn])}, "
           f"scale_bias = {operand(addr[2], list(sb.shape), 4)}, "
           f"output = {operand(free, [bt, m, nn])}}}"]
    want = run_hl(tmp_path, hl, [(lhs, "i8"), (rhs, "i8")], out, extra)
    np.testing.assert_array_equal(run_npu(tmp_path, [lhs, rhs, sb], out, npu, free),
                                  want, err_msg="matmul")
