// RUN: strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-chain.txt" | FileCheck %s
// Add (+relu), MaxPool and GlobalAvgPool on int8 inputs stay int8
// (docs/quantization.md, "Integer Add and pools"); the integer
// results are checked against numpy in test/quant/test_quantize.py.

// c1: scale 1.5/255, zp -128; c2: 1.5/255, zp -43. The Add's int32 scale
// is 1.5/255 / 2^20: each input times 2^20 (2^30 / 2^10), the sum times
// (1.5/255 / 2^20) / (3/255) = 2^-21 (2^30 / 2^51) to add's 3/255, zp -128.
// CHECK-LABEL: func @main
// CHECK: %[[C1:.*]] = top.Requant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.0058823530562222004:-128>>
// CHECK: %[[C2:.*]] = top.Requant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.0058823530562222004:-43>>
// CHECK: %[[A:.*]] = top.Requant(%[[C1]]) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : ({{.*}}) -> tensor<1x2x4x4xi32>
// CHECK: %[[B:.*]] = top.Requant(%[[C2]]) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : ({{.*}}) -> tensor<1x2x4x4xi32>
// CHECK: %[[S:.*]] = top.Add(%[[A]], %[[B]]) {do_relu = true} : (tensor<1x2x4x4xi32>, tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi32>
// CHECK: %[[ADD:.*]] = top.Requant(%[[S]]) {multiplier = array<i64: 1073741824>, rshift = array<i64: 51>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.011764706112444401:-128>>
// MaxPool keeps its input's type (the table row of mp is not used).
// CHECK: %[[MP:.*]] = top.MaxPool(%[[ADD]]) {{.*}} -> tensor<1x2x2x2x!quant.uniform<i8:f32, 0.011764706112444401:-128>>
// CHECK: top.Dequant(%[[MP]])
// Concat stays float between Dequant and Quant (the NPU converts that form
// exactly); the GlobalAvgPool reads the Quant of its result (cat's row:
// 3.5/255, zp -92).
// CHECK: %[[CATF:.*]] = top.Concat({{.*}} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK: %[[CAT:.*]] = top.Quant(%[[CATF]]) {{.*}} -> tensor<1x4x4x4x!quant.uniform<i8:f32, 0.013725490309298038:-92>>
// GlobalAvgPool over n = 16: x - zp, the int32 sum, round(sum / 16) as
// sum * 8192 / 2^17 (255 * 16 * 16 <= 2^16), then the requant to gap's row.
// CHECK: %[[X:.*]] = top.Requant(%[[CAT]]) {multiplier = array<i64: 1>, rshift = array<i64: 0>} {{.*}} -> tensor<1x4x4x4xi32>
// CHECK: %[[SUM:.*]] = top.Reduce(%[[X]]) {axes = array<i64: 2, 3>, mode = #top.reduce_mode<ReduceSum>} : (tensor<1x4x4x4xi32>) -> tensor<1x4x1x1xi32>
// CHECK: %[[MEAN:.*]] = top.Requant(%[[SUM]]) {multiplier = array<i64: 8192>, rshift = array<i64: 17>} : (tensor<1x4x1x1xi32>) -> tensor<1x4x1x1xi32>
// CHECK: %[[G:.*]] = top.Requant(%[[MEAN]]) {{.*}} -> tensor<1x4x1x1x!quant.uniform<i8:f32, 0.0088235298171639442:-100>>
// CHECK: top.Dequant(%[[G]])
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x4x1x1xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %b = top.Weight() {name = "b", value = dense<[0.1, -0.2]> : tensor<2xf32>} : () -> tensor<2xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %b) {kernel_shape = array<i64: 1, 1>, do_relu = true} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("c1")
  %2 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("c2")
  %3 = top.Add(%1, %2) {do_relu = true} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("add")
  %4 = top.MaxPool(%3) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> loc("mp")
  %5 = top.Concat(%3, %2) {axis = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xf32> loc("cat")
  %6 = top.GlobalAvgPool(%5) : (tensor<1x4x4x4xf32>) -> tensor<1x4x1x1xf32> loc("gap")
  return %4, %6 : tensor<1x2x2x2xf32>, tensor<1x4x1x1xf32>
}
