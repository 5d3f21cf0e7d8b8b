// RUN: strata-opt %s --top-inline-functions --split-input-file --verify-diagnostics

// Each function calls the next twice, 30 deep: inlined, 2^29 ops. The
// growth limit (max-ops, default 1,000,000) stops it before anything is
// copied, at the first call that crosses it: f0 calls f1, itself 2^28 ops.
func.func private @f0(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{calls 'f1': inlining would create more than 1000000 ops (the inline growth limit; raise it with top-inline-functions{max-ops=N})}}
  %a = call @f1(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f1(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f1(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f2(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f2(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f2(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f3(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f3(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f3(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f4(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f4(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f4(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f5(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f5(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f5(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f6(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f6(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f6(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f7(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f7(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f7(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f8(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f8(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f8(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f9(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f9(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f9(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f10(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f10(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f10(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f11(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f11(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f11(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f12(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f12(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f12(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f13(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f13(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f13(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f14(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f14(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f14(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f15(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f15(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f15(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f16(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f16(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f16(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f17(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f17(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f17(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f18(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f18(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f18(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f19(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f19(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f19(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f20(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f20(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f20(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f21(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f21(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f21(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f22(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f22(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f22(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f23(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f23(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f23(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f24(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f24(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f24(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f25(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f25(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f25(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f26(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f26(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f26(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f27(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f27(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f27(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f28(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f28(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f28(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @f29(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @f29(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @f29(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = top.Neg(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = call @f0(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
