//===- LowerKernels.cpp - one HL MAC kernel as one NPU program ------------===//
//
// hl.conv2d, hl.depthwise_conv2d and hl.fully_connected become a program
// that loads the input, the packed weights and the scale_bias rows into
// LRAM, runs slice tasks and stores the result (docs/npu.md, "HL -> HW").
// When the layer does not fit LRAM it is tiled by output channels (whole
// weight blocks of config.weightChannelBlock) and output rows; the plan is
// one whose buffers all allocate (LramAllocator) and whose schedule is the
// fastest by an estimate (DMA bytes and setups, the slice tasks' cycle
// model; with double
// buffering the overlap of tile k's compute with tile k+1's loads, which
// may make streaming the reduction worth it even when it fits). Within a
// tile the work is split over config.slices, by output channels or by output
// rows (the cheaper under npusim::taskCost), each slice writing its own LRAM
// piece (disjoint ranges: no race).
//
//===----------------------------------------------------------------------===//

#include "LowerExtra.h"
#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/NpuSim/Simulator.h"
#include "strata/Support/IntegerTable16.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

using namespace mlir;
using namespace strata;
using namespace strata::conversion;
using npusim::Task;

namespace {

enum class Kind { Conv, Depthwise, FullyConnected };

/// One MAC layer in the lowering's terms. A fully connected layer is a 1x1
/// "image" (H = W = OH = OW = 1, C = I).
struct Layer {
  Kind kind = Kind::Conv;
  std::string name; // the op and its shapes, for errors
  int64_t N = 1, C = 1, H = 1, W = 1, O = 1, OH = 1, OW = 1, KH = 1, KW = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, groups = 1;
  int64_t pad[4] = {0, 0, 0, 0}; // top, left, bottom, right
  int64_t B = 4;
  int64_t eb = 1; // bytes of an input / weight / output element
  /// One scale_bias row: 3 x i32 (4 with a per-channel output zero
  /// point), or 1 x f32 (bf16).
  int64_t sbRowBytes = 12;
  int64_t blockBytes = 0;  // one packed weight block
  npusim::SliceTask proto; // the fields every task of the layer shares
  /// The whole input already in LRAM at this address (NCHW, contiguous):
  /// left there by the previous dispatch (LRAM reuse).
  std::optional<int64_t> residentIn;
  /// LRAM bytes [0, reservedBelow) kept out of every buffer (a chain's
  /// producer still uses them while this layer's first loads run).
  int64_t reservedBelow = 0;
  /// Multi-op dispatch: the int8 hl.add fused after the layer (its fields;
  /// `input` / `input2` are set per piece). Each output tile's residual
  /// operand is loaded after the tile's output in the output buffer, the
  /// add writes over it, and that is what the program stores.
  std::optional<npusim::SliceTask> add;
  /// Whether the layer's result is the add's first operand (lhs).
  bool addLhs = true;
  /// Multi-op dispatch: the hl.table folded into the activation unit (the
  /// MAC tasks writing int8 look their result up in it before the store;
  /// with a fused add, a table task on the sum after the add task): 0
  /// none, 1 one table, `O` one per output channel (the rows of a tile's
  /// channels are loaded with its scale_bias rows).
  int64_t lutRows = 0;
  bool lutPerChannel() const { return lutRows > 1; }
  /// The folded table is an hl.table16 (lutRows 1): the MAC tasks
  /// requantize to int16 and look the result up in the activation unit's
  /// interpolated table (513 int16 entries).
  bool lut16 = false;
  /// Bytes of the whole folded table.
  int64_t lutBytes() const {
    return lut16 ? intq::kTable16Entries * 2 : lutRows * 256;
  }

  int64_t inputBytes() const { return N * C * H * W * eb; }

