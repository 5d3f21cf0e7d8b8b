//===- ConvertType.cpp - ONNX BitCast to Top ------------------------------===//
//
// The Type family (TopTypeOps.td): element type reinterpretation. Value
// conversions (Cast, CastLike) are in ConvertElementwise.cpp.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// ONNX's bit width of an element type: BOOL is a byte, INT4/UINT4/FLOAT4E2M1
/// 4 bits, INT2/UINT2 2 bits.
unsigned onnxBitWidth(DType t) {
  if (t == DType::F4E2M1FN)
    return 4;
  if (t == DType::Bool || isFloat(t))
    return static_cast<unsigned>(dtypeSize(t) * 8);
  return intBitWidth(t);
}

LogicalResult convertBitCast(NodeContext &c) {
  auto to = c.attrIntOpt("to");
  if (failed(to))
    return failure();
  if (!c.hasInput(0))
    return c.error() << "input 0 is required";
  if (!*to)
    return c.error() << "attribute 'to' is required";
  int32_t toType = static_cast<int32_t>(**to);
  Type out = elementTypeFromOnnx(toType, c.context());
  if (!out)
    return c.error() << "attribute 'to' = " << **to << " ("
                     << onnxTypeName(toType)
                     << ") is not a supported target type";
  Type in = c.inputElementType(0);
  std::optional<DType> a = in ? dtypeOf(in) : std::nullopt;
  std::optional<DType> b = dtypeOf(out);
  if (!a)
    return c.error() << "input element type " << in << " is not supported";
  if (onnxBitWidth(*a) != onnxBitWidth(*b))
    return c.error() << "cannot bit-cast " << dtypeName(*a) << " ("
                     << onnxBitWidth(*a) << " bits) to attribute 'to' = "
                     << **to << " (" << onnxTypeName(toType) << ", "
                     << onnxBitWidth(*b)
                     << " bits): the element widths must be equal";
  if (in == out) {
    c.setOutput(0, c.input(0));
    return success();
  }
  auto r = c.create<BitCastOp>(out, c.input(0));
  if (failed(r))
    return failure();
  c.setOutput(0, *r);
  return success();
}

const ConverterEntry kType[] = {
    {"BitCast", convertBitCast},
};
} // namespace

ArrayRef<ConverterEntry> typeConverters() { return kType; }

} // namespace strata::onnx_import
