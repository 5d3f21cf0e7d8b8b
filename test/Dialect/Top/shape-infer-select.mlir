// RUN: strata-opt %s --top-shape-infer | FileCheck %s
// Shape inference of the index and selection ops from unranked results.

// CHECK-LABEL: func @select_shapes
func.func @select_shapes(%x: tensor<3x4xf32>, %d: tensor<2x3x4xi32>, %i: tensor<2x1xi64>, %j: tensor<5xi64>, %v: tensor<2xf32>) -> (tensor<*xf32>, tensor<*xi64>, tensor<*xi32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>) {
  // CHECK: top.TopK{{.*}} -> (tensor<3x2xf32>, tensor<3x2xi64>)
  %0:2 = top.TopK(%x) {k = 2 : i64, axis = -1 : i64} : (tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xi64>)
  // CHECK: top.GatherND{{.*}} -> tensor<2x4xi32>
  %1 = top.GatherND(%d, %i) {batch_dims = 1 : i64} : (tensor<2x3x4xi32>, tensor<2x1xi64>) -> tensor<*xi32>
  // CHECK: top.OneHot{{.*}} -> tensor<6x5xf32>
  %none = top.None() : () -> none
  %2 = top.OneHot(%j, %v, %none) {depth = 6 : i64, axis = 0 : i64} : (tensor<5xi64>, tensor<2xf32>, none) -> tensor<*xf32>
  // CHECK: top.Trilu{{.*}} -> tensor<3x4xf32>
  %3 = top.Trilu(%x) : (tensor<3x4xf32>) -> tensor<*xf32>
  %p = top.Reshape(%x) {shape = array<i64: 1, 1, 3, 4>} : (tensor<3x4xf32>) -> tensor<*xf32>
  // CHECK: top.MaxPoolIndices{{.*}} -> tensor<1x1x2x3xi64>
  %4 = top.MaxPoolIndices(%p) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<*xf32>) -> tensor<*xi64>
  return %0#0, %0#1, %1, %2, %3, %4 : tensor<*xf32>, tensor<*xi64>, tensor<*xi32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi64>
}
