// RUN: strata-opt %s --top-select-strategy="machine=test explain=true" -o /dev/null | FileCheck %s
// RUN: strata-opt %s --top-select-strategy="machine=test explain=true tuning-log=%S/Inputs/cpu-tuning.jsonl" -o /dev/null | FileCheck %s --check-prefix=TUNED

// --explain output: per op, the workload key, every candidate by priority
// with each clause held / failed / unknown and the value it read, the tuning
// records, the winner and its kernel call.

// CHECK-LABEL: top.Conv on target 'cpu'
// CHECK-NEXT: workload: top.Conv(f32[1, 8, 8, 8], f32[32, 8, 3, 3], none) -> (f32[1, 32, 8, 8]) {dilations = [1, 1], do_relu = false, group = 1, kernel_shape = [3, 3], layout = "NCHW", pads = [1, 1, 1, 1], relu_limit = -1.000000e+00, strides = [1, 1]}
// CHECK-NEXT: candidates (highest priority first):
// CHECK-NEXT: [31] conv2d.1x1_narrow: failed -> kernel conv2d_1x1_narrow_f32
// CHECK:        held: operand 1 dim 0 <= 32 (dim 0 = 32)
// CHECK-NEXT:   failed: operand 0 dim 1 >= 16 (dim 1 = 8)
// CHECK-NEXT:   failed: operand 0 dim 2 >= 28 (dim 2 = 8)
// CHECK-NEXT:   failed: operand 0 dim 3 >= 28 (dim 3 = 8)
// CHECK-NEXT: [30] conv2d.1x1_gemm: failed -> kernel conv2d_1x1_gemm_f32
// CHECK-NEXT:   held: rank(operand 0) == 4 (rank 4)
// CHECK-NEXT:   held: attr layout in {"NCHW"} (layout = "NCHW")
// CHECK-NEXT:   held: dtype(operand 0) in {f32} (dtype f32)
// CHECK-NEXT:   held: dtype(operand 1) in {f32} (dtype f32)
// CHECK-NEXT:   failed: attr kernel_shape all == 1 (kernel_shape = [3, 3])
// CHECK-NEXT:   held: attr strides all == 1 (strides = [1, 1])
// CHECK-NEXT:   failed: attr pads all == 0 (pads = [1, 1, 1, 1])
// CHECK-NEXT:   held: attr group in {1} (group = 1)
// CHECK-NEXT: [30] conv2d.1x1_gemm_i8: failed -> kernel conv2d_1x1_gemm_i8
// CHECK:        failed: dtype(operand 0) in {i8, qi8, ui8, qui8} (dtype f32)
// CHECK:      [25] conv2d.depthwise: failed -> kernel conv2d_depthwise_f32
// CHECK:        failed: operand 1 dim 1 == 1 (dim 1 = 8)
// CHECK:      [25] conv2d.depthwise_i8: failed -> kernel conv2d_depthwise_i8
// CHECK:      [12] conv2d.winograd_f43: failed -> kernel conv2d_winograd_f43_f32
// CHECK:        failed: operand 0 dim 1 >= 16 (dim 1 = 8)
// CHECK-NEXT:   held: operand 1 dim 0 >= 16 (dim 0 = 32)
// CHECK-NEXT:   held: result 0 dim 2 >= 7 (dim 2 = 8)
// CHECK:      [11] conv2d.stem_direct: failed -> kernel conv2d_stem_f32
// CHECK:        failed: attr strides all == 2 (strides = [1, 1])
// CHECK:        failed: operand 0 dim 1 <= 4 (dim 1 = 8)
// CHECK:      [10] conv2d.im2col_gemm: held -> kernel conv2d_im2col_gemm_f32
// CHECK:      [10] conv2d.im2col_gemm_i8: failed -> kernel conv2d_im2col_gemm_i8
// CHECK:        failed: dtype(operand 0) in {i8, qi8, ui8, qui8} (dtype f32)
// CHECK:      [0] codegen: held -> codegen
// CHECK-NEXT:   always
// CHECK-NEXT: tuning log: none
// CHECK-NEXT: winner: conv2d.im2col_gemm (highest priority whose condition holds) schedule {tile_k = 256, tile_m = 64, tile_n = 128}
// CHECK-NEXT: kernel call: conv2d_im2col_gemm_f32(N = 1, C = 8, H = 8, W = 8, OH = 8, OW = 8, O = 32, KH = 3, KW = 3, SH = 1, SW = 1, PT = 1, PL = 1, PB = 1, PR = 1, DH = 1, DW = 1, G = 1)

// CHECK-LABEL: top.MatMul on target 'cpu'
// CHECK-NEXT: workload: top.MatMul(f32[?, 64], f32[64, 32], none) -> (f32[?, 32]) {do_relu = false, relu_limit = -1.000000e+00, right_transpose = false}
// CHECK:      [25] matmul.gemv_f32: unknown -> kernel matmul_gemv_f32
// CHECK:        unknown: operand 0 dim -2 == 1 (dim -2 is dynamic)
// CHECK:      [20] matmul.gemm_f32: held
// CHECK:      winner decided at run time (guard chain):
// CHECK-NEXT:   if operand 0 dim -2 == 1 -> matmul.gemv_f32
// CHECK-NEXT:   otherwise -> matmul.gemm_f32

// With a tuning log: the record for this workload and machine decides
// (lowest cost); the others are listed with why they were not used.

// TUNED-LABEL: top.Conv on target 'cpu'
// TUNED:      tuning record line 1: conv2d.im2col_gemm {tile_m = 32} 0.0002 s: usable, not the lowest cost
// TUNED-NEXT: tuning record line 2: codegen {} 0.0001 s: used (lowest cost)
// TUNED-NEXT: tuning record line 3: conv2d.im2col_gemm {} 1e-05 s: ignored, measured on machine 'other', not 'test'
// TUNED-NEXT: tuning record line 4: conv2d.winograd_f43 {} 1e-05 s: ignored, its condition is false for this workload
// TUNED-NEXT: tuning record line 5: conv2d.im2col_gemm {tile_q = 1} 1e-05 s: ignored, config parameter 'tile_q' is not a schedule parameter of 'conv2d.im2col_gemm'
// TUNED-NEXT: winner: codegen (tuning record, line 2)
// TUNED-LABEL: top.MatMul on target 'cpu'
// TUNED: tuning log: no record for this workload in '{{.*}}cpu-tuning.jsonl'

func.func @main(%x: tensor<1x8x8x8xf32>, %w: tensor<32x8x3x3xf32>, %a: tensor<?x64xf32>, %b: tensor<64x32xf32>)
    -> (tensor<1x32x8x8xf32>, tensor<?x32xf32>) {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>, none) -> tensor<1x32x8x8xf32>
  %1 = top.MatMul(%a, %b, %n) : (tensor<?x64xf32>, tensor<64x32xf32>, none) -> tensor<?x32xf32>
  return %0, %1 : tensor<1x32x8x8xf32>, tensor<?x32xf32>
}
