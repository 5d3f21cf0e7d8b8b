//===- ConvertQuant.cpp - ONNX QuantizeLinear, DequantizeLinear to Top ----===//
//
// The Quant family (TopQuantOps.td; the integer arithmetic on quantized
// tensors is in ConvertQuantInteger.cpp). QuantizeLinear with a constant
// scale and zero point (per tensor or per axis) to an 8- or 16-bit integer
// type becomes top.Quant to a `!quant.uniform` type, DequantizeLinear of
// int8/uint8 with constant parameters top.Dequant of one. Runtime
// parameters, blocked quantization and the other storage types (2/4-bit,
// float8, float4) are computed with elementwise Top ops as the ONNX
// reference does.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

namespace strata::onnx_import {
namespace {

struct QuantParams {
  std::vector<double> scales;
  std::vector<int64_t> zps;
  int64_t axis = -1; // -1: per tensor
  bool isSigned = true;
  unsigned bits = 8;
};

/// Reads constant scale (input 1) and zero point (input 2) for a tensor of
/// `shape`; `storage` is the quantized integer type.
FailureOr<QuantParams> readQuantParams(NodeContext &c, ArrayRef<int64_t> shape,
                                       DType storage) {
  auto axisAttr = c.attrInt("axis", 1);
  auto block = c.attrInt("block_size", 0);
  if (failed(axisAttr) || failed(block))
    return failure();
  if (*block != 0)
    return c.error() << "attribute 'block_size' = " << *block
                     << " (blocked quantization) is not supported";
  if (storage != DType::I8 && storage != DType::U8 && storage != DType::I16 &&
      storage != DType::U16)
    return c.error() << "quantized type " << dtypeName(storage)
                     << " is not supported (only int8, uint8, int16 and "
                        "uint16)";
  QuantParams p;
  p.isSigned = isSignedInt(storage);
  p.bits = dtypeSize(storage) * 8;
  const Tensor *scale = c.constantInput(1);
  if (!scale)
    return c.error() << "the scale input must be a constant";
  if (scale->rank() > 1)
    return c.error() << "scale of shape " << shapeToString(scale->shape())
                     << " is not supported (scalar or 1-d)";
  for (int64_t i = 0; i < scale->numElements(); ++i)
    p.scales.push_back(scale->getAsDouble(i));
  if (scale->rank() == 1 && scale->numElements() != 1) {
    auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, shape.size());
    if (failed(axis))
      return failure();
    if (shape[*axis] != scale->numElements())
      return c.error() << "scale has " << scale->numElements()
                       << " values but dim " << *axis << " has "
                       << shape[*axis];
    p.axis = *axis;
  }
  for (double s : p.scales)
    if (!(s > 0) || !std::isfinite(s))
      return c.error() << "scale '" << c.node().input(1) << "' holds " << s
                       << ", which is not supported (must be positive and "
                          "finite)";
  if (c.hasInput(2)) {
    auto zp = c.constantInts(2);
    if (!zp)
      return c.error() << "the zero point input must be an integer constant";
    if (zp->size() != p.scales.size())
      return c.error() << "zero point has " << zp->size() << " values, scale "
                       << p.scales.size();
    p.zps = *zp;
  } else {
    p.zps.assign(p.scales.size(), 0);
  }
  return p;
}

Type quantType(NodeContext &c, const QuantParams &p, Type expressed) {
  auto storage = IntegerType::get(c.context(), p.bits);
  unsigned flags = p.isSigned ? quant::QuantizationFlags::Signed : 0;
  int64_t qmin = p.isSigned ? -(int64_t(1) << (p.bits - 1)) : 0;
  int64_t qmax = p.isSigned ? (int64_t(1) << (p.bits - 1)) - 1
                            : (int64_t(1) << p.bits) - 1;
  if (p.axis < 0)
    return quant::UniformQuantizedType::get(flags, storage, expressed,
                                            p.scales[0], p.zps[0], qmin, qmax);
  return quant::UniformQuantizedPerAxisType::get(
      flags, storage, expressed, p.scales, p.zps, p.axis, qmin, qmax);
}

/// Host dtype of an ONNX TensorProto data type number.
std::optional<DType> dtypeOfOnnx(NodeContext &c, int64_t onnxType) {
  Type t = elementTypeFromOnnx(static_cast<int32_t>(onnxType), c.context());
  return t ? dtypeOf(t) : std::nullopt;
}

/// Input `i` as float `f`, reshaped to `shape` if that is non-empty.
FailureOr<Value> asFloat(NodeContext &c, size_t i, Type f,
                         ArrayRef<int64_t> shape) {
  FailureOr<Value> v = c.input(i);
  if (elemOf(c, i) != f)
    v = c.create<CastOp>(f, *v);
  if (failed(v) || shape.empty())
    return v;
  return reshape(c, *v, shape);
}

/// Scale or zero point input `i` as float `f`, broadcastable to the data
/// `shape`: per tensor as is, per axis as a column on `axis`, blocked
/// (`block_size` > 0) with each value repeated over its block.
FailureOr<Value> quantParam(NodeContext &c, size_t i, Type f,
                            ArrayRef<int64_t> shape) {
  auto axisAttr = c.attrInt("axis", 1);
  auto block = c.attrInt("block_size", 0);
  auto pShape = c.requireShape(i);
  if (failed(axisAttr) || failed(block) || failed(pShape))
    return failure();
  int64_t rank = shape.size();
  if (product(*pShape) == 1 && *block == 0)
    return asFloat(c, i, f, {});
  auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, rank);
  if (failed(axis))
    return failure();
  if (*block == 0) {
    if (pShape->size() != 1)
      return c.error() << "input " << i << " of shape " << formatArray(*pShape)
                       << " is not supported (scalar or 1-d)";
    std::vector<int64_t> col(rank - *axis, 1);
    col[0] = (*pShape)[0];
    return asFloat(c, i, f, col);
  }
  int64_t b = *block;
  if (b < 0 || (int64_t)pShape->size() != rank ||
      (*pShape)[*axis] * b != shape[*axis])
    return c.error() << "attribute 'block_size' = " << b << " with input " << i
                     << " of shape " << formatArray(*pShape)
                     << " is not supported for data of shape "
                     << formatArray(shape)
                     << " (blocks must tile the axis exactly)";
  std::vector<int64_t> split(pShape->begin(), pShape->end());
  split.insert(split.begin() + *axis + 1, 1);
  auto v = asFloat(c, i, f, split);
  if (failed(v))
    return failure();
  split[*axis + 1] = b;
  auto wide =
      c.create<ExpandOp>(f, *v, c.builder().getDenseI64ArrayAttr(split));
  if (failed(wide))
    return failure();
  return reshape(c, *wide, shape);
}

