// RUN: strata-opt %s --pass-pipeline='builtin.module(func.func(top-fold-qdq))' --split-input-file | FileCheck %s
// The results are checked against ONNX Runtime in test/quant/test_qdq.py.

// The QDQ pattern as the importer writes it: the activation reinterpreted
// through a Cast pair, int8 weights (scales 0.5 and 0.25) and an int32 bias
// behind Dequant, a Relu and the output Quant.
// s_x * s_w = [0.05, 0.025]; / s_y 0.2 = [0.25, 0.125] = 2^30 / 2^32, 2^30 / 2^33.
// The bias [10, -4] * 0.01 / [0.05, 0.025] = [2, -1.6] rounds to [2, -2].
// CHECK-LABEL: func @conv
// CHECK: %[[Q:.*]] = top.Quant(%{{.*}}) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 1.000000e-01:128>>
// CHECK: %[[W:.*]] = top.Cast(%{{.*}}) : (tensor<2x2x1x1xi8>) -> tensor<2x2x1x1x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>
// CHECK: %[[B:.*]] = top.Weight() {name = "qdq_bias_int32", value = dense_resource<[[BR:.*]]> : tensor<2xi32>}
// CHECK: %[[ACC:.*]] = top.Conv(%[[Q]], %[[W]], %[[B]]) {do_relu = true, input_zp = array<i64: 128>, kernel_shape = array<i64: 1, 1>} {{.*}} -> tensor<1x2x3x3xi32>
// CHECK: %[[R:.*]] = top.Requant(%[[ACC]]) {multiplier = array<i64: 1073741824, 1073741824>, rshift = array<i64: 32, 33>} : (tensor<1x2x3x3xi32>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 2.000000e-01>>
// CHECK: top.Cast(%[[R]])
// CHECK-NOT: top.Relu
// CHECK-NOT: top.Conv
// The resource holds [2, -2] (after the blob header 0x40000000, little endian).
// CHECK: [[BR]]: "0x4000000002000000FEFFFFFF"
func.func @conv(%arg0: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xui8> {
  %x = top.Input(%arg0) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %q = top.Quant(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>
  %c0 = top.Cast(%q) : (tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x3x3xui8>
  %c1 = top.Cast(%c0) : (tensor<1x2x3x3xui8>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>
  %xd = top.Dequant(%c1) : (tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x3x3xf32>
  %wi = top.Weight() {name = "w", value = dense<[[[[1]], [[-2]]], [[[3]], [[127]]]]> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %wq = top.Cast(%wi) : (tensor<2x2x1x1xi8>) -> tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  %wd = top.Dequant(%wq) : (tensor<2x2x1x1x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x1x1xf32>
  %bi = top.Weight() {name = "b", value = dense<[10, -4]> : tensor<2xi32>} : () -> tensor<2xi32>
  %bq = top.Cast(%bi) : (tensor<2xi32>) -> tensor<2x!quant.uniform<i32:f32, 0.01>>
  %bd = top.Dequant(%bq) : (tensor<2x!quant.uniform<i32:f32, 0.01>>) -> tensor<2xf32>
  %y = top.Conv(%xd, %wd, %bd) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %r = top.Relu(%y) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %yq = top.Quant(%r) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 0.2>>
  %out = top.Cast(%yq) : (tensor<1x2x3x3x!quant.uniform<u8:f32, 0.2>>) -> tensor<1x2x3x3xui8>
  return %out : tensor<1x2x3x3xui8>
}

// -----

// Weights with a non-zero zero point are not folded; a float consumer gets
// a dequantized int32 accumulator (MatMul: the input zero point folded into
// the bias, -128 * colsum(W) = -128 * [3, -1] = [-384, 128]).
// CHECK-LABEL: func @not_symmetric
// CHECK: top.Conv({{.*}}) {{.*}}: (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x3x3xf32>
// CHECK-LABEL: func @matmul_float_consumer
// CHECK: top.Weight() {name = "qdq_bias_int32", value = dense_resource<[[MB:.*]]> : tensor<2xi32>}
// CHECK: %[[ACC:.*]] = top.MatMul({{.*}}) : (tensor<1x2x!quant.uniform<u8:f32, 1.000000e-01:128>>, tensor<2x2x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<2xi32>) -> tensor<1x2x!quant.uniform<i32:f32:1, {5.000000e-02,5.000000e-02}>>
// CHECK: top.Dequant(%[[ACC]]) {{.*}} -> tensor<1x2xf32>
// CHECK: [[MB]]: "0x4000000080FEFFFF80000000"
func.func @not_symmetric(%arg0: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %x = top.Input(%arg0) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %q = top.Quant(%x) : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>
  %xd = top.Dequant(%q) : (tensor<1x2x3x3x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2x3x3xf32>
  %wi = top.Weight() {name = "w", value = dense<1> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %wq = top.Cast(%wi) : (tensor<2x2x1x1xi8>) -> tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5:3>>
  %wd = top.Dequant(%wq) : (tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x2x1x1xf32>
  %n = top.None() : () -> none
  %y = top.Conv(%xd, %wd, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  return %y : tensor<1x2x3x3xf32>
}
func.func @matmul_float_consumer(%arg0: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %x = top.Input(%arg0) : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %q = top.Quant(%x) : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<u8:f32, 0.1:128>>
  %xd = top.Dequant(%q) : (tensor<1x2x!quant.uniform<u8:f32, 0.1:128>>) -> tensor<1x2xf32>
  %wi = top.Weight() {name = "w", value = dense<[[1, 2], [2, -3]]> : tensor<2x2xi8>} : () -> tensor<2x2xi8>
  %wq = top.Cast(%wi) : (tensor<2x2xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  %wd = top.Dequant(%wq) : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2xf32>
  %n = top.None() : () -> none
  %y = top.MatMul(%xd, %wd, %n) : (tensor<1x2xf32>, tensor<2x2xf32>, none) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
