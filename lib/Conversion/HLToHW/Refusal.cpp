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
  return lowerHLOpToProgram(op, config, HLToHWOptions(), "refusal_check",
                            program);
}
