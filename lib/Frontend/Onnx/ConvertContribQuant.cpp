//===- ConvertContribQuant.cpp - com.microsoft quantized ops --------------===//
//
// ONNX Runtime's quantized contrib ops (domain com.microsoft), which its
// quantization tool writes, as standard ONNX ops through an Expansion
// (ContribExpansion.h). Each follows the arithmetic of ONNX Runtime's CPU
// kernels (MLAS), in f32, rounding half to even:
//   QLinearAdd   C = clamp(round(sa/sc * (a - za) + sb/sc * (b - zb)) + zc)
//   QLinearMul   C = clamp(round((a - za) * (b - zb) * (sa * sb / sc)) + zc)
//   QLinearSigmoid, QLinearLeakyRelu, QLinearAveragePool,
//   QLinearGlobalAveragePool, QLinearConcat
//                = QuantizeLinear(f(DequantizeLinear(x)))
//   MatMulIntegerToFloat  Y = float(MatMulInteger(A, B, za, zb)) *
//                             (a_scale * b_scale) + bias
//   DynamicQuantizeMatMul the same with A quantized by DynamicQuantizeLinear
//   NhwcMaxPool  MaxPool between NHWC <-> NCHW transposes
//   QLinearConv  the standard op, between those transposes when
//                `channels_last` is set
//   QuantizeLinear, DequantizeLinear  the standard ops (per tensor, or per
//                `axis` with 1-d parameters)
// A missing zero point is 0 of the quantized type.
//
//===----------------------------------------------------------------------===//

#include "ContribExpansion.h"

