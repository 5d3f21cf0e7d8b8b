// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// Reshapes whose dims group are one collapse or expand; others go through a
// 1-D view.
// CHECK-LABEL: func.func @reshapes
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [1, 2, 12] : tensor<2x12xf32> into tensor<1x2x12xf32>
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<1x2x12xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
func.func @reshapes(%a: tensor<2x3x4xf32>, %axes: tensor<1xi64>) -> tensor<3x8xf32> {
  %0 = top.Reshape(%a) {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = top.Unsqueeze(%0, %axes) : (tensor<2x12xf32>, tensor<1xi64>) -> tensor<1x2x12xf32>
  %2 = top.Reshape(%1) {shape = array<i64: 3, 8>} : (tensor<1x2x12xf32>) -> tensor<3x8xf32>
  return %2 : tensor<3x8xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x3x1x4xi8> into tensor<3x4xi8>
func.func @squeeze(%a: tensor<1x3x1x4xui8>, %axes: tensor<2xi64>) -> tensor<3x4xui8> {
  %0 = top.Squeeze(%a, %axes) : (tensor<1x3x1x4xui8>, tensor<2xi64>) -> tensor<3x4xui8>
  return %0 : tensor<3x4xui8>
}

// -----

func.func @reshape_dynamic(%a: tensor<2x3xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Reshape'}}
  %0 = top.Reshape(%a, %s) {shape = array<i64>} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @permute
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x8x8x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x3x8x8xf32>) outs(%[[E]] : tensor<1x8x8x3xf32>) permutation = [0, 2, 3, 1]
func.func @permute(%a: tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32> {
  %0 = top.Permute(%a) {order = array<i64: 0, 2, 3, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// -----

// Concat reads each position from the input covering it (an scf.if chain
// over the non-empty inputs; the empty one is skipped but still counted).
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<1x2x4xf32>, %{{.*}}: tensor<1x0x4xf32>, %[[B:.*]]: tensor<1x3x4xf32>)
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[J]], %[[C2]]
// CHECK: scf.if %[[LT]] -> (f32)
// CHECK: tensor.extract %[[A]]
// CHECK: } else {
// CHECK: arith.subi %[[J]]
// CHECK: tensor.extract %[[B]]
// CHECK-NOT: tensor.insert_slice
func.func @concat(%a: tensor<1x2x4xf32>, %e: tensor<1x0x4xf32>, %b: tensor<1x3x4xf32>) -> tensor<1x5x4xf32> {
  %0 = top.Concat(%a, %e, %b) {axis = -2 : i64} : (tensor<1x2x4xf32>, tensor<1x0x4xf32>, tensor<1x3x4xf32>) -> tensor<1x5x4xf32>
  return %0 : tensor<1x5x4xf32>
}

// -----

// Split copies each window with a loop nest (no strided views).
// CHECK-LABEL: func.func @split
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.*}} : tensor<2x4xf32>
// CHECK: } -> tensor<2x1xf32>
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: arith.addi %[[J]], %[[C1]]
// CHECK: tensor.extract %{{.*}} : tensor<2x4xf32>
// CHECK: } -> tensor<2x3xf32>
func.func @split(%x: tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x3xf32>) {
  %0:2 = top.Split(%x) {axis = -1 : i64, split = array<i64: 1, 3>} : (tensor<2x4xf32>) -> (tensor<2x1xf32>, tensor<2x3xf32>)
  return %0#0, %0#1 : tensor<2x1xf32>, tensor<2x3xf32>
}

// -----

// Slice reads `start + step * i` (negative starts count from the back, ends
// are clamped), clamped into the dim.
// CHECK-LABEL: func.func @slice_positive
// CHECK: linalg.generic
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[S:.*]] = arith.constant 2 : index
// CHECK: %[[M:.*]] = arith.muli %[[J]], %[[S]]
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: arith.addi %[[M]], %[[C1]]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}} : tensor<2x5xf32>
func.func @slice_positive(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  %0 = top.Slice(%x) {starts = array<i64: -4>, ends = array<i64: 100>, axes = array<i64: 1>, steps = array<i64: 2>} : (tensor<2x5xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A negative step reads backward.
// CHECK-LABEL: func.func @slice_negative
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[S:.*]] = arith.constant -1 : index
// CHECK: %[[M:.*]] = arith.muli %[[J]], %[[S]]
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: arith.addi %[[M]], %[[C4]]
func.func @slice_negative(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = top.Slice(%x) {starts = array<i64: -1>, ends = array<i64: -9223372036854775808>, axes = array<i64: 1>, steps = array<i64: -1>} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @slice_runtime(%x: tensor<2x5xf32>, %b: tensor<4x1xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Slice'}}
  %0 = top.Slice(%x, %b) {starts = array<i64>, ends = array<i64>} : (tensor<2x5xf32>, tensor<4x1xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Constant pads: the value (saturated in the element type) where the
// source index `o - begin` leaves its dim (unsigned compare), else the
// input read at the clamped index; negative pads crop.
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[V:.*]] = arith.constant 127 : i8
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[S:.*]] = arith.subi %[[I]], %{{.*}}
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[S]], %{{.*}}
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[CM1:.*]] = arith.constant -1 : index
// CHECK: arith.subi %[[J]], %[[CM1]]
// CHECK: %[[IN1:.*]] = arith.cmpi ult
// CHECK: %[[IN:.*]] = arith.andi %[[IN0]], %[[IN1]]
// CHECK: %[[X:.*]] = tensor.extract %{{.*}} : tensor<2x4xi8>
// CHECK: arith.select %[[IN]], %[[X]], %[[V]] : i8
func.func @pad_constant(%x: tensor<2x4xi8>) -> tensor<3x5xi8> {
  %0 = top.Pad(%x) {pads = array<i64: 1, -1, 0, 2>, value = 300.0 : f64} : (tensor<2x4xi8>) -> tensor<3x5xi8>
  return %0 : tensor<3x5xi8>
}

