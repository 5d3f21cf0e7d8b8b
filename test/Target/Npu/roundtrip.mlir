// The serializer and the disassembler are inverses: bytes -> npuhw -> bytes
// is the identity, and the listing shows every non-default field.
// RUN: strata-npu asm %s -o %t.snpu
// RUN: strata-npu disasm %t.snpu -o %t.mlir
// RUN: strata-npu asm %t.mlir -o %t2.snpu
// RUN: cmp %t.snpu %t2.snpu
// RUN: FileCheck %s --input-file %t.mlir
// RUN: strata-opt %t.mlir | strata-opt | FileCheck %s

// Corrupted or truncated bytes are refused with a message, never a crash.
// RUN: head -c 200 %t.snpu > %t.trunc
// RUN: not strata-npu disasm %t.trunc 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: strata-npu: error: {{.*}}npu program: {{.*}}
// RUN: printf 'not a program at all' > %t.bad
// RUN: not strata-npu disasm %t.bad 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: strata-npu: error: {{.*}}: npu program: bad file identifier (expected 'SNPU')

// CHECK-LABEL: npuhw.program @mixed
// CHECK-SAME: config = {accumulator_bits = 24 : i64, activation_width = 16 : i64, clock_mhz = 800 : i64
// CHECK-SAME: vector_modes = [{channels = 4 : i64, name = "64x4", pixels = 64 : i64}
// CHECK: npuhw.dma_load {binding = 0 : i32, counts = array<i64: 2, 75>, dram_offset = 16 : i64, dram_strides = array<i64: 80, 1>, element_bytes = 2 : i64, lram_address = 0 : i64, lram_strides = array<i64: 160, 2>, name = "in"}
// CHECK: npuhw.wait
// CHECK: npuhw.slice_task {clip_max_f = 6.000000e+00 : f32, clip_min_f = 0.000000e+00 : f32, dilation = array<i64: 2, 1>, format = "bf16", groups = 3 : i64
// CHECK-SAME: kernel = "conv2d"
// CHECK-SAME: output_format = "bf16"
// CHECK-SAME: slice = 1 : i32, stride = array<i64: 1, 2>, vector_mode = 2 : i32
// CHECK: npuhw.slice_task {input = {{.*}}, input2 = {{.*}}, input2_multiplier = 1073741824 : i64, input2_shift = 31 : i64, input2_zp = 3 : i64, input_multiplier = 1500000000 : i64, input_shift = 31 : i64, input_zp = -7 : i64, kernel = "add", left_shift = 20 : i64, multiplier = 1717986918 : i64, output = {{.*}}, rounding = "tflite", shift = 50 : i64}
// CHECK: npuhw.slice_task {input = {{.*}}, kernel = "table", lut = #npuhw.operand<address = 4096, dims = [256], strides = [1]>
// CHECK: npuhw.slice_task {format = "bf16", input = {{.*}}, kernel = "transpose", output = {{.*}}, output_format = "bf16", perm = array<i64: 0, 2, 3, 1>}
// CHECK: npuhw.slice_task {block = 2 : i64, crd = true
// CHECK: npuhw.slice_task {count_include_pad = true, {{.*}}kernel = "avg_pool", kernel_size = array<i64: 3, 3>
// CHECK: npuhw.slice_task {float_scale = 2.500000e-01 : f32, {{.*}}kernel = "convert", output = {{.*}}, output_format = "bf16"}
// CHECK: npuhw.slice_task {format = "bf16", input = {{.*}}, kernel = "convert", output = {{.*}}, output_zp = 3 : i64, scale = 1.000000e-01 : f64}
// CHECK: npuhw.segment {
// CHECK-NEXT: npuhw.dma_store
npuhw.program @mixed attributes {
  config = {accumulator_bits = 24 : i64, dma_efficiency = 0.5 : f64},
  bindings = [#npuhw.binding<name = "in", size = 400, writable = false>,
              #npuhw.binding<name = "out", size = 4096, writable = true>]} {
  npuhw.segment {
    npuhw.dma_load {binding = 0 : i32, dram_offset = 16 : i64, lram_address = 0 : i64, element_bytes = 2 : i64, counts = array<i64: 2, 75>, dram_strides = array<i64: 80, 1>, lram_strides = array<i64: 160, 2>, name = "in"}
    npuhw.wait
    npuhw.slice_task {kernel = "conv2d", format = "bf16", output_format = "bf16", slice = 1 : i32, vector_mode = 2 : i32, groups = 3,
      input = #npuhw.operand<address = 0, dims = [1, 3, 5, 5], strides = [150, 50, 10, 2]>,
      weights = #npuhw.operand<address = 1024, dims = [1, 1, 3, 3, 4], strides = [72, 72, 24, 8, 2]>,
      scale_bias = #npuhw.operand<address = 1536, dims = [3], strides = [4]>,
      output = #npuhw.operand<address = 2048, dims = [1, 3, 1, 2], strides = [12, 4, 4, 2]>,
      stride = array<i64: 1, 2>, dilation = array<i64: 2, 1>, clip_min_f = 0.0 : f32, clip_max_f = 6.0 : f32}
    npuhw.slice_task {kernel = "add", rounding = "tflite", left_shift = 20, input_zp = -7, input2_zp = 3,
      input_multiplier = 1500000000, input_shift = 31, input2_multiplier = 1073741824, input2_shift = 31,
      multiplier = 1717986918, shift = 50,
      input = #npuhw.operand<address = 3000, dims = [4, 8], strides = [8, 1]>,
      input2 = #npuhw.operand<address = 3100, dims = [4, 8], strides = [0, 1]>,
      output = #npuhw.operand<address = 3200, dims = [4, 8], strides = [8, 1]>}
    npuhw.slice_task {kernel = "table",
      input = #npuhw.operand<address = 3000, dims = [32], strides = [1]>,
      lut = #npuhw.operand<address = 4096, dims = [256], strides = [1]>,
      output = #npuhw.operand<address = 3300, dims = [32], strides = [1]>}
    npuhw.slice_task {kernel = "transpose", format = "bf16", output_format = "bf16", perm = array<i64: 0, 2, 3, 1>,
      input = #npuhw.operand<address = 5000, dims = [1, 2, 3, 4], strides = [48, 24, 8, 2]>,
      output = #npuhw.operand<address = 5200, dims = [1, 3, 4, 2], strides = [48, 16, 4, 2]>}
    npuhw.slice_task {kernel = "depth_to_space", block = 2, crd = true,
      input = #npuhw.operand<address = 5400, dims = [1, 8, 2, 2], strides = [32, 4, 2, 1]>,
      output = #npuhw.operand<address = 5500, dims = [1, 2, 4, 4], strides = [32, 16, 4, 1]>}
    npuhw.slice_task {kernel = "avg_pool", kernel_size = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, count_include_pad = true,
      input = #npuhw.operand<address = 5600, dims = [1, 2, 4, 4], strides = [32, 16, 4, 1]>,
      output = #npuhw.operand<address = 5700, dims = [1, 2, 4, 4], strides = [32, 16, 4, 1]>}
    npuhw.slice_task {kernel = "convert", output_format = "bf16", float_scale = 0.25 : f32,
      input = #npuhw.operand<address = 5600, dims = [32], strides = [1]>,
      output = #npuhw.operand<address = 5800, dims = [32], strides = [2]>}
    npuhw.slice_task {kernel = "convert", format = "bf16", scale = 0.1 : f64, output_zp = 3,
      input = #npuhw.operand<address = 5800, dims = [32], strides = [2]>,
      output = #npuhw.operand<address = 6000, dims = [32], strides = [1]>}
  }
  npuhw.segment {
    npuhw.dma_store {binding = 1 : i32, lram_address = 5800 : i64, counts = array<i64: 64>, dram_strides = array<i64: 1>, lram_strides = array<i64: 1>}
  }
}
