// RUN: strata-opt %s --convert-top-to-hl --split-input-file | FileCheck %s
// top-quantize's int8 Add and GlobalAvgPool (docs/quantization.md,
// "Integer Add and pools") to hl.add / hl.avgpool. Exactness against the
// Top model: test/npulower/test_npulower_models.py (MobileNetV2's residual
// adds and global pool on npu-sim, byte for byte against run-ref).

// Requant(a) + Requant(b) (i32, relu) -> Requant: one hl.add with both
// input rescales, the output requantization and relu as clip_min = zp.
// CHECK-LABEL: func @add
// CHECK-NOT: top.Requant
// CHECK-NOT: top.Add
// CHECK: %[[Y:.*]] = hl.add(%arg0, %arg1) {clip_min = -5 : i64, lhs_multiplier = 1534986618 : i64, lhs_shift = 13 : i64, lhs_zp = -1 : i64, output_multiplier = 2079611210 : i64, output_shift = 50 : i64, output_zp = -5 : i64, rhs_multiplier = 1073741824 : i64, rhs_shift = 10 : i64, rhs_zp = 3 : i64} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 1.000000e-02:-1>>, tensor<1x4x5x5x!quant.uniform<i8:f32, 6.000000e-02:3>>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 3.000000e-02:-5>>
// CHECK: return %[[Y]]
func.func @add(%a: tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>, %b: tensor<1x4x5x5x!quant.uniform<i8:f32, 0.06:3>>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>> {
  %0 = top.Requant(%a) {multiplier = array<i64: 1534986618>, rshift = array<i64: 13>} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>) -> tensor<1x4x5x5xi32>
  %1 = top.Requant(%b) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 0.06:3>>) -> tensor<1x4x5x5xi32>
  %2 = top.Add(%0, %1) {do_relu = true} : (tensor<1x4x5x5xi32>, tensor<1x4x5x5xi32>) -> tensor<1x4x5x5xi32>
  %3 = top.Requant(%2) {multiplier = array<i64: 2079611210>, rshift = array<i64: 50>} : (tensor<1x4x5x5xi32>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>>
  return %3 : tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>>
}

// -----

// An Add whose operands broadcast stays on the CPU.
// CHECK-LABEL: func @add_broadcast
// CHECK: top.Add
// CHECK-NOT: hl.add
func.func @add_broadcast(%a: tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>, %b: tensor<1x4x1x1x!quant.uniform<i8:f32, 0.06:3>>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>> {
  %0 = top.Requant(%a) {multiplier = array<i64: 1534986618>, rshift = array<i64: 13>} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>) -> tensor<1x4x5x5xi32>
  %1 = top.Requant(%b) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x4x1x1x!quant.uniform<i8:f32, 0.06:3>>) -> tensor<1x4x1x1xi32>
  %2 = top.Add(%0, %1) : (tensor<1x4x5x5xi32>, tensor<1x4x1x1xi32>) -> tensor<1x4x5x5xi32>
  %3 = top.Requant(%2) {multiplier = array<i64: 2079611210>, rshift = array<i64: 50>} : (tensor<1x4x5x5xi32>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>>
  return %3 : tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>>
}

// -----

// GlobalAvgPool: Requant(x) - zp, ReduceSum over H and W, the division
// Requant of intq::divisionMultiplierShift(49, 255 * 49) = (42800, 21), the
// output Requant -> hl.avgpool over the whole 7x7 plane.
// CHECK-LABEL: func @gap
// CHECK-NOT: top.Reduce
// CHECK: %[[Y:.*]] = hl.avgpool(%arg0) {dilation = array<i64: 1, 1>, input_zp = -128 : i64, kernel = array<i64: 7, 7>, multiplier = 1356637857 : i64, output_zp = -128 : i64, pad = array<i64: 0, 0, 0, 0>, shift = 30 : i64, stride = array<i64: 1, 1>} : (tensor<1x8x7x7x!quant.uniform<i8:f32, 3.900000e-02:-128>>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 3.100000e-02:-128>>
// CHECK: return %[[Y]]
func.func @gap(%x: tensor<1x8x7x7x!quant.uniform<i8:f32, 0.039:-128>>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 0.031:-128>> {
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x8x7x7x!quant.uniform<i8:f32, 0.039:-128>>) -> tensor<1x8x7x7xi32>
  %1 = top.Reduce(%0) {axes = array<i64: 2, 3>, mode = #top.reduce_mode<ReduceSum>} : (tensor<1x8x7x7xi32>) -> tensor<1x8x1x1xi32>
  %2 = top.Requant(%1) {multiplier = array<i64: 42800>, rshift = array<i64: 21>} : (tensor<1x8x1x1xi32>) -> tensor<1x8x1x1xi32>
  %3 = top.Requant(%2) {multiplier = array<i64: 1356637857>, rshift = array<i64: 30>} : (tensor<1x8x1x1xi32>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 0.031:-128>>
  return %3 : tensor<1x8x1x1x!quant.uniform<i8:f32, 0.031:-128>>
}

// -----

// A division by another multiplier than divisionMultiplierShift's (not
// provably the rounded mean) stays on the CPU.
// CHECK-LABEL: func @gap_other_division
// CHECK: top.Reduce
// CHECK-NOT: hl.avgpool
func.func @gap_other_division(%x: tensor<1x8x7x7x!quant.uniform<i8:f32, 0.039:-128>>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 0.031:-128>> {
  %0 = top.Requant(%x) {multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x8x7x7x!quant.uniform<i8:f32, 0.039:-128>>) -> tensor<1x8x7x7xi32>
  %1 = top.Reduce(%0) {axes = array<i64: 2, 3>, mode = #top.reduce_mode<ReduceSum>} : (tensor<1x8x7x7xi32>) -> tensor<1x8x1x1xi32>
  %2 = top.Requant(%1) {multiplier = array<i64: 21400>, rshift = array<i64: 20>} : (tensor<1x8x1x1xi32>) -> tensor<1x8x1x1xi32>
  %3 = top.Requant(%2) {multiplier = array<i64: 1356637857>, rshift = array<i64: 30>} : (tensor<1x8x1x1xi32>) -> tensor<1x8x1x1x!quant.uniform<i8:f32, 0.031:-128>>
  return %3 : tensor<1x8x1x1x!quant.uniform<i8:f32, 0.031:-128>>
}

// -----

// x + x: both operands are the one value (the npu-sim dispatch binds it
// once; the program's two input bindings are rebound to it).
// CHECK-LABEL: func @add_self
// CHECK: hl.add(%arg0, %arg0)
// CHECK-NOT: top.Add
func.func @add_self(%a: tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>> {
  %0 = top.Requant(%a) {multiplier = array<i64: 1534986618>, rshift = array<i64: 13>} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>) -> tensor<1x4x5x5xi32>
  %1 = top.Requant(%a) {multiplier = array<i64: 1534986618>, rshift = array<i64: 13>} : (tensor<1x4x5x5x!quant.uniform<i8:f32, 0.01:-1>>) -> tensor<1x4x5x5xi32>
  %2 = top.Add(%0, %1) : (tensor<1x4x5x5xi32>, tensor<1x4x5x5xi32>) -> tensor<1x4x5x5xi32>
  %3 = top.Requant(%2) {multiplier = array<i64: 2079611210>, rshift = array<i64: 50>} : (tensor<1x4x5x5xi32>) -> tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>>
  return %3 : tensor<1x4x5x5x!quant.uniform<i8:f32, 0.03:-5>>
}
