//===- KernelDispatch.cpp - plan the dispatches that call a runtime kernel ===//

#include "strata/Target/Cpu/KernelDispatch.h"

#include "strata/Dialect/Top/IR/ResizeAttrs.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Kernels/Conv.h"
#include "strata/Kernels/Int8Gemm.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/OpKernels.h"
#include "strata/Kernels/Winograd.h"
#include "strata/Strategy/CpuStrategies.h"
#include "strata/StrategyMLIR/WorkloadFromOp.h"
#include "strata/Target/Cpu/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseSet.h"

namespace strata::cpu {

using namespace mlir;
namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

/// The fused epilogue params (has_bias, act, p0, p1) of an op with
/// `do_relu`/`relu_limit`/`activation`/`activation_params`; nullopt when
/// the kernels do not have that activation.
std::optional<std::vector<int64_t>>
epilogueParams(bool hasBias, bool doRelu, double reluLimit,
               std::optional<top::EpilogueActivation> act,
               std::optional<ArrayRef<double>> actParams, std::string &why) {
  kn::Activation a = kn::Activation::None;
  float p0 = 0, p1 = 0;
  ArrayRef<double> ps = actParams ? *actParams : ArrayRef<double>();
  auto needParams = [&](size_t n) {
    if (ps.size() == n)
      return true;
    why = "its activation has " + std::to_string(ps.size()) +
          " params, the kernel epilogue takes " + std::to_string(n);
    return false;
  };
  if (doRelu && act) {
    why = "it has both do_relu and an activation";
    return std::nullopt;
  }
  if (doRelu) {
    a = reluLimit >= 0 ? kn::Activation::Clip : kn::Activation::Relu;
    p1 = reluLimit >= 0 ? float(reluLimit) : 0.0f;
  } else if (act) {
    switch (*act) {
    case top::EpilogueActivation::Sigmoid:
      a = kn::Activation::Sigmoid;
      break;
    case top::EpilogueActivation::SiLU:
      a = kn::Activation::SiLU;
      break;
    case top::EpilogueActivation::Gelu:
      a = kn::Activation::Gelu;
      break;
    case top::EpilogueActivation::GeluTanh:
      a = kn::Activation::GeluTanh;
      break;
    case top::EpilogueActivation::HardSwish:
      a = kn::Activation::HardSwish;
      break;
    case top::EpilogueActivation::HardSigmoid:
      if (!needParams(2))
        return std::nullopt;
      a = kn::Activation::HardSigmoid;
      p0 = float(ps[0]);
      p1 = float(ps[1]);
      break;
    case top::EpilogueActivation::LeakyRelu:
      if (!needParams(1))
        return std::nullopt;
      a = kn::Activation::LeakyRelu;
      p0 = float(ps[0]);
      break;
    case top::EpilogueActivation::Clip:
      if (!needParams(2))
        return std::nullopt;
      a = kn::Activation::Clip;
      p0 = float(ps[0]);
      p1 = float(ps[1]);
      break;
    }
  }
  return std::vector<int64_t>{hasBias, int64_t(a), kabi::floatParam(p0),
                              kabi::floatParam(p1)};
}

/// The schedule parameter `name` the strategy chose for `op`
/// (`strata.schedule`), else the implementation's default.
int64_t scheduleParam(Operation *op, const strategy::Implementation &impl,
                      StringRef name) {
  if (auto s = op->getAttrOfType<DictionaryAttr>("strata.schedule"))
    if (auto v = s.getAs<IntegerAttr>(name))
      return v.getInt();
  auto it = impl.schedule.find(name.str());
  return it == impl.schedule.end() ? 0 : it->second;
}

bool isF32(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getElementType().isF32();
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// The argument number of `v` in `fn`'s entry block, or -1.
int argumentOf(func::FuncOp fn, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && arg.getOwner() == &fn.front() ? int(arg.getArgNumber()) : -1;
}

/// Whether `bias` is absent (none), or an f32 constant-shaped tensor of
/// `count` elements passed as an argument.
bool biasFits(func::FuncOp fn, Value bias, int64_t count, int &binding,
              std::string &why) {
  if (isa<NoneType>(bias.getType())) {
    binding = KernelDispatchPlan::kNoBias;
    return true;
  }
  binding = argumentOf(fn, bias);
  if (binding < 0 || !isF32(bias) ||
      product(cast<RankedTensorType>(bias.getType()).getShape()) != count) {
    why = "its bias is not an f32 tensor of " + std::to_string(count) +
          " elements";
    return false;
  }
  return true;
}

/// The residual Add after `op` in `fn` (merged there by fuseResidualAdds):
/// `arg` is its other operand's argument number (-1 when there is no Add)
/// and `relu` its do_relu. False with `why` when the Add does not fit.
bool residualAddOf(func::FuncOp fn, Operation *op, int &arg, bool &relu,
                   std::string &why) {
  arg = -1;
  top::AddOp add;
  for (Operation &o : fn.front())
    if (auto a = dyn_cast<top::AddOp>(o); a && &o != op)
      add = a;
  if (!add)
    return true;
  Value r = op->getResult(0);
  if (!r.hasOneUse() || *r.getUsers().begin() != add.getOperation()) {
    why = "its residual Add does not read its result alone";
    return false;
  }
  Value other = add.getLhs() == r ? add.getRhs() : add.getLhs();
  arg = argumentOf(fn, other);
  if (arg < 0 || other == r || other.getType() != r.getType() ||
      add.getType() != r.getType()) {
    why = "its residual Add is not of two f32 tensors of its result's shape";
    return false;
  }
  relu = add.getDoRelu();
  return true;
}

//===----------------------------------------------------------------------===//
// The memory-bound kernels (strata/Kernels/OpKernels.h)
//===----------------------------------------------------------------------===//

/// The (clamp, limit) params of an op's `do_relu`/`relu_limit` (absent:
/// none).
std::vector<int64_t> clampParams(Operation *op) {
  auto relu = op->getAttrOfType<BoolAttr>("do_relu");
  if (!relu || !relu.getValue())
    return {int64_t(kn::PostClamp::None), 0};
  auto limit = op->getAttrOfType<FloatAttr>("relu_limit");
  if (limit && limit.getValueAsDouble() >= 0)
    return {int64_t(kn::PostClamp::Clip),
            kabi::floatParam(float(limit.getValueAsDouble()))};
  return {int64_t(kn::PostClamp::Relu), 0};
}

/// The broadcast of the two operand shapes `ins` to `out` as a BinaryShape:
/// strides 0 where an operand broadcasts, size-1 dims dropped, dims that are
/// contiguous for every operand merged. False when more than kMaxBinaryRank
/// dims remain.
bool binaryShapeOf(ArrayRef<int64_t> out, ArrayRef<ArrayRef<int64_t>> ins,
                   kn::BinaryShape &s) {
  size_t r = out.size(), n = ins.size();
  std::vector<std::vector<int64_t>> st(n, std::vector<int64_t>(r, 0));
  for (size_t k = 0; k < n; ++k) {
    int64_t acc = 1;
    for (size_t i = 0; i < ins[k].size(); ++i) {
      size_t d = r - 1 - i, sd = ins[k].size() - 1 - i;
      st[k][d] = ins[k][sd] == 1 && out[d] != 1 ? 0 : acc;
      acc *= ins[k][sd];
    }
  }
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> ms(n);
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1)
      continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < n && merge; ++k)
      merge = ms[k].back() == st[k][d] * out[d];
    if (merge) {
      dims.back() *= out[d];
      for (size_t k = 0; k < n; ++k)
        ms[k].back() = st[k][d];
      continue;
    }
    dims.push_back(out[d]);
    for (size_t k = 0; k < n; ++k)
      ms[k].push_back(st[k][d]);
  }
  if (dims.empty()) {
    dims = {1};
    for (size_t k = 0; k < n; ++k)
      ms[k] = {0};
  }
  if (dims.size() > size_t(kn::kMaxBinaryRank))
    return false;
  s.rank = int64_t(dims.size());
  int64_t *strides[] = {s.aStride, s.bStride};
  for (size_t d = 0; d < dims.size(); ++d) {
    s.dims[d] = dims[d];
    for (size_t k = 0; k < n; ++k)
      strides[k][d] = ms[k][d];
  }
  return true;
}

