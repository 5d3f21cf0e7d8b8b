// RUN: strata-opt %s --top-inline-functions --split-input-file | FileCheck %s

// Nested calls are inlined, then the unused private functions are erased.
// CHECK-LABEL: func.func @main
// CHECK-NOT: call
// CHECK: %[[A:.*]] = top.Add(%arg0, %arg0)
// CHECK: %[[B:.*]] = top.Mul(%[[A]], %[[A]])
// CHECK: return %[[B]]
// CHECK-NOT: func.func private
func.func private @"local.double"(%x: tensor<2xf32>) -> tensor<2xf32> attributes {strata.implements = "local.double"} {
  %y = top.Add(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func private @"local.square_of_double"(%x: tensor<2xf32>) -> tensor<2xf32> attributes {strata.implements = "local.square_of_double"} {
  %d = call @"local.double"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %y = top.Mul(%d, %d) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = call @"local.square_of_double"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A call inside a loop body is inlined there; a public function stays.
// CHECK-LABEL: func.func @kept
// CHECK: top.Loop
// CHECK-NOT: call
// CHECK: top.Relu
// CHECK: top.Yield
func.func @kept(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = top.Relu(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @loop(%m: tensor<i64>, %y0: tensor<3xf32>) -> tensor<3xf32> {
  %none = top.None() : () -> none
  %y = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<3xf32>):
    %n = func.call @kept(%yi) : (tensor<3xf32>) -> tensor<3xf32>
    top.Yield %c, %n : tensor<i1>, tensor<3xf32>
  }
  return %y : tensor<3xf32>
}
