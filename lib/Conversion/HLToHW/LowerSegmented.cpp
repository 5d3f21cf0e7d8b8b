//===- LowerSegmented.cpp - segmented operands of the HL -> HW lowering ---===//
//
// hl.segmentation and `segment_output` (docs/npu-sim.md, "HL op -> slice
// task fields"): the phases of a padded NCHW tensor are strided views of it,
// so segmenting is DMA only. hl.segmentation loads its input by channel
// chunks and stores each chunk's phases with one strided descriptor per
// phase; a producer with `segment_output` (hl-segment-strided's fusion)
// stores its result the same way instead of plainly. The padding positions
// get the pad value from one LRAM byte (a `rescale` slice task with
// multiplier 0 writes it) through DMA stores of LRAM stride 0.
//
// Also the dispatcher of the lowerings beside LowerKernels.cpp
// (LowerExtra.h) and the helpers they share.
//
//===----------------------------------------------------------------------===//

#include "LowerExtra.h"

#include "strata/NpuSim/Simulator.h"
#include "strata/Support/IntegerTable16.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace strata;
using namespace strata::conversion;
using namespace strata::conversion::extra;
using npusim::Task;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

std::string extra::layerName(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto named = dyn_cast<NameLoc>(op->getLoc()))
    text += " '" + named.getName().str() + "'";
  auto dims = [](Value v) {
    std::string t;
    if (auto type = dyn_cast<RankedTensorType>(v.getType()))
      for (int64_t i = 0; i < type.getRank(); ++i)
        t += (i ? "x" : "") + std::to_string(type.getDimSize(i));
    return t;
  };
  return text + " (" + dims(op->getOperand(0)) + " -> " +
         dims(op->getResult(0)) + ")";
}

std::optional<std::string> extra::lut16Refusal(const npu::NpuConfig &config,
                                               const std::string &layer) {
  if (config.lut16Entries == intq::kTable16Entries)
    return std::nullopt;
  return layer + ": the NPU description's lut16_entries is " +
         std::to_string(config.lut16Entries) + ", the int16 table needs " +
         std::to_string(intq::kTable16Entries);
}

std::optional<std::string> extra::checkTable16Fold(Operation *op,
                                                   const npu::NpuConfig &config,
                                                   const HLToHWOptions &options,
                                                   const std::string &layer,
                                                   bool fits, bool &lut16) {
  lut16 = false;
  bool int16Result = hl::isSignedInt16(op->getResult(0).getType());
  auto t16 = dyn_cast_or_null<hl::Table16Op>(options.foldedTable);
  if (!t16) {
    if (int16Result)
      return layer + ": its int16 result goes to the NPU only through its "
                     "hl.table16, folded into the activation unit";
    return std::nullopt;
  }
  if (!fits || !int16Result || t16.getInput() != op->getResult(0))
    return layer + ": internal error, no table16 to fold";
  if (auto e = lut16Refusal(config, layer))
    return e;
  lut16 = true;
  return std::nullopt;
}

npusim::Operand extra::contiguous(int64_t address, std::vector<int64_t> dims,
                                  int64_t elementBytes) {
  npusim::Operand o;
  o.address = address;
  o.dims = std::move(dims);
  o.strides.assign(o.dims.size(), elementBytes);
  for (int64_t i = static_cast<int64_t>(o.dims.size()) - 2; i >= 0; --i)
    o.strides[i] = o.strides[i + 1] * o.dims[i + 1];
  return o;
}

Task extra::dmaTask(npusim::TaskKind kind, uint32_t binding, int64_t dramOffset,
                    int64_t lramAddress, int64_t elementBytes,
                    std::vector<int64_t> counts,
                    std::vector<int64_t> dramStrides,
                    std::vector<int64_t> lramStrides, std::string name) {
  Task t;
  t.kind = kind;
  t.dma.binding = binding;
  t.dma.dramOffset = dramOffset;
  t.dma.lramAddress = lramAddress;
  t.dma.elementBytes = static_cast<uint8_t>(elementBytes);
  t.dma.counts = std::move(counts);
  t.dma.dramStrides = std::move(dramStrides);
  t.dma.lramStrides = std::move(lramStrides);
  t.name = std::move(name);
  return t;
}

