// RUN: strata-opt %s --top-inline-functions --verify-diagnostics
// A recursive function cannot be inlined.
func.func private @forever(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{is part of a call chain deeper than 64 (recursion?); it cannot be inlined}}
  %y = call @forever(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = call @forever(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
