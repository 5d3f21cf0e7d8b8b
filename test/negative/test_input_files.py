"""Files the tools read (ONNX model, .mlir, npz, weight files): only regular
files within the size limit, named paths kept inside the model's folder, and
.mlir text the parser can take. Every case: a clear message, a non-zero exit,
no crash and no output file."""
import os
import shutil

import pytest
from onnx import TensorProto, helper

from negative_harness import GOOD_MODEL, assert_clean_failure, strata


def tiny_onnx():
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m.SerializeToString()


def run_ref(d, model="m.mlir", inp="in.npz", extra=()):
    return strata("run-ref", d / model, "--input", d / inp, "--output", d / "out.npz", *extra)


# --- non-regular files and the size limit ------------------------------------

def test_import_dev_zero(tmp_path):
    r = strata("import", "/dev/zero", "-o", tmp_path / "out")
    assert_clean_failure(r, "'/dev/zero'", "character device", "not a regular file")
    assert not (tmp_path / "out").exists()


def test_import_fifo(tmp_path):
    os.mkfifo(tmp_path / "pipe.onnx")
    r = strata("import", tmp_path / "pipe.onnx", "-o", tmp_path / "out")
    assert_clean_failure(r, "pipe.onnx", "is a pipe", "not a regular file")


def test_import_directory(tmp_path):
    (tmp_path / "d.onnx").mkdir()
    r = strata("import", tmp_path / "d.onnx", "-o", tmp_path / "out")
    assert_clean_failure(r, "d.onnx", "is a directory")


def test_import_over_the_size_limit(tmp_path):
    """A sparse 9 GiB file is refused by its size, before anything is read."""
    big = tmp_path / "big.onnx"
    with open(big, "wb") as f:
        f.truncate(9 << 30)
    r = strata("import", big, "-o", tmp_path / "out")
    assert_clean_failure(r, "big.onnx", "9663676416 bytes (9 GiB)", "over the limit of",
                         "8 GiB", "--max-file-size")
    assert not (tmp_path / "out").exists()


def test_max_file_size_option(tmp_path):
    (tmp_path / "m.onnx").write_bytes(tiny_onnx())
    size = (tmp_path / "m.onnx").stat().st_size
    r = strata("import", tmp_path / "m.onnx", "-o", tmp_path / "out",
               f"--max-file-size={size - 1}")
    assert_clean_failure(r, "m.onnx", f"is {size} bytes", f"limit of {size - 1} bytes")
    r = strata("import", tmp_path / "m.onnx", "-o", tmp_path / "out", "--max-file-size=1M")
    assert r.returncode == 0, r.stderr


def test_max_file_size_malformed(tmp_path):
    (tmp_path / "m.onnx").write_bytes(tiny_onnx())
    r = strata("import", tmp_path / "m.onnx", "-o", tmp_path / "out", "--max-file-size=lots")
    assert_clean_failure(r, "--max-file-size 'lots'", "K, M, G or T")


def test_run_ref_mlir_over_the_size_limit(model_dir):
    r = run_ref(model_dir, extra=["--max-file-size=100"])
    assert_clean_failure(r, "m.mlir", "over the limit of 100 bytes", "--max-file-size")
    assert not (model_dir / "out.npz").exists()


def test_run_ref_input_npz_is_dev_zero(model_dir):
    r = strata("run-ref", model_dir / "m.mlir", "--input", "/dev/zero",
               "--output", model_dir / "out.npz")
    assert_clean_failure(r, "npz '/dev/zero'", "not a regular file")
    assert not (model_dir / "out.npz").exists()


def test_run_ref_input_is_directory(model_dir):
    (model_dir / "d.npz").mkdir()
    r = run_ref(model_dir, inp="d.npz")
    assert_clean_failure(r, "d.npz", "is a directory")


def test_run_ref_weights_is_fifo(model_dir):
    os.mkfifo(model_dir / "p.npz")
    r = run_ref(model_dir, extra=["--weights", model_dir / "p.npz"])
    assert_clean_failure(r, "p.npz", "is a pipe")


def test_symlink_loop(model_dir):
    os.symlink(model_dir / "loop.mlir", model_dir / "loop.mlir")
    r = run_ref(model_dir, model="loop.mlir")
    assert_clean_failure(r, "loop.mlir", "symbolic links", "symlink loop")


def test_compile_of_an_npz(model_dir, tmp_path):
    r = strata("compile", model_dir / "w.npz", "-o", tmp_path / "out")
    assert_clean_failure(r, "w.npz", "is a zip archive (an npz weight file?)")
    assert not (tmp_path / "out").exists()


# --- .mlir text -----------------------------------------------------------------

def test_mlir_nul_byte(model_dir):
    text = GOOD_MODEL.replace("top.Conv", "top.C\0onv")
    (model_dir / "nul.mlir").write_text(text)
    r = run_ref(model_dir, model="nul.mlir")
    line = text[:text.index("\0")].count("\n") + 1
    assert_clean_failure(r, "nul.mlir", f"line {line}, column", "NUL byte", "a .mlir file is text")


