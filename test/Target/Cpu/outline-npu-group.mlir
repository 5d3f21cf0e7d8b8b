// RUN: strata-opt %s --convert-hl-to-hw="fuse-dispatches=true fold-tables=true" --strata-cpu-outline-dispatches | FileCheck %s
// NPU multi-op dispatches (docs/npu.md, "Multi-op dispatches"): an op
// marked npu.dispatch_group goes in its only user's dispatch, and a marked
// user goes on to its own user: the conv, its add and the table after the
// add are one dispatch at the table's place, binding the group's outside
// values in order of first use (input, weights, scale_bias, residual,
// table).
// CHECK-LABEL: func.func private @dispatch_0_conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x6xi8>, %[[W:.*]]: tensor<2x8x1x1x4xi8>, %[[SB:.*]]: tensor<8x3xi32>, %[[R:.*]]: tensor<1x8x6x6xi8>, %[[T:.*]]: tensor<8x256xi8>)
// CHECK-NEXT: %[[Y:.*]] = hl.conv2d(%[[X]], %[[W]], %[[SB]]){{.*}}npu.dispatch_group
// CHECK-NEXT: %[[S:.*]] = hl.add(%[[R]], %[[Y]]){{.*}}npu.dispatch_group
// CHECK-NEXT: %[[O:.*]] = hl.table(%[[S]], %[[T]]){{.*}}npu.program = @npu_0_conv
// CHECK-NEXT: return %[[O]]
// CHECK-NOT: func.func private @dispatch_1
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_0_conv2d
// CHECK-NOT: call
func.func @main(%x: tensor<1x8x6x6xi8>, %r: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {
  %w = top.Weight() {name = "w"} : () -> tensor<2x8x1x1x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<8x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<8x256xi8>
  %y = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x6x6xi8>, tensor<2x8x1x1x4xi8>, tensor<8x3xi32>) -> tensor<1x8x6x6xi8> loc("conv")
  %s = hl.add(%r, %y) {lhs_multiplier = 1073741824 : i64, lhs_shift = 10 : i64, lhs_zp = 2 : i64, rhs_multiplier = 1500000000 : i64, rhs_shift = 11 : i64, rhs_zp = -5 : i64, output_multiplier = 1700000000 : i64, output_shift = 51 : i64, output_zp = 1 : i64} : (tensor<1x8x6x6xi8>, tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8>
  %o = hl.table(%s, %t) {lut_entries = 256 : i64} : (tensor<1x8x6x6xi8>, tensor<8x256xi8>) -> tensor<1x8x6x6xi8>
  return %o : tensor<1x8x6x6xi8>
}
