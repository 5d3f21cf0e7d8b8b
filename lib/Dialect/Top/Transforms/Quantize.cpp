//===- Quantize.cpp - int8 / bf16 / f16 quantization of Top models --------===//
//
// top-quantize (Passes.td, docs/quantization.md). int8: per-output-channel
// symmetric int8 weights, per-tensor activations from the calibration
// table, int32 bias and accumulation, requantization by an integer
// multiplier and right shift (top.Requant MultiplierShift: round half away
// from zero). bf16 / f16: weights and inputs in that type, f32 accumulation.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopTable16Op.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/BiasCorrection.h"
#include "strata/Dialect/Top/Transforms/Calibration.h"
#include "strata/Dialect/Top/Transforms/Passes.h"
#include "strata/Dialect/Top/Transforms/QuantUtils.h"
#include "strata/Interpreter/InterpretableOpInterface.h"
#include "strata/Interpreter/InterpreterEnv.h"
#include "strata/Interpreter/Tabulate.h"
#include "strata/Support/IntegerRequant.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>

namespace strata::top {
#define GEN_PASS_DEF_TOPQUANTIZE
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace {

/// A scalar affine `y * scale + offset` after an activation: a float Mul
/// then an Add (either may be absent) by one-element constants, each the
/// only reader of the value before it, without a fused ReLU (e.g.
/// PP-LCNetV3's learnable affine blocks). `last` is the affine's result
/// (`y` when `ops` is empty).
struct ScalarAffine {
  SmallVector<Operation *> ops;
  float scale = 1.0f, offset = 0.0f;
  Value last;
};

/// The scalar affine reading `y`, or an empty one.
ScalarAffine matchScalarAffine(Value y) {
  ScalarAffine a;
  a.last = y;
  while (a.last.hasOneUse()) {
    Operation *u = *a.last.getUsers().begin();
    bool relu = false;
    if (auto m = dyn_cast<MulOp>(u))
      relu = m.getDoRelu();
    else if (auto add = dyn_cast<AddOp>(u))
      relu = add.getDoRelu();
    else
      break;
    if (relu || u->getResult(0).getType() != y.getType())
      break;
    Value other =
        u->getOperand(0) == a.last ? u->getOperand(1) : u->getOperand(0);
    if (other == a.last)
      break;
    std::optional<Tensor> c = constantValue(other);
    if (!c || c->numElements() != 1)
      break;
    float v = c->castTo(DType::F32).data<float>()[0];
    if (!std::isfinite(v))
      break;
    if (isa<MulOp>(u)) {
      // At most one Mul, and before the Add: `y * a + b`.
      if (v == 0.0f || !a.ops.empty())
        break;
      a.scale = v;
    } else {
      if (a.offset != 0.0f)
        break;
      a.offset = v;
    }
    a.ops.push_back(u);
    a.last = u->getResult(0);
  }
  return a;
}

/// Per-tensor int8 parameters of an activation.
struct ActParams {
  double scale = 1;
  int64_t zp = 0;
};

/// `bits` (8 or 16): the storage width; the int8 form unless told.
ActParams activationParams(const calib::CalibrationEntry &e, bool symmetric,
                           int bits = 8) {
  double qmin = -std::ldexp(1.0, bits - 1), qmax = -qmin - 1;
  ActParams p;
  if (symmetric) {
    p.scale = e.threshold / qmax;
    return p;
  }
  // Asymmetric: the observed range including 0, clipped to +-threshold
  // (no clipping for a minmax table, whose threshold is max |x|).
  double lo = std::max(std::min(e.min, 0.0), -e.threshold);
  double hi = std::min(std::max(e.max, 0.0), e.threshold);
  if (hi - lo < e.threshold * 1e-6 || hi - lo <= 0)
    hi = lo + std::max(e.threshold, 1e-8);
  p.scale = (hi - lo) / (qmax - qmin);
  p.zp = std::clamp<int64_t>(std::llround(qmin - lo / p.scale),
                             static_cast<int64_t>(qmin),
                             static_cast<int64_t>(qmax));
  return p;
}

/// A scale as the nearest f32 value: it prints and parses back exactly and
/// is what an f32 NPU register holds.
double asF32(double s) { return static_cast<double>(static_cast<float>(s)); }

Type i8Type(MLIRContext *ctx, const ActParams &p, Type expressed,
            int64_t qmax = 127) {
  return quant::UniformQuantizedType::get(quant::QuantizationFlags::Signed,
                                          IntegerType::get(ctx, 8), expressed,
                                          p.scale, p.zp, -128, qmax);
}

Type i16Type(MLIRContext *ctx, const ActParams &p, Type expressed) {
  return quant::UniformQuantizedType::get(quant::QuantizationFlags::Signed,
                                          IntegerType::get(ctx, 16), expressed,
                                          p.scale, p.zp, -32768, 32767);
}

struct TopQuantizePass
    : public strata::top::impl::TopQuantizeBase<TopQuantizePass> {
  using Base::Base;

  func::FuncOp entry;
  calib::CalibrationTable table;
  llvm::StringSet<> keep;
  /// A float value -> its int8 form (a Quant of it, or the Requant whose
  /// Dequant it is).
  DenseMap<Value, Value> int8Of;
  /// A float value -> its bf16/f16 form.
  DenseMap<Value, Value> lowOf;
  /// Epilogue activations left in float because the table has no
  /// pre-activation entry (a table from before the entry existed).
  unsigned floatActivationFallbacks = 0;
  /// Activation tables whose input stays per-tensor because the table has
  /// no `@range` row for it (a table from before the rows existed).
  unsigned perTensorTables = 0;
  /// Float ops folded into an activation table and erased (skipped by the
  /// program-order walk that listed them).
  llvm::SmallPtrSet<Operation *, 16> folded;

  void runOnOperation() override;
  LogicalResult runInt8();
  /// Every `@range` and `@table16` row names a pre-activation tensor of the
  /// model (a `<name>_preact` of an op with a fused activation) and an
  /// `@range` row holds one range per channel of its dim 1; otherwise an
  /// error naming the tensor.
  LogicalResult checkChannelRanges();
  LogicalResult runLowFloat(FloatType low);

  FailureOr<calib::CalibrationEntry> entryFor(Value v, Operation *user);
  FailureOr<Value> quantizedInput(Value x, Operation *user);
  bool quantizable(Operation *op);
  void moveDataInInt8();
  /// Conv or MatMul to int8 (operands input, weights, bias).
  LogicalResult quantizeLinear(Operation *op, WeightNamer &namer);
  /// Requant of the int32 accumulator `acc` (scales `accScale`) to the
  /// output's int8 type and a Dequant replacing `old`'s result.
  LogicalResult finishInt8(Operation *old, Value acc, ArrayRef<double> accScale,
                           double reluLimit);

  /// Add / MaxPool / GlobalAvgPool on int8 values (docs/quantization.md,
  /// "Integer Add and pools"): the same op on the int8 values (a float
  /// input is quantized with its table row first), so that int8 chains
  /// through them. Ops that do not qualify stay float.
  void quantizeInt8Chain(Operation *op);
  Value quantizeAdd(AddOp op, Value qa, Value qb);
  Value quantizeGlobalAvgPool(GlobalAvgPoolOp op, Value q);
  /// The int8 type of `op`'s result from its calibration entry.
  FailureOr<Type> outputInt8Type(Operation *op);
  /// Quant(Dequant(q)): q itself, or a Requant when the parameters differ.
  void foldQuantOfDequant();
};

FailureOr<calib::CalibrationEntry> TopQuantizePass::entryFor(Value v,
                                                             Operation *user) {
  std::string name = calib::tensorName(v);
  auto it = table.entries.find(name);
  if (it == table.entries.end())
    return user->emitOpError()
           << "tensor '" << name << "' has no entry in the calibration table '"
           << calibration << "' (run strata calibrate on the same model)";
  return it->second;
}

FailureOr<Value> TopQuantizePass::quantizedInput(Value x, Operation *user) {
  if (Value q = int8Of.lookup(x))
    return q;
  auto e = entryFor(x, user);
  if (failed(e))
    return failure();
  ActParams p = activationParams(*e, symmetric);
  p.scale = asF32(p.scale);
  auto type = cast<RankedTensorType>(x.getType());
  OpBuilder b(user->getContext());
  if (Operation *def = x.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(x.getParentBlock());
  std::string name = calib::tensorName(x);
  auto q = QuantOp::create(
      b, NameLoc::get(b.getStringAttr(name + "_int8"), x.getLoc()),
      type.clone(i8Type(b.getContext(), p, type.getElementType())), x);
  int8Of[x] = q.getOutput();
  return q.getOutput();
}

/// Scale and zero point of a per-tensor int8 value.
std::pair<double, int64_t> paramsOf(Value q) {
  auto t = cast<quant::UniformQuantizedType>(
      cast<ShapedType>(q.getType()).getElementType());
  return {t.getScale(), t.getZeroPoint()};
}

bool TopQuantizePass::quantizable(Operation *op) {
  if (op->getNumResults() != 1 ||
      keep.contains(calib::tensorName(op->getResult(0))))
    return false;
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!out || !out.getElementType().isF32())
    return false;
  auto isF32Const = [](Value v) {
    std::optional<Tensor> t = constantValue(v);
    return t && t->dtype() == DType::F32;
  };
  // One bias value per output channel (dim 1 of the result).
  auto biasOk = [&](Value v) {
    if (isNone(v))
      return true;
    std::optional<Tensor> t = constantValue(v);
    return t && t->dtype() == DType::F32 && out.getRank() >= 2 &&
           t->numElements() == out.getDimSize(1);
  };
  // A fused activation runs in float after the accumulator's Dequant; a
  // capped relu before it would need a float clamp too.
  if (op->hasAttr("activation") &&
      op->getAttrOfType<FloatAttr>("relu_limit").getValueAsDouble() > 0)
    return false;
  if (auto conv = dyn_cast<ConvOp>(op))
    return conv.getLayout() == Layout::NCHW && !conv.getInputZp() &&
           !conv.getWeightZp() &&
           getElementTypeOrSelf(conv.getInput().getType()).isF32() &&
           isF32Const(conv.getFilter()) && biasOk(conv.getBias()) &&
           out.getRank() >= 3;
  if (auto mm = dyn_cast<MatMulOp>(op)) {
    auto in = dyn_cast<RankedTensorType>(mm.getInput().getType());
    std::optional<Tensor> w = constantValue(mm.getRight());
    return in && in.getRank() == 2 && in.getElementType().isF32() &&
           out.getRank() == 2 && w && w->dtype() == DType::F32 &&
           w->rank() == 2 && biasOk(mm.getBias());
  }
  return false;
}

/// Symmetric per-channel int8 weights of `w` along `axis`: the scales and
/// the int8 tensor (values in [-127, 127]).
std::pair<std::vector<double>, Tensor>
quantizeWeights(const Tensor &w, int64_t axis,
                const std::vector<double> &minScale) {
  int64_t channels = w.dim(axis), inner = 1;
  for (int64_t d = axis + 1; d < w.rank(); ++d)
    inner *= w.dim(d);
  std::vector<double> absMax(channels, 0.0);
  for (int64_t i = 0; i < w.numElements(); ++i) {
    int64_t c = (i / inner) % channels;
    absMax[c] = std::max(absMax[c], std::fabs(w.getAsDouble(i)));
  }
  std::vector<double> scales(channels);
  for (int64_t c = 0; c < channels; ++c)
    scales[c] = asF32(std::max(absMax[c] > 0 ? absMax[c] / 127.0 : 1.0,
                               minScale.empty() ? 0.0 : minScale[c]));
  Tensor q(DType::I8, w.shape());
  for (int64_t i = 0; i < w.numElements(); ++i) {
    int64_t c = (i / inner) % channels;
    double v = std::nearbyint(w.getAsDouble(i) / scales[c]);
    q.data<int8_t>()[i] = static_cast<int8_t>(std::clamp(v, -127.0, 127.0));
  }
  return {scales, q};
}

Type perAxisI8(MLIRContext *ctx, ArrayRef<double> scales, int64_t axis) {
  SmallVector<int64_t> zps(scales.size(), 0);
  return quant::UniformQuantizedPerAxisType::get(
      quant::QuantizationFlags::Signed, IntegerType::get(ctx, 8),
      Float32Type::get(ctx), scales, zps, axis, -128, 127);
}

/// The int32 bias tensor of `bias` (or zeros) for accumulator scales
/// `accScale`, minus `correction`.
FailureOr<Tensor> int32BiasTensor(Operation *op, std::optional<Tensor> bias,
                                  const std::vector<double> &accScale,
                                  const std::vector<int64_t> &correction) {
  std::vector<double> values;
  if (bias)
    for (int64_t c = 0; c < bias->numElements(); ++c)
      values.push_back(bias->getAsDouble(c));
  auto ints = calib::int32Bias(op, values, accScale, correction);
  if (failed(ints))
    return failure();
  Tensor t(DType::I32, {static_cast<int64_t>(accScale.size())});
  std::copy(ints->begin(), ints->end(), t.data<int32_t>());
  return t;
}

/// The float op computing epilogue activation `act` on `x`.
Value activationOp(OpBuilder &b, Location loc, Type type, Value x,
                   EpilogueActivation act, ArrayRef<double> params) {
  auto param = [&](size_t i, double dflt) {
    return b.getF64FloatAttr(i < params.size() ? params[i] : dflt);
  };
  MLIRContext *ctx = b.getContext();
  switch (act) {
  case EpilogueActivation::Sigmoid:
    return SigmoidOp::create(b, loc, type, x);
  case EpilogueActivation::SiLU:
    return SiLUOp::create(b, loc, type, x);
  case EpilogueActivation::Gelu:
    return GeluOp::create(
        b, loc, type, x,
        GeluApproximationAttr::get(ctx, GeluApproximation::None));
  case EpilogueActivation::GeluTanh:
    return GeluOp::create(
        b, loc, type, x,
        GeluApproximationAttr::get(ctx, GeluApproximation::Tanh));
  case EpilogueActivation::HardSwish:
    return HardSwishOp::create(b, loc, type, x);
  case EpilogueActivation::HardSigmoid:
    return HardSigmoidOp::create(b, loc, type, x, param(0, 0.2), param(1, 0.5));
  case EpilogueActivation::LeakyRelu:
    return LeakyReluOp::create(b, loc, type, x, param(0, 0.01));
  case EpilogueActivation::Clip:
    return ClipOp::create(b, loc, type, x, param(0, 0.0), param(1, 0.0));
  }
  llvm_unreachable("unknown epilogue activation");
}

/// `op` (one f32 operand, one result) on `xs` through its interpreter
/// semantics, or failure.
FailureOr<std::vector<double>> evaluateUnary(Operation *op,
                                             ArrayRef<double> xs) {
  auto iface = dyn_cast<InterpretableOpInterface>(op);
  if (!iface)
    return failure();
  int64_t n = static_cast<int64_t>(xs.size());
  Tensor in(DType::F32, {n});
  for (int64_t i = 0; i < n; ++i)
    in.data<float>()[i] = static_cast<float>(xs[i]);
  InterpreterEnv env;
  env.set(op->getOperand(0), std::move(in));
  env.setResultShape(op->getResult(0), {n});
  if (failed(iface.interpret(env)) || !env.has(op->getResult(0)))
    return failure();
  const Tensor &out = env.get(op->getResult(0));
  std::vector<double> ys(n);
  for (int64_t i = 0; i < n; ++i)
    ys[i] = out.getAsDouble(i);
  return ys;
}

/// The spread of a fused activation's channel thresholds (largest over
/// median) from which `per-channel-tables` quantizes its input per channel.
constexpr double kPerChannelSpread = 3.0;

/// The int8 range of the pre-activation tensor of activation `act` (an op
/// reading one f32 value) from its calibration entry `e`: `e`'s range
/// (clipped to its threshold, as for any tensor) without the ends over
/// which `act`'s output, saturated to the output's int8 range [outLo,
/// outHi], stays within `tolerance` of its value at that end: the flat
/// tails of Sigmoid / HardSigmoid, the zero tail of HardSwish and SiLU, and
/// inputs whose output the output's range clips. The int8 steps then cover
/// the part of the range where the output moves; an input beyond a cut
/// saturates to it and its output moves by at most `tolerance`.
calib::CalibrationEntry preActivationRange(const calib::CalibrationEntry &e,
                                           Operation *act, double outLo,
                                           double outHi, double tolerance) {
  double lo = std::max(std::min(e.min, 0.0), -e.threshold);
  double hi = std::min(std::max(e.max, 0.0), e.threshold);
  calib::CalibrationEntry range{std::max(-lo, hi), lo, hi};
  constexpr int kGrid = 4097;
  if (!(hi > lo))
    return range;
  std::vector<double> xs(kGrid);
  for (int i = 0; i < kGrid; ++i)
    xs[i] = lo + (hi - lo) * i / (kGrid - 1);
  FailureOr<std::vector<double>> ys = evaluateUnary(act, xs);
  if (failed(ys))
    return range;
  for (double &y : *ys)
    y = std::clamp(y, outLo, outHi);
  int first = 0, last = kGrid - 1;
  while (first + 1 < kGrid &&
         std::fabs((*ys)[first + 1] - (*ys)[0]) <= tolerance)
    ++first;
  while (last - 1 > first &&
         std::fabs((*ys)[last - 1] - (*ys)[kGrid - 1]) <= tolerance)
    --last;
  range.min = std::min(xs[first], 0.0);
  range.max = std::max(xs[last], 0.0);
  range.threshold = std::max(-range.min, range.max);
  return range;
}

LogicalResult TopQuantizePass::finishInt8(Operation *old, Value acc,
                                          ArrayRef<double> accScale,
                                          double reluLimit) {
  Value y = old->getResult(0);
  if (auto act = old->getAttrOfType<EpilogueActivationAttr>("activation")) {
    ArrayRef<double> params;
    if (auto p = old->getAttrOfType<DenseF64ArrayAttr>("activation_params"))
      params = p.asArrayRef();
    Operation *accOp = acc.getDefiningOp();
    accOp->removeAttr("activation");
    accOp->removeAttr("activation_params");
    std::string name = calib::tensorName(y);
    auto yType = cast<RankedTensorType>(y.getType());
    auto pre = table.entries.find(calib::preActivationName(y));
    bool keepActFloat =
        floatActivations || keep.contains(calib::preActivationName(y));
    if (!keepActFloat && pre != table.entries.end()) {
      // A scalar affine after the activation (float Mul / Add by
      // one-element constants, e.g. PP-LCNetV3's learnable affine blocks)
      // is folded into the table (a top.ScalarAffine between the
      // activation and the Quant, tabulated with it), whose int8 output is
      // then the affine's result: one rounding instead of two.
      // int16 for every table, or for the layers the table's `@table16`
      // rows name.
      bool int16Input =
          tableInput == "int16" || table.table16.count(pre->first);
      ScalarAffine affine = matchScalarAffine(y);
      if (!affine.ops.empty() &&
          !table.entries.count(calib::tensorName(affine.last))) {
        // No row for the affine's result (a hand-written table): the
        // table's output stays the activation's.
        affine = ScalarAffine();
        affine.last = y;
      }
      Value last = affine.last;
      auto post = entryFor(last, old);
      if (failed(post))
        return failure();
      // TPU-MLIR's way: the accumulator requantized to int8 at the
      // pre-activation tensor's range, the activation between a Dequant
      // and a Quant to the output's range: a 256-entry int8 table (the
      // CPU's and the NPU's hl.table), int8 from layer to layer.
      MLIRContext *ctx = old->getContext();
      OpBuilder b(old);
      auto preName = b.getStringAttr(calib::preActivationName(y));
      auto requant = RequantOp::create(
          b, NameLoc::get(preName, old->getLoc()), yType.clone(b.getI32Type()),
          acc, b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}),
          RequantModeAttr::get(ctx, RequantMode::MultiplierShift));
      auto deq = DequantOp::create(b, NameLoc::get(preName, old->getLoc()),
                                   yType, requant.getOutput());
      Value f = activationOp(b, old->getLoc(), yType, deq.getOutput(),
                             act.getValue(), params);
      ActParams po = activationParams(*post, symmetric);
      po.scale = asF32(po.scale);
      // The pre-activation's int8 parameters: its observed range without
      // the tails where the activation's int8 output is flat (within a
      // quarter of an output step).
      double outLo = (-128 - po.zp) * po.scale;
      double outHi = (127 - po.zp) * po.scale;
      double outTol = po.scale / 4;
      if (!affine.ops.empty()) {
        // In the activation's own units.
        outLo = (outLo - affine.offset) / affine.scale;
        outHi = (outHi - affine.offset) / affine.scale;
        if (outLo > outHi)
          std::swap(outLo, outHi);
        outTol /= std::fabs(affine.scale);
      }
      calib::CalibrationEntry tensorRange = preActivationRange(
          pre->second, f.getDefiningOp(), outLo, outHi, outTol);
      // `table-input=int16`: the pre-activation as int16 over the same
      // range (asymmetric unless `symmetric`), per tensor: the input of an
      // interpolated 513-entry table (top.Table16, formed below).
      SmallVector<int64_t> mult, shift;
      auto ranges = table.channelRanges.find(pre->first);
      int64_t channels = yType.getRank() >= 2 ? yType.getDimSize(1) : -1;
      // Per channel (dim 1): each channel's threshold, its range trimmed as
      // the tensor's and kept within the tensor's trimmed range (a channel
      // that never moved gets a floor of it); used only when the channels
      // differ, the largest at least kPerChannelSpread times the (lower)
      // median: where they do not, symmetric per-channel steps are no finer
      // than the per-tensor asymmetric ones (docs/quantization.md).
      SmallVector<double> channelT;
      if (perChannelTables && !int16Input &&
          ranges != table.channelRanges.end() && channels > 0 &&
          int64_t(ranges->second.size()) == channels &&
          (isa<ConvOp>(old) || yType.getRank() == 2) &&
          (accScale.size() == 1 || int64_t(accScale.size()) == channels)) {
        for (auto [lo, hi] : ranges->second) {
          calib::CalibrationEntry r =
              preActivationRange({pre->second.threshold, lo, hi},
                                 f.getDefiningOp(), outLo, outHi, outTol);
          channelT.push_back(std::min(
              tensorRange.threshold,
              std::max(r.threshold,
                       std::max(tensorRange.threshold * 1e-4, 1e-12))));
        }
        SmallVector<double> sorted(channelT);
        llvm::sort(sorted);
        if (sorted.back() < kPerChannelSpread * sorted[(sorted.size() - 1) / 2])
          channelT.clear();
      }
      if (!channelT.empty()) {
        // Symmetric (zero point 0, so the int8 kernels' epilogue writes it
        // as it writes any per-channel requant).
        SmallVector<double> scales;
        SmallVector<int64_t> zps;
        for (int64_t c = 0; c < channels; ++c) {
          double t = channelT[size_t(c)];
          scales.push_back(asF32(t / 127.0));
          zps.push_back(0);
          auto [m, sh] = calib::multiplierShift(
              accScale[accScale.size() == 1 ? 0 : size_t(c)] / scales.back());
          mult.push_back(m);
          shift.push_back(sh);
        }
        requant.setMultiplier(mult);
        requant.setRshift(shift);
        requant.getOutput().setType(
            yType.clone(quant::UniformQuantizedPerAxisType::get(
                quant::QuantizationFlags::Signed, IntegerType::get(ctx, 8),
                yType.getElementType(), scales, zps, /*quantizedDimension=*/1,
                -128, 127)));
      } else {
        if (perChannelTables && ranges == table.channelRanges.end() &&
            channels > 0)
          ++perTensorTables;
        ActParams pp =
            activationParams(tensorRange, symmetric, int16Input ? 16 : 8);
        pp.scale = asF32(pp.scale);
        for (double s : accScale) {
          auto [m, r] = calib::multiplierShift(s / pp.scale);
          mult.push_back(m);
          shift.push_back(r);
        }
        requant.setMultiplier(mult);
        requant.setRshift(shift);
        requant.getOutput().setType(
            yType.clone(int16Input ? i16Type(ctx, pp, yType.getElementType())
                                   : i8Type(ctx, pp, yType.getElementType())));
      }
      Value actOut = f;
      if (!affine.ops.empty())
        actOut = ScalarAffineOp::create(b, affine.ops.front()->getLoc(), yType,
                                        f, b.getF64FloatAttr(affine.scale),
                                        b.getF64FloatAttr(affine.offset));
      auto q = QuantOp::create(
          b,
          NameLoc::get(b.getStringAttr(calib::tensorName(last) + "_int8"),
                       old->getLoc()),
          yType.clone(i8Type(ctx, po, yType.getElementType())), actOut);
      Value int8Result = q.getOutput();
      if (int16Input) {
        // The int16 pre-activation's table (top.Table16): the float ops
        // between the Dequant and the Quant tabulated at 513 inputs, then
        // replaced by the table.
        SmallVector<Operation *> actOps;
        for (Operation *o = deq->getNextNode(); o && o != q.getOperation();
             o = o->getNextNode())
          actOps.push_back(o);
        auto inQ = cast<quant::UniformQuantizedType>(
            getElementTypeOrSelf(requant.getOutput().getType()));
        auto outQ = cast<quant::UniformQuantizedType>(
            getElementTypeOrSelf(q.getType()));
        FailureOr<std::vector<int16_t>> entries = tabulateTable16(
            actOps, deq.getOutput(), actOut, inQ.getScale(), inQ.getZeroPoint(),
            outQ.getScale(), outQ.getZeroPoint(), outQ.getStorageTypeMin(),
            outQ.getStorageTypeMax());
        if (failed(entries))
          return old->emitError()
                 << "top-quantize: the activation of '" << name
                 << "' could not be tabulated for an int16 table input "
                    "(table-input=int16 or an @table16 row)";
        auto t16 =
            Table16Op::create(b, q.getLoc(), q.getType(), requant.getOutput(),
                              b.getDenseI16ArrayAttr(*entries));
        int8Result = t16.getOutput();
        q->erase();
        for (Operation *o : llvm::reverse(actOps))
          o->erase();
        deq->erase();
      }
      auto out = DequantOp::create(
          b, affine.ops.empty() ? old->getLoc() : affine.ops.back()->getLoc(),
          yType, int8Result);
      last.replaceAllUsesWith(out.getOutput());
      for (Operation *o : llvm::reverse(affine.ops)) {
        folded.insert(o);
        o->erase();
      }
      int8Of[out.getOutput()] = int8Result;
      old->erase();
      return success();
    }
    if (!keepActFloat)
      ++floatActivationFallbacks;
    // The int32 accumulator, typed with its per-channel scales (dim 1),
    // dequantized exactly; the activation in float.
    auto accType = cast<RankedTensorType>(acc.getType());
    OpBuilder b(old);
    acc.setType(accType.clone(calib::accumulatorType(
        old->getContext(),
        std::vector<double>(accScale.begin(), accScale.end()), 1)));
    auto deq = DequantOp::create(
        b, NameLoc::get(b.getStringAttr(name + "_preact"), old->getLoc()),
        yType, acc);
    Value out = activationOp(b, old->getLoc(), yType, deq.getOutput(),
                             act.getValue(), params);
    y.replaceAllUsesWith(out);
    old->erase();
    return success();
  }
  auto e = entryFor(y, old);
  if (failed(e))
    return failure();
  MLIRContext *ctx = old->getContext();
  ActParams p = activationParams(*e, symmetric);
  p.scale = asF32(p.scale);
  int64_t qmax = 127;
  if (reluLimit > 0)
    qmax = std::clamp<int64_t>(
        p.zp + static_cast<int64_t>(std::floor(reluLimit / p.scale + 1e-9)),
        -127, 127);
  auto yType = cast<RankedTensorType>(y.getType());
  Type qType = yType.clone(i8Type(ctx, p, yType.getElementType(), qmax));
  SmallVector<int64_t> mult, shift;
  for (double s : accScale) {
    auto [m, r] = calib::multiplierShift(s / p.scale);
    mult.push_back(m);
    shift.push_back(r);
  }
  OpBuilder b(old);
  std::string name = calib::tensorName(y);
  auto requant = RequantOp::create(
      b, NameLoc::get(b.getStringAttr(name + "_int8"), old->getLoc()), qType,
      acc, b.getDenseI64ArrayAttr(mult), b.getDenseI64ArrayAttr(shift),
      RequantModeAttr::get(ctx, RequantMode::MultiplierShift));
  auto deq = DequantOp::create(b, old->getLoc(), yType, requant.getOutput());
  y.replaceAllUsesWith(deq.getOutput());
  int8Of[deq.getOutput()] = requant.getOutput();
  old->erase();
  return success();
}

