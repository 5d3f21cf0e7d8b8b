//===- TypeOps.cpp - top.BitCast ------------------------------------------===//
//
// Reinterpretation of element bits; see TopTypeOps.td.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

#include <cstring>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// Storage width in bits as ONNX counts it: bool is a byte, the 4/2-bit
/// types their own width.
unsigned storageBits(DType t) {
  if (t == DType::F4E2M1FN)
    return 4;
  if (t == DType::Bool || isFloat(t))
    return static_cast<unsigned>(dtypeSize(t) * 8);
  return intBitWidth(t);
}

Type elementType(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}
} // namespace

LogicalResult BitCastOp::verify() {
  Type in = elementType(getInput()), out = elementType(getOutput());
  std::optional<DType> a = dtypeOf(in), b = dtypeOf(out);
  if (!a)
    return emitOpError() << "operand element type " << in
                         << " is not supported";
  if (!b)
    return emitOpError() << "result element type " << out
                         << " is not supported";
  if (storageBits(*a) != storageBits(*b))
    return emitOpError() << "cannot reinterpret " << in << " ("
                         << storageBits(*a) << " bits) as " << out << " ("
                         << storageBits(*b)
                         << " bits): the element widths must be equal";
  return success();
}

LogicalResult BitCastOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferUnary(ctx.shape(getInput())), s);
}

int64_t BitCastOp::getFlops() { return 0; }

LogicalResult BitCastOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  DType to = resultDType(getOutput());
  Tensor out(to, in.shape());
  unsigned bits = storageBits(to);
  const auto *src = static_cast<const uint8_t *>(in.raw());
  auto *dst = static_cast<uint8_t *>(out.raw());
  if (bits >= 8 && to != DType::Bool) {
    if (out.byteSize())
      std::memcpy(dst, src, out.byteSize());
  } else {
    // One byte per element on the host: keep the low `bits` bits, then
    // extend them the way the result type stores its values.
    for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
      unsigned v = src[i] & ((1u << std::min(bits, 8u)) - 1);
      if (to == DType::Bool)
        dst[i] = src[i] != 0;
      else if (isSignedInt(to))
        dst[i] = static_cast<uint8_t>(wrapToNarrowInt(to, v));
      else
        dst[i] = static_cast<uint8_t>(v);
    }
  }
  env.set(getOutput(), out);
  return success();
}

OpFoldResult BitCastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}
