// RUN: strata-opt %s --convert-top-to-hl --split-input-file | FileCheck %s
// RUN: echo '{"weight_channel_block": 8}' > %t.json
// RUN: strata-opt %s --convert-top-to-hl="npu-config=%t.json" --split-input-file | FileCheck %s --check-prefix=B8
// The values are checked bit-exactly against the Top model in
// test/npuhl/test_npuhl_kernels.py; here: what the conversion writes.

// An int8 conv + relu + MultiplierShift Requant is one hl.conv2d: 5 output
// channels packed in 2 blocks of 4 (the last one zero-filled), the bias and
// the requant in a 5x3 scale+bias tensor, relu as clip_min = output_zp.
// CHECK-LABEL: func @conv
// CHECK-NOT: top.Conv
// CHECK-NOT: top.Requant
// CHECK: %[[W:.*]] = top.Weight() {name = "hl_weights", {{.*}} : tensor<2x2x3x3x4xi8>
// CHECK: %[[SB:.*]] = top.Weight() {name = "hl_scale_bias", {{.*}} : tensor<5x3xi32>
// CHECK: %[[Y:.*]] = hl.conv2d(%arg0, %[[W]], %[[SB]]) {clip_min = -4 : i64, dilation = array<i64: 1, 2>, input_zp = 3 : i64, output_zp = -4 : i64, pad = array<i64: 1, 0, 2, 1>, stride = array<i64: 2, 1>} : (tensor<1x2x7x7x!quant.uniform<i8:f32, 1.000000e-01:3>>, tensor<2x2x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x4x4x!quant.uniform<i8:f32, 2.000000e-01:-4>>
// CHECK: return %[[Y]]
// B8-LABEL: func @conv
// B8: top.Weight() {{.*}} : tensor<1x2x3x3x8xi8>
func.func @conv(%arg0: tensor<1x2x7x7x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x5x4x4x!quant.uniform<i8:f32, 0.2:-4>> {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<5x2x3x3xi8>} : () -> tensor<5x2x3x3xi8>
  %b = top.Weight() {name = "b", value = dense<[1, 2, 3, 4, 5]> : tensor<5xi32>} : () -> tensor<5xi32>
  %acc = top.Conv(%arg0, %w, %b) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>, pads = array<i64: 1, 0, 2, 1>, input_zp = array<i64: 3>, do_relu = true} : (tensor<1x2x7x7x!quant.uniform<i8:f32, 0.1:3>>, tensor<5x2x3x3xi8>, tensor<5xi32>) -> tensor<1x5x4x4xi32>
  %y = top.Requant(%acc) {multiplier = array<i64: 1073741824>, rshift = array<i64: 35>} : (tensor<1x5x4x4xi32>) -> tensor<1x5x4x4x!quant.uniform<i8:f32, 0.2:-4>>
  return %y : tensor<1x5x4x4x!quant.uniform<i8:f32, 0.2:-4>>
}

// -----

// group == C == O: depthwise, weights (C/B) x KH x KW x B; a capped output
// range (ReLU6 as a narrowed storage type) gives clip_max.
// CHECK-LABEL: func @depthwise
// CHECK: top.Weight() {{.*}} : tensor<2x3x3x4xi8>
// CHECK: hl.depthwise_conv2d({{.*}}) {clip_max = 90 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x4x4xi8>, tensor<2x3x3x4xi8>, tensor<6x3xi32>) -> tensor<1x6x4x4x!quant.uniform<i8<-128:90>:f32, 5.000000e-02>>
func.func @depthwise(%arg0: tensor<1x6x4x4xi8>) -> tensor<1x6x4x4x!quant.uniform<i8<-128:90>:f32, 0.05>> {
  %w = top.Weight() {name = "w", value = dense<2> : tensor<6x1x3x3xi8>} : () -> tensor<6x1x3x3xi8>
  %n = top.None() : () -> none
  %acc = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, group = 6 : i64} : (tensor<1x6x4x4xi8>, tensor<6x1x3x3xi8>, none) -> tensor<1x6x4x4xi32>
  %y = top.Requant(%acc) {multiplier = array<i64: 1, 2, 3, 4, 5, 6>, rshift = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<1x6x4x4xi32>) -> tensor<1x6x4x4x!quant.uniform<i8<-128:90>:f32, 0.05>>
  return %y : tensor<1x6x4x4x!quant.uniform<i8<-128:90>:f32, 0.05>>
}

// -----