  int64_t blocks() const { return (O + B - 1) / B; }
  /// Output channels split in tiles independently (not grouped conv).
  bool channelTileable() const { return kind != Kind::Conv || groups == 1; }
  /// The reduction (input channels) can be split with int32 partials:
  /// int8, not grouped, not depthwise.
  bool reductionTileable() const {
    return eb == 1 && kind != Kind::Depthwise && groups == 1;
  }
  /// Bytes of one input channel of one weight block.
  int64_t blockChannelBytes() const { return KH * KW * B * eb; }
};

/// The input rows the output rows [r0, r1) read: [i0, i1) of the input and
/// the tile's own top/bottom padding.
struct RowWindow {
  int64_t i0, i1, padTop, padBottom;
};

RowWindow rowWindow(const Layer &l, int64_t r0, int64_t r1) {
  if (l.kind == Kind::FullyConnected)
    return {0, 1, 0, 0};
  int64_t lo = r0 * l.sh - l.pad[0];
  int64_t hiEnd = (r1 - 1) * l.sh - l.pad[0] + l.dh * (l.KH - 1) + 1;
  int64_t i0 = std::clamp<int64_t>(lo, 0, l.H - 1);
  int64_t i1 = std::clamp<int64_t>(hiEnd, i0 + 1, l.H);
  return {i0, i1, std::max<int64_t>(0, i0 - lo),
          std::max<int64_t>(0, hiEnd - i1)};
}

/// A tile: output channels [c0, c1) (c0 a multiple of B), rows [r0, r1)
/// and the reduction's input channels [k0, k1) (all of them unless the
/// reduction is tiled).
struct Tile {
  int64_t c0, c1, r0, r1, k0 = 0, k1 = 0;
};

/// The tiling: channel tiles of `blocksPerTile` weight blocks, row tiles of
/// `rowsPerTile` rows, reduction tiles of `channelsPerTile` input channels.
struct Tiling {
  int64_t blocksPerTile = 1, rowsPerTile = 1, channelsPerTile = 0;
};

/// Whether the reduction of `l` is split by `t`.
bool reductionTiled(const Layer &l, const Tiling &t) {
  return l.reductionTileable() && t.channelsPerTile < l.C;
}

std::vector<Tile> tilesOf(const Layer &l, const Tiling &t) {
  std::vector<Tile> tiles;
  int64_t cStep = t.blocksPerTile * l.B;
  int64_t kStep = reductionTiled(l, t) ? t.channelsPerTile : l.C;
  for (int64_t c0 = 0; c0 < l.O; c0 += cStep)
    for (int64_t r0 = 0; r0 < l.OH; r0 += t.rowsPerTile)
      for (int64_t k0 = 0; k0 < l.C; k0 += kStep)
        tiles.push_back({c0, std::min(l.O, c0 + cStep), r0,
                         std::min(l.OH, r0 + t.rowsPerTile), k0,
                         std::min(l.C, k0 + kStep)});
  return tiles;
}

/// Input channels a tile reads.
std::pair<int64_t, int64_t> inputChannels(const Layer &l, const Tile &t) {
  if (l.kind == Kind::Depthwise)
    return {t.c0, t.c1};
  return {t.k0, t.k1};
}

bool firstK(const Tile &t) { return t.k0 == 0; }
bool lastK(const Layer &l, const Tile &t) {
  return l.kind == Kind::Depthwise || t.k1 == l.C;
}

/// Byte sizes of one tile's buffers.
struct TileBytes {
  int64_t input, weights, scaleBias, output, acc, lut = 0;
};

/// Bytes of the weights of tile `t` (its blocks, its input channels).
int64_t weightBytes(const Layer &l, const Tile &t) {
  int64_t nBlocks = (t.c1 - t.c0 + l.B - 1) / l.B;
  if (l.kind == Kind::Depthwise || (t.k0 == 0 && t.k1 == l.C))
    return nBlocks * l.blockBytes;
  return nBlocks * (t.k1 - t.k0) * l.blockChannelBytes();
}

TileBytes tileBytes(const Layer &l, const Tile &t, bool tiledK) {
  RowWindow w = rowWindow(l, t.r0, t.r1);
  auto [ci0, ci1] = inputChannels(l, t);
  int64_t outElems = l.N * (t.c1 - t.c0) * (t.r1 - t.r0) * l.OW;
  // A fused add holds the tile's residual operand beside its output.
  // A folded table: its rows of the tile's channels, or the one table.
  int64_t lut = l.lutPerChannel() ? (t.c1 - t.c0) * 256 : l.lutBytes();
  return {l.N * (ci1 - ci0) * (w.i1 - w.i0) * l.W * l.eb,
          weightBytes(l, t),
          (t.c1 - t.c0) * l.sbRowBytes,
          outElems * l.eb * (l.add ? 2 : 1),
          tiledK ? outElems * 4 : 0,
          lut};
}

/// The largest buffer of each kind over the tiles, and whether the kind's
/// contents stay the same over all tiles (then one buffer, loaded once).
struct Buffers {
  TileBytes max{0, 0, 0, 0, 0, 0};
  bool inputShared = true, weightsShared = true, scaleBiasShared = true;
  /// One output tile (its reduction tiles write it in turn; it is stored
  /// after the last one): one output buffer.
  bool outputShared = true;
};

Buffers buffersOf(const Layer &l, const std::vector<Tile> &tiles) {
  Buffers b;
  const Tile &f = tiles.front();
  bool tiledK = l.kind != Kind::Depthwise && (f.k0 != 0 || f.k1 != l.C);
  for (const Tile &t : tiles) {
    TileBytes s = tileBytes(l, t, tiledK);
    b.max.input = std::max(b.max.input, s.input);
    b.max.weights = std::max(b.max.weights, s.weights);
    b.max.scaleBias = std::max(b.max.scaleBias, s.scaleBias);
    b.max.output = std::max(b.max.output, s.output);
    b.max.acc = std::max(b.max.acc, s.acc);
    b.max.lut = std::max(b.max.lut, s.lut);
  }
  b.scaleBiasShared = f.c1 - f.c0 == l.O;
  b.outputShared = b.scaleBiasShared && f.r1 - f.r0 == l.OH;
  b.weightsShared = b.scaleBiasShared && !tiledK;
  b.inputShared = f.r1 - f.r0 == l.OH && !tiledK &&
                  (l.kind != Kind::Depthwise || b.weightsShared);
  return b;
}

/// LRAM addresses of every buffer: per buffer set (one, or two when double
/// buffering) for the operands that change between tiles.
struct Placement {
  int64_t input[2], weights[2], scaleBias[2], output[2];
  int64_t lut[2] = {0, 0}; ///< a folded table (per-channel: as scale_bias)
  int64_t acc = 0;         ///< int32 partials (reduction tiling), one set
  int64_t used = 0;
};

std::optional<Placement> place(const Layer &l, const Buffers &b, int sets,
                               const npu::NpuConfig &config) {
  LramAllocator alloc(config);
  Placement p;
  if (l.residentIn)
    alloc.reserve(*l.residentIn, *l.residentIn + l.inputBytes());
  if (l.reservedBelow)
    alloc.reserve(0, l.reservedBelow);
  auto put = [&](int64_t *dst, int64_t bytes, bool shared) {
    for (int s = 0; s < 2; ++s) {
      if (s >= sets || (s > 0 && shared)) {
        dst[s] = dst[0];
        continue;
      }
      std::optional<int64_t> a = alloc.allocate(bytes);
      if (!a)
        return false;
      dst[s] = *a;
    }
    return true;
  };
  if (!put(p.weights, b.max.weights, b.weightsShared) ||
      !put(p.scaleBias, b.max.scaleBias, b.scaleBiasShared) ||
      (!l.residentIn && !put(p.input, b.max.input, b.inputShared)) ||
      !put(p.output, b.max.output, b.outputShared) ||
      (b.max.lut &&
       !put(p.lut, b.max.lut, !l.lutPerChannel() || b.scaleBiasShared)))
    return std::nullopt;
  if (l.residentIn)
    p.input[0] = p.input[1] = *l.residentIn;
  if (b.max.acc) {
    std::optional<int64_t> a = alloc.allocate(b.max.acc);
    if (!a)
      return std::nullopt;
    p.acc = *a;
  }
  p.used = alloc.used();
  return p;
}

/// The estimated cycles of a tiling's schedule: per tile the DMA cycles
/// of what it loads (weights and scale_bias when they change, its input rows
/// when they change) and stores, and its slice tasks' cycles under the cycle
/// model.
/// Single-buffered the three add up; double-buffered a tile's compute
/// overlaps the next tile's loads and the previous tile's store.
int64_t tileComputeCycles(const Layer &l, const Tile &t,
                          const npu::NpuConfig &config);

double scheduleCycles(const Layer &l, const std::vector<Tile> &tiles,
                      const npu::NpuConfig &config, int sets) {
  auto dmaCycles = [&](double bytes, int descriptors) {
    return extra::dmaCycles(bytes, descriptors, config);
  };
  std::vector<int64_t> lastW, lastSb, lastIn;
  std::map<std::vector<int64_t>, int64_t> computeOf;
  return extra::scheduleEstimate(tiles.size(), sets, [&](size_t i) {
    extra::TileCycles c;
    const Tile &t = tiles[i];
    TileBytes s = tileBytes(l, t, false);
    std::vector<int64_t> wKey{t.c0, t.c1, t.k0, t.k1}, sbKey{t.c0, t.c1};
    if (lastW != wKey) {
      c.load += dmaCycles(s.weights, 1);
      lastW = wKey;
    }
    if (lastSb != sbKey) {
      c.load += dmaCycles(s.scaleBias, 1);
      // A folded table's rows go with the scale_bias rows (one table: once).
      if (s.lut && (l.lutPerChannel() || i == 0))
        c.load += dmaCycles(s.lut, 1);
      lastSb = sbKey;
    }
    RowWindow w = rowWindow(l, t.r0, t.r1);
    auto ci = inputChannels(l, t);
    std::vector<int64_t> key{ci.first, ci.second, w.i0, w.i1};
    if (key != lastIn && !l.residentIn) {
      c.load += dmaCycles(s.input, 1);
      lastIn = key;
    }
    if (lastK(l, t))
      c.store = dmaCycles(s.output, static_cast<int>(config.slices));
    // The slice tasks' cost under the cycle model (lanes a shape leaves
    // idle included), per tile shape.
    std::vector<int64_t> shape{t.c1 - t.c0, t.r1 - t.r0, t.k1 - t.k0};
    auto it = computeOf.find(shape);
    if (it == computeOf.end())
      it = computeOf.emplace(shape, tileComputeCycles(l, t, config)).first;
    c.compute = static_cast<double>(it->second);
    return c;
  });
}

std::string describe(const TileBytes &b) {
  std::string text =
      llvm::formatv("input {0}, weights {1}, scale_bias {2}, output {3}",
                    b.input, b.weights, b.scaleBias, b.output)
          .str();
  if (b.acc)
    text += ", int32 partials " + std::to_string(b.acc);
  if (b.lut)
    text += ", table " + std::to_string(b.lut);
  return text;
}

/// The plan: the fitting tiling whose schedule the estimate finds fastest.
/// The reduction is tiled (int32 partials) only when no tiling of the whole
/// reduction fits.
std::optional<std::string> planTiling(const Layer &l,
                                      const npu::NpuConfig &config, int sets,
                                      Tiling &best, Placement &placement,
                                      bool wholeOutput = false) {
  if (wholeOutput) {
    // One output tile: the whole output stays in LRAM for the next
    // dispatch. Double-buffered, its reduction may be tiled (int32
    // partials) so that the loads still overlap the compute; the fastest
    // fitting choice by the estimate.
    double wholeCost = -1;
    for (int64_t parts = 1; parts <= l.C; parts *= 2) {
      if (parts > 1 && (sets == 1 || !l.reductionTileable()))
        break;
      Tiling whole{l.blocks(), l.OH, (l.C + parts - 1) / parts};
      std::vector<Tile> tiles = tilesOf(l, whole);
      std::optional<Placement> p = place(l, buffersOf(l, tiles), sets, config);
      if (!p)
        continue;
      double cost = scheduleCycles(l, tiles, config, sets);
      if (wholeCost < 0 || cost < wholeCost) {
        wholeCost = cost;
        best = whole;
        placement = *p;
      }
    }
    if (wholeCost >= 0)
      return std::nullopt;
    return std::string("does not fit whole");
  }
  double bestCost = -1;
  int64_t maxBlocks = l.blocks();
  int64_t minBlocks = l.channelTileable() ? 1 : maxBlocks;
  std::vector<int64_t> channelOptions{l.C};
  if (l.reductionTileable())
    for (int64_t parts = 2; parts <= l.C; parts *= 2)
      channelOptions.push_back((l.C + parts - 1) / parts);
  for (int64_t kc : channelOptions) {
    // Single-buffered, a larger reduction tile that fits is never slower;
    // double-buffered, a smaller one shortens the first load (the tile's
    // input channels and weights only) and overlaps the rest with compute.
    if (bestCost >= 0 && sets == 1)
      break;
    for (int64_t k = maxBlocks; k >= minBlocks; --k) {
      // Channel tiles of k blocks: skip k that give the same tile count as
      // a larger k (same DMA, smaller buffers are not needed).
      if (k < maxBlocks &&
          (l.blocks() + k - 1) / k == (l.blocks() + k) / (k + 1))
        continue;
      // An optional streamed reduction (a plan of the whole reduction
      // exists) with more than kMaxOptionalTiles tiles is not weighed: its
      // setups outweigh what it overlaps, and its tile list is long to
      // build. Row counts from minRows up keep the tile count within it.
      constexpr int64_t kMaxOptionalTiles = 1024;
      int64_t minRows = 1;
      if (bestCost >= 0 && kc < l.C) {
        int64_t outer = ((l.blocks() + k - 1) / k) * ((l.C + kc - 1) / kc);
        if (outer > kMaxOptionalTiles)
          continue;
        minRows = (l.OH + kMaxOptionalTiles / outer - 1) /
                  (kMaxOptionalTiles / outer);
      }
      // The largest row count that fits (fit is monotone in the rows).
      int64_t lo = minRows, hi = l.OH, fit = 0;
      while (lo <= hi) {
        int64_t mid = (lo + hi) / 2;
        std::vector<Tile> tiles = tilesOf(l, {k, mid, kc});
        if (place(l, buffersOf(l, tiles), sets, config)) {
          fit = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      // One row tile may fit where fewer rows do not (its output buffer
      // needs no second set).
      if (fit < l.OH &&
          place(l, buffersOf(l, tilesOf(l, {k, l.OH, kc})), sets, config))
        fit = l.OH;
      if (!fit)
        continue;
      // The largest fitting row count, and (to overlap DMA with compute
      // when double-buffered) a few smaller ones.
      for (int64_t parts : {1, 2, 3, 4, 6, 8, 12, 16}) {
        int64_t rows = std::min(fit, (l.OH + parts - 1) / parts);
        if ((parts > 1 && rows == fit) || rows < minRows)
          continue;
        std::vector<Tile> tiles = tilesOf(l, {k, rows, kc});
        std::optional<Placement> p =
            place(l, buffersOf(l, tiles), sets, config);
        if (!p)
          continue;
        double cost = scheduleCycles(l, tiles, config, sets);
        if (bestCost < 0 || cost < bestCost) {
          bestCost = cost;
          best = {k, rows, kc};
          placement = *p;
        }
        if (sets == 1)
          break; // single-buffered: more tiles only add DMA
      }
    }
  }
  if (bestCost >= 0)
    return std::nullopt;
  int64_t k = l.channelTileable() ? 1 : l.blocks();
  int64_t kc = l.reductionTileable() ? 1 : l.C;
  std::vector<Tile> smallest = tilesOf(l, {k, 1, kc});
  Buffers b = buffersOf(l, smallest);
  return llvm::formatv(
             "layer {0} does not fit LRAM ({1} bytes, alignment {2}{3}): "
             "even the smallest tile ({4} output row(s), {5} output "
             "channel(s), {6} input channel(s)) needs {7}",
             l.name, config.lramBytes, config.lramAlignment,
             sets == 2 ? ", double-buffered" : "", 1, std::min(l.O, k * l.B),
             kc, describe(b.max))
      .str();
}

// The task builders are LowerExtra.h's (shared with the pools, segmented
// and movement lowerings).
using extra::barrier;
using extra::contiguous;
using extra::dmaTask;
using extra::fastestVectorMode;

/// One slice's piece of a tile: output channels [c0, c1), rows [r0, r1).
using Piece = Tile;

/// The slice task computing `piece` of a tile whose input rows/channels
/// start at `in` (window `tw`, channels from `ci0`) in LRAM at `inAddr`,
/// weights at `wAddr` (blocks from `tile.c0`), scale_bias rows at `sbAddr`,
/// writing its output at `outAddr` (contiguous [N, c, r, OW]). With
/// reduction tiles, `accAddr` is the piece's int32 partials: every tile but
/// the last writes them, every tile but the first reads them.
Task sliceTask(const Layer &l, const Tile &tile, const Piece &p, int64_t inAddr,
               int64_t wAddr, int64_t sbAddr, int64_t outAddr, uint32_t slice,
               std::optional<int64_t> accAddr = std::nullopt,
               int64_t lutAddr = 0) {
  Task t;
  t.kind = npusim::TaskKind::Slice;
  t.slice = l.proto;
  t.slice.slice = slice;
  npusim::SliceTask &s = t.slice;
  int64_t pc = p.c1 - p.c0, pr = p.r1 - p.r0;
  int64_t pBlocks = (pc + l.B - 1) / l.B;
  int64_t blockOff = (p.c0 - tile.c0) / l.B;
  int64_t kc = tile.k1 - tile.k0;
  int64_t wBlockBytes =
      l.kind == Kind::Depthwise ? l.blockBytes : kc * l.blockChannelBytes();
  std::vector<int64_t> outDims = l.kind == Kind::FullyConnected
                                     ? std::vector<int64_t>{l.N, pc}
                                     : std::vector<int64_t>{l.N, pc, pr, l.OW};
  auto setOutput = [&]() {
    if (accAddr && !firstK(tile))
      s.partial = contiguous(*accAddr, outDims, 4);
    if (accAddr && !lastK(l, tile)) {
      s.outputFormat = npusim::Format::Int32;
      s.output = contiguous(*accAddr, outDims, 4);
      // Raw partial sums: the int16 requantization's zero point and clip
      // (an interpolated table's) are the last reduction tile's.
      if (l.lut16) {
        s.outputZp = 0;
        s.clipMin = -128;
        s.clipMax = 127;
      }
    } else {
      s.output = contiguous(outAddr, outDims, l.eb);
      // A folded table (at `lutAddr`: the tile's rows, or the one table):
      // the activation unit looks the int8 result up before the store
      // (after a fused add: the table task on the sum does).
      if (l.lut16)
        s.lut = contiguous(lutAddr, {intq::kTable16Entries}, 2);
      else if (l.lutRows && !l.add)
        s.lut = l.lutPerChannel()
                    ? contiguous(lutAddr + (p.c0 - tile.c0) * 256, {pc, 256}, 1)
                    : contiguous(lutAddr, {256}, 1);
    }
  };
  RowWindow tw = rowWindow(l, tile.r0, tile.r1);
  auto [ci0, ci1] = inputChannels(l, tile);
  int64_t inRowsTile = tw.i1 - tw.i0;
  int64_t sbDimsRow = l.sbRowBytes / 4;
  s.scaleBias = sbDimsRow > 1
                    ? contiguous(sbAddr + (p.c0 - tile.c0) * l.sbRowBytes,
                                 {pc, sbDimsRow}, 4)
                    : contiguous(sbAddr + (p.c0 - tile.c0) * 4, {pc}, 4);
  s.weights.address = wAddr + blockOff * wBlockBytes;
  if (l.kind == Kind::FullyConnected) {
    s.input = contiguous(inAddr, {l.N, kc}, l.eb);
    if (l.residentIn) {
      s.input.address = inAddr + tile.k0 * l.eb;
      s.input.strides = {l.C * l.eb, l.eb};
    }
    s.weights = contiguous(s.weights.address, {pBlocks, kc, l.B}, l.eb);
    setOutput();
    return t;
  }
  RowWindow pw = rowWindow(l, p.r0, p.r1);
  int64_t chanStride = inRowsTile * l.W * l.eb;
  int64_t inChannels = l.kind == Kind::Depthwise ? pc : kc;
  int64_t inChanOff = l.kind == Kind::Depthwise ? p.c0 - ci0 : 0;
  s.input.address =
      inAddr + inChanOff * chanStride + (pw.i0 - tw.i0) * l.W * l.eb;
  s.input.dims = {l.N, inChannels, pw.i1 - pw.i0, l.W};
  s.input.strides = {(ci1 - ci0) * chanStride, chanStride, l.W * l.eb, l.eb};
  if (l.residentIn) {
    // The whole input tensor, where the previous dispatch left it.
    int64_t plane = l.H * l.W * l.eb;
    int64_t firstChannel = l.kind == Kind::Depthwise ? p.c0 : tile.k0;
    s.input.address = inAddr + firstChannel * plane + pw.i0 * l.W * l.eb;
    s.input.strides = {l.C * plane, plane, l.W * l.eb, l.eb};
  }
  if (l.kind == Kind::Depthwise)
    s.weights = contiguous(s.weights.address, {pBlocks, l.KH, l.KW, l.B}, l.eb);
  else
    s.weights = contiguous(s.weights.address,
                           {pBlocks, kc / l.groups, l.KH, l.KW, l.B}, l.eb);
  setOutput();
  s.pad = {pw.padTop, l.pad[1], pw.padBottom, l.pad[3]};
  return t;
}

/// The pieces of a tile over the slices: by channels (whole blocks) or by
/// rows, whichever the cycle model finds faster (its slowest slice).
std::vector<Piece> splitTile(const Layer &l, const Tile &tile,
                             const npu::NpuConfig &config,
                             bool channelsOnly = false) {
  auto split = [&](bool byChannels) {
    std::vector<Piece> pieces;
    int64_t units =
        byChannels ? (tile.c1 - tile.c0 + l.B - 1) / l.B : tile.r1 - tile.r0;
    int64_t n = std::min<int64_t>(config.slices, units);
    for (int64_t i = 0; i < n; ++i) {
      int64_t u0 = units * i / n, u1 = units * (i + 1) / n;
      if (byChannels)
        pieces.push_back({tile.c0 + u0 * l.B,
                          std::min(tile.c1, tile.c0 + u1 * l.B), tile.r0,
                          tile.r1});
      else
        pieces.push_back({tile.c0, tile.c1, tile.r0 + u0, tile.r0 + u1});
    }
    return pieces;
  };
  auto cost = [&](const std::vector<Piece> &pieces) {
    int64_t worst = 0;
    for (const Piece &p : pieces) {
      Task t = sliceTask(l, tile, p, 0, 0, 0, 0, 0);
      worst = std::max(worst, fastestVectorMode(t, config));
    }
    return worst;
  };
  bool channelsOk =
      l.channelTileable() && (tile.c1 - tile.c0 + l.B - 1) / l.B >= 2;
  bool rowsOk = tile.r1 - tile.r0 >= 2;
  if (channelsOnly)
    return channelsOk ? split(true) : std::vector<Piece>{tile};
  if (!channelsOk && !rowsOk)
    return {tile};
  if (!rowsOk)
    return split(true);
  if (!channelsOk)
    return split(false);
  std::vector<Piece> byC = split(true), byR = split(false);
  return cost(byR) < cost(byC) ? byR : byC;
}

/// The cycles of a tile's slice tasks (its slowest slice), as the lowering
/// will split it.
int64_t tileComputeCycles(const Layer &l, const Tile &t,
                          const npu::NpuConfig &config) {
  int64_t worst = 0;
  for (const Piece &p : splitTile(l, t, config)) {
    Task task = sliceTask(l, t, p, 0, 0, 0, 0, 0);
    worst = std::max(worst, fastestVectorMode(task, config));
  }
  return worst;
}

/// Reads the layer of an HL op; an error for what the lowering does not do.
std::optional<std::string> readLayer(Operation *op,
                                     const npu::NpuConfig &config, Layer &l) {
  auto shapeOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  std::string opName = op->getName().getStringRef().str();
  std::string loc;
  if (auto named = dyn_cast<NameLoc>(op->getLoc()))
    loc = " '" + named.getName().str() + "'";
  auto dimsText = [](ArrayRef<int64_t> s) {
    std::string t;
    for (size_t i = 0; i < s.size(); ++i)
      t += (i ? "x" : "") + std::to_string(s[i]);
    return t;
  };
  Value input = op->getOperand(0), output = op->getResult(0);
  l.name = opName + loc + " (" + dimsText(shapeOf(input)) + " -> " +
           dimsText(shapeOf(output)) + ")";
  hl::Format f =
      hl::formatOf(cast<ShapedType>(input.getType()).getElementType());
  if (f == hl::Format::Other)
    return l.name + ": the input is neither int8 nor bf16";
  bool bf16 = f == hl::Format::BF16;
  if (!config.supports(bf16 ? npu::NumberFormat::BF16
                            : npu::NumberFormat::Int8))
    return l.name + ": the NPU description does not list the format " +
           (bf16 ? "bf16" : "int8");
  for (Value v : op->getOperands())
    if (!cast<ShapedType>(v.getType()).hasStaticShape())
      return l.name + ": dynamic shapes are not supported";
  l.B = config.weightChannelBlock;
  l.eb = bf16 ? 2 : 1;
  l.sbRowBytes =
      bf16 ? 4
           : 4 * cast<ShapedType>(op->getOperand(2).getType()).getDimSize(1);
  npusim::SliceTask &s = l.proto;
  s.format = s.outputFormat =
      bf16 ? npusim::Format::BF16 : npusim::Format::Int8;
  auto epilogue = [&](auto hlOp) -> std::optional<std::string> {
    if (hlOp.getAccumulatorBits() != config.accumulatorBits)
      return l.name + llvm::formatv(": accumulator_bits {0} differs from the "
                                    "NPU description's {1}",
                                    hlOp.getAccumulatorBits(),
                                    config.accumulatorBits)
                          .str();
    s.inputZp = hlOp.getInputZp();
    s.weightZp = hlOp.getWeightZp();
    s.outputZp = hlOp.getOutputZp();
    s.clipMin = hlOp.getClipMin();
    s.clipMax = hlOp.getClipMax();
    if (hlOp.getRounding() == "tflite")
      s.rounding = npusim::Rounding::TFLite;
    if (bf16 && hlOp.getRelu()) {
      s.clipMinF = 0.0f;
      if (auto limit = hlOp.getReluLimit())
        s.clipMaxF = static_cast<float>(limit->convertToDouble());
    }
    return std::nullopt;
  };
  auto window = [&](auto hlOp) -> std::optional<std::string> {
    if (hlOp.getSegments() != 1 || hlOp.getSegmentOutput())
      return l.name + ": segmented inputs/outputs (hl-segment-strided) are "
                      "not lowered yet; the NPU kernel takes the stride "
                      "directly";
    ArrayRef<int64_t> in = shapeOf(input), out = shapeOf(output);
    ArrayRef<int64_t> pad = hlOp.getPad(), st = hlOp.getStride(),
                      dil = hlOp.getDilation();
    l.N = in[0];
    l.C = in[1];
    l.H = in[2];
    l.W = in[3];
    l.O = out[1];
    l.OH = out[2];
    l.OW = out[3];
    std::copy(pad.begin(), pad.end(), l.pad);
    l.sh = st[0];
    l.sw = st[1];
    l.dh = dil[0];
    l.dw = dil[1];
    s.stride = {l.sh, l.sw};
    s.dilation = {l.dh, l.dw};
    return epilogue(hlOp);
  };
  if (auto conv = dyn_cast<hl::Conv2DOp>(op)) {
    l.kind = Kind::Conv;
    s.kernel = npusim::KernelKind::Conv2D;
    if (auto e = window(conv))
      return e;
    ArrayRef<int64_t> w = shapeOf(conv.getWeights());
    l.KH = w[2];
    l.KW = w[3];
    l.groups = conv.getGroups();
    s.groups = l.groups;
    l.blockBytes = w[1] * w[2] * w[3] * w[4] * l.eb;
  } else if (auto dwc = dyn_cast<hl::DepthwiseConv2DOp>(op)) {
    l.kind = Kind::Depthwise;
    s.kernel = npusim::KernelKind::DepthwiseConv2D;
    if (auto e = window(dwc))
      return e;
    ArrayRef<int64_t> w = shapeOf(dwc.getWeights());
    l.KH = w[1];
    l.KW = w[2];
    l.blockBytes = w[1] * w[2] * w[3] * l.eb;
  } else if (auto fc = dyn_cast<hl::FullyConnectedOp>(op)) {
    l.kind = Kind::FullyConnected;
    s.kernel = npusim::KernelKind::FullyConnected;
    ArrayRef<int64_t> in = shapeOf(input), out = shapeOf(output);
    l.N = in[0];
    l.C = in[1];
    l.O = out[1];
    ArrayRef<int64_t> w = shapeOf(fc.getWeights());
    l.blockBytes = w[1] * w[2] * l.eb;
    if (auto e = epilogue(fc))
      return e;
  } else {
    return l.name + ": no NPU lowering for this op";
  }
  if (shapeOf(op->getOperand(1)).back() != l.B)
    return l.name + llvm::formatv(": weights are packed for blocks of {0}, "
                                  "the NPU description's "
                                  "weight_channel_block is {1}",
                                  shapeOf(op->getOperand(1)).back(), l.B)
                        .str();
  return std::nullopt;
}

/// A binding's name: the constant's `top.Weight` name, or `fallback`.
std::string bindingName(Value v, const std::string &fallback) {
  if (Operation *def = v.getDefiningOp())
    if (auto name = def->getAttrOfType<StringAttr>("name"))
      return name.str();
  return fallback;
}

/// Bytes of one element of a tensor of `type` (quantized types: their
/// storage), or 0 when it is not a fixed-size integer or float.
int64_t elementBytesOf(Type type) {
  Type e = cast<ShapedType>(type).getElementType();
  if (auto q = dyn_cast<quant::QuantizedType>(e))
    e = q.getStorageType();
  if (!e.isIntOrFloat() || e.getIntOrFloatBitWidth() % 8)
    return 0;
  return e.getIntOrFloatBitWidth() / 8;
}

/// hl.transpose as DMA only: the output, in chunks along its outermost
/// dim that fit LRAM, is gathered from the input by a load whose DRAM
/// strides are the input's permuted, then stored contiguously.
std::optional<std::string> lowerTranspose(hl::TransposeOp op,
                                          const npu::NpuConfig &config,
                                          const std::string &name,
                                          npusim::Program &program) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  std::string layer = "hl.transpose";
  if (auto named = dyn_cast<NameLoc>(op->getLoc()))
    layer += " '" + named.getName().str() + "'";
  int64_t eb = elementBytesOf(inType);
  if (!inType.hasStaticShape() || !eb)
    return layer + ": needs a static shape of 1, 2, 4 or 8-byte elements";
  ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
  ArrayRef<int64_t> perm = op.getPerm();
  if (out.size() > npusim::kMaxDmaDims)
    return layer + llvm::formatv(": rank {0} is more than a DMA's {1} dims",
                                 out.size(), npusim::kMaxDmaDims)
                       .str();
  if (outType.getNumElements() == 0)
    return layer + ": an empty tensor needs no NPU program";
  std::vector<int64_t> inStrides(in.size(), eb);
  for (int64_t i = static_cast<int64_t>(in.size()) - 2; i >= 0; --i)
    inStrides[i] = inStrides[i + 1] * in[i + 1];
  std::vector<int64_t> gather, outStrides(out.size(), eb);
  for (int64_t p : perm)
    gather.push_back(inStrides[p]);
  for (int64_t i = static_cast<int64_t>(out.size()) - 2; i >= 0; --i)
    outStrides[i] = outStrides[i + 1] * out[i + 1];
  // Chunks of the outermost dim: as many of its slices as fit.
  int64_t slice = outStrides[0];
  LramAllocator probe(config);
  int64_t perChunk =
      std::min(out[0], config.lramBytes / std::max<int64_t>(1, slice));
  if (perChunk < 1 || !probe.allocate(perChunk * slice))
    return layer + llvm::formatv(": one slice of its outermost dim ({0} "
                                 "bytes) does not fit LRAM ({1} bytes)",
                                 slice, config.lramBytes)
                       .str();
  program = npusim::Program();
  program.name = name;
  program.config = config;
  uint64_t bytes = static_cast<uint64_t>(outType.getNumElements()) * eb;
  program.bindings = {{"input", bytes, false}, {"output", bytes, true}};
  std::vector<Task> tasks;
  for (int64_t d0 = 0; d0 < out[0]; d0 += perChunk) {
    int64_t n = std::min(perChunk, out[0] - d0);
    std::vector<int64_t> counts(out.begin(), out.end());
    counts[0] = n;
    if (!tasks.empty())
      tasks.push_back(barrier());
    tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 0, d0 * gather[0], 0, eb,
                            counts, gather, outStrides, "input"));
    tasks.push_back(barrier());
    tasks.push_back(dmaTask(npusim::TaskKind::DmaStore, 1, d0 * slice, 0, eb,
                            {n * slice / eb}, {eb}, {eb}, "output"));
  }
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

/// The fields of an int8 binary elementwise slice task (`k`) from HL op
/// `b` (hl.add/sub/mul/min/max).
template <typename BinaryOp>
void binaryFields(BinaryOp b, npusim::KernelKind k, npusim::SliceTask &proto) {
  proto.kernel = k;
  proto.inputZp = b.getLhsZp();
  proto.input2Zp = b.getRhsZp();
  proto.inputMultiplier = b.getLhsMultiplier();
  proto.inputShift = b.getLhsShift();
  proto.input2Multiplier = b.getRhsMultiplier();
  proto.input2Shift = b.getRhsShift();
  proto.leftShift = b.getLeftShift();
  proto.multiplier = b.getOutputMultiplier();
  proto.shift = b.getOutputShift();
  proto.outputZp = b.getOutputZp();
  proto.clipMin = b.getClipMin();
  proto.clipMax = b.getClipMax();
  if (b.getRounding() == "tflite")
    proto.rounding = npusim::Rounding::TFLite;
}

/// A per-channel hl.table (`[C, 256]`) over the `[N*C, L]` planes (L the
/// elements after dim 1): chunks of whole channel planes of one batch item
/// (or parts of one plane when a plane does not fit), each split over the
/// slices by channels (or elements); every `table` task reads its
/// channels' rows. The whole table is loaded once when it fits beside a
/// chunk of at least one plane; otherwise each chunk loads its channels'
/// rows (a row only when the channel changes).
std::optional<std::string> lowerChannelTable(hl::TableOp op,
                                             const npu::NpuConfig &config,
                                             const std::string &layer,
                                             const std::string &name,
                                             npusim::Program &program) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op.getInput().getType()).getShape();
  int64_t n = shape[0], c = shape[1], plane = 1;
  for (size_t d = 2; d < shape.size(); ++d)
    plane *= shape[d];
  // LRAM addresses of the table rows, the input and the output chunk when
  // `rows` table rows and chunks of `elems` elements fit.
  struct Fit {
    int64_t lut, in, out;
  };
  auto fits = [&](int64_t rows, int64_t elems) -> std::optional<Fit> {
    LramAllocator alloc(config);
    std::optional<int64_t> lut = alloc.allocate(rows * 256),
                           in = alloc.allocate(elems),
                           out = alloc.allocate(elems);
    if (!lut || !in || !out)
      return std::nullopt;
    return Fit{*lut, *in, *out};
  };
  // Channels per chunk (k) and elements of a plane per chunk (part).
  bool resident = false;
  int64_t k = 0, part = plane;
  std::optional<Fit> fit;
  for (int64_t kk = c; kk >= 1 && !fit; kk = kk * 7 / 8) {
    if ((fit = fits(c, kk * plane))) {
      resident = true;
      k = kk;
    }
    if (kk * 7 / 8 == kk)
      break;
  }
  for (int64_t kk = c; kk >= 1 && !fit; --kk)
    if ((fit = fits(kk, kk * plane)))
      k = kk;
  for (part = plane; part >= 1 && !fit; part = part * 7 / 8)
    if ((fit = fits(1, part)))
      k = 1;
  if (!fit)
    return layer + llvm::formatv(": not even one table row (256 bytes) and "
                                 "one element fit LRAM ({0} bytes)",
                                 config.lramBytes)
                       .str();
  part = std::min(part, plane);
  program = npusim::Program();
  program.name = name;
  program.config = config;
  uint64_t bytes = static_cast<uint64_t>(n * c * plane);
  program.bindings = {{"input", bytes, false},
                      {bindingName(op.getTable(), "table"),
                       static_cast<uint64_t>(c * 256), false},
                      {"output", bytes, true}};
  std::vector<Task> tasks;
  if (resident)
    tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 1, 0, fit->lut, 1,
                            {c * 256}, {1}, {1}, "table"));
  int64_t index = 0, heldRows = -1;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c0 = 0; c0 < c; c0 += k) {
      int64_t kc = std::min(k, c - c0);
      // The first table row of the chunk's channels in LRAM.
      int64_t lutBase = resident ? fit->lut + c0 * 256 : fit->lut;
      for (int64_t e0 = 0; e0 < plane; e0 += part, ++index) {
        int64_t len = std::min(part, plane - e0);
        int64_t dram = (b * c + c0) * plane + e0;
        if (index)
          tasks.push_back(barrier());
        if (!resident && heldRows != c0) {
          tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 1, c0 * 256,
                                  fit->lut, 1, {kc * 256}, {1}, {1}, "table"));
          heldRows = c0;
        }
        tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 0, dram, fit->in, 1,
                                {kc, len}, {plane, 1}, {len, 1}, "input"));
        tasks.push_back(barrier());
        // Split over the slices by channels, or by elements of one plane.
        bool byChannels = kc >= 2;
        int64_t units = byChannels ? kc : len;
        int64_t pieces = std::min<int64_t>(config.slices, units);
        for (int64_t sIdx = 0; sIdx < pieces; ++sIdx) {
          int64_t u0 = units * sIdx / pieces, u1 = units * (sIdx + 1) / pieces;
          int64_t pk = byChannels ? u1 - u0 : 1;
          int64_t pl = byChannels ? len : u1 - u0;
          int64_t off = byChannels ? u0 * len : u0;
          Task t;
          t.kind = npusim::TaskKind::Slice;
          t.slice.kernel = npusim::KernelKind::Table;
          t.slice.slice = static_cast<uint32_t>(sIdx);
          t.slice.input = contiguous(fit->in + off, {1, pk, pl}, 1);
          t.slice.input.strides = {pk * len, len, 1};
          t.slice.output = t.slice.input;
          t.slice.output.address = fit->out + off;
          t.slice.lut =
              contiguous(lutBase + (byChannels ? u0 : 0) * 256, {pk, 256}, 1);
          t.name = llvm::formatv("chunk{0}.s{1}", index, sIdx).str();
          tasks.push_back(t);
        }
        tasks.push_back(barrier());
        tasks.push_back(dmaTask(npusim::TaskKind::DmaStore, 2, dram, fit->out,
                                1, {kc, len}, {plane, 1}, {len, 1}, "output"));
      }
    }
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

