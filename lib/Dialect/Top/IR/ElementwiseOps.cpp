//===- ElementwiseOps.cpp - binary, select, compare, cast, abs/neg/relu ---===//
//
// Broadcasting binary ops (Add, Sub, Mul, Div, Max, Min, Pow), Where,
// Compare, Cast, and the unary ops that also accept integers (Relu, Abs,
// Neg). Float-only unary functions are in ActivationOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
//===----------------------------------------------------------------------===//
// Evaluation helpers
//===----------------------------------------------------------------------===//

/// The type a value of `type` is computed in: like `computeType`, but
/// unsigned integers use u64 so that comparisons and division stay exact.
DType exactComputeType(DType type) {
  return isUnsignedInt(type) ? DType::U64 : computeType(type);
}

/// `fn(a[i], b[j])` over the numpy broadcast `shape` of `a` and `b` (both
/// holding `T`), stored as `R` in a new tensor of dtype `outType`.
template <typename T, typename R, typename Fn>
Tensor zipBroadcast(const Tensor &a, const Tensor &b, ArrayRef<int64_t> shape,
                    DType outType, Fn fn) {
  Tensor out(outType, std::vector<int64_t>(shape.begin(), shape.end()));
  const T *pa = a.data<T>(), *pb = b.data<T>();
  R *po = out.data<R>();
  forEachBroadcast(shape, a.shape(), b.shape(),
                   [&](int64_t o, int64_t i, int64_t j) {
                     po[o] = fn(pa[i], pb[j]);
                   });
  return out;
}

/// Evaluates a broadcasting arithmetic op in the compute type of `lhs`:
/// `floatFn(double, double)` for floats (f32 results are rounded from f64),
/// `intFn(I, I)` with I = int64_t or uint64_t for integers. The result is in
/// the compute type.
template <typename FloatFn, typename IntFn>
Tensor arith(const Tensor &lhs, const Tensor &rhs, ArrayRef<int64_t> shape,
             FloatFn floatFn, IntFn intFn) {
  DType ct = exactComputeType(lhs.dtype());
  Tensor a = lhs.castTo(ct), b = rhs.castTo(ct);
  switch (ct) {
  case DType::F32:
    return zipBroadcast<float, float>(a, b, shape, ct, [&](float x, float y) {
      return static_cast<float>(floatFn(x, y));
    });
  case DType::F64:
    return zipBroadcast<double, double>(a, b, shape, ct, floatFn);
  case DType::U64:
    return zipBroadcast<uint64_t, uint64_t>(a, b, shape, ct, intFn);
  default:
    return zipBroadcast<int64_t, int64_t>(a, b, shape, ct, intFn);
  }
}

/// Sets the negative elements of `t` to 0 in place (NaN stays). Runs on the
/// result type, so integer results are clamped after wrapping around.
void reluInPlace(Tensor &t) {
  for (int64_t i = 0, n = t.numElements(); i < n; ++i)
    if (t.getAsDouble(i) < 0)
      t.setFromDouble(i, 0);
}

/// Applies `floatFn(double)` to float tensors and `intFn(I)` (I = int64_t or
/// uint64_t) to integer and bool tensors, and converts to `outType`.
template <typename FloatFn, typename IntFn>
Tensor mapNumeric(const Tensor &input, DType outType, FloatFn floatFn,
                  IntFn intFn) {
  if (isFloat(input.dtype()))
    return mapUnary(input, outType, floatFn);
  DType ct = exactComputeType(input.dtype());
  Tensor in = input.castTo(ct), out(ct, input.shape());
  for (int64_t i = 0, n = in.numElements(); i < n; ++i) {
    if (ct == DType::U64)
      out.data<uint64_t>()[i] = intFn(in.data<uint64_t>()[i]);
    else
      out.data<int64_t>()[i] = intFn(in.data<int64_t>()[i]);
  }
  return out.castTo(outType);
}

