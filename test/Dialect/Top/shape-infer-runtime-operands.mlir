// RUN: strata-opt %s --top-shape-infer --split-input-file | FileCheck %s
// Shape inference of ops whose axes / shape / pads / k are runtime operands
// (`<name>_value`): the dims that depend on the values are `?`; without the
// operand the same ops infer static shapes.

// CHECK-LABEL: func @runtime_operands
func.func @runtime_operands(%x: tensor<2x1x4xf32>, %a1: tensor<1xi64>, %s2: tensor<2xi64>, %s3: tensor<3xi64>, %p: tensor<6xi64>, %k: tensor<1xi64>, %b: tensor<4x2xi64>) {
  // CHECK: top.Reduce{{.*}} -> tensor<?x1x?xf32>
  %0 = top.Reduce(%x, %a1) {keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x1x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: top.Reduce{{.*}} -> tensor<?x?xf32>
  %1 = top.Reduce(%x, %a1) {keepdims = false, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x1x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: top.Reshape{{.*}} -> tensor<?x?xf32>
  %2 = top.Reshape(%x, %s2) {shape = array<i64>} : (tensor<2x1x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  // CHECK: top.Expand{{.*}} -> tensor<2x?x4xf32>
  %3 = top.Expand(%x, %s2) {shape = array<i64>} : (tensor<2x1x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  // CHECK: top.Expand{{.*}} -> tensor<2x?x4xf32>
  %4 = top.Expand(%x, %s3) {shape = array<i64>} : (tensor<2x1x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  // CHECK: top.Tile{{.*}} -> tensor<?x?x?xf32>
  %5 = top.Tile(%x, %s3) {repeats = array<i64>} : (tensor<2x1x4xf32>, tensor<3xi64>) -> tensor<*xf32>
  // CHECK: top.Pad{{.*}} -> tensor<?x?x?xf32>
  %6 = top.Pad(%x, %p) {pads = array<i64>} : (tensor<2x1x4xf32>, tensor<6xi64>) -> tensor<*xf32>
  // CHECK: top.TopK{{.*}} -> (tensor<2x1x?xf32>, tensor<2x1x?xi64>)
  %7:2 = top.TopK(%x, %k) {k = 0 : i64} : (tensor<2x1x4xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  // CHECK: top.Split{{.*}} -> (tensor<2x1x?xf32>, tensor<2x1x?xf32>)
  %8:2 = top.Split(%x, %s2) {axis = 2 : i64, split = array<i64>} : (tensor<2x1x4xf32>, tensor<2xi64>) -> (tensor<*xf32>, tensor<*xf32>)
  // CHECK: top.Slice{{.*}} -> tensor<?x?x?xf32>
  %9 = top.Slice(%x, %b) {starts = array<i64>, ends = array<i64>} : (tensor<2x1x4xf32>, tensor<4x2xi64>) -> tensor<*xf32>
  // CHECK: top.Squeeze{{.*}} -> tensor<?x?xf32>
  %10 = top.Squeeze(%x, %a1) : (tensor<2x1x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: top.Unsqueeze{{.*}} -> tensor<?x?x?x?x?xf32>
  %11 = top.Unsqueeze(%x, %s2) : (tensor<2x1x4xf32>, tensor<2xi64>) -> tensor<*xf32>
  // CHECK: top.Trilu{{.*}} -> tensor<2x1x4xf32>
  %12 = top.Trilu(%x, %k) : (tensor<2x1x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: top.Cumulative{{.*}} -> tensor<2x1x4xf32>
  %13 = top.Cumulative(%x, %k) {axis = 0 : i64} : (tensor<2x1x4xf32>, tensor<1xi64>) -> tensor<*xf32>
  return
}

// -----

// The same ops with attributes: static shapes.
// CHECK-LABEL: func @attribute_operands
func.func @attribute_operands(%x: tensor<2x1x4xf32>) {
  // CHECK: top.Reduce{{.*}} -> tensor<2x1x1xf32>
  %0 = top.Reduce(%x) {axes = array<i64: 2>, keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x1x4xf32>) -> tensor<*xf32>
  // CHECK: top.Reshape{{.*}} -> tensor<2x4xf32>
  %1 = top.Reshape(%x) {shape = array<i64: 2, 4>} : (tensor<2x1x4xf32>) -> tensor<*xf32>
  // CHECK: top.Expand{{.*}} -> tensor<2x3x4xf32>
  %2 = top.Expand(%x) {shape = array<i64: 3, 1>} : (tensor<2x1x4xf32>) -> tensor<*xf32>
  // CHECK: top.TopK{{.*}} -> (tensor<2x1x3xf32>, tensor<2x1x3xi64>)
  %3:2 = top.TopK(%x) {k = 3 : i64} : (tensor<2x1x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  // CHECK: top.Split{{.*}} -> (tensor<2x1x1xf32>, tensor<2x1x3xf32>)
  %4:2 = top.Split(%x) {axis = 2 : i64, split = array<i64: 1, 3>} : (tensor<2x1x4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
  return
}

