//===- QuantOps.cpp - top.Quant, top.Dequant, top.Requant -----------------===//
//
// Tensors of `!quant.uniform` element type hold their storage integers on the
// host. The ops read the quantization parameters from the types; see
// TopQuantOps.td for the exact semantics.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/IR/TopTable16Op.h"
#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"
#include "strata/Dialect/Top/Shapes/QuantShapes.h"
#include "strata/Support/IntegerRequant.h"
#include "strata/Support/IntegerTable16.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {

/// The quantization parameters of one side of an op, resolved per element.
/// A plain integer type is represented with no scales, zero point 0 and the
/// integer type's range.
struct QuantParams {
  /// The quantized dimension, or -1 for per-tensor (or plain) types.
  int64_t axis = -1;
  SmallVector<double> scales;
  SmallVector<int64_t> zeroPoints;
  int64_t qmin = 0, qmax = 0;
  /// The host dtype of the storage integers.
  DType storage = DType::I64;

  bool isQuantized() const { return !scales.empty(); }
  double scale(int64_t c) const { return scales[axis < 0 ? 0 : c]; }
  int64_t zeroPoint(int64_t c) const { return zeroPoints[axis < 0 ? 0 : c]; }
};

/// Maps flat row-major indices of `shape` to their index along `axis`.
struct AxisIndexer {
  int64_t inner = 1, size = 1;
  AxisIndexer(ArrayRef<int64_t> shape, int64_t axis) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
      return;
    size = shape[axis];
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
  }
  int64_t operator()(int64_t flat) const { return (flat / inner) % size; }
};

/// The host dtype of a quantized type's storage, honouring its signedness
/// (the storage type of `!quant.uniform<u8:...>` is a signless i8).
std::optional<DType> storageDType(quant::QuantizedType q) {
  auto it = dyn_cast<IntegerType>(q.getStorageType());
  if (!it)
    return std::nullopt;
  bool u = !q.isSigned();
  switch (it.getWidth()) {
  case 8: return u ? DType::U8 : DType::I8;
  case 16: return u ? DType::U16 : DType::I16;
  case 32: return u ? DType::U32 : DType::I32;
  default: return std::nullopt;
  }
}