/// The kernels::BinaryOp of a binary Top op, or -1.
int64_t binaryOpOf(Operation *op) {
  if (isa<top::AddOp>(op))
    return int64_t(kn::BinaryOp::Add);
  if (isa<top::SubOp>(op))
    return int64_t(kn::BinaryOp::Sub);
  if (isa<top::MulOp>(op))
    return int64_t(kn::BinaryOp::Mul);
  if (isa<top::DivOp>(op))
    return int64_t(kn::BinaryOp::Div);
  if (isa<top::MaxOp>(op))
    return int64_t(kn::BinaryOp::Max);
  if (isa<top::MinOp>(op))
    return int64_t(kn::BinaryOp::Min);
  return -1;
}

/// Appends the resize kernel's own params (mode, coordinate mode, nearest
/// mode, the last two dims' coordinate scales) for `op` resizing `in` to
/// `out`; false with `why` when the kernel does not take its form: cubic,
/// tf_crop_and_resize, antialias, exclude_outside, or a dim other than the
/// last two resampled.
bool planResize(top::ResizeOp op, ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                std::vector<int64_t> &params, std::string &why) {
  static_assert(int64_t(top::CoordinateMode::HalfPixelSymmetric) ==
                    int64_t(kn::ResizeCoord::HalfPixelSymmetric) &&
                int64_t(top::CoordinateMode::Asymmetric) ==
                    int64_t(kn::ResizeCoord::Asymmetric) &&
                int64_t(top::NearestMode::Ceil) ==
                    int64_t(kn::ResizeNearest::Ceil));
  size_t rank = in.size();
  if (rank < 2 || out.size() != rank) {
    why = "its input has rank " + std::to_string(rank) +
          " (the kernel resizes the last two dims)";
    return false;
  }
  top::shapes::ResizeAttrs attrs = top::resizeAttrs(op);
  if (attrs.mode != "nearest" && attrs.mode != "linear") {
    why = "its mode is '" + attrs.mode + "' (the kernel: nearest, linear)";
    return false;
  }
  if (op.getCoordinateTransformationMode() ==
          top::CoordinateMode::TfCropAndResize ||
      attrs.antialias || attrs.excludeOutside) {
    why = "it uses tf_crop_and_resize, antialias or exclude_outside";
    return false;
  }
  std::vector<double> scales = top::shapes::resizeCoordinateScales(
      attrs, in, out, top::shapes::resizeGivenScales(attrs, nullptr));
  if (scales.size() != rank) {
    why = "its scales do not have one value per dim";
    return false;
  }
  for (size_t d = 0; d + 2 < rank; ++d)
    if (in[d] != out[d] || scales[d] != 1.0) {
      why = "it resamples dim " + std::to_string(d) +
            " (the kernel resizes the last two dims)";
      return false;
    }
  params.push_back(attrs.mode == "linear" ? int64_t(kn::ResizeMode::Linear)
                                          : int64_t(kn::ResizeMode::Nearest));
  params.push_back(int64_t(op.getCoordinateTransformationMode()));
  params.push_back(int64_t(op.getNearestMode()));
  params.push_back(kabi::doubleParam(scales[rank - 2]));
  params.push_back(kabi::doubleParam(scales[rank - 1]));
  return true;
}

