// An outlined int8 Add chain (Requant, Requant, i32 Add, Requant) runs the
// add_requant_i8 kernel: params count, a (unsigned, zp, multiplier, shift),
// b (the same), relu, out_kind, multiplier, shift, zp, qmin, qmax; the
// result written in place of input a.
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'add_requant_i8': 1 dispatch(es)

// CHECK: cpu kernel 'add_requant_i8', {{.*}} params [35, 0, -22, 1073741824, 10, 0, 3, 1073741824, 11, 1, 1, 1073741824, 52, -128, -128, 127]
// CHECK-NEXT: binding 0: buffer [[A:[0-9]+]] (arena
// CHECK-NEXT: binding 1: buffer {{[0-9]+}} (arena
// CHECK-NEXT: binding 2: buffer [[A]] (arena

!qa = !quant.uniform<i8:f32, 0.02:-22>
!qb = !quant.uniform<i8:f32, 0.01:3>
!qy = !quant.uniform<i8:f32, 0.04:-128>

func.func @main(%arg0: tensor<1x5x7x1xf32> {top.name = "x"}) -> (tensor<1x5x7x1xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1xf32>
  %a = top.Quant(%x) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1x!qa>
  %b = top.Quant(%x) : (tensor<1x5x7x1xf32>) -> tensor<1x5x7x1x!qb>
  %ia = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 10>} : (tensor<1x5x7x1x!qa>) -> tensor<1x5x7x1xi32>
  %ib = top.Requant(%b) {multiplier = array<i64: 1073741824>, rshift = array<i64: 11>} : (tensor<1x5x7x1x!qb>) -> tensor<1x5x7x1xi32>
  %s = top.Add(%ia, %ib) {do_relu = true} : (tensor<1x5x7x1xi32>, tensor<1x5x7x1xi32>) -> tensor<1x5x7x1xi32>
  %yq = top.Requant(%s) {multiplier = array<i64: 1073741824>, rshift = array<i64: 52>} : (tensor<1x5x7x1xi32>) -> tensor<1x5x7x1x!qy>
  %y = top.Dequant(%yq) : (tensor<1x5x7x1x!qy>) -> tensor<1x5x7x1xf32>
  return %y : tensor<1x5x7x1xf32>
}
