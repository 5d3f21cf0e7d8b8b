// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// A 2-d MatMul is linalg.matmul into zeros; bias and relu (f32: v > 0 ? v : 0)
// are one epilogue generic reading the bias along the last dim.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x5xf32>) outs(%[[F]]
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]]{{.*}} ins(%[[M]], %{{.*}} : tensor<3x5xf32>, tensor<5xf32>)
// CHECK: arith.addf
// CHECK: arith.cmpf ogt
// CHECK: arith.select
func.func @matmul_bias_relu(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = top.MatMul(%a, %b, %c) {do_relu = true} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Broadcast batch dims and right_transpose: one generic contraction; the
// size-1 batch dim of the lhs is read at 0, the rhs as (n, k). Without bias
// or epilogue the contraction is the result.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast_transpose
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @matmul_broadcast_transpose(%a: tensor<2x1x3x4xf32>, %b: tensor<5x6x4xf32>) -> tensor<2x5x3x6xf32> {
  %n = top.None() : () -> none
  %0 = top.MatMul(%a, %b, %n) {right_transpose = true} : (tensor<2x1x3x4xf32>, tensor<5x6x4xf32>, none) -> tensor<2x5x3x6xf32>
  return %0 : tensor<2x5x3x6xf32>
}

// -----

// Equal batch dims: linalg.batch_matmul.
// CHECK-LABEL: func.func @matmul_batch
// CHECK: linalg.batch_matmul
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %n = top.None() : () -> none
  %0 = top.MatMul(%a, %b, %n) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, none) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Integers compute in i64 (ui8 zero-extended); a 1-d lhs is expanded to a
// row and its dim read at 0; relu_limit 6.5 caps at 6; the result wraps to
// i32.
// CHECK-DAG: #[[ACC:.*]] = affine_map<(d0, d1) -> (d0, 0, d1)>
// CHECK-LABEL: func.func @matmul_int_vector
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 4]
// CHECK: arith.muli
// CHECK: linalg.generic {indexing_maps = [#[[ACC]], #{{.*}}]
// CHECK: arith.maxsi
// CHECK: %[[SIX:.*]] = arith.constant 6 : i64
// CHECK: arith.minsi %{{.*}}, %[[SIX]]
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @matmul_int_vector(%a: tensor<4xi32>, %b: tensor<2x4x5xui8>) -> tensor<2x5xi32> {
  %n = top.None() : () -> none
  %0 = top.MatMul(%a, %b, %n) {do_relu = true, relu_limit = 6.5} : (tensor<4xi32>, tensor<2x4x5xui8>, none) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

// Conv 2-d, group 1: zero tensor.pad (begins, ends), conv_2d_nchw_fchw with
// strides and dilations, bias read along the channel dim.
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @conv2d
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 2, 1]
// CHECK: linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[P]], %{{.*}} : tensor<1x3x11x9xf32>, tensor<4x3x3x3xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[CH]], #{{.*}}]
// CHECK: arith.addf
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 2, 1>, dilations = array<i64: 1, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// 1-d and 3-d convolutions use the named ops.
// CHECK-LABEL: func.func @conv1d
// CHECK: linalg.conv_1d_ncw_fcw {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
// CHECK-LABEL: func.func @conv3d
// CHECK: linalg.conv_3d_ncdhw_fcdhw {dilations = dense<1> : tensor<3xi64>, strides = dense<[1, 2, 1]> : tensor<3xi64>}
func.func @conv1d(%x: tensor<3x2x5xf32>, %w: tensor<4x2x3xf32>) -> tensor<3x4x2xf32> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3>, strides = array<i64: 2>, pads = array<i64: 1, 1>, dilations = array<i64: 2>} : (tensor<3x2x5xf32>, tensor<4x2x3xf32>, none) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}
func.func @conv3d(%x: tensor<1x2x4x5x3xf32>, %w: tensor<2x2x2x3x1xf32>) -> tensor<1x2x4x2x3xf32> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 2, 3, 1>, strides = array<i64: 1, 2, 1>, pads = array<i64: 0, 1, 0, 1, 0, 0>} : (tensor<1x2x4x5x3xf32>, tensor<2x2x2x3x1xf32>, none) -> tensor<1x2x4x2x3xf32>
  return %0 : tensor<1x2x4x2x3xf32>
}

// -----

