// RUN: strata-opt %s --split-input-file --verify-diagnostics

func.func @packing(%x: tensor<1x4x6x6xi8>, %w: tensor<1x4x3x3x4xi8>, %sb: tensor<5x3xi32>) {
  // expected-error @+1 {{weights [1, 4, 3, 3, 4] must be packed (O/B) x C/groups x KH x KW x B for O = 5, C/groups = 4}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>, tensor<1x4x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x6x6xi8>
  return
}

// -----

func.func @scale_bias(%x: tensor<1x4x6x6xi8>, %w: tensor<2x4x3x3x4xi8>, %sb: tensor<5x2xi32>) {
  // expected-error @+1 {{scale_bias must be 5x3 i32 (rows bias, multiplier, shift) or 5x4 (and the output zero point), got 'tensor<5x2xi32>'}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>, tensor<2x4x3x3x4xi8>, tensor<5x2xi32>) -> tensor<1x5x6x6xi8>
  return
}

// -----

func.func @clip(%x: tensor<1x4x6x6xi8>, %w: tensor<2x4x3x3x4xi8>, %sb: tensor<5x3xi32>) {
  // expected-error @+1 {{clip [10, 3] must be an ordered range within the output's [-128, 127]}}
  %0 = hl.conv2d(%x, %w, %sb) {clip_min = 10 : i64, clip_max = 3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>, tensor<2x4x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x6x6xi8>
  return
}

// -----

func.func @shape(%x: tensor<1x4x6x6xi8>, %w: tensor<2x4x3x3x4xi8>, %sb: tensor<5x3xi32>) {
  // expected-error @+1 {{result shape [1, 5, 6, 6] must be [1, 5, 3, 3] for input [1, 4, 6, 6], kernel [3, 3], pad [1, 1, 1, 1], stride [2, 2], dilation [1, 1]}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>, tensor<2x4x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x6x6xi8>
  return
}

// -----

func.func @segments(%x: tensor<1x4x6x6xi8>, %w: tensor<2x4x3x3x4xi8>, %sb: tensor<5x3xi32>) {
  // expected-error @+1 {{segments = 2 needs the N x C x 4 x Hs x Ws input of hl.segmentation, got [1, 4, 6, 6]}}
  %0 = hl.conv2d(%x, %w, %sb) {segments = 2 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xi8>, tensor<2x4x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x2x2xi8>
  return
}

// -----

func.func @format(%x: tensor<1x4x6x6xf32>, %w: tensor<2x4x3x3x4xi8>, %sb: tensor<5x3xi32>) {
  // expected-error @+1 {{operand 'tensor<1x4x6x6xf32>' is not in the result's number format (int8)}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x6x6xf32>, tensor<2x4x3x3x4xi8>, tensor<5x3xi32>) -> tensor<1x5x6x6xi8>
  return
}

// -----

func.func @table(%x: tensor<4xi8>, %t: tensor<128xi8>) {
  // expected-error @+1 {{lut_entries 128: an int8 input indexes a table of 256 entries}}
  %0 = hl.table(%x, %t) {lut_entries = 128 : i64} : (tensor<4xi8>, tensor<128xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @table_channels(%x: tensor<1x3x4xi8>, %t: tensor<2x256xi8>) {
  // expected-error @+1 {{a per-channel table 'tensor<2x256xi8>' needs 2 channels in the input's dim 1, the input is [1, 3, 4]}}
  %0 = hl.table(%x, %t) {lut_entries = 256 : i64} : (tensor<1x3x4xi8>, tensor<2x256xi8>) -> tensor<1x3x4xi8>
  return
}

// -----

func.func @table_rank(%x: tensor<1x3x4xi8>, %t: tensor<1x3x256xi8>) {
  // expected-error @+1 {{table must be 256 int8 entries (or C x 256, one table per channel), got 'tensor<1x3x256xi8>'}}
  %0 = hl.table(%x, %t) {lut_entries = 256 : i64} : (tensor<1x3x4xi8>, tensor<1x3x256xi8>) -> tensor<1x3x4xi8>
  return
}

// -----

func.func @zero_points_segmented(%x: tensor<1x4x6x6xi8>, %w: tensor<1x4x1x1x4xi8>, %sb: tensor<4x4xi32>) {
  // expected-error @+1 {{scale_bias 'tensor<4x4xi32>' has per-channel output zero points: segment_output pads with one zero point and cannot be used with them}}
  %0 = hl.conv2d(%x, %w, %sb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, segment_output = array<i64: 2, 0, 0, 0, 0>} : (tensor<1x4x6x6xi8>, tensor<1x4x1x1x4xi8>, tensor<4x4xi32>) -> tensor<1x4x4x3x3xi8>
  return
}

// -----

func.func @segmentation(%x: tensor<1x4x6x6xi8>) {
  // expected-error @+1 {{result shape [1, 4, 4, 3, 3] must be [1, 4, 4, 4, 3]}}
  %0 = hl.segmentation(%x) {stride = 2 : i64, pad = array<i64: 1, 0, 1, 0>} : (tensor<1x4x6x6xi8>) -> tensor<1x4x4x3x3xi8>
  return
}

// -----

func.func @transpose(%x: tensor<1x4x6x6xi8>) {
  // expected-error @+1 {{perm [0, 2, 2, 1] is not a permutation}}
  %0 = hl.transpose(%x) {perm = array<i64: 0, 2, 2, 1>} : (tensor<1x4x6x6xi8>) -> tensor<1x6x6x4xi8>
  return
}

// -----

func.func @shift(%x: tensor<4xi8>) {
  // expected-error @+1 {{output_shift 64 must be in [0, 63]}}
  %0 = hl.add(%x, %x) {output_shift = 64 : i64} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @depth_to_space(%x: tensor<1x6x2x2xi8>) {
  // expected-error @+1 {{input must be N x C*4 x H x W, got [1, 6, 2, 2]}}
  %0 = hl.depth_to_space(%x) {block = 2 : i64} : (tensor<1x6x2x2xi8>) -> tensor<1x1x4x4xi8>
  return
}

// -----

func.func @reduce(%x: tensor<1x6x2x2xi8>) {
  // expected-error @+1 {{axes [2, 2] must be distinct dims of the rank-4 input}}
  %0 = hl.reduce_mean(%x) {axes = array<i64: 2, 2>} : (tensor<1x6x2x2xi8>) -> tensor<1x6x1x2xi8>
  return
}

// -----

func.func @rank(%x: tensor<4xi8>) {
  // expected-error @+1 {{input must be N x C x H x W (or segmented N x C x s*s x Hs x Ws), got [4]}}
  %0 = hl.maxpool(%x) {kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<4xi8>) -> tensor<4xi8>
  return
}
