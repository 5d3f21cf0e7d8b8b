// RUN: strata-opt %s --convert-top-to-linalg --verify-diagnostics

// An op with no lowering at all is named before anything is converted.
func.func @no_lowering(%a: tensor<2x2xf32>) -> tensor<2x?xi64> {
  // expected-error @+1 {{'top.NonZero' has no CPU code-generation lowering yet}}
  %0 = top.NonZero(%a) : (tensor<2x2xf32>) -> tensor<2x?xi64>
  return %0 : tensor<2x?xi64>
}