// Depthwise 2-d: the C x 1 x KH x KW filter collapsed to C x KH x KW for
// linalg.depthwise_conv_2d_nchw_chw.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[F]] : tensor<1x8x8x8xf32>, tensor<8x3x3xf32>)
func.func @conv_depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, group = 8 : i64} : (tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, none) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Grouped 2-d: input, filter and output split into groups for
// linalg.conv_2d_ngchw_gfchw.
// CHECK-LABEL: func.func @conv_grouped_2d
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 2, 9, 8]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 2]
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x3x4x6xf32> into tensor<2x6x4x6xf32>
func.func @conv_grouped_2d(%x: tensor<2x4x9x7xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x6x4x6xf32> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 1>, pads = array<i64: 0, 1, 0, 0>, dilations = array<i64: 1, 2>, group = 2 : i64} : (tensor<2x4x9x7xf32>, tensor<6x2x3x2xf32>, none) -> tensor<2x6x4x6xf32>
  return %0 : tensor<2x6x4x6xf32>
}

// -----

// Grouped with another spatial rank: one generic over (n, g, o, y, c, k).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 * 2 + d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_grouped_1d
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<1x3x2x3xf32> into tensor<1x6x3xf32>
func.func @conv_grouped_1d(%x: tensor<1x3x6xf32>, %w: tensor<6x1x2xf32>) -> tensor<1x6x3xf32> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 2>, strides = array<i64: 2>, group = 3 : i64} : (tensor<1x3x6xf32>, tensor<6x1x2xf32>, none) -> tensor<1x6x3xf32>
  return %0 : tensor<1x6x3xf32>
}

// -----

// NHWC: input and OHWI filter are transposed to NCHW / OIHW; f16 computes in
// f32; the activation runs in f64 and rounds back through f32; the epilogue
// writes the result channels-last.
// CHECK-DAG: #[[NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @conv_nhwc_f16_gelu
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x5x5x2xf16>) outs(%{{.*}} : tensor<1x2x5x5xf16>) permutation = [0, 3, 1, 2]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<3x3x3x2xf16>) outs(%{{.*}} : tensor<3x2x3x3xf16>) permutation = [0, 3, 1, 2]
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x3x3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[NHWC]]]
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.erf
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @conv_nhwc_f16_gelu(%x: tensor<1x5x5x2xf16>, %w: tensor<3x3x3x2xf16>) -> tensor<1x3x3x3xf16> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>, activation = #top.activation<gelu>} : (tensor<1x5x5x2xf16>, tensor<3x3x3x2xf16>, none) -> tensor<1x3x3x3xf16>
  return %0 : tensor<1x3x3x3xf16>
}

// -----

// Integer Conv with zero points: per-channel input_zp is a constant read
// along the channel dim, a scalar weight_zp a constant in the body; the zero
// points are subtracted before the zero padding; i64 accumulation, i32
// result (wrapping).
// CHECK-LABEL: func.func @conv_int_zero_points
// CHECK: %[[IZP:.*]] = arith.constant dense<[3, -2, 5]> : tensor<3xi64>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[IZP]] : tensor<2x3x6x6xi8>, tensor<3xi64>)
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.subi
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: arith.subi %{{.*}}, %[[ONE]]
// CHECK: tensor.pad
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<2x4x6x6xi64>
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.addi
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @conv_int_zero_points(%x: tensor<2x3x6x6xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<2x4x6x6xi32> {
  %0 = top.Conv(%x, %w, %b) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 0, 1, 2>, input_zp = array<i64: 3, -2, 5>, weight_zp = array<i64: 1>} : (tensor<2x3x6x6xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<2x4x6x6xi32>
  return %0 : tensor<2x4x6x6xi32>
}

// -----

// Deconv: the filter is flipped (K-1-k) with in/out channels swapped per
// group; the input is spread `stride` apart into zeros at offset
// (K-1)*dilation - pad_begin; then a stride-1 grouped convolution. f64 relu
// keeps NaN (v < 0 ? 0 : v) and caps at relu_limit.
// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, -d3 + 1, -d4 + 2)>
// CHECK-LABEL: func.func @deconv
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], #{{.*}}]
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x3x2x2x3xf64> into tensor<6x2x2x3xf64>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 3] [2, 4, 3, 5] [1, 1, 2, 1] : tensor<2x4x3x5xf64> into tensor<2x4x7x12xf64>
// CHECK: arith.cmpf olt
// CHECK: arith.constant 2.500000e+00 : f64
func.func @deconv(%x: tensor<2x4x3x5xf64>, %w: tensor<4x3x2x3xf64>, %b: tensor<6xf64>) -> tensor<2x6x6x8xf64> {
  %0 = top.Deconv(%x, %w, %b) {kernel_shape = array<i64: 2, 3>, strides = array<i64: 2, 1>, pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 1, 2>, output_padding = array<i64: 1, 0>, group = 2 : i64, do_relu = true, relu_limit = 2.5} : (tensor<2x4x3x5xf64>, tensor<4x3x2x3xf64>, tensor<6xf64>) -> tensor<2x6x6x8xf64>
  return %0 : tensor<2x6x6x8xf64>
}

