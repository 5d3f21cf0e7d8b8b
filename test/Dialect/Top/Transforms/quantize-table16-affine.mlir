// RUN: strata-opt %s -split-input-file -mlir-print-debuginfo --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-affine.txt table-input=int16" | FileCheck %s --check-prefix=I16
// RUN: strata-opt %s -split-input-file --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-affine.txt" | FileCheck %s --check-prefix=I8
// RUN: strata-opt %s -split-input-file --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-preact.txt table-input=int16" | FileCheck %s --check-prefix=NOROW
// RUN: strata-opt %s -split-input-file --top-quantize="mode=int8 calibration=%S/Inputs/quantize-table-affine.txt per-channel-tables=true" | FileCheck %s --check-prefix=PC

// table-input=int16 (and the default int8 tables, I8 below): a float Mul then Add by one-element constants after
// the fused activation (PP-LCNetV3's learnable affine block) are folded
// into the top.Table16, whose int8 output takes the Add's row [-1, 1]
// (scale 2/255, zero point round(-128 + 127.5) = -1, ties away from
// zero): no Dequant / Mul / Add / Quant between the table and the result.
// The pre-activation range is still cut where the table's output is flat,
// now the affine's result in the Add's steps: 2 * HardSigmoid - 1 is
// clamped to [-127, 128] * 2/255, so the lower cut moves (scale
// 6.081e-5, zero point -69 against 6.094e-5, 2 without the affine;
// test/quant/test_table16.py checks the entries against numpy).
// I16-LABEL: func @main
// I16: %[[ACC:.*]] = top.Conv({{.*}} -> tensor<1x2x4x4xi32>
// I16: %[[PRE:.*]] = top.Requant(%[[ACC]]) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i16:f32, 6.0812{{[0-9]*}}E-5:-69>>
// I16-NOT: top.Mul
// I16: %[[T:.*]] = top.Table16(%[[PRE]]) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00784313{{[0-9]*}}:-1>> loc(#[[TL:loc[0-9]*]])
// I16-NOT: top.Mul
// I16-NOT: top.Add
// I16-NOT: top.Quant
// I16: %[[OUT:.*]] = top.Dequant(%[[T]]) {{.*}} loc(#[[OL:loc[0-9]*]])
// I16: return %[[OUT]]
// I16-DAG: #[[TL]] = loc("add_int8"
// I16-DAG: #[[OL]] = loc("add"

// The default int8 tables fold it too: a top.ScalarAffine (scale 2,
// offset -1) between the activation and the Quant, which takes the Add's
// row; the CPU's table_i8 and the NPU's hl.table tabulate the whole chain.
// The pre-activation's range is cut on the affine's result too.
// I8-LABEL: func @main
// I8: %[[PRE:.*]] = top.Requant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.01562{{[0-9]*}}:-1>>
// I8: %[[D:.*]] = top.Dequant(%[[PRE]])
// I8: %[[H:.*]] = top.HardSigmoid(%[[D]])
// I8-NOT: top.Mul
// I8: %[[S:.*]] = top.ScalarAffine(%[[H]]) {offset = -1.000000e+00 : f64, scale = 2.000000e+00 : f64}
// I8: %[[Q:.*]] = top.Quant(%[[S]]) {{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00784313{{[0-9]*}}:-1>>
// I8-NOT: top.Mul
// I8-NOT: top.Add
// I8: %[[OUT:.*]] = top.Dequant(%[[Q]])
// I8: return %[[OUT]]
// PC-LABEL: func @main
// PC: top.ScalarAffine
// PC: top.Quant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00784313{{[0-9]*}}:-1>>
// PC-NOT: top.Mul
// PC-NOT: top.Add

// A table without a row for the Add's result (hand-written): nothing is
// folded, the table's output keeps `conv`'s row.
// NOROW-LABEL: func @main
// NOROW: top.Table16({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00392156{{[0-9]*}}:-128>>
// NOROW: top.Mul
// NOROW: top.Add
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %a = top.Weight() {name = "a", value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %b = top.Weight() {name = "b", value = dense<-1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>, activation = #top.activation<hardsigmoid>, activation_params = array<f64: 0.25, 0.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv")
  %2 = top.Mul(%a, %1) : (tensor<1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("mul")
  %3 = top.Add(%2, %b) : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32> loc("add")
  return %3 : tensor<1x2x4x4xf32>
}

// -----

// The activation's output read twice (by the Mul and the return): not
// folded; the table's output is `conv`'s row and the Mul and Add stay.
// I16-LABEL: func @main
// I16: %[[T:.*]] = top.Table16({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00392156{{[0-9]*}}:-128>>
// I16: %[[D:.*]] = top.Dequant(%[[T]])
// I16: %[[M:.*]] = top.Mul(%{{.*}}, %[[D]])
// I16: %[[A:.*]] = top.Add(%[[M]], %{{.*}})
// I16: return %[[A]], %[[D]]
// I8-LABEL: func @main
// PC-LABEL: func @main
// PC: top.Mul
// I8-NOT: top.ScalarAffine
// I8: top.Quant({{.*}} -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.00392156{{[0-9]*}}:-128>>
// I8: top.Mul
// I8: top.Add
func.func @main(%arg0: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %0 = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("x")
  %w = top.Weight() {name = "w", value = dense<[[[[0.5]], [[-1.0]]], [[[0.25]], [[0.125]]]]> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %a = top.Weight() {name = "a", value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %b = top.Weight() {name = "b", value = dense<-1.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %n = top.None() : () -> none
  %1 = top.Conv(%0, %w, %n) {kernel_shape = array<i64: 1, 1>, activation = #top.activation<hardsigmoid>, activation_params = array<f64: 0.25, 0.5>} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32> loc("conv")
  %2 = top.Mul(%a, %1) : (tensor<1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> loc("mul")
  %3 = top.Add(%2, %b) : (tensor<1x2x4x4xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32> loc("add")
  return %3, %1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
