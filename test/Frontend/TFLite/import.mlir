// The TFLite importer's IR for small models (built by Inputs/make_models.py
// with the flatc-generated Python code of lib/Frontend/TFLite/schema.fbs).
// RUN: %strata_src/.venv/bin/python %S/Inputs/make_models.py %t
// RUN: strata import %t/conv.tflite -o %t/out --no-optimize
// RUN: FileCheck %s --check-prefix=CONV --input-file %t/out/conv_origin.mlir
// RUN: strata import %t/conv_int8.tflite -o %t/out --no-optimize
// RUN: FileCheck %s --check-prefix=INT8 --input-file %t/out/conv_int8_origin.mlir
// RUN: strata import %t/fc_int8.tflite -o %t/out --no-optimize
// RUN: FileCheck %s --check-prefix=FC --input-file %t/out/fc_int8_origin.mlir
// RUN: strata import %t/quant.tflite -o %t/out --no-optimize
// RUN: FileCheck %s --check-prefix=QUANT --input-file %t/out/quant_origin.mlir

// NHWC stays NHWC: OHWI filters, SAME padding with the odd pixel at the end,
// RELU6 as a Clip; the depthwise filter [1,3,3,16] becomes [16,3,3,1], group 8.
// CONV: func.func @main(%arg0: tensor<1x7x7x3xf32> {top.name = "x"}
// CONV: %[[W:.*]] = top.Weight() {name = "w"} : () -> tensor<8x3x3x3xf32>
// CONV: %[[C:.*]] = top.Conv(%{{.*}}, %[[W]], %{{.*}}) {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x7x7x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
// CONV: top.Clip(%[[C]]) {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CONV: top.Weight() {name = "z_filter"} : () -> tensor<16x3x3x1xf32>
// CONV: top.Conv({{.*}}group = 8 : i64{{.*}}layout = #top.layout<NHWC>{{.*}} -> tensor<1x4x4x16xf32>

// int8: the storage integers convolved with input_zp, the int32 accumulator
// requantized as TFLite does (Q31 multiplier and shift per channel on the
// last dim: axis 3; TFLiteHalfUp, the interpreter's CONV_2D rounding),
// RELU as a Max at the output zero point.
// INT8: func.func @main(%arg0: tensor<1x4x4x2x!quant.uniform<i8:f32, 5.000000e-01:-3>> {top.name = "x"}
// INT8: %[[S:.*]] = top.Cast(%{{.*}}) : (tensor<1x4x4x2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<1x4x4x2xi8>
// INT8: %[[A:.*]] = top.Conv(%[[S]], %{{.*}}, %{{.*}}) {{{.*}}input_zp = array<i64: -3>{{.*}}} : (tensor<1x4x4x2xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>) -> tensor<1x4x4x2xi32>
// INT8: top.Requant(%[[A]]) {axis = 3 : i64, multiplier = array<i64: 1073741824, 1073741824>, quant_mode = #top.requant_mode<TFLiteHalfUp>, rshift = array<i64: 2, 3>} : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2x!quant.uniform<i8:f32, 1.000000e+00:4>>
// INT8: top.Max(%{{.*}}, %{{.*}}) : (tensor<1x4x4x2xi8>, tensor<i8>) -> tensor<1x4x4x2xi8>
// INT8: return %{{.*}} : tensor<1x4x4x2x!quant.uniform<i8:f32, 1.000000e+00:4>>

// A per-tensor filter: TFLite's own requantization, bit-exact: the scale
// 0.5 * 0.25 / 1.0 = 0.125 is the Q31 multiplier 2^30 with a right shift of
// 2 (TFLiteHalfUp, the interpreter's FULLY_CONNECTED rounding).
// FC: %[[X:.*]] = top.Cast(%{{.*}}) : (tensor<2x4x!quant.uniform<i8:f32, 5.000000e-01:1>>) -> tensor<2x4xi8>
// FC: %[[W:.*]] = top.Cast(%[[X]]) : (tensor<2x4xi8>) -> tensor<2x4xi32>
// FC: top.Sub(%[[W]], %{{.*}}) : (tensor<2x4xi32>, tensor<i32>) -> tensor<2x4xi32>
// FC: top.MatMul(%{{.*}}, %{{.*}}, %{{.*}}) {right_transpose = true} : (tensor<2x4xi32>, tensor<3x4xi32>, none) -> tensor<2x3xi32>
// FC: top.Requant(%{{.*}}) {multiplier = array<i64: 1073741824>, quant_mode = #top.requant_mode<TFLiteHalfUp>, rshift = array<i64: 2>} : (tensor<2x3xi32>) -> tensor<2x3x!quant.uniform<i8:f32, 1.000000e+00:-2>>

// float16 weights are widened at import; QUANTIZE is top.Quant (with the
// f32 scale TFLite stores, printed exactly).
// QUANT: top.Weight() {name = "f_dequant"} : () -> tensor<2x3xf32>
// QUANT: top.Add
// QUANT: top.Quant(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32, 0.10000000149011612:128>>
