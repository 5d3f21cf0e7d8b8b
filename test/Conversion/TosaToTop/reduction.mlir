// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// What convert-tosa-to-top writes for the reductions (the reduced dim is
// kept) and argmax (i64 in Top, cast to TOSA's i32); reduce_all/any are a
// min/max over the booleans as i32. Numbers: test/tosa/test_data_movement.py.

// CHECK-LABEL: func.func @reduce
// CHECK: top.Reduce(%{{.*}}) {axes = array<i64: 1>, mode = #top.reduce_mode<ReduceSum>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
// CHECK: top.Reduce(%{{.*}}) {axes = array<i64: 0>, mode = #top.reduce_mode<ReduceMax>} : (tensor<3x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[A:.*]] = top.ArgMax(%{{.*}}) {axis = 1 : i64, keepdims = false} : (tensor<3x4xf32>) -> tensor<3xi64>
// CHECK: top.Cast(%[[A]]) : (tensor<3xi64>) -> tensor<3xi32>
// CHECK: %[[B:.*]] = top.Cast(%{{.*}}) : (tensor<3x4xi1>) -> tensor<3x4xi32>
// CHECK: %[[M:.*]] = top.Reduce(%[[B]]) {axes = array<i64: 1>, mode = #top.reduce_mode<ReduceMin>}
// CHECK: top.Cast(%[[M]]) : (tensor<3x1xi32>) -> tensor<3x1xi1>
func.func @reduce(%a: tensor<3x4xf32>, %b: tensor<3x4xi1>) -> (tensor<3x1xf32>, tensor<1x4xf32>, tensor<3xi32>, tensor<3x1xi1>) {
  %0 = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %1 = tosa.reduce_max %a {axis = 0 : i32} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %2 = tosa.argmax %a {axis = 1 : i32} : (tensor<3x4xf32>) -> tensor<3xi32>
  %3 = tosa.reduce_all %b {axis = 1 : i32} : (tensor<3x4xi1>) -> tensor<3x1xi1>
  return %0, %1, %2, %3 : tensor<3x1xf32>, tensor<1x4xf32>, tensor<3xi32>, tensor<3x1xi1>
}
