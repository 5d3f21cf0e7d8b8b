// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// The MX block-scaled ops (TOSA 1.1 draft, extension MXFP) as f32 Top ops:
// one f8E8M0FNU scale per block of 32 along the last dim. Numbers against a
// numpy implementation of the spec: test/tosa/test_tosa_block_scaled.py.

// cast_from_block_scaled: data and scales to f32, [.., C] -> [.., C/32, 32]
// times [.., C/32, 1], back to [.., C], then the output type.
// CHECK-LABEL: func.func @cast_from
// CHECK: %[[D:.*]] = top.Input(%arg0) : (tensor<2x64xf4E2M1FN>) -> tensor<2x64xf4E2M1FN>
// CHECK: %[[S:.*]] = top.Input(%arg1) : (tensor<2x2xf8E8M0FNU>) -> tensor<2x2xf8E8M0FNU>
// CHECK: %[[DF:.*]] = top.Cast(%[[D]]) : (tensor<2x64xf4E2M1FN>) -> tensor<2x64xf32>
// CHECK: %[[DB:.*]] = top.Reshape(%[[DF]]) {shape = array<i64: 2, 2, 32>}
// CHECK: %[[SF:.*]] = top.Cast(%[[S]]) : (tensor<2x2xf8E8M0FNU>) -> tensor<2x2xf32>
// CHECK: %[[SB:.*]] = top.Reshape(%[[SF]]) {shape = array<i64: 2, 2, 1>}
// CHECK: %[[M:.*]] = top.Mul(%[[DB]], %[[SB]]) : (tensor<2x2x32xf32>, tensor<2x2x1xf32>) -> tensor<2x2x32xf32>
// CHECK: %[[R:.*]] = top.Reshape(%[[M]]) {shape = array<i64: 2, 64>}
// CHECK: top.Cast(%[[R]]) : (tensor<2x64xf32>) -> tensor<2x64xbf16>
func.func @cast_from(%d: tensor<2x64xf4E2M1FN>, %s: tensor<2x2xf8E8M0FNU>) -> tensor<2x64xbf16> {
  %0 = tosa.cast_from_block_scaled %d, %s {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<2x64xf4E2M1FN>, tensor<2x2xf8E8M0FNU>) -> tensor<2x64xbf16>
  return %0 : tensor<2x64xbf16>
}

// cast_to_block_scaled to f8E4M3FN: m = max |x| per block; the scale is
// 2^ceil(log2(m / 464)) (f8E8M0FNU's "up" rounding of the exponent,
// Cast's default), 2^-127
// where m / 464 <= 2^-127; the data x / scale cast to f8E4M3FN without
// saturation (out of range is NaN, as the spec's round_to_nearest_float).
// CHECK-LABEL: func.func @cast_to_e4m3
// CHECK: %[[X:.*]] = top.Reshape(%{{.*}}) {shape = array<i64: 3, 1, 32>} : (tensor<3x32xf32>) -> tensor<3x1x32xf32>
// CHECK: %[[A:.*]] = top.Abs(%[[X]])
// CHECK: %[[MAX:.*]] = top.Reduce(%[[A]]) {axes = array<i64: -1>, mode = #top.reduce_mode<ReduceMax>} : (tensor<3x1x32xf32>) -> tensor<3x1x1xf32>
// CHECK: value = dense<4.640000e+02> : tensor<f32>
// CHECK: %[[RATIO:.*]] = top.Div(%[[MAX]], %{{.*}})
// CHECK: %[[MIN:.*]] = top.Weight() {{.*}}value = dense<5.87747175E-39> : tensor<f32>
// CHECK: %[[UP:.*]] = top.Cast(%[[RATIO]]) : (tensor<3x1x1xf32>) -> tensor<3x1x1xf8E8M0FNU>
// CHECK: %[[P2:.*]] = top.Cast(%[[UP]]) : (tensor<3x1x1xf8E8M0FNU>) -> tensor<3x1x1xf32>
// CHECK: %[[TINY:.*]] = top.Compare(%[[RATIO]], %[[MIN]]) {mode = #top.compare_mode<LessOrEqual>}
// CHECK: %[[SCALE:.*]] = top.Where(%[[TINY]], %[[MIN]], %[[P2]])
// CHECK: %[[Y:.*]] = top.Div(%[[X]], %[[SCALE]]) : (tensor<3x1x32xf32>, tensor<3x1x1xf32>) -> tensor<3x1x32xf32>
// CHECK: %[[YR:.*]] = top.Reshape(%[[Y]]) {shape = array<i64: 3, 32>}
// CHECK: %[[DATA:.*]] = top.Cast(%[[YR]]) {saturate = false} : (tensor<3x32xf32>) -> tensor<3x32xf8E4M3FN>
// CHECK: %[[SR:.*]] = top.Reshape(%[[SCALE]]) {shape = array<i64: 3, 1>}
// CHECK: %[[SC:.*]] = top.Cast(%[[SR]]) {round_mode = #top.round_mode<down>} : (tensor<3x1xf32>) -> tensor<3x1xf8E8M0FNU>
// CHECK: return %[[DATA]], %[[SC]]
func.func @cast_to_e4m3(%x: tensor<3x32xf32>) -> (tensor<3x32xf8E4M3FN>, tensor<3x1xf8E8M0FNU>) {
  %0, %1 = tosa.cast_to_block_scaled %x {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<3x32xf32>) -> (tensor<3x32xf8E4M3FN>, tensor<3x1xf8E8M0FNU>)
  return %0, %1 : tensor<3x32xf8E4M3FN>, tensor<3x1xf8E8M0FNU>
}

