// RUN: strata-opt %s --split-input-file --verify-diagnostics
// hl.table16 (the interpolated int16-input table) and the int16 result of
// an int8 convolution it reads: what verifies, and each malformed form's
// error.

!q16 = !quant.uniform<i16:f32, 0.001:7>
!q8 = !quant.uniform<i8:f32, 0.05:-3>
func.func @ok(%x: tensor<1x4x6x6xi8>, %w: tensor<1x4x3x3x4xi8>, %sb: tensor<4x3xi32>, %t: tensor<513xi16>) -> tensor<1x4x6x6x!q8> {
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_zp = 7 : i64, clip_min = -32768 : i64, clip_max = 32767 : i64} : (tensor<1x4x6x6xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x6x6x!q16>
  %1 = hl.table16(%0, %t) : (tensor<1x4x6x6x!q16>, tensor<513xi16>) -> tensor<1x4x6x6x!q8>
  return %1 : tensor<1x4x6x6x!q8>
}

// -----

func.func @entries(%x: tensor<8xi16>, %t: tensor<512xi16>) {
  // expected-error @+1 {{table must be 513 i16 entries, got 'tensor<512xi16>'}}
  %0 = hl.table16(%x, %t) : (tensor<8xi16>, tensor<512xi16>) -> tensor<8xi8>
  return
}

// -----

func.func @entry_type(%x: tensor<8xi16>, %t: tensor<513xi8>) {
  // expected-error @+1 {{table must be 513 i16 entries, got 'tensor<513xi8>'}}
  %0 = hl.table16(%x, %t) : (tensor<8xi16>, tensor<513xi8>) -> tensor<8xi8>
  return
}

// -----

func.func @rank(%x: tensor<8xi16>, %t: tensor<1x513xi16>) {
  // expected-error @+1 {{table must be 513 i16 entries, got 'tensor<1x513xi16>'}}
  %0 = hl.table16(%x, %t) : (tensor<8xi16>, tensor<1x513xi16>) -> tensor<8xi8>
  return
}

// -----

func.func @int8_input(%x: tensor<8xi8>, %t: tensor<513xi16>) {
  // expected-error @+1 {{input must be signed int16, got 'tensor<8xi8>'}}
  %0 = hl.table16(%x, %t) : (tensor<8xi8>, tensor<513xi16>) -> tensor<8xi8>
  return
}

// -----

func.func @unsigned_input(%x: tensor<8xui16>, %t: tensor<513xi16>) {
  // expected-error @+1 {{input must be signed int16, got 'tensor<8xui16>'}}
  %0 = hl.table16(%x, %t) : (tensor<8xui16>, tensor<513xi16>) -> tensor<8xi8>
  return
}

// -----

func.func @int16_result(%x: tensor<8xi16>, %t: tensor<513xi16>) {
  // expected-error @+1 {{result must be signed int8 over [-128, 127], got 'tensor<8xi16>'}}
  %0 = hl.table16(%x, %t) : (tensor<8xi16>, tensor<513xi16>) -> tensor<8xi16>
  return
}

// -----

func.func @narrow_result(%x: tensor<8xi16>, %t: tensor<513xi16>) {
  // expected-error @+1 {{result must be signed int8 over [-128, 127]}}
  %0 = hl.table16(%x, %t) : (tensor<8xi16>, tensor<513xi16>) -> tensor<8x!quant.uniform<i8<-127:127>:f32, 0.1>>
  return
}

// -----

func.func @shape(%x: tensor<8xi16>, %t: tensor<513xi16>) {
  // expected-error @+1 {{input and result must have one shape}}
  %0 = hl.table16(%x, %t) : (tensor<8xi16>, tensor<513xi16>) -> tensor<4xi8>
  return
}

// -----

func.func @dynamic(%x: tensor<?xi16>, %t: tensor<513xi16>) {
  // expected-error @+1 {{needs static shapes}}
  %0 = hl.table16(%x, %t) : (tensor<?xi16>, tensor<513xi16>) -> tensor<?xi8>
  return
}

// -----

func.func @int16_conv_input(%x: tensor<1x4x6x6xi16>, %w: tensor<1x4x3x3x4xi8>, %sb: tensor<4x3xi32>) {
  // expected-error @+1 {{an int16 result needs int8 input and weights, got 'tensor<1x4x6x6xi16>' and 'tensor<1x4x3x3x4xi8>'}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, clip_min = -32768 : i64, clip_max = 32767 : i64} : (tensor<1x4x6x6xi16>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x6x6xi16>
  return
}

// -----

func.func @int16_conv_clip(%x: tensor<1x4x6x6xi8>, %w: tensor<1x4x3x3x4xi8>, %sb: tensor<4x3xi32>) {
  // expected-error @+1 {{clip [-40000, 32767] must be an ordered range within the output's [-32768, 32767]}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, clip_min = -40000 : i64, clip_max = 32767 : i64} : (tensor<1x4x6x6xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x6x6xi16>
  return
}

// -----

func.func @int16_dw_bf16(%x: tensor<1x4x6x6xbf16>, %w: tensor<1x3x3x4xbf16>, %sb: tensor<4xf32>) {
  // expected-error @+1 {{an int16 result needs int8 input and weights}}
  %0 = hl.depthwise_conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xbf16>, tensor<1x3x3x4xbf16>, tensor<4xf32>) -> tensor<1x4x6x6xi16>
  return
}

// -----

func.func @int16_segmented(%x: tensor<1x4x6x6xi8>, %w: tensor<1x4x3x3x4xi8>, %sb: tensor<4x3xi32>) {
  // expected-error @+1 {{an int16 result is not written segmented}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, clip_min = -32768 : i64, clip_max = 32767 : i64, segment_output = array<i64: 2, 1, 1, 1, 1>} : (tensor<1x4x6x6xi8>, tensor<1x4x3x3x4xi8>, tensor<4x3xi32>) -> tensor<1x4x4x4x4xi16>
  return
}
