// RUN: strata-opt %s | strata-opt | FileCheck %s
// Every HL op parses, verifies and prints back.

// CHECK-LABEL: func @all
func.func @all(%x: tensor<1x4x6x6xi8>, %w: tensor<2x4x3x3x4xi8>, %sb: tensor<5x3xi32>,
               %dw: tensor<1x3x3x4xi8>, %sb4: tensor<4x3xi32>, %fw: tensor<1x8x4xi8>,
               %fsb: tensor<3x3xi32>, %f: tensor<2x8xi8>, %t: tensor<256xi8>,
               %bx: tensor<1x2x3x3xbf16>, %bw: tensor<1x2x1x1x4xbf16>, %bb: tensor<2xf32>,
               %msb: tensor<6x3xi32>, %idx: tensor<2xi32>) {
  // CHECK: hl.conv2d
  %0 = hl.conv2d(%x, %w, %sb) {input_zp = -3 : i64, output_zp = 2 : i64, clip_min = 2 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>, tensor<2x4x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x6x6xi8>
  // CHECK: hl.depthwise_conv2d
  %1 = hl.depthwise_conv2d(%x, %dw, %sb4) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 2, 2>} : (tensor<1x4x6x6xi8>, tensor<1x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x2x2xi8>
  // CHECK: hl.fully_connected
  %2 = hl.fully_connected(%f, %fw, %fsb) {accumulator_bits = 24 : i64} : (tensor<2x8xi8>, tensor<1x8x4xi8>, tensor<3x3xi32>) -> tensor<2x3xi8>
  // CHECK: hl.matmul
  %3 = hl.matmul(%x, %x, %msb) {} : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>, tensor<6x3xi32>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.add
  %4 = hl.add(%x, %x) {lhs_multiplier = 3 : i64, left_shift = 20 : i64} : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.sub
  %5 = hl.sub(%x, %x) : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.mul
  %6 = hl.mul(%x, %x) : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.min
  %7 = hl.min(%x, %x) : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.max
  %8 = hl.max(%x, %x) : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.activation
  %9 = hl.activation(%x) {multiplier = 3 : i64, shift = 1 : i64, clip_min = 0 : i64} : (tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.table
  %10 = hl.table(%x, %t) {lut_entries = 256 : i64} : (tensor<1x4x6x6xi8>, tensor<256xi8>) -> tensor<1x4x6x6xi8>
  // CHECK: hl.maxpool
  %11 = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>) -> tensor<1x4x3x3xi8>
  // CHECK: hl.avgpool
  %12 = hl.avgpool(%x) {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>) -> tensor<1x4x3x3xi8>
  // CHECK: hl.transpose
  %13 = hl.transpose(%x) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x6x6xi8>) -> tensor<1x6x6x4xi8>
  // CHECK: hl.segmentation
  %14 = hl.segmentation(%x) {stride = 2 : i64, pad = array<i64: 1, 1, 0, 0>, pad_value = -3 : i64} : (tensor<1x4x6x6xi8>) -> tensor<1x4x4x4x4xi8>
  // CHECK: hl.concat
  %15 = hl.concat(%x, %x) {axis = 1 : i64} : (tensor<1x4x6x6xi8>, tensor<1x4x6x6xi8>) -> tensor<1x8x6x6xi8>
  // CHECK: hl.convert
  %16 = hl.convert(%x) {scale = 0.5 : f64, zp = -3 : i64} : (tensor<1x4x6x6xi8>) -> tensor<1x4x6x6xbf16>
  // CHECK: hl.conv2d{{.*}}relu = true
  %17 = hl.conv2d(%bx, %bw, %bb) {relu = true, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x3x3xbf16>, tensor<1x2x1x1x4xbf16>, tensor<2xf32>) -> tensor<1x2x3x3xbf16>
  // CHECK: hl.reduce_mean
  %18 = hl.reduce_mean(%x) {axes = array<i64: 2, 3>, multiplier = 3 : i64, shift = 2 : i64} : (tensor<1x4x6x6xi8>) -> tensor<1x4x1x1xi8>
  // CHECK: hl.gather
  %19 = hl.gather(%x, %idx) {axis = 1 : i64} : (tensor<1x4x6x6xi8>, tensor<2xi32>) -> tensor<1x2x6x6xi8>
  // CHECK: hl.resize_nearest
  %20 = hl.resize_nearest(%x) : (tensor<1x4x6x6xi8>) -> tensor<1x4x12x9xi8>
  // CHECK: hl.depth_to_space
  %21 = hl.depth_to_space(%x) {block = 2 : i64, mode = "CRD"} : (tensor<1x4x6x6xi8>) -> tensor<1x1x12x12xi8>
  return
}
