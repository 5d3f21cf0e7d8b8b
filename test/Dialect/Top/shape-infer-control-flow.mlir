// RUN: strata-opt %s --top-shape-infer --split-input-file | FileCheck %s
// Result shapes of If, Loop and Scan from what their regions yield (yielded
// values must be ranked; the pass refines their dims first).

// CHECK-LABEL: func @if_same_and_different
// CHECK: top.If {{.*}} -> (tensor<4xf32>, tensor<?x2xf32>)
// CHECK: top.Relu{{.*}} -> tensor<4xf32>
func.func @if_same_and_different(%c: tensor<i1>, %x: tensor<4xf32>, %a: tensor<3x2xf32>, %b: tensor<5x2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %r:2 = top.If %c : tensor<i1> -> (tensor<*xf32>, tensor<*xf32>) then {
    %n = top.Relu(%x) : (tensor<4xf32>) -> tensor<?xf32>
    top.Yield %n, %a : tensor<?xf32>, tensor<3x2xf32>
  } else {
    top.Yield %x, %b : tensor<4xf32>, tensor<5x2xf32>
  }
  return %r#0, %r#1 : tensor<*xf32>, tensor<*xf32>
}

// -----

// The carried value keeps its shape; the scan output's leading dim is the
// run-time iteration count.
// CHECK-LABEL: func @loop_shapes
// CHECK: top.Loop{{.*}} -> (tensor<3xf32>, tensor<?x3xf32>)
// CHECK: top.Add{{.*}} -> tensor<3xf32>
func.func @loop_shapes(%m: tensor<i64>, %y0: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %none = top.None() : () -> none
  %y, %s = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<3xf32>):
    %n = top.Add(%yi, %yi) : (tensor<3xf32>, tensor<3xf32>) -> tensor<?xf32>
    top.Yield %c, %n, %n : tensor<i1>, tensor<?xf32>, tensor<?xf32>
  }
  return %y, %s : tensor<*xf32>, tensor<*xf32>
}

// -----

// Scan outputs: the slice shape with the scan length inserted at the output
// axis (negative axes count on the output rank).
// CHECK-LABEL: func @scan_shapes
// CHECK: -> (tensor<2xf32>, tensor<2x5xf32>)
func.func @scan_shapes(%init: tensor<2xf32>, %x: tensor<2x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %s, %z = top.Scan(%init, %x) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: -1>, scan_output_axes = array<i64: -1>} : (tensor<2xf32>, tensor<2x5xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  ^bb0(%acc: tensor<2xf32>, %xi: tensor<2xf32>):
    %n = top.Add(%acc, %xi) : (tensor<2xf32>, tensor<2xf32>) -> tensor<?xf32>
    top.Yield %n, %n : tensor<?xf32>, tensor<?xf32>
  }
  return %s, %z : tensor<*xf32>, tensor<*xf32>
}
