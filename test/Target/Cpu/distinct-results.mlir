// RUN: strata-opt %s --strata-cpu-distinct-results | FileCheck %s
// RUN: strata-opt %s --strata-cpu-lower-dispatches | FileCheck %s --check-prefix=LOWERED

// A value returned twice, and an argument returned, become copies; the
// first return of a new tensor stays. Arguments are not writable for
// bufferization (the caller's buffers).

// CHECK-LABEL: func.func private @dispatch_0_Twice
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32> {bufferization.writable = false})
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[C1:.*]] = linalg.copy ins(%[[R]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[C2:.*]] = linalg.copy ins(%[[A]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK: return %[[R]], %[[C1]], %[[C2]]
// LOWERED: llvm.func @strata_dispatch_0_Twice
func.func private @dispatch_0_Twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r, %r, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