/// The plan of a dispatch whose op the strategy gave a memory-bound kernel
/// (`plan` has its name and the strategy's params).
std::optional<KernelDispatchPlan> planOpKernel(func::FuncOp fn, Operation *op,
                                               KernelDispatchPlan plan,
                                               std::string &why) {
  if (op->getNumResults() != 1 || !isF32(op->getResult(0))) {
    why = "its result is not one static f32 tensor";
    return std::nullopt;
  }
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  std::vector<int> args;
  for (Value v : op->getOperands()) {
    if (isa<NoneType>(v.getType())) {
      args.push_back(KernelDispatchPlan::kResult);
      continue;
    }
    int arg = argumentOf(fn, v);
    if (arg < 0 || !isF32(v)) {
      why = "an operand is not a static f32 argument";
      return std::nullopt;
    }
    args.push_back(arg);
  }
  Value result = op->getResult(0);
  int64_t elements = product(shapeOf(result));
  constexpr int kR = KernelDispatchPlan::kResult;
  if (binaryOpOf(op) >= 0) {
    kn::BinaryShape s;
    if (!binaryShapeOf(shapeOf(result),
                       {shapeOf(op->getOperand(0)), shapeOf(op->getOperand(1))},
                       s)) {
      why = "its broadcast has more than 6 dims after merging";
      return std::nullopt;
    }
    plan.params.push_back(s.rank);
    for (const int64_t *v : {s.dims, s.aStride, s.bStride})
      plan.params.insert(plan.params.end(), v, v + kn::kMaxBinaryRank);
    std::vector<int64_t> clamp = clampParams(op);
    plan.params.insert(plan.params.end(), clamp.begin(), clamp.end());
    plan.bindings = {args[0], args[1], kR};
    // An operand of the output's element count is read at the output's
    // index only: the result may go over it (the memory plan decides).
    for (int k : {0, 1})
      if (product(shapeOf(op->getOperand(k))) == elements) {
        plan.inPlaceOperand = args[k];
        break;
      }
  } else if (isa<top::SoftmaxOp>(op)) {
    plan.bindings = {args[0], kR};
  } else if (isa<top::ReluOp, top::SigmoidOp, top::TanhOp, top::ExpOp,
                 top::SiLUOp, top::GeluOp>(op)) {
    plan.bindings = {args[0], kR};
    plan.inPlaceOperand = args[0]; // elementwise: y may be x
  } else if (auto ln = dyn_cast<top::LayerNormOp>(op)) {
    int64_t cols = plan.params[1];
    for (Value v : {ln.getScale(), ln.getBias()})
      if (!isa<NoneType>(v.getType()) && product(shapeOf(v)) != cols) {
        why = "its scale or bias does not hold one value per column";
        return std::nullopt;
      }
    plan.params.push_back(!isa<NoneType>(ln.getScale().getType()));
    plan.params.push_back(!isa<NoneType>(ln.getBias().getType()));
    plan.params.push_back(
        kabi::floatParam(float(ln.getEpsilon().convertToDouble())));
    plan.bindings = {args[0], args[1], args[2], kR};
  } else if (auto dc = dyn_cast<top::DeconvOp>(op)) {
    if (plan.params.size() != size_t(kabi::kConvStrategyParams)) {
      why = "the strategy gives " + std::to_string(plan.params.size()) +
            " params, the deconvolution kernel takes " +
            std::to_string(kabi::kConvStrategyParams);
      return std::nullopt;
    }
    int bias;
    if (!biasFits(fn, dc.getBias(), plan.params[6], bias, why))
      return std::nullopt;
    std::optional<std::vector<int64_t>> epilogue = epilogueParams(
        bias >= 0, dc.getDoRelu(), dc.getReluLimit().convertToDouble(),
        dc.getActivation(), dc.getActivationParams(), why);
    if (!epilogue)
      return std::nullopt;
    plan.params.insert(plan.params.end(), epilogue->begin(), epilogue->end());
    plan.bindings = {args[0], args[1], bias, kR};
    plan.workgroupCount = kabi::suggestedWorkgroups(
        plan.kernel, plan.params.data(), int64_t(plan.params.size()));
    return plan;
  } else if (auto cat = dyn_cast<top::ConcatOp>(op)) {
    int64_t n = op->getNumOperands(), rank = int64_t(shapeOf(result).size());
    if (n < 1 || n > kabi::kConcatMaxInputs) {
      why = "it has " + std::to_string(n) + " inputs (the kernel takes 1 to " +
            std::to_string(kabi::kConcatMaxInputs) + ")";
      return std::nullopt;
    }
    int64_t axis = cat.getAxis() < 0 ? cat.getAxis() + rank : cat.getAxis();
    if (axis < 0 || axis >= rank) {
      why = "its axis is out of range";
      return std::nullopt;
    }
    plan.params = {n, product(shapeOf(result).take_front(axis))};
    plan.bindings.clear();
    for (int64_t i = 0; i < kabi::kConcatMaxInputs; ++i) {
      plan.params.push_back(
          i < n ? product(shapeOf(op->getOperand(i)).drop_front(axis)) : 0);
      plan.bindings.push_back(i < n ? args[i] : kR);
    }
    plan.bindings.push_back(kR);
  } else if (auto rs = dyn_cast<top::ResizeOp>(op)) {
    if (!planResize(rs, shapeOf(op->getOperand(0)), shapeOf(result),
                    plan.params, why))
      return std::nullopt;
    plan.bindings = {args[0], kR};
    elements = std::max(elements, product(shapeOf(op->getOperand(0))));
  } else if (isa<top::MaxPoolOp, top::AvgPoolOp, top::GlobalAvgPoolOp>(op)) {
    std::vector<int64_t> clamp = clampParams(op);
    plan.params.insert(plan.params.end(), clamp.begin(), clamp.end());
    plan.bindings = {args[0], kR};
    elements = std::max(elements, product(shapeOf(op->getOperand(0))));
  } else {
    why = "the kernel planner does not know '" +
          op->getName().getStringRef().str() + "'";
    return std::nullopt;
  }
  plan.workgroupCount = kabi::suggestedOpWorkgroups(elements);
  return plan;
}

} // namespace

