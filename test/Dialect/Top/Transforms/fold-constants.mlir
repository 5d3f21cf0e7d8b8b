// RUN: strata-opt %s --top-fold-constants --canonicalize --split-input-file | FileCheck %s

// A chain of ops on constants becomes one weight holding the result.
// CHECK-LABEL: func @chain
// CHECK: %[[W:.*]] = top.Weight() {name = "{{.*}}", value = dense_resource<strata_weight{{.*}}>} : () -> tensor<2xf32>
// CHECK-NOT: top.Neg
// CHECK-NOT: top.Add
// CHECK: top.Mul(%{{.*}}, %[[W]])
func.func @chain(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = top.Input(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  %a = top.Weight() {name = "a", value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %b = top.Neg(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %c = top.Add(%b, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %d = top.Mul(%0, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}

// -----

// A weight whose data is only in the weight file is not a constant here.
// CHECK-LABEL: func @file_weight
// CHECK: top.Neg
func.func @file_weight() -> tensor<2xf32> {
  %a = top.Weight() {name = "a"} : () -> tensor<2xf32>
  %b = top.Neg(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}

// -----

// Growing a constant far beyond its operands (Expand) is left to run time.
// CHECK-LABEL: func @no_inflate
// CHECK: top.Expand
func.func @no_inflate() -> tensor<256x256xf32> {
  %a = top.Weight() {name = "a", value = dense<1.0> : tensor<1x256xf32>} : () -> tensor<1x256xf32>
  %b = top.Expand(%a) {shape = array<i64: 256, 256>} : (tensor<1x256xf32>) -> tensor<256x256xf32>
  return %b : tensor<256x256xf32>
}