/// QuantizeLinear with a non-constant scale or zero point, in f32
/// arithmetic: clamp(round_half_even(x / scale) + zp, qmin, qmax). Rounding
/// adds and subtracts 1.5 * 2^23 (f32 sums round to nearest even) after
/// clamping |x / scale| below 2^22.
LogicalResult quantizeByArith(NodeContext &c, ArrayRef<int64_t> shape,
                              DType storage) {
  Type f = elemOf(c, 0);
  if (!f.isF32())
    return c.error() << "a non-constant scale, blocked or 4/2-bit quantization "
                        "needs an f32 input, got "
                     << f;
  if (!isSignedInt(storage) && !isUnsignedInt(storage))
    return c.error() << "quantized type " << dtypeName(storage)
                     << " is not supported";
  OpBuilder &b = c.builder();
  auto clip = [&](FailureOr<Value> v, double lo,
                  double hi) -> FailureOr<Value> {
    if (failed(v))
      return failure();
    return c.create<ClipOp>(f, *v, b.getF64FloatAttr(lo),
                            b.getF64FloatAttr(hi));
  };
  const double magic = 12582912.0; // 1.5 * 2^23
  auto y = clip(binary<DivOp>(c, c.input(0), quantParam(c, 1, f, shape)), -4e6,
                4e6);
  auto r = binary<SubOp>(c, binary<AddOp>(c, y, scalar(c, f, magic)),
                         scalar(c, f, magic));
  if (c.hasInput(2))
    r = binary<AddOp>(c, r, quantParam(c, 2, f, shape));
  unsigned bits = intBitWidth(storage);
  double qmin = isSignedInt(storage) ? -std::ldexp(1.0, bits - 1) : 0.0;
  double qmax = isSignedInt(storage) ? std::ldexp(1.0, bits - 1) - 1
                                     : std::ldexp(1.0, bits) - 1;
  auto q = clip(r, qmin, qmax);
  if (failed(q))
    return failure();
  return emit<CastOp>(c, elementTypeOf(storage, c.context()), *q);
}