std::optional<KernelDispatchPlan> strategyKernelPlan(Operation *op,
                                                     std::string &why) {
  auto implName = op->getAttrOfType<StringAttr>("strata.impl");
  if (!implName) {
    why = "its implementation is chosen at run time (a guard)";
    return std::nullopt;
  }
  std::optional<strategy::Implementation> impl =
      strategy::builtinRegistry()
          .lookup(op->getName().getStringRef().str(), "cpu")
          .find(implName.getValue().str());
  if (!impl || impl->lowering.kind != strategy::Lowering::Kind::Kernel)
    return std::nullopt;
  KernelDispatchPlan plan;
  plan.kernel = impl->lowering.kernel;
  plan.implementation = impl->name;
  if (!kabi::isRuntimeKernel(plan.kernel)) {
    why = "no kernel dispatch for '" + plan.kernel + "' yet";
    return std::nullopt;
  }
  ShapeOr<strategy::Workload> w = strategy::workloadFromOp(op);
  if (!w) {
    why = w.error();
    return std::nullopt;
  }
  for (const strategy::KernelParam &p : impl->lowering.params) {
    ShapeOr<int64_t> v = p.source.evaluate(*w);
    if (!v || isDynamicDim(*v)) {
      why = "kernel param " + p.name + " is not known at compile time";
      return std::nullopt;
    }
    plan.params.push_back(*v);
  }
  return plan;
}