/// The element type of a tensor-typed value.
Type elementType(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// The quantized dim and scale count of a per-axis quantized type.
std::optional<shapes::QuantAxis> quantAxisOf(Type elem) {
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(elem);
  if (!perAxis)
    return std::nullopt;
  return shapes::QuantAxis{perAxis.getQuantizedDimension(),
                           static_cast<int64_t>(perAxis.getScales().size())};
}

/// Checks that `v` (described as `what`: "input" or "result") has a uniform
/// quantized element type with integer storage that fits its tensor type,
/// and returns that type. `sameShape`, if given, is a value of the same
/// shape as `v` (the other side of an elementwise op).
FailureOr<quant::QuantizedType> checkQuantized(Operation *op, const char *what,
                                               Value v, Value sameShape) {
  Type elem = elementType(v);
  auto q = dyn_cast<quant::QuantizedType>(elem);
  if (!q)
    return op->emitOpError() << what
                             << " element type must be a !quant.uniform type, "
                                "got "
                             << elem;
  if (!isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(q))
    return op->emitOpError()
           << what << " element type " << elem
           << " must be a per-tensor or per-axis !quant.uniform type";
  if (!storageDType(q))
    return op->emitOpError() << what << " storage type " << q.getStorageType()
                             << " must be an 8, 16 or 32-bit integer";
  // The shapes of `v` and `sameShape` are equal once inferred; checking both
  // catches a per-axis type on an unranked result before shape inference.
  if (std::optional<shapes::QuantAxis> axis = quantAxisOf(q))
    for (Value shaped : {v, sameShape}) {
      auto ranked = shaped ? dyn_cast<RankedTensorType>(shaped.getType())
                           : RankedTensorType();
      if (!ranked)
        continue;
      if (auto error = shapes::checkQuantAxis(what, *axis, ranked.getShape()))
        return op->emitOpError() << error->message();
    }
  return q;
}

/// Checks that `v` has a quantized element type (see above) or an integer
/// element type of at most 32 bits.
FailureOr<Type> checkQuantizedOrInteger(Operation *op, const char *what,
                                        Value v, Value sameShape) {
  Type elem = elementType(v);
  if (isa<quant::QuantizedType>(elem)) {
    if (failed(checkQuantized(op, what, v, sameShape)))
      return failure();
    return elem;
  }
  auto it = dyn_cast<IntegerType>(elem);
  if (!it || (it.getWidth() != 8 && it.getWidth() != 16 &&
              it.getWidth() != 32))
    return op->emitOpError()
           << what
           << " element type must be a !quant.uniform type or an 8, 16 or "
              "32-bit integer, got "
           << elem;
  return elem;
}

/// The parameters of an element type that passed the checks above.
QuantParams paramsOf(Type elem) {
  QuantParams p;
  if (auto q = dyn_cast<quant::QuantizedType>(elem)) {
    p.storage = *storageDType(q);
    p.qmin = q.getStorageTypeMin();
    p.qmax = q.getStorageTypeMax();
    if (auto u = dyn_cast<quant::UniformQuantizedType>(q)) {
      p.scales.push_back(u.getScale());
      p.zeroPoints.push_back(u.getZeroPoint());
    } else {
      auto a = cast<quant::UniformQuantizedPerAxisType>(q);
      p.axis = a.getQuantizedDimension();
      p.scales.assign(a.getScales().begin(), a.getScales().end());
      p.zeroPoints.assign(a.getZeroPoints().begin(), a.getZeroPoints().end());
    }
    return p;
  }
  auto it = cast<IntegerType>(elem);
  unsigned w = it.getWidth();
  p.storage = *dtypeOf(it);
  p.zeroPoints.push_back(0);
  p.qmin = it.isUnsigned() ? 0 : llvm::minIntN(w);
  p.qmax = it.isUnsigned() ? static_cast<int64_t>(llvm::maxUIntN(w))
                           : llvm::maxIntN(w);
  return p;
}

} // namespace

//===----------------------------------------------------------------------===//
// QuantOp
//===----------------------------------------------------------------------===//

/// Checks the operand and result element types of `top.Quant`.
static LogicalResult verifyQuantTypes(QuantOp op) {
  auto q = checkQuantized(op, "result", op.getOutput(), op.getInput());
  if (failed(q))
    return failure();
  Type in = elementType(op.getInput()), expressed = q->getExpressedType();
  if (in != expressed)
    return op.emitOpError() << "input element type " << in
                            << " must be the result's expressed type "
                            << expressed;
  return success();
}

LogicalResult QuantOp::verify() { return verifyQuantTypes(*this); }

LogicalResult QuantOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verifyQuantTypes(*this)))
    return failure();
  return appendShape(*this,
                     shapes::inferQuant(ctx.shape(getInput()),
                                        quantAxisOf(elementType(getOutput()))),
                     s);
}

int64_t QuantOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  return t.hasStaticShape() ? 2 * t.getNumElements() : 0;
}

LogicalResult QuantOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  QuantParams p = paramsOf(elementType(getOutput()));
  AxisIndexer channel(in.shape(), p.axis);
  Tensor out(DType::I64, in.shape());
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    int64_t c = channel(i);
    o[i] = intq::quantizeScaled(in.getAsDouble(i) / p.scale(c), p.zeroPoint(c),
                          p.qmin, p.qmax);
  }
  env.set(getOutput(), out.castTo(p.storage));
  return success();
}

//===----------------------------------------------------------------------===//
// DequantOp
//===----------------------------------------------------------------------===//

/// Checks the operand and result element types of `top.Dequant`.
static LogicalResult verifyDequantTypes(DequantOp op) {
  auto q = checkQuantized(op, "input", op.getInput(), Value());
  if (failed(q))
    return failure();
  Type out = elementType(op.getOutput()), expressed = q->getExpressedType();
  if (out != expressed)
    return op.emitOpError() << "result element type " << out
                            << " must be the input's expressed type "
                            << expressed;
  return success();
}