LogicalResult TopQuantizePass::quantizeLinear(Operation *op,
                                              WeightNamer &namer) {
  // Operands: input, weights (filter / right), bias.
  FailureOr<Value> xq = quantizedInput(op->getOperand(0), op);
  if (failed(xq))
    return failure();
  auto [sx, zx] = paramsOf(*xq);
  Tensor w = *constantValue(op->getOperand(1));
  auto mm = dyn_cast<MatMulOp>(op);
  int64_t axis = mm && !mm.getRightTranspose() ? 1 : 0;
  // A channel whose weights are tiny next to its bias gets a larger weight
  // scale, so that its int32 bias b / (s_x * s_w) stays below 2^30.
  std::optional<Tensor> bias;
  if (!isNone(op->getOperand(2)))
    bias = constantValue(op->getOperand(2));
  std::vector<double> minScale;
  if (bias)
    for (int64_t c = 0; c < bias->numElements(); ++c)
      minScale.push_back(std::fabs(bias->getAsDouble(c)) / (sx * 1073741824.0));
  auto [scales, wq] = quantizeWeights(w, axis, minScale);
  // Bias correction, when the table has the input's channel means; not for
  // grouped (depthwise) convs, where it measured worse (docs/quantization.md).
  auto conv = dyn_cast<ConvOp>(op);
  auto means = table.channelMeans.find(calib::tensorName(op->getOperand(0)));
  if (means != table.channelMeans.end() && (!conv || conv.getGroup() == 1)) {
    std::vector<double> shift;
    std::string why;
    if (!calib::weightRoundingShift(w, wq, scales, axis, !!conv, means->second,
                                    shift, why))
      return op->emitOpError()
             << "calibration table '" << calibration
             << "': @mean row of tensor '" << means->first << "' " << why;
    if (!bias) {
      bias = Tensor(DType::F32, {static_cast<int64_t>(shift.size())});
      std::fill_n(bias->data<float>(), shift.size(), 0.0f);
    }
    for (int64_t c = 0; c < bias->numElements(); ++c)
      bias->data<float>()[c] =
          static_cast<float>(bias->getAsDouble(c) - shift[c]);
  }
  std::vector<double> accScale;
  for (double s : scales)
    accScale.push_back(sx * s);
  // A MatMul has no input zero point: it goes into the int32 bias.
  std::vector<int64_t> correction;
  if (mm)
    correction = calib::zeroPointCorrection(wq, axis, zx);
  FailureOr<Tensor> bq = int32BiasTensor(op, bias, accScale, correction);
  if (failed(bq))
    return failure();
  OpBuilder b(op);
  std::string name = calib::tensorName(op->getResult(0));
  auto wType = RankedTensorType::get(w.shape(),
                                     perAxisI8(op->getContext(), scales, axis));
  Value wv =
      createWeight(b, op->getLoc(), namer,
                   name + (mm ? "_weight_int8" : "_filter_int8"), wq, wType);
  Value bv =
      createWeight(b, op->getLoc(), namer, name + "_bias_int32", *bq,
                   RankedTensorType::get({wq.dim(axis)}, b.getI32Type()));
  Operation *acc = b.clone(*op);
  acc->setLoc(NameLoc::get(b.getStringAttr(name + "_acc"), op->getLoc()));
  acc->setOperand(0, *xq);
  acc->setOperand(1, wv);
  acc->setOperand(2, bv);
  if (!mm)
    acc->setAttr("input_zp", b.getDenseI64ArrayAttr({zx}));
  double limit = op->getAttrOfType<FloatAttr>("relu_limit").getValueAsDouble();
  acc->setAttr("relu_limit", b.getF64FloatAttr(-1.0));
  acc->getResult(0).setType(
      cast<RankedTensorType>(op->getResult(0).getType()).clone(b.getI32Type()));
  bool relu = op->getAttrOfType<BoolAttr>("do_relu").getValue();
  return finishInt8(op, acc->getResult(0), accScale, relu ? limit : -1.0);
}

