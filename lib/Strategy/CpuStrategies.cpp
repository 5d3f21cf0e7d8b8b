//===- CpuStrategies.cpp - the generic and CPU strategy tables ------------===//
//
// The CPU target's kernel candidates. The runtime has the f32 matmul and
// convolution kernels (conv2d 1x1 / im2col / depthwise, matmul gemm / gemv
// / batched: strata/Kernels/KernelAbi.h, whose param lists start with the
// ones here); an op whose kernel the runtime lacks is compiled by codegen.
// Priorities (higher wins): 31 narrow pointwise conv, 30 pointwise-conv
// GEMM, 25 depthwise / GEMV, 20 GEMM, 15 batched GEMM, 12 Winograd, 11 the
// direct stem convolution, 10 the general kernels, 0 the
// codegen fallback; the oneDNN candidates (when built) sit below the hand
// kernels they compete with.
//
//===----------------------------------------------------------------------===//

#include "strata/Strategy/CpuStrategies.h"
#include "strata/Strategy/OptionalLibraries.h"

#include <cstdio>
#include <cstdlib>

namespace strata::strategy {

static const char *kCpu = "cpu";

static TensorRef in(unsigned i) { return TensorRef::operand(i); }
static TensorRef out(unsigned i) { return TensorRef::result(i); }

static Clause dtypeIs(TensorRef t, std::vector<std::string> dtypes) {
  return Clause::dtypeIn(t, std::move(dtypes));
}
static Clause dimIs(TensorRef t, int64_t d, Clause::Cmp cmp, int64_t k) {
  return Clause::dim(t, d, cmp, k);
}
static Clause nchw() {
  return Clause::attrEq("layout", AttrValue::string("NCHW"));
}

static KernelParam p(std::string name, ParamSource source) {
  return {std::move(name), std::move(source)};
}
static KernelParam dimParam(std::string name, TensorRef t, int64_t d) {
  return p(std::move(name), ParamSource::dim(t, d));
}

/// The parameters every 2-d NCHW window kernel takes: the input and output
/// geometry, kernel size, strides, pads and dilations.
static std::vector<KernelParam> window2dParams(bool withFilter) {
  std::vector<KernelParam> ps = {
      dimParam("N", in(0), 0),   dimParam("C", in(0), 1),
      dimParam("H", in(0), 2),   dimParam("W", in(0), 3),
      dimParam("OH", out(0), 2), dimParam("OW", out(0), 3)};
  if (withFilter) {
    ps.push_back(dimParam("O", in(1), 0));
    ps.push_back(dimParam("KH", in(1), 2));
    ps.push_back(dimParam("KW", in(1), 3));
  } else {
    ps.push_back(p("KH", ParamSource::attrElement("kernel_shape", 0)));
    ps.push_back(p("KW", ParamSource::attrElement("kernel_shape", 1)));
  }
  const char *names[] = {"SH", "SW"};
  for (int i = 0; i < 2; ++i)
    ps.push_back(p(names[i], ParamSource::attrElement("strides", i)));
  const char *pads[] = {"PT", "PL", "PB", "PR"};
  for (int i = 0; i < 4; ++i)
    ps.push_back(p(pads[i], ParamSource::attrElement("pads", i)));
  const char *dils[] = {"DH", "DW"};
  for (int i = 0; i < 2; ++i)
    ps.push_back(p(dils[i], ParamSource::attrElement("dilations", i)));
  return ps;
}

/// The batched matmul kernels' params: B (the output's leading dims), M, N,
/// K, transpose_b.
static std::vector<KernelParam> batchedMatmulParams() {
  return {p("B", ParamSource::dimProduct(out(0), 0, -2)),
          dimParam("M", out(0), -2), dimParam("N", out(0), -1),
          dimParam("K", in(0), -1),
          p("transpose_b", ParamSource::attrInt("right_transpose"))};
}

Error registerGenericStrategies(StrategyRegistry &registry) {
  Implementation codegen;
  codegen.name = kCodegenImplName;
  codegen.priority = kCodegenPriority;
  codegen.lowering = Lowering::codegen();
  return registry.setFallback(std::move(codegen));
}

static Error registerConv(StrategyRegistry &r) {
  using Cmp = Clause::Cmp;
  // Every Conv kernel is 2-d NCHW.
  Condition conv2d = {Clause::rank(in(0), 4), nchw()};
  Condition f32 = {dtypeIs(in(0), {"f32"}), dtypeIs(in(1), {"f32"})};
  std::vector<KernelParam> geometry = window2dParams(/*withFilter=*/true);
  geometry.push_back(p("G", ParamSource::attrInt("group")));

  Implementation pointwise{
      "conv2d.1x1_gemm",
      30,
      f32 && Condition{Clause::attrAllEqual("kernel_shape", 1),
                       Clause::attrAllEqual("strides", 1),
                       Clause::attrAllEqual("pads", 0),
                       Clause::attrEq("group", AttrValue::integer(1))},
      Lowering::kernelCall(
          "conv2d_1x1_gemm_f32",
          {dimParam("N", in(0), 0), dimParam("K", in(0), 1),
           p("HW", ParamSource::dimProduct(in(0), 2, ParamSource::kEnd)),
           dimParam("O", in(1), 0)}),
      {{"tile_m", 64}, {"tile_n", 256}, {"tile_k", 256}},
      ""};
  // group == C: the filter has one input channel per group and the input
  // more than one channel.
  Implementation depthwise{
      "conv2d.depthwise",
      25,
      {dtypeIs(in(0), {"f32"}), dimIs(in(1), 1, Cmp::Eq, 1),
       dimIs(in(0), 1, Cmp::Ne, 1)},
      Lowering::kernelCall("conv2d_depthwise_f32", geometry),
      {{"tile_w", 8}},
      ""};
  // Winograd F(4x4, 3x3) (lib/Kernels/Winograd.cpp): 4x fewer
  // multiplications than direct, transforms amortized over the channels;
  // on outputs up to 10x10 the kernel takes F(2x2, 3x3) (2.25x fewer).
  // Above im2col (and oneDNN) where it measured faster: ResNet-50's 3x3
  // layers with outputs of 56, 28 and 14 squared (2.6-2.9x faster than
  // im2col), 7x7 outputs with 16 to 512 channels (F(2x2): 1.1-2.4x); at
  // 4x4 both lose to im2col, hence the output-size clauses
  // (docs/cpu-kernels.md).
  Implementation winograd{
      "conv2d.winograd_f43",
      12,
      f32 &&
          Condition{Clause::attrAllEqual("kernel_shape", 3),
                    Clause::attrAllEqual("strides", 1),
                    Clause::attrAllEqual("dilations", 1),
                    Clause::attrEq("group", AttrValue::integer(1)),
                    dimIs(in(0), 1, Cmp::Ge, 16), dimIs(in(1), 0, Cmp::Ge, 16),
                    dimIs(out(0), 2, Cmp::Ge, 7),
                    dimIs(out(0), 3, Cmp::Ge, 7)},
      Lowering::kernelCall("conv2d_winograd_f43_f32", geometry),
      {{"tile_hw", 32}},
      ""};
  Implementation im2col{
      "conv2d.im2col_gemm",
      10,
      f32,
      Lowering::kernelCall("conv2d_im2col_gemm_f32", geometry),
      {{"tile_m", 64}, {"tile_n", 128}, {"tile_k", 256}},
      ""};
  // The integer path (i8 storage, int32 accumulation); disjoint from the f32
  // one by dtype, so both sit at priority 10.
  // (int8 or uint8 input, int8 weights; lib/Kernels/Int8Gemm.cpp).
  Condition int8 = {dtypeIs(in(0), {"i8", "qi8", "ui8", "qui8"}),
                    dtypeIs(in(1), {"i8", "qi8"})};
  Implementation im2colInt8{
      "conv2d.im2col_gemm_i8",
      10,
      int8,
      Lowering::kernelCall("conv2d_im2col_gemm_i8", geometry),
      {{"tile_m", 32}, {"tile_n", 128}, {"tile_k", 512}},
      ""};
  Implementation pointwiseInt8{
      "conv2d.1x1_gemm_i8",
      30,
      int8 && Condition{Clause::attrAllEqual("kernel_shape", 1),
                        Clause::attrAllEqual("strides", 1),
                        Clause::attrAllEqual("pads", 0),
                        Clause::attrEq("group", AttrValue::integer(1))},
      Lowering::kernelCall(
          "conv2d_1x1_gemm_i8",
          {dimParam("N", in(0), 0), dimParam("K", in(0), 1),
           p("HW", ParamSource::dimProduct(in(0), 2, ParamSource::kEnd)),
           dimParam("O", in(1), 0)}),
      {{"tile_m", 32}, {"tile_n", 256}, {"tile_k", 512}},
      ""};
  Implementation depthwiseInt8{
      "conv2d.depthwise_i8",
      25,
      int8 &&
          Condition{dimIs(in(1), 1, Cmp::Eq, 1), dimIs(in(0), 1, Cmp::Ne, 1)},
      Lowering::kernelCall("conv2d_depthwise_i8", geometry),
      {{"tile_w", 16}},
      ""};
  // The stride-2 form of the same kernel (5x5 input tiles 4 apart, 25
  // points: 1.44x fewer multiplications than direct, 16 transformed filter
  // matrices): ResNet-50's three stride-2 3x3 layers (outputs 28, 14 and 7
  // squared) measured 1.1-1.2x faster than the GEMM convolution in the
  // model; with fewer than 64 input channels on large outputs (32 at 56x56,
  // 16 at 112x112) the transforms outweigh the saving, hence C >= 64.
  // Blocks of 16 tiles (whole GEMM panels; the 14x14 output 0.2 ms faster
  // than with 32 in the model) (docs/cpu-kernels.md).
  Implementation winogradStride2{
      "conv2d.winograd_s2",
      12,
      f32 &&
          Condition{Clause::attrAllEqual("kernel_shape", 3),
                    Clause::attrAllEqual("strides", 2),
                    Clause::attrAllEqual("dilations", 1),
                    Clause::attrEq("group", AttrValue::integer(1)),
                    dimIs(in(0), 1, Cmp::Ge, 64), dimIs(in(1), 0, Cmp::Ge, 16),
                    dimIs(out(0), 2, Cmp::Ge, 7),
                    dimIs(out(0), 3, Cmp::Ge, 7)},
      Lowering::kernelCall("conv2d_winograd_f43_f32", geometry),
      {{"tile_hw", 16}},
      ""};
  for (Implementation *impl :
       {&pointwise, &depthwise, &winograd, &im2col, &im2colInt8,
        &pointwiseInt8, &depthwiseInt8, &winogradStride2})
    if (Error e = r.addForTarget("top.Conv", kCpu, std::move(*impl), conv2d))
      return e;
  // --quantize bf16, group 1 (1x1 included): the bf16 GEMM with the filter
  // packed at compile time and the im2col matrix packed per block
  // (lib/Kernels/Bf16Gemm.cpp bf16Conv2d); disjoint from the others by
  // dtype.
  Implementation im2colBf16{
      "conv2d.im2col_gemm_bf16",
      10,
      {dtypeIs(in(0), {"bf16"}), dtypeIs(in(1), {"bf16"}),
       Clause::attrEq("group", AttrValue::integer(1))},
      Lowering::kernelCall("conv2d_im2col_gemm_bf16", geometry),
      {{"tile_m", 96}, {"tile_n", 256}, {"tile_k", 512}},
      ""};
  if (Error e =
          r.addForTarget("top.Conv", kCpu, std::move(im2colBf16), conv2d))
    return e;
  // bf16 depthwise: the f32 depthwise kernel on planes widened to f32.
  Implementation depthwiseBf16{
      "conv2d.depthwise_bf16",
      25,
      {dtypeIs(in(0), {"bf16"}), dtypeIs(in(1), {"bf16"}),
       dimIs(in(1), 1, Cmp::Eq, 1), dimIs(in(0), 1, Cmp::Ne, 1)},
      Lowering::kernelCall("conv2d_depthwise_bf16", geometry),
      {{"tile_w", 8}},
      ""};
  if (Error e =
          r.addForTarget("top.Conv", kCpu, std::move(depthwiseBf16), conv2d))
    return e;
  // A first convolution of few input channels, 3x3 stride 2 (MobileNetV2's
  // stem): computed directly (lib/Kernels/StemConv*.cpp), above im2col,
  // whose K = C * 9 matrix costs as much to build as to multiply.
  Implementation stem{
      "conv2d.stem_direct",
      11,
      f32 && Condition{Clause::attrAllEqual("kernel_shape", 3),
                       Clause::attrAllEqual("strides", 2),
                       Clause::attrAllEqual("dilations", 1),
                       Clause::attrEq("group", AttrValue::integer(1)),
                       dimIs(in(0), 1, Cmp::Le, 4)}, // kStemMaxChannels
      Lowering::kernelCall("conv2d_stem_f32", geometry),
      {},
      ""};
  if (Error e = r.addForTarget("top.Conv", kCpu, std::move(stem), conv2d))
    return e;
  // A 1x1 convolution with at most 32 output channels
  // (kPointwiseNarrowMaxOutputs), at least 16 input channels, on planes of
  // at least 28x28: register tiles of 16 output channels read the NCHW
  // input directly, above the GEMM, which would pack the whole input for O
  // multiply-adds per packed value (32 -> 16 at 112x112: 180 -> 125 us,
  // 192 -> 32 at 28x28: 102 -> 86 us; with 4 or 8 input channels the GEMM
  // ties or wins).
  Implementation narrow{
      "conv2d.1x1_narrow",
      31,
      f32 && Condition{Clause::attrAllEqual("kernel_shape", 1),
                       Clause::attrAllEqual("strides", 1),
                       Clause::attrAllEqual("pads", 0),
                       Clause::attrEq("group", AttrValue::integer(1)),
                       dimIs(in(1), 0, Cmp::Le, 32),
                       dimIs(in(0), 1, Cmp::Ge, 16),
                       dimIs(in(0), 2, Cmp::Ge, 28),
                       dimIs(in(0), 3, Cmp::Ge, 28)},
      Lowering::kernelCall(
          "conv2d_1x1_narrow_f32",
          {dimParam("N", in(0), 0), dimParam("K", in(0), 1),
           p("HW", ParamSource::dimProduct(in(0), 2, ParamSource::kEnd)),
           dimParam("O", in(1), 0)}),
      {},
      ""};
  if (Error e = r.addForTarget("top.Conv", kCpu, std::move(narrow), conv2d))
    return e;
  return std::nullopt;
}

static Error registerMatMul(StrategyRegistry &r) {
  using Cmp = Clause::Cmp;
  // One param list for every f32 matmul kernel (strata/Kernels/KernelAbi.h):
  // B, M, N, K, transpose_b. The 2-d-weight kernels fold A's leading dims
  // into M (B = 1).
  std::vector<KernelParam> gemm = {
      p("B", ParamSource::constant(1)),
      p("M", ParamSource::dimProduct(in(0), 0, -1)), dimParam("N", out(0), -1),
      dimParam("K", in(0), -1),
      p("transpose_b", ParamSource::attrInt("right_transpose"))};
  Condition f32 = {dtypeIs(in(0), {"f32"}), dtypeIs(in(1), {"f32"})};
  Implementation gemv{
      "matmul.gemv_f32",
      25,
      f32 && Condition{Clause::rank(in(1), 2), dimIs(in(0), -2, Cmp::Eq, 1)},
      Lowering::kernelCall("matmul_gemv_f32", gemm),
      {{"tile_n", 64}},
      ""};
  Implementation gemmF32{"matmul.gemm_f32",
                         20,
                         f32 && Condition{Clause::rank(in(1), 2)},
                         Lowering::kernelCall("matmul_gemm_f32", gemm),
                         {{"tile_m", 64}, {"tile_n", 256}, {"tile_k", 256}},
                         ""};
  Implementation gemmInt8{"matmul.gemm_i8",
                          20,
                          {dtypeIs(in(0), {"i8", "qi8", "ui8", "qui8"}),
                           dtypeIs(in(1), {"i8", "qi8"}),
                           Clause::rank(in(1), 2)},
                          Lowering::kernelCall("matmul_gemm_i8", gemm),
                          {{"tile_m", 32}, {"tile_n", 256}, {"tile_k", 512}},
                          ""};
  // --quantize bf16 (lib/Kernels/Bf16Gemm.cpp).
  Implementation gemmBf16{"matmul.gemm_bf16",
                          20,
                          {dtypeIs(in(0), {"bf16"}), dtypeIs(in(1), {"bf16"}),
                           Clause::rank(in(1), 2)},
                          Lowering::kernelCall("matmul_gemm_bf16", gemm),
                          {{"tile_m", 64}, {"tile_n", 256}, {"tile_k", 512}},
                          ""};
  Implementation batched{
      "matmul.batched_gemm_f32",
      15,
      f32,
      Lowering::kernelCall("matmul_batched_gemm_f32", batchedMatmulParams()),
      {{"tile_m", 32}, {"tile_n", 128}, {"tile_k", 256}},
      ""};
  for (Implementation *impl :
       {&gemv, &gemmF32, &gemmInt8, &gemmBf16, &batched})
    if (Error e = r.addForTarget("top.MatMul", kCpu, std::move(*impl)))
      return e;
  return std::nullopt;
}

static Error registerPooling(StrategyRegistry &r) {
  Condition pool2d = {Clause::rank(in(0), 4), nchw(), dtypeIs(in(0), {"f32"})};
  std::vector<KernelParam> geometry = window2dParams(/*withFilter=*/false);
  Implementation maxPool{"maxpool2d.nchw_f32",
                         10,
                         {Clause::attrAllEqual("dilations", 1)},
                         Lowering::kernelCall("maxpool2d_nchw_f32", geometry),
                         {{"vector_w", 8}},
                         ""};
  std::vector<KernelParam> avgGeometry = geometry;
  avgGeometry.push_back(
      p("count_include_pad", ParamSource::attrInt("count_include_pad")));
  Implementation avgPool{
      "avgpool2d.nchw_f32",
      10,
      {Clause::attrAllEqual("dilations", 1)},
      Lowering::kernelCall("avgpool2d_nchw_f32", avgGeometry),
      {{"vector_w", 8}},
      ""};
  Implementation globalAvg{
      "globalavgpool.nchw_f32",
      10,
      {},
      Lowering::kernelCall(
          "globalavgpool_nchw_f32",
          {p("NC", ParamSource::dimProduct(in(0), 0, 2)),
           p("HW", ParamSource::dimProduct(in(0), 2, ParamSource::kEnd))}),
      {},
      ""};
  if (Error e = r.addForTarget("top.MaxPool", kCpu, maxPool, pool2d))
    return e;
  // A quantized MaxPool (int8 or uint8 storage, the input's quantization
  // kept: the max of the stored bytes; lib/Kernels/Int8Pool.cpp).
  for (bool isUnsigned : {false, true}) {
    Implementation maxPoolInt8{
        isUnsigned ? "maxpool2d.nchw_u8" : "maxpool2d.nchw_i8",
        10,
        {Clause::attrAllEqual("dilations", 1),
         Clause::attrEq("do_relu", AttrValue::boolean(false))},
        Lowering::kernelCall(
            isUnsigned ? "maxpool2d_nchw_u8" : "maxpool2d_nchw_i8", geometry),
        {},
        ""};
    Condition pool2dInt8 = {
        Clause::rank(in(0), 4), nchw(),
        dtypeIs(in(0), isUnsigned ? std::vector<std::string>{"ui8", "qui8"}
                                  : std::vector<std::string>{"i8", "qi8"})};
    if (Error e = r.addForTarget("top.MaxPool", kCpu, maxPoolInt8, pool2dInt8))
      return e;
  }
  if (Error e = r.addForTarget("top.AvgPool", kCpu, avgPool, pool2d))
    return e;
  return r.addForTarget("top.GlobalAvgPool", kCpu, globalAvg, pool2d);
}

/// Softmax and LayerNorm over the last axis (completeWorkloadDefaults makes
/// the axis negative), as rows x cols.
static Error registerRowwise(StrategyRegistry &r) {
  std::vector<KernelParam> rows = {
      p("rows", ParamSource::dimProduct(in(0), 0, -1)),
      dimParam("cols", in(0), -1)};
  Condition lastAxisF32 = {dtypeIs(in(0), {"f32"}),
                           Clause::attrEq("axis", AttrValue::integer(-1))};
  Implementation softmax{"softmax.last_axis_f32",
                         10,
                         lastAxisF32,
                         Lowering::kernelCall("softmax_last_axis_f32", rows),
                         {{"vector_w", 8}},
                         ""};
  Implementation layerNorm{
      "layernorm.last_axis_f32",
      10,
      lastAxisF32,
      Lowering::kernelCall("layernorm_last_axis_f32", rows),
      {{"vector_w", 8}},
      ""};
  if (Error e = r.addForTarget("top.Softmax", kCpu, softmax))
    return e;
  return r.addForTarget("top.LayerNorm", kCpu, layerNorm);
}

static Error registerElementwise(StrategyRegistry &r) {
  auto count = [](TensorRef t) {
    return std::vector<KernelParam>{
        p("count", ParamSource::dimProduct(t, 0, ParamSource::kEnd))};
  };
  struct Unary {
    const char *op, *stem;
    Condition extra;
  };
  Unary unaries[] = {
      {"top.Relu", "relu", {}},
      {"top.Sigmoid", "sigmoid", {}},
      {"top.Tanh", "tanh", {}},
      {"top.Exp", "exp", {}},
      {"top.SiLU", "silu", {}},
      {"top.Gelu",
       "gelu",
       {Clause::attrEq("approximate", AttrValue::string("none"))}},
  };
  for (const Unary &u : unaries) {
    Implementation impl{
        std::string(u.stem) + ".eltwise_f32",
        10,
        Condition{dtypeIs(in(0), {"f32"})} && u.extra,
        Lowering::kernelCall(std::string(u.stem) + "_f32", count(in(0))),
        {{"vector_w", 8}},
        ""};
    if (Error e = r.addForTarget(u.op, kCpu, std::move(impl)))
      return e;
  }
  // Binary kernels broadcast through strides; count is the output's.
  const char *binaries[][2] = {{"top.Add", "add"}, {"top.Sub", "sub"},
                               {"top.Mul", "mul"}, {"top.Div", "div"},
                               {"top.Max", "max"}, {"top.Min", "min"}};
  for (auto [op, stem] : binaries) {
    Implementation impl{
        std::string(stem) + ".eltwise_f32",
        10,
        {dtypeIs(in(0), {"f32"}), dtypeIs(in(1), {"f32"})},
        Lowering::kernelCall(std::string(stem) + "_bcast_f32", count(out(0))),
        {{"vector_w", 8}},
        ""};
    if (Error e = r.addForTarget(op, kCpu, std::move(impl)))
      return e;
  }
  return std::nullopt;
}

/// 2-d NCHW transposed convolution: GEMM + col2im (any stride, pad,
/// dilation, output padding and group).
static Error registerDeconv(StrategyRegistry &r) {
  std::vector<KernelParam> geometry = {
      dimParam("N", in(0), 0),   dimParam("C", in(0), 1),
      dimParam("H", in(0), 2),   dimParam("W", in(0), 3),
      dimParam("OH", out(0), 2), dimParam("OW", out(0), 3),
      dimParam("O", out(0), 1),  dimParam("KH", in(1), 2),
      dimParam("KW", in(1), 3)};
  const char *names[] = {"SH", "SW", "PT", "PL", "PB", "PR", "DH", "DW"};
  const char *attrs[] = {"strides", "strides", "pads",      "pads",
                         "pads",    "pads",    "dilations", "dilations"};
  const int index[] = {0, 1, 0, 1, 2, 3, 0, 1};
  for (int i = 0; i < 8; ++i)
    geometry.push_back(
        p(names[i], ParamSource::attrElement(attrs[i], index[i])));
  geometry.push_back(p("G", ParamSource::attrInt("group")));
  Implementation gemm{
      "deconv2d.gemm_f32",
      10,
      {Clause::rank(in(0), 4), nchw(), dtypeIs(in(0), {"f32"}),
       dtypeIs(in(1), {"f32"})},
      Lowering::kernelCall("deconv2d_gemm_f32", geometry),
      {{"tile_m", 64}},
      ""};
  return r.addForTarget("top.Deconv", kCpu, std::move(gemm));
}

/// Resize of the last two dims (nearest or linear; the planner checks the
/// modes and that no other dim changes) and Concat.
static Error registerResize(StrategyRegistry &r) {
  std::vector<KernelParam> geometry = {
      p("planes", ParamSource::dimProduct(in(0), 0, -2)),
      dimParam("H", in(0), -2), dimParam("W", in(0), -1),
      dimParam("OH", out(0), -2), dimParam("OW", out(0), -1)};
  Implementation resize{"resize.last2d_f32",
                        10,
                        {Clause::dtypeIn(in(0), {"f32"})},
                        Lowering::kernelCall("resize_2d_f32", geometry),
                        {},
                        ""};
  if (Error e = r.addForTarget("top.Resize", kCpu, std::move(resize)))
    return e;
  // Concat of up to 8 f32 inputs: a threaded copy (the planner computes the
  // slice sizes from the axis).
  Implementation concat{"concat.f32",
                        10,
                        {Clause::dtypeIn(in(0), {"f32"})},
                        Lowering::kernelCall("concat_f32", {}),
                        {},
                        ""};
  return r.addForTarget("top.Concat", kCpu, std::move(concat));
}

Error registerCpuStrategies(StrategyRegistry &registry) {
  for (auto fn : {registerConv, registerMatMul, registerPooling,
                  registerRowwise, registerElementwise, registerDeconv,
                  registerResize})
    if (Error e = fn(registry))
      return e;
  return std::nullopt;
}

/// oneDNN's convolution and matmul primitives (kernels in
/// lib/Runtime/CpuOneDnnKernels.cpp). Same params as the hand kernels they
/// compete with; priorities 7 (Conv, below im2col's 10) and 12 (MatMul,
/// below the batched GEMM's 15), so by default the hand kernels win and a
/// tuning record decides per shape.
Error registerOneDnnStrategies(StrategyRegistry &r) {
  Condition conv2d = {Clause::rank(in(0), 4), nchw()};
  Condition f32 = {dtypeIs(in(0), {"f32"}), dtypeIs(in(1), {"f32"})};
  std::vector<KernelParam> geometry = window2dParams(/*withFilter=*/true);
  geometry.push_back(p("G", ParamSource::attrInt("group")));
  Implementation conv{"conv2d.onednn_f32",
                      7,
                      f32,
                      Lowering::kernelCall("onednn_conv2d_f32", geometry),
                      {},
                      "onednn"};
  if (Error e = r.addForTarget("top.Conv", kCpu, std::move(conv), conv2d))
    return e;
  Implementation matmul{
      "matmul.onednn_f32",
      12,
      f32,
      Lowering::kernelCall("onednn_matmul_f32", batchedMatmulParams()),
      {},
      "onednn"};
  return r.addForTarget("top.MatMul", kCpu, std::move(matmul));
}

StrategyRegistry
buildRegistry(const std::vector<std::string> &optionalLibraries) {
  auto has = [&](const char *lib) {
    for (const std::string &l : optionalLibraries)
      if (l == lib)
        return true;
    return false;
  };
  StrategyRegistry r;
  Error e = registerGenericStrategies(r);
  if (!e)
    e = registerCpuStrategies(r);
  if (!e)
    e = registerLibraryProvider(
        r, {"onednn", has("onednn"), registerOneDnnStrategies});
  if (e) {
    std::fprintf(stderr, "strata: built-in strategy table: %s\n", e->c_str());
    std::abort();
  }
  return r;
}

const StrategyRegistry &builtinRegistry() {
  static const StrategyRegistry registry = [] {
    std::vector<std::string> found;
    for (const char *lib : kOptionalLibrariesFound)
      if (lib)
        found.push_back(lib);
    return buildRegistry(found);
  }();
  return registry;
}

} // namespace strata::strategy
