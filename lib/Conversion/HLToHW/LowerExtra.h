//===- LowerExtra.h - pools and segmented operands of HL -> HW --*- C++ -*-===//
//
// Internal to lib/Conversion/HLToHW: the lowerings beside LowerKernels.cpp's
// MAC layers (docs/npu.md, "HL -> HW"):
//  - LowerPools.cpp: hl.maxpool and hl.avgpool, plain or over segmented
//    inputs, and the segmented int8 hl.conv2d / hl.depthwise_conv2d (one
//    task per phase, chained through int32 partials), all through one
//    window tiler;
//  - LowerSegmented.cpp: hl.segmentation (DMA only), `segment_output` (the
//    producer stores its result already segmented) and the helpers both
//    files share;
//  - LowerMovement.cpp: hl.resize_nearest and hl.concat (DMA only).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_CONVERSION_HLTOHW_LOWEREXTRA_H
#define STRATA_LIB_CONVERSION_HLTOHW_LOWEREXTRA_H

#include "strata/Conversion/HLToHW/Passes.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>

namespace strata::conversion::extra {

/// Whether `op` is lowered here (pools, hl.segmentation, segmented
/// operands).
bool handles(mlir::Operation *op);

/// Lowers an op `handles` accepts; the error names the layer.
std::optional<std::string> lower(mlir::Operation *op,
                                 const npu::NpuConfig &config,
                                 const HLToHWOptions &options,
                                 const std::string &name,
                                 npusim::Program &program, LayerPlan *plan);

/// The window-op lowering of LowerPools.cpp (pools; segmented conv2d /
/// depthwise_conv2d inputs).
std::optional<std::string>
lowerWindowOp(mlir::Operation *op, const npu::NpuConfig &config,
              const HLToHWOptions &options, const std::string &name,
              npusim::Program &program, LayerPlan *plan);

/// hl.reduce_mean (LowerPools.cpp): whole tensors in LRAM, split over the
/// slices.
std::optional<std::string> lowerReduceMean(hl::ReduceMeanOp op,
                                           const npu::NpuConfig &config,
                                           const std::string &name,
                                           npusim::Program &program);

/// hl.resize_nearest and hl.concat (LowerMovement.cpp): DMA only.
bool handlesMovement(mlir::Operation *op);
std::optional<std::string> lowerMovement(mlir::Operation *op,
                                         const npu::NpuConfig &config,
                                         const std::string &name,
                                         npusim::Program &program);

/// "hl.maxpool 'name' (1x8x9x9 -> 1x8x4x4)": the op, its location name and
/// its operand / result shapes, for errors.
std::string layerName(mlir::Operation *op);

npusim::Operand contiguous(int64_t address, std::vector<int64_t> dims,
                           int64_t elementBytes);

/// Why the NPU description cannot run the interpolated int16 table (its
/// `lut16_entries` is not 513), naming `layer`; nullopt when it can.
std::optional<std::string> lut16Refusal(const npu::NpuConfig &config,
                                        const std::string &layer);

/// The int16 table of an int8 MAC `op` (a conv / depthwise): with
/// `options.foldedTable` an hl.table16 reading `op`'s int16 result, sets
/// `lut16` (`fits`: the kernel can apply it, else an internal error). An
/// int16 result without its hl.table16 is an error naming `layer`: it has
/// no other way to the NPU.
std::optional<std::string> checkTable16Fold(mlir::Operation *op,
                                            const npu::NpuConfig &config,
                                            const HLToHWOptions &options,
                                            const std::string &layer, bool fits,
                                            bool &lut16);
npusim::Task dmaTask(npusim::TaskKind kind, uint32_t binding,
                     int64_t dramOffset, int64_t lramAddress,
                     int64_t elementBytes, std::vector<int64_t> counts,
                     std::vector<int64_t> dramStrides,
                     std::vector<int64_t> lramStrides, std::string name);
npusim::Task barrier();

/// Appends the tile loop the tiled planners share: tile 0's loads, then per
/// tile a barrier and its compute; with two buffer sets the next tile's
/// loads overlap the previous tile's store (`storeBeforeLoads`: the store
/// is queued first, for loads that reuse the buffer it reads), with one set
/// a barrier, the tile's store and the next tile's loads; two sets end with
/// a barrier and the last store.
void emitTileLoop(std::vector<npusim::Task> &tasks, size_t tiles, int sets,
                  bool storeBeforeLoads, llvm::function_ref<void(size_t)> loads,
                  llvm::function_ref<void(size_t)> compute,
                  llvm::function_ref<void(size_t)> store);
/// Gives `task` the vector mode the cycle model finds fastest; its cycles.
int64_t fastestVectorMode(npusim::Task &task, const npu::NpuConfig &config);

/// DMA cycles of `bytes` in `descriptors` transfers (bandwidth, efficiency
/// and setup of the description).
double dmaCycles(double bytes, int descriptors, const npu::NpuConfig &config);

/// One tile's estimated cycles: what it loads, computes and stores.
struct TileCycles {
  double load = 0, compute = 0, store = 0;
};
/// The planners' schedule estimate over `n` tiles, `tile(i)` called once
/// per tile in order: single-buffered (`sets` 1) the three add up;
/// double-buffered tile i's compute overlaps tile i+1's loads and tile
/// i-1's store, the first load and the last store stand alone.
double scheduleEstimate(size_t n, int sets,
                        llvm::function_ref<TileCycles(size_t)> tile);

/// Where an NCHW result `[N, C, H, W]` (elements of `eb` bytes) goes in its
/// DRAM binding: plain, or segmented for a strided consumer
/// (`segment_output = [s, top, left, bottom, right]`: `[N, C, s*s, Hs,
/// Ws]`, phase `(a, b)` holding the padded rows `s*u + a`, columns `s*v +
/// b`, the padding positions `padValue`).
struct OutputLayout {
  int64_t N = 1, C = 1, H = 1, W = 1, eb = 1;
  int64_t s = 1; ///< 1: plain
  std::array<int64_t, 4> pad = {0, 0, 0, 0};
  int64_t hs = 1, ws = 1;
  int64_t padValue = 0;
  uint32_t binding = 0;

