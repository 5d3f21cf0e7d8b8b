//===- Passes.h - HL to the NPU's task-level npuhw dialect ------*- C++ -*-===//
//
// The HL -> HW lowering (docs/npu.md, "HL -> HW"): each HL kernel becomes
// one NPU program (a dispatch of the npu-sim device) that DMA-loads its
// operands into LRAM, runs slice tasks and stores its result, tiled when the
// layer does not fit LRAM. Every size comes from the NpuConfig.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_CONVERSION_HLTOHW_PASSES_H
#define STRATA_CONVERSION_HLTOHW_PASSES_H

#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Dialect/NpuHW/IR/NpuHW.h"
#include "strata/Npu/NpuConfig.h"
#include "strata/NpuSim/NpuProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::conversion {

#define GEN_PASS_DECL
#include "strata/Conversion/HLToHW/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "strata/Conversion/HLToHW/Passes.h.inc"

/// A bump allocator over the NPU's LRAM: every buffer starts at a multiple
/// of config.lramAlignment; `allocate` fails (nullopt) when the buffer would
/// reach past config.lramBytes. The fit check of the tiling is "every buffer
/// of one tile allocates".
class LramAllocator {
public:
  explicit LramAllocator(const npu::NpuConfig &config);
  /// The address of a new buffer of `bytes` bytes, or nullopt if it does not
  /// fit.
  std::optional<int64_t> allocate(int64_t bytes);
  /// Bytes in use (the end of the last buffer, alignment included).
  int64_t used() const { return top; }
  /// `bytes` rounded up to the alignment.
  int64_t aligned(int64_t bytes) const;
  /// Keeps [begin, end) out of every later buffer (data another dispatch
  /// left resident).
  void reserve(int64_t begin, int64_t end);

private:
  int64_t capacity, alignment, top = 0;
  std::vector<std::pair<int64_t, int64_t>> reserved;
};

/// How the lowering plans a layer.
struct HLToHWOptions {
  /// Two LRAM buffer sets: tile k+1's loads overlap tile k's compute.
  bool doubleBuffer = false;
  /// LRAM reuse across dispatches: a kernel whose producer is the previous
  /// NPU dispatch reads the producer's output where it left it in LRAM
  /// instead of loading it (the pass sets the per-op fields below).
  bool lramReuse = false;
  /// Per op: keep the whole output in LRAM (one tile) when it fits.
  bool keepOutputResident = false;
  /// Per op: the input is resident in LRAM at this address (NCHW,
  /// contiguous), left there by the previous dispatch.
  std::optional<int64_t> residentInput;
  /// Multi-op dispatches: an int8 hl.conv2d whose only user is an int8
  /// hl.add runs the add in its program (per output tile, in LRAM).
  bool fuseDispatches = false;
  /// Per op (an hl.conv2d): the hl.add its program also computes.
  mlir::Operation *fusedAdd = nullptr;
  /// Multi-op dispatches: an int8 hl.conv2d / hl.depthwise_conv2d whose
  /// only user is an hl.table applies the table in its activation unit
  /// (the table loaded into LRAM once per dispatch, per channel with the
  /// scale_bias rows), one dispatch instead of two.
  bool foldTables = false;
  /// Per op: the hl.table its program applies (after the fused add when
  /// there is one; for an int8 elementwise op, a one-table hl.table looked
  /// up after the op's task).
  mlir::Operation *foldedTable = nullptr;
  /// Multi-op conv -> conv dispatches with next-layer weight prefetch: a
  /// MAC kernel whose only user is the next MAC kernel shares its program;
  /// the first keeps its whole output in LRAM for the second, and the
  /// second's first weight loads run during the first's compute
  /// (LowerChain.cpp); either may apply its folded table.
  bool prefetchWeights = false;
  /// Per op (chain producer): the whole output stays in LRAM (one tile) and
  /// is not stored to DRAM; an error when it cannot.
  bool chainOutput = false;
  /// Per op: LRAM bytes [0, n) are kept out of every buffer (a chain's
  /// producer uses them while this layer's first loads run).
  int64_t reservedBelow = 0;
};

/// The tiling chosen for one layer (reported by the pass and the bench).
struct LayerPlan {
  int64_t rowTiles = 1;     ///< output row tiles
  int64_t channelTiles = 1; ///< output channel tiles (whole weight blocks)
  int64_t lramBytes = 0;    ///< LRAM the plan uses (the allocator's top)
  /// Where the whole output stays in LRAM after the program (when asked
  /// for and possible).
  std::optional<int64_t> residentOutput;
};

/// Lowers one HL kernel (hl.conv2d, hl.depthwise_conv2d,
/// hl.fully_connected) to `program` named `name`. On failure returns the
/// error (naming the layer and the sizes).
std::optional<std::string>
lowerHLOpToProgram(mlir::Operation *op, const npu::NpuConfig &config,
                   const HLToHWOptions &options, const std::string &name,
                   npusim::Program &program, LayerPlan *plan = nullptr);

/// Lowers a conv -> conv chain (`producer`'s only user is `consumer`, the
/// MAC kernel lowered right after it) to one program (LowerChain.cpp): the
/// producer's output stays in LRAM, the consumer reads it there, and the
/// consumer's first weight loads are prefetched while the producer
/// computes (into LRAM the producer leaves free), at the place the cycle
/// model finds fastest. The bindings are the producer's operands, the
/// consumer's weights and scale_bias, the consumer's result. An error when
/// the pair does not fit that way or is not faster than two dispatches
/// (then the caller lowers them apart).
std::optional<std::string>
lowerChainToProgram(mlir::Operation *producer, mlir::Operation *consumer,
                    const npu::NpuConfig &config, const HLToHWOptions &options,
                    const HLToHWOptions &consumerOptions,
                    const std::string &name, npusim::Program &program,
                    LayerPlan *plan = nullptr);

/// Whether the lowering has a program for `op`.
bool hasNpuLowering(mlir::Operation *op);

/// Why the NPU lowering refuses `op` (nullopt: it lowers it): the op has no
/// lowering, or lowerHLOpToProgram fails with the default options (the
/// error names the layer). convert-top-to-hl asks this of every HL op it
/// writes and keeps the Top ops on the CPU when refused, so the two passes
/// cannot disagree (docs/npu.md, "What stays on the CPU").
std::optional<std::string> npuLoweringRefusal(mlir::Operation *op,
                                              const npu::NpuConfig &config);

/// The pass with a given description (no JSON file).
std::unique_ptr<mlir::Pass>
createConvertHLToHWPass(const npu::NpuConfig &config,
                        const HLToHWOptions &options);

} // namespace strata::conversion

#endif // STRATA_CONVERSION_HLTOHW_PASSES_H