LogicalResult TopQuantizePass::checkChannelRanges() {
  llvm::StringMap<RankedTensorType> preacts;
  entry.walk([&](Operation *op) {
    if (calib::hasEpilogueActivation(op))
      preacts[calib::preActivationName(op->getResult(0))] =
          dyn_cast<RankedTensorType>(op->getResult(0).getType());
  });
  for (const std::string &name : table.table16)
    if (!preacts.count(name))
      return getOperation().emitError()
             << "top-quantize: the calibration table '" << calibration
             << "' names tensor '" << name
             << "' in an @table16 row, which is not the pre-activation "
                "tensor of a layer with a fused activation";
  for (const auto &[name, ranges] : table.channelRanges) {
    auto it = preacts.find(name);
    if (it == preacts.end())
      return getOperation().emitError()
             << "top-quantize: the calibration table '" << calibration
             << "' names tensor '" << name
             << "' in an @range row, which is not the pre-activation tensor "
                "of a layer with a fused activation";
    RankedTensorType t = it->second;
    if (t && t.getRank() >= 2 && !t.isDynamicDim(1) &&
        t.getDimSize(1) != int64_t(ranges.size()))
      return getOperation().emitError()
             << "top-quantize: the calibration table '" << calibration
             << "' has " << ranges.size() << " channel range(s) for tensor '"
             << name << "', which has " << t.getDimSize(1)
             << " channels (dim 1)";
  }
  return success();
}

