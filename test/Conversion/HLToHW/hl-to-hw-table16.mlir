// RUN: strata-opt %s --convert-hl-to-hw --split-input-file --verify-diagnostics | FileCheck %s
// RUN: strata-opt %s --convert-hl-to-hw="npu-config=%S/Inputs/small-lram.json double-buffer=true" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=SMALL
// The interpolated int16 table (hl.table16, docs/npu.md "Int16 tables in
// the activation unit"): folded into its convolution's dispatch whether or
// not fold-tables is set (the int16 result has no other way to the NPU);
// the values are checked bit-exactly in
// test/npulower/test_npulower_table16.py.

!q16 = !quant.uniform<i16:f32, 0.002:-300>
!q8 = !quant.uniform<i8:f32, 0.05:-3>

// One program at the table's place: binding 3 the 1026-byte table, loaded
// once; every conv task writing int8 reads it as its [513] int16 `lut`
// (stride 2), with the int16 zero point and clip.
// CHECK-LABEL: func @conv_table16
// CHECK: hl.conv2d{{.*}}npu.dispatch_group
// CHECK: hl.table16{{.*}}npu.program = @npu_0
// CHECK: npuhw.program @npu_0 attributes {bindings = [#npuhw.binding<name = "input", size = 400, writable = false>, #npuhw.binding<name = "w", size = 144, writable = false>, #npuhw.binding<name = "sb", size = 48, writable = false>, #npuhw.binding<name = "t", size = 1026, writable = false>, #npuhw.binding<name = "output", size = 400, writable = true>]
// CHECK: npuhw.dma_load {binding = 3 : i32, counts = array<i64: 1026>, {{.*}} name = "table"}
// CHECK: npuhw.slice_task {clip_max = 32767 : i64, clip_min = -32768 : i64, {{.*}}kernel = "conv2d", lut = #npuhw.operand<address = {{[0-9]+}}, dims = [513], strides = [2]>, {{.*}}output_zp = -300 : i64
// In 4 KiB (tiles, double-buffered) the table is loaded once, too.
// SMALL-LABEL: func @conv_table16
// SMALL-COUNT-1: name = "table"}
// SMALL-NOT: name = "table"}
// SMALL: npuhw.slice_task {{.*}}lut = #npuhw.operand<address = {{[0-9]+}}, dims = [513], strides = [2]>
func.func @conv_table16(%x: tensor<1x4x10x10xi8>) -> tensor<1x4x10x10x!q8> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x4x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  %t = top.Weight() {name = "t"} : () -> tensor<513xi16>
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_zp = -300 : i64, clip_min = -32768 : i64, clip_max = 32767 : i64} : (tensor<1x4x10x10xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x10x10x!q16>
  %1 = hl.table16(%0, %t) : (tensor<1x4x10x10x!q16>, tensor<513xi16>) -> tensor<1x4x10x10x!q8>
  return %1 : tensor<1x4x10x10x!q8>
}

// -----

!q16 = !quant.uniform<i16:f32, 0.002:-300>
!q8 = !quant.uniform<i8:f32, 0.05:-3>

// A standalone hl.table16: a `table` task on int16 input, the [513] table.
// CHECK-LABEL: func @standalone
// CHECK: hl.table16{{.*}}npu.program = @npu_0
// CHECK: npuhw.program @npu_0 attributes {bindings = [#npuhw.binding<name = "input", size = 200, writable = false>, #npuhw.binding<name = "t", size = 1026, writable = false>, #npuhw.binding<name = "output", size = 100, writable = true>]
// CHECK: npuhw.dma_load {binding = 1 : i32, counts = array<i64: 1026>
// CHECK: npuhw.dma_load {binding = 0 : i32, {{.*}}element_bytes = 2
// CHECK: npuhw.slice_task {format = "int16", input = {{.*}}kernel = "table", lut = #npuhw.operand<address = {{[0-9]+}}, dims = [513], strides = [2]>
func.func @standalone(%x: tensor<1x4x5x5x!q16>) -> tensor<1x4x5x5x!q8> {
  %t = top.Weight() {name = "t"} : () -> tensor<513xi16>
  %1 = hl.table16(%x, %t) : (tensor<1x4x5x5x!q16>, tensor<513xi16>) -> tensor<1x4x5x5x!q8>
  return %1 : tensor<1x4x5x5x!q8>
}

// -----

!q16 = !quant.uniform<i16:f32, 0.002:-300>
!q8 = !quant.uniform<i8:f32, 0.05:-3>

// An int16 result without its table: a clear error, no program.
func.func @no_table(%x: tensor<1x4x10x10xi8>) -> tensor<1x4x10x10x!q16> {
  %w = top.Weight() {name = "w"} : () -> tensor<1x4x3x3x4xi8>
  %sb = top.Weight() {name = "sb"} : () -> tensor<4x3xi32>
  // expected-error @+1 {{its int16 result goes to the NPU only through its hl.table16, folded into the activation unit}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, clip_min = -32768 : i64, clip_max = 32767 : i64} : (tensor<1x4x10x10xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x10x10x!q16>
  return %0 : tensor<1x4x10x10x!q16>
}
