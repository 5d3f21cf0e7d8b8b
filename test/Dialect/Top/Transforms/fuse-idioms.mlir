// RUN: strata-opt %s --top-fuse-idioms --canonicalize --split-input-file | FileCheck %s
// Numeric equivalence of the fused ops is checked in test/onnx/test_optimize.py.

// GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / 1.4142)), and as
// tf2onnx does: (1 + erf(x * 0.7071)) * x * 0.5.
// CHECK-LABEL: func @gelu_erf
// CHECK: %[[X:.*]] = top.Input
// CHECK: %[[A:.*]] = top.Gelu(%[[X]]) :
// CHECK: %[[B:.*]] = top.Gelu(%[[X]]) :
// CHECK: return %[[A]], %[[B]]
func.func @gelu_erf(%arg0: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %x = top.Input(%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = top.Weight() {name = "half", value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %one = top.Weight() {name = "one", value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %sqrt2 = top.Weight() {name = "sqrt2", value = dense<1.41421354> : tensor<f32>} : () -> tensor<f32>
  %rsqrt2 = top.Weight() {name = "rsqrt2", value = dense<0.7071> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = top.Div(%x, %sqrt2) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = top.Erf(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = top.Add(%1, %one) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %3 = top.Mul(%x, %half) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %4 = top.Mul(%3, %2) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("gelu")
  %5 = top.Mul(%x, %rsqrt2) : (tensor<2x8xf32>, tensor<1xf32>) -> tensor<2x8xf32>
  %6 = top.Erf(%5) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %7 = top.Add(%one, %6) : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %8 = top.Mul(%7, %x) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %9 = top.Mul(%8, %half) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  return %4, %9 : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// GELU tanh form with Pow(x, 3) and with x * x * x.
// CHECK-LABEL: func @gelu_tanh
// CHECK-COUNT-2: top.Gelu(%{{.*}}) {approximate = #top.gelu_approximation<tanh>}
// CHECK-NOT: top.Tanh
func.func @gelu_tanh(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %x = top.Input(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %half = top.Weight() {name = "half", value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %one = top.Weight() {name = "one", value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %three = top.Weight() {name = "three", value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %c = top.Weight() {name = "c", value = dense<0.044715> : tensor<f32>} : () -> tensor<f32>
  %k = top.Weight() {name = "k", value = dense<0.797884583> : tensor<f32>} : () -> tensor<f32>
  %0 = top.Pow(%x, %three) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = top.Mul(%c, %0) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = top.Add(%x, %1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = top.Mul(%2, %k) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = top.Tanh(%3) : (tensor<8xf32>) -> tensor<8xf32>
  %5 = top.Add(%4, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %6 = top.Mul(%half, %x) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %7 = top.Mul(%6, %5) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %10 = top.Mul(%x, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %11 = top.Mul(%10, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %12 = top.Mul(%11, %c) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %13 = top.Add(%12, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %14 = top.Mul(%k, %13) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %15 = top.Tanh(%14) : (tensor<8xf32>) -> tensor<8xf32>
  %16 = top.Add(%15, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %17 = top.Mul(%x, %16) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %18 = top.Mul(%17, %half) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %7, %18 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Not GELU: a wrong constant (0.6), an intermediate with another user (the
// erf), a constant that broadcasts the result to [2, 8].
// CHECK-LABEL: func @gelu_not_fused
// CHECK-NOT: top.Gelu
func.func @gelu_not_fused(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x8xf32>) {
  %x = top.Input(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %half = top.Weight() {name = "half", value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %half2 = top.Weight() {name = "half2", value = dense<0.5> : tensor<2x1xf32>} : () -> tensor<2x1xf32>
  %bad = top.Weight() {name = "bad", value = dense<0.6> : tensor<f32>} : () -> tensor<f32>
  %one = top.Weight() {name = "one", value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %r = top.Weight() {name = "r", value = dense<0.70710678> : tensor<f32>} : () -> tensor<f32>
  %0 = top.Mul(%x, %r) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = top.Erf(%0) : (tensor<8xf32>) -> tensor<8xf32>
  %2 = top.Add(%1, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %3 = top.Mul(%x, %2) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = top.Mul(%3, %bad) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %10 = top.Mul(%x, %r) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %11 = top.Erf(%10) : (tensor<8xf32>) -> tensor<8xf32>
  %12 = top.Add(%11, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %13 = top.Mul(%x, %12) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %14 = top.Mul(%13, %half) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %20 = top.Mul(%x, %r) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %21 = top.Erf(%20) : (tensor<8xf32>) -> tensor<8xf32>
  %22 = top.Add(%21, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %23 = top.Mul(%x, %22) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %24 = top.Mul(%23, %half2) : (tensor<8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %4, %14, %11, %24 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2x8xf32>
}

// -----

// SiLU and both HardSwish forms; not x * sigmoid(y), not a sigmoid with
// another user, not clip(x + 3, 0, 6) / 5.
// CHECK-LABEL: func @swish
// CHECK: %[[X:.*]] = top.Input
// CHECK: %[[Y:.*]] = top.Input
// CHECK-DAG: top.SiLU(%[[X]])
// CHECK-DAG: top.HardSwish(%[[X]])
// CHECK-DAG: top.HardSwish(%[[Y]])
// CHECK-COUNT-2: top.Sigmoid
// CHECK: top.Clip
// CHECK-NOT: top.SiLU
// CHECK-NOT: top.HardSwish
func.func @swish(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %x = top.Input(%arg0) : (tensor<8xf32>) -> tensor<8xf32>
  %y = top.Input(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
  %three = top.Weight() {name = "three", value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %six = top.Weight() {name = "six", value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %five = top.Weight() {name = "five", value = dense<5.0> : tensor<f32>} : () -> tensor<f32>
  %0 = top.Sigmoid(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = top.Mul(%x, %0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = top.HardSigmoid(%x) {alpha = 0.16666667, beta = 0.5} : (tensor<8xf32>) -> tensor<8xf32>
  %3 = top.Mul(%2, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = top.Add(%y, %three) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %5 = top.Clip(%4) {min = 0.0, max = 6.0} : (tensor<8xf32>) -> tensor<8xf32>
  %6 = top.Mul(%y, %5) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %7 = top.Div(%6, %six) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %8 = top.Sigmoid(%y) : (tensor<8xf32>) -> tensor<8xf32>
  %9 = top.Mul(%x, %8) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %10 = top.Sigmoid(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %11 = top.Mul(%x, %10) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %12 = top.Add(%y, %three) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %13 = top.Clip(%12) {min = 0.0, max = 6.0} : (tensor<8xf32>) -> tensor<8xf32>
  %14 = top.Mul(%y, %13) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %15 = top.Div(%14, %five) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  return %1, %3, %7, %9, %10, %11, %15 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// LayerNorm with Pow and Div, then gamma and beta, over the last axis.
// CHECK-LABEL: func @layernorm
// CHECK: %[[X:.*]] = top.Input
// CHECK: %[[G:.*]] = top.Weight() {name = "gamma"
// CHECK: %[[B:.*]] = top.Weight() {name = "beta"
// CHECK: %[[L:.*]] = top.LayerNorm(%[[X]], %[[G]], %[[B]]) {axis = 2 : i64, epsilon = 9.99999{{[0-9]*}}E-13 : f64}
// CHECK: return %[[L]]
func.func @layernorm(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %x = top.Input(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %two = top.Weight() {name = "two", value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = top.Weight() {name = "eps", value = dense<1.0e-12> : tensor<f32>} : () -> tensor<f32>
  %g = top.Weight() {name = "gamma", value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = top.Weight() {name = "beta", value = dense<[0.5, 0.5, 0.5, 0.5]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = top.Reduce(%x) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %1 = top.Sub(%x, %0) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %2 = top.Pow(%1, %two) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %3 = top.Reduce(%2) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = top.Add(%3, %eps) : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %5 = top.Sqrt(%4) : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  %6 = top.Div(%1, %5) : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  %7 = top.Mul(%6, %g) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %8 = top.Add(%7, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32> loc("ln")
  return %8 : tensor<2x3x4xf32>
}

// -----

// LayerNorm with Mul self and Rsqrt, without gamma / beta.
// CHECK-LABEL: func @layernorm_rsqrt
// CHECK: %[[N:.*]] = top.None
// CHECK: top.LayerNorm(%{{.*}}, %[[N]], %[[N]]) {axis = 1 : i64, epsilon = 9.99999{{[0-9]*}}E-6 : f64}
// CHECK-NOT: top.Reduce
func.func @layernorm_rsqrt(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %x = top.Input(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %eps = top.Weight() {name = "eps", value = dense<1.0e-5> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = top.Reduce(%x) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %1 = top.Sub(%x, %0) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %2 = top.Mul(%1, %1) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = top.Reduce(%2) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %4 = top.Add(%eps, %3) : (tensor<1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %5 = top.Rsqrt(%4) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %6 = top.Mul(%1, %5) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %6 : tensor<3x4xf32>
}

// -----

// Not LayerNorm: the mean over another axis than the variance; the centred
// value has another user; a non-constant gamma stays a Mul.
// CHECK-LABEL: func @layernorm_not_fused
// CHECK-COUNT-2: top.Sqrt
// CHECK: top.LayerNorm
// CHECK-NEXT: top.Mul
func.func @layernorm_not_fused(%arg0: tensor<3x4xf32>, %arg1: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %x = top.Input(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %gv = top.Input(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
  %eps = top.Weight() {name = "eps", value = dense<1.0e-5> : tensor<f32>} : () -> tensor<f32>
  %0 = top.Reduce(%x) {axes = array<i64: 0>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %1 = top.Sub(%x, %0) : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %2 = top.Mul(%1, %1) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = top.Reduce(%2) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %4 = top.Add(%3, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %5 = top.Sqrt(%4) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %6 = top.Div(%1, %5) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %10 = top.Reduce(%x) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %11 = top.Sub(%x, %10) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %12 = top.Mul(%11, %11) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %13 = top.Reduce(%12) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %14 = top.Add(%13, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %15 = top.Sqrt(%14) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %16 = top.Div(%11, %15) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %20 = top.Reduce(%x) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %21 = top.Sub(%x, %20) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %22 = top.Mul(%21, %21) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %23 = top.Reduce(%22) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %24 = top.Add(%23, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %25 = top.Sqrt(%24) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %26 = top.Div(%21, %25) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %27 = top.Mul(%26, %gv) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %6, %16, %11, %27 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// RMSNorm: x * rsqrt(mean(x^2) + eps) * gamma, and gamma * (x / sqrt(..)).
// Without gamma it stays (RMSNorm needs a scale).
// CHECK-LABEL: func @rmsnorm
// CHECK: %[[X:.*]] = top.Input
// CHECK: %[[G:.*]] = top.Weight() {name = "gamma"
// CHECK: top.RMSNorm(%[[X]], %[[G]]) {axis = 1 : i64, epsilon = 9.99999{{[0-9]*}}E-7 : f64}
// CHECK: top.RMSNorm(%[[X]], %[[G]]) {axis = 1 : i64
// CHECK: top.Rsqrt
func.func @rmsnorm(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %x = top.Input(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %two = top.Weight() {name = "two", value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %eps = top.Weight() {name = "eps", value = dense<1.0e-6> : tensor<f32>} : () -> tensor<f32>
  %g = top.Weight() {name = "gamma", value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = top.Pow(%x, %two) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %1 = top.Reduce(%0) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %2 = top.Add(%1, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %3 = top.Rsqrt(%2) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %4 = top.Mul(%x, %3) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %5 = top.Mul(%4, %g) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %10 = top.Mul(%x, %x) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %11 = top.Reduce(%10) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %12 = top.Add(%11, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %13 = top.Sqrt(%12) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %14 = top.Div(%x, %13) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %15 = top.Mul(%g, %14) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %20 = top.Pow(%x, %two) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %21 = top.Reduce(%20) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMean>} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  %22 = top.Add(%21, %eps) : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %23 = top.Rsqrt(%22) : (tensor<3x1xf32>) -> tensor<3x1xf32>
  %24 = top.Mul(%x, %23) : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %5, %15, %24 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// -----

// Softmax with and without the max, over axis 1. A max over another axis
// than the sum stays (the softmax is of x - max); exp with a third user
// stays.
// CHECK-LABEL: func @softmax
// CHECK: %[[X:.*]] = top.Input
// CHECK: top.Softmax(%[[X]]) {axis = 1 : i64}
// CHECK: top.Softmax(%[[X]]) {axis = 1 : i64}
// CHECK: %[[S:.*]] = top.Sub
// CHECK: top.Softmax(%[[S]]) {axis = 1 : i64}
// CHECK-NOT: top.Softmax
func.func @softmax(%arg0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) {
  %x = top.Input(%arg0) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %0 = top.Reduce(%x) {axes = array<i64: -1>, keepdims = true, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %1 = top.Sub(%x, %0) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %2 = top.Exp(%1) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %3 = top.Reduce(%2) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %4 = top.Div(%2, %3) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %10 = top.Exp(%x) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %11 = top.Reduce(%10) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %12 = top.Div(%10, %11) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %20 = top.Reduce(%x) {axes = array<i64: 0>, keepdims = true, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x5xf32>) -> tensor<1x5xf32>
  %21 = top.Sub(%x, %20) : (tensor<2x5xf32>, tensor<1x5xf32>) -> tensor<2x5xf32>
  %22 = top.Exp(%21) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %23 = top.Reduce(%22) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %24 = top.Div(%22, %23) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %30 = top.Exp(%x) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %31 = top.Reduce(%30) {axes = array<i64: 1>, keepdims = true, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  %32 = top.Div(%30, %31) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  return %4, %12, %24, %32, %30 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// tf2onnx's softmax: sums without keepdims, reshaped back (and expanded to
// the same shape); a reshape that moves the reduced dim elsewhere is not a
// keepdims sum.
// CHECK-LABEL: func @softmax_reshaped_sum
// CHECK: %[[X:.*]] = top.Input
// CHECK: top.Softmax(%[[X]]) {axis = 1 : i64}
// CHECK-NOT: top.Softmax
// CHECK: top.Div
func.func @softmax_reshaped_sum(%arg0: tensor<2x5xf32>, %arg1: tensor<2x2xf32>) -> (tensor<2x5xf32>, tensor<2x2xf32>) {
  %x = top.Input(%arg0) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %0 = top.Reduce(%x) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceMax>} : (tensor<2x5xf32>) -> tensor<2xf32>
  %1 = top.Reshape(%0) {shape = array<i64: 2, 1>} : (tensor<2xf32>) -> tensor<2x1xf32>
  %2 = top.Sub(%x, %1) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %3 = top.Exp(%2) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %4 = top.Reduce(%3) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x5xf32>) -> tensor<2xf32>
  %5 = top.Reshape(%4) {shape = array<i64: 2, 1>} : (tensor<2xf32>) -> tensor<2x1xf32>
  %6 = top.Expand(%5) {shape = array<i64: 2, 1>} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %7 = top.Div(%3, %6) : (tensor<2x5xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
  %y = top.Input(%arg1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %11 = top.Exp(%y) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %12 = top.Reduce(%11) {axes = array<i64: 1>, keepdims = false, mode = #top.reduce_mode<ReduceSum>} : (tensor<2x2xf32>) -> tensor<2xf32>
  %13 = top.Reshape(%12) {shape = array<i64: 1, 2>} : (tensor<2xf32>) -> tensor<1x2xf32>
  %14 = top.Div(%11, %13) : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  return %7, %14 : tensor<2x5xf32>, tensor<2x2xf32>
}
