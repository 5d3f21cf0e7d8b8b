// RUN: strata-opt %s -split-input-file --strata-cpu-outline-dispatches --verify-diagnostics | FileCheck %s
// RUN: strata-opt %s -split-input-file --strata-cpu-outline-dispatches=max-range-elements=100 --verify-diagnostics | FileCheck %s --check-prefix=BOUND

// Each computing op moves into its own private dispatch function; the entry
// function keeps inputs, weights and calls. Absent optional operands become
// a top.None inside the dispatch.

// CHECK-LABEL: func.func private @dispatch_0_MatMul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>) -> tensor<2x3xf32> attributes {strata.dispatch}
// CHECK-NEXT: %[[N:.*]] = top.None
// CHECK-NEXT: %[[M:.*]] = top.MatMul(%[[A]], %[[B]], %[[N]])
// CHECK-NEXT: return %[[M]]
// CHECK-LABEL: func.func private @dispatch_1_Relu
// CHECK-LABEL: func.func @main
// CHECK: %[[X:.*]] = top.Input
// CHECK: %[[W:.*]] = top.Weight
// CHECK: %[[C0:.*]] = call @dispatch_0_MatMul(%[[X]], %[[W]])
// CHECK: %[[C1:.*]] = call @dispatch_1_Relu(%[[C0]])
// CHECK: return %[[C1]]
func.func @main(%x_arg: tensor<2x4xf32> {top.name = "x"}) -> (tensor<2x3xf32> {top.name = "y"}) {
  %x = top.Input(%x_arg) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %w = top.Weight() {name = "w"} : () -> tensor<4x3xf32>
  %n = top.None() : () -> none
  %0 = top.MatMul(%x, %w, %n) : (tensor<2x4xf32>, tensor<4x3xf32>, none) -> tensor<2x3xf32>
  %1 = top.Relu(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// A reshape of a dispatch result stays in the entry function as a view
// (memory planning shares the bytes); a reshape of an input, or one that is
// returned, is a dispatch.

// CHECK-LABEL: func.func private @dispatch_0_Reshape
// CHECK-LABEL: func.func private @dispatch_1_Relu
// CHECK-LABEL: func.func private @dispatch_2_Relu
// CHECK-LABEL: func.func private @dispatch_3_Reshape
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_0_Reshape
// CHECK: call @dispatch_1_Relu
// CHECK: %[[V:.*]] = top.Reshape
// CHECK: call @dispatch_2_Relu(%[[V]])
// CHECK: call @dispatch_3_Reshape
func.func @main(%x_arg: tensor<2x6xf32> {top.name = "x"}) -> (tensor<4x3xf32>, tensor<12xf32>) {
  %x = top.Input(%x_arg) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %0 = top.Reshape(%x) {shape = array<i64: 3, 4>} : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %1 = top.Relu(%0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = top.Reshape(%1) {shape = array<i64: 4, 3>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %3 = top.Relu(%2) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %4 = top.Reshape(%1) {shape = array<i64: 12>} : (tensor<3x4xf32>) -> tensor<12xf32>
  return %3, %4 : tensor<4x3xf32>, tensor<12xf32>
}

// -----

func.func @main(%x_arg: tensor<?x4xf32> {top.name = "x"}) -> tensor<?x4xf32> {
  // expected-error @+1 {{result 0 has type 'tensor<?x4xf32>', not a static shape; compile with --input-shapes to fix the inputs' shapes}}
  %x = top.Input(%x_arg) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-error @+1 {{not a static shape}}
  %0 = top.Relu(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A weight inside an If branch moves to the entry function before the If;
// the If's dispatch takes it (and the other values from above) as operands.

// CHECK-LABEL: func.func private @dispatch_0_If
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[W:.*]]: tensor<3xf32>, %[[X:.*]]: tensor<3xf32>)
// CHECK: top.If %[[C]]
// CHECK: top.Yield %[[W]]
// CHECK: top.Yield %[[X]]
// CHECK-LABEL: func.func @main
// CHECK: %[[C2:.*]] = top.Input
// CHECK: %[[X2:.*]] = top.Input
// CHECK: %[[W2:.*]] = top.Weight() {name = "then_out"}
// CHECK: call @dispatch_0_If(%[[C2]], %[[W2]], %[[X2]])
func.func @main(%c_arg: tensor<i1> {top.name = "c"}, %x_arg: tensor<3xf32> {top.name = "x"}) -> tensor<3xf32> {
  %c = top.Input(%c_arg) : (tensor<i1>) -> tensor<i1>
  %x = top.Input(%x_arg) : (tensor<3xf32>) -> tensor<3xf32>
  %r = top.If %c : tensor<i1> -> (tensor<3xf32>) then {
    %w = top.Weight() {name = "then_out"} : () -> tensor<3xf32>
    top.Yield %w : tensor<3xf32>
  } else {
    top.Yield %x : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// The ops whose result shape depends on input values keep their dynamic
// result types; their dispatch carries a static bound per result
// (strata.result_bounds): NonZero [rank, numel]; Unique without axis its
// input's element count (the static inverse_indices is its own bound);
// NonMaxSuppression batches x classes x min(max_output_boxes_per_class,
// boxes) rows when that operand is a constant; Range max-range-elements
// (65536 unless given).

// Each leaves the dispatch as its bound (a tensor.cast), and
// strata.runtime_shape_results lists (result, -1: dims from the kernel, the
// dims decided at run time).

// CHECK-LABEL: func.func private @dispatch_0_NonZero
// CHECK-SAME: -> tensor<3x60xi64> attributes {strata.dispatch, strata.result_bounds = [array<i64: 3, 60>], strata.runtime_shape_results = [array<i64: 0, -1, 1>]}
// CHECK: tensor.cast %{{.*}} : tensor<3x?xi64> to tensor<3x60xi64>
// CHECK-LABEL: func.func private @dispatch_1_Unique
// CHECK-SAME: -> (tensor<60xf32>, tensor<60xi64>, tensor<60xi64>, tensor<60xi64>) attributes {strata.dispatch, strata.result_bounds = [array<i64: 60>, array<i64: 60>, array<i64: 60>, array<i64: 60>], strata.runtime_shape_results = [array<i64: 0, -1, 0>, array<i64: 1, -1, 0>, array<i64: 3, -1, 0>]}
// CHECK-LABEL: func.func private @dispatch_2_NonMaxSuppression
// CHECK-SAME: -> tensor<12x3xi64> attributes {strata.dispatch, strata.result_bounds = [array<i64: 12, 3>], strata.runtime_shape_results = [array<i64: 0, -1, 0>]}
// CHECK-LABEL: func.func private @dispatch_3_Range
// CHECK-SAME: -> tensor<65536xi64> attributes {strata.dispatch, strata.result_bounds = [array<i64: 65536>], strata.runtime_shape_results = [array<i64: 0, -1, 0>]}
// BOUND: func.func private @dispatch_3_Range
// BOUND-SAME: -> tensor<100xi64> attributes {strata.dispatch, strata.result_bounds = [array<i64: 100>]
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_0_NonZero
// CHECK: call @dispatch_1_Unique
// CHECK: call @dispatch_2_NonMaxSuppression
// CHECK: call @dispatch_3_Range
func.func @main(%x_arg: tensor<3x4x5xf32> {top.name = "x"}, %b_arg: tensor<2x10x4xf32> {top.name = "b"},
                %s_arg: tensor<2x3x10xf32> {top.name = "s"}, %l_arg: tensor<i64> {top.name = "l"})
    -> (tensor<3x?xi64>, tensor<?xf32>, tensor<?x3xi64>, tensor<?xi64>) {
  %x = top.Input(%x_arg) : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  %b = top.Input(%b_arg) : (tensor<2x10x4xf32>) -> tensor<2x10x4xf32>
  %s = top.Input(%s_arg) : (tensor<2x3x10xf32>) -> tensor<2x3x10xf32>
  %l = top.Input(%l_arg) : (tensor<i64>) -> tensor<i64>
  %m = top.Weight() {name = "m", value = dense<2> : tensor<1xi64>} : () -> tensor<1xi64>
  %z = top.Weight() {name = "z", value = dense<0> : tensor<i64>} : () -> tensor<i64>
  %one = top.Weight() {name = "one", value = dense<1> : tensor<i64>} : () -> tensor<i64>
  %n = top.None() : () -> none
  %0 = top.NonZero(%x) : (tensor<3x4x5xf32>) -> tensor<3x?xi64>
  %y, %i, %inv, %c = top.Unique(%x) {sorted = true, has_axis = false} : (tensor<3x4x5xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<60xi64>, tensor<?xi64>)
  %1 = top.NonMaxSuppression(%b, %s, %m, %n, %n) : (tensor<2x10x4xf32>, tensor<2x3x10xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  %2 = top.Range(%z, %l, %one) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %0, %y, %1, %2 : tensor<3x?xi64>, tensor<?xf32>, tensor<?x3xi64>, tensor<?xi64>
}

// -----

// A value with a run-time shape may only be returned or read by an
// elementwise op (with one-element other operands).
func.func @main(%x_arg: tensor<4xf32> {top.name = "x"}) -> tensor<?x1xi64> {
  %x = top.Input(%x_arg) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = top.NonZero(%x) : (tensor<4xf32>) -> tensor<1x?xi64>
  // expected-error @+1 {{'top.Permute' has no CPU code-generation lowering yet for an operand whose shape is decided at run time by 'top.NonZero'}}
  %1 = top.Permute(%0) {order = array<i64: 1, 0>} : (tensor<1x?xi64>) -> tensor<?x1xi64>
  return %1 : tensor<?x1xi64>
}

// -----

// An elementwise op on a value of run-time shape is computed over its bound
// and shares its dims (operand 0 of the dispatch: -2 - 0).

// CHECK-LABEL: func.func private @dispatch_0_NonZero
// CHECK-SAME: -> tensor<1x4xi64> attributes {strata.dispatch, strata.result_bounds = [array<i64: 1, 4>], strata.runtime_shape_results = [array<i64: 0, -1, 1>]}
// CHECK: %[[N:.*]] = top.NonZero
// CHECK: %[[C:.*]] = tensor.cast %[[N]] : tensor<1x?xi64> to tensor<1x4xi64>
// CHECK: return %[[C]]
// CHECK-LABEL: func.func private @dispatch_1_Neg
// CHECK-SAME: (%{{.*}}: tensor<1x4xi64>) -> tensor<1x4xi64> attributes {strata.dispatch, strata.runtime_shape_results = [array<i64: 0, -2, 1>]}
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> tensor<1x4xi64>
func.func @main(%x_arg: tensor<4xf32> {top.name = "x"}) -> tensor<1x?xi64> {
  %x = top.Input(%x_arg) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = top.NonZero(%x) : (tensor<4xf32>) -> tensor<1x?xi64>
  %1 = top.Neg(%0) : (tensor<1x?xi64>) -> tensor<1x?xi64>
  return %1 : tensor<1x?xi64>
}

// -----

// A Loop's constant one-element trip count and condition stay constants
// inside its dispatch (the Loop lowering needs a compile-time trip count
// for scan outputs); other weights are arguments.

// CHECK-LABEL: func.func private @dispatch_0_Loop
// CHECK-SAME: (%[[D:.*]]: tensor<i32>, %[[S:.*]]: tensor<i32>) -> (tensor<i32>, tensor<3xi32>)
// CHECK-DAG: arith.constant dense<3> : tensor<i64>
// CHECK-DAG: arith.constant dense<true> : tensor<i1>
// CHECK: top.Loop
// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_0_Loop(%{{.*}}, %{{.*}}) : (tensor<i32>, tensor<i32>)
func.func @main(%s_arg: tensor<i32> {top.name = "s"}) -> tensor<3xi32> {
  %s = top.Input(%s_arg) : (tensor<i32>) -> tensor<i32>
  %d = top.Weight() {name = "d", value = dense<-3> : tensor<i32>} : () -> tensor<i32>
  %m = top.Weight() {name = "m", value = dense<3> : tensor<i64>} : () -> tensor<i64>
  %c = top.Weight() {name = "c", value = dense<true> : tensor<i1>} : () -> tensor<i1>
  %0:2 = top.Loop(%m, %c, %s) : (tensor<i64>, tensor<i1>, tensor<i32>) -> (tensor<i32>, tensor<3xi32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %prev: tensor<i32>):
    %1 = top.Add(%prev, %d) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    top.Yield %cond, %1, %prev : tensor<i1>, tensor<i32>, tensor<i32>
  }
  return %0#1 : tensor<3xi32>
}

// -----

// A Loop whose scan output's length is its run-time trip count: bounded to
// max-scan-length rows (strata.scan_bound) with an i64 counter carried last;
// the dispatch returns the carried value, the bounded scan output and its
// dims [count, 3] (result 2 holds the dims of result 1).

// CHECK-LABEL: func.func private @dispatch_0_Loop
// CHECK-SAME: -> (tensor<3xf32>, tensor<65536x3xf32>, tensor<2xi64>) attributes {strata.dispatch, strata.runtime_shape_results = [array<i64: 1, 2, 0>]}
// CHECK: %[[Z:.*]] = arith.constant dense<0> : tensor<i64>
// CHECK: %[[L:.*]]:3 = top.Loop(%{{.*}}, %{{.*}}, %{{.*}}, %[[Z]]) {strata.scan_bound = 65536 : i64}
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %[[C:.*]]: tensor<i1>, %{{.*}}: tensor<3xf32>, %[[K:.*]]: tensor<i64>):
// CHECK: %[[K1:.*]] = top.Add(%[[K]], %{{.*}})
// CHECK: top.Yield %[[C]], %{{.*}}, %[[K1]], %{{.*}}
// CHECK: %[[N:.*]] = tensor.extract %[[L]]#1[]
// CHECK: %[[D:.*]] = tensor.from_elements %[[N]], %{{.*}} : tensor<2xi64>
// CHECK: return %[[L]]#0, %[[L]]#2, %[[D]]
func.func @main(%m_arg: tensor<i64> {top.name = "m"}, %y_arg: tensor<3xf32> {top.name = "y"}) -> (tensor<3xf32>, tensor<?x3xf32>) {
  %m = top.Input(%m_arg) : (tensor<i64>) -> tensor<i64>
  %y0 = top.Input(%y_arg) : (tensor<3xf32>) -> tensor<3xf32>
  %none = top.None() : () -> none
  %0:2 = top.Loop(%m, %none, %y0) : (tensor<i64>, none, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %y: tensor<3xf32>):
    %1 = top.Neg(%y) : (tensor<3xf32>) -> tensor<3xf32>
    top.Yield %c, %1, %y : tensor<i1>, tensor<3xf32>, tensor<3xf32>
  }
  return %0#0, %0#1 : tensor<3xf32>, tensor<?x3xf32>
}
