// RUN: strata-opt %s -split-input-file --strata-cpu-lower-dispatches --verify-diagnostics | FileCheck %s

// The whole lowering of one dispatch: linalg loops on bare pointers (the
// operands, then the result as an out-parameter), made internal, and the
// exported wrapper that loads each binding and returns 0.

// CHECK-LABEL: llvm.func internal @dispatch_0_Add
// CHECK-SAME: (%[[A:.*]]: !llvm.ptr, %[[B:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr)
// CHECK: llvm.fadd
// CHECK: llvm.store
// CHECK-LABEL: llvm.func @strata_dispatch_0_Add
// CHECK-SAME: (%[[BINDINGS:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64) -> i32
// CHECK: %[[S0:.*]] = llvm.getelementptr %[[BINDINGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[BINDINGS]][1]
// CHECK: %[[P1:.*]] = llvm.load %[[S1]]
// CHECK: %[[S2:.*]] = llvm.getelementptr %[[BINDINGS]][2]
// CHECK: %[[P2:.*]] = llvm.load %[[S2]]
// CHECK: llvm.call @dispatch_0_Add(%[[P0]], %[[P1]], %[[P2]])
// CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: llvm.return %[[Z]] : i32
module {
  func.func private @dispatch_0_Add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> attributes {strata.dispatch} {
    %0 = top.Add(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}

// -----

// A dispatch split into workgroups: the wrapper passes the workgroup id and
// count first, and the loops carry vector<16xf32> arithmetic.

// CHECK-LABEL: llvm.func internal @dispatch_1_Relu
// CHECK-SAME: (%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: strata.workgroup_count = 8 : i64
// CHECK: llvm.fcmp {{.*}} : vector<16xf32>
// CHECK-LABEL: llvm.func @strata_dispatch_1_Relu
// CHECK-SAME: (%[[BINDINGS:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[WG:.*]]: i64, %[[WGC:.*]]: i64) -> i32
// CHECK: %[[P0:.*]] = llvm.load
// CHECK: %[[P1:.*]] = llvm.load
// CHECK: llvm.call @dispatch_1_Relu(%[[WG]], %[[WGC]], %[[P0]], %[[P1]])
module {
  func.func private @dispatch_1_Relu(%a: tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32> attributes {strata.dispatch} {
    %0 = top.Relu(%a) : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
    %1 = top.Relu(%0) : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
    %2 = top.Relu(%1) : (tensor<1x32x64x64xf32>) -> tensor<1x32x64x64xf32>
    return %2 : tensor<1x32x64x64xf32>
  }
}