// -----

// Deconv with pads larger than the kernel span: the leading input elements
// that land before the output are cut with extract_slice.
// CHECK-LABEL: func.func @deconv_cut
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1] [1, 1, 3] [1, 1, 1] : tensor<1x1x4xf32> to tensor<1x1x3xf32>
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0] [1, 1, 3] [1, 1, 2]
func.func @deconv_cut(%x: tensor<1x1x4xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x5xf32> {
  %n = top.None() : () -> none
  %0 = top.Deconv(%x, %w, %n) {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 3, 0>} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>, none) -> tensor<1x1x5xf32>
  return %0 : tensor<1x1x5xf32>
}

// -----

// MaxPool pads with -inf, also past the end pad as far as the ceil_mode
// window reaches; maximumf propagates NaN.
// CHECK-LABEL: func.func @maxpool_ceil
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]]
// CHECK: linalg.fill ins(%[[NINF]]
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<2x2x11x9xf32>, tensor<3x3xf32>)
func.func @maxpool_ceil(%x: tensor<2x2x9x7xf32>) -> tensor<2x2x5x4xf32> {
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true} : (tensor<2x2x9x7xf32>) -> tensor<2x2x5x4xf32>
  return %0 : tensor<2x2x5x4xf32>
}

// -----

// Integer MaxPool pads with the type's minimum and compares signed; other
// spatial ranks use a generic over (n, c, y, k).
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>
// CHECK-LABEL: func.func @maxpool_int
// CHECK: %[[MIN:.*]] = arith.constant -128 : i8
// CHECK: tensor.yield %[[MIN]]
// CHECK: linalg.generic {indexing_maps = [#[[WIN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.maxsi
func.func @maxpool_int(%x: tensor<1x2x5xi8>) -> tensor<1x2x3xi8> {
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 1, 0>, ceil_mode = true} : (tensor<1x2x5xi8>) -> tensor<1x2x3xi8>
  return %0 : tensor<1x2x3xi8>
}

// -----

// Unsigned MaxPool pads with 0 (the type's minimum) and compares unsigned
// (a generic: the named 2-d pooling op compares signed); NHWC is read
// through a transpose and written through the epilogue's output map;
// relu_limit 2.5 caps unsigned values at 2.
// CHECK-DAG: #[[NHWC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @maxpool_unsigned_nhwc
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x4x4x2xi8>) outs(%{{.*}} : tensor<1x2x4x4xi8>) permutation = [0, 3, 1, 2]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: tensor.yield %[[ZERO]]
// CHECK: arith.maxui
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[NHWC]]]
// CHECK: %[[TWO:.*]] = arith.constant 2 : i8
// CHECK: arith.minui %{{.*}}, %[[TWO]]
func.func @maxpool_unsigned_nhwc(%x: tensor<1x4x4x2xui8>) -> tensor<1x2x2x2xui8> {
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, layout = #top.layout<NHWC>, do_relu = true, relu_limit = 2.5} : (tensor<1x4x4x2xui8>) -> tensor<1x2x2x2xui8>
  return %0 : tensor<1x2x2x2xui8>
}

// -----