// -----

// Reflect: the source index of `o - begin` mirrored at the borders, then
// clamped into the dim, read with tensor.extract.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK: linalg.index 1
// CHECK: arith.subi
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x4xf32>
func.func @pad_reflect(%x: tensor<2x4xf32>) -> tensor<2x7xf32> {
  %0 = top.Pad(%x) {pads = array<i64: 0, 1, 0, 2>, mode = #top.pad_mode<reflect>} : (tensor<2x4xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// CHECK-LABEL: func.func @pad_wrap
// CHECK: arith.remsi
func.func @pad_wrap(%x: tensor<2x4xf32>) -> tensor<2x9xf32> {
  %0 = top.Pad(%x) {pads = array<i64: 0, 2, 0, 3>, mode = #top.pad_mode<wrap>} : (tensor<2x4xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

func.func @pad_runtime(%x: tensor<2x4xf32>, %p: tensor<4xi64>) -> tensor<3x5xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Pad'}}
  %0 = top.Pad(%x, %p) {pads = array<i64>} : (tensor<2x4xf32>, tensor<4xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @tile
// CHECK: %[[B:.*]] = linalg.broadcast ins(%{{.*}} : tensor<3x4xf32>) outs(%{{.*}} : tensor<2x3x1x4xf32>) dimensions = [0, 2]
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2, 3]] : tensor<2x3x1x4xf32> into tensor<6x4xf32>
func.func @tile(%x: tensor<3x4xf32>) -> tensor<6x4xf32> {
  %0 = top.Tile(%x) {repeats = array<i64: 2, 1>} : (tensor<3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// CHECK: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @expand
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.*}}]
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = top.Expand(%x) {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// DepthToSpace DCR: [N, b, b, C', H, W] transposed to [N, C', H, b, W, b].
// CHECK-LABEL: func.func @depth_to_space
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4], [5]] output_shape [1, 2, 2, 2, 2, 3] : tensor<1x8x2x3xf32> into tensor<1x2x2x2x2x3xf32>
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 4, 1, 5, 2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x2x2x2x3x2xf32> into tensor<1x2x4x6xf32>
func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %0 = top.DepthToSpace(%x) {blocksize = 2 : i64} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  return %0 : tensor<1x2x4x6xf32>
}

// -----

