"""Bad TOSA input to `strata import`: a clear error (op, field, value) and
exit code 1, never a crash, and no output files."""
import os
import subprocess

import numpy as np
import pytest

from tosa_harness import BIN, MLIR_OPT

GOOD = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def run_import(tmp_path, content, name="model.mlir"):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "out"
    r = subprocess.run([os.path.join(BIN, "strata"), "import", str(path), "-o", str(out)],
                       capture_output=True, text=True, errors="replace", timeout=60)
    return r, out


def assert_refused(r, out, *needles):
    assert r.returncode == 1, (r.returncode, r.stderr)
    for n in needles:
        assert n in r.stderr, r.stderr
    assert "Assertion" not in r.stderr and "Stack dump" not in r.stderr
    assert not out.exists() or not any(out.iterdir())


def test_inconsistent_types(tmp_path):
    r, out = run_import(tmp_path, GOOD.replace(
        "-> tensor<4xf32>", "-> tensor<4xi32>").replace(
        "return %0 : tensor<4xf32>", "return %0 : tensor<4xi32>"))
    assert_refused(r, out, "'tosa.abs' op")


def test_unknown_op(tmp_path):
    r, out = run_import(tmp_path, GOOD.replace("tosa.abs", "tosa.bogus"))
    assert_refused(r, out, "tosa.bogus")


def test_unsupported_op(tmp_path):
    text = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.custom %a, %b {operator_name = "myop", domain_name = "acme", implementation_attrs = ""} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    r, out = run_import(tmp_path, text)
    assert_refused(r, out, "'tosa.custom' is not supported by convert-tosa-to-top")


def test_unsupported_attribute_value(tmp_path):
    text = """func.func @main(%x: tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32> {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}
"""
    r, out = run_import(tmp_path, text)
    assert_refused(r, out, "'tosa.max_pool2d' nan_mode: IGNORE")
    assert "failed to legalize" not in r.stderr


