// RUN: strata-opt %s -split-input-file --convert-top-to-linalg --verify-diagnostics | FileCheck %s

// top.If: scf.if on the extracted i1; the branches' Top ops are converted in
// place and top.Yield becomes scf.yield. Unsigned results compute signless.
// CHECK-LABEL: func.func @if_static
// CHECK-SAME: (%[[C:.*]]: tensor<1xi1>, %[[X:.*]]: tensor<4xf32>, %[[K:.*]]: tensor<3xi8>, %{{.*}}: tensor<3xi8>)
// CHECK: %[[B:.*]] = tensor.extract %[[C]][%{{.*}}] : tensor<1xi1>
// CHECK: %[[R:.*]]:2 = scf.if %[[B]] -> (tensor<4xf32>, tensor<3xi8>) {
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: arith.cmpf olt
// CHECK: %[[KK:.*]] = linalg.generic
// CHECK: arith.maxui
// CHECK: scf.yield %[[A]], %[[KK]] : tensor<4xf32>, tensor<3xi8>
// CHECK: } else {
// CHECK: arith.addf
// CHECK: scf.yield %{{.*}}, %[[K]] : tensor<4xf32>, tensor<3xi8>
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-NOT: top.
func.func @if_static(%c: tensor<1xi1>, %x: tensor<4xf32>, %k: tensor<3xui8>, %k2: tensor<3xui8>) -> (tensor<4xf32>, tensor<3xui8>) {
  %r, %q = top.If %c : tensor<1xi1> -> (tensor<4xf32>, tensor<3xui8>) then {
    %a = top.Relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %kk = top.Max(%k, %k2) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    top.Yield %a, %kk : tensor<4xf32>, tensor<3xui8>
  } else {
    %b = top.Add(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    top.Yield %b, %k : tensor<4xf32>, tensor<3xui8>
  }
  return %r, %q : tensor<4xf32>, tensor<3xui8>
}

// -----

// A result whose shape the run decides cannot be compiled.
func.func @if_dynamic_result(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<6xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.If'}}
  %r = top.If %c : tensor<i1> -> (tensor<?xf32>) then {
    top.Yield %x : tensor<4xf32>
  } else {
    top.Yield %y : tensor<6xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// A static result but a branch yielding a dynamic type.
func.func @if_dynamic_yield(%c: tensor<i1>, %x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.If'}}
  %r = top.If %c : tensor<i1> -> (tensor<4xf32>) then {
    top.Yield %x : tensor<?xf32>
  } else {
    top.Yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// top.Loop with carried values only: scf.while over (iteration, cond,
// carried); the body runs in an scf.execute_region and gets its iteration
// number as a tensor<i64> and cond = true; the new carried value is copied
// into the iteration argument's tensor.
// CHECK-LABEL: func.func @loop_carried
// CHECK-SAME: (%[[M:.*]]: tensor<i64>, %[[C:.*]]: tensor<i1>, %[[Y0:.*]]: tensor<3xf32>, %[[X:.*]]: tensor<3xf32>)
// CHECK: %[[MAX:.*]] = tensor.extract %[[M]][] : tensor<i64>
// CHECK: %[[C0:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[INIT:.*]] = linalg.copy ins(%[[Y0]] : tensor<3xf32>)
// CHECK: %[[W:.*]]:4 = scf.while (%[[I:.*]] = %[[ZERO]], %[[CI:.*]] = %[[C0]], %[[YI:.*]] = %[[INIT]], %{{.*}} = %{{.*}}) : (i64, i1, tensor<3xf32>, tensor<i64>) -> (i64, i1, tensor<3xf32>, tensor<i64>) {
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[I]], %[[MAX]] : i64
// CHECK: %[[GO:.*]] = arith.andi %[[LT]], %[[CI]] : i1
// CHECK: scf.condition(%[[GO]]) %[[I]], %[[CI]], %[[YI]],
// CHECK: } do {
// CHECK: ^bb0(%[[I2:.*]]: i64, %{{.*}}: i1, %[[Y2:.*]]: tensor<3xf32>, %{{.*}}: tensor<i64>):
// CHECK: %[[IT:.*]] = tensor.from_elements %[[I2]] : tensor<i64>
// CHECK: %[[E:.*]]:3 = scf.execute_region -> (tensor<i1>, tensor<3xf32>, tensor<i64>) {
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[Y2]], %[[X]]
// CHECK: scf.yield %{{.*}}, %[[N]], %[[IT]] : tensor<i1>, tensor<3xf32>, tensor<i64>
// CHECK: }
// CHECK: %[[NEXT:.*]] = arith.addi %[[I2]]
// CHECK: %[[CN:.*]] = tensor.extract %[[E]]#0[]
// CHECK: %[[COPY:.*]] = linalg.copy ins(%[[E]]#1 : tensor<3xf32>) outs(%[[Y2]] : tensor<3xf32>)
// CHECK: scf.yield %[[NEXT]], %[[CN]], %[[COPY]], %{{.*}} : i64, i1, tensor<3xf32>, tensor<i64>
// CHECK: return %[[W]]#2, %[[W]]#3
func.func @loop_carried(%m: tensor<i64>, %c: tensor<i1>, %y0: tensor<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<i64>) {
  %y, %last = top.Loop(%m, %c, %y0, %m) : (tensor<i64>, tensor<i1>, tensor<3xf32>, tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>, %li: tensor<i64>):
    %n = top.Add(%yi, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    top.Yield %ci, %n, %i : tensor<i1>, tensor<3xf32>, tensor<i64>
  }
  return %y, %last : tensor<3xf32>, tensor<i64>
}

// -----

// Without max_trip_count and cond: bounded by INT64_MAX, starting true.
// CHECK-LABEL: func.func @loop_unbounded
// CHECK-DAG: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[TRUE]], %{{.*}} = %{{.*}})
// CHECK: arith.cmpi slt, %{{.*}}, %[[MAX]] : i64
func.func @loop_unbounded(%y0: tensor<f32>, %go: tensor<i1>) -> tensor<f32> {
  %none = top.None() : () -> none
  %y = top.Loop(%none, %none, %y0) : (none, none, tensor<f32>) -> (tensor<f32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<f32>):
    %n = top.Add(%yi, %yi) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    top.Yield %go, %n : tensor<i1>, tensor<f32>
  }
  return %y : tensor<f32>
}

// -----

// Scan outputs with a compile-time trip count: one buffer row per
// iteration, inserted at the iteration number.
// CHECK-LABEL: func.func @loop_constant_trips_scan
// CHECK: %[[BUF:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK: scf.while ({{.*}}, %{{.*}} = %[[BUF]]) : (i64, i1, tensor<3xf32>, tensor<4x3xf32>)
// CHECK: ^bb0(%[[I:.*]]: i64, %{{.*}}: i1, %{{.*}}: tensor<3xf32>, %[[S:.*]]: tensor<4x3xf32>):
// CHECK: %[[E:.*]]:3 = scf.execute_region
// CHECK: %[[ROW:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: tensor.insert_slice %[[E]]#2 into %[[S]][%[[ROW]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<4x3xf32>
func.func @loop_constant_trips_scan(%y0: tensor<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  %none = top.None() : () -> none
  %m = arith.constant dense<4> : tensor<i64>
  %y, %s = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    %n = top.Add(%yi, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    top.Yield %ci, %n, %n : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return %y, %s : tensor<3xf32>, tensor<4x3xf32>
}

// -----

// A scan output with a run-time trip count has no static shape.
func.func @loop_scan_runtime_trips(%m: tensor<i64>, %y0: tensor<3xf32>) -> tensor<?x3xf32> {
  %none = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.Loop'}}
  %y, %s = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %ci, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return %s : tensor<?x3xf32>
}

// -----

// A constant trip count does not help when the body's condition may stop
// the loop early.
func.func @loop_scan_may_stop_early(%y0: tensor<3xf32>, %go: tensor<i1>) -> tensor<4x3xf32> {
  %none = top.None() : () -> none
  %m = arith.constant dense<4> : tensor<i64>
  // expected-error @+1 {{failed to legalize operation 'top.Loop'}}
  %y, %s = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<4x3xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<3xf32>):
    top.Yield %go, %yi, %yi : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return %s : tensor<4x3xf32>
}

// -----

// A carried value whose shape changes across iterations.
func.func @loop_carried_dynamic(%m: tensor<i64>, %y0: tensor<?xf32>) -> tensor<?xf32> {
  %none = top.None() : () -> none
  // expected-error @+1 {{failed to legalize operation 'top.Loop'}}
  %y = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<?xf32>) -> (tensor<?xf32>) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<?xf32>):
    top.Yield %ci, %yi : tensor<i1>, tensor<?xf32>
  }
  return %y : tensor<?xf32>
}

