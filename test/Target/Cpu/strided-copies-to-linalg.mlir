// RUN: strata-opt %s --strata-cpu-strided-copies-to-linalg | FileCheck %s

// A copy into a strided subview (what tensor.pad bufferizes to) becomes
// linalg.copy; a copy between contiguous memrefs stays memref.copy.
// CHECK-LABEL: func.func @copies
// CHECK: %[[SV:.*]] = memref.subview
// CHECK: linalg.copy ins(%{{.*}} : memref<2x3xf32>) outs(%[[SV]] : memref<2x3xf32, strided<[5, 1], offset: 6>>)
// CHECK-NOT: linalg.copy
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<2x3xf32> to memref<2x3xf32>
func.func @copies(%a: memref<2x3xf32>, %b: memref<4x5xf32>, %c: memref<2x3xf32>) {
  %sv = memref.subview %b[1, 1] [2, 3] [1, 1] : memref<4x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %a, %sv : memref<2x3xf32> to memref<2x3xf32, strided<[5, 1], offset: 6>>
  memref.copy %a, %c : memref<2x3xf32> to memref<2x3xf32>
  return
}
