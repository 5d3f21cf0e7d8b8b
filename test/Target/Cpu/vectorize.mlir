// RUN: strata-opt %s -split-input-file --strata-cpu-vectorize --canonicalize | FileCheck %s

// Elementwise: tiles of one row of 16 elements, vectorized.

// CHECK-LABEL: func.func private @dispatch_0_Add
// CHECK: scf.for
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK: arith.addf {{.*}} : vector<1x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x16xf32>, tensor<1x16xf32>
// CHECK-NOT: linalg.generic
func.func private @dispatch_0_Add(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// A reduction over the inner dim: 16 elements at a time into the row's sum.

// CHECK-LABEL: func.func private @dispatch_1_ReduceSum
// CHECK: scf.for {{.*}} step %c16
// CHECK: vector.multi_reduction <add>, {{.*}} [1] : vector<1x16xf32> to vector<1xf32>
func.func private @dispatch_1_ReduceSum(%a: tensor<4x128xf32>, %init: tensor<4xf32>) -> tensor<4xf32> attributes {strata.dispatch} {
  %r = linalg.reduce ins(%a : tensor<4x128xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// -----

// A matmul: 16 columns and up to 16 of k at a time, a vector.contract.

// CHECK-LABEL: func.func private @dispatch_2_MatMul
// CHECK: vector.contract {{.*}} vector<1x16xf32>, vector<16x16xf32> into vector<1x16xf32>
// CHECK-NOT: linalg.matmul
func.func private @dispatch_2_MatMul(%a: tensor<4x32xf32>, %b: tensor<32x64xf32>, %c: tensor<4x64xf32>) -> tensor<4x64xf32> attributes {strata.dispatch} {
  %m = linalg.matmul ins(%a, %b : tensor<4x32xf32>, tensor<32x64xf32>) outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %m : tensor<4x64xf32>
}

// -----

// A 2-D NCHW max pool: one output row, one window row at a time, which
// decomposes to the 1-D pool and vectorizes along the output row.

// CHECK-LABEL: func.func private @dispatch_3_MaxPool
// CHECK-NOT: linalg.pooling
// CHECK: arith.maximumf {{.*}} : vector<1x16x1xf32>
func.func private @dispatch_3_MaxPool(%a: tensor<1x4x34x34xf32>, %init: tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32> attributes {strata.dispatch} {
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x4x34x34xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x32x32xf32>) -> tensor<1x4x32x32xf32>
  return %r : tensor<1x4x32x32xf32>
}

// -----

// Not vectorized: booleans (their buffers hold a byte per element) and
// copies.

// CHECK-LABEL: func.func private @dispatch_4_Not
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK: linalg.copy
func.func private @dispatch_4_Not(%a: tensor<64xi1>, %b: tensor<64xf32>) -> (tensor<64xi1>, tensor<64xf32>) attributes {strata.dispatch} {
  %e = tensor.empty() : tensor<64xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<64xi1>) outs(%e : tensor<64xi1>) {
  ^bb0(%x: i1, %o: i1):
    %t = arith.constant true
    %n = arith.xori %x, %t : i1
    linalg.yield %n : i1
  } -> tensor<64xi1>
  %f = tensor.empty() : tensor<64xf32>
  %c = linalg.copy ins(%b : tensor<64xf32>) outs(%f : tensor<64xf32>) -> tensor<64xf32>
  return %r, %c : tensor<64xi1>, tensor<64xf32>
}

// -----

// A pooling whose windows leave input rows unread (ceil mode, stride 2 over
// 2x2 with a 1x1 window: one output pixel): its input is sliced to the rows
// and columns the window reads before the 1-D decomposition, even though the
// tile is the whole op (before, the decomposition wrote an invalid
// rank-reducing slice of the 2x2 input).

// CHECK-LABEL: func.func private @dispatch_0_MaxPool
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 1, 1, 1] [1, 1, 1, 1] : tensor<1x1x2x2xf32>
// CHECK-NOT: linalg.pooling_nchw_max
func.func private @dispatch_0_MaxPool(%a: tensor<1x1x2x2xf32>) -> tensor<1x1x1x1xf32> attributes {strata.dispatch} {
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<1x1x1x1xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %w = tensor.empty() : tensor<1x1xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%a, %w : tensor<1x1x2x2xf32>, tensor<1x1xf32>) outs(%1 : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %r : tensor<1x1x1x1xf32>
}
