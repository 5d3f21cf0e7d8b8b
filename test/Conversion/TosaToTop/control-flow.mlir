// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// cond_if -> top.If (branch arguments replaced by the inputs) and
// while_loop -> top.Loop (the condition graph evaluated before the loop and
// at the end of each body). Numbers: test/tosa/test_control_flow.py.

// CHECK-LABEL: func.func @cond_if
// CHECK: %[[C:.*]] = top.Input(%arg0)
// CHECK: %[[A:.*]] = top.Input(%arg1)
// CHECK: %[[B:.*]] = top.Input(%arg2)
// CHECK: top.If %[[C]] : tensor<i1> -> (tensor<3xf32>) then {
// CHECK:   %[[S:.*]] = top.Add(%[[A]], %[[B]])
// CHECK:   top.Yield %[[S]] : tensor<3xf32>
// CHECK: } else {
// CHECK:   %[[D:.*]] = top.Sub(%[[A]], %[[B]])
// CHECK:   top.Yield %[[D]] : tensor<3xf32>
func.func @cond_if(%c: tensor<i1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tosa.cond_if"(%c, %a, %b) ({
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):
    %s = tosa.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "tosa.yield"(%s) : (tensor<3xf32>) -> ()
  }, {
  ^bb0(%x: tensor<3xf32>, %y: tensor<3xf32>):
    %s = tosa.sub %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "tosa.yield"(%s) : (tensor<3xf32>) -> ()
  }) : (tensor<i1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// CHECK-LABEL: func.func @while_loop
// CHECK: %[[I0:.*]] = top.Input(%arg0)
// CHECK: %[[C0:.*]] = top.Compare(%{{.*}}, %[[I0]]) {mode = #top.compare_mode<Greater>}
// CHECK: %[[N:.*]] = top.None()
// CHECK: top.Loop(%[[N]], %[[C0]], %[[I0]]) : (none, tensor<i1>, tensor<i32>) -> tensor<i32> {
// CHECK: ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %[[I:.*]]: tensor<i32>):
// CHECK:   %[[NEXT:.*]] = top.Add(%[[I]], %{{.*}})
// CHECK:   %[[C:.*]] = top.Compare(%{{.*}}, %[[NEXT]]) {mode = #top.compare_mode<Greater>}
// CHECK:   top.Yield %[[C]], %[[NEXT]] : tensor<i1>, tensor<i32>
func.func @while_loop(%a: tensor<i32>) -> tensor<i32> {
  %0 = "tosa.while_loop"(%a) ({
  ^bb0(%i: tensor<i32>):
    %lim = "tosa.const"() {values = dense<5> : tensor<i32>} : () -> tensor<i32>
    %c = tosa.greater %lim, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "tosa.yield"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>):
    %one = "tosa.const"() {values = dense<1> : tensor<i32>} : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "tosa.yield"(%n) : (tensor<i32>) -> ()
  }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
