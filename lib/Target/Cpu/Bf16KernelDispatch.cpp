//===- Bf16KernelDispatch.cpp - plan the bf16 matmul dispatch -------------===//
//
// A Conv (planBf16Conv) or a MatMul of `--quantize bf16` (bf16 input and
// constant bf16 weight of rank 2, f32 bias of N values or none, bf16 result;
// docs/quantization.md) that the strategy gave `matmul.gemm_bf16` becomes a
// `matmul_gemm_bf16` kernel dispatch with the weight packed at compile time,
// its fused activation in the epilogue. Anything else stays generated code.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/KernelDispatch.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Kernels/Bf16Gemm.h"
#include "strata/Kernels/KernelAbi.h"

namespace strata::cpu {

using namespace mlir;
namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

bool isStatic(Value v, function_ref<bool(Type)> element) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && element(t.getElementType());
}

int argumentOf(func::FuncOp fn, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &fn.front() ? int(arg.getArgNumber()) : -1;
}

/// The binding of an f32 bias of `count` values (kNoBias for none), or
/// nullopt with `why` naming `what`.
std::optional<int> f32BiasArgument(func::FuncOp fn, Value v, int64_t count,
                                   const char *what, std::string &why) {
  if (isa<NoneType>(v.getType()))
    return KernelDispatchPlan::kNoBias;
  int bias = argumentOf(fn, v);
  auto bt = dyn_cast<RankedTensorType>(v.getType());
  if (bias < 0 || !bt || !bt.hasStaticShape() || !bt.getElementType().isF32() ||
      bt.getNumElements() != count) {
    why = std::string("its bias is not an f32 tensor of ") + what + " values";
    return std::nullopt;
  }
  return bias;
}

} // namespace

/// A bf16 Conv (group 1, 2-d NCHW, constant bf16 filter, f32 bias of O
/// values or none, bf16 or f32 result): `conv2d_im2col_gemm_bf16`.
static std::optional<KernelDispatchPlan> planBf16Conv(func::FuncOp fn,
                                                      top::ConvOp conv,
                                                      KernelDispatchPlan plan,
                                                      std::string &why) {
  if (!strategyParamsAre(plan, size_t(kabi::kConvStrategyParams), why))
    return std::nullopt;
  bool depthwise = plan.kernel == kabi::kConvDepthwiseBf16;
  auto isBf16 = [](Type t) { return t.isBF16(); };
  auto bf16OrF32 = [](Type t) { return t.isBF16() || t.isF32(); };
  if (!isStatic(conv.getInput(), isBf16) ||
      !isStatic(conv.getFilter(), isBf16) ||
      !isStatic(conv.getOutput(), bf16OrF32) ||
      plan.params[17] != (depthwise ? plan.params[1] : 1)) {
    why = "it is not a bf16 convolution of the kernel's groups with a bf16 or "
          "f32 result";
    return std::nullopt;
  }
  int input = argumentOf(fn, conv.getInput()),
      weight = argumentOf(fn, conv.getFilter());
  if (input < 0 || weight < 0 ||
      (!depthwise && !constantAtCallSites(fn, weight))) {
    why = "its bf16 filter is not a constant (the kernel reads it packed)";
    return std::nullopt;
  }
  std::optional<int> bias =
      f32BiasArgument(fn, conv.getBias(), plan.params[6], "O", why);
  if (!bias)
    return std::nullopt;
  std::optional<std::vector<int64_t>> epilogue =
      fusedEpilogueParams(conv, *bias >= 0, why);
  if (!epilogue)
    return std::nullopt;
  if (!depthwise) {
    plan.packedFlagParam = int64_t(plan.params.size());
    plan.pack = KernelDispatchPlan::Pack::Bf16ConvFilter;
  }
  plan.params.push_back(0); // filter_packed, set when packed (group 1)
  plan.params.insert(plan.params.end(), epilogue->begin(), epilogue->end());
  plan.params.push_back(0); // has_residual: none
  plan.params.push_back(cast<RankedTensorType>(conv.getOutput().getType())
                                .getElementType()
                                .isBF16()
                            ? 1
                            : 0); // out_bf16
  plan.bindings = {input, weight, *bias, KernelDispatchPlan::kResult};
  plan.workgroupCount = kabi::suggestedWorkgroups(
      plan.kernel, plan.params.data(), int64_t(plan.params.size()));
  return plan;
}

