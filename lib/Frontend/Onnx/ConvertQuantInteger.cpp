//===- ConvertQuantInteger.cpp - integer arithmetic on quantized tensors --===//
//
// Part of the Quant family (TopQuantOps.td; QuantizeLinear and
// DequantizeLinear are in ConvertQuant.cpp): MatMulInteger and ConvInteger
// (int8/uint8 operands, zero points subtracted, int32 accumulation), and
// the ONNX operators that compute on quantized tensors with their
// quantization parameters as inputs: QLinearMatMul, QLinearConv,
// DynamicQuantizeLinear. The integer part of the QLinear ops is the
// MatMulInteger / ConvInteger one; the requantization follows the ONNX
// reference exactly: the multiplier `x_scale * w_scale / y_scale` is
// computed in the scales' float type, the accumulator times it (plus the
// output zero point) in f64, rounded half to even and saturated to the
// output type. Scales and zero points may be runtime values, so all of it
// is elementwise Top ops.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

//===----------------------------------------------------------------------===//
// MatMulInteger, ConvInteger: the integer part
//===----------------------------------------------------------------------===//

/// Input `i` cast to i32 minus the zero point input `zp` (if given), the
/// zero point reshaped to `zpShape` when it has more than one value.
FailureOr<Value> minusZeroPoint(NodeContext &c, size_t i, size_t zp,
                                ArrayRef<int64_t> zpShape) {
  Type i32 = c.builder().getI32Type();
  auto x = c.create<CastOp>(i32, c.input(i));
  if (failed(x) || !c.hasInput(zp))
    return x;
  auto z = c.create<CastOp>(i32, c.input(zp));
  if (failed(z))
    return failure();
  auto zs = c.requireShape(zp);
  if (failed(zs))
    return failure();
  int64_t count = 1;
  for (int64_t d : *zs)
    count *= d;
  if (count > 1) {
    z = c.create<ReshapeOp>(i32, *z, c.builder().getDenseI64ArrayAttr(zpShape));
    if (failed(z))
      return failure();
  }
  return c.create<SubOp>(i32, *x, *z);
}

LogicalResult checkInt8(NodeContext &c, size_t i) {
  auto dt = dtypeOf(elemOf(c, i));
  if (!dt || (*dt != DType::I8 && *dt != DType::U8))
    return c.error() << "input " << i << " has element type " << elemOf(c, i)
                     << "; only int8 and uint8 are supported";
  return success();
}

/// int8/uint8 matmul accumulated in int32, (in[a] - in[aZp]) @ (in[b] -
/// in[bZp]), absent zero points being 0.
FailureOr<Value> integerMatMul(NodeContext &c, size_t a, size_t aZp, size_t b,
                               size_t bZp) {
  auto aShape = c.requireShape(a);
  if (failed(aShape) || failed(checkInt8(c, a)) || failed(checkInt8(c, b)))
    return failure();
  std::vector<int64_t> col{aShape->size() >= 2 ? (*aShape)[aShape->size() - 2]
                                               : 1,
                           1};
  auto am = minusZeroPoint(c, a, aZp, col);
  auto bm = minusZeroPoint(c, b, bZp, {-1});
  if (failed(am) || failed(bm))
    return failure();
  return c.create<MatMulOp>(c.builder().getI32Type(), *am, *bm, c.none(),
                            false, false, llvm::APFloat(-1.0));
}

/// int8/uint8 convolution of in[x] by in[w] accumulated in int32, zero points
/// in[xZp] and in[wZp] (per output channel) subtracted, int32 `bias` (or
/// none) added; the node's window attributes. A constant scalar input zero
/// point maps to Top.Conv's input_zp (the padding is the zero point); any
/// other is subtracted from the input in int32, which pads with zero after
/// the subtraction, the same. The weight zero point (per output channel in
/// ONNX, per input channel in Top) is subtracted from the weights in int32.
FailureOr<Value> integerConv(NodeContext &c, size_t xIdx, size_t xZp,
                             size_t wIdx, size_t wZp, Value bias) {
  auto x = c.requireShape(xIdx);
  auto wShape = c.requireShape(wIdx);
  if (failed(x) || failed(wShape) || failed(checkInt8(c, xIdx)) ||
      failed(checkInt8(c, wIdx)))
    return failure();
  if (x->size() < 3 || wShape->size() != x->size())
    return c.error() << "input shape " << formatArray(*x)
                     << " and weight shape " << formatArray(*wShape)
                     << " must have equal rank >= 3";
  int64_t r = x->size() - 2;
  std::vector<int64_t> kernel(wShape->begin() + 2, wShape->end());
  auto win =
      readKernelWindow(c, r, ArrayRef<int64_t>(*x).drop_front(2), kernel);
  auto group = c.attrInt("group", 1);
  if (failed(win) || failed(group))
    return failure();
  DenseI64ArrayAttr inputZp;
  OpBuilder &b = c.builder();
  Value input = c.input(xIdx);
  if (c.hasInput(xZp)) {
    auto zp = c.constantInts(xZp);
    if (zp && zp->size() == 1) {
      inputZp = b.getDenseI64ArrayAttr(*zp);
    } else {
      auto shifted = minusZeroPoint(c, xIdx, xZp, {});
      if (failed(shifted))
        return failure();
      input = *shifted;
    }
  }
  std::vector<int64_t> zpShape(wShape->size(), 1);
  zpShape[0] = (*wShape)[0];
  auto w = minusZeroPoint(c, wIdx, wZp, zpShape);
  if (failed(w))
    return failure();
  return c.create<ConvOp>(
      b.getI32Type(), input, *w, bias, b.getDenseI64ArrayAttr(win->kernel),
      b.getDenseI64ArrayAttr(win->strides), b.getDenseI64ArrayAttr(win->pads),
      b.getDenseI64ArrayAttr(win->dilations), b.getI64IntegerAttr(*group),
      b.getBoolAttr(false), b.getF64FloatAttr(-1.0), inputZp,
      DenseI64ArrayAttr());
}