std::optional<KernelDispatchPlan> planKernelDispatch(func::FuncOp fn,
                                                     std::string &why) {
  if (fn->hasAttr(kInvertedResidualAttr))
    return planInvertedResidual(fn, why);
  // An outlined int8 Add chain runs the int8 Add kernel.
  if (fn->hasAttr(kFuseElementwiseAttr))
  {
    if (std::optional<KernelDispatchPlan> plan = planInt8AddDispatch(fn, why))
      return plan;
    if (std::optional<KernelDispatchPlan> plan =
            planInt8TableDispatch(fn, why))
      return plan;
  }
  // The first op with an implementation (an int8 kernel's fused Requant
  // follows it).
  Operation *op = nullptr;
  for (Operation &o : fn.front())
    if (!op && o.hasAttr("strata.impl"))
      op = &o;
  if (!op)
    return std::nullopt;
  std::optional<KernelDispatchPlan> strategyPlan = strategyKernelPlan(op, why);
  if (!strategyPlan)
    return std::nullopt;
  KernelDispatchPlan plan = std::move(*strategyPlan);
  std::optional<strategy::Implementation> impl =
      strategy::builtinRegistry()
          .lookup(op->getName().getStringRef().str(), "cpu")
          .find(plan.implementation);
  if (kabi::isInt8Kernel(plan.kernel))
    return planInt8KernelDispatch(fn, op, std::move(plan), why);
  if (plan.kernel == kabi::kMaxPoolI8 || plan.kernel == kabi::kMaxPoolU8)
    return planInt8MaxPoolDispatch(fn, op, std::move(plan), why);
  if (plan.kernel == kabi::kMatmulGemmBf16 ||
      plan.kernel == kabi::kConvIm2colBf16 ||
      plan.kernel == kabi::kConvDepthwiseBf16)
    return planBf16KernelDispatch(fn, op, std::move(plan), why);
  if (!isa<top::MatMulOp, top::ConvOp>(op))
    return planOpKernel(fn, op, std::move(plan), why);
  if (op->getNumResults() != 1 || !isF32(op->getResult(0))) {
    why = "its result is not one static f32 tensor";
    return std::nullopt;
  }
  int input = argumentOf(fn, op->getOperand(0));
  int weight = argumentOf(fn, op->getOperand(1));
  if (input < 0 || weight < 0 || !isF32(op->getOperand(0)) ||
      !isF32(op->getOperand(1))) {
    why = "its input and weight are not static f32 arguments";
    return std::nullopt;
  }
  int bias;
  std::optional<std::vector<int64_t>> epilogue;

  if (auto mm = dyn_cast<top::MatMulOp>(op)) {
    if (plan.params.size() != size_t(kabi::kMatmulStrategyParams)) {
      why = "the strategy gives " + std::to_string(plan.params.size()) +
            " params, the matmul kernel takes " +
            std::to_string(kabi::kMatmulStrategyParams);
      return std::nullopt;
    }
    auto a = cast<RankedTensorType>(mm.getInput().getType());
    auto b = cast<RankedTensorType>(mm.getRight().getType());
    if (a.getRank() < 2 || b.getRank() < 2) {
      why = "an operand has rank 1";
      return std::nullopt;
    }
    int64_t batch = plan.params[0];
    int64_t aBatch = product(a.getShape().drop_back(2));
    int64_t bBatch = product(b.getShape().drop_back(2));
    // The gemm kernels fold A's leading dims into M (B = 1).
    bool folded = batch == 1;
    if (!folded && ((aBatch != 1 && aBatch != batch) ||
                    (bBatch != 1 && bBatch != batch))) {
      why = "its batch broadcast is not all-or-nothing per operand";
      return std::nullopt;
    }
    if (folded && bBatch != 1) {
      why = "a batched right operand under a gemm kernel";
      return std::nullopt;
    }
    bool aBatched = !folded && aBatch == batch && batch > 1;
    bool bBatched = !folded && bBatch == batch && batch > 1;
    plan.params.push_back(aBatched);
    plan.params.push_back(bBatched);
    plan.packedFlagParam = int64_t(plan.params.size());
    plan.params.push_back(0); // b_packed, set when B is a constant
    if (!bBatched && !kabi::isOneDnnKernel(plan.kernel))
      plan.pack = KernelDispatchPlan::Pack::MatmulB;
    if (!biasFits(fn, mm.getBias(), plan.params[2], bias, why))
      return std::nullopt;
    epilogue = epilogueParams(
        bias >= 0, mm.getDoRelu(), mm.getReluLimit().convertToDouble(),
        mm.getActivation(), mm.getActivationParams(), why);
  } else if (auto conv = dyn_cast<top::ConvOp>(op)) {
    bool is1x1 =
        plan.kernel == kabi::kConv1x1 || plan.kernel == kabi::kConv1x1Narrow;
    size_t want = size_t(is1x1 ? kabi::kConv1x1StrategyParams
                               : kabi::kConvStrategyParams);
    if (!strategyParamsAre(plan, want, why))
      return std::nullopt;
    if (conv.getInputZp() || conv.getWeightZp()) {
      why = "it has zero points";
      return std::nullopt;
    }
    plan.packedFlagParam = int64_t(plan.params.size());
    plan.params.push_back(0); // filter_packed, set when constant
    if (plan.kernel == kabi::kConvWinograd)
      plan.pack = KernelDispatchPlan::Pack::WinogradFilter;
    else if (plan.kernel != kabi::kConvDepthwise &&
             plan.kernel != kabi::kConvStem &&
             plan.kernel != kabi::kConv1x1Narrow &&
             !kabi::isOneDnnKernel(plan.kernel))
      plan.pack = KernelDispatchPlan::Pack::ConvFilter;
    int64_t outChannels = is1x1 ? plan.params[3] : plan.params[6];
    if (!biasFits(fn, conv.getBias(), outChannels, bias, why))
      return std::nullopt;
    epilogue = epilogueParams(
        bias >= 0, conv.getDoRelu(), conv.getReluLimit().convertToDouble(),
        conv.getActivation(), conv.getActivationParams(), why);
  } else {
    why = "the kernel planner does not know '" +
          op->getName().getStringRef().str() + "'";
    return std::nullopt;
  }
  if (!epilogue)
    return std::nullopt;
  int residual;
  bool addRelu = false;
  if (!residualAddOf(fn, op, residual, addRelu, why))
    return std::nullopt;
  if (residual >= 0) {
    if (plan.kernel == kabi::kConvDepthwise ||
        plan.kernel == kabi::kConvStem || kabi::isOneDnnKernel(plan.kernel)) {
      why = "kernel '" + plan.kernel + "' takes no residual";
      return std::nullopt;
    }
    if ((*epilogue)[1] != int64_t(kn::Activation::None)) {
      why = "its activation comes before the residual Add";
      return std::nullopt;
    }
    if (addRelu)
      (*epilogue)[1] = int64_t(kn::Activation::Relu);
    // In place only when no other binding reads the residual's bytes.
    if (residual != input && residual != weight && residual != bias)
      plan.inPlaceOperand = residual;
  }
  epilogue->push_back(residual >= 0);
  plan.params.insert(plan.params.end(), epilogue->begin(), epilogue->end());
  plan.residualFused = residual >= 0;
  if (plan.kernel == kabi::kConvWinograd)
    plan.params.push_back(scheduleParam(op, *impl, "tile_hw"));
  plan.bindings = {input, weight, bias, KernelDispatchPlan::kResult,
                   residual >= 0 ? residual : KernelDispatchPlan::kResult};
  plan.workgroupCount = kabi::suggestedWorkgroups(
      plan.kernel, plan.params.data(), int64_t(plan.params.size()));
  return plan;
}