// A grouped conv keeps groups; a rank-2 int8 MatMul with constant weights
// is a fully_connected with (O/B) x I x B weights.
// CHECK-LABEL: func @grouped_then_fc
// CHECK: hl.conv2d({{.*}}) {{{.*}}groups = 2 : i64{{.*}}} : (tensor<1x4x3x3xi8>, tensor<2x2x1x1x4xi8>, tensor<6x3xi32>) -> tensor<1x6x3x3xi8>
// CHECK: top.Reshape
// CHECK: hl.fully_connected({{.*}}) : (tensor<1x54xi8>, tensor<1x54x4xi8>, tensor<3x3xi32>) -> tensor<1x3xi8>
func.func @grouped_then_fc(%arg0: tensor<1x4x3x3xi8>) -> tensor<1x3xi8> {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<6x2x1x1xi8>} : () -> tensor<6x2x1x1xi8>
  %n = top.None() : () -> none
  %acc = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x3x3xi8>, tensor<6x2x1x1xi8>, none) -> tensor<1x6x3x3xi32>
  %q = top.Requant(%acc) {multiplier = array<i64: 3>, rshift = array<i64: 2>} : (tensor<1x6x3x3xi32>) -> tensor<1x6x3x3xi8>
  %f = top.Reshape(%q) {shape = array<i64: 1, 54>} : (tensor<1x6x3x3xi8>) -> tensor<1x54xi8>
  %m = top.Weight() {name = "m", value = dense<1> : tensor<54x3xi8>} : () -> tensor<54x3xi8>
  %acc2 = top.MatMul(%f, %m, %n) : (tensor<1x54xi8>, tensor<54x3xi8>, none) -> tensor<1x3xi32>
  %y = top.Requant(%acc2) {multiplier = array<i64: 5>, rshift = array<i64: 4>} : (tensor<1x3xi32>) -> tensor<1x3xi8>
  return %y : tensor<1x3xi8>
}

// -----

// A TFLite-mode Requant (TFLite imports) keeps its rounding.
// CHECK-LABEL: func @tflite
// CHECK: hl.conv2d({{.*}}) {{{.*}}rounding = "tflite"{{.*}}} : (tensor<1x2x3x3xi8>, tensor<1x2x1x1x4xi8>, tensor<2x3xi32>) -> tensor<1x2x3x3xi8>
func.func @tflite(%arg0: tensor<1x2x3x3xi8>) -> tensor<1x2x3x3xi8> {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %n = top.None() : () -> none
  %a = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, none) -> tensor<1x2x3x3xi32>
  %y = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 3>, quant_mode = #top.requant_mode<TFLite>} : (tensor<1x2x3x3xi32>) -> tensor<1x2x3x3xi8>
  return %y : tensor<1x2x3x3xi8>
}

// -----