// MatMul sigmoid epilogue: computed in f64 (exp), rounded back to f32.
// CHECK-LABEL: func.func @matmul_sigmoid
// CHECK: linalg.matmul
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @matmul_sigmoid(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %n = top.None() : () -> none
  %0 = top.MatMul(%a, %b, %n) {activation = #top.activation<sigmoid>} : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// AvgPool sums in f64 and divides by the per-position count: without
// count_include_pad the input elements only (corners 4, edges 6, inside 9).
// CHECK-LABEL: func.func @avgpool_exclude
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: linalg.pooling_nchw_sum {{.*}} -> tensor<2x2x5x4xf64>
// CHECK: arith.constant dense<{{\[\[}}4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<5x4xf64>
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @avgpool_exclude(%x: tensor<2x2x9x7xf32>) -> tensor<2x2x5x4xf32> {
  %0 = top.AvgPool(%x) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true} : (tensor<2x2x9x7xf32>) -> tensor<2x2x5x4xf32>
  return %0 : tensor<2x2x5x4xf32>
}

// -----

// With count_include_pad the explicit padding counts, not ceil_mode's extra
// positions (the last column's window reaches one past the end pad).
// CHECK-LABEL: func.func @avgpool_include
// CHECK: arith.constant dense<{{\[\[}}9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00]]> : tensor<5x4xf64>
func.func @avgpool_include(%x: tensor<2x2x9x6xf32>) -> tensor<2x2x5x4xf32> {
  %0 = top.AvgPool(%x) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<2x2x9x6xf32>) -> tensor<2x2x5x4xf32>
  return %0 : tensor<2x2x5x4xf32>
}

// -----

