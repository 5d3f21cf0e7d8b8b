//===- InvertedResidualFusion.cpp - one kernel per MobileNetV2 block -----===//
//
// Merges the three kernel dispatches of an inverted-residual block (1x1
// expansion, 3x3 depthwise, 1x1 projection, with its residual Add when
// fuseResidualAdds fused one) into one dispatch of the fused kernel
// (strata/Kernels/InvertedResidual.h), and plans that dispatch.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Kernels/InvertedResidual.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/StemConv.h"
#include "strata/Target/Cpu/KernelDispatch.h"
#include "strata/Target/Cpu/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseSet.h"

namespace strata::cpu {

using namespace mlir;
namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

int argumentIn(func::FuncOp fn, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &fn.front() ? int(arg.getArgNumber()) : -1;
}

bool staticF32(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getElementType().isF32();
}

/// The ops of a dispatch function other than its return and the top.None
/// of an absent bias.
SmallVector<Operation *> bodyOps(func::FuncOp fn) {
  SmallVector<Operation *> ops;
  for (Operation &o : fn.front())
    if (!isa<func::ReturnOp, top::NoneOp>(o))
      ops.push_back(&o);
  return ops;
}

/// The kernel a one-result dispatch function's plan calls ("" if none).
std::string plannedKernel(func::FuncOp fn, bool &residual) {
  std::string why;
  std::optional<KernelDispatchPlan> plan = planKernelDispatch(fn, why);
  residual = plan && plan->residualFused;
  return plan && fn.getNumResults() == 1 ? plan->kernel : std::string();
}

/// Why a block whose tensor between the stages is `bytes` per image is not
/// fused (under kInvertedResidualMinBytes it stays in the L2 cache
/// anyway), or "".
std::string inCache(int64_t bytes, const char *what) {
  if (bytes >= kInvertedResidualMinBytes)
    return "";
  return std::string(what) + " stays in the L2 cache (" +
         std::to_string(bytes) + " bytes per image)";
}

/// Whether the fused kernels' depthwise stage takes `d`: 3x3, dilation 1,
/// stride 1 or 2 in both directions, one filter per channel.
bool fusableDepthwise(const kn::Conv2dShape &d) {
  return d.kh == 3 && d.kw == 3 && d.dh == 1 && d.dw == 1 && d.sh == d.sw &&
         (d.sh == 1 || d.sh == 2) && d.g == d.c && d.o == d.c;
}

/// Appends each stage's filter and bias bindings and its epilogue params
/// (has_bias, activation, p0, p1) to `plan`: every filter a constant, every
/// bias (if any) one f32 per channel (`biasCounts`).
bool addStageBindings(func::FuncOp fn, top::ConvOp (&convs)[3],
                      const int64_t (&biasCounts)[3], KernelDispatchPlan &plan,
                      std::string &why) {
  for (int k = 0; k < 3; ++k) {
    int w = argumentIn(fn, convs[k]->getOperand(1));
    if (w < 0 || !constantAtCallSites(fn, w)) {
      why = "inverted residual: filter " + std::to_string(k + 1) +
            " is not a constant";
      return false;
    }
    Value b = convs[k].getBias();
    int bias = KernelDispatchPlan::kNoBias;
    if (!isa<NoneType>(b.getType())) {
      bias = argumentIn(fn, b);
      if (bias < 0 || !staticF32(b) ||
          cast<RankedTensorType>(b.getType()).getNumElements() !=
              biasCounts[k]) {
        why = "inverted residual: bias " + std::to_string(k + 1) +
              " is not an f32 tensor of one value per channel";
        return false;
      }
    }
    std::optional<std::vector<int64_t>> epi =
        fusedEpilogueParams(convs[k], bias >= 0, why);
    if (!epi)
      return false;
    plan.bindings.push_back(w);
    plan.bindings.push_back(bias);
    plan.params.insert(plan.params.end(), epi->begin(), epi->end());
  }
  return true;
}

/// The fused stem block's plan (kernels::stemBlock): the first convolution
/// planned on the direct stem kernel, the projection without a residual.
std::optional<KernelDispatchPlan>
planStemBlock(func::FuncOp fn, top::ConvOp (&convs)[3], bool hasAdd,
              const std::optional<KernelDispatchPlan> (&p)[3],
              std::string &why) {
  auto fail = [&](const std::string &reason) {
    why = "stem block: " + reason;
    return std::nullopt;
  };
  if (hasAdd)
    return fail("the fused stem block takes no residual Add");
  const std::vector<int64_t> &q1 = p[0]->params, &q2 = p[1]->params,
                             &q3 = p[2]->params;
  if (q1.size() != size_t(kabi::kConvStrategyParams) ||
      q2.size() != size_t(kabi::kConvStrategyParams) ||
      q3.size() != size_t(kabi::kConv1x1StrategyParams))
    return fail("unexpected strategy params");
  kn::Conv2dShape c = kabi::convShapeFromParams(kabi::kConvStem, q1.data());
  kn::Conv2dShape d =
      kabi::convShapeFromParams(kabi::kConvDepthwise, q2.data());
  if (!fusableDepthwise(d))
    return fail("the depthwise convolution is not 3x3, dilation 1, stride 1 "
                "or 2, one filter per channel");
  kn::StemBlockShape s;
  s.n = c.n, s.c = c.c, s.h = c.h, s.w = c.w, s.e = c.o, s.p = q3[3];
  s.h1 = c.oh, s.w1 = c.ow, s.pt1 = c.pt, s.pl1 = c.pl, s.pb1 = c.pb;
  s.pr1 = c.pr, s.stride = d.sh, s.pt = d.pt, s.pl = d.pl, s.pb = d.pb;
  s.pr = d.pr, s.oh = d.oh, s.ow = d.ow;
  if (d.n != s.n || d.c != s.e || d.h != s.h1 || d.w != s.w1 || q3[0] != s.n ||
      q3[1] != s.e || q3[2] != s.oh * s.ow)
    return fail("the three convolutions' shapes do not chain");
  if (std::string bad = kn::checkStemBlockShape(s); !bad.empty())
    return fail(bad);
  if (std::string small = inCache(4 * s.e * s.h1 * s.w1, "the stem's output");
      !small.empty())
    return fail(small);
  KernelDispatchPlan plan;
  plan.kernel = kabi::kStemBlock;
  plan.implementation = "conv2d.stem_block";
  plan.params = {s.n,  s.c,   s.h,   s.w,   s.e,   s.p,      s.h1,
                 s.w1, s.pt1, s.pl1, s.pb1, s.pr1, s.stride, s.pt,
                 s.pl, s.pb,  s.pr,  s.oh,  s.ow};
  int x = argumentIn(fn, convs[0]->getOperand(0));
  if (x < 0)
    return fail("its input is not an argument");
  plan.bindings = {x};
  int64_t biasCounts[] = {s.e, s.e, s.p};
  if (!addStageBindings(fn, convs, biasCounts, plan, why))
    return std::nullopt;
  plan.params.push_back(0); // strip_rows: from the output width at run time
  plan.bindings.push_back(KernelDispatchPlan::kResult);
  plan.workgroupCount = kabi::suggestedWorkgroups(
      plan.kernel, plan.params.data(), int64_t(plan.params.size()));
  return plan;
}

} // namespace