LogicalResult TopQuantizePass::runInt8() {
  if (calibration.empty()) {
    // A model imported already quantized (QDQ, folded by top-fold-qdq)
    // needs no table; its float ops stay float.
    bool quantized = false;
    entry.walk([&](RequantOp) { quantized = true; });
    if (quantized)
      return success();
    return getOperation().emitError()
           << "top-quantize: mode=int8 needs a calibration table "
              "(calibration=FILE; strata calibrate writes one) unless the "
              "model is already quantized (QDQ)";
  }
  std::string error;
  if (!calib::readCalibrationTable(calibration, table, error))
    return getOperation().emitError() << "top-quantize: " << error;
  // Every table name must be a tensor of the model.
  llvm::StringSet<> names;
  entry.walk([&](Operation *op) {
    for (Value r : op->getResults())
      names.insert(calib::tensorName(r));
    if (calib::hasEpilogueActivation(op))
      names.insert(calib::preActivationName(op->getResult(0)));
  });
  for (const auto &[name, e] : table.entries)
    if (!names.contains(name))
      return getOperation().emitError()
             << "top-quantize: the calibration table '" << calibration
             << "' names tensor '" << name
             << "', which is not a tensor of the model";
  for (const auto &[name, means] : table.channelMeans)
    if (!names.contains(name))
      return getOperation().emitError()
             << "top-quantize: the calibration table '" << calibration
             << "' names tensor '" << name
             << "' in an @mean row, which is not a tensor of the model";
  if (failed(checkChannelRanges()))
    return failure();
  // In program order: a Conv / MatMul reads the int8 value of an Add or
  // pool before it directly, with its parameters, and a chain of them stays
  // int8.
  SmallVector<Operation *> todo;
  for (Operation &op : entry.getBody().front())
    if (quantizable(&op) || isa<AddOp, MaxPoolOp, GlobalAvgPoolOp>(op))
      todo.push_back(&op);
  WeightNamer namer(getOperation());
  for (Operation *op : todo) {
    if (folded.contains(op))
      continue;
    if (!isa<ConvOp, MatMulOp>(op)) {
      quantizeInt8Chain(op);
      continue;
    }
    if (failed(quantizeLinear(op, namer)))
      return failure();
  }
  if (perTensorTables)
    mlir::emitWarning(entry.getLoc())
        << "top-quantize: " << perTensorTables
        << " int8 activation table(s) read a per-tensor input: the "
           "calibration table '"
        << calibration
        << "' has no '@range' rows (per-channel pre-activation ranges; rerun "
           "strata calibrate to get them)";
  if (floatActivationFallbacks)
    mlir::emitWarning(entry.getLoc())
        << "top-quantize: " << floatActivationFallbacks
        << " fused activation(s) stay float after their int8 layer: the "
           "calibration table '"
        << calibration
        << "' has no '<tensor>_preact' entry for them (rerun strata "
           "calibrate to get int8 activation tables)";
  foldQuantOfDequant();
  return success();
}