bool strategyParamsAre(const KernelDispatchPlan &plan, size_t want,
                       std::string &why) {
  if (plan.params.size() == want)
    return true;
  why = "the strategy gives " + std::to_string(plan.params.size()) +
        " params, kernel '" + plan.kernel + "' takes " + std::to_string(want);
  return false;
}

std::optional<std::vector<int64_t>>
fusedEpilogueParams(Operation *op, bool hasBias, std::string &why) {
  if (auto mm = dyn_cast<top::MatMulOp>(op))
    return epilogueParams(hasBias, mm.getDoRelu(),
                          mm.getReluLimit().convertToDouble(),
                          mm.getActivation(), mm.getActivationParams(), why);
  if (auto conv = dyn_cast<top::ConvOp>(op))
    return epilogueParams(hasBias, conv.getDoRelu(),
                          conv.getReluLimit().convertToDouble(),
                          conv.getActivation(), conv.getActivationParams(),
                          why);
  why = "no fused epilogue for '" + op->getName().getStringRef().str() + "'";
  return std::nullopt;
}

namespace {

/// Merges into the kernel dispatch before it each dispatch of one binary op
/// that reads that dispatch's result (its only reader) and another value:
/// one call, where the consumer was, of a function holding both ops, kept
/// when planKernelDispatch plans it. `accept` says which (producer plan,
/// consumer op) pairs to try. Returns how many were merged.
unsigned fuseConsumers(
    ModuleOp module, func::FuncOp main,
    llvm::function_ref<bool(const KernelDispatchPlan &, Operation *)> accept) {
  unsigned fused = 0;
  SmallVector<func::CallOp> calls(main.getOps<func::CallOp>());
  llvm::DenseSet<Operation *> erased;
  for (func::CallOp call : calls) {
    if (erased.contains(call) || call->getNumResults() != 1 ||
        !call.getResult(0).hasOneUse())
      continue;
    Value produced = call.getResult(0);
    auto useCall = dyn_cast<func::CallOp>(*produced.getUsers().begin());
    if (!useCall || useCall->getNumResults() != 1)
      continue;
    auto fn = module.lookupSymbol<func::FuncOp>(call.getCallee());
    auto useFn = module.lookupSymbol<func::FuncOp>(useCall.getCallee());
    if (!fn || !useFn || fn == useFn || !fn->hasAttr(kDispatchAttr) ||
        !useFn->hasAttr(kDispatchAttr))
      continue;
    // The consumer's dispatch: one op of two arguments, returned.
    Operation *cop = nullptr;
    bool more = false;
    for (Operation &o : useFn.front()) {
      if (isa<func::ReturnOp>(o))
        continue;
      more |= cop != nullptr;
      cop = &o;
    }
    if (more || !cop || cop->getNumOperands() != 2 || cop->getNumResults() != 1)
      continue;
    auto lhs = dyn_cast<BlockArgument>(cop->getOperand(0));
    auto rhs = dyn_cast<BlockArgument>(cop->getOperand(1));
    if (!lhs || !rhs)
      continue;
    Value l = useCall.getOperand(lhs.getArgNumber());
    Value r = useCall.getOperand(rhs.getArgNumber());
    if ((l == produced) == (r == produced))
      continue;
    Value other = l == produced ? r : l;
    std::string why;
    std::optional<KernelDispatchPlan> producer = planKernelDispatch(fn, why);
    if (!producer || !accept(*producer, cop))
      continue;

    // The merged dispatch function: the producer's ops, then the consumer.
    // The other value is a new argument unless the call already passes it
    // (then the planner sees it is also, say, the input and does not write
    // in place of it).
    OpBuilder mb(fn);
    SmallVector<Type> argTypes(fn.getArgumentTypes());
    SmallVector<Value> operands(call.getOperands());
    auto *known = llvm::find(operands, other);
    unsigned otherArg = known - operands.begin();
    if (known == operands.end()) {
      argTypes.push_back(other.getType());
      operands.push_back(other);
    }
    auto merged = func::FuncOp::create(
        mb, fn.getLoc(),
        (fn.getSymName() + "_" + cop->getName().stripDialect()).str(),
        mb.getFunctionType(argTypes, useFn.getResultTypes()));
    merged.setPrivate();
    merged->setAttr(kDispatchAttr, mb.getUnitAttr());
    Block *entry = merged.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    for (auto [from, to] : llvm::zip(fn.getArguments(), entry->getArguments()))
      map.map(from, to);
    Value inside;
    for (Operation &o : fn.front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(o))
        inside = map.lookup(ret.getOperand(0));
      else
        b.clone(o, map);
    }
    IRMapping useMap;
    Value otherInside = entry->getArgument(otherArg);
    useMap.map(lhs, l == produced ? inside : otherInside);
    useMap.map(rhs, r == produced ? inside : otherInside);
    Operation *clone = b.clone(*cop, useMap);
    clone->removeAttr("strata.impl");
    func::ReturnOp::create(b, cop->getLoc(), clone->getResult(0));
    if (!planKernelDispatch(merged, why)) {
      merged.erase();
      continue;
    }
    // One call where the consumer was (every operand is defined by then).
    OpBuilder cb(useCall);
    auto fusedCall =
        func::CallOp::create(cb, useCall.getLoc(), merged, operands);
    useCall.getResult(0).replaceAllUsesWith(fusedCall.getResult(0));
    erased.insert(useCall);
    useCall.erase();
    call.erase();
    for (func::FuncOp f : {fn, useFn})
      if (SymbolTable::symbolKnownUseEmpty(f, module))
        f.erase();
    ++fused;
  }
  return fused;
}

} // namespace