// CHECK-LABEL: func.func @space_to_depth
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 5, 1, 2, 4]
func.func @space_to_depth(%x: tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32> {
  %0 = top.SpaceToDepth(%x) {blocksize = 2 : i64} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  return %0 : tensor<1x8x2x3xf32>
}

// -----

// Gather: the index is wrapped (+ dim when negative), clamped into
// [0, dim - 1] and read with tensor.extract; unsigned indices zero-extend.
// CHECK: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gather
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.*}}]
// CHECK: ^bb0(%[[I:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[X:.*]] = arith.index_castui %[[I]] : i32 to index
// CHECK: arith.cmpi slt, %[[X]]
// CHECK: arith.addi %[[X]]
// CHECK: arith.select
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<10x4xf32>
func.func @gather(%x: tensor<10x4xf32>, %i: tensor<2x3xui32>) -> tensor<2x3x4xf32> {
  %0 = top.Gather(%x, %i) {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xui32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @gather_empty_dim(%x: tensor<0x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Gather'}}
  %0 = top.Gather(%x, %i) {axis = 0 : i64} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @gather_elements
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<3x5xf32>
func.func @gather_elements(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = top.GatherElements(%d, %i) {axis = 1 : i64} : (tensor<3x5xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// GatherND reads the row's indices with tensor.extract from `indices`.
// CHECK-LABEL: func.func @gather_nd
// CHECK: linalg.generic
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x1xi64>
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<2x2x2xi32>
func.func @gather_nd(%d: tensor<2x2x2xi32>, %i: tensor<2x1xi64>) -> tensor<2x2xi32> {
  %0 = top.GatherND(%d, %i) {batch_dims = 1 : i64} : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Scatters loop over the updates in row-major order, carrying the result.
// CHECK-LABEL: func.func @scatter_elements_add
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tensor.extract %{{.*}} : tensor<3x2xf32>
// CHECK: tensor.extract %{{.*}} : tensor<3x2xi64>
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}} : tensor<3x5xf32>
// CHECK: arith.addf
// CHECK: tensor.insert
func.func @scatter_elements_add(%d: tensor<3x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x5xf32> {
  %0 = top.ScatterElements(%d, %i, %u) {axis = 1 : i64, reduction = #top.scatter_reduction<add>} : (tensor<3x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// f16 reductions run in f32 and round once at the end.
// CHECK-LABEL: func.func @scatter_nd_max_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: scf.for
// CHECK: arith.cmpf olt
// CHECK: tensor.insert %{{.*}} : tensor<4x4xf32>
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @scatter_nd_max_f16(%d: tensor<4x4xf16>, %i: tensor<2x1xi64>, %u: tensor<2x4xf16>) -> tensor<4x4xf16> {
  %0 = top.ScatterND(%d, %i, %u) {reduction = #top.scatter_reduction<max>} : (tensor<4x4xf16>, tensor<2x1xi64>, tensor<2x4xf16>) -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

// CHECK-LABEL: func.func @scatter_nd_none
// CHECK-NOT: arith.extf
// CHECK: scf.for
// CHECK-NOT: tensor.extract %{{.*}} : tensor<4x4xf16>
// CHECK: tensor.insert %{{.*}} : tensor<4x4xf16>
func.func @scatter_nd_none(%d: tensor<4x4xf16>, %i: tensor<2x2xi64>, %u: tensor<2xf16>) -> tensor<4x4xf16> {
  %0 = top.ScatterND(%d, %i, %u) : (tensor<4x4xf16>, tensor<2x2xi64>, tensor<2xf16>) -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}

// -----

// CHECK-LABEL: func.func @trilu_runtime
// CHECK: %[[K:.*]] = tensor.extract %{{.*}}[] : tensor<i32>
// CHECK: %[[K64:.*]] = arith.extsi %[[K]] : i32 to i64
// CHECK: linalg.generic
// CHECK: arith.subi
// CHECK: arith.cmpi sle, %{{.*}}, %[[K64]]
// CHECK: arith.select
func.func @trilu_runtime(%x: tensor<2x3x4xf32>, %k: tensor<si32>) -> tensor<2x3x4xf32> {
  %0 = top.Trilu(%x, %k) {upper = false} : (tensor<2x3x4xf32>, tensor<si32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// OneHot compares a float index in f64 before truncating it.
// CHECK-LABEL: func.func @one_hot
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<2xf32>
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf olt
// CHECK: arith.fptosi
// CHECK: linalg.index 1
// CHECK: arith.select
func.func @one_hot(%i: tensor<3xf32>, %v: tensor<2xf32>) -> tensor<3x10xf32> {
  %none = top.None() : () -> none
  %0 = top.OneHot(%i, %v, %none) {depth = 10 : i64, axis = -1 : i64} : (tensor<3xf32>, tensor<2xf32>, none) -> tensor<3x10xf32>
  return %0 : tensor<3x10xf32>
}

// -----

// CHECK: #[[LEN:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reverse_sequence
// CHECK: linalg.generic {indexing_maps = [#[[LEN]], #{{.*}}]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: arith.cmpi slt
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<4x3xf32>
func.func @reverse_sequence(%x: tensor<4x3xf32>, %l: tensor<3xi64>) -> tensor<4x3xf32> {
  %0 = top.ReverseSequence(%x, %l) {batch_axis = 1 : i64, time_axis = 0 : i64} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Resize: f64 compute, one generic per resized dim with constant index and
// weight tables, converted back through f32.
// CHECK-LABEL: func.func @resize_linear
// CHECK: arith.extf %{{.*}} : f16 to f64
// CHECK-DAG: arith.constant dense<{{.*}}> : tensor<8x2xi64>
// CHECK-DAG: arith.constant dense<{{.*}}> : tensor<8x2xf64>
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.cmpf oeq
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @resize_linear(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x4x8xf16> {
  %0 = top.Resize(%x) {mode = #top.interpolation<linear>, scales = array<f64: 1.0, 1.0, 1.0, 2.0>} : (tensor<1x1x4x4xf16>) -> tensor<1x1x4x8xf16>
  return %0 : tensor<1x1x4x8xf16>
}

// -----

// Integer results saturate; tf_crop_and_resize selects the extrapolation
// value where the coordinate leaves the input.
// CHECK-LABEL: func.func @resize_crop_int
// CHECK: arith.constant dense<{{.*}}> : tensor<3xi1>
// CHECK: arith.cmpf uno
// CHECK: arith.fptoui
func.func @resize_crop_int(%x: tensor<4xui8>) -> tensor<3xui8> {
  %0 = top.Resize(%x) {mode = #top.interpolation<linear>, coordinate_transformation_mode = #top.coordinate_mode<tf_crop_and_resize>, sizes = array<i64: 3>, roi = array<f64: -0.5, 1.5>, extrapolation_value = 7.0 : f64} : (tensor<4xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

func.func @resize_runtime_scales(%x: tensor<4xf32>, %s: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Resize'}}
  %0 = top.Resize(%x, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