LogicalResult TopQuantizePass::runLowFloat(FloatType low) {
  SmallVector<Operation *> todo;
  for (Operation &op : entry.getBody().front())
    if (isa<ConvOp, MatMulOp>(op) && op.getNumResults() == 1 &&
        !keep.contains(calib::tensorName(op.getResult(0))) &&
        getElementTypeOrSelf(op.getResult(0).getType()).isF32() &&
        getElementTypeOrSelf(op.getOperand(0).getType()).isF32() &&
        constantValue(op.getOperand(1)))
      todo.push_back(&op);
  WeightNamer namer(getOperation());
  DType lowDtype = low.isBF16() ? DType::BF16 : DType::F16;
  for (Operation *op : todo) {
    OpBuilder b(op);
    Value x = op->getOperand(0);
    Value xl = lowOf.lookup(x);
    if (!xl) {
      OpBuilder after(op->getContext());
      if (Operation *def = x.getDefiningOp())
        after.setInsertionPointAfter(def);
      else
        after.setInsertionPointToStart(x.getParentBlock());
      auto t = cast<RankedTensorType>(x.getType());
      xl = CastOp::create(after, x.getLoc(), t.clone(low), x).getOutput();
      lowOf[x] = xl;
      b.setInsertionPoint(op);
    }
    Tensor w = *constantValue(op->getOperand(1));
    auto wType = cast<RankedTensorType>(op->getOperand(1).getType());
    Value wv = createWeight(b, op->getLoc(), namer,
                            calib::tensorName(op->getResult(0)) + "_" +
                                (low.isBF16() ? "bf16" : "f16"),
                            w.castTo(lowDtype), wType.clone(low));
    Operation *lowOp = b.clone(*op);
    lowOp->setOperand(0, xl);
    lowOp->setOperand(1, wv);
    auto yType = cast<RankedTensorType>(op->getResult(0).getType());
    lowOp->getResult(0).setType(yType.clone(low));
    lowOp->setLoc(NameLoc::get(
        b.getStringAttr(calib::tensorName(op->getResult(0)) + "_low"),
        op->getLoc()));
    auto back = CastOp::create(b, op->getLoc(), yType, lowOp->getResult(0));
    op->getResult(0).replaceAllUsesWith(back.getOutput());
    lowOf[back.getOutput()] = lowOp->getResult(0);
    op->erase();
  }
  return success();
}