/// The spec requires a float8 zero point (input 2) to be 0; a constant one
/// is checked (the ONNX reference ignores it in QuantizeLinear and rejects a
/// non-zero one in DequantizeLinear).
LogicalResult checkFloat8ZeroPoint(NodeContext &c, DType storage) {
  if (!isSmallFloat(storage) || storage == DType::F4E2M1FN || !c.hasInput(2))
    return success();
  if (const Tensor *zp = c.constantInput(2))
    for (int64_t i = 0; i < zp->numElements(); ++i)
      if (zp->getAsDouble(i) != 0.0)
        return c.error() << "a " << dtypeName(storage)
                         << " zero point must be 0, got " << zp->getAsDouble(i)
                         << " at index " << i;
  return success();
}

/// QuantizeLinear to a float8 / float4 type: cast(x / scale [+ zp], storage)
/// rounding to nearest even, `saturate` for float8 (the ONNX reference adds
/// the zero point for float4 only; the spec requires 0 for float8, so a
/// constant non-zero float8 zero point is rejected).
LogicalResult quantizeToSmallFloat(NodeContext &c, ArrayRef<int64_t> shape,
                                   DType storage, bool saturate) {
  Type f = elemOf(c, 0);
  if (!isa<FloatType>(f))
    return c.error() << "input element type " << f
                     << " is not supported (float only)";
  if (failed(checkFloat8ZeroPoint(c, storage)))
    return failure();
  auto y = binary<DivOp>(c, c.input(0), quantParam(c, 1, f, shape));
  if (storage == DType::F4E2M1FN && c.hasInput(2))
    y = binary<AddOp>(c, y, quantParam(c, 2, f, shape));
  if (failed(y))
    return failure();
  return emit<CastOp>(c, elementTypeOf(storage, c.context()), *y, saturate);
}

LogicalResult convertQuantize(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto outDtype = c.attrInt("output_dtype", 0);
  auto saturate = c.attrInt("saturate", 1);
  auto precision = c.attrInt("precision", 0);
  if (failed(shape) || failed(outDtype) || failed(saturate) ||
      failed(precision))
    return failure();
  if (*saturate != 0 && *saturate != 1)
    return c.error() << "attribute 'saturate' = " << *saturate
                     << " must be 0 or 1";
  if (*precision != 0) {
    auto p = dtypeOfOnnx(c, *precision);
    if (!p || elementTypeOf(*p, c.context()) != elemOf(c, 0) ||
        elemOf(c, 1) != elemOf(c, 0))
      return c.error() << "attribute 'precision' = " << *precision << " ("
                       << onnxTypeName(static_cast<int32_t>(*precision))
                       << ") is not supported (only the input and scale "
                          "type)";
  }
  std::optional<DType> storage = DType::U8;
  if (c.hasInput(2))
    storage = dtypeOf(elemOf(c, 2));
  else if (*outDtype != 0)
    storage = dtypeOfOnnx(c, *outDtype);
  if (storage && c.hasInput(2) && *outDtype != 0 &&
      dtypeOfOnnx(c, *outDtype) != storage)
    return c.error() << "attribute 'output_dtype' = " << *outDtype << " ("
                     << onnxTypeName(static_cast<int32_t>(*outDtype))
                     << ") does not match the zero point type "
                     << elemOf(c, 2);
  if (!storage || *storage == DType::Bool || *storage == DType::I32 ||
      *storage == DType::U32 || *storage == DType::I64 ||
      *storage == DType::U64 ||
      (isFloat(*storage) && !isSmallFloat(*storage)))
    return c.error() << "the quantized type is not supported (int2/4/8/16, "
                        "uint2/4/8/16, float8 and float4e2m1 are)";
  if (isSmallFloat(*storage))
    return quantizeToSmallFloat(c, *shape, *storage, *saturate == 1);
  auto block = c.attrInt("block_size", 0);
  if (failed(block))
    return failure();
  bool constParams = c.constantInput(1) &&
                     (!c.hasInput(2) || c.constantInput(2));
  // top.Quant's storage is 8, 16 or 32 bits; 4/2-bit types compute the same
  // formula with elementwise ops.
  if (!constParams || *block != 0 || intBitWidth(*storage) < 8)
    return quantizeByArith(c, *shape, *storage);
  auto p = readQuantParams(c, *shape, *storage);
  if (failed(p))
    return failure();
  Type expressed = elemOf(c, 0);
  if (!isa<FloatType>(expressed))
    return c.error() << "input element type " << expressed
                     << " is not supported (float only)";
  auto q = c.create<QuantOp>(quantType(c, *p, expressed), c.input(0));
  if (failed(q))
    return failure();
  Type plain = elementTypeOf(*storage, c.context());
  if (cast<ShapedType>(q->getType()).getElementType() == plain) {
    c.setOutput(0, *q); // folded to a constant
    return success();
  }
  return emit<CastOp>(c, plain, *q);
}

