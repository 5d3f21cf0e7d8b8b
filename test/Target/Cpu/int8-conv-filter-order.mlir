// conv2d_im2col_gemm_i8's filter_packed param (the 19th) says the packed
// filter's K order: 2 for a tap-major filter (one group, a window, strides
// up to 4, input channels a multiple of 4: kernels::int8ConvTapMajor), 1
// (channel-major) otherwise, here the second convolution's 3 input
// channels.
// RUN: strata compile %s --target cpu --no-optimize -o %t.strata --report | FileCheck %s --check-prefix=REPORT
// RUN: strata inspect %t.strata | FileCheck %s

// REPORT: kernel 'conv2d_im2col_gemm_i8': 2 dispatch(es)

// CHECK: cpu kernel 'conv2d_im2col_gemm_i8', {{.*}} params [1, 4, 9, 9, 9, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2,
// CHECK: cpu kernel 'conv2d_im2col_gemm_i8', {{.*}} params [1, 3, 9, 9, 5, 5, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1,
// CHECK-NOT: cpu kernel 'conv2d_im2col_gemm_i8'

!qx = !quant.uniform<i8:f32, 0.02:-22>
!qy = !quant.uniform<i8:f32, 0.04:-128>
!qw = !quant.uniform<i8:f32:0, {0.007,0.006,0.005}>
!qw2 = !quant.uniform<i8:f32:0, {0.007,0.006,0.005}>

func.func @main(%arg0: tensor<1x4x9x9xf32> {top.name = "x"}) -> (tensor<1x3x5x5xf32> {top.name = "y"}) {
  %x = top.Input(%arg0) : (tensor<1x4x9x9xf32>) -> tensor<1x4x9x9xf32>
  %xq = top.Quant(%x) : (tensor<1x4x9x9xf32>) -> tensor<1x4x9x9x!qx>
  %w = top.Weight() {name = "w", value = dense_resource<w_blob> : tensor<3x4x3x3x!qw>} : () -> tensor<3x4x3x3x!qw>
  %b = top.None() : () -> none
  %acc = top.Conv(%xq, %w, %b) {input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x9x9x!qx>, tensor<3x4x3x3x!qw>, none) -> tensor<1x3x9x9xi32>
  %yq = top.Requant(%acc) {multiplier = array<i64: 1079423522, 1820147114, 1079423522>, rshift = array<i64: 37, 38, 37>} : (tensor<1x3x9x9xi32>) -> tensor<1x3x9x9x!qx>
  %w2 = top.Weight() {name = "w2", value = dense_resource<w2_blob> : tensor<3x3x3x3x!qw2>} : () -> tensor<3x3x3x3x!qw2>
  %b2 = top.None() : () -> none
  %acc2 = top.Conv(%yq, %w2, %b2) {input_zp = array<i64: -22>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x9x9x!qx>, tensor<3x3x3x3x!qw2>, none) -> tensor<1x3x5x5xi32>
  %y2 = top.Requant(%acc2) {multiplier = array<i64: 1079423522, 1820147114, 1079423522>, rshift = array<i64: 37, 38, 37>} : (tensor<1x3x5x5xi32>) -> tensor<1x3x5x5x!qy>
  %y = top.Dequant(%y2) : (tensor<1x3x5x5x!qy>) -> tensor<1x3x5x5xf32>
  return %y : tensor<1x3x5x5xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x40000000030A11181F262D343B424950575E656C737A81888F969DA4ABB2B9C0C7CED5DCE3EAF1F8FF060D141B222930373E454C535A61686F767D848B9299A0A7AEB5BCC3CAD1D8DFE6EDF4FB020910171E252C333A41484F565D646B727901878E959CA3AAB1B8BFC6CDD4DBE2E9F0",
      w2_blob: "0x4000000001060B10151A1F24292E33383D42474C51565B60656A6F74797E83888D92979CA1A6ABB0B5BABFC4C9CED3D8DDE2E7ECF1F6FB00050A0F14191E23282D32373C41464B50555A5F64696E73787D82878C91"
    }
  }
#-}