/// A top.Requant (MultiplierShift) of `x` with an explicit multiplier and
/// shift, to element type `elem`.
Value requantExact(OpBuilder &b, Location loc, Value x, Type elem, int64_t m,
                   int64_t s) {
  return RequantOp::create(
             b, loc, cast<RankedTensorType>(x.getType()).clone(elem), x,
             b.getDenseI64ArrayAttr({m}), b.getDenseI64ArrayAttr({s}),
             RequantModeAttr::get(b.getContext(), RequantMode::MultiplierShift))
      .getOutput();
}

/// A top.Requant (MultiplierShift, one multiplier) of `x` to element type
/// `elem` by the real factor `real`.
Value requantBy(OpBuilder &b, Location loc, Value x, Type elem, double real) {
  auto [m, s] = calib::multiplierShift(real);
  return requantExact(b, loc, x, elem, m, s);
}

FailureOr<Type> TopQuantizePass::outputInt8Type(Operation *op) {
  Value y = op->getResult(0);
  auto it = table.entries.find(calib::tensorName(y));
  if (it == table.entries.end())
    return failure(); // no range: the op stays float
  ActParams p = activationParams(it->second, symmetric);
  p.scale = asF32(p.scale);
  return i8Type(op->getContext(), p,
                cast<RankedTensorType>(y.getType()).getElementType());
}

