// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-unknown.txt" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-corrupt.txt" 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-negative.txt" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-missing.txt" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/no-such-table.txt" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not strata-opt %s --top-quantize="mode=int8" 2>&1 | FileCheck %s --check-prefix=NOTABLE
// RUN: not strata-opt %s --top-quantize="mode=int4" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-preact-noact.txt" 2>&1 | FileCheck %s --check-prefix=PREACT
// RUN: not strata-opt %s --top-quantize="mode=int8 calibration=%S/Inputs/quantize-mean-count.txt" 2>&1 | FileCheck %s --check-prefix=MEANCOUNT

// UNKNOWN: error: top-quantize: the calibration table '{{.*}}quantize-unknown.txt' names tensor 'nosuch', which is not a tensor of the model
// CORRUPT: error: top-quantize: {{.*}}quantize-corrupt.txt:2: tensor 'conv': threshold 'nan' is not a finite number
// NEGATIVE: error: top-quantize: {{.*}}quantize-negative.txt:1: tensor 'x': threshold -2.0 must be positive
// MISSING: error: loc("conv"): 'top.Conv' op tensor 'conv' has no entry in the calibration table
// NOFILE: error: top-quantize: cannot read calibration table '{{.*}}no-such-table.txt'
// NOTABLE: error: top-quantize: mode=int8 needs a calibration table (calibration=FILE; strata calibrate writes one) unless the model is already quantized (QDQ)
// MODE: error: top-quantize: mode 'int4' is not one of int8, bf16, f16
// A `_preact` row for a layer without a fused activation.
// PREACT: error: top-quantize: the calibration table '{{.*}}quantize-preact-noact.txt' names tensor 'conv_preact', which is not a tensor of the model
// MEANCOUNT: error: loc("conv"): 'top.Conv' op calibration table '{{.*}}quantize-mean-count.txt': @mean row of tensor 'x' has 3 channel means, the input has 2 channels
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv")
  return %1 : tensor<1x2x4x4xf32>
}