std::optional<KernelDispatchPlan> planInvertedResidual(func::FuncOp fn,
                                                       std::string &why) {
  SmallVector<Operation *> ops = bodyOps(fn);
  auto fail = [&](const std::string &reason) {
    why = "inverted residual: " + reason;
    return std::nullopt;
  };
  if (ops.size() < 3 || ops.size() > 4)
    return fail("not three convolutions and an optional Add");
  auto c1 = dyn_cast<top::ConvOp>(ops[0]);
  auto c2 = dyn_cast<top::ConvOp>(ops[1]);
  auto c3 = dyn_cast<top::ConvOp>(ops[2]);
  auto add = ops.size() == 4 ? dyn_cast<top::AddOp>(ops[3]) : top::AddOp();
  if (!c1 || !c2 || !c3 || (ops.size() == 4 && !add))
    return fail("not three convolutions and an optional Add");
  if (c2->getOperand(0) != c1->getResult(0) ||
      c3->getOperand(0) != c2->getResult(0) || !c1->getResult(0).hasOneUse() ||
      !c2->getResult(0).hasOneUse())
    return fail("each convolution does not read the previous one alone");
  std::optional<KernelDispatchPlan> p[3];
  const char *want[] = {kabi::kConv1x1, kabi::kConvDepthwise, kabi::kConv1x1};
  top::ConvOp convs[] = {c1, c2, c3};
  for (int k = 0; k < 3; ++k) {
    p[k] = strategyKernelPlan(convs[k], why);
    if (!p[k])
      return std::nullopt;
    // A 1x1 stage the strategy gave the narrow kernel fuses the same way
    // (the fused kernel packs both 1x1 filters itself); a first stage on
    // the direct stem kernel makes the fused stem block.
    bool same = p[k]->kernel == want[k] ||
                (k != 1 && p[k]->kernel == kabi::kConv1x1Narrow) ||
                (k == 0 && p[k]->kernel == kabi::kConvStem);
    if (!same)
      return fail("convolution " + std::to_string(k + 1) + " runs '" +
                  p[k]->kernel + "', not '" + want[k] + "'");
    if (convs[k].getInputZp() || convs[k].getWeightZp())
      return fail("a convolution has zero points");
    for (Value v : {convs[k]->getOperand(0), convs[k]->getOperand(1),
                    Value(convs[k]->getResult(0))})
      if (!staticF32(v))
        return fail("a convolution has a tensor that is not static f32");
  }
  if (p[0]->kernel == kabi::kConvStem)
    return planStemBlock(fn, convs, bool(add), p, why);
  const std::vector<int64_t> &q1 = p[0]->params, &q2 = p[1]->params,
                             &q3 = p[2]->params;
  if (q1.size() != size_t(kabi::kConv1x1StrategyParams) ||
      q3.size() != size_t(kabi::kConv1x1StrategyParams) ||
      q2.size() != size_t(kabi::kConvStrategyParams))
    return fail("unexpected strategy params");
  kn::Conv2dShape d =
      kabi::convShapeFromParams(kabi::kConvDepthwise, q2.data());
  if (!fusableDepthwise(d))
    return fail("the depthwise convolution is not 3x3, dilation 1, stride 1 "
                "or 2, one filter per channel");
  kn::InvertedResidualShape s;
  s.n = d.n, s.c = q1[1], s.h = d.h, s.w = d.w, s.e = d.c, s.p = q3[3];
  s.stride = d.sh, s.pt = d.pt, s.pl = d.pl, s.pb = d.pb, s.pr = d.pr;
  s.oh = d.oh, s.ow = d.ow;
  if (q1[0] != s.n || q1[2] != s.h * s.w || q1[3] != s.e || q3[0] != s.n ||
      q3[1] != s.e || q3[2] != s.oh * s.ow)
    return fail("the three convolutions' shapes do not chain");
  if (std::string bad = kn::checkInvertedResidualShape(s); !bad.empty())
    return fail(bad);
  if (std::string small = inCache(4 * s.e * s.h * s.w, "its expanded tensor");
      !small.empty())
    return fail(small);

  KernelDispatchPlan plan;
  plan.kernel = kabi::kInvertedResidual;
  plan.implementation = "conv2d.inverted_residual";
  plan.params = {s.n,  s.c,  s.h,  s.w,  s.e,  s.p, s.stride,
                 s.pt, s.pl, s.pb, s.pr, s.oh, s.ow};
  int x = argumentIn(fn, c1->getOperand(0));
  if (x < 0)
    return fail("its input is not an argument");
  plan.bindings = {x};
  int64_t biasCounts[] = {s.e, s.e, s.p};
  if (!addStageBindings(fn, convs, biasCounts, plan, why))
    return std::nullopt;
  int residual = KernelDispatchPlan::kResult;
  if (add) {
    Value r = c3->getResult(0);
    if (!r.hasOneUse() || *r.getUsers().begin() != add.getOperation())
      return fail("the Add does not read the projection alone");
    Value other = add.getLhs() == r ? add.getRhs() : add.getLhs();
    residual = argumentIn(fn, other);
    if (residual < 0 || other.getType() != r.getType() ||
        add.getType() != r.getType())
      return fail("the residual Add is not of two tensors of one shape");
    if (plan.params[13 + 8 + 1] != int64_t(kn::Activation::None))
      return fail("the projection's activation comes before the Add");
    if (add.getDoRelu())
      plan.params[13 + 8 + 1] = int64_t(kn::Activation::Relu);
  }
  plan.params.push_back(add ? 1 : 0);
  plan.params.push_back(0); // strip_rows: from the cache at run time
  plan.bindings.push_back(KernelDispatchPlan::kResult);
  plan.bindings.push_back(residual);
  plan.residualFused = bool(add);
  plan.gemmAPacks = {{1, s.e, s.c}, {5, s.p, s.e}};
  plan.workgroupCount = kabi::suggestedWorkgroups(
      plan.kernel, plan.params.data(), int64_t(plan.params.size()));
  return plan;
}