/// Integer arithmetic with two's complement wrap-around (no UB).
template <typename I> I wrapAdd(I x, I y) {
  return static_cast<I>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
template <typename I> I wrapSub(I x, I y) {
  return static_cast<I>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
}
template <typename I> I wrapMul(I x, I y) {
  return static_cast<I>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}
/// C division (truncating); `y` is non-zero; min / -1 wraps to min.
template <typename I> I truncDiv(I x, I y) {
  if constexpr (std::is_signed_v<I>)
    if (y == -1)
      return wrapSub<I>(0, x);
  return x / y;
}
/// |x|; the minimum signed value wraps to itself.
template <typename I> I wrapAbs(I x) {
  if constexpr (std::is_signed_v<I>)
    if (x < 0)
      return wrapSub<I>(0, x);
  return x;
}
/// numpy.maximum / numpy.minimum: NaN in either operand propagates.
double nanMax(double x, double y) {
  return std::isnan(x) || std::isnan(y) ? std::nan("") : std::max(x, y);
}
double nanMin(double x, double y) {
  return std::isnan(x) || std::isnan(y) ? std::nan("") : std::min(x, y);
}

//===----------------------------------------------------------------------===//
// Shared op implementations
//===----------------------------------------------------------------------===//

/// Element types of a binary op: `lhs` of `kinds`, `rhs` and the result
/// matching it.
LogicalResult verifyBinary(Operation *op, unsigned kinds) {
  Value lhs = op->getOperand(0);
  if (failed(checkElementKind(op, "operand 'lhs'", lhs, kinds)) ||
      failed(checkSameElementType(op, "operand 'lhs'", lhs, "operand 'rhs'",
                                  op->getOperand(1))))
    return failure();
  return checkSameElementType(op, "operand 'lhs'", lhs, "result",
                              op->getResult(0));
}

/// Element types of a unary op: the input of `kinds`, the result matching.
LogicalResult verifyUnary(Operation *op, unsigned kinds) {
  Value in = op->getOperand(0);
  if (failed(checkElementKind(op, "operand 'input'", in, kinds)))
    return failure();
  return checkSameElementType(op, "operand 'input'", in, "result",
                              op->getResult(0));
}

template <typename BinOp>
LogicalResult inferBinary(BinOp op, const ShapeContext &ctx,
                          SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(op, shapes::inferBinary(ctx.shape(op.getLhs()),
                                             ctx.shape(op.getRhs())),
                     s);
}

/// Runs a broadcasting arithmetic op and stores its result.
template <typename BinOp, typename FloatFn, typename IntFn>
LogicalResult interpretBinary(BinOp op, InterpreterEnv &env, FloatFn floatFn,
                              IntFn intFn) {
  Tensor out = arith(env.get(op.getLhs()), env.get(op.getRhs()),
                     env.resultShape(op.getOutput()), floatFn, intFn)
                   .castTo(resultDType(op.getOutput()));
  if (op.getDoRelu())
    reluInPlace(out);
  env.set(op.getOutput(), out);
  return success();
}

/// Folds `op(x, x)` to `x` for idempotent ops (Max, Min) without relu.
template <typename BinOp> OpFoldResult foldIdempotent(BinOp op) {
  if (op.getLhs() == op.getRhs() && !op.getDoRelu() &&
      op.getLhs().getType() == op.getType())
    return op.getLhs();
  return {};
}

/// Folds `op(op(x))`: to `x` for involutions, to `op(x)` for idempotent ops,
/// when the types agree.
template <typename UnOp> OpFoldResult foldRepeated(UnOp op, bool involution) {
  auto inner = op.getInput().template getDefiningOp<UnOp>();
  if (!inner)
    return {};
  Value v = involution ? inner.getInput() : inner.getOutput();
  return v.getType() == op.getType() ? OpFoldResult(v) : OpFoldResult();
}

template <typename UnOp>
LogicalResult inferUnary(UnOp op, const ShapeContext &ctx,
                         SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(op, shapes::inferUnary(ctx.shape(op.getInput())), s);
}
} // namespace

//===----------------------------------------------------------------------===//
// Binary arithmetic
//===----------------------------------------------------------------------===//

#define STRATA_BINARY_COMMON(OP, KINDS)                                        \
  LogicalResult OP::verify() { return verifyBinary(*this, KINDS); }            \
  LogicalResult OP::inferShapes(const ShapeContext &ctx,                       \
                                SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferBinary(*this, ctx, s);                                         \
  }                                                                            \
  int64_t OP::getFlops() { return elementwiseFlops(getOutput(), 1); }

STRATA_BINARY_COMMON(AddOp, kFloatElements | kIntElements)
STRATA_BINARY_COMMON(SubOp, kFloatElements | kIntElements)
STRATA_BINARY_COMMON(MulOp, kFloatElements | kIntElements)
STRATA_BINARY_COMMON(DivOp, kFloatElements | kIntElements)
STRATA_BINARY_COMMON(MaxOp, kFloatElements | kIntElements)
STRATA_BINARY_COMMON(MinOp, kFloatElements | kIntElements)
STRATA_BINARY_COMMON(PowOp, kFloatElements)