// -----

// top.Scan: scf.for over the scan axis. A reverse input reads slice
// length-1-t; outputs stack along a leading dim (reversed likewise) and are
// transposed to their axis after the loop.
// CHECK-LABEL: func.func @scan
// CHECK-SAME: (%[[INIT:.*]]: tensor<5x3xf32>, %[[X:.*]]: tensor<5x4x3xf32>)
// CHECK: %[[S0:.*]] = linalg.copy ins(%[[INIT]] : tensor<5x3xf32>)
// CHECK: %[[Z0:.*]] = tensor.empty() : tensor<4x5x3xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[F:.*]]:2 = scf.for %[[T:[^ ]+]] = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[S:.*]] = %[[S0]], %[[Z:.*]] = %[[Z0]])
// CHECK: %[[REV:.*]] = arith.subi %[[C3]], %[[T]] : index
// CHECK: %[[XI:.*]] = tensor.extract_slice %[[X]][0, %[[REV]], 0] [5, 1, 3] [1, 1, 1] : tensor<5x4x3xf32> to tensor<5x3xf32>
// CHECK: %[[E:.*]]:2 = scf.execute_region -> (tensor<5x3xf32>, tensor<5x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[XI]]
// CHECK: %[[ZN:.*]] = tensor.insert_slice %[[E]]#1 into %[[Z]][%[[T]], 0, 0] [1, 5, 3] [1, 1, 1]
// CHECK: %[[SN:.*]] = linalg.copy ins(%[[E]]#0 : tensor<5x3xf32>) outs(%[[S]] : tensor<5x3xf32>)
// CHECK: scf.yield %[[SN]], %[[ZN]]
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<5x3x4xf32>
// CHECK: %[[TR:.*]] = linalg.transpose ins(%[[F]]#1 : tensor<4x5x3xf32>) outs(%[[OUT]] : tensor<5x3x4xf32>) permutation = [1, 2, 0]
// CHECK: return %[[F]]#0, %[[TR]]
func.func @scan(%init: tensor<5x3xf32>, %x: tensor<5x4x3xf32>) -> (tensor<5x3xf32>, tensor<5x3x4xf32>) {
  %s, %z = top.Scan(%init, %x) {num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>, scan_output_axes = array<i64: -1>} : (tensor<5x3xf32>, tensor<5x4x3xf32>) -> (tensor<5x3xf32>, tensor<5x3x4xf32>) {
  ^bb0(%acc: tensor<5x3xf32>, %xi: tensor<5x3xf32>):
    %n = top.Add(%acc, %xi) : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
    top.Yield %n, %n : tensor<5x3xf32>, tensor<5x3xf32>
  }
  return %s, %z : tensor<5x3xf32>, tensor<5x3x4xf32>
}

