// RUN: strata-opt %s --strata-cpu-map-workgroups | FileCheck %s

// After bufferization the workgroup forall becomes the workgroup's share of
// its iterations: from lb + wg * step to ub by wgc * step.

// CHECK-LABEL: func.func private @dispatch_0_Neg
// CHECK-SAME: (%[[WG:.*]]: i64, %[[WGC:.*]]: i64, %[[A:.*]]: memref<64x8xf32>, %[[OUT:.*]]: memref<64x8xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[ID:.*]] = arith.index_cast %[[WG]] : i64 to index
// CHECK-DAG: %[[COUNT:.*]] = arith.index_cast %[[WGC]] : i64 to index
// CHECK: %[[OFF:.*]] = arith.muli %[[ID]], %[[C8]] : index
// CHECK: %[[FIRST:.*]] = arith.addi %[[C0]], %[[OFF]] : index
// CHECK: %[[STRIDE:.*]] = arith.muli %[[COUNT]], %[[C8]] : index
// CHECK: scf.for %[[IV:.*]] = %[[FIRST]] to %[[C64]] step %[[STRIDE]] {
// CHECK:   memref.subview %[[A]][%[[IV]], 0] [8, 8] [1, 1]
// CHECK:   linalg.generic
// CHECK: }
// CHECK-NOT: scf.forall
func.func private @dispatch_0_Neg(%wg: i64, %wgc: i64, %a: memref<64x8xf32>, %out: memref<64x8xf32>) attributes {strata.dispatch, strata.workgroup_count = 8 : i64} {
  scf.forall (%i) = (0) to (64) step (8) {
    %s = memref.subview %a[%i, 0] [8, 8] [1, 1] : memref<64x8xf32> to memref<8x8xf32, strided<[8, 1], offset: ?>>
    %d = memref.subview %out[%i, 0] [8, 8] [1, 1] : memref<64x8xf32> to memref<8x8xf32, strided<[8, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : memref<8x8xf32, strided<[8, 1], offset: ?>>) outs(%d : memref<8x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%x: f32, %o: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    }
  }
  return
}
