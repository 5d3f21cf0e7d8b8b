// RUN: strata-opt %s --canonicalize | FileCheck %s
// Folders of the elementwise ops, and the cases they must leave alone.

// CHECK-LABEL: func @cast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: top.Cast
// CHECK: return %[[X]]
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Cast(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @cast_other_type
// CHECK: top.Cast
func.func @cast_other_type(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = top.Cast(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// A cast to an unranked type of the same element type changes the type.
// CHECK-LABEL: func @cast_unranked
// CHECK: top.Cast
func.func @cast_unranked(%x: tensor<4xf32>) -> tensor<*xf32> {
  %0 = top.Cast(%x) : (tensor<4xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// CHECK-LABEL: func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NOT: top.Neg
// CHECK: return %[[X]]
func.func @neg_neg(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = top.Neg(%x) : (tensor<4xi32>) -> tensor<4xi32>
  %1 = top.Neg(%0) : (tensor<4xi32>) -> tensor<4xi32>
  return %1 : tensor<4xi32>
}

// Three negations leave one.
// CHECK-LABEL: func @neg_neg_neg
// CHECK: %[[N:.*]] = top.Neg
// CHECK-NOT: top.Neg
// CHECK: return %[[N]]
func.func @neg_neg_neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Neg(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Neg(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = top.Neg(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// The inner result type differs from the outer one: no fold.
// CHECK-LABEL: func @neg_neg_type_change
// CHECK-COUNT-2: top.Neg
func.func @neg_neg_type_change(%x: tensor<*xf32>) -> tensor<4xf32> {
  %0 = top.Neg(%x) : (tensor<*xf32>) -> tensor<*xf32>
  %1 = top.Neg(%0) : (tensor<*xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func @abs_abs
// CHECK: %[[A:.*]] = top.Abs
// CHECK-NOT: top.Abs
// CHECK: return %[[A]]
func.func @abs_abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Abs(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Abs(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func @relu_relu
// CHECK: %[[R:.*]] = top.Relu
// CHECK-NOT: top.Relu
// CHECK: return %[[R]]
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func @max_min_self
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: top.Max
// CHECK-NOT: top.Min
// CHECK: return %[[X]], %[[X]]
func.func @max_min_self(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = top.Max(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = top.Min(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// With do_relu, max(x, x) is relu(x), not x.
// CHECK-LABEL: func @max_self_relu
// CHECK: top.Max
func.func @max_self_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Max(%x, %x) {do_relu = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @max_distinct
// CHECK: top.Max
func.func @max_distinct(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = top.Max(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
