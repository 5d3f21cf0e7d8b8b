// RUN: strata-opt %s -split-input-file --strata-cpu-distribute-workgroups | FileCheck %s

// A big elementwise root with a broadcast producer: tiled along the channel
// loop (32 = 8 x 4) into an scf.forall, the producer fused into the tile;
// the function takes the workgroup id and count first.

// CHECK-LABEL: func.func private @dispatch_0_Relu
// CHECK-SAME: (%{{.*}}: i64, %{{.*}}: i64, %[[A:.*]]: tensor<1x32x64x64xf32>, %[[B:.*]]: tensor<32xf32>)
// CHECK-SAME: strata.workgroup_count = 8 : i64
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x32x64x64xf32>
// CHECK: scf.forall (%[[IV:.*]]) = (0) to (32) step (4) shared_outs(%[[OUT:.*]] = %[[E]])
// CHECK: tensor.extract_slice %[[A]][0, %[[IV]], 0, 0] [1, 4, 64, 64]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[IV]], 0, 0] [1, 4, 64, 64]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func private @dispatch_0_Relu(%a: tensor<1x32x64x64xf32>, %b: tensor<32xf32>) -> tensor<1x32x64x64xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<1x32x64x64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : tensor<1x32x64x64xf32>, tensor<32xf32>) outs(%e : tensor<1x32x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x32x64x64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x32x64x64xf32>) outs(%e : tensor<1x32x64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x32x64x64xf32>
  return %1 : tensor<1x32x64x64xf32>
}

// -----

// A matmul with its fill: tiled along m (a divisor of 96 up to 8), the fill
// of the accumulator fused into the tile (a workgroup writes only its
// rows).

// CHECK-LABEL: func.func private @dispatch_1_MatMul
// CHECK-SAME: strata.workgroup_count = 8 : i64
// CHECK: scf.forall (%[[IV:.*]]) = (0) to (96) step (12)
// CHECK: linalg.fill {{.*}} -> tensor<12x128xf32>
// CHECK: linalg.matmul {{.*}} -> tensor<12x128xf32>
func.func private @dispatch_1_MatMul(%a: tensor<96x64xf32>, %b: tensor<64x128xf32>) -> tensor<96x128xf32> attributes {strata.dispatch} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<96x128xf32>) -> tensor<96x128xf32>
  %m = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x128xf32>) outs(%f : tensor<96x128xf32>) -> tensor<96x128xf32>
  return %m : tensor<96x128xf32>
}

// -----

// Not split: a reduction to a scalar (no parallel loop), a small op, and
// control flow. They keep their signature and one workgroup.

// CHECK-LABEL: func.func private @dispatch_2_ReduceSum
// CHECK-SAME: (%{{.*}}: tensor<262144xf32>) -> tensor<f32>
// CHECK-NOT: strata.workgroup_count
// CHECK-NOT: scf.forall
func.func private @dispatch_2_ReduceSum(%a: tensor<262144xf32>) -> tensor<f32> attributes {strata.dispatch} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<262144xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func private @dispatch_3_Small
// CHECK-NOT: strata.workgroup_count
// CHECK-NOT: scf.forall
func.func private @dispatch_3_Small(%a: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<16x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// CHECK-LABEL: func.func private @dispatch_4_If
// CHECK-NOT: strata.workgroup_count
// CHECK-NOT: scf.forall
func.func private @dispatch_4_If(%c: i1, %a: tensor<512x512xf32>) -> tensor<512x512xf32> attributes {strata.dispatch} {
  %r = scf.if %c -> tensor<512x512xf32> {
    %e = tensor.empty() : tensor<512x512xf32>
    %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) {
    ^bb0(%x: f32, %o: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    } -> tensor<512x512xf32>
    scf.yield %n : tensor<512x512xf32>
  } else {
    scf.yield %a : tensor<512x512xf32>
  }
  return %r : tensor<512x512xf32>
}
