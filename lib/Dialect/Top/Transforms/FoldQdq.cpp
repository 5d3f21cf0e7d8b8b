//===- FoldQdq.cpp - QDQ patterns to integer Conv / MatMul ----------------===//
//
// top-fold-qdq (Passes.td): a float Conv / MatMul whose input and weights
// are top.Dequant of quantized tensors (ONNX Runtime's QDQ format, as the
// importer writes it) becomes the integer form of top-quantize: int32
// accumulation, int32 bias, and a top.Requant to the type of the Quant that
// follows, or a dequantized int32 accumulator.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Passes.h"
#include "strata/Dialect/Top/Transforms/QuantUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPFOLDQDQ
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace {

Type elemOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// `v` with pairs of reinterpreting Casts (quantized -> storage ->
/// the same quantized type) skipped.
Value throughCasts(Value v) {
  while (auto outer = v.getDefiningOp<CastOp>()) {
    auto inner = outer.getInput().getDefiningOp<CastOp>();
    if (!inner || elemOf(inner.getInput()) != elemOf(v) ||
        !isa<quant::QuantizedType>(elemOf(v)))
      break;
    v = inner.getInput();
  }
  return v;
}

/// The integers of a constant quantized value: a quantized Weight, or a
/// reinterpreting Cast of an integer Weight (as the importer writes it).
std::optional<Tensor> constantThroughCast(Value q) {
  if (std::optional<Tensor> data = constantValue(q))
    return data;
  if (auto cast = q.getDefiningOp<CastOp>())
    return constantValue(cast.getInput());
  return std::nullopt;
}

/// The per-tensor 8-bit quantized value a Dequant reads, with its scale and
/// zero point.
struct Activation {
  Value q;
  double scale = 0;
  int64_t zp = 0;
};

std::optional<Activation> quantizedActivation(Value x) {
  auto deq = x.getDefiningOp<DequantOp>();
  if (!deq || !elemOf(x).isF32())
    return std::nullopt;
  Value q = throughCasts(deq.getInput());
  auto t = dyn_cast<quant::UniformQuantizedType>(elemOf(q));
  if (!t || t.getStorageTypeIntegralWidth() != 8)
    return std::nullopt;
  return Activation{q, t.getScale(), t.getZeroPoint()};
}

/// Constant int8 weights with zero point 0 behind a Dequant: the quantized
/// value (a Cast of a Weight or a quantized Weight) and one scale per index
/// of `axis` (`channels` of them).
struct Weights {
  Value q;
  Tensor ints;
  std::vector<double> scales;
};

std::optional<Weights> quantizedWeights(Value w, int64_t axis,
                                        int64_t channels) {
  auto deq = w.getDefiningOp<DequantOp>();
  if (!deq)
    return std::nullopt;
  Value q = deq.getInput();
  std::optional<Tensor> data = constantThroughCast(q);
  if (!data || data->dtype() != DType::I8)
    return std::nullopt;
  Weights r{q, *data, {}};
  Type e = elemOf(q);
  if (auto t = dyn_cast<quant::UniformQuantizedType>(e)) {
    if (t.getZeroPoint() != 0 || !t.isSigned())
      return std::nullopt;
    r.scales.assign(channels, t.getScale());
  } else if (auto t = dyn_cast<quant::UniformQuantizedPerAxisType>(e)) {
    if (t.getQuantizedDimension() != axis ||
        static_cast<int64_t>(t.getScales().size()) != channels ||
        !t.isSigned() ||
        llvm::any_of(t.getZeroPoints(), [](int64_t z) { return z != 0; }))
      return std::nullopt;
    r.scales.assign(t.getScales().begin(), t.getScales().end());
  } else {
    return std::nullopt;
  }
  return r;
}

/// The bias as float values: a float constant, or a Dequant of constant
/// int32 (exact in f64).
std::optional<std::vector<double>> biasValues(Value b, int64_t channels) {
  std::vector<double> values;
  if (isNone(b))
    return values;
  if (std::optional<Tensor> t = constantValue(b)) {
    if (!isFloat(t->dtype()) || t->numElements() != channels)
      return std::nullopt;
    for (int64_t c = 0; c < channels; ++c)
      values.push_back(t->getAsDouble(c));
    return values;
  }
  auto deq = b.getDefiningOp<DequantOp>();
  if (!deq)
    return std::nullopt;
  Value q = deq.getInput();
  std::optional<Tensor> data = constantThroughCast(q);
  if (!data || data->numElements() != channels)
    return std::nullopt;
  Type e = elemOf(q);
  for (int64_t c = 0; c < channels; ++c) {
    double s, zp;
    if (auto t = dyn_cast<quant::UniformQuantizedType>(e)) {
      s = t.getScale();
      zp = t.getZeroPoint();
    } else if (auto t = dyn_cast<quant::UniformQuantizedPerAxisType>(e);
               t && static_cast<int64_t>(t.getScales().size()) == channels) {
      s = t.getScales()[c];
      zp = t.getZeroPoints()[c];
    } else {
      return std::nullopt;
    }
    values.push_back((static_cast<double>(data->getAsInt(c)) - zp) * s);
  }
  return values;
}

/// Folds one Conv / MatMul; false when the pattern does not match.
LogicalResult foldOne(Operation *op, WeightNamer &namer) {
  bool isConv = isa<ConvOp>(op);
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!out || !out.getElementType().isF32() || op->hasAttr("activation") ||
      op->getAttrOfType<BoolAttr>("do_relu").getValue())
    return failure();
  int64_t axis = 0, channels = 0;
  if (auto conv = dyn_cast<ConvOp>(op)) {
    if (conv.getLayout() != Layout::NCHW || conv.getInputZp() ||
        conv.getWeightZp() || out.getRank() < 3)
      return failure();
    channels = out.getDimSize(1);
  } else {
    auto mm = cast<MatMulOp>(op);
    auto in = dyn_cast<RankedTensorType>(mm.getInput().getType());
    if (!in || in.getRank() != 2 || out.getRank() != 2)
      return failure();
    axis = mm.getRightTranspose() ? 0 : 1;
    channels = out.getDimSize(1);
  }
  std::optional<Activation> x = quantizedActivation(op->getOperand(0));
  std::optional<Weights> w =
      quantizedWeights(op->getOperand(1), axis, channels);
  std::optional<std::vector<double>> bias =
      biasValues(op->getOperand(2), channels);
  if (!x || !w || !bias || ShapedType::isDynamic(channels))
    return failure();

  std::vector<double> accScale;
  for (double s : w->scales)
    accScale.push_back(x->scale * s);
  std::vector<int64_t> correction;
  if (!isConv) // (x - zx) @ W = x @ W - zx * colsum(W).
    correction = calib::zeroPointCorrection(w->ints, axis, x->zp);
  auto ints = calib::int32Bias(op, *bias, accScale, correction);
  if (failed(ints))
    return failure();

  OpBuilder b(op);
  Tensor bt(DType::I32, {channels});
  std::copy(ints->begin(), ints->end(), bt.data<int32_t>());
  Value bv = createWeight(b, op->getLoc(), namer, "qdq_bias_int32", bt,
                          RankedTensorType::get({channels}, b.getI32Type()));
  Operation *acc = b.clone(*op);
  acc->setOperand(0, x->q);
  acc->setOperand(1, w->q);
  acc->setOperand(2, bv);
  if (isConv)
    acc->setAttr("input_zp", b.getDenseI64ArrayAttr({x->zp}));

  // Conv -> [Relu] -> Quant: requantize to the Quant's type.
  Operation *user = op->getResult(0).hasOneUse()
                        ? *op->getResult(0).getUsers().begin()
                        : nullptr;
  bool relu = false;
  if (auto r = dyn_cast_or_null<ReluOp>(user); r && r->hasOneUse()) {
    relu = true;
    user = *r->getUsers().begin();
  }
  auto quantOp = dyn_cast_or_null<QuantOp>(user);
  auto yType =
      quantOp
          ? dyn_cast<quant::UniformQuantizedType>(elemOf(quantOp.getOutput()))
          : nullptr;
  if (yType && yType.getStorageTypeIntegralWidth() == 8) {
    if (relu)
      acc->setAttr("do_relu", b.getBoolAttr(true));
    acc->getResult(0).setType(out.clone(b.getI32Type()));
    SmallVector<int64_t> mult, shift;
    for (double s : accScale) {
      auto [m, r] = calib::multiplierShift(s / yType.getScale());
      mult.push_back(m);
      shift.push_back(r);
    }
    OpBuilder qb(quantOp);
    auto requant = RequantOp::create(
        qb, quantOp.getLoc(), quantOp.getType(), acc->getResult(0),
        qb.getDenseI64ArrayAttr(mult), qb.getDenseI64ArrayAttr(shift),
        RequantModeAttr::get(op->getContext(), RequantMode::MultiplierShift));
    quantOp.getOutput().replaceAllUsesWith(requant.getOutput());
    quantOp->erase();
    if (relu)
      (*op->getResult(0).getUsers().begin())->erase();
    op->erase();
    return success();
  }
  // Float consumers: the accumulator dequantized exactly.
  acc->getResult(0).setType(
      out.clone(calib::accumulatorType(op->getContext(), accScale, 1)));
  auto deq = DequantOp::create(b, op->getLoc(), out, acc->getResult(0));
  op->getResult(0).replaceAllUsesWith(deq.getOutput());
  op->erase();
  return success();
}

struct TopFoldQdqPass
    : public strata::top::impl::TopFoldQdqBase<TopFoldQdqPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto module = func->getParentOfType<ModuleOp>();
    if (!module)
      return;
    WeightNamer namer(module);
    SmallVector<Operation *> candidates;
    func.walk([&](Operation *op) {
      if (isa<ConvOp, MatMulOp>(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates)
      (void)foldOne(op, namer);
  }
};

} // namespace
