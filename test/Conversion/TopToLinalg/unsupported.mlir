// RUN: strata-opt %s --convert-top-to-linalg --verify-diagnostics

// An op with no lowering at all is named before anything is converted.
func.func @no_lowering(%a: tensor<2x2xf32>) -> tensor<f32> {
  // expected-error @+1 {{'top.Det' has no CPU code-generation lowering yet}}
  %0 = top.Det(%a) : (tensor<2x2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
