// RUN: strata-opt %s -split-input-file --strata-cpu-outline-dispatches | FileCheck %s

// An int8 Add as top-quantize writes it (Requant, Requant, i32 Add,
// Requant) is one dispatch, outlined where its last Requant was: the tile
// loop computes it without int32 buffers (fusableInt8Chain).

!qa = !quant.uniform<i8:f32, 0.02:-22>
!qb = !quant.uniform<i8:f32, 0.01:3>
!qy = !quant.uniform<i8:f32, 0.04:-128>

// CHECK-LABEL: func.func private @dispatch_2_Requant
// CHECK-SAME: (%[[A:.*]]: tensor<1x2x4x4x!quant.uniform<i8:f32, 2.000000e-02:-22>>, %[[B:.*]]: tensor<1x2x4x4x!quant.uniform<i8:f32, 1.000000e-02:3>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 4.000000e-02:-128>>
// CHECK-SAME: strata.fuse_elementwise
// CHECK-NEXT: %[[IA:.*]] = top.Requant(%[[A]])
// CHECK-NEXT: %[[IB:.*]] = top.Requant(%[[B]])
// CHECK-NEXT: %[[S:.*]] = top.Add(%[[IA]], %[[IB]]) {do_relu = true}
// CHECK-NEXT: %[[Y:.*]] = top.Requant(%[[S]])
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @main
// CHECK-COUNT-2: call @dispatch_{{[01]}}_Quant
// CHECK-NEXT: call @dispatch_2_Requant
// CHECK-NOT: top.Requant
// CHECK: call @dispatch_3_Dequant
func.func @main(%arg0: tensor<1x2x4x4xf32> {top.name = "x"}) -> (tensor<1x2x4x4xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = top.Quant(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!qa>
  %b = top.Quant(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!qb>
  %ia = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x2x4x4x!qa>) -> tensor<1x2x4x4xi32>
  %ib = top.Requant(%b) {multiplier = array<i64: 1073741824>, rshift = array<i64: 11>} : (tensor<1x2x4x4x!qb>) -> tensor<1x2x4x4xi32>
  %s = top.Add(%ia, %ib) {do_relu = true} : (tensor<1x2x4x4xi32>, tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi32>
  %yq = top.Requant(%s) {multiplier = array<i64: 1073741824>, rshift = array<i64: 52>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!qy>
  %y = top.Dequant(%yq) : (tensor<1x2x4x4x!qy>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// GlobalAvgPool: Requant (x - zp), Reduce sum, Requant (mean), Requant.

!qa = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>

// CHECK-LABEL: func.func private @dispatch_1_Requant
// CHECK-NEXT: top.Requant
// CHECK-NEXT: top.Reduce
// CHECK-NEXT: top.Requant
// CHECK-NEXT: top.Requant
// CHECK-NEXT: return
func.func @main(%arg0: tensor<1x2x4x4xf32> {top.name = "x"}) -> (tensor<1x2x1x1xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = top.Quant(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!qa>
  %c = top.Requant(%a) {multiplier = array<i64: 1>, rshift = array<i64: 0>} : (tensor<1x2x4x4x!qa>) -> tensor<1x2x4x4xi32>
  %s = top.Reduce(%c) {axes = array<i64: 2, 3>, mode = #top.reduce_mode<ReduceSum>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x1x1xi32>
  %m = top.Requant(%s) {multiplier = array<i64: 8192>, rshift = array<i64: 17>} : (tensor<1x2x1x1xi32>) -> tensor<1x2x1x1xi32>
  %yq = top.Requant(%m) {multiplier = array<i64: 1073741824>, rshift = array<i64: 31>} : (tensor<1x2x1x1xi32>) -> tensor<1x2x1x1x!qy>
  %y = top.Dequant(%yq) : (tensor<1x2x1x1x!qy>) -> tensor<1x2x1x1xf32>
  return %y : tensor<1x2x1x1xf32>
}

// -----

// The sum has a second user: no chain, four dispatches.

!qa = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>

// CHECK-LABEL: func.func private @dispatch_2_Requant
// CHECK-NOT: top.Add
// CHECK: return
// CHECK-LABEL: func.func private @dispatch_3_Requant
// CHECK-LABEL: func.func private @dispatch_4_Add
// CHECK-LABEL: func.func private @dispatch_5_Requant
func.func @main(%arg0: tensor<1x2x4x4xf32> {top.name = "x"}) -> (tensor<1x2x4x4x!qy> {top.name = "y"}, tensor<1x2x4x4xi32> {top.name = "s"}) {
  %x = top.Input(%arg0) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %a = top.Quant(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!qa>
  %b = top.Quant(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!qa>
  %ia = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x2x4x4x!qa>) -> tensor<1x2x4x4xi32>
  %ib = top.Requant(%b) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x2x4x4x!qa>) -> tensor<1x2x4x4xi32>
  %s = top.Add(%ia, %ib) : (tensor<1x2x4x4xi32>, tensor<1x2x4x4xi32>) -> tensor<1x2x4x4xi32>
  %yq = top.Requant(%s) {multiplier = array<i64: 1073741824>, rshift = array<i64: 52>} : (tensor<1x2x4x4xi32>) -> tensor<1x2x4x4x!qy>
  return %yq, %s : tensor<1x2x4x4x!qy>, tensor<1x2x4x4xi32>
}