LogicalResult DequantOp::verify() { return verifyDequantTypes(*this); }

LogicalResult DequantOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verifyDequantTypes(*this)))
    return failure();
  return appendShape(*this,
                     shapes::inferDequant(ctx.shape(getInput()),
                                          quantAxisOf(elementType(getInput()))),
                     s);
}

int64_t DequantOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  return t.hasStaticShape() ? 2 * t.getNumElements() : 0;
}

LogicalResult DequantOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  QuantParams p = paramsOf(elementType(getInput()));
  AxisIndexer channel(in.shape(), p.axis);
  Tensor out(resultDType(getOutput()), in.shape());
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    int64_t c = channel(i);
    out.setFromDouble(i, static_cast<double>(in.getAsInt(i) - p.zeroPoint(c)) *
                             p.scale(c));
  }
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// RequantOp
//===----------------------------------------------------------------------===//

/// Checks the element types of `top.Requant`: quantized or integer on both
/// sides, quantized on both for quant_mode "Float".
static LogicalResult verifyRequantTypes(RequantOp op) {
  auto in = checkQuantizedOrInteger(op, "input", op.getInput(), Value());
  if (failed(in))
    return failure();
  auto out =
      checkQuantizedOrInteger(op, "result", op.getOutput(), op.getInput());
  if (failed(out))
    return failure();
  if (op.getQuantMode() == RequantMode::Float &&
      (!isa<quant::QuantizedType>(*in) || !isa<quant::QuantizedType>(*out)))
    return op.emitOpError() << "quant_mode \"Float\" needs !quant.uniform "
                               "input and result types, got "
                            << *in << " and " << *out;
  return success();
}

/// The attributes of `top.Requant` and the per-axis quantizations of its
/// sides, for its shape function.
static shapes::RequantAttrs requantAttrs(RequantOp op) {
  shapes::RequantAttrs attrs;
  attrs.quantMode = stringifyRequantMode(op.getQuantMode()).str();
  if (auto m = op.getMultiplier())
    attrs.multiplier = Ints(*m);
  if (auto r = op.getRshift())
    attrs.rshift = Ints(*r);
  attrs.axis = op.getAxis();
  attrs.input = quantAxisOf(elementType(op.getInput()));
  attrs.result = quantAxisOf(elementType(op.getOutput()));
  return attrs;
}

LogicalResult RequantOp::verify() {
  if (failed(verifyRequantTypes(*this)))
    return failure();
  // Before shape inference the input may be unranked or have a dynamic
  // channel dim: the checks that need it wait for the shape.
  std::optional<Ints> input;
  if (auto ranked = dyn_cast<RankedTensorType>(getInput().getType()))
    input = Ints(ranked.getShape());
  if (auto error = shapes::checkRequantAttrs(requantAttrs(*this), input))
    return emitOpError() << error->message();
  return success();
}

LogicalResult RequantOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verifyRequantTypes(*this)))
    return failure();
  return appendShape(
      *this, shapes::inferRequant(ctx.shape(getInput()), requantAttrs(*this)),
      s);
}

int64_t RequantOp::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  return t.hasStaticShape() ? 3 * t.getNumElements() : 0;
}

