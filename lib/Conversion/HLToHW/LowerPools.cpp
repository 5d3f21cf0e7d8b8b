//===- LowerPools.cpp - pools and segmented window ops as NPU programs ----===//
//
// hl.maxpool / hl.avgpool (plain or over a segmented input) and the
// segmented int8 hl.conv2d / hl.depthwise_conv2d (`segments = s > 1`: the
// input holds the s^2 phases of hl.segmentation), through one window tiler
// (docs/npu-sim.md, "HL op -> slice task fields"):
//
//  - a plain pool is one max_pool / avg_pool task per slice piece;
//  - over a segmented input, each phase (a, b) that holds taps in both dims
//    is walked at stride 1: the task reads the phase plane from its first
//    tap's offset with dilation `q` over the phase's taps. A conv2d /
//    depthwise chains its phase tasks through int32 partials (the first
//    adds the bias, the last requantizes); a max pool writes one int8
//    temporary per phase and combines them with elementwise `max` tasks
//    (identity rescale).
//
// Tiles are output channels (whole weight blocks for the MAC kernels, any
// count for pools) by output rows with the input rows their windows read;
// the plan is the fitting tiling the estimate finds fastest (DMA bytes and
// setups, the slice tasks under npusim::taskCost), double-buffered on
// request. A result with `segment_output` is stored phase by phase
// (LowerSegmented.cpp).
//
//===----------------------------------------------------------------------===//

#include "LowerExtra.h"

#include "strata/NpuSim/Simulator.h"
#include "strata/Support/IntegerTable16.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace strata;
using namespace strata::conversion;
using namespace strata::conversion::extra;
using npusim::Task;

namespace {

enum class Kind { MaxPool, AvgPool, Conv, Depthwise };

struct Phase {
  int64_t a, b;
  PhaseTaps th, tw;
};

/// A window layer in the tiler's terms.
struct WinLayer {
  Kind kind = Kind::MaxPool;
  std::string name;
  int64_t N = 1, C = 1, O = 1, OH = 1, OW = 1;
  int64_t s = 1;        ///< input segments (1: plain)
  int64_t H = 1, W = 1; ///< input plane (segmented: one phase, Hs x Ws)
  int64_t KH = 1, KW = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pad[4] = {0, 0, 0, 0};
  int64_t eb = 1;
  int64_t unit = 1; ///< output channels per tiling unit (the weight block)
  int64_t B = 4, blockBytes = 0, sbRowBytes = 0, groups = 1;
  std::vector<Phase> phases; ///< segmented: the phases with taps
  npusim::SliceTask proto;
  OutputLayout out;
  /// An hl.table folded into the int8 MAC's activation unit (the task
  /// writing int8 looks its result up): 0 none, 1 one table, `O` one per
  /// output channel (a tile's rows loaded with its scale_bias rows).
  int64_t lutRows = 0;
  bool lutPerChannel() const { return lutRows > 1; }
  /// The folded table is an hl.table16 (lutRows 1): the int16
  /// requantization looked up in the interpolated table (513 int16
  /// entries).
  bool lut16 = false;
  /// Bytes of the whole folded table.
  int64_t lutBytes() const {
    return lut16 ? intq::kTable16Entries * 2 : lutRows * 256;
  }