/// The int8 elementwise kernels (hl.add/sub/mul/min/max, hl.activation,
/// hl.table) over the flat tensor: chunks that fit LRAM (the inputs, the
/// table, the output), each split over the slices, loaded, computed and
/// stored. A folded table (`folded`, an hl.table of one 256-entry table
/// reading `op`'s int8 result; not for hl.table itself): after each
/// slice's task a table task looks its output up in place, the table is
/// loaded once, and the program binds `op`'s operands, the table, the
/// table's result.
std::optional<std::string> lowerElementwise(Operation *op,
                                            const npu::NpuConfig &config,
                                            const std::string &name,
                                            npusim::Program &program,
                                            Operation *folded = nullptr) {
  std::string layer = op->getName().getStringRef().str();
  if (auto named = dyn_cast<NameLoc>(op->getLoc()))
    layer += " '" + named.getName().str() + "'";
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  Type inElement =
      cast<ShapedType>(op->getOperand(0).getType()).getElementType();
  Type outElement = outType.getElementType();
  // hl.convert: int8 <-> bf16 (the `convert` task; the NPU has no f32).
  auto convert = dyn_cast<hl::ConvertOp>(op);
  auto signedInt8 = [](Type t) {
    return hl::formatOf(t) == hl::Format::Int8 &&
           hl::storageRange(t).first == -128;
  };
  auto bf16 = [](Type t) { return hl::formatOf(t) == hl::Format::BF16; };
  if (convert && (!outType.hasStaticShape() ||
                  !((signedInt8(inElement) && bf16(outElement)) ||
                    (bf16(inElement) && signedInt8(outElement)))))
    return layer + ": only signed int8 <-> bf16 with static shapes is "
                   "lowered (the NPU has no f32)";
  // hl.table16: the interpolated int16 table on an int16 input.
  bool table16 = isa<hl::Table16Op>(op);
  if (!convert &&
      (!outType.hasStaticShape() ||
       !(table16 ? hl::isSignedInt16(inElement) : signedInt8(inElement)) ||
       hl::formatOf(outElement) != hl::Format::Int8))
    return layer + ": only signed int8 (an hl.table16: int16 in) with static "
                   "shapes is lowered";
  // Bytes of an input and an output element.
  int64_t ebIn = bf16(inElement) || table16 ? 2 : 1,
          ebOut = bf16(outElement) ? 2 : 1;
  // Bytes of a table (the interpolated int16 table's 513 entries).
  int64_t lutBytes = table16 ? intq::kTable16Entries * 2 : 256;
  int64_t elements = outType.getNumElements();
  if (elements == 0)
    return layer + ": an empty tensor needs no NPU program";
  npusim::SliceTask proto;
  bool binary = false, table = false;
  binary = isa<hl::AddOp, hl::SubOp, hl::MulOp, hl::MinOp, hl::MaxOp>(op);
  if (auto b = dyn_cast<hl::AddOp>(op))
    binaryFields(b, npusim::KernelKind::Add, proto);
  else if (auto b = dyn_cast<hl::SubOp>(op))
    binaryFields(b, npusim::KernelKind::Sub, proto);
  else if (auto b = dyn_cast<hl::MulOp>(op))
    binaryFields(b, npusim::KernelKind::Mul, proto);
  else if (auto b = dyn_cast<hl::MinOp>(op))
    binaryFields(b, npusim::KernelKind::Min, proto);
  else if (auto b = dyn_cast<hl::MaxOp>(op))
    binaryFields(b, npusim::KernelKind::Max, proto);
  else if (auto a = dyn_cast<hl::ActivationOp>(op)) {
    proto.kernel = npusim::KernelKind::Rescale;
    proto.inputZp = a.getInputZp();
    proto.multiplier = a.getMultiplier();
    proto.shift = a.getShift();
    proto.outputZp = a.getOutputZp();
    proto.clipMin = a.getClipMin();
    proto.clipMax = a.getClipMax();
    if (a.getRounding() == "tflite")
      proto.rounding = npusim::Rounding::TFLite;
  } else if (convert) {
    proto.kernel = npusim::KernelKind::Convert;
    proto.format = ebIn == 2 ? npusim::Format::BF16 : npusim::Format::Int8;
    proto.outputFormat =
        ebOut == 2 ? npusim::Format::BF16 : npusim::Format::Int8;
    proto.scale = convert.getScale().convertToDouble();
    if (!(proto.scale > 0) || !std::isfinite(proto.scale))
      return layer + ": scale " + std::to_string(proto.scale) +
             " is not a positive finite number";
    if (ebIn == 1)
      proto.inputZp = convert.getZp();
    else
      proto.outputZp = convert.getZp();
    if (convert.getZp() < -128 || convert.getZp() > 127)
      return layer + ": zp " + std::to_string(convert.getZp()) +
             " is outside int8";
  } else if (table16) {
    table = true;
    proto.kernel = npusim::KernelKind::Table;
    proto.format = npusim::Format::Int16;
    proto.outputFormat = npusim::Format::Int8;
    if (auto e = extra::lut16Refusal(config, layer))
      return e;
  } else if (auto tableOp = dyn_cast<hl::TableOp>(op)) {
    table = true;
    proto.kernel = npusim::KernelKind::Table;
    if (config.lutEntries < 256)
      return layer + llvm::formatv(": the NPU description's lut_entries {0} "
                                   "is fewer than the 256 of an int8 table",
                                   config.lutEntries)
                         .str();
    if (cast<ShapedType>(tableOp.getTable().getType()).getRank() == 2)
      return lowerChannelTable(tableOp, config, layer, name, program);
  } else {
    return layer + ": no NPU lowering for this op";
  }
  if (binary && cast<ShapedType>(op->getOperand(1).getType()).getShape() !=
                    outType.getShape())
    return layer + ": the operands must have the output's shape";
  auto foldedTable = dyn_cast_or_null<hl::TableOp>(folded);
  if (folded &&
      (!foldedTable || table || convert ||
       foldedTable.getInput() != op->getResult(0) ||
       hl::storageRange(outElement).first != -128 ||
       !signedInt8(cast<ShapedType>(foldedTable.getOutput().getType())
                       .getElementType()) ||
       cast<ShapedType>(foldedTable.getTable().getType()).getRank() != 1 ||
       config.lutEntries < 256))
    return layer + ": internal error, no table to fold";
  // The largest chunk whose buffers all allocate.
  int64_t inputs = binary ? 2 : 1;
  int64_t chunk =
      std::min<int64_t>(elements, config.lramBytes / (inputs * ebIn + ebOut) -
                                      config.lramAlignment);
  std::optional<int64_t> in1, in2, lut, out;
  for (; chunk >= 1; chunk = chunk * 7 / 8) {
    LramAllocator alloc(config);
    lut =
        table || folded ? alloc.allocate(lutBytes) : std::optional<int64_t>(0);
    in1 = alloc.allocate(chunk * ebIn);
    in2 = binary ? alloc.allocate(chunk) : std::optional<int64_t>(0);
    out = alloc.allocate(chunk * ebOut);
    if (lut && in1 && in2 && out)
      break;
  }
  if (chunk < 1)
    return layer + ": not even one element fits LRAM";
  program = npusim::Program();
  program.name = name;
  program.config = config;
  uint64_t bytes = static_cast<uint64_t>(elements);
  program.bindings.push_back({"input", bytes * ebIn, false});
  if (binary)
    program.bindings.push_back({"input2", bytes, false});
  if (table || folded)
    program.bindings.push_back(
        {bindingName((table ? op : folded)->getOperand(1), "table"),
         static_cast<uint64_t>(lutBytes), false});
  uint32_t lutBinding = static_cast<uint32_t>(program.bindings.size()) - 1;
  uint32_t outBinding = static_cast<uint32_t>(program.bindings.size());
  program.bindings.push_back({"output", bytes * ebOut, true});
  std::vector<Task> tasks;
  if (table || folded)
    tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, lutBinding, 0, *lut, 1,
                            {lutBytes}, {1}, {1}, "table"));
  for (int64_t e0 = 0; e0 < elements; e0 += chunk) {
    int64_t n = std::min(chunk, elements - e0);
    if (e0)
      tasks.push_back(barrier());
    tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 0, e0 * ebIn, *in1, ebIn,
                            {n}, {ebIn}, {ebIn}, "input"));
    if (binary)
      tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 1, e0, *in2, 1, {n},
                              {1}, {1}, "input2"));
    tasks.push_back(barrier());
    int64_t pieces = std::min<int64_t>(config.slices, n);
    for (int64_t sIdx = 0; sIdx < pieces; ++sIdx) {
      int64_t a = n * sIdx / pieces, b = n * (sIdx + 1) / pieces;
      Task t;
      t.kind = npusim::TaskKind::Slice;
      t.slice = proto;
      t.slice.slice = static_cast<uint32_t>(sIdx);
      t.slice.input = contiguous(*in1 + a * ebIn, {b - a}, ebIn);
      if (binary)
        t.slice.input2 = contiguous(*in2 + a, {b - a}, 1);
      if (table)
        t.slice.lut = table16 ? contiguous(*lut, {intq::kTable16Entries}, 2)
                              : contiguous(*lut, {256}, 1);
      t.slice.output = contiguous(*out + a * ebOut, {b - a}, ebOut);
      t.name = llvm::formatv("chunk{0}.s{1}", e0 / chunk, sIdx).str();
      tasks.push_back(t);
      if (folded) {
        // The folded table on the same slice (its queue runs it after
        // the op): the piece's result looked up in place.
        Task look;
        look.kind = npusim::TaskKind::Slice;
        look.slice.kernel = npusim::KernelKind::Table;
        look.slice.slice = static_cast<uint32_t>(sIdx);
        look.slice.input = t.slice.output;
        look.slice.output = t.slice.output;
        look.slice.lut = contiguous(*lut, {256}, 1);
        look.name =
            llvm::formatv("chunk{0}.table.s{1}", e0 / chunk, sIdx).str();
        tasks.push_back(look);
      }
    }
    tasks.push_back(barrier());
    tasks.push_back(dmaTask(npusim::TaskKind::DmaStore, outBinding, e0 * ebOut,
                            *out, ebOut, {n}, {ebOut}, {ebOut}, "output"));
  }
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

} // namespace

