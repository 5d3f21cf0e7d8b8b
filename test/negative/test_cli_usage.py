"""strata command-line misuse: names and output paths that would write
outside -o or onto the wrong kind of file, options given twice, bad pipeline
options, and the help. Clear message, non-zero exit, no crash, no output."""
import os
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper

from negative_harness import BIN, ROOT, assert_clean_failure, strata


def relu_onnx(path):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path.write_bytes(m.SerializeToString())
    return path


def test_import_name_with_path_separators(tmp_path):
    model = relu_onnx(tmp_path / "m.onnx")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    for name in ["../../escaped", "a/b", "..", "x\\y"]:
        r = strata("import", model, "-o", tmp_path / "deep" / "er" / "out", "--name", name)
        assert_clean_failure(r, f"--name '{name}'", "plain file name")
    assert not list(tmp_path.glob("**/*escaped*"))
    assert not (tmp_path / "deep" / "er" / "out").exists()


def test_compile_name_with_path_separators(tmp_path, model_dir):
    r = strata("compile", model_dir / "m.mlir", "-o", tmp_path / "out", "--name", "../x")
    assert_clean_failure(r, "--name '../x'", "plain file name")
    assert not (tmp_path / "x.mlir").exists()


def test_output_folder_is_a_file(tmp_path):
    model = relu_onnx(tmp_path / "m.onnx")
    (tmp_path / "file").write_text("not a folder")
    r = strata("import", model, "-o", tmp_path / "file")
    assert_clean_failure(r, "-o '", "file' is a file", "folder")
    assert (tmp_path / "file").read_text() == "not a folder"


def test_compile_output_folder_is_a_file(tmp_path, model_dir):
    (tmp_path / "file").write_text("x")
    r = strata("compile", model_dir / "m.mlir", "-o", tmp_path / "file")
    assert_clean_failure(r, "is a file", "folder")


def test_output_folder_symlink_loop(tmp_path):
    model = relu_onnx(tmp_path / "m.onnx")
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    r = strata("import", model, "-o", tmp_path / "loop" / "out")
    assert_clean_failure(r, "loop", "symbolic links")


def test_run_ref_output_is_a_folder(model_dir):
    (model_dir / "out.npz").mkdir()
    r = strata("run-ref", model_dir / "m.mlir", "--input", model_dir / "in.npz",
               "--output", model_dir / "out.npz")
    assert_clean_failure(r, "out.npz", "is a folder, not a file")
    assert os.listdir(model_dir / "out.npz") == []


def test_input_given_twice(model_dir):
    np.savez(model_dir / "other.npz", x=np.zeros((1, 2, 4, 4), np.float32))
    r = strata("run-ref", model_dir / "m.mlir", "--input", model_dir / "in.npz",
               "--input", model_dir / "other.npz", "--output", model_dir / "out.npz")
    assert_clean_failure(r, "--input is given 2 times", "give it once")
    assert not (model_dir / "out.npz").exists()


def test_name_given_twice(tmp_path):
    model = relu_onnx(tmp_path / "m.onnx")
    r = strata("import", model, "-o", tmp_path / "out", "--name", "a", "--name", "b")
    assert_clean_failure(r, "--name is given 2 times")
    assert not (tmp_path / "out").exists()


def test_top_optimize_bad_layout(tmp_path, model_dir):
    r = strata("compile", model_dir / "m.mlir", "-o", tmp_path / "out",
               "--passes=top-optimize{layout=diagonal}")
    assert_clean_failure(r, "top-optimize: option 'layout' = 'diagonal'",
                         "must be 'nchw' or 'nhwc'")
    assert not (tmp_path / "out").exists()


def test_strata_opt_top_optimize_bad_layout(model_dir):
    r = subprocess.run([os.path.join(BIN, "strata-opt"), str(model_dir / "m.mlir"),
                        "--top-optimize=layout=diagonal"],
                       capture_output=True, text=True, timeout=120)
    assert_clean_failure(r, "option 'layout' = 'diagonal'", "must be 'nchw' or 'nhwc'")


def test_missing_input_does_not_print_the_function(model_dir):
    np.savez(model_dir / "in.npz", z=np.zeros((1, 2, 4, 4), np.float32))
    r = strata("run-ref", model_dir / "m.mlir", "--input", model_dir / "in.npz",
               "--output", model_dir / "out.npz")
    assert_clean_failure(r, "missing input 'x'")
    # The error's source line may be shown, not the function's body.
    assert "top.Conv" not in r.stderr and "see current operation" not in r.stderr
    assert len(r.stderr.splitlines()) < 6, r.stderr


def test_extra_input_does_not_print_the_function(model_dir):
    np.savez(model_dir / "in.npz", x=np.zeros((1, 2, 4, 4), np.float32),
             extra=np.zeros(1, np.float32))
    r = strata("run-ref", model_dir / "m.mlir", "--input", model_dir / "in.npz",
               "--output", model_dir / "out.npz")
    assert_clean_failure(r, "unknown input 'extra'")
    assert "top.Conv" not in r.stderr and len(r.stderr.splitlines()) < 6, r.stderr


def test_import_does_not_report_files_it_removes(tmp_path):
    """When writing the optimized model fails, the imported files are
    removed again, and no "wrote" line names them."""
    model = relu_onnx(tmp_path / "m.onnx")
    out = tmp_path / "out"
    out.mkdir()
    (out / "m.mlir").mkdir()  # the optimized model's path is taken by a folder
    r = strata("import", model, "-o", out, "--name", "m")
    assert_clean_failure(r, "m.mlir")
    assert "wrote" not in r.stdout, r.stdout
    assert sorted(os.listdir(out)) == ["m.mlir"]


def test_help_shows_strata_options():
    r = strata("--help")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) < 60, f"{len(lines)} lines:\n{r.stdout}"
    for wanted in ["run-ref", "import", "compile", "--max-file-size", "--max-elements",
                   "--max-loop-iterations"]:
        assert wanted in r.stdout, r.stdout
    for llvm_option in ["--mlir-", "--debug-counter", "--color"]:
        assert llvm_option not in r.stdout, r.stdout


def test_subcommand_help_lists_its_options():
    r = strata("run-ref", "--help")
    assert r.returncode == 0
    assert "--input" in r.stdout and "--max-loop-iterations" in r.stdout
    assert len(r.stdout.splitlines()) < 60, r.stdout


# --- scripts run with the project's .venv -----------------------------------------

def test_scripts_use_the_venv(tmp_path):
    """scripts/onnx-conformance, invoked as the docs say with a python3 first
    on PATH that lacks numpy and onnx, re-runs itself with .venv's python."""
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    if not os.path.exists(venv_python):
        pytest.skip("no .venv")
    bare = tmp_path / "bin"
    bare.mkdir()
    # A python3 without the project's packages: the interpreter in isolated
    # mode (-I ignores PYTHONPATH and user site-packages) with -S (no site).
    real = os.path.realpath(sys.executable)
    (bare / "python3").write_text(f"#!/bin/sh\nexec {real} -S \"$@\"\n")
    (bare / "python3").chmod(0o755)
    env = dict(os.environ, PATH=f"{bare}:/usr/bin:/bin")
    probe = subprocess.run(["python3", "-c", "import numpy"], env=env,
                           capture_output=True, text=True)
    assert probe.returncode != 0, "the bare python3 must lack numpy"
    for script in ["onnx-conformance", "build-bench-models.py"]:
        r = subprocess.run([os.path.join(ROOT, "scripts", script), "--help"], env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"{script}: {r.stderr}"
        assert "usage" in r.stdout.lower()
