//===- Elementwise.cpp - Top elementwise ops to linalg.generic ------------===//
//
// Every elementwise Top op becomes one linalg.generic over the result's
// shape with numpy broadcasting (buildElementwise) and a scalar body of
// arith/math ops. Integer signedness comes from the Top-side types: the
// converted tensors are signless.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace strata::conversion {
namespace {

/// The scalar function of a binary op: float and integer forms.
using BinaryFn = Value (*)(OpBuilder &, Location, Value, Value, bool isUnsigned);

static Value addFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}
static Value subFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  if (isa<FloatType>(x.getType()))
    return arith::SubFOp::create(b, l, x, y);
  return arith::SubIOp::create(b, l, x, y);
}
static Value mulFn(OpBuilder &b, Location l, Value x, Value y, bool) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}
static Value maxFn(OpBuilder &b, Location l, Value x, Value y, bool u) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, l, x, y);
  if (u)
    return arith::MaxUIOp::create(b, l, x, y);
  return arith::MaxSIOp::create(b, l, x, y);
}
static Value minFn(OpBuilder &b, Location l, Value x, Value y, bool u) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, l, x, y);
  if (u)
    return arith::MinUIOp::create(b, l, x, y);
  return arith::MinSIOp::create(b, l, x, y);
}

/// A binary Top op (Add, Sub, ...) with its `do_relu` epilogue.
template <typename OpTy, BinaryFn Fn>
struct BinaryLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *this->getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    bool isUnsigned = isUnsignedElement(op.getOutput());
    bool doRelu = op.getDoRelu();
    Value r = buildElementwise(
        rewriter, op.getLoc(), *type, {adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location l, ValueRange xs, Type) {
          Value v = Fn(b, l, xs[0], xs[1], isUnsigned);
          return doRelu ? reluScalar(b, l, v, isUnsigned) : v;
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct ReluLowering : OpConversionPattern<top::ReluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(top::ReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<RankedTensorType> type =
        staticResultType(op, 0, *getTypeConverter(), rewriter);
    if (failed(type))
      return failure();
    bool isUnsigned = isUnsignedElement(op.getOutput());
    Value r = buildElementwise(
        rewriter, op.getLoc(), *type, {adaptor.getInput()},
        [&](OpBuilder &b, Location l, ValueRange xs, Type) {
          return reluScalar(b, l, xs[0], isUnsigned);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateTopToLinalgElementwisePatterns(const TopTypeConverter &converter,
                                            RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<BinaryLowering<top::AddOp, addFn>,
               BinaryLowering<top::SubOp, subFn>,
               BinaryLowering<top::MulOp, mulFn>,
               BinaryLowering<top::MaxOp, maxFn>,
               BinaryLowering<top::MinOp, minFn>, ReluLowering>(converter,
                                                                ctx);
}

} // namespace strata::conversion