Task extra::barrier() { return Task{}; }

void extra::emitTileLoop(std::vector<Task> &tasks, size_t tiles, int sets,
                         bool storeBeforeLoads,
                         llvm::function_ref<void(size_t)> loads,
                         llvm::function_ref<void(size_t)> compute,
                         llvm::function_ref<void(size_t)> store) {
  loads(0);
  for (size_t ti = 0; ti < tiles; ++ti) {
    tasks.push_back(barrier());
    compute(ti);
    if (sets == 2) {
      if (storeBeforeLoads && ti >= 1)
        store(ti - 1);
      if (ti + 1 < tiles)
        loads(ti + 1);
      if (!storeBeforeLoads && ti >= 1)
        store(ti - 1);
    } else {
      tasks.push_back(barrier());
      store(ti);
      if (ti + 1 < tiles)
        loads(ti + 1);
    }
  }
  if (sets == 2) {
    tasks.push_back(barrier());
    store(tiles - 1);
  }
}

int64_t extra::fastestVectorMode(Task &task, const npu::NpuConfig &config) {
  int64_t best = -1;
  uint32_t bestMode = 0;
  for (uint32_t m = 0; m < config.vectorModes.size(); ++m) {
    task.slice.vectorMode = m;
    int64_t c = npusim::taskCost(task, config).cycles;
    if (best < 0 || c < best) {
      best = c;
      bestMode = m;
    }
  }
  task.slice.vectorMode = bestMode;
  return best;
}

double extra::dmaCycles(double bytes, int descriptors,
                        const npu::NpuConfig &config) {
  return bytes / config.effectiveDmaBytesPerCycle() +
         descriptors * config.dmaSetupCycles;
}

double extra::scheduleEstimate(size_t n, int sets,
                               llvm::function_ref<TileCycles(size_t)> tile) {
  std::vector<TileCycles> c;
  c.reserve(n);
  for (size_t i = 0; i < n; ++i)
    c.push_back(tile(i));
  double total = 0;
  if (n == 0)
    return total;
  if (sets == 1) {
    for (const TileCycles &t : c)
      total += t.load + t.compute + t.store;
    return total;
  }
  total = c.front().load + c.back().store;
  for (size_t i = 0; i < n; ++i)
    total += std::max(c[i].compute, (i + 1 < n ? c[i + 1].load : 0) +
                                        (i ? c[i - 1].store : 0));
  return total;
}

PhaseTaps extra::phaseTaps(int64_t k, int64_t d, int64_t s, int64_t a) {
  PhaseTaps t;
  std::vector<int64_t> taps;
  for (int64_t i = 0; i < k; ++i)
    if ((i * d) % s == a)
      taps.push_back(i);
  t.count = static_cast<int64_t>(taps.size());
  if (taps.empty())
    return t;
  t.k0 = taps[0];
  t.o0 = taps[0] * d / s;
  if (taps.size() > 1) {
    t.step = taps[1] - taps[0];
    t.q = taps[1] * d / s - t.o0;
  }
  return t;
}

OutputLayout OutputLayout::of(int64_t n, int64_t c, int64_t h, int64_t w,
                              int64_t eb, std::optional<ArrayRef<int64_t>> so,
                              int64_t padValue, uint32_t binding) {
  OutputLayout o;
  o.N = n;
  o.C = c;
  o.H = h;
  o.W = w;
  o.eb = eb;
  o.binding = binding;
  o.padValue = padValue;
  o.hs = h;
  o.ws = w;
  if (so && so->size() == 5) {
    o.s = (*so)[0];
    o.pad = {(*so)[1], (*so)[2], (*so)[3], (*so)[4]};
    o.hs = hl::segmentedSize(h, o.pad[0], o.pad[2], o.s);
    o.ws = hl::segmentedSize(w, o.pad[1], o.pad[3], o.s);
  }
  return o;
}

