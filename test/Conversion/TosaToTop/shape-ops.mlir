// RUN: strata-opt %s --split-input-file --convert-tosa-to-top --verify-diagnostics | FileCheck %s
// TOSA's shape ops are evaluated where they compute a constant shape (from
// tosa.const_shape and static dims) and read like tosa.const_shape; each case
// reshapes a tensor<24xf32> to [x, 4] with x computed by one shape op.

// CHECK-LABEL: func.func @add_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @add_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.add_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @sub_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @sub_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.sub_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @mul_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @mul_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[3]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.mul_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @div_floor_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @div_floor_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[13]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.div_floor_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @div_ceil_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @div_ceil_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[11]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.div_ceil_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @mod_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @mod_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[20]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[7]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.mod_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @max_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @max_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[6]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.max_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @min_shape
// CHECK-NOT: tosa.
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @min_shape(%t: tensor<24xf32>) -> tensor<6x4xf32> {
  %a = tosa.const_shape {values = dense<[6]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %b = tosa.const_shape {values = dense<[9]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.min_shape %a, %b : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----
// CHECK-LABEL: func.func @exp2_shape
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 8, 3>}
func.func @exp2_shape(%t: tensor<24xf32>) -> tensor<8x3xf32> {
  %a = tosa.const_shape {values = dense<[3]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.const_shape {values = dense<[3]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.exp2_shape %a : (!tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %y : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----
// CHECK-LABEL: func.func @log2_ceil_shape
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 3, 8>}
func.func @log2_ceil_shape(%t: tensor<24xf32>) -> tensor<3x8xf32> {
  %a = tosa.const_shape {values = dense<[5]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.log2_ceil_shape %a : (!tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %y : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----
// CHECK-LABEL: func.func @log2_floor_shape
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 3, 8>}
func.func @log2_floor_shape(%t: tensor<24xf32>) -> tensor<3x8xf32> {
  %a = tosa.const_shape {values = dense<[9]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %x = tosa.log2_floor_shape %a : (!tosa.shape<1>) -> !tosa.shape<1>
  %s = tosa.concat_shape %x, %y : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<24xf32>, !tosa.shape<2>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----
// dim reads a static dim; slice_shape takes [start, start + size).
// CHECK-LABEL: func.func @dim_slice
// CHECK: top.Reshape(%{{.*}}) {shape = array<i64: 6, 4>}
func.func @dim_slice(%t: tensor<1x6x4xf32>) -> tensor<6x4xf32> {
  %d1 = tosa.dim %t {axis = 1 : i32} : (tensor<1x6x4xf32>) -> !tosa.shape<1>
  %d2 = tosa.dim %t {axis = 2 : i32} : (tensor<1x6x4xf32>) -> !tosa.shape<1>
  %d0 = tosa.dim %t {axis = 0 : i32} : (tensor<1x6x4xf32>) -> !tosa.shape<1>
  %all = tosa.concat_shape %d0, %d1, %d2 : (!tosa.shape<1>, !tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<3>
  %st = "tosa.const"() {values = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %sz = "tosa.const"() {values = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = tosa.slice_shape %all, %st, %sz : (!tosa.shape<3>, tensor<1xi32>, tensor<1xi32>) -> !tosa.shape<2>
  %0 = tosa.reshape %t, %s : (tensor<1x6x4xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// A dim that is not static cannot be read.
func.func @dynamic_dim(%t: tensor<?x4xf32>) -> tensor<?xf32> {
  %d0 = tosa.dim %t {axis = 0 : i32} : (tensor<?x4xf32>) -> !tosa.shape<1>
  %four = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %s = tosa.mul_shape %d0, %four : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<1>
  // expected-error @+1 {{'tosa.reshape' shape: must be a constant (tosa.const or tosa.const_shape)}}
  %0 = tosa.reshape %t, %s : (tensor<?x4xf32>, !tosa.shape<1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
