// RUN: strata-opt %s --canonicalize --split-input-file | FileCheck %s
// Folders of Reshape, Permute and Expand.

// CHECK-LABEL: func @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: top.Reshape
// CHECK: return %[[X]]
func.func @reshape_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 0, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A chain of reshapes becomes one reshape of the original input, with the
// static result shape as its `shape`.
// CHECK-LABEL: func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = top.Reshape(%[[X]]) {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = top.Reshape(%0) {shape = array<i64: 24>} : (tensor<6x4xf32>) -> tensor<24xf32>
  %2 = top.Reshape(%1) {shape = array<i64: 4, -1>} : (tensor<24xf32>) -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

// A 0 in the outer `shape` copied the inner reshape's dim; the static result
// shape replaces it.
// CHECK-LABEL: func @reshape_chain_static_copy_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = top.Reshape(%[[X]]) {shape = array<i64: 6, 2, 2>} : (tensor<2x3x4xf32>) -> tensor<6x2x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain_static_copy_dim(%x: tensor<2x3x4xf32>) -> tensor<6x2x2xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = top.Reshape(%0) {shape = array<i64: 0, 2, -1>} : (tensor<6x4xf32>) -> tensor<6x2x2xf32>
  return %1 : tensor<6x2x2xf32>
}

// -----

// Reshape back to the input's shape: the chain folds away entirely.
// CHECK-LABEL: func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 6>} : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = top.Reshape(%0) {shape = array<i64: 2, 3>} : (tensor<6xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// With an unknown result shape, a `shape` without 0 is kept ...
// CHECK-LABEL: func @reshape_chain_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = top.Reshape(%[[X]]) {shape = array<i64: -1, 2>} : (tensor<2x3x4xf32>) -> tensor<*xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain_dynamic(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = top.Reshape(%0) {shape = array<i64: -1, 2>} : (tensor<6x4xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// ... but one with 0 refers to the inner reshape's dims and does not fold.
// CHECK-LABEL: func @reshape_chain_copy_dim
// CHECK: top.Reshape
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 0, -1>} : (tensor<6x4xf32>) -> tensor<*xf32>
func.func @reshape_chain_copy_dim(%x: tensor<2x3x4xf32>) -> tensor<*xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = top.Reshape(%0) {shape = array<i64: 0, -1>} : (tensor<6x4xf32>) -> tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// An identity reshape whose result type is unknown keeps its type.
// CHECK-LABEL: func @reshape_identity_unranked
// CHECK: top.Reshape
func.func @reshape_identity_unranked(%x: tensor<2x3xf32>) -> tensor<*xf32> {
  %0 = top.Reshape(%x) {shape = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func @permute_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xi8>)
// CHECK-NEXT: return %[[X]]
func.func @permute_identity(%x: tensor<2x3x4xi8>) -> tensor<2x3x4xi8> {
  %0 = top.Permute(%x) {order = array<i64: 0, 1, 2>} : (tensor<2x3x4xi8>) -> tensor<2x3x4xi8>
  return %0 : tensor<2x3x4xi8>
}

// -----

// Two permutes compose into one: out[i] = x[order1[order2[i]]].
// CHECK-LABEL: func @permute_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[P:.*]] = top.Permute(%[[X]]) {order = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: return %[[P]]
func.func @permute_chain(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = top.Permute(%x) {order = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = top.Permute(%0) {order = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// A permute followed by its inverse folds away.
// CHECK-LABEL: func @permute_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @permute_inverse(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  %0 = top.Permute(%x) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  %1 = top.Permute(%0) {order = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
  return %1 : tensor<1x3x8x8xf32>
}

// -----

// A non-identity permute stays.
// CHECK-LABEL: func @permute_keep
// CHECK: top.Permute(%{{.*}}) {order = array<i64: 1, 0>}
func.func @permute_keep(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = top.Permute(%x) {order = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// An expand to the input's own static shape is the input; one that
// broadcasts stays.
// CHECK-LABEL: func @expand_identity
// CHECK: %[[X:.*]] = top.Input
// CHECK: %[[E:.*]] = top.Expand(%[[X]])
// CHECK: return %[[X]], %[[E]]
func.func @expand_identity(%arg0: tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<2x3xf32>) {
  %x = top.Input(%arg0) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %0 = top.Expand(%x) {shape = array<i64: 2, 1>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %1 = top.Expand(%x) {shape = array<i64: 1, 3>} : (tensor<2x1xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x1xf32>, tensor<2x3xf32>
}
