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
/// `type` with its dims permuted by `order`.
RankedTensorType permutedType(RankedTensorType type, ArrayRef<int64_t> order) {
  return RankedTensorType::get(permuteShape(type.getShape(), order),
                               type.getElementType());
}

/// Rewrites `op` from its layout to `target` between Permutes. Fails (with
/// no change) if a data operand or the result is not a ranked tensor.
LogicalResult convertOp(LayoutSensitiveOpInterface op, Layout target) {
  SmallVector<RankedTensorType> types;
  for (unsigned i = 0, e = op.getNumLayoutOperands(); i < e; ++i)
    types.push_back(dyn_cast<RankedTensorType>(op->getOperand(i).getType()));
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || llvm::is_contained(types, RankedTensorType()))
    return op->emitOpError("layout conversion needs ranked tensors");
  int64_t rank = resultType.getRank();
  bool toFirst = target == Layout::NCHW;
  SmallVector<int64_t> in = toFirst ? channelsLastToFirstOrder(rank)
                                    : channelsFirstToLastOrder(rank);
  SmallVector<int64_t> out = toFirst ? channelsFirstToLastOrder(rank)
                                     : channelsLastToFirstOrder(rank);
  OpBuilder b(op);
  for (auto [i, type] : llvm::enumerate(types)) {
    Value operand = op->getOperand(i);
    auto permute = PermuteOp::create(b, op->getLoc(), permutedType(type, in),
                                     operand, b.getDenseI64ArrayAttr(in));
    op->setOperand(i, permute);
  }
  op->setAttr("layout", LayoutAttr::get(b.getContext(), target));
  Value result = op->getResult(0);
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
