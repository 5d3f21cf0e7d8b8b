// RUN: strata-opt %s --split-input-file --convert-tosa-to-top --verify-diagnostics
// Every TOSA form convert-tosa-to-top refuses: an error naming the op, the
// field and the value.

// A variable written inside a region: the value after it would depend on
// the branch taken.
tosa.variable @v = dense<0.0> : tensor<4xf32>
func.func @variable_write_in_region(%c: tensor<i1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.cond_if %c : tensor<i1> -> tensor<4xf32> {
    // expected-error @+1 {{'tosa.variable_write' of variable @v is written inside a region}}
    tosa.variable_write @v, %a : tensor<4xf32>
    tosa.yield %a : tensor<4xf32>
  } else {
    tosa.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// A read before any write of a variable with no initial value.
tosa.variable @w : tensor<4xf32>
func.func @variable_no_initial_value() -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.variable_read' of variable @w is read before any write and has no initial_value of its type}}
  %0 = tosa.variable_read @w : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @other_dialect(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.addf' is not a TOSA op; a TOSA model may hold only TOSA and func ops}}
  %0 = arith.addf %a, %a : tensor<4xf32>
  %1 = tosa.abs %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @i48(%x: tensor<1x4x4x2xi16>) -> tensor<1x4x4x3xi48> {
  %w = "tosa.const"() {values = dense<1> : tensor<3x1x1x2xi8>} : () -> tensor<3x1x1x2xi8>
  // expected-error @+1 {{'tosa.const' element type: 'i48' has no Top equivalent (Top has no i48 tensors)}}
  %b = "tosa.const"() {values = dense<0> : tensor<3xi48>} : () -> tensor<3xi48>
  %iz = "tosa.const"() {values = dense<0> : tensor<1xi16>} : () -> tensor<1xi16>
  %wz = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %iz, %wz {acc_type = i48, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xi16>, tensor<3x1x1x2xi8>, tensor<3xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x4x4x3xi48>
  return %0 : tensor<1x4x4x3xi48>
}

// -----

func.func @resize_int_bilinear(%a: tensor<1x3x3x1xi8>) -> tensor<1x6x6x1xi32> {
  %s = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @+1 {{'tosa.resize' mode: integer BILINEAR (an unnormalized result) is not handled}}
  %0 = tosa.resize %a, %s, %o, %b {mode = #tosa.resize_mode<BILINEAR>} : (tensor<1x3x3x1xi8>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6x6x1xi32>
  return %0 : tensor<1x6x6x1xi32>
}

// -----

func.func @resize_offset(%a: tensor<1x3x3x1xf32>) -> tensor<1x6x6x1xf32> {
  %s = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %b = tosa.const_shape {values = dense<[2, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-error @+1 {{'tosa.resize' offset: [1, 0] with scale [2, 1, 2, 1] is neither 0 nor (d - n) / 2 on both axes}}
  %0 = tosa.resize %a, %s, %o, %b {mode = #tosa.resize_mode<NEAREST_NEIGHBOR>} : (tensor<1x3x3x1xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6x6x1xf32>
  return %0 : tensor<1x6x6x1xf32>
}

// -----

func.func @rescale_shift(%a: tensor<4xi32>) -> tensor<4xi8> {
  %m = "tosa.const"() {values = dense<1073741824> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = "tosa.const"() {values = dense<63> : tensor<1xi8>} : () -> tensor<1xi8>
  %iz = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %oz = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.rescale' shift: must be in [2, 62], got 63}}
  %0 = tosa.rescale %a, %m, %s, %iz, %oz {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_runtime_multiplier(%a: tensor<4xi32>, %m: tensor<1xi32>) -> tensor<4xi8> {
  %s = "tosa.const"() {values = dense<30> : tensor<1xi8>} : () -> tensor<1xi8>
  %iz = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %oz = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.rescale' multiplier: must be a constant (tosa.const or tosa.const_shape)}}
  %0 = tosa.rescale %a, %m, %s, %iz, %oz {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @max_pool_nan_ignore(%x: tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32> {
  // expected-error @+1 {{'tosa.max_pool2d' nan_mode: IGNORE is not handled for float inputs}}
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}

// -----

func.func @transpose_conv_zp(%x: tensor<1x2x2x1xi8>) -> tensor<1x3x3x1xi32> {
  %w = "tosa.const"() {values = dense<1> : tensor<1x2x2x1xi8>} : () -> tensor<1x2x2x1xi8>
  %b = "tosa.const"() {values = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %iz = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %wz = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{'tosa.transpose_conv2d' input_zp/weight_zp: non-zero zero points (3, 0) are not handled}}
  %0 = tosa.transpose_conv2d %x, %w, %b, %iz, %wz {acc_type = i32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x1xi8>, tensor<1x2x2x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x1xi32>
  return %0 : tensor<1x3x3x1xi32>
}

// -----

func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'tosa.abs' type: unranked tensors are not handled}}
  %0 = tosa.abs %a : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// MX block-scaled data: Top has no f6 or mxint8 tensors, so a function may
// not take or return them (f6 data lives only inside the model).
// expected-error @+1 {{function @f6_argument argument 0 has element type 'f6E2M3FN', which Top has no tensors of}}
func.func @f6_argument(%d: tensor<4x32xf6E2M3FN>, %s: tensor<4x1xf8E8M0FNU>) -> tensor<4x32xf32> {
  %0 = tosa.cast_from_block_scaled %d, %s {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<4x32xf6E2M3FN>, tensor<4x1xf8E8M0FNU>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// expected-error @+1 {{function @f6_result result 0 has element type 'f6E3M2FN'}}
func.func @f6_result(%x: tensor<4x32xf32>) -> tensor<4x32xf6E3M2FN> {
  %0, %1 = tosa.cast_to_block_scaled %x {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<4x32xf32>) -> (tensor<4x32xf6E3M2FN>, tensor<4x1xf8E8M0FNU>)
  return %0 : tensor<4x32xf6E3M2FN>
}

// -----

// expected-error @+1 {{function @mxint8_argument argument 0 has element type '!tosa.mxint8'}}
func.func @mxint8_argument(%d: tensor<4x32x!tosa.mxint8>, %s: tensor<4x1xf8E8M0FNU>) -> tensor<4x32xf32> {
  %0 = tosa.cast_from_block_scaled %d, %s {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<4x32x!tosa.mxint8>, tensor<4x1xf8E8M0FNU>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

func.func @mxint8_result_inside(%x: tensor<4x32xf32>) -> tensor<4x1xf8E8M0FNU> {
  // expected-error @+1 {{'tosa.cast_to_block_scaled' output_data: element type '!tosa.mxint8' is not handled (Top has no such type; the MX formats converted are f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN and f4E2M1FN)}}
  %0, %1 = tosa.cast_to_block_scaled %x {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<4x32xf32>) -> (tensor<4x32x!tosa.mxint8>, tensor<4x1xf8E8M0FNU>)
  return %1 : tensor<4x1xf8E8M0FNU>
}

// -----

// f6 data used by an op other than the block-scaled ones.
func.func @f6_into_reshape(%x: tensor<4x32xf32>) -> tensor<4x1xf8E8M0FNU> {
  %0, %1 = tosa.cast_to_block_scaled %x {block_size = #tosa.block_size<BLOCK_SIZE_32>} : (tensor<4x32xf32>) -> (tensor<4x32xf6E2M3FN>, tensor<4x1xf8E8M0FNU>)
  %shape = tosa.const_shape {values = dense<[128]> : tensor<1xindex>} : () -> !tosa.shape<1>
  // expected-error @+1 {{'tosa.reshape' element type: 'f6E2M3FN' has no Top equivalent (Top has no f6E2M3FN tensors)}}
  %2 = tosa.reshape %0, %shape : (tensor<4x32xf6E2M3FN>, !tosa.shape<1>) -> tensor<128xf6E2M3FN>
  return %1 : tensor<4x1xf8E8M0FNU>
}

// -----

func.func @apply_scale_inexact(%a: tensor<5xi32>) -> tensor<5xi32> {
  %m = "tosa.const"() {values = dense<1073741824> : tensor<5xi32>} : () -> tensor<5xi32>
  %s = "tosa.const"() {values = dense<40> : tensor<5xi8>} : () -> tensor<5xi8>
  // expected-error @+1 {{'tosa.apply_scale' rounding_mode: INEXACT_ROUND is not handled (MLIR's lowering refuses it too)}}
  %0 = tosa.apply_scale %a, %m, %s {rounding_mode = INEXACT_ROUND} : (tensor<5xi32>, tensor<5xi32>, tensor<5xi8>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}
