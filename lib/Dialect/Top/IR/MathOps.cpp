//===- MathOps.cpp - trigonometric, float remainder and bitwise ops -------===//
//
// Sin .. Atanh (float-only unary functions computed in f32, f64 for f64),
// Fmod, and the integer bitwise ops BitwiseAnd/Or/Xor/Not and BitShift.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
/// `kinds` input and a result of the same element type.
LogicalResult verifyUnaryOf(Operation *op, unsigned kinds) {
  Value in = op->getOperand(0);
  if (failed(checkElementKind(op, "operand 'input'", in, kinds)))
    return failure();
  return checkSameElementType(op, "operand 'input'", in, "result",
                              op->getResult(0));
}

/// Element types of a binary op: `lhs` of `kinds`, `rhs` and the result
/// matching it.
LogicalResult verifyBinaryOf(Operation *op, unsigned kinds) {
  Value lhs = op->getOperand(0);
  if (failed(checkElementKind(op, "operand 'lhs'", lhs, kinds)) ||
      failed(checkSameElementType(op, "operand 'lhs'", lhs, "operand 'rhs'",
                                  op->getOperand(1))))
    return failure();
  return checkSameElementType(op, "operand 'lhs'", lhs, "result",
                              op->getResult(0));
}

/// The numpy broadcast of a binary op's operands.
template <typename BinOp>
LogicalResult inferBroadcast(BinOp op, const ShapeContext &ctx,
                             SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(
      op, shapes::inferBinary(ctx.shape(op.getLhs()), ctx.shape(op.getRhs())),
      s);
}

/// The integer compute type that keeps the bit pattern of `type` (sign- or
/// zero-extended to 64 bits).
DType bitsType(DType type) {
  return isUnsignedInt(type) ? DType::U64 : DType::I64;
}

/// `fn(uint64_t, uint64_t)` on the 64-bit extended bit patterns of two
/// broadcast integer tensors; the result is truncated to `outType`.
template <typename Fn>
Tensor zipBits(const Tensor &lhs, const Tensor &rhs, ArrayRef<int64_t> shape,
               DType outType, Fn fn) {
  DType ct = bitsType(lhs.dtype());
  Tensor a = lhs.castTo(ct), b = rhs.castTo(ct);
  Tensor out(ct, std::vector<int64_t>(shape.begin(), shape.end()));
  const uint64_t *pa = static_cast<const uint64_t *>(a.raw());
  const uint64_t *pb = static_cast<const uint64_t *>(b.raw());
  uint64_t *po = static_cast<uint64_t *>(out.raw());
  forEachBroadcast(shape, a.shape(), b.shape(),
                   [&](int64_t o, int64_t i, int64_t j) {
                     po[o] = fn(pa[i], pb[j]);
                   });
  return out.castTo(outType);
}

template <typename BinOp, typename Fn>
LogicalResult interpretBits(BinOp op, InterpreterEnv &env, Fn fn) {
  Value out = op.getOutput();
  env.set(out, zipBits(env.get(op.getLhs()), env.get(op.getRhs()),
                       env.resultShape(out), resultDType(out), fn));
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Trigonometric and hyperbolic functions
//===----------------------------------------------------------------------===//

/// Verifier, shape inference, FLOPs (1 per element) and reference semantics
/// (`FN` applied in the compute type) of a float-only unary function.
#define STRATA_MATH_UNARY(OP, FN)                                              \
  LogicalResult OP::verify() { return verifyUnaryOf(*this, kFloatElements); }  \
  LogicalResult OP::inferShapes(const ShapeContext &ctx,                       \
                                SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return appendShape(*this, shapes::inferUnary(ctx.shape(getInput())), s);   \
  }                                                                            \
  int64_t OP::getFlops() { return elementwiseFlops(getOutput(), 1); }          \
  LogicalResult OP::interpret(InterpreterEnv &env) {                           \
    env.set(getOutput(),                                                       \
            mapUnary(env.get(getInput()), resultDType(getOutput()),            \
                     [](double x) { return FN(x); }));                         \
    return success();                                                          \
  }

STRATA_MATH_UNARY(SinOp, std::sin)
STRATA_MATH_UNARY(CosOp, std::cos)
STRATA_MATH_UNARY(TanOp, std::tan)
STRATA_MATH_UNARY(AsinOp, std::asin)
STRATA_MATH_UNARY(AcosOp, std::acos)
STRATA_MATH_UNARY(AtanOp, std::atan)
STRATA_MATH_UNARY(SinhOp, std::sinh)
STRATA_MATH_UNARY(CoshOp, std::cosh)
STRATA_MATH_UNARY(AsinhOp, std::asinh)
STRATA_MATH_UNARY(AcoshOp, std::acosh)
STRATA_MATH_UNARY(AtanhOp, std::atanh)

#undef STRATA_MATH_UNARY

//===----------------------------------------------------------------------===//
// Fmod
//===----------------------------------------------------------------------===//

LogicalResult FmodOp::verify() { return verifyBinaryOf(*this, kFloatElements); }

LogicalResult FmodOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferBroadcast(*this, ctx, s);
}

