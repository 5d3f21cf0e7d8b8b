// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// What convert-tosa-to-top writes for convolutions, matmul and pools: NHWC
// stays NHWC (layout = NHWC, TOSA's OHWI filter as is); TOSA's pads
// [top, bottom, left, right] become Top's [top, left, bottom, right].
// Numbers: test/tosa/test_linear.py.

// CHECK-LABEL: func.func @conv2d_int8
// CHECK: %[[W:.*]] = top.Weight() {name = "tosa_const", value = dense<1> : tensor<4x3x3x2xi8>}
// CHECK: %[[B:.*]] = top.Weight() {name = "tosa_const_1", value = dense<7> : tensor<4xi32>}
// CHECK: top.Conv(%{{.*}}, %[[W]], %[[B]]) {dilations = array<i64: 1, 1>, input_zp = array<i64: -3>, kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>, pads = array<i64: 1, 2, 0, 1>, strides = array<i64: 2, 1>, weight_zp = array<i64: 5>} : (tensor<1x8x8x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>) -> tensor<1x4x9x4xi32>
func.func @conv2d_int8(%x: tensor<1x8x8x2xi8>) -> tensor<1x4x9x4xi32> {
  %w = "tosa.const"() {values = dense<1> : tensor<4x3x3x2xi8>} : () -> tensor<4x3x3x2xi8>
  %b = "tosa.const"() {values = dense<7> : tensor<4xi32>} : () -> tensor<4xi32>
  %iz = "tosa.const"() {values = dense<-3> : tensor<1xi8>} : () -> tensor<1xi8>
  %wz = "tosa.const"() {values = dense<5> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %iz, %wz {acc_type = i32, pad = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x2xi8>, tensor<4x3x3x2xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x9x4xi32>
  return %0 : tensor<1x4x9x4xi32>
}

// The depthwise filter [KH, KW, C, M] becomes the grouped OHWI [C*M, KH, KW, 1].
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[R:.*]] = top.Reshape(%{{.*}}) {shape = array<i64: 3, 3, 6, 1>} : (tensor<3x3x3x2xf32>) -> tensor<3x3x6x1xf32>
// CHECK: %[[P:.*]] = top.Permute(%[[R]]) {order = array<i64: 2, 0, 1, 3>} : (tensor<3x3x6x1xf32>) -> tensor<6x3x3x1xf32>
// CHECK: top.Conv(%{{.*}}, %[[P]], %{{.*}}) {{{.*}}group = 3 : i64, kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>
func.func @depthwise(%x: tensor<1x5x5x3xf32>) -> tensor<1x5x5x6xf32> {
  %w = "tosa.const"() {values = dense<0.5> : tensor<3x3x3x2xf32>} : () -> tensor<3x3x3x2xf32>
  %b = "tosa.const"() {values = dense<0.0> : tensor<6xf32>} : () -> tensor<6xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x5x5x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x6xf32>
  return %0 : tensor<1x5x5x6xf32>
}

// A negative out_pad crops (Deconv's pads), a positive one pads the result;
// the bias is then added after.
// CHECK-LABEL: func.func @transpose_conv
// CHECK: %[[W:.*]] = top.Permute(%{{.*}}) {order = array<i64: 3, 1, 2, 0>} : (tensor<3x2x2x2xf32>) -> tensor<2x2x2x3xf32>
// CHECK: %[[D:.*]] = top.Deconv(%{{.*}}, %[[W]], %{{.*}}) {kernel_shape = array<i64: 2, 2>, layout = #top.layout<NHWC>, pads = array<i64: 1, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>, tensor<2x2x2x3xf32>, none) -> tensor<1x5x6x3xf32>
// CHECK: %[[P:.*]] = top.Pad(%[[D]]) {pads = array<i64: 0, 0, 0, 0, 0, 1, 1, 0>}
// CHECK: top.Add(%[[P]], %{{.*}}) : (tensor<1x6x7x3xf32>, tensor<3xf32>) -> tensor<1x6x7x3xf32>
func.func @transpose_conv(%x: tensor<1x3x3x2xf32>) -> tensor<1x6x7x3xf32> {
  %w = "tosa.const"() {values = dense<0.5> : tensor<3x2x2x2xf32>} : () -> tensor<3x2x2x2xf32>
  %b = "tosa.const"() {values = dense<0.25> : tensor<3xf32>} : () -> tensor<3xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.transpose_conv2d %x, %w, %b, %z, %z {acc_type = f32, out_pad = array<i64: -1, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x3x3x2xf32>, tensor<3x2x2x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x7x3xf32>
  return %0 : tensor<1x6x7x3xf32>
}

// Integer matmul: operands widened to i32 and minus their zero points.
// CHECK-LABEL: func.func @matmul_int8
// CHECK: top.Sub({{.*}}) : (tensor<1x2x3xi32>, tensor<i32>) -> tensor<1x2x3xi32>
// CHECK: top.Sub({{.*}}) : (tensor<1x3x4xi32>, tensor<i32>) -> tensor<1x3x4xi32>
// CHECK: top.MatMul({{.*}}) : (tensor<1x2x3xi32>, tensor<1x3x4xi32>, none) -> tensor<1x2x4xi32>
func.func @matmul_int8(%a: tensor<1x2x3xi8>, %b: tensor<1x3x4xi8>) -> tensor<1x2x4xi32> {
  %az = "tosa.const"() {values = dense<2> : tensor<1xi8>} : () -> tensor<1xi8>
  %bz = "tosa.const"() {values = dense<-1> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %az, %bz : (tensor<1x2x3xi8>, tensor<1x3x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
  return %0 : tensor<1x2x4xi32>
}

// CHECK-LABEL: func.func @pools
// CHECK: top.MaxPool(%{{.*}}) {kernel_shape = array<i64: 2, 2>, layout = #top.layout<NHWC>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
// CHECK: top.AvgPool(%{{.*}}) {kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
func.func @pools(%x: tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>) {
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %1 = tosa.avg_pool2d %x, %z, %z {acc_type = f32, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>
}

// Integer average: the window sum (a depthwise Conv with a filter of ones and
// the input zero point), then each position's reciprocal_scale(count): the
// corner windows count 4 (multiplier ((2^30 + 1) << 2) / 4, shift 32), the
// edges 6 (shift 33), the middle 9 (shift 34); then the rounding terms
// 2^(shift - 1).
// CHECK-LABEL: func.func @avg_pool_int8
// CHECK: %[[ONES:.*]] = top.Weight() {name = "tosa_const{{.*}}", value = dense<1> : tensor<2x3x3x1xi8>}
// CHECK: top.Conv(%{{.*}}, %[[ONES]], %{{.*}}) {{{.*}}group = 2 : i64, input_zp = array<i64: 4>{{.*}}layout = #top.layout<NHWC>{{.*}} -> tensor<1x3x3x2xi32>
// CHECK: value = dense<{{\[\[\[\[}}1073741825], [1431655766], [1073741825]], {{\[\[}}1431655766], [1908874355], [1431655766]]
// CHECK: value = dense<{{\[\[\[\[}}2147483648], [4294967296], [2147483648]], {{\[\[}}4294967296], [8589934592], [4294967296]]
func.func @avg_pool_int8(%x: tensor<1x3x3x2xi8>) -> tensor<1x3x3x2xi8> {
  %iz = "tosa.const"() {values = dense<4> : tensor<1xi8>} : () -> tensor<1xi8>
  %oz = "tosa.const"() {values = dense<-2> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.avg_pool2d %x, %iz, %oz {acc_type = i32, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x3x3x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x2xi8>
  return %0 : tensor<1x3x3x2xi8>
}
