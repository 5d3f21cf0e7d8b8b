// RUN: strata-opt %s | strata-opt | FileCheck %s
// Round trip of the narrow element types (float8, float4, 4/2-bit integers)
// through top.Cast (with and without `saturate`) and top.BitCast.

// CHECK-LABEL: func @cast_narrow
func.func @cast_narrow(%x: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FNUZ>, tensor<4xf8E5M2>, tensor<4xf8E5M2FNUZ>, tensor<4xf4E2M1FN>, tensor<4xi4>, tensor<4xui4>, tensor<4xi2>, tensor<4xui2>) {
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %a = top.Cast(%x) : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  // CHECK: top.Cast(%{{.*}}) {saturate = false} : (tensor<4xf32>) -> tensor<4xf8E4M3FNUZ>
  %b = top.Cast(%x) {saturate = false} : (tensor<4xf32>) -> tensor<4xf8E4M3FNUZ>
  // CHECK: top.Cast(%{{.*}}) {saturate = false} : (tensor<4xf16>) -> tensor<4xf8E5M2>
  %c = top.Cast(%h) {saturate = false} : (tensor<4xf16>) -> tensor<4xf8E5M2>
  // The default value is elided.
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xf16>) -> tensor<4xf8E5M2FNUZ>
  %d = top.Cast(%h) {saturate = true} : (tensor<4xf16>) -> tensor<4xf8E5M2FNUZ>
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf4E2M1FN>
  %e = top.Cast(%x) : (tensor<4xf32>) -> tensor<4xf4E2M1FN>
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xf32>) -> tensor<4xi4>
  %f = top.Cast(%x) : (tensor<4xf32>) -> tensor<4xi4>
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xi4>) -> tensor<4xui4>
  %g = top.Cast(%f) : (tensor<4xi4>) -> tensor<4xui4>
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xf8E4M3FN>) -> tensor<4xi2>
  %i = top.Cast(%a) : (tensor<4xf8E4M3FN>) -> tensor<4xi2>
  // CHECK: top.Cast(%{{.*}}) : (tensor<4xi2>) -> tensor<4xui2>
  %j = top.Cast(%i) : (tensor<4xi2>) -> tensor<4xui2>
  return %a, %b, %c, %d, %e, %f, %g, %i, %j : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FNUZ>, tensor<4xf8E5M2>, tensor<4xf8E5M2FNUZ>, tensor<4xf4E2M1FN>, tensor<4xi4>, tensor<4xui4>, tensor<4xi2>, tensor<4xui2>
}

// CHECK-LABEL: func @bitcast
func.func @bitcast(%x: tensor<2x3xf32>, %b: tensor<5xi1>, %q: tensor<4xi4>, %e: tensor<3xf8E5M2>) -> (tensor<2x3xi32>, tensor<5xui8>, tensor<4xf4E2M1FN>, tensor<3xf8E4M3FNUZ>, tensor<2x3xf32>) {
  // CHECK: top.BitCast(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %0 = top.BitCast(%x) : (tensor<2x3xf32>) -> tensor<2x3xi32>
  // CHECK: top.BitCast(%{{.*}}) : (tensor<5xi1>) -> tensor<5xui8>
  %1 = top.BitCast(%b) : (tensor<5xi1>) -> tensor<5xui8>
  // CHECK: top.BitCast(%{{.*}}) : (tensor<4xi4>) -> tensor<4xf4E2M1FN>
  %2 = top.BitCast(%q) : (tensor<4xi4>) -> tensor<4xf4E2M1FN>
  // CHECK: top.BitCast(%{{.*}}) : (tensor<3xf8E5M2>) -> tensor<3xf8E4M3FNUZ>
  %3 = top.BitCast(%e) : (tensor<3xf8E5M2>) -> tensor<3xf8E4M3FNUZ>
  // CHECK: top.BitCast(%{{.*}}) : (tensor<2x3xi32>) -> tensor<2x3xf32>
  %4 = top.BitCast(%0) : (tensor<2x3xi32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xi32>, tensor<5xui8>, tensor<4xf4E2M1FN>, tensor<3xf8E4M3FNUZ>, tensor<2x3xf32>
}
