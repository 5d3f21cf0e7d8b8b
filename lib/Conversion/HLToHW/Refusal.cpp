//===- Refusal.cpp - whether HL -> HW lowers an op ------------------------===//
//
// The one predicate convert-top-to-hl and convert-hl-to-hw share: an HL op
// is lowered to the NPU exactly when npuLoweringRefusal returns nothing.
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/HLToHW/Passes.h"

using namespace mlir;
using namespace strata;

std::optional<std::string>
conversion::npuLoweringRefusal(Operation *op, const npu::NpuConfig &config) {
  if (!hasNpuLowering(op))
    return "no NPU lowering for " + op->getName().getStringRef().str();
  npusim::Program program;
  HLToHWOptions options;
  // A convolution's int16 result reaches the NPU only with its hl.table16
  // folded into the activation unit (convert-hl-to-hw always folds it).
  if (op->getNumResults() == 1 &&
      hl::isSignedInt16(op->getResult(0).getType()) &&
      op->getResult(0).hasOneUse())
    options.foldedTable =
        dyn_cast<hl::Table16Op>(*op->getResult(0).getUsers().begin());
  return lowerHLOpToProgram(op, config, options, "refusal_check", program);
}