/// The scale of the int32 sum of a quantized Add: the larger input scale
/// over 2^20 (TFLite's left shift), so both rescaled inputs and their sum
/// stay below 2^29 in magnitude.
constexpr double kAddSumShift = 1048576.0;

Value TopQuantizePass::quantizeAdd(AddOp op, Value qa, Value qb) {
  auto ty = cast<RankedTensorType>(op.getOutput().getType());
  if (qa.getType() != ty.clone(getElementTypeOrSelf(qa.getType())) ||
      qb.getType() != ty.clone(getElementTypeOrSelf(qb.getType())))
    return {}; // broadcasting stays float
  FailureOr<Type> outElem = outputInt8Type(op);
  if (failed(outElem))
    return {};
  auto [sa, za] = paramsOf(qa);
  auto [sb, zb] = paramsOf(qb);
  double so = cast<quant::UniformQuantizedType>(*outElem).getScale();
  double si = std::max(sa, sb) / kAddSumShift;
  OpBuilder b(op);
  std::string name = calib::tensorName(op.getOutput());
  Location loc = NameLoc::get(b.getStringAttr(name + "_int8"), op.getLoc());
  Type i32 = b.getI32Type();
  Value ia = requantBy(b, loc, qa, i32, sa / si);
  Value ib = requantBy(b, loc, qb, i32, sb / si);
  Value sum = AddOp::create(b, loc, ty.clone(i32), ia, ib, op.getDoReluAttr())
                  .getOutput();
  return requantBy(b, loc, sum, *outElem, si / so);
}

Value TopQuantizePass::quantizeGlobalAvgPool(GlobalAvgPoolOp op, Value q) {
  auto in = cast<RankedTensorType>(q.getType());
  if (op.getLayout() != Layout::NCHW || in.getRank() < 3 ||
      !in.hasStaticShape())
    return {};
  int64_t n = 1;
  SmallVector<int64_t> axes;
  for (int64_t d = 2; d < in.getRank(); ++d) {
    n *= in.getDimSize(d);
    axes.push_back(d);
  }
  if (n <= 0 || n > (int64_t(1) << 20))
    return {};
  FailureOr<Type> outElem = outputInt8Type(op);
  if (failed(outElem))
    return {};
  auto [si, zi] = paramsOf(q);
  double so = cast<quant::UniformQuantizedType>(*outElem).getScale();
  OpBuilder b(op);
  std::string name = calib::tensorName(op.getOutput());
  Location loc = NameLoc::get(b.getStringAttr(name + "_int8"), op.getLoc());
  Type i32 = b.getI32Type();
  auto outTy = cast<RankedTensorType>(op.getOutput().getType());
  // x - zp, their int32 sum, round_half_away(sum / n) (exact: see
  // intq::divisionMultiplierShift), then the requantization to the output.
  Value centred = requantExact(b, loc, q, i32, 1, 0);
  Value sum =
      ReduceOp::create(b, loc, TypeRange{outTy.clone(i32)}, centred,
                       b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true),
                       ReduceModeAttr::get(b.getContext(), ReduceMode::Sum))
          .getOutput();
  auto [m, s] = intq::divisionMultiplierShift(n, 255 * n);
  Value mean = requantExact(b, loc, sum, i32, m, s);
  return requantBy(b, loc, mean, *outElem, si / so);
}

