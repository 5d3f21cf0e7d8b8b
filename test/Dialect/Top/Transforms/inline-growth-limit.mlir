// RUN: strata-opt %s --top-inline-functions="max-ops=6" | FileCheck %s
// RUN: not strata-opt %s --top-inline-functions="max-ops=5" 2>&1 | FileCheck %s --check-prefix=LIMIT

// Inlining creates 6 ops here: each call of @g copies its one op (2 calls),
// each call of @f copies @f's body with @g inlined, 2 ops (2 calls).
// max-ops=6 allows it; 5 is refused at the call that crosses the limit.
// CHECK-LABEL: func.func @main
// CHECK-COUNT-4: top.Neg
// CHECK-NOT: call
// LIMIT: error: 'func.call' op calls 'f': inlining would create more than 5 ops (the inline growth limit
// LIMIT-NEXT: %s = call @f(%r)
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = top.Neg(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = call @g(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = call @g(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %s = call @f(%r) : (tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}
