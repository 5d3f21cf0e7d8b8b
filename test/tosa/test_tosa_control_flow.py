"""TOSA cond_if and while_loop through convert-tosa-to-top (top.If,
top.Loop) against MLIR's own TOSA lowering (tosa-to-scf; tosa_harness.py)."""
import numpy as np
import pytest

from tosa_harness import check

COND_IF = """func.func @main(%c: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tosa.cond_if"(%c, %a, %b) ({
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):
    %s = tosa.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "tosa.yield"(%s) : (tensor<3xf32>) -> ()
  }, {
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):
    %s = tosa.sub %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "tosa.yield"(%s) : (tensor<3xf32>) -> ()
  }) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"""

WHILE = """func.func @main(%a: tensor<i32>, %b: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %0:2 = "tosa.while_loop"(%a, %b) ({
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    %lim = "tosa.const"() {values = dense<5> : tensor<i32>} : () -> tensor<i32>
    %c = tosa.greater %lim, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %x: tensor<3xf32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y = tosa.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "tosa.yield"(%n, %y) : (tensor<i32>, tensor<3xf32>) -> ()
  }) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<i32>, tensor<3xf32>
}"""


@pytest.mark.parametrize("cond", [True, False])
def test_cond_if(cond, rng):
    text = check(COND_IF, [np.array(cond), rng.standard_normal(3).astype(np.float32),
                           rng.standard_normal(3).astype(np.float32)])
    assert "top.If" in text


@pytest.mark.parametrize("start", [0, 3, 7])  # 5, 2 and 0 iterations
def test_while_loop(start, rng):
    text = check(WHILE, [np.array(start, np.int32), rng.standard_normal(3).astype(np.float32)])
    assert "top.Loop" in text