// -----

// A reverse output writes row length-1-t.
// CHECK-LABEL: func.func @scan_reverse_output
// CHECK: scf.for %[[T:[^ ]+]] =
// CHECK: %[[REV:.*]] = arith.subi %{{.*}}, %[[T]] : index
// CHECK: tensor.extract_slice %{{.*}}[%[[T]], 0] [1, 4]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%[[REV]], 0] [1, 4]
func.func @scan_reverse_output(%x: tensor<3x4xi8>) -> tensor<3x4xi8> {
  %z = top.Scan(%x) {num_scan_inputs = 1 : i64, scan_output_directions = array<i64: 1>} : (tensor<3x4xi8>) -> (tensor<3x4xi8>) {
  ^bb0(%xi: tensor<4xi8>):
    top.Yield %xi : tensor<4xi8>
  }
  return %z : tensor<3x4xi8>
}

// -----

// Dynamic scan inputs have no static scan length.
func.func @scan_dynamic(%init: tensor<3xf32>, %x: tensor<?x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{failed to legalize operation 'top.Scan'}}
  %s = top.Scan(%init, %x) {num_scan_inputs = 1 : i64} : (tensor<3xf32>, tensor<?x3xf32>) -> (tensor<3xf32>) {
  ^bb0(%acc: tensor<3xf32>, %xi: tensor<3xf32>):
    %n = top.Add(%acc, %xi) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    top.Yield %n : tensor<3xf32>
  }
  return %s : tensor<3xf32>
}

// -----

