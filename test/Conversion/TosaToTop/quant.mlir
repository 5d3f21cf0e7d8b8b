// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// What convert-tosa-to-top writes for rescale, apply_scale and table.
// Numbers: test/tosa/test_tosa_quant.py.

// rescale is one top.Requant in TOSA's rounding, per channel on the last
// dim (axis); a non-zero output zero point is added after a Requant to i32
// (TOSA tensors carry no scales), then saturated.
// CHECK-LABEL: func.func @rescale
// CHECK: %[[R:.*]] = top.Requant(%{{.*}}) {axis = 1 : i64, multiplier = array<i64: 1073741824, 1518500250, 1431655765>, quant_mode = #top.requant_mode<TosaDoubleRound>, rshift = array<i64: 36, 35, 2>} : (tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK: top.Cast(%[[R]]) : (tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK: value = dense<-3> : tensor<i64>
// CHECK: top.Add
// CHECK: value = dense<-128> : tensor<i64>
// CHECK: top.Max
// CHECK: value = dense<127> : tensor<i64>
// CHECK: top.Min
// CHECK: top.Cast({{.*}}) : (tensor<2x3xi64>) -> tensor<2x3xi8>
func.func @rescale(%a: tensor<2x3xi32>) -> tensor<2x3xi8> {
  %m = "tosa.const"() {values = dense<[1073741824, 1518500250, 1431655765]> : tensor<3xi32>} : () -> tensor<3xi32>
  %s = "tosa.const"() {values = dense<[36, 35, 2]> : tensor<3xi8>} : () -> tensor<3xi8>
  %iz = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %oz = "tosa.const"() {values = dense<-3> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.rescale %a, %m, %s, %iz, %oz {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = true, input_unsigned = false, output_unsigned = false} : (tensor<2x3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// An unsigned input is zero-extended (through ui8) and its zero point read
// as unsigned (the i8 bits of -128 are 128); the output clamps to [0, 255].
// CHECK-LABEL: func.func @rescale_unsigned
// CHECK: %[[U:.*]] = top.Cast(%{{.*}}) : (tensor<4xi8>) -> tensor<4xui8>
// CHECK: %[[W:.*]] = top.Cast(%[[U]]) : (tensor<4xui8>) -> tensor<4xi32>
// CHECK: value = dense<128> : tensor<i32>
// CHECK: %[[X:.*]] = top.Sub(%[[W]],
// CHECK: top.Requant(%[[X]]) {multiplier = array<i64: 1073741824>, quant_mode = #top.requant_mode<TosaSingleRound>, rshift = array<i64: 30>} : (tensor<4xi32>) -> tensor<4xi32>
// CHECK: value = dense<0> : tensor<i64>
// CHECK: top.Max
// CHECK: value = dense<255> : tensor<i64>
// CHECK: top.Min
func.func @rescale_unsigned(%a: tensor<4xi8>) -> tensor<4xi8> {
  %m = "tosa.const"() {values = dense<1073741824> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = "tosa.const"() {values = dense<30> : tensor<1xi8>} : () -> tensor<1xi8>
  %z = "tosa.const"() {values = dense<-128> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.rescale %a, %m, %s, %z, %z {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = true, output_unsigned = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// Zero points 0: the Requant alone, straight to the output type;
// INEXACT_ROUND is computed as SINGLE_ROUND.
// CHECK-LABEL: func.func @rescale_no_zero_points
// CHECK: %[[R:.*]] = top.Requant(%{{.*}}) {multiplier = array<i64: 1431655765>, quant_mode = #top.requant_mode<TosaSingleRound>, rshift = array<i64: 33>} : (tensor<4x2xi32>) -> tensor<4x2xi16>
// CHECK-NEXT: return %[[R]]
func.func @rescale_no_zero_points(%a: tensor<4x2xi32>) -> tensor<4x2xi16> {
  %m = "tosa.const"() {values = dense<1431655765> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = "tosa.const"() {values = dense<33> : tensor<1xi8>} : () -> tensor<1xi8>
  %iz = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %oz = "tosa.const"() {values = dense<0> : tensor<1xi16>} : () -> tensor<1xi16>
  %0 = tosa.rescale %a, %m, %s, %iz, %oz {scale32 = true, rounding_mode = INEXACT_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<4x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi16>) -> tensor<4x2xi16>
  return %0 : tensor<4x2xi16>
}

// apply_scale on tensors with one multiplier and shift: a Requant to i32.
// CHECK-LABEL: func.func @apply_scale
// CHECK: top.Requant(%{{.*}}) {multiplier = array<i64: 1073741824>, quant_mode = #top.requant_mode<TosaDoubleRound>, rshift = array<i64: 40>} : (tensor<5xi32>) -> tensor<5xi32>
func.func @apply_scale(%a: tensor<5xi32>) -> tensor<5xi32> {
  %m = "tosa.const"() {values = dense<1073741824> : tensor<5xi32>} : () -> tensor<5xi32>
  %s = "tosa.const"() {values = dense<40> : tensor<5xi8>} : () -> tensor<5xi8>
  %0 = tosa.apply_scale %a, %m, %s {rounding_mode = DOUBLE_ROUND} : (tensor<5xi32>, tensor<5xi32>, tensor<5xi8>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// An i8 table is a gather at x + 128.
// CHECK-LABEL: func.func @table
// CHECK: %[[T:.*]] = top.Weight() {name = "{{.*}}", value = dense<5> : tensor<256xi8>}
// CHECK: %[[X:.*]] = top.Cast(%{{.*}}) : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[O:.*]] = top.Weight() {name = "{{.*}}", value = dense<128> : tensor<i32>}
// CHECK: %[[I:.*]] = top.Add(%[[X]], %[[O]])
// CHECK: top.Gather(%[[T]], %[[I]]) : (tensor<256xi8>, tensor<4xi32>) -> tensor<4xi8>
func.func @table(%a: tensor<4xi8>) -> tensor<4xi8> {
  %t = "tosa.const"() {values = dense<5> : tensor<256xi8>} : () -> tensor<256xi8>
  %0 = tosa.table %a, %t : (tensor<4xi8>, tensor<256xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