unsigned fuseResidualAdds(ModuleOp module, func::FuncOp main) {
  // Only the GEMM and convolution kernels take a residual (five bindings).
  return fuseConsumers(
      module, main, [](const KernelDispatchPlan &p, Operation *consumer) {
        return p.bindings.size() == size_t(kabi::kKernelBindings) &&
               isa<top::AddOp>(consumer);
      });
}

std::vector<int64_t> packedWeightKey(const KernelDispatchPlan &plan) {
  const std::vector<int64_t> &p = plan.params;
  if (plan.pack == KernelDispatchPlan::Pack::MatmulB)
    return {p[2], p[3], p[4]};
  if (plan.pack == KernelDispatchPlan::Pack::ConvFilter ||
      plan.pack == KernelDispatchPlan::Pack::WinogradFilter) {
    kn::Conv2dShape s = kabi::convShapeFromParams(plan.kernel, p.data());
    // The GEMM filter's layout depends on its form (packedWeightFlag).
    return {s.o, s.c, s.kh, s.kw, s.g, packedWeightFlag(plan)};
  }
  if (plan.pack == KernelDispatchPlan::Pack::Bf16MatmulB)
    return {p[2], p[3], p[4]};
  if (plan.pack == KernelDispatchPlan::Pack::Bf16ConvFilter)
    return {p[6], p[1], p[7], p[8]};
  if (plan.pack == KernelDispatchPlan::Pack::Int8) {
    // The blob holds the requant arrays too.
    std::vector<int64_t> key = {plan.int8WeightKind};
    if (plan.kernel == kabi::kMatmulGemmI8) {
      key.insert(key.end(), {p[2], p[3], p[4]});
    } else {
      kn::Conv2dShape s = kabi::convShapeFromParams(plan.kernel, p.data());
      key.insert(key.end(), {s.o, s.c, s.kh, s.kw, s.g});
    }
    key.push_back(packedWeightFlag(plan));
    key.push_back(int64_t(plan.requantMultiplier.size()));
    key.insert(key.end(), plan.requantMultiplier.begin(),
               plan.requantMultiplier.end());
    key.insert(key.end(), plan.requantShift.begin(), plan.requantShift.end());
    return key;
  }
  return {};
}