/// int8/uint8 matmul accumulated in int32: (A - a_zp) @ (B - b_zp); a per-row
/// a_zp is an M x 1 column, a per-column b_zp broadcasts along N.
LogicalResult convertMatMulInteger(NodeContext &c) {
  auto out = integerMatMul(c, 0, 2, 1, 3);
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertConvInteger(NodeContext &c) {
  auto out = integerConv(c, 0, 2, 1, 3, c.none());
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

//===----------------------------------------------------------------------===//
// QLinearMatMul, QLinearConv, DynamicQuantizeLinear
//===----------------------------------------------------------------------===//

/// `v` clipped to the range of integer type `to`, rounded half to even and
/// converted to `to`.
FailureOr<Value> saturate(ValueBuilder &a, FailureOr<Value> v, Type to) {
  auto dt = dtypeOf(to);
  unsigned bits = dt ? intBitWidth(*dt) : 0;
  bool isSigned = dt && isSignedInt(*dt);
  double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = isSigned ? std::ldexp(1.0, bits - 1) - 1
                       : std::ldexp(1.0, bits) - 1;
  return a.convert(a.roundHalfEven(a.clip(v, lo, hi)), to);
}

LogicalResult checkScale(NodeContext &c, size_t i, StringRef what) {
  Type t = c.inputElementType(i);
  if (!t || !isa<FloatType>(t))
    return c.error() << "input '" << what << "' must be a float tensor, got "
                     << t;
  return success();
}

/// The element count of input `i`, if its shape is known.
FailureOr<int64_t> countOf(NodeContext &c, size_t i) {
  auto shape = c.requireShape(i);
  if (failed(shape))
    return failure();
  int64_t n = 1;
  for (int64_t d : *shape)
    n *= d;
  return n;
}

/// `acc * (in[s0] * in[s1] / in[sy]) + in[yZp]`, saturated to `out`. The
/// per-channel scale `in[s1]`, if it has more than one value, is reshaped
/// to `perChannel` first.
FailureOr<Value> requantize(NodeContext &c, Value acc, size_t s0, size_t s1,
                            size_t sy, size_t yZp, Type out,
                            ArrayRef<int64_t> perChannel) {
  ValueBuilder a(c);
  FailureOr<Value> s1v = c.input(s1);
  auto n = countOf(c, s1);
  if (failed(n))
    return failure();
  if (*n > 1)
    s1v = a.reshape(s1v, perChannel);
  Type f64 = c.builder().getF64Type();
  auto multiplier =
      a.convert(a.op<DivOp>(a.op<MulOp>(c.input(s0), s1v), c.input(sy)), f64);
  auto y = a.op<MulOp>(a.convert(acc, f64), multiplier);
  if (c.hasInput(yZp))
    y = a.op<AddOp>(y, a.convert(c.input(yZp), f64));
  return saturate(a, y, out);
}

/// The output type: the output zero point's, else the quantized input's.
FailureOr<Type> outputType(NodeContext &c, size_t yZp, size_t x) {
  Type t = c.hasInput(yZp) ? c.inputElementType(yZp) : c.inputElementType(x);
  auto dt = dtypeOf(t);
  if (!dt || (*dt != DType::I8 && *dt != DType::U8))
    return c.error() << "the output type " << t
                     << " is not supported (int8 and uint8 are)";
  return t;
}

LogicalResult checkScales(NodeContext &c, std::initializer_list<size_t> idx) {
  for (size_t i : idx)
    if (failed(checkScale(c, i, c.node().input(i))))
      return failure();
  return success();
}

/// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp).
LogicalResult convertQLinearMatMul(NodeContext &c) {
  if (c.numInputs() != 8)
    return c.error() << "expected 8 inputs, got " << c.numInputs();
  if (failed(checkScales(c, {1, 4, 6})))
    return failure();
  auto out = outputType(c, 7, 0);
  auto acc = integerMatMul(c, 0, 2, 3, 5);
  if (failed(out) || failed(acc))
    return failure();
  return c.setResult(requantize(c, *acc, 1, 4, 6, 7, *out, {-1}));
}

/// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B).
LogicalResult convertQLinearConv(NodeContext &c) {
  if (c.numInputs() < 8 || c.numInputs() > 9)
    return c.error() << "expected 8 or 9 inputs, got " << c.numInputs();
  if (failed(checkScales(c, {1, 4, 6})))
    return failure();
  auto rank = c.requireRank(0);
  auto out = outputType(c, 7, 0);
  if (failed(rank) || failed(out))
    return failure();
  Value bias = c.none();
  if (c.hasInput(8)) {
    if (c.inputElementType(8) != c.builder().getI32Type())
      return c.error() << "input 'B' must be int32, got "
                       << c.inputElementType(8);
    bias = c.input(8);
  }
  auto acc = integerConv(c, 0, 2, 3, 5, bias);
  if (failed(acc))
    return failure();
  std::vector<int64_t> perChannel(*rank, 1);
  perChannel[1] = -1;
  return c.setResult(requantize(c, *acc, 1, 4, 6, 7, *out, perChannel));
}

/// DynamicQuantizeLinear(x) -> (y, y_scale, y_zero_point), uint8, with the
/// range [min(0, min x), max(0, max x)] mapped onto [0, 255] in f32.
LogicalResult convertDynamicQuantizeLinear(NodeContext &c) {
  auto rank = c.requireRank(0);
  if (failed(rank))
    return failure();
  Type f32 = c.builder().getF32Type();
  if (c.inputElementType(0) != f32)
    return c.error() << "input 'x' must be float32, got "
                     << c.inputElementType(0);
  ValueBuilder a(c);
  OpBuilder &b = c.builder();
  std::vector<int64_t> all;
  for (int64_t i = 0; i < *rank; ++i)
    all.push_back(i);
  auto reduce = [&](ReduceMode mode) {
    return c.create<ReduceOp>(f32, c.input(0), b.getDenseI64ArrayAttr(all),
                              b.getBoolAttr(false),
                              ReduceModeAttr::get(b.getContext(), mode));
  };
  Value zero = a.scalar(f32, 0.0);
  auto hi = a.op<MaxOp>(reduce(ReduceMode::Max), zero);
  auto lo = a.op<MinOp>(reduce(ReduceMode::Min), zero);
  if (failed(hi) || failed(lo))
    return failure();
  auto same = c.create<CompareOp>(b.getI1Type(), *hi, *lo,
                                  CompareModeAttr::get(b.getContext(), CompareMode::Equal));
  auto range = a.op<SubOp>(hi, lo);
  if (failed(same) || failed(range))
    return failure();
  auto width = c.create<WhereOp>(f32, *same, a.scalar(f32, 1.0), *range);
  auto scale = a.op<DivOp>(width, a.scalar(f32, 255.0));
  auto zp = a.roundHalfEven(
      a.clip(a.op<SubOp>(zero, a.op<DivOp>(lo, scale)), 0.0, 255.0));
  auto y = a.op<AddOp>(a.roundHalfEven(a.op<DivOp>(c.input(0), scale)), zp);
  Type u8 = elementTypeOf(DType::U8, c.context());
  auto yq = saturate(a, y, u8);
  auto zpq = a.convert(zp, u8);
  if (failed(scale) || failed(yq) || failed(zpq))
    return failure();
  // A named array: a braced list in the range expression would die before
  // the loop body reads it (llvm::enumerate keeps only a view of it).
  const Value outputs[] = {*yq, *scale, *zpq};
  for (auto [i, v] : llvm::enumerate(outputs))
    if (c.hasOutput(i))
      c.setOutput(i, v);
  return success();
}

} // namespace

llvm::ArrayRef<ConverterEntry> quantIntegerConverters() {
  static const ConverterEntry table[] = {
      {"MatMulInteger", convertMatMulInteger},
      {"ConvInteger", convertConvInteger},
      {"QLinearMatMul", convertQLinearMatMul},
      {"QLinearConv", convertQLinearConv},
      {"DynamicQuantizeLinear", convertDynamicQuantizeLinear},
  };
  return table;
}

} // namespace strata::onnx_import
