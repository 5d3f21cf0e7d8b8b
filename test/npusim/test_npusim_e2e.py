"""End to end on the npu-sim device: a hand-written npuhw program (an int8
convolution with per-channel requantization, random odd shapes, strides,
dilations, pads and groups, output channels not a multiple of the weight
block) is packaged into an artifact with `strata-npu package`, run with
`strata run --device npu-sim --profile`, and compared with a numpy reference
of the numeric contract (docs/npu-sim.md), bit-exact. The profile's MAC count
and the Chrome trace are checked against the shapes; corrupted NPU sections
are refused with a message. An int8 add with `rounding = "tflite"` matches
TFLite's reference ADD (written here from its source), bit-exact."""
import json
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")
NPU = os.path.join(BIN, "strata-npu")
B = 4  # weight_channel_block of the default configuration


def run(*args):
    return subprocess.run(list(map(str, args)), capture_output=True, text=True,
                          timeout=120)


def requant(acc, mult, shift, zp, lo, hi):
    """round_half_away_from_zero(acc * mult / 2^shift) + zp, clamped; exact
    in Python integers (strata::intq::requantMultiplierShift)."""
    out = np.empty_like(acc)
    flat, res = acc.reshape(-1), out.reshape(-1)
    c = acc.shape[1]
    for i, a in enumerate(flat):
        ch = (i // int(np.prod(acc.shape[2:]))) % c
        p = int(a) * int(mult[ch])
        s = int(shift[ch])
        half = 1 << (s - 1) if s else 0
        q = (p + half) >> s if p >= 0 else -((-p + half) >> s)
        res[i] = min(max(q + zp, lo), hi)
    return out


def reference(x, w, bias, mult, shift, stride, dil, pad, groups, xzp, wzp, ozp,
              lo, hi):
    n, c, h, wd = x.shape
    o, icg, kh, kw = w.shape
    oh = (h + pad[0] + pad[2] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + pad[1] + pad[3] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xp = np.full((n, c, h + pad[0] + pad[2], wd + pad[1] + pad[3]), xzp, np.int64)
    xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd] = x
    xp -= xzp
    wz = w.astype(np.int64) - wzp
    acc = np.zeros((n, o, oh, ow), np.int64) + bias.reshape(1, o, 1, 1)
    ocg = o // groups
    for oc in range(o):
        g = oc // ocg
        for ky in range(kh):
            for kx in range(kw):
                patch = xp[:, g * icg:(g + 1) * icg,
                           ky * dil[0]:ky * dil[0] + (oh - 1) * stride[0] + 1:stride[0],
                           kx * dil[1]:kx * dil[1] + (ow - 1) * stride[1] + 1:stride[1]]
                acc[:, oc] += np.einsum("nchw,c->nhw", patch, wz[oc, :, ky, kx])
    acc = ((acc + 2**31) % 2**32) - 2**31  # 32-bit accumulators wrap
    return requant(acc, mult, shift, ozp, lo, hi).astype(np.int8)


def pack(w):
    """[O, I, KH, KW] -> (O/B) I KH KW B, padded with zero weights."""
    o = w.shape[0]
    ob = (o + B - 1) // B
    p = np.zeros((ob * B,) + w.shape[1:], w.dtype)
    p[:o] = w
    return np.ascontiguousarray(p.reshape(ob, B, *w.shape[1:]).transpose(0, 2, 3, 4, 1))


def operand(addr, dims, elem_bytes=1):
    strides, s = [], elem_bytes
    for d in reversed(dims):
        strides.insert(0, s)
        s *= d
    return ("#npuhw.operand<address = %d, dims = [%s], strides = [%s]>"
            % (addr, ", ".join(map(str, dims)), ", ".join(map(str, strides))))


def align(v):
    return (v + 63) // 64 * 64


def program(case):
    x, wp, sb, out_shape = case["x"], case["wp"], case["sb"], case["out_shape"]
    sizes = [x.size, wp.size, sb.size * 4, int(np.prod(out_shape))]
    addr = [0]
    for s in sizes[:-1]:
        addr.append(align(addr[-1] + s))
    names = ["input", "weights", "scale_bias", "output"]
    binds = ", ".join('#npuhw.binding<name = "%s", size = %d, writable = %s>'
                      % (n, s, "true" if n == "output" else "false")
                      for n, s in zip(names, sizes))

    def dma(op, b):
        return ("    npuhw.%s {binding = %d : i32, lram_address = %d : i64, "
                "counts = array<i64: %d>, dram_strides = array<i64: 1>, "
                "lram_strides = array<i64: 1>}\n" % (op, b, addr[b], sizes[b]))
    c = case
    task = ('    npuhw.slice_task {kernel = "conv2d", name = "conv", slice = 1 : i32,\n'
            "      input = %s,\n      weights = %s,\n      scale_bias = %s,\n"
            "      output = %s,\n      stride = array<i64: %d, %d>, dilation = array<i64: %d, %d>,\n"
            "      pad = array<i64: %d, %d, %d, %d>, groups = %d, input_zp = %d,\n"
            "      weight_zp = %d, output_zp = %d, clip_min = %d, clip_max = %d,\n"
            "      vector_mode = %d : i32}\n"
            % (operand(addr[0], x.shape), operand(addr[1], wp.shape),
               operand(addr[2], sb.shape, 4), operand(addr[3], out_shape),
               *c["stride"], *c["dil"], *c["pad"], c["groups"], c["xzp"], c["wzp"],
               c["ozp"], c["lo"], c["hi"], c["mode"]))
    return ("npuhw.program @conv attributes {config = {}, bindings = [%s]} {\n"
            "  npuhw.segment {\n%s%s%s    npuhw.wait\n%s    npuhw.wait\n%s  }\n}\n"
            % (binds, dma("dma_load", 0), dma("dma_load", 1), dma("dma_load", 2),
               task, dma("dma_store", 3)))


def make_case(rng):
    groups = int(rng.integers(1, 3))
    c = groups * int(rng.integers(1, 4))
    o = groups * int(rng.integers(1, 4))
    kh, kw = (int(v) for v in rng.integers(1, 4, 2))
    h = int(rng.integers(kh + 2, 12))
    w = int(rng.integers(kw + 2, 12))
    stride = [int(v) for v in rng.integers(1, 3, 2)]
    dil = [int(v) for v in rng.integers(1, 3, 2)]
    pad = [int(v) for v in rng.integers(0, 3, 4)]
    x = rng.integers(-128, 128, (1, c, h, w), dtype=np.int8)
    wt = rng.integers(-128, 128, (o, c // groups, kh, kw), dtype=np.int8)
    bias = rng.integers(-3000, 3000, o).astype(np.int64)
    mult = rng.integers(1 << 29, (1 << 31) - 1, o).astype(np.int64)
    shift = rng.integers(36, 40, o).astype(np.int64)
    sb = np.stack([bias, mult, shift], 1).astype(np.int32)
    case = dict(x=x, wt=wt, wp=pack(wt), sb=sb, stride=stride, dil=dil, pad=pad,
                groups=groups, xzp=int(rng.integers(-128, 128)),
                wzp=int(rng.integers(-3, 4)), ozp=int(rng.integers(-10, 10)),
                lo=-128, hi=127, mode=int(rng.integers(0, 3)))
    case["lo"] = case["ozp"]  # a fused ReLU
    case["want"] = reference(x, wt, bias, mult, shift, stride, dil, pad, groups,
                             case["xzp"], case["wzp"], case["ozp"], case["lo"],
                             case["hi"])
    case["out_shape"] = list(case["want"].shape)
    return case


def build(tmp_path, case):
    mlir = tmp_path / "conv.mlir"
    mlir.write_text(program(case))
    np.savez(tmp_path / "w.npz", weights=case["wp"], scale_bias=case["sb"])
    model = tmp_path / "conv.strata"
    shape = lambda a: "x".join(map(str, a))
    r = run(NPU, "package", mlir, "--constants", tmp_path / "w.npz",
            "--input", "input=i8:" + shape(case["x"].shape),
            "--output", "output=i8:" + shape(case["out_shape"]), "-o", model)
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", input=case["x"])
    return model


@pytest.mark.parametrize("seed", range(6))
def test_npusim_conv_bit_exact(tmp_path, seed):
    case = make_case(np.random.default_rng(seed))
    model = build(tmp_path, case)
    trace = tmp_path / "trace.json"
    r = run(STRATA, "run", model, "--input", tmp_path / "in.npz", "--output",
            tmp_path / "out.npz", "--device", "npu-sim", "--profile", trace)
    assert r.returncode == 0, r.stderr
    got = np.load(tmp_path / "out.npz")["output"]
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, case["want"])
    # The artifact's listing is the program packaged.
    d = run(NPU, "disasm", model)
    assert d.returncode == 0, d.stderr
    assert d.stdout.count("npuhw.slice_task") == 1
    assert 'kernel = "conv2d"' in d.stdout and "npuhw.program @conv" in d.stdout
    o, icg, kh, kw = case["wt"].shape
    macs = int(np.prod(case["out_shape"])) * icg * kh * kw
    assert "npu-sim dispatch 0 'conv': " in r.stdout, r.stdout
    assert " %d MACs" % macs in r.stdout, r.stdout
    events = json.loads(trace.read_text())["traceEvents"]
    slices = [e for e in events if e.get("ph") == "X" and e["tid"] == 2]
    assert [e["args"]["macs"] for e in slices] == [macs]
    dmas = [e for e in events if e.get("ph") == "X" and e["tid"] == 0]
    assert len(dmas) == 4
    # The slice task starts after the loads (a wait) and the store after it.
    loads_end = max(e["ts"] + e["dur"] for e in dmas[:3])
    assert slices[0]["ts"] >= loads_end - 1e-9
    assert dmas[3]["ts"] >= slices[0]["ts"] + slices[0]["dur"] - 1e-9


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def corrupt(model, out, edit):
    """Applies `edit` to the NPU program inside the artifact's data segment
    and fixes the segment's checksum, so only the driver can notice."""
    data = bytearray(model.read_bytes())
    start = int.from_bytes(data[32:40], "little")
    size = int.from_bytes(data[40:48], "little")
    ident = data.find(b"SNPU", start)
    assert ident > 0
    edit(data, ident - 4)  # the program starts 4 bytes before its identifier
    data[60:64] = crc32c(bytes(data[start:start + size])).to_bytes(4, "little")
    out.write_bytes(bytes(data))
    return out


def test_npusim_corrupted_section_refused(tmp_path):
    case = make_case(np.random.default_rng(100))
    model = build(tmp_path, case)
    r = run(STRATA, "run", model, "--input", tmp_path / "in.npz", "--output",
            tmp_path / "out.npz", "--device", "npu-sim")
    assert r.returncode == 0, r.stderr

    def bad_id(data, p):
        data[p + 4:p + 8] = b"XXXX"
    bad = corrupt(model, tmp_path / "bad.strata", bad_id)
    r = run(STRATA, "run", bad, "--input", tmp_path / "in.npz", "--output",
            tmp_path / "out.npz", "--device", "npu-sim")
    assert r.returncode == 1
    assert "npu-sim executable 'conv': npu program: bad file identifier" in r.stderr, r.stderr
    r = run(NPU, "disasm", bad)
    assert r.returncode == 1
    assert "npu program: bad file identifier" in r.stderr, r.stderr

    # Random byte flips inside the program: refused with a message or run,
    # never a crash (a signal gives a negative return code).
    rng = np.random.default_rng(7)
    refused = 0
    for i in range(40):
        def flip(data, p):
            n = 600  # the program is larger; flips stay inside it
            for _ in range(3):
                k = p + int(rng.integers(0, n))
                data[k] = int(rng.integers(0, 256))
        bad = corrupt(model, tmp_path / ("flip%d.strata" % i), flip)
        r = run(STRATA, "run", bad, "--input", tmp_path / "in.npz", "--output",
                tmp_path / "out.npz", "--device", "npu-sim")
        assert r.returncode in (0, 1), (r.returncode, r.stderr)
        if r.returncode == 1:
            assert "strata run: " in r.stderr
            refused += 1
    assert refused > 0


def test_strata_npu_refuses_non_regular_inputs(tmp_path):
    # A device or a folder given as input is refused by kind, before any
    # read (reading /dev/zero would never end).
    for args, what in ((("disasm", "/dev/zero"), "npu program or artifact"),
                       (("asm", "/dev/zero", "-o", tmp_path / "x.snpu"), "npuhw program"),
                       (("disasm", tmp_path), "npu program or artifact")):
        r = subprocess.run([NPU, *args], capture_output=True, text=True, timeout=30)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        assert f"cannot read {what} '" in r.stderr and "not a regular file" in r.stderr, r.stderr
    assert not (tmp_path / "x.snpu").exists()


def test_npusim_bad_device_option(tmp_path):
    case = make_case(np.random.default_rng(101))
    model = build(tmp_path, case)
    r = run(STRATA, "run", model, "--input", tmp_path / "in.npz", "--output",
            tmp_path / "out.npz", "--device", "tpu")
    assert r.returncode == 2 and "--device 'tpu' is not a device" in r.stderr


def quantize_multiplier(real):
    """TFLite's QuantizeMultiplier for 0 < real < 1: (Q0.31 m, right shift)."""
    import math
    frac, exp = math.frexp(real)
    q = int(round(frac * (1 << 31)))
    if q == 1 << 31:
        q //= 2
        exp += 1
    return q, -exp


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul on Python ints."""
    if a == b == -(1 << 31):
        return (1 << 31) - 1
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    v = ab + nudge
    q = abs(v) >> 31  # C++ division truncates toward zero
    return q if v >= 0 else -q


def rdbpot(x, e):
    mask = (1 << e) - 1
    rem = x & mask
    thr = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if rem > thr else 0)


def tflite_add(a, b, za, zb, zo, sa, sb, so):
    """TFLite's reference int8 ADD (left shift 20), written from its source."""
    twice_max = 2 * max(sa, sb)
    m1, s1 = quantize_multiplier(sa / twice_max)
    m2, s2 = quantize_multiplier(sb / twice_max)
    mo, s_o = quantize_multiplier(twice_max / ((1 << 20) * so))
    out = []
    for x, y in zip(a.tolist(), b.tolist()):
        x1 = rdbpot(srdhm((x - za) * (1 << 20), m1), s1)
        y1 = rdbpot(srdhm((y - zb) * (1 << 20), m2), s2)
        r = rdbpot(srdhm(x1 + y1, mo), s_o) + zo
        out.append(min(max(r, -128), 127))
    return np.array(out, np.int8), (m1, s1, m2, s2, mo, s_o)


@pytest.mark.parametrize("seed", range(3))
def test_npusim_add_matches_tflite_reference(tmp_path, seed):
    rng = np.random.default_rng(200 + seed)
    n = int(rng.integers(1, 300))
    a = rng.integers(-128, 128, n, dtype=np.int8)
    b = rng.integers(-128, 128, n, dtype=np.int8)
    za, zb, zo = (int(v) for v in rng.integers(-128, 128, 3))
    sa, sb, so = (float(v) for v in rng.uniform(0.01, 0.2, 3))
    want, (m1, s1, m2, s2, mo, s_o) = tflite_add(a, b, za, zb, zo, sa, sb, so)
    binds = ", ".join('#npuhw.binding<name = "%s", size = %d, writable = %s>'
                      % (nm, n, "true" if nm == "y" else "false")
                      for nm in ("a", "b", "y"))
    base = [0, align(n), 2 * align(n)]

    def dma(op, i):
        return ("    npuhw.%s {binding = %d : i32, lram_address = %d : i64, "
                "counts = array<i64: %d>, dram_strides = array<i64: 1>, "
                "lram_strides = array<i64: 1>}\n" % (op, i, base[i], n))
    mlir = ("npuhw.program @add attributes {config = {}, bindings = [%s]} {\n"
            "  npuhw.segment {\n%s%s    npuhw.wait\n"
            '    npuhw.slice_task {kernel = "add", rounding = "tflite", left_shift = 20,\n'
            "      input_zp = %d, input2_zp = %d, output_zp = %d,\n"
            "      input_multiplier = %d, input_shift = %d, input2_multiplier = %d,\n"
            "      input2_shift = %d, multiplier = %d, shift = %d,\n"
            "      input = %s, input2 = %s, output = %s}\n"
            "    npuhw.wait\n%s  }\n}\n"
            % (binds, dma("dma_load", 0), dma("dma_load", 1), za, zb, zo, m1, s1,
               m2, s2, mo, s_o, operand(base[0], [n]), operand(base[1], [n]),
               operand(base[2], [n]), dma("dma_store", 2)))
    (tmp_path / "add.mlir").write_text(mlir)
    model = tmp_path / "add.strata"
    r = run(NPU, "package", tmp_path / "add.mlir", "--input", "a=i8:%d" % n,
            "--input", "b=i8:%d" % n, "--output", "y=i8:%d" % n, "-o", model)
    assert r.returncode == 0, r.stderr
    np.savez(tmp_path / "in.npz", a=a, b=b)
    r = run(STRATA, "run", model, "--input", tmp_path / "in.npz", "--output",
            tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], want)
