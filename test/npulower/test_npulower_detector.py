"""A reduced detector on npu-sim (docs/npu.md, "Detectors"): a seeded ONNX
graph with a detector's feature-pyramid step (strided convolutions, a
nearest 2x upsample concatenated with the higher-resolution features, a
1x1 convolution, x + x, a head) is calibrated and quantized by `strata`,
compiled with `strata compile --target npu-sim` and run with `strata run
--device npu-sim`. Every op of the graph runs on the NPU (the resize and the
concat as DMA programs, the add of a tensor to itself included); the output
must equal, byte for byte, `strata run-ref` on the quantized Top model (the
interpreter, which the CPU int8 path matches bit for bit:
test/quant/test_int8_kernels.py). A resize with a non-integer scale stays
on the CPU with the reason named (--explain-strategy), and the artifact
still runs: the same bytes again.

The real models (PP-OCRv4 det, a YOLOX-style detector) are in
test_npulower_models.py (make test-npulower-models)."""
import os
import re
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
STRATA = os.path.join(BIN, "strata")


def strata(*args):
    r = subprocess.run([STRATA, *map(str, args)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, " ".join(map(str, args)) + "\n" + r.stdout + r.stderr
    return r.stdout


def detector(rng, size, b_pad):
    """x -> conv 3x3/2 + relu (a, size/2) -> conv 3x3/2 pad `b_pad` + relu
    (b) -> resize b to a's size (nearest, asymmetric, floor) -> concat(a,
    b_up) -> conv 1x1 + relu (c) -> c + c -> conv 1x1 -> y."""
    nodes, inits = [], []

    def conv(name, x, cin, cout, k, s, relu, pad=None):
        w = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
        b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
        inits.extend([numpy_helper.from_array(w, name + "_w"),
                      numpy_helper.from_array(b, name + "_b")])
        out = name if not relu else name + "_pre"
        nodes.append(helper.make_node("Conv", [x, name + "_w", name + "_b"], [out], name=name,
                                      kernel_shape=[k, k], strides=[s, s],
                                      pads=[k // 2 if pad is None else pad] * 4))
        if relu:
            nodes.append(helper.make_node("Relu", [out], [name], name=name + "_relu"))
        return name

    a = conv("a", "x", 3, 8, 3, 2, True)
    b = conv("b", a, 8, 12, 3, 2, True, pad=b_pad)
    inits.append(numpy_helper.from_array(
        np.array([1, 12, size // 2, size // 2], np.int64), "up_sizes"))
    nodes.append(helper.make_node(
        "Resize", [b, "", "", "up_sizes"], ["b_up"], name="up", mode="nearest",
        coordinate_transformation_mode="asymmetric", nearest_mode="floor"))
    nodes.append(helper.make_node("Concat", [a, "b_up"], ["cat"], name="cat", axis=1))
    c = conv("c", "cat", 20, 8, 1, 1, True)
    nodes.append(helper.make_node("Add", [c, c], ["twice"], name="twice"))
    conv("y", "twice", 8, 4, 1, 1, False)
    graph = helper.make_graph(
        nodes, "detector",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, size // 2, size // 2])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def quantized(tmp_path, size, b_pad):
    rng = np.random.default_rng(14)
    model = tmp_path / "det.onnx"
    onnx.save(detector(rng, size, b_pad), str(model))
    samples = tmp_path / "samples"
    samples.mkdir()
    for i in range(2):
        np.savez(samples / f"s{i}.npz",
                 x=rng.standard_normal((1, 3, size, size)).astype(np.float32))
    strata("calibrate", model, "--data", samples, "-o", tmp_path / "t.txt",
           "--method", "minmax")
    strata("quantize", model, "--quantize", "int8", "--calibration", tmp_path / "t.txt",
           "-o", tmp_path / "q", "--name", "m")
    return tmp_path / "q" / "m.mlir", samples / "s1.npz"


def run_both(tmp_path, q, x, flags=()):
    explain = strata("compile", q, "--target", "npu-sim", "--no-optimize", *flags, "-o",
                     tmp_path / "npu.strata", "--report", "--explain-strategy")
    profile = strata("run", tmp_path / "npu.strata", "--input", x, "--output",
                     tmp_path / "npu.npz", "--device", "npu-sim")
    strata("run-ref", q, "--input", x, "--output", tmp_path / "ref.npz")
    npu, ref = np.load(tmp_path / "npu.npz")["y"], np.load(tmp_path / "ref.npz")["y"]
    assert npu.tobytes() == ref.tobytes(), np.abs(npu - ref).max()
    return explain, profile


def test_detector_on_npu_sim(tmp_path):
    q, x = quantized(tmp_path, 32, b_pad=1)
    explain, profile = run_both(tmp_path, q, x)
    assert "top.Concat 'cat': hl.concat of hl.resize_nearest" in explain, explain
    assert "top.Add 'twice" in explain and "hl.add" in explain, explain
    n = int(re.search(r"(\d+) npu-sim dispatch", explain).group(1))
    # 4 convolutions (b with its table, b's values requantized to the
    # concat's scale before the upsample, in b's activation unit:
    # --npu-fold-tables), the resize, the add and the two input
    # segmentations of the stride-2 convolutions (a feeds b and the concat,
    # so its output is not written segmented); the concat runs no dispatch
    # (--npu-concat-in-place: a and the resize write their results straight
    # into its buffer); the only CPU dispatches are the input's Quant and
    # the output's Dequant.
    assert n == 8, explain
    assert "2 CPU dispatch(es)" in explain, explain
    assert len(re.findall(r"npu-sim dispatch \d+ ", profile)) == n
    assert re.search(r"npu-sim dispatch \d+ 'npu_\d+_b_up'", profile), profile
    assert not re.search(r"npu-sim dispatch \d+ 'npu_\d+_cat", profile), profile
    # Apart: the table and the concat are dispatches of their own (the same
    # bytes).
    explain, profile = run_both(tmp_path, q, x, ["--npu-fold-tables=false",
                                                 "--npu-concat-in-place=false"])
    assert "10 npu-sim dispatch(es)" in explain, explain
    assert re.search(r"npu-sim dispatch \d+ 'npu_\d+_cat", profile), profile


def test_refused_resize_stays_on_cpu(tmp_path):
    """A 31 -> 64 upsample (no integer scale: the resize_nearest task over
    whole planes) on an NPU with 4 KiB of LRAM, where one 64x64 output
    plane does not fit beside its input, is refused by the NPU lowering:
    convert-top-to-hl asks the predicate convert-hl-to-hw applies before
    converting, so the concat of it stays on the CPU with the reason named,
    and the mixed artifact still gives run-ref's bytes (the other layers
    tiled)."""
    q, x = quantized(tmp_path, 128, b_pad=0)
    config = tmp_path / "small.json"
    config.write_text('{"lram_bytes": 4096}')
    explain, _ = run_both(tmp_path, q, x, ["--npu-config", config])
    assert re.search(r"top.Concat 'cat': stays on the CPU: the NPU lowering refuses it: "
                     r"hl.resize_nearest .*do not fit LRAM", explain), explain


def hl_case(d, text, x, out_shape, configs, first="%y"):
    """One HL op on input `x` (int8): npu-sim under each NPU description of
    `configs` gives `strata run-ref`'s bytes."""
    t = "tensor<%sxi8>" % "x".join(map(str, x.shape))
    to = "tensor<%sxi8>" % "x".join(map(str, out_shape))
    d.mkdir()
    (d / "hl.mlir").write_text(
        f'module attributes {{top.weight_file = "w.npz"}} {{\n'
        f'  func.func @main(%x: {t} {{top.name = "input"}}) -> ({to} {{top.name = "output"}}) {{\n'
        f"    {first} = {text.format(t=t, to=to)}\n    return %y : {to}\n  }}\n}}\n")
    np.savez(d / "w.npz")
    np.savez(d / "in.npz", input=x)
    strata("run-ref", d / "hl.mlir", "--input", d / "in.npz", "--output", d / "ref.npz")
    want = np.load(d / "ref.npz")["output"]
    for i, config in enumerate(configs):
        flags = []
        if config:
            (d / "npu.json").write_text(config)
            flags = ["--npu-config", d / "npu.json"]
        strata("compile", d / "hl.mlir", "--target", "npu-sim", "--no-optimize", *flags,
               "-o", d / f"m{i}.strata")
        strata("run", d / f"m{i}.strata", "--input", d / "in.npz", "--output",
               d / f"o{i}.npz", "--device", "npu-sim")
        got = np.load(d / f"o{i}.npz")["output"]
        assert got.tobytes() == want.tobytes(), (config, np.argwhere(got != want)[:5])


@pytest.mark.parametrize("hw,out_hw", [
    ((7, 5), (14, 15)),   # integer upscales: DMA
    ((60, 60), (120, 120)),  # a plane that does not fit 4 KiB: row chunks
    ((12, 9), (4, 3)),    # integer downscales: DMA, strided loads
    ((5, 7), (8, 11)),    # no integer scale: the resize_nearest task
])
def test_resize_nearest_bit_exact(tmp_path, hw, out_hw):
    rng = np.random.default_rng(hw[0] * 100 + out_hw[1])
    c = 3
    x = rng.integers(-128, 128, (1, c) + hw).astype(np.int8)
    hl_case(tmp_path / "r", "hl.resize_nearest(%x) : ({t}) -> {to}", x, (1, c) + out_hw,
            [None, '{"lram_bytes": 4096}'])


def test_concat_bit_exact(tmp_path):
    """x upsampled 2x (u), then concat(u, u, u) along channels: one value
    three times (the dispatch binds it once); under the default and a 4 KiB
    LRAM (each 2000-byte channel plane of an image is one row piece)."""
    rng = np.random.default_rng(3)
    x = rng.integers(-128, 128, (2, 3, 25, 20)).astype(np.int8)
    tu = "tensor<2x3x50x40xi8>"
    body = (f"hl.resize_nearest(%x) : ({{t}}) -> {tu}\n"
            f"    %y = hl.concat(%u, %u, %u) {{{{axis = 1 : i64}}}} : ({tu}, {tu}, {tu}) -> {{to}}")
    hl_case(tmp_path / "c", body, x, (2, 9, 50, 40), [None, '{"lram_bytes": 4096}'], first="%u")
