// RUN: strata-opt %s --top-select-strategy="machine=test tuning-log=%S/Inputs/cpu-tuning.jsonl" | FileCheck %s
// RUN: strata-opt %s --top-select-strategy="machine=other tuning-log=%S/Inputs/cpu-tuning.jsonl" | FileCheck %s --check-prefix=OTHER
// RUN: not strata-opt %s --top-select-strategy="tuning-log=%S/Inputs/bad-tuning.jsonl" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not strata-opt %s --top-select-strategy="tuning-log=%S/Inputs/missing.jsonl" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: strata-opt %s --top-select-strategy="target=npu machine=test tuning-log=%S/Inputs/cpu-tuning.jsonl" | FileCheck %s --check-prefix=NPU

// A tuning record for this workload, target and machine beats priority:
// on machine "test" codegen measured fastest (line 2) and wins over
// conv2d.im2col_gemm, which priority would pick; on machine "other" only
// line 3 applies (im2col, empty config: the default schedule).

// CHECK: top.Conv{{.*}}strata.impl = "codegen", strata.tuning_line = 2 : i64
// CHECK-NOT: strata.schedule
// OTHER: top.Conv{{.*}}strata.impl = "conv2d.im2col_gemm", strata.schedule = {tile_k = 256 : i64, tile_m = 64 : i64, tile_n = 128 : i64}, strata.tuning_line = 3 : i64

// BAD: error: tuning log '{{.*}}bad-tuning.jsonl' line 3: field 'config' parameter 'tile' must be an integer, got "big"
// MISSING: error: cannot read tuning log '{{.*}}missing.jsonl':

// Another target has only the generic strategy (codegen); the line 6 record
// for target npu names an implementation npu does not have, so it is not used.
// NPU: top.Conv{{.*}}strata.impl = "codegen"}
func.func @main(%x: tensor<1x8x8x8xf32>, %w: tensor<32x8x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %n = top.None() : () -> none
  %0 = top.Conv(%x, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<32x8x3x3xf32>, none) -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}
