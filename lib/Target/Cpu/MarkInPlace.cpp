//===- MarkInPlace.cpp - operands a dispatch may write its result over ----===//
//
// The memory plan (lib/Target/MemoryPlan.cpp) may place a dispatch's result
// over an operand whose life ends at that dispatch, but only where the
// generated code reads every element before writing over it: a lone
// elementwise linalg.generic whose result and that operand have identity
// maps (tiled, vectorized or not, each tile reads the elements it then
// writes). Its other operands may broadcast: the artifact builder checks
// that they do not share the operand's bytes.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUMARKINPLACE
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

/// The lone elementwise generic computing `fn`'s result, or null.
static linalg::GenericOp elementwiseBody(func::FuncOp fn) {
  if (fn.getNumResults() != 1 || !fn.getBody().hasOneBlock())
    return nullptr;
  linalg::GenericOp generic;
  for (Operation &op : fn.getBody().front()) {
    if (isa<arith::ConstantOp, tensor::EmptyOp, func::ReturnOp>(op))
      continue;
    auto g = dyn_cast<linalg::GenericOp>(op);
    if (!g || generic)
      return nullptr;
    generic = g;
  }
  if (!generic || generic->getNumResults() != 1 ||
      generic.getNumDpsInits() != 1 ||
      !generic.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>() ||
      fn.getBody().front().getTerminator()->getOperand(0) !=
          generic->getResult(0) ||
      !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return nullptr;
  // Nothing in the payload may have side effects or regions.
  for (Operation &op : generic.getRegion().front())
    if (op.getNumRegions() || !isMemoryEffectFree(&op))
      return nullptr;
  return generic;
}

static unsigned elementBits(Type t) {
  Type elem = cast<ShapedType>(t).getElementType();
  return elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 0;
}

struct MarkInPlacePass : impl::CpuMarkInPlaceBase<MarkInPlacePass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kDispatchAttr) || fn.isExternal())
        continue;
      linalg::GenericOp generic = elementwiseBody(fn);
      if (!generic)
        continue;
      auto result = cast<RankedTensorType>(generic->getResult(0).getType());
      unsigned bits = elementBits(result);
      if (bits == 0)
        continue;
      SmallVector<int64_t> operands;
      for (OpOperand *operand : generic.getDpsInputOperands()) {
        Value in = operand->get();
        auto arg = dyn_cast<BlockArgument>(in);
        auto type = dyn_cast<RankedTensorType>(in.getType());
        if (!arg || arg.getOwner()->getParentOp() != fn || !type ||
            type.getShape() != result.getShape() ||
            !generic.getMatchingIndexingMap(operand).isIdentity() ||
            elementBits(type) != bits ||
            llvm::is_contained(operands, arg.getArgNumber()))
          continue;
        operands.push_back(arg.getArgNumber());
      }
      if (!operands.empty())
        fn->setAttr(kInPlaceOperandsAttr,
                    Builder(fn).getI64ArrayAttr(operands));
    }
  }
};

} // namespace
} // namespace strata::cpu
