// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the control-flow ops.

// CHECK-LABEL: func.func @if_op
// CHECK: %[[R:.*]] = top.If %{{.*}} : tensor<i1> -> (tensor<?xf32>) then {
// CHECK: top.Yield %{{.*}} : tensor<4xf32>
// CHECK: } else {
// CHECK: top.Yield %{{.*}} : tensor<8xf32>
func.func @if_op(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<8xf32>) -> tensor<?xf32> {
  %r = top.If %c : tensor<i1> -> (tensor<?xf32>) then {
    %a = top.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    top.Yield %a : tensor<4xf32>
  } else {
    top.Yield %y : tensor<8xf32>
  }
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @loop_op
// CHECK: top.Loop(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %{{.*}}: tensor<3xf32>):
// CHECK: top.Yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<3xf32>, tensor<3xf32>
func.func @loop_op(%m: tensor<i64>, %y0: tensor<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  %none = top.None() : () -> none
  %y, %s = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<3xf32>):
    %n = top.Add(%yi, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    top.Yield %c, %n, %n : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return %y, %s : tensor<3xf32>, tensor<?x3xf32>
}

// CHECK-LABEL: func.func @scan_op
// CHECK: top.Scan(%{{.*}}, %{{.*}}) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_output_directions = array<i64: 1>}
func.func @scan_op(%init: tensor<2xf32>, %x: tensor<2x5xf32>) -> (tensor<2xf32>, tensor<5x2xf32>) {
  %s, %z = top.Scan(%init, %x) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_output_directions = array<i64: 1>} : (tensor<2xf32>, tensor<2x5xf32>) -> (tensor<2xf32>, tensor<5x2xf32>) {
  ^bb0(%acc: tensor<2xf32>, %xi: tensor<2xf32>):
    %n = top.Add(%acc, %xi) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    top.Yield %n, %n : tensor<2xf32>, tensor<2xf32>
  }
  return %s, %z : tensor<2xf32>, tensor<5x2xf32>
}
