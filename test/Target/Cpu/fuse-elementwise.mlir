// RUN: strata-opt %s --convert-top-to-linalg --strata-cpu-fuse-elementwise | FileCheck %s

// A dispatch marked strata.fuse_elementwise (an outlined int8 Add) becomes
// one elementwise loop: int8 inputs to the int8 output, no i32 tensors.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<1x2x4x4xi8>, tensor<1x2x4x4xi8>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: -> tensor<1x2x4x4xi8>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%a: tensor<1x2x4x4x!quant.uniform<i8:f32, 0.02:-22>>, %b: tensor<1x2x4x4x!quant.uniform<i8:f32, 0.01:3>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.04:-128>> attributes {strata.dispatch, strata.fuse_elementwise} {
  %ia = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.02:-22>>) -> tensor<1x2x4x4xi32>
  %ib = top.Requant(%b) {multiplier = array<i64: 1073741824>, rshift = array<i64: 11>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.01:3>>) -> tensor<1x2x4x4xi32>
  %s = top.Add(%ia, %ib) {do_relu = true} : (tensor<1x2x4x4xi32>, tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi32>
  %y = top.Requant(%s) {multiplier = array<i64: 1073741824>, rshift = array<i64: 52>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.04:-128>>
  return %y : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.04:-128>>
}

// Unmarked: the generics stay apart.
// CHECK-LABEL: func.func @unmarked
// CHECK-COUNT-2: linalg.generic
func.func @unmarked(%a: tensor<1x2x4x4x!quant.uniform<i8:f32, 0.02:-22>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.04:-128>> attributes {strata.dispatch} {
  %ia = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x2x4x4x!quant.uniform<i8:f32, 0.02:-22>>) -> tensor<1x2x4x4xi32>
  %y = top.Requant(%ia) {multiplier = array<i64: 1073741824>, rshift = array<i64: 52>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.04:-128>>
  return %y : tensor<1x2x4x4x!quant.uniform<i8:f32, 0.04:-128>>
}
