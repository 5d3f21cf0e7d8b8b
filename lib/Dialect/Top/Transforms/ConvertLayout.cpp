//===- ConvertLayout.cpp - layout-sensitive ops to the target layout ------===//
//
// Rewrites every op with a `layout` attribute to the target's layout by
// wrapping it in top.Permute ops: one on each data operand (input, and the
// filter of Conv / Deconv) and one on the result. top-sink-transposes then
// cancels the pairs between neighbours; constant filters fold.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace strata::top {
#define GEN_PASS_DEF_TOPCONVERTLAYOUT
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
/// `type` with its dims permuted by `order`; an unranked type stays as it
/// is (shape inference ranks it later).
Type permutedType(Type type, ArrayRef<int64_t> order) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return type;
  return RankedTensorType::get(permuteShape(ranked.getShape(), order),
                               ranked.getElementType());
}

/// The rank of `op`'s layout tensors: that of a ranked data operand or of
/// the result, else the spatial rank of its `kernel_shape` plus 2. Fails
/// (with an error) when nothing tells it, or ranked types disagree.
FailureOr<int64_t> layoutRank(LayoutSensitiveOpInterface op) {
  SmallVector<Value> values;
  for (unsigned i = 0, e = op.getNumLayoutOperands(); i < e; ++i)
    values.push_back(op->getOperand(i));
  values.push_back(op->getResult(0));
  std::optional<int64_t> rank;
  for (Value v : values) {
    auto ranked = dyn_cast<RankedTensorType>(v.getType());
    if (!ranked)
      continue;
    if (rank && *rank != ranked.getRank())
      return op->emitOpError("layout conversion needs its data operands and "
                             "result of one rank, got ")
             << *rank << " and " << ranked.getRank();
    rank = ranked.getRank();
  }
  if (!rank)
    if (auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape"))
      rank = static_cast<int64_t>(kernel.size()) + 2;
  if (!rank)
    return op->emitOpError("layout conversion needs the rank of its data "
                           "operands or result (all are unranked; run "
                           "top-shape-infer first)");
  return *rank;
}

/// Rewrites `op` from its layout to `target` between Permutes. Fails (with
/// no change) if the rank of its tensors is unknown.
LogicalResult convertOp(LayoutSensitiveOpInterface op, Layout target) {
  FailureOr<int64_t> rank = layoutRank(op);
  if (failed(rank))
    return failure();
  bool toFirst = target == Layout::NCHW;
  SmallVector<int64_t> in = toFirst ? channelsLastToFirstOrder(*rank)
                                    : channelsFirstToLastOrder(*rank);
  SmallVector<int64_t> out = toFirst ? channelsFirstToLastOrder(*rank)
                                     : channelsLastToFirstOrder(*rank);
  OpBuilder b(op);
  for (unsigned i = 0, e = op.getNumLayoutOperands(); i < e; ++i) {
    Value operand = op->getOperand(i);
    auto permute =
        PermuteOp::create(b, op->getLoc(), permutedType(operand.getType(), in),
                          operand, b.getDenseI64ArrayAttr(in));
    op->setOperand(i, permute);
  }
  op->setAttr("layout", LayoutAttr::get(b.getContext(), target));
  Value result = op->getResult(0);
  Type resultType = result.getType();
  result.setType(permutedType(resultType, in));
  b.setInsertionPointAfter(op);
  auto back = PermuteOp::create(b, op->getLoc(), resultType, result,
                                b.getDenseI64ArrayAttr(out));
  result.replaceAllUsesExcept(back, back);
  return success();
}

struct TopConvertLayoutPass
    : public strata::top::impl::TopConvertLayoutBase<TopConvertLayoutPass> {
  using TopConvertLayoutBase::TopConvertLayoutBase;
  void runOnOperation() override {
    std::string option = this->target;
    Layout target;
    if (option == "nchw")
      target = Layout::NCHW;
    else if (option == "nhwc")
      target = Layout::NHWC;
    else {
      getOperation().emitError() << "top-convert-layout: option 'target' = \""
                                 << option
                                 << "\" must be \"nchw\" or \"nhwc\"";
      return signalPassFailure();
    }
    SmallVector<LayoutSensitiveOpInterface> ops;
    getOperation().walk([&](LayoutSensitiveOpInterface op) {
      if (op.getLayout() != target)
        ops.push_back(op);
    });
    for (LayoutSensitiveOpInterface op : ops)
      if (failed(convertOp(op, target)))
        return signalPassFailure();
  }
};
} // namespace