// TosaSingleRound and TFLiteHalfUp Requants (TOSA / TFLite imports: ties
// rounded up) stay on the CPU: the activation unit has no such rounding.
// CHECK-LABEL: func @single_round
// CHECK-NOT: hl.
// CHECK: top.Conv
// CHECK: top.Requant
// CHECK-NOT: hl.
// CHECK: top.Conv
// CHECK: top.Requant
// CHECK-NOT: hl.
func.func @single_round(%arg0: tensor<1x2x3x3xi8>) -> tensor<1x2x3x3xi8> {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %n = top.None() : () -> none
  %a = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, none) -> tensor<1x2x3x3xi32>
  %y = top.Requant(%a) {multiplier = array<i64: 1073741824>, rshift = array<i64: 33>, quant_mode = #top.requant_mode<TosaSingleRound>} : (tensor<1x2x3x3xi32>) -> tensor<1x2x3x3xi8>
  %a2 = top.Conv(%y, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, none) -> tensor<1x2x3x3xi32>
  %y2 = top.Requant(%a2) {multiplier = array<i64: 1073741824>, rshift = array<i64: 2>, quant_mode = #top.requant_mode<TFLiteHalfUp>} : (tensor<1x2x3x3xi32>) -> tensor<1x2x3x3xi8>
  return %y2 : tensor<1x2x3x3xi8>
}

// -----

// Stay on the CPU: a float epilogue (no Requant), an f32 conv.
// CHECK-LABEL: func @stays
// CHECK-NOT: hl.
// CHECK: top.Conv
// CHECK: top.Conv
func.func @stays(%arg0: tensor<1x2x3x3xi8>, %arg1: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xi32>, tensor<1x2x3x3xf32>) {
  %w = top.Weight() {name = "w", value = dense<1> : tensor<2x2x1x1xi8>} : () -> tensor<2x2x1x1xi8>
  %n = top.None() : () -> none
  %b = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, none) -> tensor<1x2x3x3xi32>
  %wf = top.Weight() {name = "wf", value = dense<1.0> : tensor<2x2x1x1xf32>} : () -> tensor<2x2x1x1xf32>
  %c = top.Conv(%arg1, %wf, %n) {kernel_shape = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x3x3xf32>
  return %b, %c : tensor<1x2x3x3xi32>, tensor<1x2x3x3xf32>
}

// -----

// bf16: the f32 bias becomes the scale_bias operand, relu stays an attribute.
// CHECK-LABEL: func @bf16
// CHECK: top.Weight() {name = "hl_weights", {{.*}} : tensor<1x3x1x1x4xbf16>
// CHECK: top.Weight() {name = "hl_bias", {{.*}} : tensor<2xf32>
// CHECK: hl.conv2d({{.*}}) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, relu = true, stride = array<i64: 1, 1>} : (tensor<1x3x2x2xbf16>, tensor<1x3x1x1x4xbf16>, tensor<2xf32>) -> tensor<1x2x2x2xbf16>
func.func @bf16(%arg0: tensor<1x3x2x2xbf16>) -> tensor<1x2x2x2xbf16> {
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<2x3x1x1xbf16>} : () -> tensor<2x3x1x1xbf16>
  %b = top.Weight() {name = "b", value = dense<[0.25, -1.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %y = top.Conv(%arg0, %w, %b) {kernel_shape = array<i64: 1, 1>, do_relu = true} : (tensor<1x3x2x2xbf16>, tensor<2x3x1x1xbf16>, tensor<2xf32>) -> tensor<1x2x2x2xbf16>
  return %y : tensor<1x2x2x2xbf16>
}

// -----

// NHWC (filter OHWI): the NCHW kernel between two transposes; bf16 ReLU6
// is relu + relu_limit.
// CHECK-LABEL: func @nhwc
// CHECK: %[[W:.*]] = top.Weight() {name = "hl_weights", {{.*}} : tensor<1x3x3x3x4xbf16>
// CHECK: %[[T:.*]] = hl.transpose(%arg0) {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x5x5x3xbf16>) -> tensor<1x3x5x5xbf16>
// CHECK: %[[C:.*]] = hl.conv2d(%[[T]], %[[W]], %{{.*}}) {{{.*}}relu = true, relu_limit = 6.000000e+00 : f64{{.*}}} : (tensor<1x3x5x5xbf16>, tensor<1x3x3x3x4xbf16>, tensor<2xf32>) -> tensor<1x2x3x3xbf16>
// CHECK: %[[B:.*]] = hl.transpose(%[[C]]) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x3xbf16>) -> tensor<1x3x3x2xbf16>
// CHECK: return %[[B]]
func.func @nhwc(%arg0: tensor<1x5x5x3xbf16>) -> tensor<1x3x3x2xbf16> {
  %w = top.Weight() {name = "w", value = dense<0.5> : tensor<2x3x3x3xbf16>} : () -> tensor<2x3x3x3xbf16>
  %n = top.None() : () -> none
  %y = top.Conv(%arg0, %w, %n) {kernel_shape = array<i64: 3, 3>, layout = #top.layout<NHWC>, do_relu = true, relu_limit = 6.0} : (tensor<1x5x5x3xbf16>, tensor<2x3x3x3xbf16>, none) -> tensor<1x3x3x2xbf16>
  return %y : tensor<1x3x3x2xbf16>
}

// -----

// Float ops between an int8 Dequant and Quant: an activation chain is one
// 256-entry hl.table; a max pool is hl.maxpool, with no table when the
// quantization is kept (the table would be the identity).
// CHECK-LABEL: func @between_quant
// CHECK-NOT: top.Dequant
// CHECK: %[[T:.*]] = top.Weight() {name = "hl_table", {{.*}} : tensor<256xi8>
// CHECK: hl.table(%arg0, %[[T]]) {lut_entries = 256 : i64} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-01:3>>, tensor<256xi8>) -> tensor<1x2x5x5x!quant.uniform<i8:f32, 3.000000e-03:-128>>
// CHECK: %[[M:.*]] = hl.maxpool(%arg0) {dilation = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x5x5x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-NOT: hl.table
// CHECK: return {{.*}}, %[[M]]
func.func @between_quant(%q: tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:3>>) -> (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.003:-128>>, tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:3>>) {
  %d = top.Dequant(%q) : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x2x5x5xf32>
  %s = top.Sigmoid(%d) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %r = top.Relu(%s) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  %y = top.Quant(%r) : (tensor<1x2x5x5xf32>) -> tensor<1x2x5x5x!quant.uniform<i8:f32, 0.003:-128>>
  %d2 = top.Dequant(%q) : (tensor<1x2x5x5x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x2x5x5xf32>
  %m = top.MaxPool(%d2) {kernel_shape = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  %mq = top.Quant(%m) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:3>>
  return %y, %mq : tensor<1x2x5x5x!quant.uniform<i8:f32, 0.003:-128>>, tensor<1x2x4x4x!quant.uniform<i8:f32, 0.1:3>>
}

// -----

// Concat between int8 Dequants and a Quant: the input with another
// quantization goes through a table, the one with the output's does not.
// CHECK-LABEL: func @concat
// CHECK: %[[T:.*]] = hl.table(%{{.*}}, %{{.*}}) {lut_entries = 256 : i64} : (tensor<1x2x3x!quant.uniform<i8:f32, 2.500000e-01:-2>>, tensor<256xi8>) -> tensor<1x2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>
// CHECK: hl.concat(%[[T]], %arg1) {axis = 1 : i64} : (tensor<1x2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<1x4x3x!quant.uniform<i8:f32, 5.000000e-01:1>>) -> tensor<1x6x3x!quant.uniform<i8:f32, 5.000000e-01:1>>
// CHECK-NOT: top.Concat
func.func @concat(%a: tensor<1x2x3xi8>, %b: tensor<1x4x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x6x3x!quant.uniform<i8:f32, 0.5:1>> {
  %qa = top.Cast(%a) : (tensor<1x2x3xi8>) -> tensor<1x2x3x!quant.uniform<i8:f32, 0.25:-2>>
  %da = top.Dequant(%qa) : (tensor<1x2x3x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<1x2x3xf32>
  %db = top.Dequant(%b) : (tensor<1x4x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x4x3xf32>
  %c = top.Concat(%da, %db) {axis = -2 : i64} : (tensor<1x2x3xf32>, tensor<1x4x3xf32>) -> tensor<1x6x3xf32>
  %y = top.Quant(%c) : (tensor<1x6x3xf32>) -> tensor<1x6x3x!quant.uniform<i8:f32, 0.5:1>>
  return %y : tensor<1x6x3x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// top-quantize's int8 max pool (on the int8 values, the result keeps the
// input's type) converts to hl.maxpool directly.
// CHECK-LABEL: func @int8_maxpool
// CHECK: %[[M:.*]] = hl.maxpool(%arg0) {dilation = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x2x6x6x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-NOT: top.MaxPool
// CHECK: return %[[M]]
func.func @int8_maxpool(%arg0: tensor<1x2x6x6x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:3>> {
  %0 = top.MaxPool(%arg0) {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:3>>
  return %0 : tensor<1x2x3x3x!quant.uniform<i8:f32, 0.1:3>>
}

// -----

// A nearest resize whose lowering the NPU refuses (600x600 -> 900x900 is
// no integer scale: the resize_nearest task needs a channel's input and
// output planes, 1.17 MB, in the 512 KiB LRAM) is not converted: the
// predicate convert-hl-to-hw applies is asked first and the Top ops stay.
// CHECK-LABEL: func @refused_resize
// CHECK-NOT: hl.
// CHECK: top.Resize
// CHECK-NOT: hl.
func.func @refused_resize(%a: tensor<1x1x600x600x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x1x900x900x!quant.uniform<i8:f32, 0.5:1>> {
  %d = top.Dequant(%a) : (tensor<1x1x600x600x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x1x600x600xf32>
  %r = top.Resize(%d) {coordinate_transformation_mode = #top.coordinate_mode<asymmetric>, nearest_mode = #top.nearest_mode<floor>, sizes = array<i64: 1, 1, 900, 900>} : (tensor<1x1x600x600xf32>) -> tensor<1x1x900x900xf32>
  %q = top.Quant(%r) : (tensor<1x1x900x900xf32>) -> tensor<1x1x900x900x!quant.uniform<i8:f32, 0.5:1>>
  return %q : tensor<1x1x900x900x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// The same resize at 2x is DMA only: converted.
// CHECK-LABEL: func @resize_2x
// CHECK: hl.resize_nearest(%arg0)
// CHECK-NOT: top.Resize
func.func @resize_2x(%a: tensor<1x1x600x600x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x1x1200x1200x!quant.uniform<i8:f32, 0.5:1>> {
  %d = top.Dequant(%a) : (tensor<1x1x600x600x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<1x1x600x600xf32>
  %r = top.Resize(%d) {coordinate_transformation_mode = #top.coordinate_mode<asymmetric>, nearest_mode = #top.nearest_mode<floor>, sizes = array<i64: 1, 1, 1200, 1200>} : (tensor<1x1x600x600xf32>) -> tensor<1x1x1200x1200xf32>
  %q = top.Quant(%r) : (tensor<1x1x1200x1200xf32>) -> tensor<1x1x1200x1200x!quant.uniform<i8:f32, 0.5:1>>
  return %q : tensor<1x1x1200x1200x!quant.uniform<i8:f32, 0.5:1>>
}
