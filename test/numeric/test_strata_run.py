"""`strata run` and `strata inspect` on artifacts written without the compiler
(`strata-artifact-seeds`, `strata-example-artifact`: built-in kernels only),
outputs checked against numpy.

  add.strata         x f32 [-1, 3] -> y = x + x; variants for batch 1 and 4
  matmul.strata      a f32 [2, 4] (quant 0.5 / 3) -> c = a @ W,
                     W = (arange(12) * 0.25 - 1) as [4, 3], a constant
  constants.strata   no inputs -> a = W as [12], b = W[4:8] as [2, 2]
  example.strata     x f32 [-1, 4] -> y = (x + x) @ (0.5 I); batch 1 and 2
"""
import json
import os
import re
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))
W = (np.arange(12, dtype=np.float32) * 0.25 - 1).astype(np.float32)


def strata(*args):
    return subprocess.run([os.path.join(BIN, "strata"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def art(tmp_path_factory):
    d = tmp_path_factory.mktemp("artifacts")
    subprocess.run([os.path.join(BIN, "strata-artifact-seeds"), str(d)], check=True)
    subprocess.run([os.path.join(BIN, "strata-example-artifact"), str(d / "example.strata")],
                   check=True)
    return d


def run(tmp_path, model, inputs=None, *extra):
    """Runs `model` on `inputs` (None: no --input); returns (outputs, stdout)."""
    args = ["run", model, "--output", tmp_path / "out.npz", *extra]
    if inputs is not None:
        np.savez(tmp_path / "in.npz", **inputs)
        args += ["--input", tmp_path / "in.npz"]
    r = strata(*args)
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        return {k: z[k] for k in z.files}, r.stdout


@pytest.mark.parametrize("batch", [1, 4])
def test_add_each_variant(tmp_path, art, batch):
    x = np.random.default_rng(batch).standard_normal((batch, 3)).astype(np.float32)
    out, _ = run(tmp_path, art / "add.strata", {"x": x})
    assert list(out) == ["y"]
    assert out["y"].dtype == np.float32 and out["y"].shape == (batch, 3)
    np.testing.assert_array_equal(out["y"], x + x)  # exact in float32


def test_matmul_with_a_constant(tmp_path, art):
    a = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    out, _ = run(tmp_path, art / "matmul.strata", {"a": a})
    ref = a.astype(np.float64) @ W.reshape(4, 3).astype(np.float64)
    assert out["c"].shape == (2, 3)
    np.testing.assert_allclose(out["c"], ref, rtol=1e-6, atol=1e-6)


def test_model_without_inputs(tmp_path, art):
    out, _ = run(tmp_path, art / "constants.strata")
    assert sorted(out) == ["a", "b"]
    np.testing.assert_array_equal(out["a"], W)
    np.testing.assert_array_equal(out["b"], W[4:8].reshape(2, 2))
    # An empty --input is fine too.
    out2, _ = run(tmp_path, art / "constants.strata", {})
    np.testing.assert_array_equal(out2["a"], W)


@pytest.mark.parametrize("batch", [1, 2])
def test_example_artifact(tmp_path, art, batch):
    x = np.random.default_rng(7).standard_normal((batch, 4)).astype(np.float32)
    out, _ = run(tmp_path, art / "example.strata", {"x": x})
    np.testing.assert_array_equal(out["y"], (x + x) @ (0.5 * np.eye(4, dtype=np.float32)))


def test_thread_counts_agree_bit_for_bit(tmp_path, art):
    a = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    results = [run(tmp_path, art / "matmul.strata", {"a": a}, "--threads", n)[0]["c"]
               for n in (1, 2, 3)]
    for r in results[1:]:
        assert r.tobytes() == results[0].tobytes()


def test_repeat_prints_latency(tmp_path, art):
    x = np.ones((4, 3), np.float32)
    out, stdout = run(tmp_path, art / "add.strata", {"x": x}, "--repeat", 5, "--warmup", 2,
                      "--threads", 2)
    np.testing.assert_array_equal(out["y"], x + x)
    m = re.fullmatch(r"latency over 5 runs \(2 warmup, 2 threads\): min ([\d.]+) ms, "
                     r"median ([\d.]+) ms, mean ([\d.]+) ms\n", stdout)
    assert m, stdout
    lo, med, mean = map(float, m.groups())
    assert 0 <= lo <= med and lo <= mean


def test_no_latency_without_repeat(tmp_path, art):
    _, stdout = run(tmp_path, art / "add.strata", {"x": np.ones((1, 3), np.float32)})
    assert stdout == ""


def test_inspect_text(art):
    r = strata("inspect", art / "add.strata")
    assert r.returncode == 0, r.stderr
    t = r.stdout
    for line in ["model 'add'", "  producer: seed", "  format version: 1.2",
                 "inputs (1):", "  0: 'x' f32 [-1, 3]", "outputs (1):", "  0: 'y' f32 [-1, 3]",
                 "variants (2):", "  variant 0: inputs [1, 3] -> outputs [1, 3]",
                 "  variant 1: inputs [4, 3] -> outputs [4, 3]", "    arena: 48 bytes",
                 "      0: cpu kernel 'add_f32', 2 workgroups, params [12]",
                 "         binding 2: buffer 1 (arena @0 f32 [4, 3])",
                 "      1: cpu kernel 'copy', 3 workgroups, params [48]",
                 "         binding 1: buffer 2 (output 'y' f32 [4, 3])",
                 "executables (0):", "constants: 0 bytes (data segment 0 bytes)"]:
        assert line + "\n" in t or line in t.splitlines(), f"{line!r} not in:\n{t}"


def test_inspect_json(art):
    r = strata("inspect", art / "matmul.strata", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["name"] == "matmul" and j["producer"] == "seed" and j["format_version"] == "1.2"
    assert j["inputs"] == [{"name": "a", "dtype": "f32", "shape": [2, 4],
                            "quant": {"scale": 0.5, "zero_point": 3}}]
    assert j["outputs"] == [{"name": "c", "dtype": "f32", "shape": [2, 3], "quant": None}]
    assert j["constants_size"] == 48 and j["data_size"] >= 48
    assert j["file_size"] == os.path.getsize(art / "matmul.strata")
    (v,) = j["variants"]
    assert v["input_shapes"] == [[2, 4]] and v["output_shapes"] == [[2, 3]]
    assert [b["kind"] for b in v["buffers"]] == ["input", "constant", "output"]
    assert v["buffers"][1] == {"kind": "constant", "offset": 0, "size": 48, "dtype": "f32",
                               "shape": [4, 3]}
    assert v["dispatches"] == [{"device": "cpu", "kind": "kernel", "symbol": "matmul_f32",
                                "bindings": [0, 1, 2], "params": [2, 3, 4],
                                "workgroup_count": 2}]
    assert j["executables"] == []


def test_inspect_json_without_inputs(art):
    r = strata("inspect", art / "constants.strata", "--json")
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    assert j["inputs"] == [] and [o["name"] for o in j["outputs"]] == ["a", "b"]
    # a covers W (48 bytes), b is a separate 16-byte blob at the next 64-byte slot.
    assert j["constants_size"] == 64
    assert j["variants"][0]["input_shapes"] == []


def test_inspect_text_quant_and_constants(art):
    r = strata("inspect", art / "matmul.strata")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "  0: 'a' f32 [2, 4] quant(scale 0.5, zero_point 3)" in lines, r.stdout
    assert "      1: constant @0 f32 [4, 3], 48 bytes" in lines, r.stdout
    assert any(l.startswith("constants: 48 bytes (data segment ") for l in lines), r.stdout


def test_compiled_onnx_model_end_to_end(tmp_path):
    """The whole path on a model `strata compile --target cpu` builds: native
    code in the artifact (the Abs; the Add is a runtime kernel), two
    variants, run through `strata run`."""
    from onnx import TensorProto, helper, save
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Abs", ["s"], ["z"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    save(m, tmp_path / "ar.onnx")
    art = tmp_path / "ar.strata"
    r = strata("compile", tmp_path / "ar.onnx", "--target", "cpu", "-o", art,
               "--input-shapes", "x:1x3", "--input-shapes", "x:4x3", "--input-shapes", "y:3")
    assert r.returncode == 0, r.stderr
    j = json.loads(strata("inspect", art, "--json").stdout)
    assert [v["input_shapes"] for v in j["variants"]] == [[[1, 3], [3]], [[4, 3], [3]]]
    assert all([d["kind"] for d in v["dispatches"]] == ["kernel", "native"]
               for v in j["variants"])
    assert j["executables"] and all(e["format"] == "elf-x86_64" for e in j["executables"])
    rng = np.random.default_rng(11)
    y = rng.standard_normal(3).astype(np.float32)
    for batch in (1, 4):
        x = rng.standard_normal((batch, 3)).astype(np.float32)
        out, _ = run(tmp_path, art, {"x": x, "y": y}, "--threads", 2)
        np.testing.assert_array_equal(out["z"], np.abs(x + y))  # exact in float32