namespace strata::onnx_import {
namespace {

/// Zero point input `i`, or a 0 of the type of input `like`.
std::string zeroPoint(Expansion &e, size_t i, const std::string &like) {
  std::string zp = e.in(i);
  return zp.empty() ? e.scalarLike(0, like) : zp;
}

/// Checks input `i` is int8 or uint8 (the contrib kernels' types).
LogicalResult requireInt8(NodeContext &c, size_t i) {
  Type t = elemOf(c, i);
  if (!t || !t.isInteger(8))
    return c.error() << "input " << i << " has element type " << t
                     << "; only int8 and uint8 are supported";
  return success();
}

/// round(v) + zp clamped to the range of the type of `like`, cast like it.
std::string requantize(Expansion &e, NodeContext &c, const std::string &v,
                       const std::string &zp, const std::string &like,
                       size_t likeInput) {
  bool isSigned = !elemOf(c, likeInput).isUnsignedInteger();
  std::string r = e.node("Add", {e.node("Round", {v}),
                                 e.node("Cast", {zp}, {attrI("to", 1)})});
  std::string lo = e.scalarLike(isSigned ? -128 : 0, r);
  std::string hi = e.scalarLike(isSigned ? 127 : 255, r);
  return e.node("CastLike", {e.node("Clip", {r, lo, hi}), like});
}

/// float(q) - float(zp).
std::string centered(Expansion &e, const std::string &q,
                     const std::string &zp) {
  return e.node("Sub", {e.node("Cast", {q}, {attrI("to", 1)}),
                        e.node("Cast", {zp}, {attrI("to", 1)})});
}

LogicalResult convertQLinearAdd(NodeContext &c) {
  if (failed(requireInt8(c, 0)) || failed(requireInt8(c, 3)))
    return failure();
  Expansion e(c);
  std::string a = e.in(0), b = e.in(3);
  std::string ratioA = e.node("Div", {e.in(1), e.in(6)});
  std::string ratioB = e.node("Div", {e.in(4), e.in(6)});
  std::string va = e.node("Mul", {ratioA, centered(e, a, zeroPoint(e, 2, a))});
  std::string vb = e.node("Mul", {ratioB, centered(e, b, zeroPoint(e, 5, b))});
  return e.finish({requantize(e, c, e.node("Add", {va, vb}),
                              zeroPoint(e, 7, a), a, 0)});
}

LogicalResult convertQLinearMul(NodeContext &c) {
  if (failed(requireInt8(c, 0)) || failed(requireInt8(c, 3)))
    return failure();
  Expansion e(c);
  std::string a = e.in(0), b = e.in(3);
  std::string ratio =
      e.node("Div", {e.node("Mul", {e.in(1), e.in(4)}), e.in(6)});
  std::string prod = e.node("Mul", {centered(e, a, zeroPoint(e, 2, a)),
                                    centered(e, b, zeroPoint(e, 5, b))});
  return e.finish({requantize(e, c, e.node("Mul", {prod, ratio}),
                              zeroPoint(e, 7, a), a, 0)});
}

/// DequantizeLinear of input `x` with scale and zero point inputs.
std::string dequantize(Expansion &e, const std::string &x, size_t scale,
                       size_t zp) {
  return e.node("DequantizeLinear", {x, e.in(scale), zeroPoint(e, zp, x)});
}

/// QuantizeLinear of `v` to the type of `like`.
std::string quantize(Expansion &e, const std::string &v, size_t scale,
                     size_t zp, const std::string &like) {
  return e.node("QuantizeLinear", {v, e.in(scale), zeroPoint(e, zp, like)});
}

/// QuantizeLinear(op(DequantizeLinear(X))) for the unary QLinear ops with
/// inputs (X, X_scale, X_zero_point, Y_scale, Y_zero_point).
LogicalResult convertQLinearUnary(NodeContext &c, StringRef op,
                                  ArrayRef<onnx::AttributeProto> attrs) {
  if (failed(requireInt8(c, 0)))
    return failure();
  Expansion e(c);
  std::string x = e.in(0);
  std::string y = e.node(op, {dequantize(e, x, 1, 2)}, attrs);
  return e.finish({quantize(e, y, 3, 4, x)});
}

LogicalResult convertQLinearSigmoid(NodeContext &c) {
  return convertQLinearUnary(c, "Sigmoid", {});
}

LogicalResult convertQLinearLeakyRelu(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 0.01f);
  if (failed(alpha))
    return failure();
  return convertQLinearUnary(c, "LeakyRelu", {attrF("alpha", *alpha)});
}

/// Reads `channels_last` (0 or 1).
FailureOr<bool> channelsLast(NodeContext &c) {
  auto v = c.attrInt("channels_last", 0);
  if (failed(v))
    return failure();
  if (*v != 0 && *v != 1)
    return c.error() << "attribute 'channels_last' = " << *v
                     << " must be 0 or 1";
  return *v == 1;
}

/// The permutations NHWC -> NCHW and back for rank `rank`.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
channelsLastPerms(int64_t rank) {
  SmallVector<int64_t> toFirst = {0, rank - 1}, toLast = {0};
  for (int64_t i = 1; i < rank - 1; ++i) {
    toFirst.push_back(i);
    toLast.push_back(i + 1);
  }
  toLast.push_back(1);
  return {toFirst, toLast};
}

/// `op(x)` on a channels-first view of `x` when `last` is set.
std::string channelsFirst(Expansion &e, const std::string &x, bool last,
                          int64_t rank, StringRef op,
                          ArrayRef<onnx::AttributeProto> attrs) {
  if (!last)
    return e.node(op, {x}, attrs);
  auto [toFirst, toLast] = channelsLastPerms(rank);
  std::string t = e.node("Transpose", {x}, {attrIs("perm", toFirst)});
  return e.node("Transpose", {e.node(op, {t}, attrs)},
                {attrIs("perm", toLast)});
}

LogicalResult convertQLinearAveragePool(NodeContext &c) {
  auto last = channelsLast(c);
  auto rank = c.requireRank(0);
  if (failed(last) || failed(rank) || failed(requireInt8(c, 0)))
    return failure();
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a : {"auto_pad", "ceil_mode", "count_include_pad",
                        "kernel_shape", "pads", "strides"})
    e.copyAttr(a, attrs);
  std::string x = e.in(0);
  std::string y = channelsFirst(e, dequantize(e, x, 1, 2), *last, *rank,
                                "AveragePool", attrs);
  return e.finish({quantize(e, y, 3, 4, x)});
}

LogicalResult convertQLinearGlobalAveragePool(NodeContext &c) {
  auto last = channelsLast(c);
  auto rank = c.requireRank(0);
  if (failed(last) || failed(rank) || failed(requireInt8(c, 0)))
    return failure();
  Expansion e(c);
  std::string x = e.in(0);
  std::string y = channelsFirst(e, dequantize(e, x, 1, 2), *last, *rank,
                                "GlobalAveragePool", {});
  return e.finish({quantize(e, y, 3, 4, x)});
}

