"""`strata check-equiv` itself: it fails on models that differ (so the pass
tests can fail), keeps index inputs in range, reports signature differences
by name and type, and exits 2 when it cannot check. Also `strata compile
--passes`, which the real-model pass tests use."""
import os
import re

import numpy as np
import pytest

import equiv_harness as h

ADD_MODEL = """func.func @main(%a: tensor<2x8xf32> {top.name = "x"}, %b: tensor<2x8xf32> {top.name = "y"})
    -> (tensor<2x8xf32> {top.name = "sum"}, tensor<2x8xf32> {top.name = "prod"}) {
  %x = top.Input(%a) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = top.Input(%b) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s = top.Add(%x, %y) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %p = top.Mul(%x, %y) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  return %s, %p : tensor<2x8xf32>, tensor<2x8xf32>
}
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_identical_models_pass(tmp_path):
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    r = h.check_equiv(a, a, runs=3)
    assert r.returncode == 0, r.stderr
    assert "input 'x' float32[2, 8]: uniform in [-1, 1)" in r.stdout
    assert len(re.findall(r"^  PASS run \d \(seed \d\) (sum|prod): EQUAL", r.stdout, re.M)) == 6
    assert r.stdout.rstrip().endswith("6 passed, 0 failed")


def test_add_turned_into_sub_fails(tmp_path):
    """The negative test: one Add became a Sub."""
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    b = write(tmp_path, "b.mlir", ADD_MODEL.replace("top.Add", "top.Sub"))
    r = h.check_equiv(a, b, runs=2)
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"^  FAIL run 0 \(seed 0\) sum: NOT_SIMILAR cos=", r.stdout, re.M)
    assert re.search(r"^  PASS run 0 \(seed 0\) prod: EQUAL", r.stdout, re.M)
    assert r.stdout.rstrip().endswith("2 passed, 2 failed")


def test_add_turned_into_sub_fails_on_a_real_model(real_model, tmp_path):
    origin = real_model("mobilenetv2")
    text = open(origin).read()
    assert "top.Add(" in text
    # Beside the origin so that its top.weight_file resolves.
    b = os.path.join(os.path.dirname(origin), "m_sub.mlir")
    with open(b, "w") as f:
        f.write(text.replace("top.Add(", "top.Sub(", 1))
    r = h.check_equiv(origin, b, runs=1)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAIL run 0 (seed 0) logits: NOT_SIMILAR" in r.stdout


def test_changed_weight_file_fails(real_model, tmp_path):
    """--weights-b: the same model with one weight negated differs; with the
    same weights it does not."""
    origin = real_model("mobilenetv2")
    npz = os.path.join(os.path.dirname(origin), "m_TOP_F32_all_weight.npz")
    with np.load(npz) as z:
        weights = {k: z[k] for k in z.files}
    r = h.check_equiv(origin, origin, runs=1, extra=["--weights-b", npz])
    assert r.returncode == 0, h.explain(r)
    weights["fc_bias_306"] = -weights["fc_bias_306"]
    changed = str(tmp_path / "w.npz")
    np.savez(changed, **weights)
    r = h.check_equiv(origin, origin, runs=1, extra=["--weights-b", changed])
    assert r.returncode == 1, h.explain(r)


def test_wrongly_folded_constant_fails(tmp_path):
    """A fold written inline (dense_resource, as strata-opt writes the
    weights a pass creates) with a wrong value is caught."""
    chunk = h.split_output(open(os.path.join(h.ROOT, "test", "Dialect", "Top", "Transforms",
                                             "fold-constants.mlir")).read())[0]
    a = write(tmp_path, "a.mlir", chunk)
    r = h.run([h.STRATA_OPT, a, "--top-fold-constants", "--canonicalize"])
    assert r.returncode == 0 and "dense_resource" in r.stdout, r.stderr
    b = write(tmp_path, "b.mlir", r.stdout)
    assert h.check_equiv(a, b).returncode == 0
    # The folded weight -(1, 2) + (1, 2) = (0, 0) now holds (0, 1).
    blob = re.search(r'strata_weight\w*: "0x([0-9A-F]+)"', r.stdout)
    assert blob and blob.group(1).endswith("0" * 16), r.stdout
    b = write(tmp_path, "b2.mlir", r.stdout.replace(blob.group(1), blob.group(1)[:-8] + "0000803F"))
    r = h.check_equiv(a, b)
    assert r.returncode == 1, r.stdout + r.stderr


def test_same_seed_same_inputs(tmp_path):
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    b = write(tmp_path, "b.mlir", ADD_MODEL.replace("top.Add", "top.Sub"))
    first = h.check_equiv(a, b, runs=2, extra=["--seed", "5"]).stdout
    assert h.check_equiv(a, b, runs=2, extra=["--seed", "5"]).stdout == first
    assert "run 1 (seed 6)" in first
    other = h.check_equiv(a, b, runs=2, extra=["--seed", "7"]).stdout
    assert other.replace("seed 7", "").replace("seed 8", "") != \
        first.replace("seed 5", "").replace("seed 6", "")


GATHER_MODEL = """func.func private @lookup(%t: tensor<3x4xf32>, %i: tensor<6xi64>) -> tensor<6x4xf32> {
  %g = top.Gather(%t, %i) {axis = 0 : i64} : (tensor<3x4xf32>, tensor<6xi64>) -> tensor<6x4xf32>
  return %g : tensor<6x4xf32>
}
func.func @main(%ids: tensor<6xi64> {top.name = "ids"}, %oh: tensor<6xi32> {top.name = "oh"},
                %both: tensor<2x3xi64> {top.name = "both"}, %n: tensor<6xi64> {top.name = "n"})
    -> (tensor<6x4xf32>, tensor<6x5xf32>, tensor<2x3x7xf32>, tensor<2x3x4xf32>, tensor<6xf32>) {
  %t = top.Weight() {name = "t", value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>} : () -> tensor<3x4xf32>
  %wide = top.Weight() {name = "wide", value = dense<1.5> : tensor<7x7xf32>} : () -> tensor<7x7xf32>
  %v = top.Weight() {name = "v", value = dense<[0.0, 1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %none = top.None() : () -> none
  %i = top.Input(%ids) : (tensor<6xi64>) -> tensor<6xi64>
  %r = top.Reshape(%i) {shape = array<i64: 6>} : (tensor<6xi64>) -> tensor<6xi64>
  %0 = func.call @lookup(%t, %r) : (tensor<3x4xf32>, tensor<6xi64>) -> tensor<6x4xf32>
  %1 = top.OneHot(%oh, %v, %none) {depth = 5 : i64} : (tensor<6xi32>, tensor<2xf32>, none) -> tensor<6x5xf32>
  %2 = top.Gather(%wide, %both) {axis = 1 : i64} : (tensor<7x7xf32>, tensor<2x3xi64>) -> tensor<7x2x3xf32>
  %3 = top.Permute(%2) {order = array<i64: 1, 2, 0>} : (tensor<7x2x3xf32>) -> tensor<2x3x7xf32>
  %4 = top.Gather(%t, %both) {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  %5 = top.Cast(%n) : (tensor<6xi64>) -> tensor<6xf32>
  return %0, %1, %3, %4, %5 : tensor<6x4xf32>, tensor<6x5xf32>, tensor<2x3x7xf32>, tensor<2x3x4xf32>, tensor<6xf32>
}
"""


def test_index_inputs_stay_in_range(tmp_path):
    """Indices reach a Gather through top.Input, Reshape and a call; `both`
    indexes dims of 7 and 3 (the smaller range wins); an out-of-range index
    would make the interpreter fail (exit 2), so exit 0 over 5 runs shows
    the ranges hold."""
    a = write(tmp_path, "a.mlir", GATHER_MODEL)
    r = h.check_equiv(a, a, runs=5)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "input 'ids' int64[6]: integers in [0, 3) for top.Gather indices (dim 0 of size 3)" in r.stdout
    assert "input 'oh' int32[6]: integers in [0, 5) for top.OneHot indices (depth 5)" in r.stdout
    both = next(l for l in r.stdout.splitlines() if l.startswith("  input 'both'"))
    assert both.startswith("  input 'both' int64[2, 3]: integers in [0, 3) for "), both
    assert "top.Gather indices (dim 1 of size 7)" in both
    assert "top.Gather indices (dim 0 of size 3)" in both
    assert "input 'n' int64[6]: integers in [0, 4) (no index use)" in r.stdout


def test_index_inputs_are_spread(tmp_path):
    """The generated indices cover their range (here [0, 3) on 6 x 5 draws)."""
    a = write(tmp_path, "a.mlir", GATHER_MODEL)
    # B's table repeats row 0: equal only if every index were 0.
    b = write(tmp_path, "b.mlir", GATHER_MODEL.replace(
        "[5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]", "[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]"))
    r = h.check_equiv(a, b, runs=1)
    assert r.returncode == 1 and "FAIL run 0 (seed 0) output0" in r.stdout, r.stdout + r.stderr


def test_every_dtype_is_filled(tmp_path):
    text = ('func.func @main(%a: tensor<2x3xf16>, %b: tensor<2x3xbf16>, %c: tensor<2x3xf64>, '
            '%d: tensor<2x3xi1>, %e: tensor<2x3xi8>, %f: tensor<2x3xui8>) -> tensor<2x3xf32> {\n')
    names = "abcdef"
    types = ["f16", "bf16", "f64", "i1", "i8", "ui8"]
    for n, t in zip(names, types):
        text += f"  %{n}c = top.Cast(%{n}) : (tensor<2x3x{t}>) -> tensor<2x3xf32>\n"
    text += "  %s0 = top.Add(%ac, %bc) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
    for i, n in enumerate(names[2:]):
        text += f"  %s{i + 1} = top.Add(%s{i}, %{n}c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
    text += "  return %s4 : tensor<2x3xf32>\n}\n"
    a = write(tmp_path, "a.mlir", text)
    r = h.check_equiv(a, a, runs=1)
    assert r.returncode == 0, r.stdout + r.stderr
    for line in ["float16[2, 3]: uniform in [-1, 1)", "bfloat16[2, 3]: uniform in [-1, 1)",
                 "float64[2, 3]: uniform in [-1, 1)", "bool[2, 3]: random bools",
                 "int8[2, 3]: integers in [0, 4)", "uint8[2, 3]: integers in [0, 4)"]:
        assert line in r.stdout


@pytest.mark.parametrize("change, message", [
    (("%b: tensor<2x8xf32> {top.name = \"y\"}", "%b: tensor<2x8xf32> {top.name = \"z\"}"),
     "input 'y' of '{a}' is not an input of '{b}'"),
    (("%b: tensor<2x8xf32> {top.name = \"y\"}", "%b: tensor<2x8xf16> {top.name = \"y\"}"),
     "input 'y' is tensor<2x8xf32> in '{a}' but tensor<2x8xf16> in '{b}'"),
    (("tensor<2x8xf32> {top.name = \"prod\"}", "tensor<2x8xf32> {top.name = \"product\"}"),
     "output 'prod' of '{a}' is not an output of '{b}'"),
])
def test_signature_differences(tmp_path, change, message):
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    text = ADD_MODEL.replace(*change)
    if "f16" in change[1]:
        text = text.replace("%y = top.Input(%b) : (tensor<2x8xf32>) -> tensor<2x8xf32>",
                            "%y0 = top.Input(%b) : (tensor<2x8xf16>) -> tensor<2x8xf16>\n"
                            "  %y = top.Cast(%y0) : (tensor<2x8xf16>) -> tensor<2x8xf32>")
    b = write(tmp_path, "b.mlir", text)
    r = h.check_equiv(a, b)
    assert r.returncode == 1, r.stdout + r.stderr
    assert message.format(a=a, b=b) in r.stderr
    assert "have different signatures" in r.stderr


DYNAMIC = """func.func @main(%a: tensor<?x4xf32> {top.name = "x"}) -> (tensor<?x4xf32> {top.name = "y"}) {
  %x = top.Input(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = top.Relu(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
"""


def test_dynamic_inputs(tmp_path):
    a = write(tmp_path, "a.mlir", DYNAMIC)
    r = h.check_equiv(a, a)
    assert r.returncode == 2
    assert "input 'x' has dynamic dims (tensor<?x4xf32>): give its shape with --input-shapes x:" in r.stderr
    r = h.check_equiv(a, a, extra=["--input-shapes", "x:3x4"])
    assert r.returncode == 0, r.stderr
    assert "input 'x' float32[3, 4]" in r.stdout
    r = h.check_equiv(a, a, extra=["--input-shapes", "x:3x5"])
    assert r.returncode == 2 and "does not fit its type tensor<?x4xf32>" in r.stderr
    np.savez(tmp_path / "in.npz", x=np.ones((5, 4), np.float32))
    r = h.check_equiv(a, a, extra=["--input", str(tmp_path / "in.npz")])
    assert r.returncode == 0, r.stderr
    assert "inputs from" in r.stdout and "1 passed, 0 failed" in r.stdout


def test_a_that_fails_to_run_is_exit_2_b_is_exit_1(tmp_path):
    """Indices computed from an input (not the input itself) are not
    ranged: A fails to run (exit 2). B failing where A runs is a difference
    (exit 1)."""
    bad = """func.func @main(%a: tensor<4xi64>) -> tensor<4x2xf32> {
  %t = top.Weight() {name = "t", value = dense<1.0> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %k = top.Weight() {name = "k", value = dense<5> : tensor<4xi64>} : () -> tensor<4xi64>
  %i = top.Add(%a, %k) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %g = top.Gather(%t, %i) {axis = 0 : i64} : (tensor<2x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  return %g : tensor<4x2xf32>
}
"""
    good = bad.replace("dense<5>", "dense<0>").replace("top.Add(%a, %k)", "top.Mul(%a, %k)")
    a = write(tmp_path, "bad.mlir", bad)
    b = write(tmp_path, "good.mlir", good)
    r = h.check_equiv(a, b)
    assert r.returncode == 2
    assert "failed to run on the inputs of run 0 (seed 0)" in r.stderr
    r = h.check_equiv(b, a)
    assert r.returncode == 1
    assert f"FAIL run 0 (seed 0): '{a}' failed to run where '{b}' ran" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--tolerance", "2,0.9"], "--tolerance must be 'cos,euclid' with values in [0, 1]"),
    (["--runs", "0"], "--runs must be at least 1"),
    (["--input-shapes", "x:3xq"], "dim 'q' is not a non-negative integer"),
    (["--input-shapes", "nope:3"], "--input-shapes names 'nope', which is not an input"),
    (["--weights-b", "/nonexistent/w.npz"], "/nonexistent/w.npz"),
    (["--input", "/nonexistent/in.npz"], "/nonexistent/in.npz"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    r = h.check_equiv(a, a, extra=args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr


def test_unloadable_model_exit_2(tmp_path):
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    r = h.check_equiv(a, str(tmp_path / "missing.mlir"))
    assert r.returncode == 2 and "cannot load model" in r.stderr
    broken = write(tmp_path, "broken.mlir", "func.func @main(")
    r = h.check_equiv(broken, a)
    assert r.returncode == 2 and f"cannot load model '{broken}'" in r.stderr
    weighted = write(tmp_path, "w.mlir", 'module attributes {top.weight_file = "gone.npz"} {\n'
                     + ADD_MODEL + "}\n")
    r = h.check_equiv(a, weighted)
    assert r.returncode == 2 and f"weights of '{weighted}'" in r.stderr


def test_help():
    r = h.run([h.STRATA, "check-equiv", "--help"])
    assert r.returncode == 0
    for text in ["check-equiv", "--runs", "--seed", "--tolerance", "--input-shapes",
                 "--weights-a", "--weights-b", "Exit 0 when every output"]:
        assert text in r.stdout


def test_compile_passes_errors(tmp_path):
    a = write(tmp_path, "a.mlir", ADD_MODEL)
    r = h.run([h.STRATA, "compile", a, "-o", str(tmp_path / "o"), "--passes", "top-no-such-pass"])
    assert r.returncode == 2
    assert "'top-no-such-pass' does not refer to a registered pass" in r.stderr
    r = h.run([h.STRATA, "compile", a, "-o", str(tmp_path / "o"), "--passes", "cse", "--no-optimize"])
    assert r.returncode == 2 and "cannot be combined" in r.stderr
    assert not os.path.exists(tmp_path / "o")


def test_compile_passes_nests_function_passes(tmp_path):
    """A function pass (top-fuse-activation) given to --passes runs on each
    function, as strata-opt's flags do."""
    text = ADD_MODEL.replace("return %s, %p", "%r = top.Relu(%s) : (tensor<2x8xf32>) -> tensor<2x8xf32>\n"
                             "  return %r, %p")
    a = write(tmp_path, "a.mlir", text)
    r = h.run([h.STRATA, "compile", a, "-o", str(tmp_path / "o"), "--name", "m",
               "--passes", "top-fuse-activation,cse"])
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "o" / "m.mlir").read_text()
    assert "top.Relu" not in out and "do_relu = true" in out
    assert h.check_equiv(a, str(tmp_path / "o" / "m.mlir")).returncode == 0