LogicalResult AddOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, [](double x, double y) { return x + y; },
      [](auto x, auto y) { return wrapAdd(x, y); });
}

LogicalResult SubOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, [](double x, double y) { return x - y; },
      [](auto x, auto y) { return wrapSub(x, y); });
}

LogicalResult MulOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, [](double x, double y) { return x * y; },
      [](auto x, auto y) { return wrapMul(x, y); });
}

LogicalResult DivOp::interpret(InterpreterEnv &env) {
  const Tensor &rhs = env.get(getRhs());
  // Unless the result is empty, every rhs element is a divisor.
  bool empty = checkedNumElements(env.resultShape(getOutput())) == 0;
  if (!isFloat(rhs.dtype()) && !empty)
    for (int64_t i = 0, n = rhs.numElements(); i < n; ++i)
      if (rhs.getAsInt(i) == 0)
        return emitOpError() << "integer division by zero (operand 'rhs' "
                                "element "
                             << i << " is 0)";
  return interpretBinary(
      *this, env, [](double x, double y) { return x / y; },
      [](auto x, auto y) { return truncDiv(x, y); });
}

LogicalResult MaxOp::interpret(InterpreterEnv &env) {
  return interpretBinary(*this, env, nanMax,
                         [](auto x, auto y) { return std::max(x, y); });
}

LogicalResult MinOp::interpret(InterpreterEnv &env) {
  return interpretBinary(*this, env, nanMin,
                         [](auto x, auto y) { return std::min(x, y); });
}

LogicalResult PowOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, [](double x, double y) { return std::pow(x, y); },
      [](auto x, auto) -> decltype(x) {
        llvm_unreachable("the verifier rejects integer top.Pow");
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor) { return foldIdempotent(*this); }
OpFoldResult MinOp::fold(FoldAdaptor) { return foldIdempotent(*this); }

//===----------------------------------------------------------------------===//
// Where, Compare
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::verify() {
  if (failed(checkElementKind(*this, "operand 'cond'", getCond(),
                              kBoolElements)) ||
      failed(checkElementKind(*this, "operand 'x'", getX(), kAnyElements)) ||
      failed(checkSameElementType(*this, "operand 'x'", getX(), "operand 'y'",
                                  getY())))
    return failure();
  return checkSameElementType(*this, "operand 'x'", getX(), "result",
                              getOutput());
}

LogicalResult WhereOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferWhere(ctx.shape(getCond()), ctx.shape(getX()),
                                        ctx.shape(getY())),
                     s);
}

int64_t WhereOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult WhereOp::interpret(InterpreterEnv &env) {
  std::vector<int64_t> shape = env.resultShape(getOutput());
  Tensor c = broadcastTo(env.get(getCond()), shape);
  Tensor x = broadcastTo(env.get(getX()), shape);
  Tensor y = broadcastTo(env.get(getY()), shape);
  DType type = resultDType(getOutput());
  // The verifier makes x, y and the result share a dtype.
  Tensor out = x.castTo(type);
  y = y.castTo(type);
  size_t size = dtypeSize(type);
  const uint8_t *pc = c.data<uint8_t>(), *py = y.data<uint8_t>();
  uint8_t *po = out.data<uint8_t>();
  for (int64_t i = 0, n = out.numElements(); i < n; ++i)
    if (!pc[i])
      std::memcpy(po + i * size, py + i * size, size);
  env.set(getOutput(), out);
  return success();
}

/// The comparison of a `top.Compare` mode.
template <typename T> using CompareFn = bool (*)(T, T);
template <typename T> CompareFn<T> compareFn(CompareMode mode) {
  switch (mode) {
  case CompareMode::Equal:
    return [](T x, T y) { return x == y; };
  case CompareMode::Greater:
    return [](T x, T y) { return x > y; };
  case CompareMode::GreaterOrEqual:
    return [](T x, T y) { return x >= y; };
  case CompareMode::Less:
    return [](T x, T y) { return x < y; };
  case CompareMode::LessOrEqual:
    return [](T x, T y) { return x <= y; };
  case CompareMode::NotEqual:
    break;
  }
  return [](T x, T y) { return x != y; };
}