// GlobalAvgPool NHWC: f64 sum over the spatial dims of the transposed input,
// divided by their size, rounded to f16 through f32.
// CHECK-DAG: #[[NC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-LABEL: func.func @global_avg_pool_nhwc
// CHECK: linalg.transpose
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.extf %{{.*}} : f16 to f64
// CHECK: %[[AREA:.*]] = arith.constant 2.000000e+01 : f64
// CHECK: linalg.generic {indexing_maps = [#[[NC]], #{{.*}}]
// CHECK: arith.divf %{{.*}}, %[[AREA]]
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @global_avg_pool_nhwc(%x: tensor<2x5x4x3xf16>) -> tensor<2x1x1x3xf16> {
  %0 = top.GlobalAvgPool(%x) {layout = #top.layout<NHWC>} : (tensor<2x5x4x3xf16>) -> tensor<2x1x1x3xf16>
  return %0 : tensor<2x1x1x3xf16>
}

// -----

// MaxPoolIndices: a two-result reduction (best value, flat index, -1 until
// an input element is seen); strict ogt keeps the first maximum.
// CHECK-LABEL: func.func @max_pool_indices
// CHECK: %[[M1:.*]] = arith.constant -1 : i64
// CHECK: linalg.fill ins(%[[M1]]
// CHECK: %{{.*}}:2 = linalg.generic
// CHECK: linalg.index 2
// CHECK: arith.cmpf ogt
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
func.func @max_pool_indices(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64> {
  %0 = top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xi64>
  return %0 : tensor<1x1x2x2xi64>
}

// -----

// MaxUnpool: a loop writes each element at its flat index into zeros; an
// index outside [0, 16) is skipped.
// CHECK-LABEL: func.func @max_unpool
// CHECK: scf.for
// CHECK: tensor.extract
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: tensor.insert
// CHECK: tensor.expand_shape %{{.*}} : tensor<16xf32> into tensor<1x1x4x4xf32>
func.func @max_unpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32> {
  %0 = top.MaxUnpool(%x, %i) {output_shape = array<i64: 1, 1, 4, 4>} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// LRN in f64: squares padded along the channels by (size-1)/2 and the rest,
// a channel-window sum, then x / pow(bias + alpha/size * sum, beta).
// CHECK-DAG: #[[CWIN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d4, d2, d3)>
// CHECK-LABEL: func.func @lrn
// CHECK: tensor.pad %{{.*}} low[0, 1, 0, 0] high[0, 2, 0, 0]
// CHECK: linalg.generic {indexing_maps = [#[[CWIN]]
// CHECK: math.powf
// CHECK: arith.divf
func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %0 = top.LRN(%x) {size = 4 : i64} : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  return %0 : tensor<1x5x2x2xf32>
}

// -----

func.func @matmul_dynamic(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x5xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.MatMul'}}
  %0 = top.MatMul(%a, %b, %n) : (tensor<?x4xf32>, tensor<4x5xf32>, none) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

func.func @conv_dynamic(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.Conv'}}
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>} : (tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<?x4x6x6xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

func.func @deconv_dynamic(%x: tensor<1x1x?xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x?xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.Deconv'}}
  %0 = top.Deconv(%x, %w, %n) {kernel_shape = array<i64: 2>} : (tensor<1x1x?xf32>, tensor<1x1x2xf32>, none) -> tensor<1x1x?xf32>
  return %0 : tensor<1x1x?xf32>
}

// -----

func.func @maxpool_dynamic(%x: tensor<1x2x?xf32>) -> tensor<1x2x?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.MaxPool'}}
  %0 = top.MaxPool(%x) {kernel_shape = array<i64: 2>} : (tensor<1x2x?xf32>) -> tensor<1x2x?xf32>
  return %0 : tensor<1x2x?xf32>
}

// -----

func.func @avgpool_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.AvgPool'}}
  %0 = top.AvgPool(%x) {kernel_shape = array<i64: 2>} : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @global_avg_pool_dynamic(%x: tensor<?x2x3xf32>) -> tensor<?x2x1xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.GlobalAvgPool'}}
  %0 = top.GlobalAvgPool(%x) : (tensor<?x2x3xf32>) -> tensor<?x2x1xf32>
  return %0 : tensor<?x2x1xf32>
}

// -----

func.func @max_pool_indices_dynamic(%x: tensor<1x1x?x4xf32>) -> tensor<1x1x?x2xi64> {
  // expected-error @+1 {{failed to legalize operation 'top.MaxPoolIndices'}}
  %0 = top.MaxPoolIndices(%x) {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x1x?x4xf32>) -> tensor<1x1x?x2xi64>
  return %0 : tensor<1x1x?x2xi64>
}

// -----

func.func @max_unpool_dynamic(%x: tensor<1x1x?x2xf32>, %i: tensor<1x1x?x2xi64>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.MaxUnpool'}}
  %0 = top.MaxUnpool(%x, %i) {output_shape = array<i64: 1, 1, 4, 4>} : (tensor<1x1x?x2xf32>, tensor<1x1x?x2xi64>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @lrn_dynamic(%x: tensor<1x?x2xf32>) -> tensor<1x?x2xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.LRN'}}
  %0 = top.LRN(%x) {size = 3 : i64} : (tensor<1x?x2xf32>) -> tensor<1x?x2xf32>
  return %0 : tensor<1x?x2xf32>
}

// -----

// DeformConv in f64: a generic without inputs samples every tap at its
// offset position (tensor.extract of the offsets, floor, four clamped
// corner reads kept only inside the image), scales by the mask, then a
// grouped contraction over (c, kh, kw) and the bias.
// CHECK-LABEL: func.func @deform_conv
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} outs(
// CHECK: linalg.index 1
// CHECK: arith.divui
// CHECK: tensor.extract
// CHECK: math.floor
// CHECK: arith.fptosi
// CHECK-COUNT-4: arith.cmpf une
// CHECK: arith.mulf
// CHECK: tensor.expand_shape %[[S]] {{\[\[}}0], [1, 2], [3], [4], [5], [6]] output_shape [2, 2, 2, 2, 2, 3, 4]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x2x2x3x4xf64> into tensor<2x4x3x4xf64>
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @deform_conv(%x: tensor<2x4x6x5xf32>, %w: tensor<4x2x2x2xf32>, %o: tensor<2x16x3x4xf32>, %m: tensor<2x8x3x4xf32>) -> tensor<2x4x3x4xf32> {
  %n = top.None() : () -> none
  %0 = top.DeformConv(%x, %w, %o, %n, %m) {strides = array<i64: 2, 1>, pads = array<i64: 0, 1, 1, 0>, dilations = array<i64: 1, 2>, group = 2 : i64, offset_group = 2 : i64} : (tensor<2x4x6x5xf32>, tensor<4x2x2x2xf32>, tensor<2x16x3x4xf32>, none, tensor<2x8x3x4xf32>) -> tensor<2x4x3x4xf32>
  return %0 : tensor<2x4x3x4xf32>
}

// -----

func.func @deform_conv_dynamic(%x: tensor<?x2x5x5xf32>, %w: tensor<3x2x3x3xf32>, %o: tensor<?x18x5x5xf32>) -> tensor<?x3x5x5xf32> {
  %n = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.DeformConv'}}
  %0 = top.DeformConv(%x, %w, %o, %n, %n) {pads = array<i64: 1, 1, 1, 1>} : (tensor<?x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<?x18x5x5xf32>, none, none) -> tensor<?x3x5x5xf32>
  return %0 : tensor<?x3x5x5xf32>
}