int64_t FmodOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult FmodOp::interpret(InterpreterEnv &env) {
  // fmod is exact, so computing it in f64 and rounding gives the result of
  // the narrower type.
  Tensor a = env.get(getLhs()).castTo(DType::F64);
  Tensor b = env.get(getRhs()).castTo(DType::F64);
  std::vector<int64_t> shape = env.resultShape(getOutput());
  Tensor out(DType::F64, shape);
  const double *pa = a.data<double>(), *pb = b.data<double>();
  double *po = out.data<double>();
  forEachBroadcast(shape, a.shape(), b.shape(),
                   [&](int64_t o, int64_t i, int64_t j) {
                     po[o] = std::fmod(pa[i], pb[j]);
                   });
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}

//===----------------------------------------------------------------------===//
// Bitwise ops
//===----------------------------------------------------------------------===//

#define STRATA_BITWISE_COMMON(OP)                                              \
  LogicalResult OP::inferShapes(const ShapeContext &ctx,                       \
                                SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferBroadcast(*this, ctx, s);                                      \
  }                                                                            \
  int64_t OP::getFlops() { return elementwiseFlops(getOutput(), 1); }

STRATA_BITWISE_COMMON(BitwiseAndOp)
STRATA_BITWISE_COMMON(BitwiseOrOp)
STRATA_BITWISE_COMMON(BitwiseXorOp)
STRATA_BITWISE_COMMON(BitShiftOp)

#undef STRATA_BITWISE_COMMON

LogicalResult BitwiseAndOp::verify() {
  return verifyBinaryOf(*this, kIntElements);
}
LogicalResult BitwiseOrOp::verify() {
  return verifyBinaryOf(*this, kIntElements);
}
LogicalResult BitwiseXorOp::verify() {
  return verifyBinaryOf(*this, kIntElements);
}

LogicalResult BitwiseAndOp::interpret(InterpreterEnv &env) {
  return interpretBits(*this, env,
                       [](uint64_t x, uint64_t y) { return x & y; });
}
LogicalResult BitwiseOrOp::interpret(InterpreterEnv &env) {
  return interpretBits(*this, env,
                       [](uint64_t x, uint64_t y) { return x | y; });
}
LogicalResult BitwiseXorOp::interpret(InterpreterEnv &env) {
  return interpretBits(*this, env,
                       [](uint64_t x, uint64_t y) { return x ^ y; });
}

LogicalResult BitShiftOp::verify() {
  if (failed(verifyBinaryOf(*this, kIntElements)))
    return failure();
  std::optional<DType> t = dtypeOfValue(getLhs());
  if (t && !isUnsignedInt(*t))
    return emitOpError() << "operand 'lhs' has element type "
                         << getElementTypeOrSelf(getLhs().getType())
                         << "; only unsigned integers are supported";
  return success();
}

LogicalResult BitShiftOp::interpret(InterpreterEnv &env) {
  // Operands are zero-extended to 64 bits; the truncation to the element
  // type drops the bits shifted past its width, and a right shift by at
  // least the width leaves 0. Shifts by 64 or more are 0 (not UB).
  if (getDirection() == ShiftDirection::Left)
    return interpretBits(*this, env, [](uint64_t x, uint64_t s) {
      return s >= 64 ? uint64_t(0) : x << s;
    });
  return interpretBits(*this, env, [](uint64_t x, uint64_t s) {
    return s >= 64 ? uint64_t(0) : x >> s;
  });
}

LogicalResult BitwiseNotOp::verify() {
  return verifyUnaryOf(*this, kIntElements);
}

LogicalResult
BitwiseNotOp::inferShapes(const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferUnary(ctx.shape(getInput())), s);
}

int64_t BitwiseNotOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult BitwiseNotOp::interpret(InterpreterEnv &env) {
  const Tensor &in = env.get(getInput());
  Tensor bits = in.castTo(bitsType(in.dtype()));
  Tensor out(bits.dtype(), in.shape());
  const uint64_t *pi = static_cast<const uint64_t *>(bits.raw());
  uint64_t *po = static_cast<uint64_t *>(out.raw());
  for (int64_t i = 0, n = in.numElements(); i < n; ++i)
    po[i] = ~pi[i];
  env.set(getOutput(), out.castTo(resultDType(getOutput())));
  return success();
}