// Unsigned body arguments become signless like the loop values; the body's
// ops keep their unsigned semantics (maxui).
// CHECK-LABEL: func.func @scan_unsigned_state
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<3x4xi8>) -> (tensor<4xi8>, tensor<3x4xi8>)
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<4xi8>, tensor<3x4xi8>)
// CHECK: %[[XI:.*]] = tensor.extract_slice
// CHECK: scf.execute_region -> (tensor<4xi8>, tensor<4xi8>)
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[XI]] : tensor<4xi8>, tensor<4xi8>)
// CHECK: arith.maxui
// CHECK: scf.yield %{{.*}}, %[[S]] : tensor<4xi8>, tensor<4xi8>
// CHECK: tensor.insert_slice
// CHECK: linalg.copy
// CHECK-NOT: unrealized_conversion_cast
func.func @scan_unsigned_state(%s0: tensor<4xui8>, %x: tensor<3x4xui8>) -> (tensor<4xui8>, tensor<3x4xui8>) {
  %s, %z = top.Scan(%s0, %x) {num_scan_inputs = 1 : i64} : (tensor<4xui8>, tensor<3x4xui8>) -> (tensor<4xui8>, tensor<3x4xui8>) {
  ^bb0(%a: tensor<4xui8>, %xi: tensor<4xui8>):
    %m = top.Max(%a, %xi) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
    top.Yield %m, %a : tensor<4xui8>, tensor<4xui8>
  }
  return %s, %z : tensor<4xui8>, tensor<3x4xui8>
}

// -----

// Region ops nest: an If inside a Scan body becomes an scf.if inside the
// loop's scf.execute_region, reading the step's slice and a value from
// above.
// CHECK-LABEL: func.func @if_in_scan
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<4x3xf32>)
// CHECK: scf.for
// CHECK: %[[XI:.*]] = tensor.extract_slice
// CHECK: scf.execute_region
// CHECK: %[[B:.*]] = tensor.extract %[[C]][] : tensor<i1>
// CHECK: scf.if %[[B]] -> (tensor<3xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[XI]]
// CHECK: scf.yield
// CHECK: } else {
// CHECK: scf.yield %[[XI]] : tensor<3xf32>
// CHECK-NOT: top.
func.func @if_in_scan(%c: tensor<i1>, %init: tensor<3xf32>, %x: tensor<4x3xf32>) -> tensor<3xf32> {
  %s = top.Scan(%init, %x) {num_scan_inputs = 1 : i64} : (tensor<3xf32>, tensor<4x3xf32>) -> (tensor<3xf32>) {
  ^bb0(%acc: tensor<3xf32>, %xi: tensor<3xf32>):
    %r = top.If %c : tensor<i1> -> (tensor<3xf32>) then {
      %n = top.Add(%acc, %xi) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      top.Yield %n : tensor<3xf32>
    } else {
      top.Yield %xi : tensor<3xf32>
    }
    top.Yield %r : tensor<3xf32>
  }
  return %s : tensor<3xf32>
}

// -----

// top.Loop with strata.scan_bound = B (a run-time trip count, set by the CPU
// outliner): the scan buffer has B rows, the loop runs while iteration <= B
// as well (so at most B + 1 iterations), and a row is inserted only while
// iteration < B.

// CHECK-LABEL: func.func @loop_scan_bound
// CHECK: %[[B:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK: scf.while (%[[I:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %[[B]])
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : i64
// CHECK: %[[GO:.*]] = arith.andi %[[LT]], %{{.*}} : i1
// CHECK: %[[C4:.*]] = arith.constant 4 : i64
// CHECK: %[[LE:.*]] = arith.cmpi sle, %[[I]], %[[C4]] : i64
// CHECK: arith.andi %[[GO]], %[[LE]] : i1
// CHECK: } do {
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: scf.if %[[IN]] -> (tensor<4x2xf32>) {
// CHECK: tensor.insert_slice
// CHECK: } else {
func.func @loop_scan_bound(%m: tensor<i64>, %y0: tensor<2xf32>) -> tensor<4x2xf32> {
  %none = top.None() : () -> none
  %y, %s = top.Loop(%m, %none, %y0) {strata.scan_bound = 4 : i64} : (tensor<i64>, none, tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<2xf32>):
    %n = top.Neg(%yi) : (tensor<2xf32>) -> tensor<2xf32>
    top.Yield %c, %n, %yi : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  }
  return %s : tensor<4x2xf32>
}