unsigned fuseInvertedResiduals(ModuleOp module, func::FuncOp main) {
  unsigned fused = 0;
  SmallVector<func::CallOp> calls(main.getOps<func::CallOp>());
  llvm::DenseSet<Operation *> erased;
  auto soleCallUser = [&](func::CallOp call) -> func::CallOp {
    if (call->getNumResults() != 1 || !call.getResult(0).hasOneUse())
      return {};
    auto user = dyn_cast<func::CallOp>(*call.getResult(0).getUsers().begin());
    return user && user->getNumResults() == 1 ? user : func::CallOp();
  };
  for (func::CallOp a : calls) {
    if (erased.contains(a))
      continue;
    func::CallOp b = soleCallUser(a);
    func::CallOp c = b ? soleCallUser(b) : func::CallOp();
    if (!c)
      continue;
    func::FuncOp fns[3];
    func::CallOp chain[] = {a, b, c};
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) {
      fns[k] = module.lookupSymbol<func::FuncOp>(chain[k].getCallee());
      ok = fns[k] && fns[k]->hasAttr(kDispatchAttr);
    }
    if (!ok || fns[0] == fns[1] || fns[1] == fns[2] || fns[0] == fns[2])
      continue;
    bool res0, res1, res2;
    auto is1x1 = [](const std::string &k) {
      return k == kabi::kConv1x1 || k == kabi::kConv1x1Narrow;
    };
    std::string first = plannedKernel(fns[0], res0);
    if ((!is1x1(first) && first != kabi::kConvStem) || res0 ||
        plannedKernel(fns[1], res1) != kabi::kConvDepthwise ||
        !is1x1(plannedKernel(fns[2], res2)))
      continue;

    // The merged function: each value a call passes is one argument,
    // except the results the next function reads inside.
    SmallVector<Value> operands;
    SmallVector<Type> argTypes;
    auto argFor = [&](Value v) {
      auto *it = llvm::find(operands, v);
      if (it != operands.end())
        return unsigned(it - operands.begin());
      operands.push_back(v);
      argTypes.push_back(v.getType());
      return unsigned(operands.size() - 1);
    };
    SmallVector<SmallVector<unsigned>> argOf(3);
    for (int k = 0; k < 3; ++k)
      for (Value v : chain[k].getOperands())
        argOf[k].push_back(k > 0 && v == chain[k - 1].getResult(0) ? ~0u
                                                                   : argFor(v));
    OpBuilder mb(fns[0]);
    auto merged = func::FuncOp::create(
        mb, fns[0].getLoc(), (fns[0].getSymName() + "_invres").str(),
        mb.getFunctionType(argTypes, fns[2].getResultTypes()));
    merged.setPrivate();
    merged->setAttr(kDispatchAttr, mb.getUnitAttr());
    merged->setAttr(kInvertedResidualAttr, mb.getUnitAttr());
    Block *entry = merged.addEntryBlock();
    OpBuilder bb = OpBuilder::atBlockEnd(entry);
    Value inside;
    for (int k = 0; k < 3; ++k) {
      IRMapping map;
      for (auto [i, arg] : llvm::enumerate(fns[k].getArguments()))
        map.map(arg,
                argOf[k][i] == ~0u ? inside : entry->getArgument(argOf[k][i]));
      for (Operation &o : fns[k].front()) {
        if (auto ret = dyn_cast<func::ReturnOp>(o))
          inside = map.lookup(ret.getOperand(0));
        else
          bb.clone(o, map);
      }
    }
    func::ReturnOp::create(bb, c.getLoc(), inside);
    // Planned with its call in place (the filters must be constants there).
    OpBuilder cb(c);
    auto call = func::CallOp::create(cb, c.getLoc(), merged, operands);
    std::string why;
    if (!planInvertedResidual(merged, why)) {
      call.erase();
      merged.erase();
      continue;
    }
    c.getResult(0).replaceAllUsesWith(call.getResult(0));
    for (func::CallOp old : {c, b, a}) {
      erased.insert(old);
      old.erase();
    }
    for (func::FuncOp f : fns)
      if (SymbolTable::symbolKnownUseEmpty(f, module))
        f.erase();
    ++fused;
  }
  return fused;
}

} // namespace strata::cpu