def test_top_model_is_not_imported(tmp_path):
    text = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Input(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    r, out = run_import(tmp_path, text)
    assert_refused(r, out, "holds no TOSA op")


def test_nul_byte(tmp_path):
    r, out = run_import(tmp_path, GOOD.encode().replace(b"abs", b"a\0s"))
    assert_refused(r, out, "NUL")


def test_deep_nesting(tmp_path):
    r, out = run_import(tmp_path, "func.func @main() {\n" + "(" * 100000 + "\n}\n")
    assert_refused(r, out, "nest")


def test_empty_file(tmp_path):
    r, out = run_import(tmp_path, "")
    assert_refused(r, out)


def bytecode(tmp_path):
    src = tmp_path / "good.mlir"
    src.write_text(GOOD)
    dst = tmp_path / "good.mlirbc"
    subprocess.run([MLIR_OPT, str(src), "--emit-bytecode", "-o", str(dst)], check=True)
    return dst.read_bytes()


def test_bytecode_accepted(tmp_path):
    r, out = run_import(tmp_path, bytecode(tmp_path), "model.mlirbc")
    assert r.returncode == 0, r.stderr
    assert "top.Abs" in (out / "model.mlir").read_text()


@pytest.mark.parametrize("cut", [4, 10, 0.5, -3])
def test_truncated_bytecode(cut, tmp_path):
    data = bytecode(tmp_path)
    n = int(len(data) * cut) if isinstance(cut, float) else cut
    r, out = run_import(tmp_path, data[:n], "model.mlirbc")
    assert_refused(r, out)


def test_corrupted_bytecode(tmp_path):
    data = bytearray(bytecode(tmp_path))
    rng = np.random.default_rng(0)
    for seed in range(20):
        bad = bytearray(data)
        for i in rng.integers(4, len(bad), 8):
            bad[i] = int(rng.integers(0, 256))
        r, out = run_import(tmp_path, bytes(bad), f"m{seed}.mlirbc")
        # Either a clean refusal or (if the flips hit padding) a good import.
        assert r.returncode in (0, 1), r.stderr
        assert "Stack dump" not in r.stderr and "Assertion" not in r.stderr


def test_deeply_nested_bytecode(tmp_path):
    """Bytecode skips the text bracket check; regions nested deeper than 256
    levels are refused after reading, before anything walks them."""
    def nest(d):
        if d == 0:
            return ['"tosa.yield"(%a) : (tensor<4xf32>) -> ()']
        return ([f'%r{d} = "tosa.cond_if"(%c) ({{'] + nest(d - 1)
                + ['}, {', '"tosa.yield"(%a) : (tensor<4xf32>) -> ()',
                   '}) : (tensor<i1>) -> tensor<4xf32>', f'"tosa.yield"(%r{d}) : (tensor<4xf32>) -> ()'])
    body = nest(300)
    body[-1] = "return %r300 : tensor<4xf32>"
    src = tmp_path / "deep.mlir"
    src.write_text("func.func @main(%c: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {\n"
                   + "\n".join(body) + "\n}\n")
    dst = tmp_path / "deep.mlirbc"
    subprocess.run([MLIR_OPT, str(src), "--emit-bytecode", "-o", str(dst)], check=True)
    r, out = run_import(tmp_path, dst.read_bytes(), "model.mlirbc")
    assert_refused(r, out, "nested deeper than 256")


@pytest.mark.parametrize("case,needle", [
    # scales of the wrong shape: TOSA's own verifier
    ("%0 = tosa.cast_from_block_scaled %d, %s {block_size = #tosa.block_size<BLOCK_SIZE_32>} "
     ": (tensor<4x64xf8E4M3FN>, tensor<4x3xf8E8M0FNU>) -> tensor<4x64xf32>",
     "'tosa.cast_from_block_scaled' op"),
    # an f6 argument: Top has no f6 tensors
    ("%0 = tosa.cast_from_block_scaled %d, %s {block_size = #tosa.block_size<BLOCK_SIZE_32>} "
     ": (tensor<4x64xf6E2M3FN>, tensor<4x2xf8E8M0FNU>) -> tensor<4x64xf32>",
     "function @main argument 0 has element type 'f6E2M3FN'"),
])
def test_block_scaled_bad_input(case, needle, tmp_path):
    import re
    types = re.search(r": \((.*)\) -> (.*)$", case)
    d_t, s_t = [t.strip() for t in types.group(1).split(", ")]
    text = (f"func.func @main(%d: {d_t}, %s: {s_t}) -> {types.group(2)} {{\n"
            f"  {case}\n  return %0 : {types.group(2)}\n}}\n")
    r, out = run_import(tmp_path, text)
    assert_refused(r, out, needle)


CORRUPT = os.path.join(os.path.dirname(__file__), "corrupt")


@pytest.mark.parametrize("name,what", [
    ("reader-segv.mlirbc", "crashed (signal 11"),
    ("reader-abort.mlirbc", "crashed (signal 6"),
    ("reader-heap.mlirbc", "crashed (signal 6"),
    ("reader-loop.mlirbc", "used up its 5 s of CPU time"),
])
def test_bytecode_reader_crash_is_refused(name, what, tmp_path):
    """Bytecode on which MLIR's reader crashes or never ends in-process
    (corrupt/README.md) is read first in a child process: the tools refuse
    it with the file's name and the reason, and write nothing."""
    with open(os.path.join(CORRUPT, name), "rb") as f:
        data = f.read()
    r, out = run_import(tmp_path, data, name)
    assert_refused(r, out, f"{name}:0:0: error: is corrupted MLIR bytecode", what)
    if name != "reader-segv.mlirbc":
        return
    # strata-opt (MlirOptMain) and strata compile get the same check.
    for tool in (["strata-opt", str(tmp_path / name)],
                 ["strata", "compile", str(tmp_path / name), "-o", str(tmp_path / "m.strata")]):
        r = subprocess.run([os.path.join(BIN, tool[0])] + tool[1:], capture_output=True,
                           text=True, errors="replace", timeout=60)
        assert r.returncode == 1, (tool, r.returncode, r.stderr)
        assert "is corrupted MLIR bytecode" in r.stderr and what in r.stderr, r.stderr
    assert not (tmp_path / "m.strata").exists()