LogicalResult convertQLinearConcat(NodeContext &c) {
  auto axis = c.attrInt("axis", 0);
  if (failed(axis))
    return failure();
  if (!c.attr("axis"))
    return c.error() << "attribute 'axis' is required";
  size_t n = c.numInputs();
  if (n < 5 || (n - 2) % 3 != 0)
    return c.error() << "has " << n
                     << " inputs; QLinearConcat takes Y_scale, Y_zero_point "
                        "and one or more (X, X_scale, X_zero_point) triples";
  Expansion e(c);
  SmallVector<std::string> parts;
  for (size_t i = 2; i < n; i += 3) {
    if (failed(requireInt8(c, i)))
      return failure();
    if (!c.hasInput(i + 1) || !c.hasInput(i + 2))
      return c.error() << "input " << i << " needs its scale and zero point "
                       << "(inputs " << i + 1 << " and " << i + 2 << ")";
    parts.push_back(dequantize(e, e.in(i), i + 1, i + 2));
  }
  std::string y = e.node("Concat", parts, {attrI("axis", *axis)});
  return e.finish({quantize(e, y, 0, 1, e.in(2))});
}

/// float(MatMulInteger(a, B, aZp, bZp)) * scale (+ bias), like `scaleLike`.
std::string scaledMatMulInteger(Expansion &e, const std::string &a,
                                const std::string &aZp, size_t b, size_t bZp,
                                const std::string &scale, size_t bias) {
  std::string acc = e.node("MatMulInteger", {a, e.in(b), aZp, e.in(bZp)});
  std::string y = e.node(
      "Mul", {e.node("CastLike", {acc, scale}), scale});
  if (!e.in(bias).empty())
    y = e.node("Add", {y, e.in(bias)});
  return y;
}

LogicalResult convertMatMulIntegerToFloat(NodeContext &c) {
  if (failed(requireInt8(c, 0)) || failed(requireInt8(c, 1)))
    return failure();
  Expansion e(c);
  std::string scale = e.node("Mul", {e.in(2), e.in(3)});
  return e.finish(
      {scaledMatMulInteger(e, e.in(0), e.in(4), 1, 5, scale, 6)});
}

LogicalResult convertDynamicQuantizeMatMul(NodeContext &c) {
  if (failed(requireInt8(c, 1)))
    return failure();
  Type a = elemOf(c, 0);
  if (!a || !a.isF32())
    return c.error() << "input 0 has element type " << a
                     << "; only f32 is supported";
  Expansion e(c);
  auto q = e.nodeN("DynamicQuantizeLinear", {e.in(0)}, 3);
  std::string scale = e.node("Mul", {q[1], e.in(2)});
  return e.finish({scaledMatMulInteger(e, q[0], q[2], 1, 3, scale, 4)});
}

LogicalResult convertNhwcMaxPool(NodeContext &c) {
  auto rank = c.requireRank(0);
  if (failed(rank) || failed(requireInt8(c, 0)))
    return failure();
  if (*rank < 3)
    return c.error() << "input 0 has rank " << *rank
                     << "; NhwcMaxPool needs N, spatial dims and C";
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a :
       {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
        "strides"})
    e.copyAttr(a, attrs);
  if (!c.attr("kernel_shape"))
    return c.error() << "attribute 'kernel_shape' is required";
  return e.finish(
      {channelsFirst(e, e.in(0), true, *rank, "MaxPool", attrs)});
}

/// com.microsoft QLinearConv: the standard op, on NHWC data when
/// `channels_last` is set (the weights stay OIHW), as ONNX Runtime's NHWC
/// transformer writes it.
LogicalResult convertQLinearConv(NodeContext &c) {
  auto last = channelsLast(c);
  auto rank = c.requireRank(0);
  if (failed(last) || failed(rank))
    return failure();
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a : {"auto_pad", "dilations", "group", "kernel_shape",
                        "pads", "strides"})
    e.copyAttr(a, attrs);
  SmallVector<std::string> ins;
  for (size_t i = 0; i < c.numInputs(); ++i)
    ins.push_back(e.in(i));
  std::string x = ins[0];
  auto [toFirst, toLast] = channelsLastPerms(*rank);
  if (*last)
    ins[0] = e.node("Transpose", {x}, {attrIs("perm", toFirst)});
  std::string y = e.node("QLinearConv", ins, attrs);
  if (*last)
    y = e.node("Transpose", {y}, {attrIs("perm", toLast)});
  return e.finish({y});
}