bool conversion::hasNpuLowering(Operation *op) {
  return isa<hl::Conv2DOp, hl::DepthwiseConv2DOp, hl::FullyConnectedOp,
             hl::TransposeOp, hl::AddOp, hl::SubOp, hl::MulOp, hl::MinOp,
             hl::MaxOp, hl::ActivationOp, hl::TableOp, hl::Table16Op,
             hl::ConvertOp>(op) ||
         extra::handles(op);
}

std::optional<std::string> conversion::lowerHLOpToProgram(
    Operation *op, const npu::NpuConfig &config, const HLToHWOptions &options,
    const std::string &name, npusim::Program &program, LayerPlan *plan) {
  // Pools, hl.segmentation and segmented operands: LowerPools.cpp,
  // LowerSegmented.cpp.
  if (extra::handles(op))
    return extra::lower(op, config, options, name, program, plan);
  if (auto transpose = dyn_cast<hl::TransposeOp>(op)) {
    if (plan)
      *plan = LayerPlan();
    return lowerTranspose(transpose, config, name, program);
  }
  if (isa<hl::AddOp, hl::SubOp, hl::MulOp, hl::MinOp, hl::MaxOp,
          hl::ActivationOp, hl::TableOp, hl::Table16Op, hl::ConvertOp>(op)) {
    if (plan)
      *plan = LayerPlan();
    return lowerElementwise(op, config, name, program, options.foldedTable);
  }
  Layer l;
  if (auto e = readLayer(op, config, l))
    return e;
  int sets = options.doubleBuffer ? 2 : 1;
  l.residentIn = options.residentInput;
  l.reservedBelow = options.reservedBelow;
  if (options.fusedAdd) {
    auto add = dyn_cast<hl::AddOp>(options.fusedAdd);
    auto outType = cast<ShapedType>(op->getResult(0).getType());
    auto int8Like = [&](Value v) {
      auto t = cast<ShapedType>(v.getType());
      return t.getShape() == outType.getShape() &&
             hl::formatOf(t.getElementType()) == hl::Format::Int8 &&
             hl::storageRange(t.getElementType()).first == -128;
    };
    if (!add || l.kind != Kind::Conv || l.eb != 1 ||
        l.proto.format != npusim::Format::Int8 || !int8Like(add) ||
        !int8Like(add->getOperand(0)) || !int8Like(add->getOperand(1)) ||
        (add->getOperand(0) == op->getResult(0)) ==
            (add->getOperand(1) == op->getResult(0)))
      return l.name + ": internal error, no add to fuse";
    npusim::SliceTask proto;
    binaryFields(add, npusim::KernelKind::Add, proto);
    l.add = proto;
    l.addLhs = add->getOperand(0) == op->getResult(0);
  }
  // The interpolated int16 table in the activation unit: an int8
  // convolution's int16 result, looked up before the store.
  if (auto e = extra::checkTable16Fold(
          op, config, options, l.name,
          l.kind != Kind::FullyConnected && l.eb == 1 && !l.add &&
              l.proto.format == npusim::Format::Int8,
          l.lut16))
    return e;
  if (l.lut16) {
    l.lutRows = 1;
  } else if (options.foldedTable) {
    auto table = dyn_cast<hl::TableOp>(options.foldedTable);
    auto signedInt8 = [](Value v) {
      Type e = cast<ShapedType>(v.getType()).getElementType();
      return hl::formatOf(e) == hl::Format::Int8 &&
             hl::storageRange(e).first == -128;
    };
    // After a fused add the table reads the add's result.
    Value looked = l.add ? options.fusedAdd->getResult(0) : op->getResult(0);
    if (!table || l.kind == Kind::FullyConnected || l.eb != 1 ||
        table.getInput() != looked || !signedInt8(table.getInput()) ||
        !signedInt8(table.getOutput()))
      return l.name + ": internal error, no table to fold";
    auto tableType = cast<ShapedType>(table.getTable().getType());
    l.lutRows = tableType.getRank() == 2 ? l.O : 1;
  }
  Tiling tiling;
  Placement pl;
  // A resident output is NCHW-contiguous: one tile, N = 1, pieces split by
  // output channels (each piece follows the previous one).
  if (auto e = planTiling(l, config, sets, tiling, pl))
    return e;
  bool keepOutput = false;
  if (options.chainOutput) {
    // A chain's producer: the whole output stays in LRAM for its consumer.
    if (l.N != 1 || l.add ||
        planTiling(l, config, sets, tiling, pl, /*wholeOutput=*/true))
      return l.name + ": its whole output does not fit LRAM";
    keepOutput = true;
  } else if (options.keepOutputResident && l.N == 1) {
    Tiling whole;
    Placement wholePl;
    if (!planTiling(l, config, sets, whole, wholePl, true)) {
      // Keep the output whole when what the consumer saves (loading it)
      // outweighs what this layer loses (overlap of its own tiles).
      double lost = scheduleCycles(l, tilesOf(l, whole), config, sets) -
                    scheduleCycles(l, tilesOf(l, tiling), config, sets);
      double saved = static_cast<double>(l.N * l.O * l.OH * l.OW * l.eb) /
                         config.effectiveDmaBytesPerCycle() +
                     config.dmaSetupCycles;
      if (lost < saved) {
        keepOutput = true;
        tiling = whole;
        pl = wholePl;
      }
    }
  }
  std::vector<Tile> tiles = tilesOf(l, tiling);
  Buffers buffers = buffersOf(l, tiles);

  program = npusim::Program();
  program.name = name;
  program.config = config;
  int64_t inBytes = l.N * l.C * l.H * l.W * l.eb;
  int64_t outBytes = l.N * l.O * l.OH * l.OW * l.eb;
  program.bindings = {{"input", static_cast<uint64_t>(inBytes), false},
                      {bindingName(op->getOperand(1), "weights"),
                       static_cast<uint64_t>(l.blocks() * l.blockBytes), false},
                      {bindingName(op->getOperand(2), "scale_bias"),
                       static_cast<uint64_t>(l.O * l.sbRowBytes), false},
                      {"output", static_cast<uint64_t>(outBytes), true}};
  // A fused add: binding 3 is its other operand, 4 its result. A folded
  // table: binding 3 is the table, 4 the table's result. Both (the table
  // after the add): 3 the residual, 4 the table, 5 the table's result.
  uint32_t lutBinding = l.add ? 4 : 3;
  if (l.lutRows)
    program.bindings.insert(
        program.bindings.begin() + 3,
        {bindingName(options.foldedTable->getOperand(1), "table"),
         static_cast<uint64_t>(l.lutBytes()), false});
  if (l.add)
    program.bindings.insert(
        program.bindings.begin() + 3,
        {"residual", static_cast<uint64_t>(outBytes), false});
  uint32_t outBinding = 3 + (l.add ? 1 : 0) + (l.lutRows ? 1 : 0);
  if (plan) {
    *plan = {static_cast<int64_t>((l.OH + tiling.rowsPerTile - 1) /
                                  tiling.rowsPerTile),
             (l.blocks() + tiling.blocksPerTile - 1) / tiling.blocksPerTile,
             pl.used, std::nullopt};
    // The output set of the last tile: it writes the output when the
    // reduction is tiled.
    // A fused add's sum: after the output in its buffer.
    if (keepOutput)
      plan->residentOutput =
          pl.output[(tiles.size() - 1) % sets] + (l.add ? outBytes : 0);
  }

  std::vector<Task> tasks;
  bool tiledK = reductionTiled(l, tiling);
  // What each buffer set holds: weights (c0, c1, k0, k1), scale_bias
  // (c0, c1), input (channels, rows).
  std::vector<int64_t> heldW[2], heldSb[2], heldIn[2], heldLut[2];
  // The pieces of each output tile, the same for all its reduction tiles
  // (their int32 partials stay where they are).
  std::map<std::vector<int64_t>, std::vector<Piece>> piecesOf;
  auto piecesFor = [&](const Tile &t) -> const std::vector<Piece> & {
    std::vector<int64_t> key{t.c0, t.c1, t.r0, t.r1};
    auto it = piecesOf.find(key);
    if (it == piecesOf.end())
      it = piecesOf.emplace(key, splitTile(l, t, config, keepOutput)).first;
    return it->second;
  };
  // A fused add's residual tile: after the output tile in its buffer.
  auto residualAddr = [&](size_t ti) {
    const Tile &t = tiles[ti];
    return pl.output[ti % sets] +
           l.N * (t.c1 - t.c0) * (t.r1 - t.r0) * l.OW * l.eb;
  };
  // Moves tile `ti`'s part of the output-shaped binding `binding` between
  // DRAM and LRAM from `lram`, piece by piece (the pieces' NCHW boxes lie
  // one after the other).
  auto movePieces = [&](npusim::TaskKind kind, uint32_t binding, size_t ti,
                        int64_t lram, const char *what) {
    for (const Piece &p : piecesFor(tiles[ti])) {
      int64_t pc = p.c1 - p.c0, pr = p.r1 - p.r0;
      tasks.push_back(
          dmaTask(kind, binding, ((p.c0 * l.OH) + p.r0) * l.OW * l.eb, lram,
                  l.eb, {l.N, pc, pr * l.OW},
                  {l.O * l.OH * l.OW * l.eb, l.OH * l.OW * l.eb, l.eb},
                  {pc * pr * l.OW * l.eb, pr * l.OW * l.eb, l.eb}, what));
      lram += l.N * pc * pr * l.OW * l.eb;
    }
  };
  auto loads = [&](size_t ti) {
    const Tile &t = tiles[ti];
    int set = static_cast<int>(ti % sets);
    int wSet = buffers.weightsShared ? 0 : set;
    int sbSet = buffers.scaleBiasShared ? 0 : set;
    int inSet = buffers.inputShared ? 0 : set;
    std::vector<int64_t> wKey{t.c0, t.c1, t.k0, t.k1}, sbKey{t.c0, t.c1};
    if (heldW[wSet] != wKey) {
      int64_t nb = (t.c1 - t.c0 + l.B - 1) / l.B;
      if (!tiledK) {
        tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 1,
                                (t.c0 / l.B) * l.blockBytes, pl.weights[wSet],
                                1, {nb * l.blockBytes}, {1}, {1}, "weights"));
      } else {
        // Input channels [k0, k1) of each block: a strided gather.
        int64_t cb = l.blockChannelBytes(), part = (t.k1 - t.k0) * cb;
        tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 1,
                                (t.c0 / l.B) * l.blockBytes + t.k0 * cb,
                                pl.weights[wSet], 1, {nb, part},
                                {l.blockBytes, 1}, {part, 1}, "weights"));
      }
      heldW[wSet] = wKey;
    }
    if (heldSb[sbSet] != sbKey) {
      tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 2, t.c0 * l.sbRowBytes,
                              pl.scaleBias[sbSet], 1,
                              {(t.c1 - t.c0) * l.sbRowBytes}, {1}, {1},
                              "scale_bias"));
      heldSb[sbSet] = sbKey;
    }
    // A folded table: the tile's rows (per channel, with the scale_bias
    // rows) or the one table, once.
    int lutSet = !l.lutPerChannel() || buffers.scaleBiasShared ? 0 : set;
    std::vector<int64_t> lutKey =
        l.lutPerChannel() ? sbKey : std::vector<int64_t>{};
    if (l.lutRows && (heldLut[lutSet] != lutKey || ti == 0)) {
      int64_t bytes = l.lutPerChannel() ? (t.c1 - t.c0) * 256 : l.lutBytes();
      if (ti == 0 || l.lutPerChannel())
        tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, lutBinding,
                                l.lutPerChannel() ? t.c0 * 256 : 0,
                                pl.lut[lutSet], 1, {bytes}, {1}, {1}, "table"));
      heldLut[lutSet] = lutKey;
    }
    RowWindow w = rowWindow(l, t.r0, t.r1);
    auto [ci0, ci1] = inputChannels(l, t);
    std::vector<int64_t> inKey{ci0, ci1, w.i0, w.i1};
    if (heldIn[inSet] != inKey && !l.residentIn) {
      int64_t rows = w.i1 - w.i0, plane = rows * l.W * l.eb;
      tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 0,
                              (ci0 * l.H + w.i0) * l.W * l.eb, pl.input[inSet],
                              l.eb, {l.N, ci1 - ci0, rows * l.W},
                              {l.C * l.H * l.W * l.eb, l.H * l.W * l.eb, l.eb},
                              {(ci1 - ci0) * plane, plane, l.eb}, "input"));
      heldIn[inSet] = inKey;
    }
    if (l.add && lastK(l, t))
      movePieces(npusim::TaskKind::DmaLoad, 3, ti, residualAddr(ti),
                 "residual");
  };
  auto compute = [&](size_t ti) {
    const Tile &t = tiles[ti];
    int set = static_cast<int>(ti % sets);
    int wSet = buffers.weightsShared ? 0 : set;
    int sbSet = buffers.scaleBiasShared ? 0 : set;
    int inSet = buffers.inputShared ? 0 : set;
    const std::vector<Piece> &pieces = piecesFor(t);
    int64_t outAddr = pl.output[set], accAddr = pl.acc;
    for (size_t s = 0; s < pieces.size(); ++s) {
      const Piece &p = pieces[s];
      Piece pk = p;
      pk.k0 = t.k0;
      pk.k1 = t.k1;
      int lutSet = !l.lutPerChannel() || buffers.scaleBiasShared ? 0 : set;
      Task task =
          sliceTask(l, t, pk, pl.input[inSet], pl.weights[wSet],
                    pl.scaleBias[sbSet], outAddr, static_cast<uint32_t>(s),
                    tiledK ? std::optional<int64_t>(accAddr) : std::nullopt,
                    pl.lut[lutSet]);
      task.name = tiledK ? llvm::formatv("tile{0}.k{1}.s{2}", ti, t.k0, s).str()
                         : llvm::formatv("tile{0}.s{1}", ti, s).str();
      fastestVectorMode(task, config);
      tasks.push_back(task);
      int64_t elems = l.N * (p.c1 - p.c0) * (p.r1 - p.r0) * l.OW;
      if (l.add && lastK(l, t)) {
        // The add on the same slice (its queue runs it after the conv):
        // the piece's output and residual in, the sum over the residual.
        int64_t res = residualAddr(ti) + (outAddr - pl.output[set]);
        Task add;
        add.kind = npusim::TaskKind::Slice;
        add.slice = *l.add;
        add.slice.slice = static_cast<uint32_t>(s);
        add.slice.input = contiguous(l.addLhs ? outAddr : res, {elems}, 1);
        add.slice.input2 = contiguous(l.addLhs ? res : outAddr, {elems}, 1);
        add.slice.output = contiguous(res, {elems}, 1);
        add.name = llvm::formatv("tile{0}.add.s{1}", ti, s).str();
        fastestVectorMode(add, config);
        tasks.push_back(add);
        if (l.lutRows) {
          // A folded table after the add: the sum looked up in place (the
          // piece's channels' rows of the tile's table rows).
          int64_t pc = p.c1 - p.c0, plane = (p.r1 - p.r0) * l.OW;
          Task look;
          look.kind = npusim::TaskKind::Slice;
          look.slice.kernel = npusim::KernelKind::Table;
          look.slice.slice = static_cast<uint32_t>(s);
          look.slice.input = contiguous(res, {l.N, pc, plane}, 1);
          look.slice.output = look.slice.input;
          look.slice.lut =
              l.lutPerChannel()
                  ? contiguous(pl.lut[lutSet] + (p.c0 - t.c0) * 256, {pc, 256},
                               1)
                  : contiguous(pl.lut[lutSet], {256}, 1);
          look.name = llvm::formatv("tile{0}.table.s{1}", ti, s).str();
          fastestVectorMode(look, config);
          tasks.push_back(look);
        }
      }
      outAddr += elems * l.eb;
      accAddr += elems * 4;
    }
  };
  auto store = [&](size_t ti) {
    if (!lastK(l, tiles[ti]) || options.chainOutput)
      return;
    movePieces(npusim::TaskKind::DmaStore, outBinding, ti,
               l.add ? residualAddr(ti) : pl.output[ti % sets], "output");
  };

  // A fused add's residual load into tile ti+1's output buffer comes after
  // tile ti-1's store from it (one DMA queue, in order).
  extra::emitTileLoop(tasks, tiles.size(), sets,
                      /*storeBeforeLoads=*/l.add.has_value(), loads, compute,
                      store);
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return l.name + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}