  /// Plain, or segmented by `segmentOutput` (may be null).
  static OutputLayout of(int64_t n, int64_t c, int64_t h, int64_t w, int64_t eb,
                         std::optional<llvm::ArrayRef<int64_t>> so,
                         int64_t padValue, uint32_t binding);
  uint64_t bytes() const;
};

/// DMA stores of the box `n [n0, n0+cn), c [c0, c0+cc), y [y0, y0+cy), x
/// [x0, x0+cx)` of the NCHW result, held in LRAM from `lram` with strides
/// `ls` (n, c, y, x; bytes): one descriptor plain, one per phase segmented.
void storeBox(const OutputLayout &out, std::array<int64_t, 4> lo,
              std::array<int64_t, 4> count, int64_t lram,
              std::array<int64_t, 4> ls, std::vector<npusim::Task> &tasks);

/// Segmented layouts: a slice task writes `padValue` into one LRAM byte at
/// `scratch`, then DMA stores (LRAM stride 0) fill every padding position
/// of every phase (no descriptor moving more than `lramBytes` elements).
/// Appends a barrier first. Nothing for a plain layout.
void fillPadding(const OutputLayout &out, int64_t scratch, int64_t lramBytes,
                 std::vector<npusim::Task> &tasks);

/// The taps of one phase along one dim: kernel taps `k0, k0 + step, ..`
/// (`count` of them) at phase-plane offsets `o0, o0 + q, ..`.
struct PhaseTaps {
  int64_t k0 = 0, step = 1, o0 = 0, q = 1, count = 0;
};
/// Taps of phase `a` for a kernel of `k` taps with dilation `d`, stride
/// (segments) `s`; count 0 when the phase has none.
PhaseTaps phaseTaps(int64_t k, int64_t d, int64_t s, int64_t a);

} // namespace strata::conversion::extra

#endif // STRATA_LIB_CONVERSION_HLTOHW_LOWEREXTRA_H