/// An LSTM weight of DynamicQuantizeLSTM, (dirs, in, 4*hidden) integers
/// with scale and zero point per direction (dirs) or per column
/// (dirs, 4*hidden), dequantized and transposed to ONNX LSTM's
/// (dirs, 4*hidden, in).
FailureOr<std::string> lstmWeight(NodeContext &c, Expansion &e, size_t w,
                                  size_t scale, size_t zp) {
  auto sShape = c.requireShape(scale);
  auto zShape = c.requireShape(zp);
  if (failed(sShape) || failed(zShape) || failed(requireInt8(c, w)))
    return failure();
  if ((sShape->size() != 1 && sShape->size() != 2) || *sShape != *zShape)
    return c.error() << "inputs " << scale << " and " << zp << " of shapes "
                     << formatArray(*sShape) << " and "
                     << formatArray(*zShape)
                     << " are not supported (both (num_directions) or both "
                        "(num_directions, 4*hidden_size))";
  SmallVector<int64_t> col = {(*sShape)[0], 1,
                              sShape->size() == 2 ? (*sShape)[1] : 1};
  std::string f = centered(e, e.in(w), e.node("Reshape", {e.in(zp),
                                                          e.ints(col)}));
  f = e.node("Mul", {f, e.node("Reshape", {e.in(scale), e.ints(col)})});
  return e.node("Transpose", {f}, {attrIs("perm", {0, 2, 1})});
}

LogicalResult convertDynamicQuantizeLSTM(NodeContext &c) {
  Type x = elemOf(c, 0);
  if (!x || !x.isF32())
    return c.error() << "input 0 has element type " << x
                     << "; only f32 is supported";
  Expansion e(c);
  auto w = lstmWeight(c, e, 1, 8, 9);
  auto r = lstmWeight(c, e, 2, 10, 11);
  if (failed(w) || failed(r))
    return failure();
  SmallVector<onnx::AttributeProto> attrs;
  for (const char *a : {"activation_alpha", "activation_beta", "activations",
                        "clip", "direction", "hidden_size", "input_forget"})
    e.copyAttr(a, attrs);
  auto y = e.nodeN("LSTM",
                   {e.in(0), *w, *r, e.in(3), e.in(4), e.in(5), e.in(6),
                    e.in(7)},
                   3, attrs);
  return e.finish({y[0], y[1], y[2]});
}

/// com.microsoft QuantizeLinear / DequantizeLinear: the standard op with
/// the same inputs and `axis`.
LogicalResult convertQuantOp(NodeContext &c) {
  Expansion e(c);
  SmallVector<onnx::AttributeProto> attrs;
  e.copyAttr("axis", attrs);
  SmallVector<std::string> ins = {e.in(0), e.in(1)};
  if (c.hasInput(2))
    ins.push_back(e.in(2));
  return e.finish({e.node(c.node().op_type(), ins, attrs)});
}

const ConverterEntry kContribQuant[] = {
    {"QLinearAdd", convertQLinearAdd},
    {"QLinearMul", convertQLinearMul},
    {"QLinearSigmoid", convertQLinearSigmoid},
    {"QLinearLeakyRelu", convertQLinearLeakyRelu},
    {"QLinearAveragePool", convertQLinearAveragePool},
    {"QLinearGlobalAveragePool", convertQLinearGlobalAveragePool},
    {"QLinearConcat", convertQLinearConcat},
    {"QLinearConv", convertQLinearConv},
    {"MatMulIntegerToFloat", convertMatMulIntegerToFloat},
    {"DynamicQuantizeMatMul", convertDynamicQuantizeMatMul},
    {"NhwcMaxPool", convertNhwcMaxPool},
    {"DynamicQuantizeLSTM", convertDynamicQuantizeLSTM},
    {"QuantizeLinear", convertQuantOp},
    {"DequantizeLinear", convertQuantOp},
};
} // namespace

ArrayRef<ConverterEntry> contribQuantConverters() { return kContribQuant; }

} // namespace strata::onnx_import
