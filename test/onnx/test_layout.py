"""Transposes left by top-optimize in NHWC models as tf2onnx writes them
(a Transpose to NCHW before every Conv / MaxPool and one back after it,
elementwise ops in NHWC): the MobileNetV2 of scripts/build-bench-models.py at
64x64 is imported (`m_origin.mlir`) and optimized (`m.mlir`); both run with
`strata run-ref`; the optimized outputs must match the imported ones (cosine
>= 0.99999, allclose rtol 1e-4 atol 1e-5) and ONNX Runtime's (rtol 1e-3,
atol 1e-4), and exactly one Permute (the input's, NHWC -> NCHW) remains, as
docs/optimize.md states."""
import importlib.util
import os
import subprocess
import tempfile

import numpy as np

from onnx_harness import ROOT, STRATA, _import, run_ort, run_ref_file


def load_bench_builders():
    path = os.path.join(ROOT, "scripts", "build-bench-models.py")
    spec = importlib.util.spec_from_file_location("build_bench_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30)


def count(path, op):
    with open(path) as f:
        return f.read().count(f"= top.{op}(")


def test_mobilenetv2_nhwc_transposes_cancel():
    bench = load_bench_builders()
    model = bench.build_mobilenetv2(np.random.default_rng(0), nhwc=True, size=64)
    n_transposes = sum(node.op_type == "Transpose" for node in model.graph.node)
    assert n_transposes == 104
    x = np.random.default_rng(1).standard_normal((1, 64, 64, 3)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        r = _import(model, tmp)
        assert r.returncode == 0, r.stderr
        origin_path, opt_path = os.path.join(tmp, "m_origin.mlir"), os.path.join(tmp, "m.mlir")
        assert count(origin_path, "Permute") == n_transposes
        assert count(opt_path, "Permute") == 1
        origin = run_ref_file(origin_path, {"input": x}, tmp, "origin")["logits"]
        optimized = run_ref_file(opt_path, {"input": x}, tmp, "opt")["logits"]
    want = run_ort(model, {"input": x})["logits"]
    assert cosine(origin, optimized) >= 0.99999, cosine(origin, optimized)
    np.testing.assert_allclose(optimized, origin, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(optimized, want, rtol=1e-3, atol=1e-4)


def test_convert_layout_both_ways():
    """`strata compile --layout`: the NHWC model converted to NCHW and the
    NCHW model converted to NHWC keep one Permute (the input's) and the
    outputs of the imported model (cosine >= 0.99999, rtol 1e-4 atol 1e-5)."""
    bench = load_bench_builders()
    rng_input = np.random.default_rng(2).standard_normal((1, 3, 64, 64)).astype(np.float32)
    for nhwc, layout in [(True, "nchw"), (False, "nhwc")]:
        model = bench.build_mobilenetv2(np.random.default_rng(0), nhwc=nhwc, size=64)
        x = rng_input.transpose(0, 2, 3, 1).copy() if nhwc else rng_input
        with tempfile.TemporaryDirectory() as tmp:
            r = _import(model, tmp, ["--no-optimize"])
            assert r.returncode == 0, r.stderr
            origin_path = os.path.join(tmp, "m_origin.mlir")
            r = subprocess.run([STRATA, "compile", origin_path, "-o", tmp, "--name", "c",
                                "--layout", layout], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            compiled = os.path.join(tmp, "c.mlir")
            assert count(compiled, "Permute") == 1, layout
            with open(compiled) as f:
                text = f.read()
            other = "NHWC" if layout == "nchw" else "NCHW"
            assert f'layout = #top.layout<{other}>' not in text
            if layout == "nhwc":
                sensitive = count(compiled, "Conv") + count(compiled, "GlobalAvgPool")
                assert text.count('layout = #top.layout<NHWC>') == sensitive
            origin = run_ref_file(origin_path, {"input": x}, tmp, "origin")["logits"]
            converted = run_ref_file(compiled, {"input": x}, tmp, "conv")["logits"]
        assert cosine(origin, converted) >= 0.99999, (layout, cosine(origin, converted))
        np.testing.assert_allclose(converted, origin, rtol=1e-4, atol=1e-5, err_msg=layout)


def test_compile_rejects_bad_layout(tmp_path):
    r = subprocess.run([STRATA, "compile", "nothing.mlir", "-o", str(tmp_path),
                        "--layout", "nwhc"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "--layout 'nwhc' must be 'nchw' or 'nhwc'" in r.stderr


def test_pad_softmax_concat_sink(tmp_path):
    """Pad (reflect), Concat, Softmax, a linear Resize and a broadcast Add of
    a per-channel constant between tf2onnx-style Transpose pairs: all pairs cancel, the
    outputs match ONNX Runtime (rtol 1e-4, atol 1e-5)."""
    from onnx import helper
    from onnx_harness import make_model
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 6, 5, 4)).astype(np.float32)      # NHWC
    w = rng.standard_normal((4, 4, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)               # per NHWC channel
    to_nchw, to_nhwc = [0, 3, 1, 2], [0, 2, 3, 1]
    nodes = [
        helper.make_node("Pad", ["x", "pads"], ["p"], mode="reflect"),
        helper.make_node("Transpose", ["p"], ["pt"], perm=to_nchw),
        helper.make_node("Conv", ["pt", "w"], ["c"], kernel_shape=[3, 3]),
        helper.make_node("Transpose", ["c"], ["ct"], perm=to_nhwc),
        helper.make_node("Concat", ["ct", "x"], ["cat"], axis=3),
        helper.make_node("Add", ["cat", "bias"], ["a"]),
        helper.make_node("Softmax", ["a"], ["sm"], axis=-1),
        helper.make_node("Resize", ["sm", "", "scales"], ["s"], mode="linear"),
        helper.make_node("Transpose", ["s"], ["st"], perm=to_nchw),
        helper.make_node("MaxPool", ["st"], ["m"], kernel_shape=[2, 2]),
        helper.make_node("Transpose", ["m"], ["y"], perm=to_nhwc),
    ]
    inits = {"pads": np.array([0, 1, 1, 0, 0, 1, 1, 0], np.int64), "w": w, "bias": bias,
             "scales": np.array([1, 2, 1.5, 1], np.float32)}
    model = make_model(nodes, {"x": x}, ["y"], inits)
    r = _import(model, str(tmp_path))
    assert r.returncode == 0, r.stderr
    opt = str(tmp_path / "m.mlir")
    assert count(str(tmp_path / "m_origin.mlir"), "Permute") == 4
    # The Conv's input keeps one (NHWC -> NCHW), the MaxPool's output one.
    assert count(opt, "Permute") == 2
    got = run_ref_file(opt, {"x": x}, str(tmp_path), "opt")["y"]
    np.testing.assert_allclose(got, run_ort(model, {"x": x})["y"], rtol=1e-4, atol=1e-5)


def test_nhwc_pad_scale_shift_fold_into_conv(tmp_path):
    """tf2onnx's ZeroPadding2D and a BatchNorm exported as Mul/Add by
    per-channel constants in NHWC, between convolutions: once the
    Transposes are sunk, the Pad folds into the next Conv's pads, Mul/Add
    into the Conv's filter and bias and the Relu into its epilogue. Outputs
    match ONNX Runtime (rtol 1e-4, atol 1e-5)."""
    from onnx import helper
    from onnx_harness import make_model
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 7, 6, 3)).astype(np.float32)       # NHWC
    inits = {"pads": np.array([0, 1, 1, 0, 0, 1, 1, 0], np.int64),
             "w1": rng.standard_normal((4, 3, 1, 1)).astype(np.float32),
             "w2": rng.standard_normal((5, 4, 3, 3)).astype(np.float32),
             "w3": rng.standard_normal((2, 5, 1, 1)).astype(np.float32),
             "scale": rng.uniform(0.5, 2, 5).astype(np.float32),
             "shift": rng.standard_normal(5).astype(np.float32)}

    def conv(src, w, dst, **attrs):
        return [helper.make_node("Transpose", [src], [src + "_t"], perm=[0, 3, 1, 2]),
                helper.make_node("Conv", [src + "_t", w], [dst + "_c"], **attrs),
                helper.make_node("Transpose", [dst + "_c"], [dst], perm=[0, 2, 3, 1])]

    nodes = (conv("x", "w1", "c1", kernel_shape=[1, 1])
             + [helper.make_node("Pad", ["c1", "pads"], ["p"])]
             + conv("p", "w2", "c2", kernel_shape=[3, 3], strides=[2, 2])
             + [helper.make_node("Mul", ["c2", "scale"], ["m"]),
                helper.make_node("Add", ["m", "shift"], ["a"]),
                helper.make_node("Relu", ["a"], ["r"])]
             + conv("r", "w3", "y", kernel_shape=[1, 1]))
    model = make_model(nodes, {"x": x}, ["y"], inits)
    r = _import(model, str(tmp_path))
    assert r.returncode == 0, r.stderr
    opt = str(tmp_path / "m.mlir")
    with open(opt) as f:
        text = f.read()
    left = [op for op in ("Pad", "Mul", "Add", "Relu") if f"= top.{op}(" in text]
    assert left == [], left
    assert count(opt, "Conv") == 3
    assert count(opt, "Permute") == 2  # the input's and the output's
    assert "do_relu = true" in text and "pads = array<i64: 1, 1, 1, 1>" in text
    got = run_ref_file(opt, {"x": x}, str(tmp_path), "opt")["y"]
    np.testing.assert_allclose(got, run_ort(model, {"x": x})["y"], rtol=1e-4, atol=1e-5)


def test_import_layout_option():
    """`strata import --layout nhwc` converts the optimized model (the origin stays
    as imported); bad values and --no-optimize are rejected."""
    bench = load_bench_builders()
    model = bench.build_mobilenetv2(np.random.default_rng(0), nhwc=False, size=64)
    x = np.random.default_rng(3).standard_normal((1, 3, 64, 64)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        r = _import(model, tmp, ["--layout", "nhwc"])
        assert r.returncode == 0, r.stderr
        origin_path, opt_path = os.path.join(tmp, "m_origin.mlir"), os.path.join(tmp, "m.mlir")
        with open(origin_path) as f:
            assert 'layout = #top.layout<NHWC>' not in f.read()
        with open(opt_path) as f:
            assert 'layout = #top.layout<NHWC>' in f.read()
        assert count(opt_path, "Permute") == 1
        origin = run_ref_file(origin_path, {"input": x}, tmp, "origin")["logits"]
        converted = run_ref_file(opt_path, {"input": x}, tmp, "opt")["logits"]
        np.testing.assert_allclose(converted, origin, rtol=1e-4, atol=1e-5)
        for extra, message in [(["--layout", "nwhc"], "--layout 'nwhc' must be 'nchw' or 'nhwc'"),
                               (["--layout", "nchw", "--no-optimize"],
                                "cannot be combined with --no-optimize")]:
            bad = os.path.join(tmp, "bad")
            os.makedirs(bad, exist_ok=True)
            r = _import(model, bad, extra)
            assert r.returncode == 2 and message in r.stderr, r.stderr
            assert os.listdir(bad) == ["model.onnx"]  # nothing written
