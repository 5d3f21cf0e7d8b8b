// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// What convert-tosa-to-top writes for rescale and table: the spec's integer
// formula in i64 Top ops (why not top.Requant: docs/tosa.md). Numbers:
// test/tosa/test_quant.py.

// x - input_zp, * multiplier (per channel: one per last-dim index), + the
// rounding term 2^(s-1) and, for DOUBLE_ROUND with s > 31, +-2^30 by the
// sign of x, then floor division by 2^s, + output_zp, clamp, cast.
// CHECK-LABEL: func.func @rescale
// CHECK: %[[X:.*]] = top.Cast(%{{.*}}) : (tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK: %[[M:.*]] = top.Weight() {name = "{{.*}}", value = dense<[1073741824, 1518500250, 1431655765]> : tensor<3xi64>}
// CHECK: top.Mul(%[[X]], %[[M]]) : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
// CHECK: value = dense<[34359738368, 17179869184, 2]> : tensor<3xi64>
// CHECK: value = dense<[1073741824, 1073741824, 0]> : tensor<3xi64>
// CHECK: top.Compare({{.*}}) {mode = #top.compare_mode<GreaterOrEqual>}
// CHECK: top.Neg
// CHECK: top.Where
// CHECK: value = dense<[68719476736, 34359738368, 4]> : tensor<3xi64>
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
// CHECK: top.Cast(%[[U]]) : (tensor<4xui8>) -> tensor<4xi64>
// CHECK: value = dense<128> : tensor<i64>
// CHECK: top.Sub
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
