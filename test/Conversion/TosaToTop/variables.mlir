// RUN: strata-opt %s --convert-tosa-to-top | FileCheck %s
// TOSA variables for one run from their initial values: a read is the value
// last written in program order, or the initial value (a Weight); the
// writes and declarations go. Numbers: test/tosa/test_tosa_quant.py.

// CHECK-NOT: tosa.variable
// CHECK-LABEL: func.func @state
// CHECK: %[[A:.*]] = top.Input
// CHECK: %[[INIT:.*]] = top.Weight() {name = "{{.*}}", value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}
// CHECK: %[[S:.*]] = top.Add(%[[A]], %[[INIT]])
// CHECK: %[[T:.*]] = top.Mul(%[[S]], %[[S]])
// CHECK: return %[[S]], %[[T]]
tosa.variable @acc = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
func.func @state(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tosa.variable_read @acc : tensor<4xf32>
  %1 = tosa.add %a, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tosa.variable_write @acc, %1 : tensor<4xf32>
  %2 = tosa.variable_read @acc : tensor<4xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %3 = tosa.mul %2, %2, %shift : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
  return %2, %3 : tensor<4xf32>, tensor<4xf32>
}
