// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the index and selection ops: each parses, verifies (declared
// result shapes are checked against the inferred ones), prints and parses
// again.

// CHECK-LABEL: func @trilu_cumulative
func.func @trilu_cumulative(%x: tensor<2x3x4xf32>, %n: tensor<5xi32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<5xi32>) {
  // CHECK: top.Trilu(%{{.*}}) {diagonal = -1 : i64, upper = false} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %0 = top.Trilu(%x) {upper = false, diagonal = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: top.Cumulative(%{{.*}}) {axis = -1 : i64, exclusive = true, mode = #top.cumulative_mode<prod>, reverse = true} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = top.Cumulative(%x) {axis = -1 : i64, mode = #top.cumulative_mode<prod>, exclusive = true, reverse = true} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  // CHECK: top.Cumulative(%{{.*}}) {axis = 0 : i64} : (tensor<5xi32>) -> tensor<5xi32>
  %2 = top.Cumulative(%n) {axis = 0 : i64} : (tensor<5xi32>) -> tensor<5xi32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<5xi32>
}

// CHECK-LABEL: func @scatter_gather
func.func @scatter_gather(%d: tensor<4x5x6xf32>, %i: tensor<4x2x6xi64>, %u: tensor<4x2x6xf32>, %j: tensor<3x2xi32>, %v: tensor<3x6xf32>, %k: tensor<4x2x1xi64>) -> (tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<3x6xf32>, tensor<4x2x6xf32>) {
  // CHECK: top.ScatterElements(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 1 : i64, reduction = #top.scatter_reduction<max>} : (tensor<4x5x6xf32>, tensor<4x2x6xi64>, tensor<4x2x6xf32>) -> tensor<4x5x6xf32>
  %0 = top.ScatterElements(%d, %i, %u) {axis = 1 : i64, reduction = #top.scatter_reduction<max>} : (tensor<4x5x6xf32>, tensor<4x2x6xi64>, tensor<4x2x6xf32>) -> tensor<4x5x6xf32>
  // CHECK: top.ScatterND(%{{.*}}, %{{.*}}, %{{.*}}) {reduction = #top.scatter_reduction<add>} : (tensor<4x5x6xf32>, tensor<3x2xi32>, tensor<3x6xf32>) -> tensor<4x5x6xf32>
  %1 = top.ScatterND(%d, %j, %v) {reduction = #top.scatter_reduction<add>} : (tensor<4x5x6xf32>, tensor<3x2xi32>, tensor<3x6xf32>) -> tensor<4x5x6xf32>
  // CHECK: top.GatherND(%{{.*}}, %{{.*}}) : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x6xf32>
  %2 = top.GatherND(%d, %j) : (tensor<4x5x6xf32>, tensor<3x2xi32>) -> tensor<3x6xf32>
  // CHECK: top.GatherND(%{{.*}}, %{{.*}}) {batch_dims = 1 : i64} : (tensor<4x5x6xf32>, tensor<4x2x1xi64>) -> tensor<4x2x6xf32>
  %3 = top.GatherND(%d, %k) {batch_dims = 1 : i64} : (tensor<4x5x6xf32>, tensor<4x2x1xi64>) -> tensor<4x2x6xf32>
  return %0, %1, %2, %3 : tensor<4x5x6xf32>, tensor<4x5x6xf32>, tensor<3x6xf32>, tensor<4x2x6xf32>
}

// CHECK-LABEL: func @topk_onehot
func.func @topk_onehot(%x: tensor<3x4xui64>, %i: tensor<2x3xi64>, %v: tensor<2xi32>, %d: tensor<f32>) -> (tensor<3x2xui64>, tensor<3x2xi64>, tensor<2x7x3xi32>, tensor<2x3x?xi32>) {
  // CHECK: %{{.*}}, %{{.*}} = top.TopK(%{{.*}}) {k = 2 : i64, sorted = false} : (tensor<3x4xui64>) -> (tensor<3x2xui64>, tensor<3x2xi64>)
  %0:2 = top.TopK(%x) {k = 2 : i64, axis = -1 : i64, sorted = false} : (tensor<3x4xui64>) -> (tensor<3x2xui64>, tensor<3x2xi64>)
  %none = top.None() : () -> none
  // CHECK: top.OneHot(%{{.*}}, %{{.*}}, %{{.*}}) {axis = 1 : i64, depth = 7 : i64} : (tensor<2x3xi64>, tensor<2xi32>, none) -> tensor<2x7x3xi32>
  %1 = top.OneHot(%i, %v, %none) {depth = 7 : i64, axis = 1 : i64} : (tensor<2x3xi64>, tensor<2xi32>, none) -> tensor<2x7x3xi32>
  // CHECK: top.OneHot(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xi64>, tensor<2xi32>, tensor<f32>) -> tensor<2x3x?xi32>
  %2 = top.OneHot(%i, %v, %d) : (tensor<2x3xi64>, tensor<2xi32>, tensor<f32>) -> tensor<2x3x?xi32>
  return %0#0, %0#1, %1, %2 : tensor<3x2xui64>, tensor<3x2xi64>, tensor<2x7x3xi32>, tensor<2x3x?xi32>
}

// CHECK-LABEL: func @sequence_unpool
func.func @sequence_unpool(%x: tensor<4x3xf32>, %l: tensor<3xi64>, %p: tensor<1x2x4x4xf32>) -> (tensor<4x3xf32>, tensor<1x2x2x2xi64>, tensor<1x2x4x4xf32>) {
  // CHECK: top.ReverseSequence(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  %0 = top.ReverseSequence(%x, %l) {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  // CHECK: top.MaxPoolIndices(%{{.*}}) {kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xi64>
  %1 = top.MaxPoolIndices(%p) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, storage_order = 1 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xi64>
  %v = top.MaxPool(%p) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: top.MaxUnpool(%{{.*}}, %{{.*}}) {output_shape = array<i64: 1, 2, 4, 4>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
  %2 = top.MaxUnpool(%v, %1) {output_shape = array<i64: 1, 2, 4, 4>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) -> tensor<1x2x4x4xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<1x2x2x2xi64>, tensor<1x2x4x4xf32>
}

// CHECK-LABEL: func @data_dependent
func.func @data_dependent(%x: tensor<2x3xf32>, %b: tensor<1x6x4xf32>, %s: tensor<1x2x6xf32>, %m: tensor<1xi64>) -> (tensor<2x?xi64>, tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>, tensor<?x3xi64>) {
  // CHECK: top.NonZero(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x?xi64>
  %0 = top.NonZero(%x) : (tensor<2x3xf32>) -> tensor<2x?xi64>
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = top.Unique(%{{.*}}) {axis = -1 : i64, has_axis = true} : (tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  %1:4 = top.Unique(%x) {has_axis = true, axis = -1 : i64} : (tensor<2x3xf32>) -> (tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  %none = top.None() : () -> none
  // CHECK: top.NonMaxSuppression(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {center_point_box = 1 : i64} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  %2 = top.NonMaxSuppression(%b, %s, %m, %none, %none) {center_point_box = 1 : i64} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  return %0, %1#0, %1#1, %1#2, %1#3, %2 : tensor<2x?xi64>, tensor<2x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>, tensor<?x3xi64>
}

// CHECK-LABEL: func.func @range
func.func @range(%s: tensor<i64>, %l: tensor<i64>, %d: tensor<i64>, %f: tensor<f32>) -> (tensor<?xi64>, tensor<?xf32>) {
  // CHECK: top.Range(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %0 = top.Range(%s, %l, %d) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  // CHECK: top.Range(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %1 = top.Range(%f, %f, %f) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %0, %1 : tensor<?xi64>, tensor<?xf32>
}
