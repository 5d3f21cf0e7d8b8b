//===- CpuTarget.h - compile Top models into a CPU artifact -----*- C++ -*-===//
//
// The CPU back end behind `strata compile --target cpu`: one variant per set
// of static input shapes, each outlined into dispatches, lowered through
// MLIR to native code, memory-planned, and written with the constants into
// one `.strata` artifact (docs/artifact.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TARGET_CPU_CPUTARGET_H
#define STRATA_TARGET_CPU_CPUTARGET_H

#include "strata/Artifact/ArtifactWriter.h"
#include "strata/Support/Npz.h"
#include "strata/Target/Cpu/CodeGen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>
#include <tuple>

namespace strata::cpu {

struct KernelDispatchPlan;

/// An executable of another device that runs one outlined dispatch (an NPU
/// program on npu-sim): the dispatch binds the outlined function's operands,
/// then its results, in order.
struct ForeignDispatch {
  std::string name, device, format;
  std::string code;
  std::string symbol;
  /// A one-line description for --explain-strategy.
  std::string note;
};

struct CpuCompileOptions {
  CodeGenOptions codegen;
  /// A JSON-lines tuning log for the operator strategy (docs/strategy.md).
  std::string tuningLog;
  /// Print the strategy's reasoning for every op to stdout
  /// (`--explain-strategy`).
  bool explainStrategy = false;
  /// Where to write the dispatch module after lowering to the LLVM dialect
  /// (empty: not written); for debugging the code generator.
  std::string dumpLLVMDialect;
  /// The bound of the element count of a Range with run-time bounds
  /// (`--max-range-elements`); a larger range is a run-time error.
  int64_t maxRangeElements = 65536;
  /// The bound of the scan outputs' length of a Loop with a run-time trip
  /// count (`--max-scan-length`); a longer loop is a run-time error.
  int64_t maxScanLength = 65536;
  /// Called for every outlined dispatch function: an executable of another
  /// device when that device runs it (the function's ops are then not
  /// compiled for the CPU), nullopt for CPU code, failure (with the error
  /// emitted) to stop.
  std::function<mlir::FailureOr<std::optional<ForeignDispatch>>(
      mlir::func::FuncOp)>
      foreignDispatch;
  /// Concatenations without copies: the producers of an npu-sim hl.concat
  /// whose inputs lie one after the other in its result write straight
  /// into its bytes, and the concat runs no dispatch.
  bool concatInPlace = true;
};

/// What one variant came to: the memory plan's peak next to the sum of all
/// intermediate tensors, the dispatch count, code and constant sizes.
struct VariantReport {
  std::vector<std::vector<int64_t>> inputShapes;
  uint64_t arenaSize = 0, tensorBytes = 0, codeBytes = 0;
  size_t dispatches = 0, views = 0, copies = 0;
  /// Ops whose results are all empty (nothing to compute, no dispatch).
  size_t emptyDispatches = 0;
  /// Results the memory plan placed over an operand that dies there.
  uint64_t inPlace = 0;
  /// Dispatches split into more than one workgroup.
  size_t splitDispatches = 0;
  /// Ops whose strategy picked a kernel the runtime does not have yet
  /// (compiled by the codegen fallback instead), by implementation name.
  std::map<std::string, unsigned> kernelsNotAvailable;
  /// Why, for the first op of each implementation in kernelsNotAvailable.
  std::map<std::string, std::string> kernelFallbackReasons;
  /// Dispatches that call a runtime kernel, by kernel name.
  std::map<std::string, unsigned> kernelDispatches;
  /// Constant weights packed for a kernel (bytes of packed data).
  uint64_t packedWeightBytes = 0;
  /// Adds fused into the residual epilogue of the kernel before them.
  unsigned residualAddsFused = 0;
  /// Inverted-residual blocks run as one fused kernel (each replaces three
  /// convolution dispatches).
  unsigned invertedResidualsFused = 0;
  /// Dispatches run by another device (foreignDispatch), by device.
  std::map<std::string, unsigned> foreignDispatches;
  /// One line per kernel dispatch: `dispatch_3_Conv: kernel K (impl I, N
  /// workgroups, packed weight)`, for --explain-strategy.
  std::vector<std::string> kernelDispatchNotes;
};

/// Builds one artifact from one or more variants of a model.
class CpuArtifactBuilder {
public:
  explicit CpuArtifactBuilder(std::string modelName);

  /// Compiles `module` (an optimized Top model whose shapes are all static)
  /// with `weights` into a variant. The module is rewritten in place
  /// (outlined). All variants must have the same input and output names and
  /// element types. On failure `error` says why (diagnostics on the module's
  /// ops go to the context's handler).
  mlir::LogicalResult addVariant(mlir::ModuleOp module,
                                 const TensorMap &weights,
                                 const CpuCompileOptions &options,
                                 VariantReport &report, std::string &error);

  /// Writes the artifact (atomically: temporary file and rename).
  bool write(const std::string &path, std::string &error);

  /// Bytes of constants in the artifact so far.
  uint64_t constantBytes() const { return constantTotal; }

private:
  mlir::FailureOr<artifact::DispatchSpec> kernelDispatchSpec(
      const KernelDispatchPlan &plan, llvm::ArrayRef<mlir::Value> operands,
      mlir::Value result,
      llvm::function_ref<mlir::FailureOr<uint32_t>(mlir::Value)> bufferFor,
      artifact::VariantSpec &variant, const TensorMap &weights,
      VariantReport &report, std::string &error);

  artifact::ArtifactWriter writer;
  std::vector<artifact::TensorSpec> inputs, outputs;
  bool haveSignature = false;
  std::map<std::string, uint64_t> constantOffsets;
  /// Offsets and sizes of packed weights by (weight name, packing,
  /// packedWeightKey).
  std::map<std::tuple<std::string, int, std::vector<int64_t>>,
           std::pair<uint64_t, uint64_t>>
      packedOffsets;
  uint64_t constantTotal = 0;
  unsigned variantCount = 0;
};

} // namespace strata::cpu

#endif // STRATA_TARGET_CPU_CPUTARGET_H
