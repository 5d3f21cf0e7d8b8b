// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the shape and data-movement ops: each parses, verifies
// (declared result shapes are checked against the inferred ones), prints and
// parses again.

// CHECK-LABEL: func @reshape_permute
func.func @reshape_permute(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>) {
  // CHECK: top.Reshape(%{{.*}}) {shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %0 = top.Reshape(%x) {shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  // CHECK: top.Permute(%{{.*}}) {order = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = top.Permute(%x) {order = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0, %1 : tensor<6x4xf32>, tensor<4x2x3xf32>
}

// CHECK-LABEL: func @concat_split
func.func @concat_split(%a: tensor<2x3xi8>, %b: tensor<2x0xi8>, %c: tensor<2x5xi8>) -> (tensor<2x8xi8>, tensor<2x1xi8>, tensor<2x0xi8>, tensor<2x7xi8>) {
  // CHECK: top.Concat(%{{.*}}, %{{.*}}, %{{.*}}) {axis = -1 : i64} : (tensor<2x3xi8>, tensor<2x0xi8>, tensor<2x5xi8>) -> tensor<2x8xi8>
  %0 = top.Concat(%a, %b, %c) {axis = -1 : i64} : (tensor<2x3xi8>, tensor<2x0xi8>, tensor<2x5xi8>) -> tensor<2x8xi8>
  // CHECK: %{{.*}}:3 = top.Split(%{{.*}}) {axis = 1 : i64, split = array<i64: 1, 0, 7>} : (tensor<2x8xi8>) -> (tensor<2x1xi8>, tensor<2x0xi8>, tensor<2x7xi8>)
  %1:3 = top.Split(%0) {axis = 1 : i64, split = array<i64: 1, 0, 7>} : (tensor<2x8xi8>) -> (tensor<2x1xi8>, tensor<2x0xi8>, tensor<2x7xi8>)
  return %0, %1#0, %1#1, %1#2 : tensor<2x8xi8>, tensor<2x1xi8>, tensor<2x0xi8>, tensor<2x7xi8>
}

// CHECK-LABEL: func @slice_pad
func.func @slice_pad(%x: tensor<4x5xf32>) -> (tensor<2x5xf32>, tensor<4x3xf32>, tensor<6x8xf32>, tensor<4x6xf32>, tensor<3x4xf32>) {
  // CHECK: top.Slice(%{{.*}}) {ends = array<i64: 3>, starts = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
  %0 = top.Slice(%x) {starts = array<i64: 1>, ends = array<i64: 3>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
  // CHECK: top.Slice(%{{.*}}) {axes = array<i64: -1>, ends = array<i64: -9223372036854775808>, starts = array<i64: -1>, steps = array<i64: -2>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
  %1 = top.Slice(%x) {starts = array<i64: -1>, ends = array<i64: -9223372036854775808>, axes = array<i64: -1>, steps = array<i64: -2>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
  // CHECK: top.Pad(%{{.*}}) {pads = array<i64: 1, 2, 1, 1>, value = 2.500000e+00 : f64} : (tensor<4x5xf32>) -> tensor<6x8xf32>
  %2 = top.Pad(%x) {pads = array<i64: 1, 2, 1, 1>, value = 2.5} : (tensor<4x5xf32>) -> tensor<6x8xf32>
  // CHECK: top.Pad(%{{.*}}) {mode = #top.pad_mode<reflect>, pads = array<i64: 0, 1, 0, 0>} : (tensor<4x5xf32>) -> tensor<4x6xf32>
  %3 = top.Pad(%x) {pads = array<i64: 0, 1, 0, 0>, mode = #top.pad_mode<reflect>} : (tensor<4x5xf32>) -> tensor<4x6xf32>
  // CHECK: top.Pad(%{{.*}}) {mode = #top.pad_mode<edge>, pads = array<i64: -1, 0, 0, -1>} : (tensor<4x5xf32>) -> tensor<3x4xf32>
  %4 = top.Pad(%x) {pads = array<i64: -1, 0, 0, -1>, mode = #top.pad_mode<edge>} : (tensor<4x5xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x5xf32>, tensor<4x3xf32>, tensor<6x8xf32>, tensor<4x6xf32>, tensor<3x4xf32>
}

// CHECK-LABEL: func @gather_tile_expand
func.func @gather_tile_expand(%x: tensor<3x1xi1>, %i: tensor<2x2xi32>) -> (tensor<2x2x1xi1>, tensor<6x4xi1>, tensor<2x3x5xi1>) {
  // CHECK: top.Gather(%{{.*}}, %{{.*}}) : (tensor<3x1xi1>, tensor<2x2xi32>) -> tensor<2x2x1xi1>
  %0 = top.Gather(%x, %i) {axis = 0 : i64} : (tensor<3x1xi1>, tensor<2x2xi32>) -> tensor<2x2x1xi1>
  // CHECK: top.Tile(%{{.*}}) {repeats = array<i64: 2, 4>} : (tensor<3x1xi1>) -> tensor<6x4xi1>
  %1 = top.Tile(%x) {repeats = array<i64: 2, 4>} : (tensor<3x1xi1>) -> tensor<6x4xi1>
  // CHECK: top.Expand(%{{.*}}) {shape = array<i64: 2, 1, 5>} : (tensor<3x1xi1>) -> tensor<2x3x5xi1>
  %2 = top.Expand(%x) {shape = array<i64: 2, 1, 5>} : (tensor<3x1xi1>) -> tensor<2x3x5xi1>
  return %0, %1, %2 : tensor<2x2x1xi1>, tensor<6x4xi1>, tensor<2x3x5xi1>
}

// CHECK-LABEL: func @reduce_argmax
func.func @reduce_argmax(%x: tensor<2x3x4xf32>) -> (tensor<2x1x1xf32>, tensor<3xf32>, tensor<1x1x1xf32>, tensor<2x4xi64>, tensor<2x3x1xi64>) {
  // CHECK: top.Reduce(%{{.*}}) {axes = array<i64: 1, 2>, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  %0 = top.Reduce(%x) {axes = array<i64: 1, 2>, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  // CHECK: top.Reduce(%{{.*}}) {axes = array<i64: 0, -1>, keepdims = false, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = top.Reduce(%x) {axes = array<i64: 0, -1>, keepdims = false, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: top.Reduce(%{{.*}}) {mode = #top.reduce_mode<ReduceProd>} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %2 = top.Reduce(%x) {mode = #top.reduce_mode<ReduceProd>} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  // CHECK: top.ArgMax(%{{.*}}) {axis = -2 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  %3 = top.ArgMax(%x) {axis = -2 : i64, keepdims = false, select_last_index = true} : (tensor<2x3x4xf32>) -> tensor<2x4xi64>
  // CHECK: top.ArgMax(%{{.*}}) {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  %4 = top.ArgMax(%x) {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x1xi64>
  return %0, %1, %2, %3, %4 : tensor<2x1x1xf32>, tensor<3xf32>, tensor<1x1x1xf32>, tensor<2x4xi64>, tensor<2x3x1xi64>
}

// Dynamic shapes verify (shape-independent checks only) and round trip.
// CHECK-LABEL: func @dynamic
func.func @dynamic(%x: tensor<?x4xf32>) -> (tensor<*xf32>, tensor<?x?xf32>) {
  // CHECK: top.Concat(%{{.*}}, %{{.*}}) {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<*xf32>
  %0 = top.Concat(%x, %x) {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<*xf32>
  // CHECK: top.Permute(%{{.*}}) {order = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<?x?xf32>
  %1 = top.Permute(%x) {order = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<*xf32>, tensor<?x?xf32>
}