LogicalResult RequantOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  QuantParams pin = paramsOf(elementType(getInput()));
  QuantParams pout = paramsOf(elementType(getOutput()));
  RequantMode mode = getQuantMode();
  AxisIndexer inChannel(in.shape(), pin.axis);
  AxisIndexer outChannel(in.shape(), pout.axis);
  std::optional<uint64_t> axis = getAxis();
  int64_t channelDim = axis ? static_cast<int64_t>(*axis)
                            : (in.rank() >= 2 ? 1 : -1);
  AxisIndexer channel(in.shape(), channelDim);
  SmallVector<int64_t> multiplier, rshift;
  if (auto m = getMultiplier())
    multiplier.assign(m->begin(), m->end());
  if (auto r = getRshift())
    rshift.assign(r->begin(), r->end());
  auto at = [](ArrayRef<int64_t> v, int64_t c) {
    return v.size() == 1 ? v[0] : v[c];
  };

  Tensor out(DType::I64, in.shape());
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    int64_t x = in.getAsInt(i) - pin.zeroPoint(inChannel(i));
    int64_t zpOut = pout.zeroPoint(outChannel(i));
    if (mode == RequantMode::Float) {
      double real = static_cast<double>(x) * pin.scale(inChannel(i));
      o[i] = intq::quantizeScaled(real / pout.scale(outChannel(i)), zpOut,
                            pout.qmin, pout.qmax);
      continue;
    }
    int64_t c = channel(i);
    int64_t m = at(multiplier, c), s = at(rshift, c);
    switch (mode) {
    case RequantMode::MultiplierShift:
      o[i] = intq::requantMultiplierShift(x, m, s, zpOut, pout.qmin,
                                          pout.qmax);
      break;
    case RequantMode::TFLite:
      o[i] = intq::requantTFLite(x, m, s, zpOut, pout.qmin, pout.qmax);
      break;
    case RequantMode::TFLiteHalfUp:
      o[i] = intq::requantTFLiteHalfUp(x, m, s, zpOut, pout.qmin, pout.qmax);
      break;
    default:
      o[i] = intq::requantTosa(x, m, s, mode == RequantMode::TosaDoubleRound,
                               zpOut, pout.qmin, pout.qmax);
      break;
    }
  }
  env.set(getOutput(), out.castTo(pout.storage));
  return success();
}

//===----------------------------------------------------------------------===//
// Table16Op
//===----------------------------------------------------------------------===//

/// Checks `top.Table16`: a per-tensor signed 16-bit input, a per-tensor
/// signed 8-bit result of the same shape, 513 entries.
static LogicalResult verifyTable16(Table16Op op) {
  auto check = [&](const char *what, Value v, unsigned bits) -> LogicalResult {
    FailureOr<Type> elem = checkQuantizedOrInteger(op, what, v, Value());
    if (failed(elem))
      return failure();
    if (isa<quant::UniformQuantizedPerAxisType>(*elem))
      return op.emitOpError() << what << " must be per-tensor, got " << *elem;
    QuantParams p = paramsOf(*elem);
    DType want = bits == 16 ? DType::I16 : DType::I8;
    if (p.storage != want)
      return op.emitOpError() << what << " storage must be a signed " << bits
                              << "-bit integer, got " << *elem;
    return success();
  };
  if (failed(check("input", op.getInput(), 16)) ||
      failed(check("result", op.getOutput(), 8)))
    return failure();
  if (int64_t(op.getTable().size()) != intq::kTable16Entries)
    return op.emitOpError() << "table has " << op.getTable().size()
                            << " entries, must have " << intq::kTable16Entries;
  auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto out = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (in && out && in.getShape() != out.getShape())
    return op.emitOpError() << "result shape must be the input's";
  return success();
}

LogicalResult Table16Op::verify() { return verifyTable16(*this); }

LogicalResult Table16Op::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  if (failed(verifyTable16(*this)))
    return failure();
  return appendShape(*this, shapes::inferUnary(ctx.shape(getInput())), s);
}

int64_t Table16Op::getFlops() {
  auto t = cast<ShapedType>(getOutput().getType());
  return t.hasStaticShape() ? 4 * t.getNumElements() : 0;
}

LogicalResult Table16Op::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  QuantParams pout = paramsOf(elementType(getOutput()));
  ArrayRef<int16_t> table = getTable();
  Tensor out(DType::I8, in.shape());
  int8_t *o = out.data<int8_t>();
  for (int64_t i = 0, n = in.numElements(); i < n; ++i)
    o[i] =
        intq::table16Lookup(table.data(), static_cast<int16_t>(in.getAsInt(i)),
                            pout.qmin, pout.qmax);
  env.set(getOutput(), std::move(out));
  return success();
}

#define GET_OP_CLASSES
#include "strata/Dialect/Top/IR/TopTable16Op.cpp.inc"
