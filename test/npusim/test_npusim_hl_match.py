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
CRD), a matmul whose two batch dims the task sees flattened, int8 conv2d /
depthwise / fully_connected, a bf16 conv2d with relu6, and the recipes for
segmented inputs (int8 conv per phase chained through int32 partials, maxpool
per phase + elementwise max, bf16 conv after a rank-6 transpose)."""
import numpy as np
import pytest

from test_npusim_e2e import B, NPU, STRATA, align, operand, run


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


TYPES = {np.dtype(np.int8): "i8", np.dtype(np.int16): "i16",
         np.dtype(np.int32): "i32", np.dtype(np.float32): "f32"}
try:
    import ml_dtypes
except ImportError:  # the bf16 test is skipped
    ml_dtypes = None


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


def weights(**named):
    """top.Weight lines `%name = ...` for (array, element type) values
    (bf16 arrays are written as their float values)."""
    lines = []
    for name, (a, dtype) in named.items():
        vals = np.asarray(a, np.float32) if dtype == "bf16" else a
        lines.append(f'%{name} = top.Weight() {{name = "{name}", value = '
                     f"{dense(vals, dtype)}}} : () -> {ty(a.shape, dtype)}")
    return lines


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
    extra = weights(tb=(table, "i8"))
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
    extra = weights(sb=(sb, "i32"))
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


def pack(w):
    """[O, ...] -> (O/B) ... B, padded with zero weights (HL's packing)."""
    o = w.shape[0]
    ob = (o + B - 1) // B
    p = np.zeros((ob * B,) + w.shape[1:], w.dtype)
    p[:o] = w
    p = p.reshape((ob, B) + w.shape[1:])
    return np.ascontiguousarray(np.moveaxis(p, 1, -1))


def scale_bias(rng, o):
    return np.stack([rng.integers(-3000, 3000, o), rng.integers(2**29, 2**31 - 1, o),
                     rng.integers(34, 38, o)], 1).astype(np.int32)


@pytest.mark.parametrize("seed", range(3))
def test_mac_kernels_match_hl(tmp_path, seed):
    rng = np.random.default_rng(900 + seed)
    depthwise = seed == 1
    g = 1 if depthwise else int(rng.integers(1, 3))
    c = int(rng.integers(1, 7)) if depthwise else g * int(rng.integers(1, 4))
    o = c if depthwise else g * int(rng.integers(1, 4))
    kh, kw = (int(v) for v in rng.integers(1, 4, 2))
    h, w = int(rng.integers(kh + 2, 11)), int(rng.integers(kw + 2, 11))
    stride = [int(v) for v in rng.integers(1, 3, 2)]
    dil = [int(v) for v in rng.integers(1, 3, 2)]
    pad = [int(v) for v in rng.integers(0, 3, 4)]
    oh = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    wt = rng.integers(-128, 128, (o, kh, kw) if depthwise else (o, c // g, kh, kw)).astype(np.int8)
    wp, sb = pack(wt), scale_bias(rng, o)
    izp, wzp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-3, 4)), int(rng.integers(-9, 10))
    out = (1, o, oh, ow)
    op = "depthwise_conv2d" if depthwise else "conv2d"
    groups = "" if depthwise else f"groups = {g} : i64, "
    extra = weights(w=(wp, "i8"), sb=(sb, "i32"))
    hl = [f"%y = hl.{op}(%x0, %w, %sb) {{{groups}pad = {arr(pad)}, stride = {arr(stride)}, "
          f"dilation = {arr(dil)}, input_zp = {izp} : i64, weight_zp = {wzp} : i64, "
          f"output_zp = {ozp} : i64, clip_min = {ozp} : i64}} : ({ty(x.shape)}, {ty(wp.shape)}, "
          f"{ty(sb.shape, 'i32')}) -> {ty(out)}"]
    addr, free = layout([x, wp, sb])
    groups = "" if depthwise else f"groups = {g}, "
    npu = [f'npuhw.slice_task {{kernel = "{op}", {groups}pad = {arr(pad)}, '
           f"stride = {arr(stride)}, dilation = {arr(dil)}, input_zp = {izp}, "
           f"weight_zp = {wzp}, output_zp = {ozp}, clip_min = {ozp}, "
           f"input = {operand(addr[0], list(x.shape))}, weights = {operand(addr[1], list(wp.shape))}, "
           f"scale_bias = {operand(addr[2], list(sb.shape), 4)}, output = {operand(free, list(out))}}}"]
    want = run_hl(tmp_path, hl, [(x, "i8")], out, extra)
    assert want.size < 8 or len(np.unique(want)) > 2, want
    np.testing.assert_array_equal(run_npu(tmp_path, [x, wp, sb], out, npu, free), want,
                                  err_msg=op)

    # fully_connected.
    nb, i_, o = (int(v) for v in rng.integers([1, 1, 1], [4, 40, 11]))
    xf = rng.integers(-128, 128, (nb, i_)).astype(np.int8)
    wf = pack(rng.integers(-128, 128, (o, i_)).astype(np.int8))
    sb = scale_bias(rng, o)
    extra = weights(w=(wf, "i8"), sb=(sb, "i32"))
    hl = [f"%y = hl.fully_connected(%x0, %w, %sb) {{input_zp = {izp} : i64, weight_zp = {wzp} : i64, "
          f"output_zp = {ozp} : i64}} : ({ty(xf.shape)}, {ty(wf.shape)}, {ty(sb.shape, 'i32')}) "
          f"-> {ty((nb, o))}"]
    addr, free = layout([xf, wf, sb])
    npu = [f'npuhw.slice_task {{kernel = "fully_connected", input_zp = {izp}, weight_zp = {wzp}, '
           f"output_zp = {ozp}, input = {operand(addr[0], list(xf.shape))}, "
           f"weights = {operand(addr[1], list(wf.shape))}, "
           f"scale_bias = {operand(addr[2], list(sb.shape), 4)}, output = {operand(free, [nb, o])}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, [xf, wf, sb], (nb, o), npu, free),
                                  run_hl(tmp_path, hl, [(xf, "i8")], (nb, o), extra),
                                  err_msg="fully_connected")


@pytest.mark.skipif(ml_dtypes is None, reason="needs ml_dtypes (bf16 arrays)")
def test_bf16_conv_relu6_matches_hl(tmp_path):
    """int8 -> bf16 -> conv2d (bf16, relu6 = HL's relu + relu_limit, the
    task's clip_min_f/clip_max_f) -> int8."""
    rng = np.random.default_rng(950)
    c, o, kh, kw, h, w = 3, 5, 3, 2, 7, 6
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    wt = (rng.integers(-16, 17, (o, c, kh, kw)) / 16).astype(ml_dtypes.bfloat16)
    wp = pack(wt)
    bias = rng.uniform(-1, 1, o).astype(np.float32)
    pad, stride, dil = [1, 0, 1, 1], [1, 2], [2, 1]
    oh = (h + 2 - 2 * (kh - 1) - 1) // 1 + 1
    ow = (w + 1 - (kw - 1) - 1) // 2 + 1
    out = (1, o, oh, ow)
    s1, s2 = 0.0625, 0.05
    bt = lambda shp: ty(shp, "bf16")
    extra = weights(w=(wp, "bf16"), b=(bias, "f32"))
    hl = [f"%f = hl.convert(%x0) {{scale = {s1} : f64, zp = 0 : i64}} : ({ty(x.shape)}) -> {bt(x.shape)}",
          f"%c = hl.conv2d(%f, %w, %b) {{pad = {arr(pad)}, stride = {arr(stride)}, "
          f"dilation = {arr(dil)}, relu = true, relu_limit = 6.0 : f64}} : ({bt(x.shape)}, "
          f"{bt(wp.shape)}, {ty((o,), 'f32')}) -> {bt(out)}",
          f"%y = hl.convert(%c) {{scale = {s2} : f64, zp = -128 : i64}} : ({bt(out)}) -> {ty(out)}"]
    want = run_hl(tmp_path, hl, [(x, "i8")], out, extra)
    assert len(np.unique(want)) > 2, want
    # The bf16 weights travel as their raw 16-bit patterns (numpy's npz
    # has no bf16 type).
    wbits = wp.view(np.int16)
    addr, free = layout([x, wbits, bias])
    fa = free
    ca = align(fa + 2 * x.size)
    qa = align(ca + 2 * int(np.prod(out)))
    npu = [f'npuhw.slice_task {{kernel = "convert", output_format = "bf16", scale = {s1} : f64, '
           f"input = {operand(addr[0], list(x.shape))}, output = {operand(fa, list(x.shape), 2)}}}",
           f'npuhw.slice_task {{kernel = "conv2d", format = "bf16", output_format = "bf16", '
           f"pad = {arr(pad)}, stride = {arr(stride)}, dilation = {arr(dil)}, "
           f"clip_min_f = 0.0 : f32, clip_max_f = 6.0 : f32, "
           f"input = {operand(fa, list(x.shape), 2)}, weights = {operand(addr[1], list(wp.shape), 2)}, "
           f"scale_bias = {operand(addr[2], [o], 4)}, output = {operand(ca, list(out), 2)}}}",
           f'npuhw.slice_task {{kernel = "convert", format = "bf16", scale = {s2} : f64, '
           f"output_zp = -128, input = {operand(ca, list(out), 2)}, output = {operand(qa, list(out))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, [x, wbits, bias], out, npu, qa), want)


def segment(x, s, pad, value):
    """hl.segmentation: [N, C, s*s, Hs, Ws] phases of the padded x."""
    t, l, b, r = pad
    n, c, h, w = x.shape
    hs, ws = -(-(h + t + b) // s), -(-(w + l + r) // s)
    p = np.full((n, c, hs * s, ws * s), value, x.dtype)
    p[:, :, t:t + h, l:l + w] = x
    return np.ascontiguousarray(
        p.reshape(n, c, hs, s, ws, s).transpose(0, 1, 3, 5, 2, 4).reshape(n, c, s * s, hs, ws))


@pytest.mark.parametrize("seed", range(3))
def test_segmented_conv_as_phase_tasks_matches_hl(tmp_path, seed):
    """docs/npu-sim.md's recipe for a segmented hl.conv2d: one conv2d task
    per phase over that phase's taps (strided views of the phase plane and
    of the packed weights), chained through int32 partial accumulators."""
    rng = np.random.default_rng(980 + seed)
    s = 2
    g = int(rng.integers(1, 3))
    c, o = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 4))
    kh, kw = (int(v) for v in rng.integers(2, 4, 2))
    dil = [1, int(rng.integers(1, 3))]  # dilation 2 keeps one column phase
    h, w = (int(v) for v in rng.integers(6, 12, 2))
    pad = [int(v) for v in rng.integers(0, 2, 4)]
    oh = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // s + 1
    ow = (w + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // s + 1
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    wp = pack(rng.integers(-128, 128, (o, c // g, kh, kw)).astype(np.int8))
    sb = scale_bias(rng, o)
    izp, ozp = int(rng.integers(-128, 128)), int(rng.integers(-9, 10))
    seg = segment(x, s, pad, izp)
    out = (1, o, oh, ow)
    extra = weights(w=(wp, "i8"), sb=(sb, "i32"))
    hl = [f"%s = hl.segmentation(%x0) {{stride = {s} : i64, pad = {arr(pad)}, pad_value = {izp} : i64}}"
          f" : ({ty(x.shape)}) -> {ty(seg.shape)}",
          f"%y = hl.conv2d(%s, %w, %sb) {{groups = {g} : i64, pad = {arr([0] * 4)}, "
          f"stride = {arr([s, s])}, dilation = {arr(dil)}, segments = {s} : i64, "
          f"input_zp = {izp} : i64, output_zp = {ozp} : i64}} : ({ty(seg.shape)}, "
          f"{ty(wp.shape)}, {ty(sb.shape, 'i32')}) -> {ty(out)}"]
    want = run_hl(tmp_path, hl, [(x, "i8")], out, extra)

    addr, free = layout([seg, wp, sb])
    acc_addr = free
    out_addr = align(acc_addr + 4 * int(np.prod(out)))
    n_, c_, ss, hs, ws = seg.shape
    _, cg, _, _, bb = wp.shape

    def taps(k, d, a):
        """Taps of phase a: first tap, tap step, first offset, offset step,
        count."""
        ks = [i for i in range(k) if (i * d) % s == a]
        if not ks:
            return None
        step = ks[1] - ks[0] if len(ks) > 1 else 1
        off = [(i * d) // s for i in ks]
        return ks[0], step, off[0], (off[1] - off[0]) if len(ks) > 1 else 1, len(ks)

    phases = []
    for a in range(s):
        for b in range(s):
            th, tw = taps(kh, dil[0], a), taps(kw, dil[1], b)
            if th and tw:
                phases.append((a, b, th, tw))
    assert len(phases) > 1  # the chaining is exercised
    tasks = []
    for i, (a, b, th, tw) in enumerate(phases):
        k0h, sth, o0h, qh, nh = th
        k0w, stw, o0w, qw, nw = tw
        base = addr[0] + (a * s + b) * hs * ws + o0h * ws + o0w
        rows, cols = hs - o0h, ws - o0w
        inp = ("#npuhw.operand<address = %d, dims = [%d, %d, %d, %d], strides = [%d, %d, %d, 1]>"
               % (base, n_, c_, rows, cols, c_ * ss * hs * ws, ss * hs * ws, ws))
        wts = ("#npuhw.operand<address = %d, dims = [%d, %d, %d, %d, %d], strides = [%d, %d, %d, %d, 1]>"
               % (addr[1] + (k0h * kw + k0w) * bb, wp.shape[0], cg, nh, nw, bb,
                  cg * kh * kw * bb, kh * kw * bb, sth * kw * bb, stw * bb))
        padb = max(0, (oh - 1) + qh * (nh - 1) + 1 - rows)
        padr = max(0, (ow - 1) + qw * (nw - 1) + 1 - cols)
        first, last = i == 0, i == len(phases) - 1
        fields = [f'kernel = "conv2d"', f"groups = {g}", f"dilation = {arr([qh, qw])}",
                  f"pad = {arr([0, 0, padb, padr])}", f"input_zp = {izp}",
                  f"input = {inp}", f"weights = {wts}"]
        if first or last:
            fields.append(f"scale_bias = {operand(addr[2], list(sb.shape), 4)}")
        if not first:
            fields.append(f"partial = {operand(acc_addr, list(out), 4)}")
        if last:
            fields += [f"output_zp = {ozp}", f"output = {operand(out_addr, list(out))}"]
        else:
            fields += ['output_format = "int32"', f"output = {operand(acc_addr, list(out), 4)}"]
        tasks.append("npuhw.slice_task {" + ", ".join(fields) + "}")
    got = run_npu(tmp_path, [seg, wp, sb], out, tasks, out_addr)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(2))
def test_segmented_maxpool_as_phase_tasks_matches_hl(tmp_path, seed):
    """docs/npu-sim.md's recipe for a segmented hl.maxpool: one max_pool task
    per phase over that phase's taps, combined by elementwise max tasks
    with the identity rescale."""
    rng = np.random.default_rng(990 + seed)
    s, c = 2, int(rng.integers(1, 4))
    kh, kw = (int(v) for v in rng.integers(2, 4, 2))
    h, w = (int(v) for v in rng.integers(6, 12, 2))
    pad = [int(v) for v in rng.integers(0, 2, 4)]
    oh = (h + pad[0] + pad[2] - kh) // s + 1
    ow = (w + pad[1] + pad[3] - kw) // s + 1
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    seg = segment(x, s, pad, -128)
    out = (1, c, oh, ow)
    hl = [f"%s = hl.segmentation(%x0) {{stride = {s} : i64, pad = {arr(pad)}, pad_value = -128 : i64}}"
          f" : ({ty(x.shape)}) -> {ty(seg.shape)}",
          f"%y = hl.maxpool(%s) {{kernel = {arr([kh, kw])}, pad = {arr([0] * 4)}, "
          f"stride = {arr([s, s])}, dilation = {arr([1, 1])}, segments = {s} : i64}} : "
          f"({ty(seg.shape)}) -> {ty(out)}"]
    want = run_hl(tmp_path, hl, [(x, "i8")], out)
    n_, c_, ss, hs, ws = seg.shape
    size = int(np.prod(out))
    tmp0 = align(seg.nbytes)
    tasks, bufs = [], []
    for a in range(s):
        for b in range(s):
            nh, nw = len(range(a, kh, s)), len(range(b, kw, s))  # dilation 1
            if not nh or not nw:
                continue
            dst = tmp0 + len(bufs) * align(size)
            inp = ("#npuhw.operand<address = %d, dims = [%d, %d, %d, %d], strides = [%d, %d, %d, 1]>"
                   % ((a * s + b) * hs * ws, n_, c_, hs, ws, c_ * ss * hs * ws, ss * hs * ws, ws))
            padb = max(0, oh - 1 + nh - hs)
            padr = max(0, ow - 1 + nw - ws)
            tasks.append(f'npuhw.slice_task {{kernel = "max_pool", kernel_size = {arr([nh, nw])}, '
                         f"pad = {arr([0, 0, padb, padr])}, input = {inp}, "
                         f"output = {operand(dst, list(out))}}}")
            bufs.append(dst)
    assert len(bufs) > 1
    acc = bufs[0]
    for i, buf in enumerate(bufs[1:]):
        dst = tmp0 + (len(bufs) + i % 2) * align(size)
        tasks.append('npuhw.slice_task {kernel = "max", input_multiplier = 1, input2_multiplier = 1, '
                     f"multiplier = 1, input = {operand(acc, list(out))}, "
                     f"input2 = {operand(buf, list(out))}, output = {operand(dst, list(out))}}}")
        acc = dst
    np.testing.assert_array_equal(run_npu(tmp_path, seg, out, tasks, acc), want)


@pytest.mark.skipif(ml_dtypes is None, reason="needs ml_dtypes (bf16 arrays)")
def test_segmented_bf16_conv_reinterleaved_matches_hl(tmp_path):
    """docs/npu-sim.md's recipe for a segmented bf16 hl.conv2d: a rank-6
    transpose task re-interleaves the phases into the padded image, then one
    conv2d with the original stride and pad 0 (it reads the padding, as HL's
    segmented kernel does, in HL's summation order)."""
    rng = np.random.default_rng(999)
    s, c, o, kh, kw, h, w = 2, 3, 5, 3, 3, 9, 8
    pad, dil = [1, 1, 0, 1], [1, 1]
    oh = (h + pad[0] + pad[2] - (kh - 1) - 1) // s + 1
    ow = (w + pad[1] + pad[3] - (kw - 1) - 1) // s + 1
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    wp = pack((rng.integers(-16, 17, (o, c, kh, kw)) / 16).astype(ml_dtypes.bfloat16))
    bias = rng.uniform(-1, 1, o).astype(np.float32)
    s1, z1, s2 = 0.0625, 5, 0.1
    seg8 = segment(x, s, pad, z1)  # converts to the bf16 phases, padding +0.0
    _, _, ss, hs, ws = seg8.shape
    out = (1, o, oh, ow)
    bt = lambda shp: ty(shp, "bf16")
    segt = (1, c, ss, hs, ws)
    extra = weights(w=(wp, "bf16"), b=(bias, "f32"))
    hl = [f"%f = hl.convert(%x0) {{scale = {s1} : f64, zp = {z1} : i64}} : ({ty(x.shape)}) -> {bt(x.shape)}",
          f"%s = hl.segmentation(%f) {{stride = {s} : i64, pad = {arr(pad)}, pad_value = 0 : i64}}"
          f" : ({bt(x.shape)}) -> {bt(segt)}",
          f"%c = hl.conv2d(%s, %w, %b) {{pad = {arr([0] * 4)}, stride = {arr([s, s])}, "
          f"dilation = {arr(dil)}, segments = {s} : i64}} : ({bt(segt)}, {bt(wp.shape)}, "
          f"{ty((o,), 'f32')}) -> {bt(out)}",
          f"%y = hl.convert(%c) {{scale = {s2} : f64, zp = 0 : i64}} : ({bt(out)}) -> {ty(out)}"]
    want = run_hl(tmp_path, hl, [(x, "i8")], out, extra)
    assert len(np.unique(want)) > 2, want
    wbits = wp.view(np.int16)
    addr, free = layout([seg8, wbits, bias])
    fa = free                                  # bf16 phases
    pa = align(fa + 2 * seg8.size)             # bf16 padded image
    ca = align(pa + 2 * seg8.size)             # bf16 conv output
    qa = align(ca + 2 * int(np.prod(out)))     # int8 result
    img = [1, c, hs * s, ws * s]
    npu = [f'npuhw.slice_task {{kernel = "convert", output_format = "bf16", scale = {s1} : f64, '
           f"input_zp = {z1}, input = {operand(addr[0], list(segt))}, "
           f"output = {operand(fa, list(segt), 2)}}}",
           f'npuhw.slice_task {{kernel = "transpose", format = "bf16", output_format = "bf16", '
           f"perm = {arr([0, 1, 4, 2, 5, 3])}, input = {operand(fa, [1, c, s, s, hs, ws], 2)}, "
           f"output = {operand(pa, [1, c, hs, s, ws, s], 2)}}}",
           f'npuhw.slice_task {{kernel = "conv2d", format = "bf16", output_format = "bf16", '
           f"stride = {arr([s, s])}, dilation = {arr(dil)}, input = {operand(pa, img, 2)}, "
           f"weights = {operand(addr[1], list(wp.shape), 2)}, "
           f"scale_bias = {operand(addr[2], [o], 4)}, output = {operand(ca, list(out), 2)}}}",
           f'npuhw.slice_task {{kernel = "convert", format = "bf16", scale = {s2} : f64, '
           f"input = {operand(ca, list(out), 2)}, output = {operand(qa, list(out))}}}"]
    np.testing.assert_array_equal(run_npu(tmp_path, [seg8, wbits, bias], out, npu, qa), want)
