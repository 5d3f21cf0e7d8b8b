//===- ElementwiseOps.cpp - binary and unary elementwise ops --------------===//

#include "OpImpl.h"

#include <algorithm>

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

namespace {
template <typename BinOp>
LogicalResult inferBinary(BinOp op, SmallVectorImpl<SmallVector<int64_t>> &s) {
  auto out = broadcastShapes(op, shapeOf(op.getLhs()), shapeOf(op.getRhs()));
  if (failed(out))
    return failure();
  s.push_back(*out);
  return success();
}

template <typename BinOp> int64_t binaryFlops(BinOp op) {
  auto t = cast<ShapedType>(op.getOutput().getType());
  return t.hasStaticShape() ? t.getNumElements() : 0;
}

/// Evaluates a broadcasting binary op. Floats compute in f32/f64 with
/// `floatFn`, integers in int64 with `intFn`.
template <typename BinOp, typename FloatFn, typename IntFn>
LogicalResult interpretBinary(BinOp op, InterpreterEnv &env, FloatFn floatFn,
                              IntFn intFn) {
  Tensor a = toCompute(env.get(op.getLhs()));
  Tensor b = toCompute(env.get(op.getRhs())).castTo(a.dtype());
  std::vector<int64_t> outShape = resultShape(op.getOutput());
  Tensor out(a.dtype(), outShape);
  if (a.dtype() == DType::F32) {
    const float *pa = a.data<float>(), *pb = b.data<float>();
    float *po = out.data<float>();
    forEachBroadcast(outShape, a.shape(), b.shape(),
                     [&](int64_t o, int64_t i, int64_t j) {
                       po[o] = static_cast<float>(floatFn(pa[i], pb[j]));
                     });
  } else if (a.dtype() == DType::F64) {
    const double *pa = a.data<double>(), *pb = b.data<double>();
    double *po = out.data<double>();
    forEachBroadcast(outShape, a.shape(), b.shape(),
                     [&](int64_t o, int64_t i, int64_t j) {
                       po[o] = floatFn(pa[i], pb[j]);
                     });
  } else {
    const int64_t *pa = a.data<int64_t>(), *pb = b.data<int64_t>();
    int64_t *po = out.data<int64_t>();
    forEachBroadcast(outShape, a.shape(), b.shape(),
                     [&](int64_t o, int64_t i, int64_t j) {
                       po[o] = intFn(pa[i], pb[j]);
                     });
  }
  if (op.getDoRelu())
    applyRelu(out, -1.0);
  env.set(op.getOutput(), out.castTo(resultDType(op.getOutput())));
  return success();
}

template <typename UnOp>
LogicalResult inferUnary(UnOp op, SmallVectorImpl<SmallVector<int64_t>> &s) {
  s.push_back(shapeOf(op.getInput()));
  return success();
}
} // namespace

#define STRATA_BINARY_COMMON(OP)                                               \
  LogicalResult OP::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferBinary(*this, s);                                              \
  }                                                                            \
  int64_t OP::getFlops() { return binaryFlops(*this); }

STRATA_BINARY_COMMON(AddOp)

LogicalResult AddOp::interpret(InterpreterEnv &env) {
  return interpretBinary(
      *this, env, [](double x, double y) { return x + y; },
      [](int64_t x, int64_t y) {
        return static_cast<int64_t>(static_cast<uint64_t>(x) +
                                    static_cast<uint64_t>(y));
      });
}

#define STRATA_UNARY_COMMON(OP)                                                \
  LogicalResult OP::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {    \
    return inferUnary(*this, s);                                               \
  }                                                                            \
  int64_t OP::getFlops() {                                                     \
    auto t = cast<ShapedType>(getOutput().getType());                          \
    return t.hasStaticShape() ? t.getNumElements() : 0;                        \
  }

STRATA_UNARY_COMMON(ReluOp)

LogicalResult ReluOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(),
          mapUnary(env.get(getInput()), resultDType(getOutput()),
                   [](double x) { return std::isnan(x) ? x : std::max(x, 0.0); }));
  return success();
}
