// RUN: strata-opt %s --hl-cancel-transposes | FileCheck %s

// NHWC -> NCHW -> NHWC around nothing cancels; the pair around the conv
// stays (one at the input, one at the output).
// CHECK-LABEL: func @pairs
// CHECK: %[[T:.*]] = hl.transpose(%arg0) {perm = array<i64: 0, 3, 1, 2>}
// CHECK: %[[C:.*]] = hl.conv2d(%[[T]]
// CHECK: %[[B:.*]] = hl.transpose(%[[C]]) {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: hl.transpose
// CHECK: return %[[B]]
func.func @pairs(%x: tensor<1x5x5x2xi8>, %w: tensor<1x2x1x1x4xi8>, %sb: tensor<3x3xi32>) -> tensor<1x5x5x3xi8> {
  %0 = hl.transpose(%x) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x2xi8>) -> tensor<1x2x5x5xi8>
  %1 = hl.conv2d(%0, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x5x5xi8>, tensor<1x2x1x1x4xi8>, tensor<3x3xi32>) -> tensor<1x3x5x5xi8>
  %2 = hl.transpose(%1) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x5x5xi8>) -> tensor<1x5x5x3xi8>
  %3 = hl.transpose(%2) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x3xi8>) -> tensor<1x3x5x5xi8>
  %4 = hl.transpose(%3) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x5x5xi8>) -> tensor<1x5x5x3xi8>
  %5 = hl.transpose(%4) {perm = array<i64: 0, 1, 2, 3>} : (tensor<1x5x5x3xi8>) -> tensor<1x5x5x3xi8>
  return %5 : tensor<1x5x5x3xi8>
}

// Across layout-agnostic CPU ops (a residual add between two NHWC convs
// turned NCHW): Top's transpose sinking moves the add into NCHW and the
// pairs cancel; only the input's transpose and the output's stay.
// CHECK-LABEL: func @across_add
// CHECK: hl.transpose(%arg0) {perm = array<i64: 0, 3, 1, 2>}
// CHECK: hl.conv2d
// CHECK-NOT: hl.transpose
// CHECK: top.Add
// CHECK-NOT: hl.transpose
// CHECK: hl.conv2d
// CHECK: hl.transpose({{.*}}) {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: hl.transpose
func.func @across_add(%x: tensor<1x5x5x2xbf16>, %w: tensor<1x2x1x1x4xbf16>, %b: tensor<2xf32>) -> tensor<1x5x5x2xbf16> {
  %0 = hl.transpose(%x) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x2xbf16>) -> tensor<1x2x5x5xbf16>
  %1 = hl.conv2d(%0, %w, %b) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x5x5xbf16>, tensor<1x2x1x1x4xbf16>, tensor<2xf32>) -> tensor<1x2x5x5xbf16>
  %2 = hl.transpose(%1) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xbf16>) -> tensor<1x5x5x2xbf16>
  %3 = top.Add(%2, %x) : (tensor<1x5x5x2xbf16>, tensor<1x5x5x2xbf16>) -> tensor<1x5x5x2xbf16>
  %4 = hl.transpose(%3) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x2xbf16>) -> tensor<1x2x5x5xbf16>
  %5 = hl.conv2d(%4, %w, %b) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x2x5x5xbf16>, tensor<1x2x1x1x4xbf16>, tensor<2xf32>) -> tensor<1x2x5x5xbf16>
  %6 = hl.transpose(%5) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x5x5xbf16>) -> tensor<1x5x5x2xbf16>
  return %6 : tensor<1x5x5x2xbf16>
}
