//===- Passes.h - Top to the NPU's HL dialect -------------------*- C++ -*-===//

#ifndef STRATA_CONVERSION_TOPTOHL_PASSES_H
#define STRATA_CONVERSION_TOPTOHL_PASSES_H

#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Npu/NpuConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <string>
#include <vector>

namespace strata::conversion {

#define GEN_PASS_DECL
#include "strata/Conversion/TopToHL/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Conversion/TopToHL/Passes.h.inc"

/// What convert-top-to-hl decided for one Top op that has an NPU candidate.
struct HLDecision {
  std::string op;       ///< "top.Conv"
  std::string location; ///< the op's location, printed
  std::string kernel;   ///< the HL op written, or empty (stays on the CPU)
  std::string reason;   ///< why it stays on the CPU
  std::string strategy; ///< the strategy's explanation (explain())
};

/// Converts `module` (Top with weight values attached) for `config`;
/// appends a decision per candidate op to `decisions` when non-null.
mlir::LogicalResult convertTopToHL(mlir::ModuleOp module,
                                   const npu::NpuConfig &config,
                                   std::vector<HLDecision> *decisions);

/// The pass with a given description (no JSON file) that reports its
/// decisions into `decisions` (may be null).
std::unique_ptr<mlir::Pass>
createConvertTopToHLPass(const npu::NpuConfig &config,
                         std::vector<HLDecision> *decisions);

/// hl-segment-strided for the NPU `config`: a rewrite the NPU lowering
/// refuses (npuLoweringRefusal of the segmentation, the segmented op or
/// the fused producer; e.g. a segmentation whose channel plane does not
/// fit LRAM) is undone, the kernel keeping its stride. (The registered
/// pass checks against the default description.)
std::unique_ptr<mlir::Pass>
createHLSegmentStrided(const HLSegmentStridedOptions &options,
                       const npu::NpuConfig &config);

} // namespace strata::conversion

#endif // STRATA_CONVERSION_TOPTOHL_PASSES_H
