"""`strata check-equiv A.mlir B.strata`: the interpreter on A against the
runtime on the compiled artifact B, on the same seeded random inputs (or
--input): integer outputs must be equal, float outputs within
--float-tolerance (|b - a| <= atol + rtol * |a|, default 1e-3, 1e-4). Each
verdict is checked against a case built to pass and one built to fail."""
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("STRATA_BIN_DIR", os.path.join(ROOT, "build", "bin"))


def strata(*args):
    return subprocess.run([os.path.join(BIN, "strata"), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


FLOAT = """
func.func @main(%x_arg: tensor<3x4xf32> {top.name = "x"}) -> (tensor<3x4xf32> {top.name = "y"}) {
  %x = top.Input(%x_arg) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %w = top.Weight() {name = "w", value = dense<[1.0, -2.0, 3.0, WLAST]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = top.Mul(%x, %w) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = top.Tanh(%0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
"""

INT = """
func.func @main(%a_arg: tensor<6xi32> {top.name = "a"}, %b_arg: tensor<6xi32> {top.name = "b"}) -> (tensor<6xi32> {top.name = "s"}, tensor<6xi1> {top.name = "lt"}) {
  %a = top.Input(%a_arg) : (tensor<6xi32>) -> tensor<6xi32>
  %b = top.Input(%b_arg) : (tensor<6xi32>) -> tensor<6xi32>
  %0 = top.OP(%a, %b) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  %1 = top.Compare(%a, %b) {mode = #top.compare_mode<Less>} : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
  return %0, %1 : tensor<6xi32>, tensor<6xi1>
}
"""


def compile_model(tmp_path, name, text):
    model = tmp_path / f"{name}.mlir"
    model.write_text(text)
    art = tmp_path / f"{name}.strata"
    r = strata("compile", model, "--target", "cpu", "-o", art)
    assert r.returncode == 0, r.stderr
    return model, art


def test_float_model_matches_its_artifact(tmp_path):
    model, art = compile_model(tmp_path, "f", FLOAT.replace("WLAST", "-4.0"))
    r = strata("check-equiv", model, art, "--runs", "2", "--seed", "7")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(interpreter) vs" in r.stdout and "(runtime)" in r.stdout
    assert "floats |b - a| <= 0.0001 + 0.001 * |a|" in r.stdout
    assert r.stdout.count("PASS run") == 2 and "2 passed, 0 failed" in r.stdout


def test_float_difference_is_found(tmp_path):
    """An artifact of a model whose last weight differs by 1e-2: the outputs
    of that column differ by far more than the tolerance."""
    model, _ = compile_model(tmp_path, "a", FLOAT.replace("WLAST", "-4.0"))
    _, other = compile_model(tmp_path, "b", FLOAT.replace("WLAST", "-4.01"))
    x = np.full((3, 4), 0.1, np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    r = strata("check-equiv", model, other, "--input", tmp_path / "in.npz")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL run 0 y: NOT_CLOSE" in r.stdout, r.stdout
    assert "3 element(s) differ, first at flat index 3" in r.stdout, r.stdout
    # A tolerance wide enough for the difference passes.
    r = strata("check-equiv", model, other, "--input", tmp_path / "in.npz",
               "--float-tolerance", "0,1e-2")
    assert r.returncode == 0, r.stdout + r.stderr


def test_integers_are_compared_exactly(tmp_path):
    model, art = compile_model(tmp_path, "i", INT.replace("OP", "Add"))
    r = strata("check-equiv", model, art)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS run 0 (seed 0) s: EQUAL (exact, 6 elements)" in r.stdout, r.stdout
    assert "PASS run 0 (seed 0) lt: EQUAL" in r.stdout
    # Sub instead of Add: a difference of 2b in every element with b != 0,
    # whatever the float tolerance.
    _, sub = compile_model(tmp_path, "j", INT.replace("OP", "Sub"))
    a = np.array([1, 2, 3, 4, 5, 6], np.int32)
    b = np.array([0, 1, 0, 1, 0, 1], np.int32)
    np.savez(tmp_path / "in.npz", a=a, b=b)
    r = strata("check-equiv", model, sub, "--input", tmp_path / "in.npz",
               "--float-tolerance", "1,1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL run 0 s: DIFFERENT (exact, 6 elements, 3 element(s) differ, " \
           "first at flat index 1: 3 vs 1)" in r.stdout, r.stdout


def test_signature_mismatch(tmp_path):
    model, _ = compile_model(tmp_path, "f", FLOAT.replace("WLAST", "-4.0"))
    _, art = compile_model(tmp_path, "i", INT.replace("OP", "Add"))
    r = strata("check-equiv", model, art)
    assert r.returncode == 1
    assert "input 'x' of" in r.stderr and "is not an input of" in r.stderr
    assert "have different signatures" in r.stderr


@pytest.mark.parametrize("args,message", [
    (["--float-tolerance", "1e-3"], "must be 'rtol,atol'"),
    (["--float-tolerance", "-1,0"], "must be 'rtol,atol'"),
    (["--weights-b", "w.npz"], "--weights-b has no use with an artifact"),
])
def test_option_errors(tmp_path, args, message):
    model, art = compile_model(tmp_path, "f", FLOAT.replace("WLAST", "-4.0"))
    r = strata("check-equiv", model, art, *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr, r.stderr


def test_broken_artifact_is_refused(tmp_path):
    model, art = compile_model(tmp_path, "f", FLOAT.replace("WLAST", "-4.0"))
    data = art.read_bytes()
    art.write_bytes(data[: len(data) // 2])
    r = strata("check-equiv", model, art)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "strata check-equiv:" in r.stderr
    assert "Stack dump" not in r.stderr
