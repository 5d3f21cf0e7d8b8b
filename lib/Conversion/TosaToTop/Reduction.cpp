//===- Reduction.cpp - TOSA reductions and argmax to Top ------------------===//
//
// reduce_{sum,prod,max,min} keep the reduced dim (TOSA's result has it as
// 1); reduce_all / reduce_any are a min / max over the booleans as i32.
// argmax gives i64 in Top and is cast to TOSA's result type.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

Value reduce(OpBuilder &b, Location loc, Value x, int64_t axis,
             top::ReduceMode mode, RankedTensorType type) {
  return makeTop(
      b, loc, "Reduce", type, x,
      {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({axis})),
       b.getNamedAttr("keepdims", b.getBoolAttr(true)),
       b.getNamedAttr("mode", top::ReduceModeAttr::get(b.getContext(), mode))});
}

template <typename OpTy> struct ReducePattern : TosaPattern<OpTy> {
  ReducePattern(MLIRContext *ctx, top::ReduceMode mode)
      : TosaPattern<OpTy>(ctx), mode(mode) {}
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    RankedTensorType rt = tensorType(op->getResult(0));
    if constexpr (std::is_same_v<OpTy, tosa::ReduceMaxOp> ||
                  std::is_same_v<OpTy, tosa::ReduceMinOp>)
      if (op.getNanMode() != tosa::NanPropagationMode::PROPAGATE &&
          isa<FloatType>(rt.getElementType()))
        return unsupported(op, "nan_mode",
                           "IGNORE is not handled for float inputs");
    Value x = a.getInput();
    if (rt.getElementType().isInteger(1)) {
      Type i32 = b.getI32Type();
      Value r = reduce(b, loc, castTo(b, loc, x, i32), op.getAxis(), mode,
                       withElement(rt, i32));
      return castTo(b, loc, r, rt.getElementType());
    }
    return reduce(b, loc, x, op.getAxis(), mode, rt);
  }
  top::ReduceMode mode;
};

struct ArgMax : TosaPattern<tosa::ArgMaxOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ArgMaxOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    RankedTensorType rt = tensorType(op->getResult(0));
    if (op.getNanMode() != tosa::NanPropagationMode::PROPAGATE &&
        isa<FloatType>(tensorType(a.getInput()).getElementType()))
      return unsupported(op, "nan_mode",
                         "IGNORE is not handled for float inputs");
    Value r =
        makeTop(b, loc, "ArgMax", withElement(rt, b.getI64Type()), a.getInput(),
                {b.getNamedAttr("axis", b.getI64IntegerAttr(op.getAxis())),
                 b.getNamedAttr("keepdims", b.getBoolAttr(false))});
    return castTo(b, loc, r, rt.getElementType());
  }
};

} // namespace

void populateTosaToTopReductionPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReducePattern<tosa::ReduceSumOp>>(ctx, top::ReduceMode::Sum);
  patterns.add<ReducePattern<tosa::ReduceProductOp>>(ctx,
                                                     top::ReduceMode::Prod);
  patterns.add<ReducePattern<tosa::ReduceMaxOp>>(ctx, top::ReduceMode::Max);
  patterns.add<ReducePattern<tosa::ReduceMinOp>>(ctx, top::ReduceMode::Min);
  patterns.add<ReducePattern<tosa::ReduceAllOp>>(ctx, top::ReduceMode::Min);
  patterns.add<ReducePattern<tosa::ReduceAnyOp>>(ctx, top::ReduceMode::Max);
  patterns.add<ArgMax>(ctx);
}

} // namespace strata::conversion