// The other formats: 2^(floor(log2(m / out_max)) + 1) as twice the "down"
// rounding, 2^-127 where m / out_max < 2^-127. f6 (no Top type) rounds
// through the f8 format of the same mantissa width, scaled so that the
// smallest normal exponents meet (f6E3M2FN: f8E5M2 times 2^-12) and stays
// an f32 carrier (saturated to +-max: f6 has no Inf or NaN), which
// cast_from_block_scaled multiplies by the scale.
// CHECK-LABEL: func.func @cast_to_e3m2_and_back
// CHECK: value = dense<3.000000e+01> : tensor<f32>
// CHECK: %[[RATIO:.*]] = top.Div
// CHECK: %[[DOWN:.*]] = top.Cast(%[[RATIO]]) {round_mode = #top.round_mode<down>} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf8E8M0FNU>
// CHECK: %[[P:.*]] = top.Cast(%[[DOWN]]) : (tensor<1x2x1xf8E8M0FNU>) -> tensor<1x2x1xf32>
// CHECK: value = dense<2.000000e+00> : tensor<f32>
// CHECK: %[[P2:.*]] = top.Mul(%[[P]], %{{.*}})
// CHECK: top.Compare(%[[RATIO]], %{{.*}}) {mode = #top.compare_mode<Less>}
// CHECK: %[[SCALE:.*]] = top.Where
// CHECK: value = dense<4.096000e+03> : tensor<f32>
// CHECK: %[[S1:.*]] = top.Div(%{{.*}}, %{{.*}}) : (tensor<1x64xf32>, tensor<f32>) -> tensor<1x64xf32>
// CHECK: %[[F8:.*]] = top.Cast(%[[S1]]) : (tensor<1x64xf32>) -> tensor<1x64xf8E5M2>
// CHECK: %[[BACK:.*]] = top.Cast(%[[F8]]) : (tensor<1x64xf8E5M2>) -> tensor<1x64xf32>
// CHECK: %[[UNSCALED:.*]] = top.Mul(%[[BACK]], %{{.*}}) : (tensor<1x64xf32>, tensor<f32>) -> tensor<1x64xf32>
// CHECK: value = dense<2.800000e+01> : tensor<f32>
// CHECK: %[[LO:.*]] = top.Min(%[[UNSCALED]], %{{.*}})
// CHECK: value = dense<-2.800000e+01> : tensor<f32>
// CHECK: %[[CARRIER:.*]] = top.Max(%[[LO]], %{{.*}})
// CHECK: top.Reshape(%[[CARRIER]]) {shape = array<i64: 1, 2, 32>}
// CHECK: top.Mul
// CHECK: return %{{.*}} : tensor<1x64xf32>
func.func @cast_to_e3m2_and_back(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0, %1 = tosa.cast_to_block_scaled %x {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<1x64xf32>) -> (tensor<1x64xf6E3M2FN>, tensor<1x2xf8E8M0FNU>)
  %2 = tosa.cast_from_block_scaled %0, %1 {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<1x64xf6E3M2FN>, tensor<1x2xf8E8M0FNU>) -> tensor<1x64xf32>
  return %2 : tensor<1x64xf32>
}

