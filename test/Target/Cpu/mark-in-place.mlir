// RUN: strata-opt %s --strata-cpu-mark-in-place | FileCheck %s

// A lone elementwise generic: the operands read with an identity map, of
// the result's shape and element width, may be written over; a broadcast
// operand, one of another width, and a dispatch with two ops may not.

// CHECK-LABEL: func.func private @dispatch_0_Add
// CHECK-SAME: strata.in_place_operands = [0]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @dispatch_0_Add(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func private @dispatch_1_Cast
// CHECK-NOT: strata.in_place_operands
func.func private @dispatch_1_Cast(%a: tensor<4x8xf16>) -> tensor<4x8xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f16, %o: f32):
    %s = arith.extf %x : f16 to f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func private @dispatch_2_Transpose
// CHECK-NOT: strata.in_place_operands
func.func private @dispatch_2_Transpose(%a: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// CHECK-LABEL: func.func private @dispatch_3_Two
// CHECK-NOT: strata.in_place_operands
func.func private @dispatch_3_Two(%a: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  return %r2 : tensor<4x8xf32>
}