void TopQuantizePass::quantizeInt8Chain(Operation *op) {
  if (op->getNumResults() != 1 ||
      keep.contains(calib::tensorName(op->getResult(0))) ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isF32())
    return;
  SmallVector<Value> qs;
  for (Value x : op->getOperands()) {
    Value q = int8Of.lookup(x);
    if (!q) {
      if (!table.entries.count(calib::tensorName(x)))
        return;
      FailureOr<Value> quantized = quantizedInput(x, op);
      if (failed(quantized))
        return;
      q = *quantized;
    }
    if (!isa<quant::UniformQuantizedType>(getElementTypeOrSelf(q.getType())))
      return;
    qs.push_back(q);
  }
  Value out;
  if (auto add = dyn_cast<AddOp>(op); add && qs.size() == 2)
    out = quantizeAdd(add, qs[0], qs[1]);
  else if (auto pool = dyn_cast<MaxPoolOp>(op)) {
    // Same scale in and out: the max of the int8 values, no requant.
    if (pool.getDoRelu())
      return;
    OpBuilder b(op);
    Operation *q = b.clone(*op);
    q->setOperand(0, qs[0]);
    q->getResult(0).setType(cast<RankedTensorType>(op->getResult(0).getType())
                                .clone(getElementTypeOrSelf(qs[0].getType())));
    out = q->getResult(0);
  } else if (auto gap = dyn_cast<GlobalAvgPoolOp>(op))
    out = quantizeGlobalAvgPool(gap, qs[0]);
  if (!out)
    return;
  OpBuilder b(op);
  Value y = op->getResult(0);
  auto deq = DequantOp::create(b, op->getLoc(), y.getType(), out);
  y.replaceAllUsesWith(deq.getOutput());
  int8Of.erase(y);
  int8Of[deq.getOutput()] = out;
  op->erase();
}

void TopQuantizePass::foldQuantOfDequant() {
  SmallVector<QuantOp> quants;
  entry.walk([&](QuantOp q) { quants.push_back(q); });
  for (QuantOp quantOp : quants) {
    auto deq = quantOp.getInput().getDefiningOp<DequantOp>();
    if (!deq)
      continue;
    Type inElem = getElementTypeOrSelf(deq.getInput().getType());
    Type outElem = getElementTypeOrSelf(quantOp.getOutput().getType());
    auto in = dyn_cast<quant::UniformQuantizedType>(inElem);
    auto out = dyn_cast<quant::UniformQuantizedType>(outElem);
    if (!in || !out || in.getStorageTypeIntegralWidth() != 8)
      continue;
    Value q = deq.getInput();
    if (inElem != outElem) {
      OpBuilder b(quantOp);
      q = requantBy(b, quantOp.getLoc(), q, outElem,
                    in.getScale() / out.getScale());
    }
    quantOp.getOutput().replaceAllUsesWith(q);
    quantOp->erase();
  }
}

/// Quant(Reshape|Permute(Dequant(q))) with the Quant's type equal to q's
/// (a reshape keeps the values, so its table row equals its input's):
/// the data movement on q itself. Exact: Dequant then Quant with the same
/// parameters gives back every 8-bit value.
void TopQuantizePass::moveDataInInt8() {
  SmallVector<QuantOp> quants;
  entry.walk([&](QuantOp q) { quants.push_back(q); });
  for (QuantOp quantOp : quants) {
    Operation *move = quantOp.getInput().getDefiningOp();
    if (!move || !isa<ReshapeOp, PermuteOp>(move) ||
        move->getNumOperands() != 1 || !move->getResult(0).hasOneUse())
      continue;
    auto deq = move->getOperand(0).getDefiningOp<DequantOp>();
    if (!deq)
      continue;
    Type qElem = getElementTypeOrSelf(quantOp.getOutput().getType());
    if (getElementTypeOrSelf(deq.getInput().getType()) != qElem)
      continue;
    OpBuilder b(move);
    Operation *moved = b.clone(*move);
    moved->setOperand(0, deq.getInput());
    moved->getResult(0).setType(
        cast<RankedTensorType>(move->getResult(0).getType()).clone(qElem));
    quantOp.getOutput().replaceAllUsesWith(moved->getResult(0));
    int8Of.erase(quantOp.getInput());
    quantOp->erase();
    move->erase();
  }
}

void TopQuantizePass::runOnOperation() {
  ModuleOp module = getOperation();
  for (auto f : module.getOps<func::FuncOp>())
    if (f.getName() == "main" || (!entry && f.isPublic() && !f.isExternal()))
      entry = f;
  if (!entry || entry.isExternal()) {
    module.emitError() << "top-quantize: the module has no entry function";
    return signalPassFailure();
  }
  if (tableInput != "int8" && tableInput != "int16") {
    module.emitError() << "top-quantize: table-input '" << tableInput
                       << "' is not one of int8, int16";
    return signalPassFailure();
  }
  for (const std::string &k : keepFloat)
    keep.insert(k);
  calib::nameTensors(entry);
  LogicalResult r = failure();
  MLIRContext *ctx = &getContext();
  if (mode == "int8")
    r = runInt8();
  else if (mode == "bf16")
    r = runLowFloat(BFloat16Type::get(ctx));
  else if (mode == "f16")
    r = runLowFloat(Float16Type::get(ctx));
  else
    module.emitError() << "top-quantize: mode '" << mode
                       << "' is not one of int8, bf16, f16";
  if (failed(r))
    return signalPassFailure();
  if (mode == "int8")
    moveDataInInt8();
  // Drop the float weights, Dequants and Quants nothing reads any more.
  SmallVector<Operation *> dead;
  entry.walk([&](Operation *op) {
    if (isa<WeightOp, DequantOp, CastOp, QuantOp>(op) && op->use_empty())
      dead.push_back(op);
  });
  for (Operation *op : dead)
    op->erase();
}

} // namespace

std::string calib::preActivationName(Value y) {
  return tensorName(y) + "_preact";
}

bool calib::hasEpilogueActivation(Operation *op) {
  return op->getNumResults() == 1 &&
         op->hasAttrOfType<EpilogueActivationAttr>("activation");
}

void calib::splitEpilogueActivations(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    if (hasEpilogueActivation(&op))
      ops.push_back(&op);
  for (Operation *op : ops) {
    auto act = op->getAttrOfType<EpilogueActivationAttr>("activation");
    SmallVector<double> params;
    if (auto p = op->getAttrOfType<DenseF64ArrayAttr>("activation_params"))
      params.assign(p.asArrayRef().begin(), p.asArrayRef().end());
    Value y = op->getResult(0);
    std::string pre = preActivationName(y);
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    Operation *bare = b.clone(*op);
    bare->removeAttr("activation");
    bare->removeAttr("activation_params");
    bare->setLoc(NameLoc::get(b.getStringAttr(pre), op->getLoc()));
    Value f = activationOp(b, op->getLoc(), y.getType(), bare->getResult(0),
                           act.getValue(), params);
    y.replaceAllUsesWith(f);
    op->erase();
  }
}
