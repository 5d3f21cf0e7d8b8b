// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// What convert-tosa-to-top writes for data movement: shape operands
// (tosa.const_shape) become attributes and are erased; constants become
// top.Weight ops with their data. Numbers: test/tosa/test_data_movement.py.

// CHECK-LABEL: func.func @shapes
// CHECK-NOT: tosa.
// CHECK: %[[R:.*]] = top.Reshape(%{{.*}}) {shape = array<i64: 4, 6>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK: %[[T:.*]] = top.Permute(%[[R]]) {order = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
// CHECK: %[[S:.*]] = top.Slice(%[[T]]) {axes = array<i64: 0, 1>, ends = array<i64: 3, 4>, starts = array<i64: 1, 1>} : (tensor<6x4xf32>) -> tensor<2x3xf32>
// CHECK: %[[P:.*]] = top.Pad(%[[S]]) {pads = array<i64: 1, 2, 0, 1>, value = 1.500000e+00 : f64} : (tensor<2x3xf32>) -> tensor<3x6xf32>
// CHECK: %[[TL:.*]] = top.Tile(%[[P]]) {repeats = array<i64: 1, 2>} : (tensor<3x6xf32>) -> tensor<3x12xf32>
// CHECK: top.Slice(%[[TL]]) {axes = array<i64: 0>, ends = array<i64: -9223372036854775808>, starts = array<i64: -1>, steps = array<i64: -1>}
func.func @shapes(%a: tensor<2x3x4xf32>) -> tensor<3x12xf32> {
  %s = tosa.const_shape {values = dense<[4, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %st = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %p = tosa.const_shape {values = dense<[1, 0, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %m = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %v = "tosa.const"() {values = dense<1.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %r = tosa.reshape %a, %s : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<4x6xf32>
  %t = tosa.transpose %r {perms = array<i32: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %sl = tosa.slice %t, %st, %sz : (tensor<6x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf32>
  %pd = tosa.pad %sl, %p, %v : (tensor<2x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<3x6xf32>
  %tl = tosa.tile %pd, %m : (tensor<3x6xf32>, !tosa.shape<2>) -> tensor<3x12xf32>
  %0 = tosa.reverse %tl {axis = 0 : i32} : (tensor<3x12xf32>) -> tensor<3x12xf32>
  return %0 : tensor<3x12xf32>
}

// gather is a GatherND with one batch dim on indices [N, W, 1].
// CHECK-LABEL: func.func @gather
// CHECK: %[[I:.*]] = top.Reshape(%{{.*}}) {shape = array<i64: 2, 4, 1>} : (tensor<2x4xi32>) -> tensor<2x4x1xi32>
// CHECK: top.GatherND(%{{.*}}, %[[I]]) {batch_dims = 1 : i64} : (tensor<2x5x3xf32>, tensor<2x4x1xi32>) -> tensor<2x4x3xf32>
func.func @gather(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// scatter is a ScatterND with indices (n, indices[n, w]).
// CHECK-LABEL: func.func @scatter
// CHECK: %[[N:.*]] = top.Weight() {name = "{{.*}}", value = dense<{{\[\[\[}}0], [0]], {{\[\[}}1], [1]]]> : tensor<2x2x1xi32>}
// CHECK: %[[C:.*]] = top.Concat(%[[N]], %{{.*}}) {axis = 2 : i64} : (tensor<2x2x1xi32>, tensor<2x2x1xi32>) -> tensor<2x2x2xi32>
// CHECK: top.ScatterND(%{{.*}}, %[[C]], %{{.*}}) : (tensor<2x5x3xf32>, tensor<2x2x2xi32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
func.func @scatter(%v: tensor<2x5x3xf32>, %i: tensor<2x2xi32>, %u: tensor<2x2x3xf32>) -> tensor<2x5x3xf32> {
  %0 = tosa.scatter %v, %i, %u : (tensor<2x5x3xf32>, tensor<2x2xi32>, tensor<2x2x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// resize: offset 0 is `asymmetric`, offset (d - n) / 2 is `half_pixel`; the
// coordinate scale is n / d; nearest rounds halves up.
// CHECK-LABEL: func.func @resize
// CHECK: top.Resize(%{{.*}}) {coordinate_scales = array<f64: 1.000000e+00, 2.000000e+00, 2.000000e+00, 1.000000e+00>, coordinate_transformation_mode = #top.coordinate_mode<asymmetric>, nearest_mode = #top.nearest_mode<round_prefer_ceil>, sizes = array<i64: 1, 6, 8, 2>}
// CHECK: top.Resize(%{{.*}}) {coordinate_scales = array<f64: 1.000000e+00, 2.000000e+00, 3.000000e+00, 1.000000e+00>, mode = #top.interpolation<linear>, nearest_mode = #top.nearest_mode<round_prefer_ceil>, sizes = array<i64: 1, 6, 12, 2>}
func.func @resize(%a: tensor<1x3x4x2xf32>) -> (tensor<1x6x8x2xf32>, tensor<1x6x12x2xf32>) {
  %s = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.resize %a, %s, %o, %b {mode = #tosa.resize_mode<NEAREST_NEIGHBOR>} : (tensor<1x3x4x2xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6x8x2xf32>
  %s2 = tosa.const_shape {values = dense<[4, 2, 6, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o2 = tosa.const_shape {values = dense<[-1, -2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b2 = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.resize %a, %s2, %o2, %b2 {mode = #tosa.resize_mode<BILINEAR>} : (tensor<1x3x4x2xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6x12x2xf32>
  return %0, %1 : tensor<1x6x8x2xf32>, tensor<1x6x12x2xf32>
}