// An f6 constant is decoded at import into an f32 weight of the same values.
// CHECK-LABEL: func.func @f6_const
// CHECK: %[[W:.*]] = top.Weight() {{.*}}value = dense<[5.000000e-01, -7.500000e+00, 1.250000e-01, 0.000000e+00, {{.*}}]> : tensor<32xf32>
// CHECK: top.Reshape(%[[W]]) {shape = array<i64: 1, 32>} : (tensor<32xf32>) -> tensor<1x32xf32>
func.func @f6_const(%s: tensor<1xf8E8M0FNU>) -> tensor<32xf32> {
  %d = "tosa.const"() {values = dense<[0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0, 0.5, -7.5, 0.125, 0.0]> : tensor<32xf6E2M3FN>} : () -> tensor<32xf6E2M3FN>
  %0 = tosa.cast_from_block_scaled %d, %s {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<32xf6E2M3FN>, tensor<1xf8E8M0FNU>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// matmul_t_block_scaled: A [N, H, C] -> [N, C/32, H, 32], B [D, W, C] ->
// [D, C/32, W, 32] (D = 1 broadcasts), one batched MatMul with the right
// side transposed gives each block's dot product [N, C/32, H, W]; times
// scale_A [N, C/32, H, 1] * scale_B [D, C/32, 1, W]; summed over the blocks.
// CHECK-LABEL: func.func @matmul_t
// CHECK: %[[A:.*]] = top.Cast(%{{.*}}) : (tensor<2x3x64xf8E5M2>) -> tensor<2x3x64xf32>
// CHECK: %[[AR:.*]] = top.Reshape(%[[A]]) {shape = array<i64: 2, 3, 2, 32>}
// CHECK: %[[AP:.*]] = top.Permute(%[[AR]]) {order = array<i64: 0, 2, 1, 3>} : (tensor<2x3x2x32xf32>) -> tensor<2x2x3x32xf32>
// CHECK: %[[B:.*]] = top.Cast(%{{.*}}) : (tensor<1x4x64xf8E5M2>) -> tensor<1x4x64xf32>
// CHECK: %[[BR:.*]] = top.Reshape(%[[B]]) {shape = array<i64: 1, 4, 2, 32>}
// CHECK: %[[BP:.*]] = top.Permute(%[[BR]]) {order = array<i64: 0, 2, 1, 3>} : (tensor<1x4x2x32xf32>) -> tensor<1x2x4x32xf32>
// CHECK: %[[DOT:.*]] = top.MatMul(%[[AP]], %[[BP]], %{{.*}}) {right_transpose = true} : (tensor<2x2x3x32xf32>, tensor<1x2x4x32xf32>, none) -> tensor<2x2x3x4xf32>
// CHECK: top.Cast(%{{.*}}) : (tensor<2x3x2xf8E8M0FNU>) -> tensor<2x3x2xf32>
// CHECK: %[[SA:.*]] = top.Reshape(%{{.*}}) {shape = array<i64: 2, 2, 3, 1>}
// CHECK: top.Cast(%{{.*}}) : (tensor<1x4x2xf8E8M0FNU>) -> tensor<1x4x2xf32>
// CHECK: %[[SB:.*]] = top.Reshape(%{{.*}}) {shape = array<i64: 1, 2, 1, 4>}
// CHECK: %[[S:.*]] = top.Mul(%[[SA]], %[[SB]]) : (tensor<2x2x3x1xf32>, tensor<1x2x1x4xf32>) -> tensor<2x2x3x4xf32>
// CHECK: %[[P:.*]] = top.Mul(%[[DOT]], %[[S]])
// CHECK: top.Reduce(%[[P]]) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x2x3x4xf32>) -> tensor<2x3x4xf32>
func.func @matmul_t(%a: tensor<2x3x64xf8E5M2>, %sa: tensor<2x3x2xf8E8M0FNU>, %b: tensor<1x4x64xf8E5M2>, %sb: tensor<1x4x2xf8E8M0FNU>) -> tensor<2x3x4xf32> {
  %0 = tosa.matmul_t_block_scaled %a, %sa, %b, %sb {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<2x3x64xf8E5M2>, tensor<2x3x2xf8E8M0FNU>, tensor<1x4x64xf8E5M2>, tensor<1x4x2xf8E8M0FNU>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