  bool mac() const { return kind == Kind::Conv || kind == Kind::Depthwise; }
  int64_t units() const { return (O + unit - 1) / unit; }
  /// Whether tiles may split the output channels (not a grouped conv).
  bool channelSplit() const { return kind != Kind::Conv || groups == 1; }
  bool chained() const { return s > 1 && phases.size() > 1 && eb == 1; }
  /// bf16 MAC kernels over segmented inputs: a transpose task puts each
  /// tile's phases back into the padded image, then the kernel runs with
  /// its stride (bf16 phases cannot chain: no f32 partials, and HL sums in
  /// the order ic, kh, kw across phases).
  bool reinterleaved() const { return s > 1 && mac() && eb == 2; }
  /// Phases a tile loads: only the one holding every tap when there is one
  /// (a 1x1 strided conv reads phase (0, 0): a quarter of the bytes at
  /// stride 2), else all s^2 (they lie one after the other per channel).
  int64_t loadedPhases() const {
    return s > 1 && phases.size() == 1 && !reinterleaved() ? 1 : s * s;
  }
  /// The first loaded phase and the LRAM slot of phase `phase`.
  int64_t firstLoadedPhase() const {
    return loadedPhases() == 1 && s > 1 ? phases[0].a * s + phases[0].b : 0;
  }
  int64_t slotOf(int64_t phase) const { return phase - firstLoadedPhase(); }
};

struct Tile {
  int64_t c0, c1, r0, r1;
};

/// Input rows [i0, i1) an output row range reads, and its own padding
/// (plain inputs; segmented: every phase from row r0).
struct Rows {
  int64_t i0, i1, padTop, padBottom;
};

Rows rowsOf(const WinLayer &l, int64_t r0, int64_t r1) {
  if (l.s > 1)
    return {r0, std::min(l.H, r1 + (l.dh * (l.KH - 1)) / l.s), 0, 0};
  int64_t lo = r0 * l.sh - l.pad[0];
  int64_t hiEnd = (r1 - 1) * l.sh - l.pad[0] + l.dh * (l.KH - 1) + 1;
  int64_t i0 = std::clamp<int64_t>(lo, 0, l.H - 1);
  int64_t i1 = std::clamp<int64_t>(hiEnd, i0 + 1, l.H);
  return {i0, i1, std::max<int64_t>(0, i0 - lo),
          std::max<int64_t>(0, hiEnd - i1)};
}

/// Input channels a tile reads.
std::pair<int64_t, int64_t> inChannels(const WinLayer &l, const Tile &t) {
  if (l.kind == Kind::Conv)
    return {0, l.C};
  return {t.c0, t.c1};
}

struct Bytes {
  int64_t input = 0, weights = 0, scaleBias = 0, output = 0, temp = 0, lut = 0;
};

Bytes bytesOf(const WinLayer &l, const Tile &t) {
  Rows r = rowsOf(l, t.r0, t.r1);
  auto [ci0, ci1] = inChannels(l, t);
  int64_t outElems = l.N * (t.c1 - t.c0) * (t.r1 - t.r0) * l.OW;
  Bytes b;
  b.input = l.N * (ci1 - ci0) * l.loadedPhases() * (r.i1 - r.i0) * l.W * l.eb;
  b.output = outElems * l.eb;
  if (l.mac()) {
    b.weights = ((t.c1 - t.c0 + l.B - 1) / l.B) * l.blockBytes;
    b.scaleBias = (t.c1 - t.c0) * l.sbRowBytes;
    b.lut = l.lutPerChannel() ? (t.c1 - t.c0) * 256 : l.lutBytes();
    b.temp = l.chained() ? outElems * 4 : 0; // int32 partials
    if (l.reinterleaved())
      b.temp = b.input; // the tile's rows of the padded image
  } else if (l.chained()) {
    b.temp = 2 * outElems * l.eb; // a phase's max, the running max
  }
  return b;
}

std::vector<Tile> tilesOf(const WinLayer &l, int64_t unitsPerTile,
                          int64_t rows) {
  std::vector<Tile> tiles;
  int64_t step = unitsPerTile * l.unit;
  for (int64_t c0 = 0; c0 < l.O; c0 += step)
    for (int64_t r0 = 0; r0 < l.OH; r0 += rows)
      tiles.push_back(
          {c0, std::min(l.O, c0 + step), r0, std::min(l.OH, r0 + rows)});
  return tiles;
}

/// LRAM addresses, per buffer set.
struct Placement {
  int64_t input[2], weights[2], scaleBias[2], output[2], temp = 0;
  int64_t lut[2] = {0, 0}; ///< a folded table (per channel: as scale_bias)
  int64_t used = 0;
  bool weightsShared = true, inputShared = true;
};

std::optional<Placement> place(const WinLayer &l,
                               const std::vector<Tile> &tiles, int sets,
                               const npu::NpuConfig &config) {
  Bytes max;
  for (const Tile &t : tiles) {
    Bytes b = bytesOf(l, t);
    max.input = std::max(max.input, b.input);
    max.weights = std::max(max.weights, b.weights);
    max.scaleBias = std::max(max.scaleBias, b.scaleBias);
    max.output = std::max(max.output, b.output);
    max.temp = std::max(max.temp, b.temp);
    max.lut = std::max(max.lut, b.lut);
  }
  Placement p;
  p.weightsShared = tiles.front().c1 - tiles.front().c0 == l.O;
  p.inputShared = tiles.front().r1 - tiles.front().r0 == l.OH &&
                  (l.kind == Kind::Conv || p.weightsShared);
  LramAllocator alloc(config);
  auto put = [&](int64_t *dst, int64_t bytes, bool shared) {
    dst[0] = dst[1] = 0;
    if (bytes == 0)
      return true;
    for (int s = 0; s < sets; ++s) {
      if (s > 0 && shared) {
        dst[1] = dst[0];
        continue;
      }
      std::optional<int64_t> a = alloc.allocate(bytes);
      if (!a)
        return false;
      dst[s] = *a;
    }
    if (sets == 1)
      dst[1] = dst[0];
    return true;
  };
  if (!put(p.weights, max.weights, p.weightsShared) ||
      !put(p.scaleBias, max.scaleBias, p.weightsShared) ||
      !put(p.input, max.input, p.inputShared) ||
      !put(p.output, max.output, false) ||
      !put(p.lut, max.lut, p.weightsShared || !l.lutPerChannel()))
    return std::nullopt;
  if (max.temp) {
    std::optional<int64_t> a = alloc.allocate(max.temp);
    if (!a)
      return std::nullopt;
    p.temp = *a;
  }
  p.used = alloc.used();
  return p;
}

/// A slice piece: output channels [c0, c1), rows [r0, r1) of a tile.
using Piece = Tile;

/// The window operand of the input over rows from `row` (absolute, of the
/// tile's loaded rows [tileRow0, tileRow1)), phase `phase`, column `col`,
/// for the piece's input channels.
npusim::Operand inputView(const WinLayer &l, const Tile &t, const Piece &p,
                          int64_t inAddr, int64_t phase, int64_t row,
                          int64_t col) {
  Rows tr = rowsOf(l, t.r0, t.r1);
  auto [ci0, ci1] = inChannels(l, t);
  int64_t tileRows = tr.i1 - tr.i0;
  int64_t planeBytes = tileRows * l.W * l.eb;
  int64_t chanStride = l.loadedPhases() * planeBytes;
  int64_t pc0 = l.kind == Kind::Conv ? 0 : p.c0 - ci0;
  int64_t pcn = l.kind == Kind::Conv ? ci1 - ci0 : p.c1 - p.c0;
  npusim::Operand o;
  o.address = inAddr + pc0 * chanStride + l.slotOf(phase) * planeBytes +
              (row - tr.i0) * l.W * l.eb + col * l.eb;
  o.dims = {l.N, pcn, tr.i1 - row, l.W - col};
  o.strides = {(ci1 - ci0) * chanStride, chanStride, l.W * l.eb, l.eb};
  return o;
}

/// The slice tasks of one piece (on slice `slice`): its output contiguous
/// [N, pc, pr, OW] at `outAddr`, its temporaries at `tempAddr`.
std::vector<Task> pieceTasks(const WinLayer &l, const Tile &t, const Piece &p,
                             const Placement &pl, int set, int64_t outAddr,
                             int64_t tempAddr, uint32_t slice,
                             const std::string &label) {
  int wSet = pl.weightsShared ? 0 : set, inSet = pl.inputShared ? 0 : set;
  int64_t pc = p.c1 - p.c0, pr = p.r1 - p.r0;
  std::vector<int64_t> outDims = {l.N, pc, pr, l.OW};
  int64_t outElems = l.N * pc * pr * l.OW;
  std::vector<Task> tasks;
  auto task = [&](const std::string &suffix) {
    Task k;
    k.kind = npusim::TaskKind::Slice;
    k.slice = l.proto;
    k.slice.slice = slice;
    k.name = label + suffix;
    return k;
  };
  if (l.s == 1) {
    Task k = task("");
    Rows pw = rowsOf(l, p.r0, p.r1);
    k.slice.input = inputView(l, t, p, pl.input[inSet], 0, pw.i0, 0);
    k.slice.input.dims[2] = pw.i1 - pw.i0;
    k.slice.pad = {pw.padTop, l.pad[1], pw.padBottom, l.pad[3]};
    k.slice.output = contiguous(outAddr, outDims, l.eb);
    tasks.push_back(k);
    return tasks;
  }
  int64_t blockOff = (p.c0 - t.c0) / l.B;
  int64_t pBlocks = (pc + l.B - 1) / l.B;
  if (l.reinterleaved()) {
    // The kernel over the tile's image rows (at `tempAddr` for the whole
    // tile, written by reinterleaveTask): output row y reads image rows
    // from s * y; rows past the image read nothing, as HL's taps past a
    // phase.
    Rows tr = rowsOf(l, t.r0, t.r1);
    auto [ci0, ci1] = inChannels(l, t);
    int64_t imgRows = (tr.i1 - tr.i0) * l.s, imgCols = l.W * l.s;
    int64_t chan = imgRows * imgCols * l.eb;
    int64_t row0 = (p.r0 - t.r0) * l.s;
    Task k = task("");
    npusim::SliceTask &s = k.slice;
    int64_t pc0 = l.kind == Kind::Conv ? 0 : p.c0 - ci0;
    int64_t pcn = l.kind == Kind::Conv ? ci1 - ci0 : pc;
    s.input.address = tempAddr + pc0 * chan + row0 * imgCols * l.eb;
    s.input.dims = {l.N, pcn, imgRows - row0, imgCols};
    s.input.strides = {(ci1 - ci0) * chan, chan, imgCols * l.eb, l.eb};
    int64_t needH = (pr - 1) * l.sh + l.dh * (l.KH - 1) + 1;
    int64_t needW = (l.OW - 1) * l.sw + l.dw * (l.KW - 1) + 1;
    s.pad = {0, 0, std::max<int64_t>(0, needH - (imgRows - row0)),
             std::max<int64_t>(0, needW - imgCols)};
    int64_t wAddr = pl.weights[wSet] + blockOff * l.blockBytes;
    s.weights =
        l.kind == Kind::Depthwise
            ? contiguous(wAddr, {pBlocks, l.KH, l.KW, l.B}, l.eb)
            : contiguous(wAddr, {pBlocks, l.C / l.groups, l.KH, l.KW, l.B},
                         l.eb);
    s.scaleBias =
        contiguous(pl.scaleBias[wSet] + (p.c0 - t.c0) * l.sbRowBytes, {pc}, 4);
    s.output = contiguous(outAddr, outDims, l.eb);
    tasks.push_back(k);
    return tasks;
  }
  size_t n = l.phases.size();
  // Max pool: the running max alternates between the output and the
  // second temporary so that it ends in the output.
  int64_t tempA = tempAddr, tempB = tempAddr + outElems * l.eb;
  int64_t running = (n - 1) % 2 == 0 ? outAddr : tempB;
  for (size_t i = 0; i < n; ++i) {
    const Phase &ph = l.phases[i];
    Task k = task(llvm::formatv(".p{0}", ph.a * l.s + ph.b).str());
    npusim::SliceTask &s = k.slice;
    s.input = inputView(l, t, p, pl.input[inSet], ph.a * l.s + ph.b,
                        p.r0 + ph.th.o0, ph.tw.o0);
    int64_t rows = s.input.dims[2], cols = s.input.dims[3];
    s.stride = {1, 1};
    s.dilation = {ph.th.q, ph.tw.q};
    s.pad = {
        0, 0,
        std::max<int64_t>(0, pr - 1 + ph.th.q * (ph.th.count - 1) + 1 - rows),
        std::max<int64_t>(0,
                          l.OW - 1 + ph.tw.q * (ph.tw.count - 1) + 1 - cols)};
    if (!l.mac()) {
      s.kernelSize = {ph.th.count, ph.tw.count};
      bool first = i == 0;
      s.output = contiguous(first ? running : tempA, outDims, l.eb);
      tasks.push_back(k);
      if (first)
        continue;
      // running = max(running, phase)
      int64_t next = running == outAddr ? tempB : outAddr;
      Task m = task(llvm::formatv(".max{0}", i).str());
      m.slice = npusim::SliceTask();
      m.slice.slice = slice;
      m.slice.kernel = npusim::KernelKind::Max;
      m.slice.inputMultiplier = m.slice.input2Multiplier = 1;
      m.slice.multiplier = 1;
      m.slice.input = contiguous(running, outDims, l.eb);
      m.slice.input2 = contiguous(tempA, outDims, l.eb);
      m.slice.output = contiguous(next, outDims, l.eb);
      tasks.push_back(m);
      running = next;
      continue;
    }
    int64_t wBase = pl.weights[wSet] + blockOff * l.blockBytes;
    int64_t tap = l.B * l.eb;
    if (l.kind == Kind::Depthwise) {
      s.weights.address = wBase + (ph.th.k0 * l.KW + ph.tw.k0) * tap;
      s.weights.dims = {pBlocks, ph.th.count, ph.tw.count, l.B};
      s.weights.strides = {l.blockBytes, ph.th.step * l.KW * tap,
                           ph.tw.step * tap, l.eb};
    } else {
      s.weights.address = wBase + (ph.th.k0 * l.KW + ph.tw.k0) * tap;
      s.weights.dims = {pBlocks, l.C / l.groups, ph.th.count, ph.tw.count, l.B};
      s.weights.strides = {l.blockBytes, l.KH * l.KW * tap,
                           ph.th.step * l.KW * tap, ph.tw.step * tap, l.eb};
    }
    bool first = i == 0, last = i + 1 == n;
    int64_t sbAddr = pl.scaleBias[wSet] + (p.c0 - t.c0) * l.sbRowBytes;
    // The verifier wants the rows on every int8 MAC task; the middle ones
    // read neither bias nor requantization.
    s.scaleBias = contiguous(sbAddr, {pc, l.sbRowBytes / 4}, 4);
    if (!first)
      s.partial = contiguous(tempAddr, outDims, 4);
    if (last) {
      s.output = contiguous(outAddr, outDims, l.eb);
      // A folded table: the piece's rows, or the one table.
      int lutSet = pl.weightsShared || !l.lutPerChannel() ? 0 : set;
      if (l.lut16)
        s.lut = contiguous(pl.lut[lutSet], {intq::kTable16Entries}, 2);
      else if (l.lutRows)
        s.lut =
            l.lutPerChannel()
                ? contiguous(pl.lut[lutSet] + (p.c0 - t.c0) * 256, {pc, 256}, 1)
                : contiguous(pl.lut[lutSet], {256}, 1);
    } else {
      s.outputFormat = npusim::Format::Int32;
      s.output = contiguous(tempAddr, outDims, 4);
      // Raw partial sums: the int16 requantization's zero point and clip
      // (an interpolated table's) are the last task's.
      if (l.lut16) {
        s.outputZp = 0;
        s.clipMin = -128;
        s.clipMax = 127;
      }
    }
    tasks.push_back(k);
  }
  return tasks;
}

/// The transpose putting a tile's loaded phases `[N, C, s, s, rows, Ws]`
/// back into the padded image `[N, C, rows, s, Ws, s]` at `tempAddr`.
Task reinterleaveTask(const WinLayer &l, const Tile &t, const Placement &pl,
                      int set, int64_t tempAddr, const std::string &label) {
  Rows tr = rowsOf(l, t.r0, t.r1);
  auto [ci0, ci1] = inChannels(l, t);
  int64_t rows = tr.i1 - tr.i0, s = l.s;
  Task k;
  k.kind = npusim::TaskKind::Slice;
  k.name = label + ".image";
  npusim::SliceTask &x = k.slice;
  x.kernel = npusim::KernelKind::Transpose;
  x.format = x.outputFormat = l.proto.format;
  x.input = contiguous(pl.input[pl.inputShared ? 0 : set],
                       {l.N, ci1 - ci0, s, s, rows, l.W}, l.eb);
  x.perm = {0, 1, 4, 2, 5, 3};
  x.output = contiguous(tempAddr, {l.N, ci1 - ci0, rows, s, l.W, s}, l.eb);
  return k;
}

int64_t piecesCycles(const std::vector<Task> &tasks,
                     const npu::NpuConfig &config) {
  int64_t c = 0;
  for (Task t : tasks)
    c += fastestVectorMode(t, config);
  return c;
}

/// The pieces of a tile over the slices: by channel units or by rows,
/// whichever the cycle model finds faster (its slowest slice).
std::vector<Piece> splitTile(const WinLayer &l, const Tile &t,
                             const Placement &pl,
                             const npu::NpuConfig &config) {
  auto split = [&](bool byChannels) {
    std::vector<Piece> pieces;
    int64_t units =
        byChannels ? (t.c1 - t.c0 + l.unit - 1) / l.unit : t.r1 - t.r0;
    int64_t n = std::min<int64_t>(config.slices, units);
    for (int64_t i = 0; i < n; ++i) {
      int64_t u0 = units * i / n, u1 = units * (i + 1) / n;
      if (byChannels)
        pieces.push_back({t.c0 + u0 * l.unit,
                          std::min(t.c1, t.c0 + u1 * l.unit), t.r0, t.r1});
      else
        pieces.push_back({t.c0, t.c1, t.r0 + u0, t.r0 + u1});
    }
    return pieces;
  };
  auto cost = [&](const std::vector<Piece> &pieces) {
    int64_t worst = 0;
    for (const Piece &p : pieces)
      worst = std::max(
          worst, piecesCycles(pieceTasks(l, t, p, pl, 0, 0, 0, 0, ""), config));
    return worst;
  };
  bool channelsOk =
      l.channelSplit() && (t.c1 - t.c0 + l.unit - 1) / l.unit >= 2;
  bool rowsOk = t.r1 - t.r0 >= 2;
  if (!channelsOk && !rowsOk)
    return {t};
  if (!rowsOk)
    return split(true);
  if (!channelsOk)
    return split(false);
  std::vector<Piece> byC = split(true), byR = split(false);
  return cost(byR) < cost(byC) ? byR : byC;
}

/// Estimated cycles of a tiling's schedule (as LowerKernels.cpp's).
double scheduleCycles(const WinLayer &l, const std::vector<Tile> &tiles,
                      const Placement &pl, int sets,
                      const npu::NpuConfig &config) {
  auto dma = [&](double bytes, int descriptors) {
    return dmaCycles(bytes, descriptors, config);
  };
  std::map<std::vector<int64_t>, int64_t> computeOf;
  std::vector<int64_t> lastW, lastIn;
  int storeDescriptors = static_cast<int>(
      config.slices * (l.out.s * l.out.s)); // one per piece and phase
  return scheduleEstimate(tiles.size(), sets, [&](size_t i) {
    TileCycles c;
    const Tile &t = tiles[i];
    Bytes b = bytesOf(l, t);
    std::vector<int64_t> wKey{t.c0, t.c1};
    if (l.mac() && wKey != lastW) {
      c.load += dma(b.weights, 1) + dma(b.scaleBias, 1);
      if (b.lut && (l.lutPerChannel() || i == 0))
        c.load += dma(b.lut, 1);
      lastW = wKey;
    }
    Rows r = rowsOf(l, t.r0, t.r1);
    auto ci = inChannels(l, t);
    std::vector<int64_t> inKey{ci.first, ci.second, r.i0, r.i1};
    if (inKey != lastIn) {
      c.load += dma(b.input, static_cast<int>(l.N));
      lastIn = inKey;
    }
    c.store = dma(b.output, storeDescriptors);
    std::vector<int64_t> shape{t.c1 - t.c0, t.r1 - t.r0};
    auto it = computeOf.find(shape);
    if (it == computeOf.end()) {
      int64_t worst = 0;
      for (const Piece &p : splitTile(l, t, pl, config))
        worst = std::max(
            worst,
            piecesCycles(pieceTasks(l, t, p, pl, 0, 0, 0, 0, ""), config));
      if (l.reinterleaved()) {
        Task image = reinterleaveTask(l, t, pl, 0, 0, "");
        worst += fastestVectorMode(image, config);
      }
      it = computeOf.emplace(shape, worst).first;
    }
    c.compute = static_cast<double>(it->second);
    return c;
  });
}

/// The fitting tiling the estimate finds fastest, or the error naming the
/// layer and the smallest tile's buffers.
std::optional<std::string> planTiles(const WinLayer &l, int sets,
                                     const npu::NpuConfig &config,
                                     std::vector<Tile> &best,
                                     Placement &bestPl) {
  double bestCost = -1;
  int64_t maxUnits = l.units(), minUnits = l.channelSplit() ? 1 : maxUnits;
  for (int64_t k = maxUnits; k >= minUnits; --k) {
    if (k < maxUnits && (maxUnits + k - 1) / k == (maxUnits + k) / (k + 1))
      continue; // same tile count as k + 1
    int64_t lo = 1, hi = l.OH, fit = 0;
    while (lo <= hi) {
      int64_t mid = (lo + hi) / 2;
      if (place(l, tilesOf(l, k, mid), sets, config)) {
        fit = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (!fit)
      continue;
    for (int64_t parts : {1, 2, 4, 8}) {
      int64_t rows = std::min(fit, (l.OH + parts - 1) / parts);
      if (parts > 1 && rows == fit)
        continue;
      std::vector<Tile> tiles = tilesOf(l, k, rows);
      std::optional<Placement> p = place(l, tiles, sets, config);
      if (!p)
        continue;
      double cost = scheduleCycles(l, tiles, *p, sets, config);
      if (bestCost < 0 || cost < bestCost) {
        bestCost = cost;
        best = tiles;
        bestPl = *p;
      }
      if (sets == 1)
        break;
    }
    // Fewer units per tile only helps when more rows fit; stop once a
    // tiling with every row fits.
    if (fit == l.OH && bestCost >= 0 && sets == 1)
      break;
  }
  if (bestCost >= 0)
    return std::nullopt;
  Tile smallest{0, std::min(l.O, minUnits * l.unit), 0, 1};
  Bytes b = bytesOf(l, smallest);
  std::string text =
      llvm::formatv(
          "layer {0} does not fit LRAM ({1} bytes, alignment {2}{3}): "
          "even the smallest tile (1 output row, {4} output "
          "channel(s)) needs input {5}, output {6}",
          l.name, config.lramBytes, config.lramAlignment,
          sets == 2 ? ", double-buffered" : "", smallest.c1, b.input, b.output)
          .str();
  if (b.weights)
    text +=
        llvm::formatv(", weights {0}, scale_bias {1}", b.weights, b.scaleBias)
            .str();
  if (b.temp)
    text += ", temporaries " + std::to_string(b.temp);
  return text;
}

/// An int8 task's per-tensor requantization fields outside the ISA's
/// ranges (HL's verifier does not check them), as an error naming the layer.
/// `int16Out`: the requantization writes an int16 pre-activation (an
/// interpolated table's input): int16 zero point and clip.
std::optional<std::string> quantRangeError(const std::string &layer,
                                           const npusim::SliceTask &s,
                                           bool int16Out = false) {
  int64_t olo = int16Out ? -32768 : -128, ohi = int16Out ? 32767 : 127;
  for (auto [field, v, lo, hi] :
       {std::tuple<const char *, int64_t, int64_t, int64_t>{
            "input_zp", s.inputZp, -128, 127},
        {"output_zp", s.outputZp, olo, ohi},
        {"multiplier", s.multiplier, 0, INT32_MAX},
        {"shift", s.shift, 0, 63},
        {"clip_min", s.clipMin, olo, ohi},
        {"clip_max", s.clipMax, s.clipMin, ohi}})
    if (v < lo || v > hi)
      return layer + llvm::formatv(": {0} {1} is outside the NPU's [{2}, {3}]",
                                   field, v, lo, hi)
                         .str();
  return std::nullopt;
}

/// Reads the layer of an HL pool or segmented MAC op.
std::optional<std::string>
readLayer(Operation *op, const npu::NpuConfig &config, WinLayer &l) {
  l.name = layerName(op);
  for (Value v : op->getOperands())
    if (!cast<ShapedType>(v.getType()).hasStaticShape())
      return l.name + ": dynamic shapes are not supported";
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  hl::Format f = hl::formatOf(inType);
  if (f == hl::Format::Other)
    return l.name + ": the input is neither int8 nor bf16";
  bool bf16 = f == hl::Format::BF16;
  if (!bf16 && hl::storageRange(inType).first != -128)
    return l.name + ": only signed int8 storage is lowered";
  if (!config.supports(bf16 ? npu::NumberFormat::BF16
                            : npu::NumberFormat::Int8))
    return l.name + ": the NPU description does not list the format " +
           (bf16 ? "bf16" : "int8");
  l.eb = bf16 ? 2 : 1;
  npusim::SliceTask &s = l.proto;
  s.format = s.outputFormat =
      bf16 ? npusim::Format::BF16 : npusim::Format::Int8;
  ArrayRef<int64_t> k;
  if (auto mp = dyn_cast<hl::MaxPoolOp>(op)) {
    l.kind = Kind::MaxPool;
    s.kernel = npusim::KernelKind::MaxPool;
    k = mp.getKernel();
  } else if (auto ap = dyn_cast<hl::AvgPoolOp>(op)) {
    l.kind = Kind::AvgPool;
    s.kernel = npusim::KernelKind::AvgPool;
    k = ap.getKernel();
    if (ap.getSegments() > 1)
      return l.name + ": a segmented avgpool cannot be lowered exactly (one "
                      "rounding of the whole window's sum)";
    s.countIncludePad = ap.getCountIncludePad();
    s.inputZp = ap.getInputZp();
    s.multiplier = ap.getMultiplier();
    s.shift = ap.getShift();
    s.outputZp = ap.getOutputZp();
    s.clipMin = ap.getClipMin();
    s.clipMax = ap.getClipMax();
    if (auto e = bf16 ? std::nullopt : quantRangeError(l.name, s))
      return e;
  } else if (auto conv = dyn_cast<hl::Conv2DOp>(op)) {
    l.kind = Kind::Conv;
    s.kernel = npusim::KernelKind::Conv2D;
    l.groups = conv.getGroups();
    s.groups = l.groups;
  } else if (isa<hl::DepthwiseConv2DOp>(op)) {
    l.kind = Kind::Depthwise;
    s.kernel = npusim::KernelKind::DepthwiseConv2D;
  } else {
    return l.name + ": no NPU lowering for this op";
  }
  ArrayRef<int64_t> in = inType.getShape(), out = outType.getShape();
  ArrayRef<int64_t> pad = op->getAttrOfType<DenseI64ArrayAttr>("pad");
  ArrayRef<int64_t> st = op->getAttrOfType<DenseI64ArrayAttr>("stride");
  ArrayRef<int64_t> dl = op->getAttrOfType<DenseI64ArrayAttr>("dilation");
  l.s = op->getAttrOfType<IntegerAttr>("segments").getInt();
  l.N = in[0];
  l.C = in[1];
  l.H = l.s > 1 ? in[3] : in[2];
  l.W = l.s > 1 ? in[4] : in[3];
  std::copy(pad.begin(), pad.end(), l.pad);
  l.sh = st[0];
  l.sw = st[1];
  l.dh = dl[0];
  l.dw = dl[1];
  if (l.mac()) {
    auto wShape =
        cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
    l.B = config.weightChannelBlock;
    if (wShape.back() != l.B)
      return l.name + llvm::formatv(": weights are packed for blocks of {0}, "
                                    "the NPU description's "
                                    "weight_channel_block is {1}",
                                    wShape.back(), l.B)
                          .str();
    l.unit = l.B;
    l.KH = l.kind == Kind::Conv ? wShape[2] : wShape[1];
    l.KW = l.kind == Kind::Conv ? wShape[3] : wShape[2];
    l.blockBytes = l.eb;
    for (size_t i = 1; i < wShape.size(); ++i)
      l.blockBytes *= wShape[i];
    // 3 x i32 (4 with per-channel output zero points), or 1 x f32.
    l.sbRowBytes =
        bf16 ? 4
             : 4 * cast<ShapedType>(op->getOperand(2).getType()).getDimSize(1);
    auto attr = [&](StringRef n) {
      return op->getAttrOfType<IntegerAttr>(n).getInt();
    };
    if (attr("accumulator_bits") != config.accumulatorBits)
      return l.name + llvm::formatv(": accumulator_bits {0} differs from the "
                                    "NPU description's {1}",
                                    attr("accumulator_bits"),
                                    config.accumulatorBits)
                          .str();
    s.inputZp = attr("input_zp");
    s.weightZp = attr("weight_zp");
    s.outputZp = attr("output_zp");
    s.clipMin = attr("clip_min");
    s.clipMax = attr("clip_max");
    if (op->getAttrOfType<StringAttr>("rounding").getValue() == "tflite")
      s.rounding = npusim::Rounding::TFLite;
    if (auto e = bf16 ? std::nullopt
                      : quantRangeError(l.name, s, hl::isSignedInt16(outType)))
      return e;
    if (bf16) {
      // HL's bf16 epilogue: relu clamps at 0 and relu_limit, in f32.
      s.inputZp = s.weightZp = s.outputZp = 0;
      s.clipMin = -128;
      s.clipMax = 127;
      if (op->getAttrOfType<BoolAttr>("relu").getValue()) {
        s.clipMinF = 0.0f;
        if (auto limit = op->getAttrOfType<FloatAttr>("relu_limit"))
          s.clipMaxF = static_cast<float>(limit.getValueAsDouble());
      }
    }
    l.O = l.kind == Kind::Conv ? out[1] : l.C;
  } else {
    l.KH = k[0];
    l.KW = k[1];
    l.O = l.C;
    s.kernelSize = {l.KH, l.KW};
  }
  s.stride = {l.sh, l.sw};
  s.dilation = {l.dh, l.dw};
  auto so = op->getAttrOfType<DenseI64ArrayAttr>("segment_output");
  if (l.s > 1 && bf16 && !l.mac())
    return l.name + ": a segmented bf16 max pool is not lowered "
                    "(hl-segment-strided never writes one: no finite pad "
                    "value is safe)";
  if (l.s > 1) {
    // A result stored segmented (`segment_output`) has HL's bound: output
    // row y reads phase rows up to y + (dh*(kh-1))/s (hl-segment-strided
    // fuses only where the bound is the strided output's size).
    l.OH = so ? l.H - (l.dh * (l.KH - 1)) / l.s : out[2];
    l.OW = so ? l.W - (l.dw * (l.KW - 1)) / l.s : out[3];
    for (int64_t a = 0; a < l.s; ++a)
      for (int64_t b = 0; b < l.s; ++b) {
        Phase ph{a, b, phaseTaps(l.KH, l.dh, l.s, a),
                 phaseTaps(l.KW, l.dw, l.s, b)};
        if (ph.th.count && ph.tw.count)
          l.phases.push_back(ph);
      }
  } else {
    l.OH = hl::windowOutputSize(l.H, l.pad[0], l.pad[2], l.KH, l.sh, l.dh);
    l.OW = hl::windowOutputSize(l.W, l.pad[1], l.pad[3], l.KW, l.sw, l.dw);
  }
  if (l.OH < 1 || l.OW < 1 || l.N * l.C * l.H * l.W == 0)
    return l.name + ": an empty tensor needs no NPU program";
  int64_t padValue = 0;
  if (so) {
    // The consumer's padding: the output zero point (max pool: none, its
    // output is its input's values, so the lowest int8); bf16 +0.0 (zero
    // bytes).
    padValue = bf16 ? 0 : l.kind == Kind::MaxPool ? -128 : s.outputZp;
  }
  uint32_t outBinding = l.mac() ? 3 : 1;
  l.out = OutputLayout::of(
      l.N, l.O, l.OH, l.OW, l.eb,
      so ? std::optional<ArrayRef<int64_t>>(so.asArrayRef()) : std::nullopt,
      padValue, outBinding);
  return std::nullopt;
}

std::string bindingName(Value v, const std::string &fallback) {
  if (Operation *def = v.getDefiningOp())
    if (auto name = def->getAttrOfType<StringAttr>("name"))
      return name.str();
  return fallback;
}

} // namespace

/// hl.reduce_mean: the whole input and output in LRAM (no tiling), the
/// work split over the slices along the first kept dim.
std::optional<std::string> extra::lowerReduceMean(hl::ReduceMeanOp op,
                                                  const npu::NpuConfig &config,
                                                  const std::string &name,
                                                  npusim::Program &program) {
  std::string layer = layerName(op);
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  hl::Format f = hl::formatOf(inType);
  if (f == hl::Format::Other ||
      (f == hl::Format::Int8 && hl::storageRange(inType).first != -128))
    return layer + ": only signed int8 and bf16 are lowered";
  if (inType.getRank() < 1 || inType.getRank() > 6)
    return layer + ": the NPU's operands have 1 to 6 dims";
  int64_t eb = f == hl::Format::BF16 ? 2 : 1;
  npusim::SliceTask proto;
  proto.kernel = npusim::KernelKind::ReduceMean;
  proto.format = proto.outputFormat =
      eb == 2 ? npusim::Format::BF16 : npusim::Format::Int8;
  proto.inputZp = op.getInputZp();
  proto.multiplier = op.getMultiplier();
  proto.shift = op.getShift();
  proto.outputZp = op.getOutputZp();
  proto.clipMin = op.getClipMin();
  proto.clipMax = op.getClipMax();
  if (auto e = eb == 1 ? quantRangeError(layer, proto) : std::nullopt)
    return e;
  for (int64_t a : op.getAxes())
    proto.reduceAxes |= 1u << a;
  std::vector<int64_t> in(inType.getShape()), out(outType.getShape());
  int64_t inBytes = inType.getNumElements() * eb,
          outBytes = outType.getNumElements() * eb;
  LramAllocator alloc(config);
  std::optional<int64_t> inAddr = alloc.allocate(inBytes),
                         outAddr = alloc.allocate(outBytes);
  if (!inAddr || !outAddr)
    return layer + llvm::formatv(" does not fit LRAM ({0} bytes, alignment "
                                 "{1}): input {2}, output {3} (reduce_mean "
                                 "is not tiled)",
                                 config.lramBytes, config.lramAlignment,
                                 inBytes, outBytes)
                       .str();
  program = npusim::Program();
  program.name = name;
  program.config = config;
  program.bindings = {{"input", static_cast<uint64_t>(inBytes), false},
                      {"output", static_cast<uint64_t>(outBytes), true}};
  std::vector<Task> tasks;
  tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 0, 0, *inAddr, 1,
                          {inBytes}, {1}, {1}, "input"));
  tasks.push_back(barrier());
  npusim::Operand x = contiguous(*inAddr, in, eb),
                  y = contiguous(*outAddr, out, eb);
  // The first kept dim longer than 1 splits over the slices.
  int64_t d = -1;
  for (size_t i = 0; i < in.size() && d < 0; ++i)
    if (!(proto.reduceAxes >> i & 1) && in[i] > 1)
      d = static_cast<int64_t>(i);
  int64_t pieces = d < 0 ? 1 : std::min<int64_t>(config.slices, in[d]);
  for (int64_t p = 0; p < pieces; ++p) {
    Task t;
    t.kind = npusim::TaskKind::Slice;
    t.slice = proto;
    t.slice.slice = static_cast<uint32_t>(p);
    t.slice.input = x;
    t.slice.output = y;
    if (d >= 0) {
      int64_t a = in[d] * p / pieces, b = in[d] * (p + 1) / pieces;
      t.slice.input.address += a * x.strides[d];
      t.slice.input.dims[d] = b - a;
      t.slice.output.address += a * y.strides[d];
      t.slice.output.dims[d] = b - a;
    }
    t.name = "s" + std::to_string(p);
    fastestVectorMode(t, config);
    tasks.push_back(t);
  }
  tasks.push_back(barrier());
  tasks.push_back(dmaTask(npusim::TaskKind::DmaStore, 1, 0, *outAddr, 1,
                          {outBytes}, {1}, {1}, "output"));
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

std::optional<std::string>
extra::lowerWindowOp(Operation *op, const npu::NpuConfig &config,
                     const HLToHWOptions &options, const std::string &name,
                     npusim::Program &program, LayerPlan *plan) {
  WinLayer l;
  if (auto e = readLayer(op, config, l))
    return e;
  // The interpolated int16 table in the activation unit.
  if (auto e = extra::checkTable16Fold(op, config, options, l.name,
                                       l.mac() && l.eb == 1 && l.s != 1 &&
                                           !op->hasAttr("segment_output"),
                                       l.lut16))
    return e;
  if (l.lut16) {
    l.lutRows = 1;
    l.out.binding = 4; // after the table
  } else if (options.foldedTable) {
    auto table = dyn_cast<hl::TableOp>(options.foldedTable);
    if (!table || !l.mac() || l.eb != 1 || l.s == 1 ||
        table.getInput() != op->getResult(0) || op->hasAttr("segment_output"))
      return l.name + ": internal error, no table to fold";
    l.lutRows =
        cast<ShapedType>(table.getTable().getType()).getRank() == 2 ? l.O : 1;
    l.out.binding = 4; // after the table
  }
  int sets = options.doubleBuffer ? 2 : 1;
  std::vector<Tile> tiles;
  Placement pl;
  if (auto e = planTiles(l, sets, config, tiles, pl))
    return e;
  program = npusim::Program();
  program.name = name;
  program.config = config;
  uint64_t inBytes = static_cast<uint64_t>(
      cast<RankedTensorType>(op->getOperand(0).getType()).getNumElements() *
      l.eb);
  program.bindings.push_back({"input", inBytes, false});
  if (l.mac()) {
    program.bindings.push_back(
        {bindingName(op->getOperand(1), "weights"),
         static_cast<uint64_t>(((l.O + l.B - 1) / l.B) * l.blockBytes), false});
    program.bindings.push_back({bindingName(op->getOperand(2), "scale_bias"),
                                static_cast<uint64_t>(l.O * l.sbRowBytes),
                                false});
  }
  // A folded table: binding 3, before the output.
  if (l.lutRows)
    program.bindings.push_back(
        {bindingName(options.foldedTable->getOperand(1), "table"),
         static_cast<uint64_t>(l.lutBytes()), false});
  uint32_t lutBinding = 3;
  program.bindings.push_back({"output", l.out.bytes(), true});
  if (plan) {
    *plan = LayerPlan();
    plan->lramBytes = pl.used;
    plan->rowTiles = (l.OH + tiles.front().r1 - tiles.front().r0 - 1) /
                     (tiles.front().r1 - tiles.front().r0);
    plan->channelTiles = static_cast<int64_t>(tiles.size()) / plan->rowTiles;
  }

  std::vector<Task> tasks;
  std::vector<int64_t> heldW[2], heldIn[2];
  auto loads = [&](size_t ti) {
    const Tile &t = tiles[ti];
    int set = static_cast<int>(ti % sets);
    int wSet = pl.weightsShared ? 0 : set, inSet = pl.inputShared ? 0 : set;
    std::vector<int64_t> wKey{t.c0, t.c1};
    if (l.mac() && heldW[wSet] != wKey) {
      int64_t nb = (t.c1 - t.c0 + l.B - 1) / l.B;
      tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 1,
                              (t.c0 / l.B) * l.blockBytes, pl.weights[wSet], 1,
                              {nb * l.blockBytes}, {1}, {1}, "weights"));
      tasks.push_back(dmaTask(
          npusim::TaskKind::DmaLoad, 2, t.c0 * l.sbRowBytes, pl.scaleBias[wSet],
          1, {(t.c1 - t.c0) * l.sbRowBytes}, {1}, {1}, "scale_bias"));
      // A folded table: the tile's rows (per channel) or the one table,
      // once.
      if (l.lutRows && (l.lutPerChannel() || ti == 0))
        tasks.push_back(
            dmaTask(npusim::TaskKind::DmaLoad, lutBinding,
                    l.lutPerChannel() ? t.c0 * 256 : 0,
                    pl.lut[pl.weightsShared || !l.lutPerChannel() ? 0 : wSet],
                    1, {l.lutPerChannel() ? (t.c1 - t.c0) * 256 : l.lutBytes()},
                    {1}, {1}, "table"));
      heldW[wSet] = wKey;
    }
    Rows r = rowsOf(l, t.r0, t.r1);
    auto [ci0, ci1] = inChannels(l, t);
    std::vector<int64_t> inKey{ci0, ci1, r.i0, r.i1};
    if (heldIn[inSet] != inKey) {
      int64_t rows = r.i1 - r.i0, ss = l.s * l.s, eb = l.eb;
      int64_t np = l.loadedPhases(), plane = l.H * l.W * eb;
      // [N, channels x phases, rows x W]: a channel's phases are planes
      // of H rows one after the other, so channels and phases merge; one
      // loaded phase: [N, channels, rows x W] picked by the DRAM strides.
      int64_t base =
          (ci0 * ss + l.firstLoadedPhase()) * plane + r.i0 * l.W * eb;
      if (np == ss)
        tasks.push_back(dmaTask(
            npusim::TaskKind::DmaLoad, 0, base, pl.input[inSet], eb,
            {l.N, (ci1 - ci0) * ss, rows * l.W}, {l.C * ss * plane, plane, eb},
            {(ci1 - ci0) * ss * rows * l.W * eb, rows * l.W * eb, eb},
            "input"));
      else
        tasks.push_back(dmaTask(
            npusim::TaskKind::DmaLoad, 0, base, pl.input[inSet], eb,
            {l.N, ci1 - ci0, rows * l.W}, {l.C * ss * plane, ss * plane, eb},
            {(ci1 - ci0) * rows * l.W * eb, rows * l.W * eb, eb}, "input"));
      heldIn[inSet] = inKey;
    }
  };
  std::map<std::vector<int64_t>, std::vector<Piece>> piecesOf;
  auto piecesFor = [&](const Tile &t) -> const std::vector<Piece> & {
    std::vector<int64_t> key{t.c0, t.c1, t.r0, t.r1};
    auto it = piecesOf.find(key);
    if (it == piecesOf.end())
      it = piecesOf.emplace(key, splitTile(l, t, pl, config)).first;
    return it->second;
  };
  auto compute = [&](size_t ti) {
    const Tile &t = tiles[ti];
    int set = static_cast<int>(ti % sets);
    int64_t outAddr = pl.output[set], tempAddr = pl.temp;
    const std::vector<Piece> &pieces = piecesFor(t);
    if (l.reinterleaved()) {
      Task image = reinterleaveTask(l, t, pl, set, pl.temp,
                                    llvm::formatv("tile{0}", ti).str());
      fastestVectorMode(image, config);
      tasks.push_back(image);
      tasks.push_back(barrier()); // every slice reads the image
    }
    for (size_t s = 0; s < pieces.size(); ++s) {
      const Piece &p = pieces[s];
      for (Task &k : pieceTasks(l, t, p, pl, set, outAddr, tempAddr,
                                static_cast<uint32_t>(s),
                                llvm::formatv("tile{0}.s{1}", ti, s).str())) {
        fastestVectorMode(k, config);
        tasks.push_back(k);
      }
      int64_t elems = l.N * (p.c1 - p.c0) * (p.r1 - p.r0) * l.OW;
      outAddr += elems * l.eb;
      if (!l.reinterleaved())
        tempAddr += bytesOf(l, p).temp;
    }
  };
  auto store = [&](size_t ti) {
    int set = static_cast<int>(ti % sets);
    int64_t outAddr = pl.output[set];
    for (const Piece &p : piecesFor(tiles[ti])) {
      int64_t pc = p.c1 - p.c0, pr = p.r1 - p.r0;
      storeBox(l.out, {0, p.c0, p.r0, 0}, {l.N, pc, pr, l.OW}, outAddr,
               {pc * pr * l.OW * l.eb, pr * l.OW * l.eb, l.OW * l.eb, l.eb},
               tasks);
      outAddr += l.N * pc * pr * l.OW * l.eb;
    }
  };
  emitTileLoop(tasks, tiles.size(), sets, /*storeBeforeLoads=*/false, loads,
               compute, store);
  fillPadding(l.out, 0, config.lramBytes, tasks);
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return l.name + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}
