// RUN: strata-opt %s --hl-segment-strided --split-input-file | FileCheck %s
// RUN: strata-opt %s --hl-segment-strided=fuse=false --split-input-file | FileCheck %s --check-prefix=NOFUSE
// Exactness is checked in test/npuhl/test_npuhl_kernels.py.

// A stride-2 conv on a function argument: an explicit segmentation padded
// with the input zero point; the conv walks the phases at stride 1.
// CHECK-LABEL: func @arg
// CHECK: %[[S:.*]] = hl.segmentation(%arg0) {pad = array<i64: 1, 0, 1, 2>, pad_value = 3 : i64, stride = 2 : i64} : (tensor<1x2x7x6xi8>) -> tensor<1x2x4x5x4xi8>
// CHECK: hl.conv2d(%[[S]], {{.*}}) {{{.*}}pad = array<i64: 0, 0, 0, 0>, segments = 2 : i64, stride = array<i64: 2, 2>} : (tensor<1x2x4x5x4xi8>,
func.func @arg(%x: tensor<1x2x7x6xi8>, %w: tensor<1x2x3x3x4xi8>, %sb: tensor<3x3xi32>) -> tensor<1x3x4x3xi8> {
  %y = hl.conv2d(%x, %w, %sb) {input_zp = 3 : i64, pad = array<i64: 1, 0, 1, 2>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x2x7x6xi8>, tensor<1x2x3x3x4xi8>, tensor<3x3xi32>) -> tensor<1x3x4x3xi8>
  return %y : tensor<1x3x4x3xi8>
}

// -----

// The producer is an HL conv used only here: it writes its output segmented
// (pad value = its output zero point = the consumer's input zero point).
// CHECK-LABEL: func @fused
// CHECK-NOT: hl.segmentation
// CHECK: %[[P:.*]] = hl.conv2d(%arg0, {{.*}}) {{{.*}}output_zp = 5 : i64{{.*}}segment_output = array<i64: 3, 1, 1, 1, 1>{{.*}}} : {{.*}} -> tensor<1x3x9x3x3xi8>
// CHECK: hl.depthwise_conv2d(%[[P]], {{.*}}) {{{.*}}segments = 3 : i64, stride = array<i64: 3, 3>} : (tensor<1x3x9x3x3xi8>,
// NOFUSE-LABEL: func @fused
// NOFUSE: hl.conv2d
// NOFUSE-NOT: segment_output
// NOFUSE: hl.segmentation
// NOFUSE: hl.depthwise_conv2d
func.func @fused(%x: tensor<1x2x7x7xi8>, %w: tensor<1x2x1x1x4xi8>, %sb: tensor<3x3xi32>, %dw: tensor<1x3x3x4xi8>) -> tensor<1x3x3x3xi8> {
  %a = hl.conv2d(%x, %w, %sb) {output_zp = 5 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x7x7xi8>, tensor<1x2x1x1x4xi8>, tensor<3x3xi32>) -> tensor<1x3x7x7xi8>
  %y = hl.depthwise_conv2d(%a, %dw, %sb) {input_zp = 5 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 3, 3>, dilation = array<i64: 1, 1>} : (tensor<1x3x7x7xi8>, tensor<1x3x3x4xi8>, tensor<3x3xi32>) -> tensor<1x3x3x3xi8>
  return %y : tensor<1x3x3x3xi8>
}

// -----

// Stays strided: unequal strides; an int8 max pool pads with -128.
// CHECK-LABEL: func @kept
// CHECK: hl.conv2d(%arg0, {{.*}}stride = array<i64: 2, 1>} : (tensor<1x2x7x6xi8>
// CHECK: hl.segmentation(%arg0) {pad = array<i64: 0, 0, 1, 1>, pad_value = -128 : i64, stride = 2 : i64}
// CHECK: hl.maxpool
func.func @kept(%x: tensor<1x2x7x6xi8>, %w: tensor<1x2x3x3x4xi8>, %sb: tensor<3x3xi32>) -> (tensor<1x3x3x4xi8>, tensor<1x2x4x3xi8>) {
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x7x6xi8>, tensor<1x2x3x3x4xi8>, tensor<3x3xi32>) -> tensor<1x3x3x4xi8>
  %p = hl.maxpool(%x) {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x2x7x6xi8>) -> tensor<1x2x4x3xi8>
  return %y, %p : tensor<1x3x3x4xi8>, tensor<1x2x4x3xi8>
}

// -----

// A segmentation the NPU lowering refuses (one 1 MiB channel plane does not
// fit the default 512 KiB LRAM) is not written: the max pool keeps its
// stride (and lowers tiled by rows).
// CHECK-LABEL: func @refused_segmentation
// CHECK-NOT: hl.segmentation
// CHECK: hl.maxpool(%arg0) {{.*}}pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>
// CHECK-NOT: segments
func.func @refused_segmentation(%x: tensor<1x1x1024x1024xi8>) -> tensor<1x1x512x512xi8> {
  %y = hl.maxpool(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x1x1024x1024xi8>) -> tensor<1x1x512x512xi8>
  return %y : tensor<1x1x512x512xi8>
}