uint64_t OutputLayout::bytes() const {
  return static_cast<uint64_t>(N * C * s * s * hs * ws * eb);
}

void extra::storeBox(const OutputLayout &out, std::array<int64_t, 4> lo,
                     std::array<int64_t, 4> count, int64_t lram,
                     std::array<int64_t, 4> ls, std::vector<Task> &tasks) {
  int64_t eb = out.eb;
  if (out.s == 1) {
    std::vector<int64_t> dram = {out.C * out.H * out.W * eb, out.H * out.W * eb,
                                 out.W * eb, eb};
    int64_t off = ((lo[0] * out.C + lo[1]) * out.H + lo[2]) * out.W + lo[3];
    tasks.push_back(dmaTask(npusim::TaskKind::DmaStore, out.binding, off * eb,
                            lram, eb, {count[0], count[1], count[2], count[3]},
                            dram, {ls[0], ls[1], ls[2], ls[3]}, "output"));
    return;
  }
  int64_t s = out.s, ss = s * s, plane = out.hs * out.ws;
  std::vector<int64_t> dram = {out.C * ss * plane * eb, ss * plane * eb,
                               out.ws * eb, eb};
  // The first row / column of the box in phase `a` of a dim whose padding
  // before is `before`, and how many there are.
  auto firstOf = [&](int64_t a, int64_t begin, int64_t n, int64_t before,
                     int64_t &first, int64_t &num) {
    first = begin + (((a - (begin + before)) % s) + s) % s;
    num = first < begin + n ? (begin + n - first + s - 1) / s : 0;
  };
  for (int64_t a = 0; a < s; ++a)
    for (int64_t b = 0; b < s; ++b) {
      int64_t ya, ny, xb, nx;
      firstOf(a, lo[2], count[2], out.pad[0], ya, ny);
      firstOf(b, lo[3], count[3], out.pad[1], xb, nx);
      if (!ny || !nx)
        continue;
      int64_t u = (ya + out.pad[0]) / s, v = (xb + out.pad[1]) / s;
      int64_t off =
          (((lo[0] * out.C + lo[1]) * ss + a * s + b) * out.hs + u) * out.ws +
          v;
      tasks.push_back(
          dmaTask(npusim::TaskKind::DmaStore, out.binding, off * eb,
                  lram + (ya - lo[2]) * ls[2] + (xb - lo[3]) * ls[3], eb,
                  {count[0], count[1], ny, nx}, dram,
                  {ls[0], ls[1], s * ls[2], s * ls[3]},
                  llvm::formatv("output.phase{0}", a * s + b).str()));
    }
}

