"""strata run-ref on control flow whose problems only show at run time
(dynamic types): clear message naming the op and value, non-zero exit, no
crash, no output."""
import numpy as np

from negative_harness import assert_clean_failure, strata


def run(tmp_path, body, args, inputs, results):
    arg_list = ", ".join(f"%{n}: {t} {{top.name = \"{n}\"}}" for n, t in args)
    res_types = ", ".join(t for _, t in results)
    text = (f'module attributes {{top.weight_file = "w.npz"}} {{\n'
            f"  func.func @main({arg_list}) -> ({res_types}) {{\n{body}\n"
            f"    return {', '.join(v for v, _ in results)} : {res_types}\n  }}\n}}\n")
    (tmp_path / "m.mlir").write_text(text)
    np.savez(tmp_path / "w.npz")
    np.savez(tmp_path / "in.npz", **inputs)
    return strata("run-ref", tmp_path / "m.mlir", "--input", tmp_path / "in.npz",
                  "--output", tmp_path / "out.npz")


def test_loop_carried_value_changes_shape(tmp_path):
    body = """    %none = top.None() : () -> none
    %y = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<?xf32>) {
    ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<3xf32>):
      %n = top.Concat(%yi, %yi) {axis = 0 : i64} : (tensor<3xf32>, tensor<3xf32>) -> tensor<?xf32>
      top.Yield %c, %n : tensor<i1>, tensor<?xf32>
    }"""
    r = run(tmp_path, body, [("m", "tensor<i64>"), ("y0", "tensor<3xf32>")],
            {"m": np.array(2, np.int64), "y0": np.zeros(3, np.float32)}, [("%y", "tensor<?xf32>")])
    assert_clean_failure(r, "region argument #2", "[6]", "[3]")
    assert not (tmp_path / "out.npz").exists()


def test_if_condition_with_two_elements(tmp_path):
    body = """    %cd = top.Reshape(%c) {shape = array<i64: -1>} : (tensor<2xi1>) -> tensor<?xi1>
    %r = top.If %cd : tensor<?xi1> -> (tensor<2xf32>) then {
      top.Yield %x : tensor<2xf32>
    } else {
      top.Yield %x : tensor<2xf32>
    }"""
    r = run(tmp_path, body, [("c", "tensor<2xi1>"), ("x", "tensor<2xf32>")],
            {"c": np.array([True, False]), "x": np.zeros(2, np.float32)}, [("%r", "tensor<2xf32>")])
    assert_clean_failure(r, "top.If", "cond", "one element")


def test_scan_inputs_of_different_lengths(tmp_path):
    body = """    %ad = top.Reshape(%a) {shape = array<i64: -1, 2>} : (tensor<3x2xf32>) -> tensor<?x2xf32>
    %z = top.Scan(%ad, %b) {num_scan_inputs = 2 : i64} : (tensor<?x2xf32>, tensor<4x2xf32>) -> (tensor<?x2xf32>) {
    ^bb0(%ai: tensor<2xf32>, %bi: tensor<2xf32>):
      top.Yield %ai : tensor<2xf32>
    }"""
    r = run(tmp_path, body, [("a", "tensor<3x2xf32>"), ("b", "tensor<4x2xf32>")],
            {"a": np.zeros((3, 2), np.float32), "b": np.zeros((4, 2), np.float32)},
            [("%z", "tensor<?x2xf32>")])
    assert_clean_failure(r, "top.Scan", "scan input #1 has 4 slices", "scan input #0 has 3")


def test_call_of_missing_function(tmp_path):
    body = "    %y = func.call @nowhere(%x) : (tensor<2xf32>) -> tensor<2xf32>"
    r = run(tmp_path, body, [("x", "tensor<2xf32>")], {"x": np.zeros(2, np.float32)},
            [("%y", "tensor<2xf32>")])
    assert_clean_failure(r, "nowhere")