LogicalResult CompareOp::verify() {
  if (failed(checkElementKind(*this, "operand 'lhs'", getLhs(),
                              kAnyElements)) ||
      failed(checkSameElementType(*this, "operand 'lhs'", getLhs(),
                                  "operand 'rhs'", getRhs())) ||
      failed(checkElementKind(*this, "result", getOutput(), kBoolElements)))
    return failure();
  return success();
}

LogicalResult CompareOp::inferShapes(const ShapeContext &ctx,
                                     SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferBinary(*this, ctx, s);
}

int64_t CompareOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult CompareOp::interpret(InterpreterEnv &env) {
  const Tensor &lhs = env.get(getLhs());
  DType ct = exactComputeType(lhs.dtype());
  Tensor a = lhs.castTo(ct), b = env.get(getRhs()).castTo(ct);
  std::vector<int64_t> shape = env.resultShape(getOutput());
  Tensor out;
  if (ct == DType::F32)
    out = zipBroadcast<float, uint8_t>(a, b, shape, DType::Bool,
                                       compareFn<float>(getMode()));
  else if (ct == DType::F64)
    out = zipBroadcast<double, uint8_t>(a, b, shape, DType::Bool,
                                        compareFn<double>(getMode()));
  else if (ct == DType::U64)
    out = zipBroadcast<uint64_t, uint8_t>(a, b, shape, DType::Bool,
                                          compareFn<uint64_t>(getMode()));
  else
    out = zipBroadcast<int64_t, uint8_t>(a, b, shape, DType::Bool,
                                         compareFn<int64_t>(getMode()));
  env.set(getOutput(), out);
  return success();
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (failed(checkElementKind(*this, "operand 'input'", getInput(),
                              kAnyElements)))
    return failure();
  return checkElementKind(*this, "result", getOutput(), kAnyElements);
}

LogicalResult CastOp::inferShapes(const ShapeContext &ctx,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  return inferUnary(*this, ctx, s);
}

int64_t CastOp::getFlops() { return elementwiseFlops(getOutput(), 1); }

LogicalResult CastOp::interpret(InterpreterEnv &env) {
  RoundMode round = getRoundMode();
  E8M0Rounding mode = round == RoundMode::Down      ? E8M0Rounding::Down
                      : round == RoundMode::Nearest ? E8M0Rounding::Nearest
                                                    : E8M0Rounding::Up;
  env.set(getOutput(), env.get(getInput()).castTo(resultDType(getOutput()),
                                                   getSaturate(), mode));
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Relu, Abs, Neg
//===----------------------------------------------------------------------===//

#define STRATA_UNARY_COMMON(OP, KINDS)                                         \
  LogicalResult OP::verify() { return verifyUnary(*this, KINDS); }             \
  LogicalResult OP::inferShapes(const ShapeContext &ctx,                       \
                                SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferUnary(*this, ctx, s);                                          \
  }                                                                            \
  int64_t OP::getFlops() { return elementwiseFlops(getOutput(), 1); }

STRATA_UNARY_COMMON(ReluOp, kAnyElements)
STRATA_UNARY_COMMON(AbsOp, kFloatElements | kIntElements)
STRATA_UNARY_COMMON(NegOp, kFloatElements | kIntElements)

LogicalResult ReluOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          mapNumeric(
              env.get(getInput()), resultDType(getOutput()),
              [](double x) { return std::isnan(x) ? x : std::max(x, 0.0); },
              [](auto x) { return std::max(x, decltype(x)(0)); }));
  return success();
}

LogicalResult AbsOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          mapNumeric(
              env.get(getInput()), resultDType(getOutput()),
              [](double x) { return std::fabs(x); },
              [](auto x) { return wrapAbs(x); }));
  return success();
}

LogicalResult NegOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          mapNumeric(
              env.get(getInput()), resultDType(getOutput()),
              [](double x) { return -x; },
              [](auto x) { return wrapSub<decltype(x)>(0, x); }));
  return success();
}

OpFoldResult ReluOp::fold(FoldAdaptor) {
  return foldRepeated(*this, /*involution=*/false);
}
OpFoldResult AbsOp::fold(FoldAdaptor) {
  return foldRepeated(*this, /*involution=*/false);
}
OpFoldResult NegOp::fold(FoldAdaptor) {
  return foldRepeated(*this, /*involution=*/true);
}