void extra::fillPadding(const OutputLayout &out, int64_t scratch,
                        int64_t lramBytes, std::vector<Task> &tasks) {
  if (out.s == 1)
    return;
  tasks.push_back(barrier());
  Task fill;
  fill.kind = npusim::TaskKind::Slice;
  fill.name = "pad_value";
  npusim::SliceTask &t = fill.slice;
  t.kernel = npusim::KernelKind::Rescale;
  t.format = t.outputFormat = npusim::Format::Int8;
  t.input = contiguous(scratch, {1}, 1);
  t.output = contiguous(scratch, {1}, 1);
  t.multiplier = 0; // every input gives the output zero point
  t.outputZp = out.padValue;
  tasks.push_back(fill);
  tasks.push_back(barrier());
  int64_t s = out.s, ss = s * s, plane = out.hs * out.ws;
  // Phase (a, b) holds real rows u in [u0, u1) and columns v in [v0, v1).
  auto realRange = [&](int64_t a, int64_t before, int64_t n, int64_t extent,
                       int64_t &r0, int64_t &r1) {
    r0 = std::clamp<int64_t>((before - a + s - 1) / s, 0, extent);
    int64_t last = n - 1 + before - a; // s*u <= last
    r1 = last < 0 ? 0 : std::clamp<int64_t>(last / s + 1, r0, extent);
    if (before - a < 0)
      r0 = 0;
  };
  for (int64_t a = 0; a < s; ++a)
    for (int64_t b = 0; b < s; ++b) {
      int64_t u0, u1, v0, v1;
      realRange(a, out.pad[0], out.H, out.hs, u0, u1);
      realRange(b, out.pad[1], out.W, out.ws, v0, v1);
      if (u0 >= u1 || v0 >= v1) {
        u0 = u1 = 0; // the whole plane is padding
        v0 = v1 = 0;
      }
      int64_t phase = (a * s + b) * plane;
      // One descriptor per band, split so that no descriptor moves more
      // elements than LRAM has bytes (the verifier's bound on an operand).
      auto region = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
        if (r0 >= r1 || c0 >= c1)
          return;
        int64_t rowBytes = (c1 - c0) * out.eb;
        for (int64_t x0 = 0; x0 < rowBytes; x0 += lramBytes) {
          int64_t nx = std::min(lramBytes, rowBytes - x0);
          int64_t rowsPer = std::max<int64_t>(1, lramBytes / nx);
          for (int64_t y0 = r0; y0 < r1; y0 += rowsPer) {
            int64_t ny = std::min(rowsPer, r1 - y0);
            int64_t planesPer = std::max<int64_t>(1, lramBytes / (nx * ny));
            for (int64_t p0 = 0; p0 < out.N * out.C; p0 += planesPer) {
              int64_t np = std::min(planesPer, out.N * out.C - p0);
              tasks.push_back(dmaTask(
                  npusim::TaskKind::DmaStore, out.binding,
                  (p0 * ss * plane + phase + y0 * out.ws + c0) * out.eb + x0,
                  scratch, 1, {np, ny, nx},
                  {ss * plane * out.eb, out.ws * out.eb, 1}, {0, 0, 0},
                  "padding"));
            }
          }
        }
      };
      region(0, u0, 0, out.ws);
      region(u1, out.hs, 0, out.ws);
      region(u0, u1, 0, v0);
      region(u0, u1, v1, out.ws);
    }
}

//===----------------------------------------------------------------------===//
// hl.segmentation
//===----------------------------------------------------------------------===//