@pytest.mark.parametrize("bracket", ["(", "[", "{", "<"])
def test_mlir_deep_nesting(model_dir, bracket):
    """Nesting the parser would recurse into until the stack overflows."""
    closing = {"(": ")", "[": "]", "{": "}", "<": ">"}[bracket]
    depth = 100000
    (model_dir / "deep.mlir").write_text(
        "module attributes {a = " + bracket * depth + closing * depth + "} {}\n")
    r = run_ref(model_dir, model="deep.mlir")
    assert_clean_failure(r, "deep.mlir", "line 1, column", "nest more than 256 deep")


def test_mlir_nesting_at_the_limit_parses(model_dir):
    """256 levels is within the documented limit: parsed (and then refused
    for what it is, not for its depth)."""
    (model_dir / "ok.mlir").write_text(
        "module attributes {a = " + "[" * 254 + "]" * 254 + "} {}\n")
    r = run_ref(model_dir, model="ok.mlir")
    assert r.returncode == 1, r.stderr
    assert "nest more than" not in r.stderr and "Stack dump" not in r.stderr


def test_mlir_brackets_in_strings_do_not_count(model_dir):
    """Brackets in a string (a location) and a comment are not nesting."""
    (model_dir / "s.mlir").write_text(
        "// " + "[" * 1000 + "\n" +
        GOOD_MODEL.replace("return %1 : tensor<1x3x4x4xf32>",
                           'return %1 : tensor<1x3x4x4xf32> loc("' + "(" * 1000 + '")'))
    r = run_ref(model_dir, model="s.mlir")
    assert r.returncode == 0, r.stderr


# --- paths a model names --------------------------------------------------------

@pytest.mark.parametrize("weight_file", ["../../etc/passwd", "/etc/passwd",
                                         "../secret/w.npz"])
def test_weight_file_outside_the_model_folder(tmp_path, model_dir, weight_file):
    secret = tmp_path / "secret"
    secret.mkdir()
    shutil.copy(model_dir / "w.npz", secret / "w.npz")
    (model_dir / "esc.mlir").write_text(
        GOOD_MODEL.replace('"w.npz"', '"' + weight_file + '"'))
    r = run_ref(model_dir, model="esc.mlir")
    assert_clean_failure(r, "top.weight_file", weight_file, "--weights")
    assert not (model_dir / "out.npz").exists()


def test_weight_file_symlink_out_of_the_folder(tmp_path_factory, model_dir):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (model_dir / "w.npz").rename(elsewhere / "w.npz")
    os.symlink(elsewhere / "w.npz", model_dir / "w.npz")
    r = run_ref(model_dir)
    assert_clean_failure(r, "top.weight_file 'w.npz'", "resolves outside the model's folder")


def test_weight_file_elsewhere_with_explicit_weights(tmp_path, model_dir):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (model_dir / "w.npz").rename(elsewhere / "w.npz")
    (model_dir / "esc.mlir").write_text(GOOD_MODEL.replace('"w.npz"', '"../elsewhere/w.npz"'))
    r = run_ref(model_dir, model="esc.mlir", extra=["--weights", elsewhere / "w.npz"])
    assert r.returncode == 0, r.stderr


def test_weight_file_in_a_subfolder(model_dir):
    (model_dir / "weights").mkdir()
    (model_dir / "w.npz").rename(model_dir / "weights" / "w.npz")
    (model_dir / "sub.mlir").write_text(GOOD_MODEL.replace('"w.npz"', '"weights/w.npz"'))
    assert run_ref(model_dir, model="sub.mlir").returncode == 0


def test_compile_weight_file_outside(tmp_path, model_dir):
    (model_dir / "esc.mlir").write_text(GOOD_MODEL.replace('"w.npz"', '"/etc/passwd"'))
    r = strata("compile", model_dir / "esc.mlir", "-o", tmp_path / "out")
    assert_clean_failure(r, "top.weight_file '/etc/passwd'", "must be a relative path")


def test_no_weight_file_attribute(model_dir):
    (model_dir / "nw.mlir").write_text(
        GOOD_MODEL.replace(' attributes {top.weight_file = "w.npz"}', ""))
    r = run_ref(model_dir, model="nw.mlir")
    assert_clean_failure(r, "top.Weight 'w'", "no top.weight_file attribute", "--weights")


# --- strata-opt reads its input with the same checks -------------------------

def strata_opt(*args):
    import subprocess
    from negative_harness import BIN
    return subprocess.run([os.path.join(BIN, "strata-opt"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_strata_opt_dev_zero():
    assert_clean_failure(strata_opt("/dev/zero"), "strata-opt: cannot read input '/dev/zero'",
                         "not a regular file")


def test_strata_opt_directory(tmp_path):
    assert_clean_failure(strata_opt(tmp_path), "is a directory")


def test_strata_opt_deep_nesting(tmp_path):
    (tmp_path / "deep.mlir").write_text("module {" + "[" * 300 + "}")
    assert_clean_failure(strata_opt(tmp_path / "deep.mlir"), "brackets nest more than 256 deep")


def test_strata_opt_nul_byte(tmp_path):
    (tmp_path / "nul.mlir").write_bytes(b"module {\x00}")
    assert_clean_failure(strata_opt(tmp_path / "nul.mlir"), "NUL byte")


def test_strata_opt_good_file(model_dir):
    r = strata_opt(model_dir / "m.mlir", "--canonicalize")
    assert r.returncode == 0, r.stderr
    assert "top.Conv" in r.stdout