std::optional<KernelDispatchPlan>
planBf16KernelDispatch(func::FuncOp fn, Operation *op, KernelDispatchPlan plan,
                       std::string &why) {
  if (auto conv = dyn_cast<top::ConvOp>(op))
    return planBf16Conv(fn, conv, std::move(plan), why);
  auto mm = dyn_cast<top::MatMulOp>(op);
  if (!mm) {
    why = "the bf16 kernels take Conv and MatMul only";
    return std::nullopt;
  }
  if (!strategyParamsAre(plan, size_t(kabi::kMatmulStrategyParams), why))
    return std::nullopt;
  auto isBf16 = [](Type t) { return t.isBF16(); };
  if (plan.params[0] != 1 || !isStatic(mm.getInput(), isBf16) ||
      !isStatic(mm.getRight(), isBf16) || !isStatic(mm.getOutput(), isBf16) ||
      cast<RankedTensorType>(mm.getRight().getType()).getRank() != 2 ||
      cast<RankedTensorType>(mm.getInput().getType()).getRank() < 2) {
    why = "it is not a bf16 matmul of a rank-2 weight with a bf16 result";
    return std::nullopt;
  }
  int input = argumentOf(fn, mm.getInput()),
      weight = argumentOf(fn, mm.getRight());
  if (input < 0 || weight < 0 || !constantAtCallSites(fn, weight)) {
    why = "its bf16 weight is not a constant (the kernel reads it packed)";
    return std::nullopt;
  }
  std::optional<int> bias =
      f32BiasArgument(fn, mm.getBias(), plan.params[2], "N", why);
  if (!bias)
    return std::nullopt;
  // The epilogue: the f32 kernels' activations, applied in f32 before the
  // bf16 rounding.
  std::optional<std::vector<int64_t>> epilogue =
      fusedEpilogueParams(op, *bias >= 0, why);
  if (!epilogue)
    return std::nullopt;
  plan.params.insert(plan.params.end(), {0, 0}); // a_batched, b_batched
  plan.packedFlagParam = int64_t(plan.params.size());
  plan.params.push_back(0); // b_packed, set when packed (always)
  plan.pack = KernelDispatchPlan::Pack::Bf16MatmulB;
  plan.params.insert(plan.params.end(), epilogue->begin(), epilogue->end());
  plan.params.push_back(0); // has_residual: the bf16 matmul takes none
  plan.bindings = {input, weight, *bias, KernelDispatchPlan::kResult};
  plan.workgroupCount = kabi::suggestedWorkgroups(
      plan.kernel, plan.params.data(), int64_t(plan.params.size()));
  return plan;
}

std::vector<uint16_t> packBf16KernelWeight(const KernelDispatchPlan &plan,
                                           const uint16_t *data) {
  if (plan.pack == KernelDispatchPlan::Pack::Bf16ConvFilter) {
    // The OIHW filter read as the O x (C*KH*KW) A matrix.
    kn::Conv2dShape s =
        kabi::convShapeFromParams(plan.kernel, plan.params.data());
    std::vector<uint16_t> out(kn::bf16PackedAElems(s.o, s.gemmK()));
    kn::bf16PackA(data, s.gemmK(), s.o, s.gemmK(), out.data());
    return out;
  }
  int64_t n = plan.params[2], k = plan.params[3];
  bool transposed = plan.params[4] != 0;
  std::vector<uint16_t> out(kn::bf16PackedBElems(k, n));
  kn::bf16PackB(data, transposed ? k : n, transposed, k, n, out.data());
  return out;
}

} // namespace strata::cpu