namespace {

std::optional<std::string> lowerSegmentation(hl::SegmentationOp op,
                                             const npu::NpuConfig &config,
                                             const std::string &name,
                                             npusim::Program &program) {
  std::string layer = layerName(op);
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  if (!inType.hasStaticShape() || inType.getRank() != 4)
    return layer + ": needs a static N x C x H x W input";
  hl::Format format = hl::formatOf(inType);
  if (format == hl::Format::Other)
    return layer + ": only int8 and bf16 are lowered";
  // The pad value is one byte repeated: any int8 value, or bf16 +0.0.
  int64_t eb = format == hl::Format::BF16 ? 2 : 1;
  if (op.getPadValue() < (eb == 2 ? 0 : -128) ||
      op.getPadValue() > (eb == 2 ? 0 : 127))
    return layer + ": pad_value " + std::to_string(op.getPadValue()) +
           (eb == 2 ? " is not 0 (bf16)" : " is outside int8");
  ArrayRef<int64_t> in = inType.getShape();
  int64_t n = in[0], c = in[1], h = in[2], w = in[3];
  if (inType.getNumElements() == 0)
    return layer + ": an empty tensor needs no NPU program";
  ArrayRef<int64_t> pad = op.getPad();
  OutputLayout out = OutputLayout::of(
      n, c, h, w, eb,
      ArrayRef<int64_t>{op.getStride(), pad[0], pad[1], pad[2], pad[3]},
      op.getPadValue(), 1);
  // Chunks of whole channel planes (one image at a time) that fit LRAM.
  int64_t planeBytes = h * w * eb;
  LramAllocator probe(config);
  int64_t perChunk = std::min(c, config.lramBytes / planeBytes);
  if (perChunk < 1 || !probe.allocate(perChunk * planeBytes))
    return layer + llvm::formatv(": one channel plane ({0} bytes) does not "
                                 "fit LRAM ({1} bytes)",
                                 planeBytes, config.lramBytes)
                       .str();
  program = npusim::Program();
  program.name = name;
  program.config = config;
  program.bindings = {
      {"input", static_cast<uint64_t>(n * c * planeBytes), false},
      {"output", out.bytes(), true}};
  std::vector<Task> tasks;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c0 = 0; c0 < c; c0 += perChunk) {
      int64_t cc = std::min(perChunk, c - c0);
      if (!tasks.empty())
        tasks.push_back(barrier());
      tasks.push_back(dmaTask(npusim::TaskKind::DmaLoad, 0,
                              (i * c + c0) * planeBytes, 0, 1,
                              {cc * planeBytes}, {1}, {1}, "input"));
      tasks.push_back(barrier());
      storeBox(out, {i, c0, 0, 0}, {1, cc, h, w}, 0,
               {c * planeBytes, planeBytes, w * eb, eb}, tasks);
    }
  fillPadding(out, 0, config.lramBytes, tasks);
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// segment_output on a MAC layer of LowerKernels.cpp
//===----------------------------------------------------------------------===//

/// A plain store of LowerKernels.cpp as a box of the NCHW result: each
/// descriptor dim is one of n, c, y, x (by its DRAM stride), or rows merged
/// with whole columns (DRAM stride one element, count a multiple of W).
bool boxOf(const npusim::Dma &d, int64_t C, int64_t H, int64_t W, int64_t eb,
           std::array<int64_t, 4> &lo, std::array<int64_t, 4> &count,
           std::array<int64_t, 4> &ls) {
  std::array<int64_t, 4> plain = {C * H * W * eb, H * W * eb, W * eb, eb};
  std::array<int64_t, 4> extent = {INT64_MAX, C, H, W};
  if (d.dramOffset % eb)
    return false;
  int64_t e = static_cast<int64_t>(d.dramOffset) / eb;
  lo = {e / (C * H * W), e / (H * W) % C, e / W % H, e % W};
  count = {1, 1, 1, 1};
  ls = {0, 0, 0, 0};
  std::array<bool, 4> used = {false, false, false, false};
  for (size_t i = 0; i < d.counts.size(); ++i) {
    int64_t n = d.counts[i];
    if (n == 1)
      continue;
    bool placed = false;
    for (int k = 0; k < 4 && !placed; ++k)
      if (!used[k] && d.dramStrides[i] == plain[k] && lo[k] + n <= extent[k]) {
        used[k] = placed = true;
        count[k] = n;
        ls[k] = d.lramStrides[i];
      }
    // Whole rows merged into one run.
    if (!placed && d.dramStrides[i] == eb && lo[3] == 0 && n % W == 0 &&
        !used[2] && !used[3] && lo[2] + n / W <= H) {
      used[2] = used[3] = placed = true;
      count[2] = n / W;
      count[3] = W;
      ls[3] = d.lramStrides[i];
      ls[2] = d.lramStrides[i] * W;
    }
    if (!placed)
      return false;
  }
  return true;
}

/// A conv2d / depthwise_conv2d writing its result segmented: lowered plain
/// (a copy of the op with the plain result type), then each store of the
/// result replaced by its phase stores and the padding filled.
std::optional<std::string>
lowerSegmentOutput(Operation *op, const npu::NpuConfig &config,
                   const HLToHWOptions &options, const std::string &name,
                   npusim::Program &program, LayerPlan *plan) {
  std::string layer = layerName(op);
  auto so = op->getAttrOfType<DenseI64ArrayAttr>("segment_output");
  auto segType = cast<RankedTensorType>(op->getResult(0).getType());
  hl::Format format = hl::formatOf(segType);
  if (format == hl::Format::Other)
    return layer + ": the result is neither int8 nor bf16";
  // The consumer's padding: the output zero point; bf16 +0.0 (zero bytes).
  int64_t eb = format == hl::Format::BF16 ? 2 : 1;
  int64_t padValue =
      eb == 2 ? 0 : op->getAttrOfType<IntegerAttr>("output_zp").getInt();
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto wType = cast<RankedTensorType>(op->getOperand(1).getType());
  bool dw = isa<hl::DepthwiseConv2DOp>(op);
  int64_t kh = wType.getDimSize(dw ? 1 : 2), kw = wType.getDimSize(dw ? 2 : 3);
  ArrayRef<int64_t> pad = op->getAttrOfType<DenseI64ArrayAttr>("pad");
  ArrayRef<int64_t> st = op->getAttrOfType<DenseI64ArrayAttr>("stride");
  ArrayRef<int64_t> dl = op->getAttrOfType<DenseI64ArrayAttr>("dilation");
  int64_t n = segType.getDimSize(0), c = segType.getDimSize(1);
  int64_t h = hl::windowOutputSize(inType.getDimSize(2), pad[0], pad[2], kh,
                                   st[0], dl[0]);
  int64_t w = hl::windowOutputSize(inType.getDimSize(3), pad[1], pad[3], kw,
                                   st[1], dl[1]);
  OpBuilder b(op);
  Operation *plainOp = b.clone(*op);
  plainOp->removeAttr("segment_output");
  plainOp->getResult(0).setType(
      RankedTensorType::get({n, c, h, w}, segType.getElementType()));
  HLToHWOptions plainOptions = options;
  plainOptions.keepOutputResident = false; // the consumer reads phases
  std::optional<std::string> error =
      lowerHLOpToProgram(plainOp, config, plainOptions, name, program, plan);
  plainOp->erase();
  if (error)
    return error;
  if (plan)
    plan->residentOutput.reset();
  uint32_t outBinding = static_cast<uint32_t>(program.bindings.size() - 1);
  OutputLayout out =
      OutputLayout::of(n, c, h, w, eb, so.asArrayRef(), padValue, outBinding);
  program.bindings.back().size = out.bytes();
  for (npusim::Segment &segment : program.segments) {
    std::vector<Task> tasks;
    for (Task &t : segment.tasks) {
      if (t.kind != npusim::TaskKind::DmaStore || t.dma.binding != outBinding) {
        tasks.push_back(std::move(t));
        continue;
      }
      std::array<int64_t, 4> lo, count, ls;
      if (!boxOf(t.dma, c, h, w, eb, lo, count, ls))
        return layer + ": internal error, a store of the result is not a "
                       "box of the NCHW tensor (cannot segment it)";
      storeBox(out, lo, count, static_cast<int64_t>(t.dma.lramAddress), ls,
               tasks);
    }
    segment.tasks = std::move(tasks);
  }
  // LRAM is free after the last barrier: byte 0 holds the pad value.
  fillPadding(out, 0, config.lramBytes, program.segments.back().tasks);
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

int64_t segmentsOf(Operation *op) {
  auto a = op->getAttrOfType<IntegerAttr>("segments");
  return a ? a.getInt() : 1;
}

} // namespace

//===----------------------------------------------------------------------===//
// The dispatcher
//===----------------------------------------------------------------------===//

bool extra::handles(Operation *op) {
  if (isa<hl::MaxPoolOp, hl::AvgPoolOp, hl::SegmentationOp, hl::ReduceMeanOp>(
          op) ||
      handlesMovement(op))
    return true;
  if (isa<hl::Conv2DOp, hl::DepthwiseConv2DOp>(op))
    return segmentsOf(op) > 1 || op->hasAttr("segment_output");
  return false;
}

std::optional<std::string>
extra::lower(Operation *op, const npu::NpuConfig &config,
             const HLToHWOptions &options, const std::string &name,
             npusim::Program &program, LayerPlan *plan) {
  if (plan)
    *plan = LayerPlan();
  if (auto seg = dyn_cast<hl::SegmentationOp>(op))
    return lowerSegmentation(seg, config, name, program);
  if (auto mean = dyn_cast<hl::ReduceMeanOp>(op))
    return lowerReduceMean(mean, config, name, program);
  if (handlesMovement(op))
    return lowerMovement(op, config, name, program);
  if (isa<hl::Conv2DOp, hl::DepthwiseConv2DOp>(op) && segmentsOf(op) == 1)
    return lowerSegmentOutput(op, config, options, name, program, plan);
  return lowerWindowOp(op, config, options, name, program, plan);
}