/// (float(x) - float(zp)) * scale with elementwise ops: for non-constant
/// parameters and 16/32-bit integers (exact while |x - zp| < 2^24).
LogicalResult dequantizeByArith(NodeContext &c, ArrayRef<int64_t> shape) {
  Type f = elemOf(c, 1);
  FailureOr<Value> x = asFloat(c, 0, f, {});
  if (c.hasInput(2))
    x = binary<SubOp>(c, x, quantParam(c, 2, f, shape));
  auto y = binary<MulOp>(c, x, quantParam(c, 1, f, shape));
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

LogicalResult convertDequantize(NodeContext &c) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  Type scaleElem = elemOf(c, 1);
  std::optional<DType> storage = dtypeOf(elemOf(c, 0));
  std::optional<DType> outDt = dtypeOf(scaleElem);
  if (!storage || !outDt || !isFloat(*outDt) || isSmallFloat(*outDt) ||
      (isFloat(*storage) && !isSmallFloat(*storage)) ||
      *storage == DType::Bool || *storage == DType::I64 ||
      *storage == DType::U64)
    return c.error() << "input types " << elemOf(c, 0) << " and " << scaleElem
                     << " are not supported";
  if (failed(checkFloat8ZeroPoint(c, *storage)))
    return failure();
  bool constParams = c.constantInput(1) &&
                     (!c.hasInput(2) || c.constantInput(2));
  auto block = c.attrInt("block_size", 0);
  if (failed(block))
    return failure();
  // A constant int32 (a QDQ model's bias) dequantizes like int8 so that
  // top-fold-qdq finds its integers; other int32 inputs compute in f32 as
  // the ONNX reference does.
  bool constI32 = *storage == DType::I32 && c.constantInput(0);
  if (!constParams || *block != 0 ||
      (*storage != DType::I8 && *storage != DType::U8 && !constI32))
    return dequantizeByArith(c, *shape);
  auto p = constI32 ? readQuantParams(c, *shape, DType::I8)
                    : readQuantParams(c, *shape, *storage);
  if (failed(p))
    return failure();
  if (constI32)
    p->bits = 32;
  // Constant inputs (weights) stay integers behind a top.Dequant:
  // top-fold-qdq (first in top-optimize) turns Dequant -> Conv -> Quant
  // into integer arithmetic; top-fold-constants folds what is left.
  Type qt = quantType(c, *p, scaleElem);
  // A non-constant input: reinterpret the integers as the quantized type.
  auto asQuant = CastOp::create(c.builder(), c.loc(),
                                RankedTensorType::get(*shape, qt), c.input(0));
  return emit<DequantOp>(c, scaleElem, asQuant.getOutput());
}

const ConverterEntry kQuant[] = {
    {"QuantizeLinear", convertQuantize},
    {"DequantizeLinear", convertDequantize},
};
} // namespace

ArrayRef<ConverterEntry> quantConverters() { return kQuant; }

} // namespace strata::onnx_import