int64_t packedWeightFlag(const KernelDispatchPlan &plan) {
  // An int8 convolution's filter K order (kernels::int8ConvTapMajor).
  if (plan.pack == KernelDispatchPlan::Pack::Int8 &&
      plan.kernel == kabi::kConvIm2colI8)
    return kn::int8ConvTapMajor(
               kabi::convShapeFromParams(plan.kernel, plan.params.data()))
               ? 2
               : 1;
  if (plan.pack != KernelDispatchPlan::Pack::ConvFilter)
    return 1;
  kn::Conv2dShape s =
      kabi::convShapeFromParams(plan.kernel, plan.params.data());
  return kn::preferredConvGemmForm(s) == kn::ConvGemmForm::Transposed ? 2 : 1;
}

std::vector<float> packKernelWeight(const KernelDispatchPlan &plan,
                                    const float *data) {
  const std::vector<int64_t> &p = plan.params;
  std::vector<float> packed;
  if (plan.pack == KernelDispatchPlan::Pack::MatmulB) {
    int64_t n = p[2], k = p[3];
    bool transposed = p[4] != 0;
    packed.resize(kn::packedBBytes(k, n) / sizeof(float));
    kn::packB(data, transposed ? k : n, transposed, k, n, packed.data());
  } else if (plan.pack == KernelDispatchPlan::Pack::ConvFilter) {
    kn::Conv2dShape s = kabi::convShapeFromParams(plan.kernel, p.data());
    kn::ConvGemmForm form = packedWeightFlag(plan) == 2
                                ? kn::ConvGemmForm::Transposed
                                : kn::ConvGemmForm::Normal;
    packed.resize(kn::packedConvFilterBytes(s, form) / sizeof(float));
    kn::packConvFilter(s, data, packed.data(), form);
  } else if (plan.pack == KernelDispatchPlan::Pack::WinogradFilter) {
    kn::Conv2dShape s = kabi::convShapeFromParams(plan.kernel, p.data());
    packed.resize(kn::winogradFilterBytes(s) / sizeof(float));
    kn::winogradTransformFilter(s, data, packed.data());
  }
  return packed;
}

} // namespace strata::cpu
