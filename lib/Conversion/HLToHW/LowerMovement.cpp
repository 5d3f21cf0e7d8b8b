//===- LowerMovement.cpp - hl.resize_nearest and hl.concat as DMA ---------===//
//
// Data movement, mostly without a slice task (docs/npu.md, "HL -> HW"): the
// values are loaded into LRAM in chunks and stored back where the result wants
// them.
//  - hl.resize_nearest with integer factors per dim (`OH = f * H`: each
//    source row repeated f times; `H = d * OH`: every d-th row): the load
//    picks the source rows and columns (DRAM strides), the stores repeat
//    them (an LRAM stride of 0 repeats a column; one store per repeated
//    row); other scales run the `resize_nearest` slice task;
//  - hl.concat along any axis: each input, viewed as `[outer, inner_k]`
//    (the dims before the axis, then the rest), is stored at column
//    offset `sum_{j<k} inner_j` of the `[outer, sum inner]` output;
//  - hl.depth_to_space: each of the b^2 input channel groups (DCR: group
//    `i*b + j` holds channels `[g*C, (g+1)*C)`; CRD: channels `c*b*b + g`)
//    is loaded in chunks of channels and rows and stored with DRAM strides
//    `b*OW`, `b` at row offset `i`, column offset `j` of the output.
//
//===----------------------------------------------------------------------===//

#include "LowerExtra.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace strata;
using namespace strata::conversion;
using namespace strata::conversion::extra;
using npusim::Task;
using npusim::TaskKind;

namespace {

/// Bytes of one element a DMA moves (1, 2, 4 or 8), or nullopt.
std::optional<int64_t> elementBytesOf(Type type) {
  Type e = getElementTypeOrSelf(type);
  int64_t bits = 0;
  if (auto q = dyn_cast<quant::QuantizedType>(e))
    bits = q.getStorageTypeIntegralWidth();
  else if (e.isIntOrFloat())
    bits = e.getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return std::nullopt;
  return bits / 8;
}

/// Starts a DMA-only program: `inputs` read-only bindings, then "output".
void startProgram(npusim::Program &program, const std::string &name,
                  const npu::NpuConfig &config,
                  ArrayRef<std::pair<std::string, uint64_t>> inputs,
                  uint64_t outputBytes) {
  program = npusim::Program();
  program.name = name;
  program.config = config;
  for (const auto &[n, bytes] : inputs)
    program.bindings.push_back({n, bytes, false});
  program.bindings.push_back({"output", outputBytes, true});
}

std::optional<std::string> finish(npusim::Program &program,
                                  std::vector<Task> tasks,
                                  const std::string &layer) {
  program.segments.push_back({std::move(tasks)});
  if (auto e = npusim::verifyProgram(program))
    return layer + ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}

/// Another scale: the simulator's `resize_nearest` task (asymmetric,
/// floor) over chunks of whole channel planes, each chunk split over the
/// slices by channels.
std::optional<std::string> lowerResizeTask(hl::ResizeNearestOp op,
                                           const npu::NpuConfig &config,
                                           const std::string &name,
                                           npusim::Program &program) {
  std::string layer = layerName(op);
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  hl::Format format = hl::formatOf(inType);
  if (format == hl::Format::Other || hl::formatOf(outType) != format)
    return layer + ": a resize that is not an integer scale needs int8 or "
                   "bf16 (the resize_nearest task)";
  int64_t eb = format == hl::Format::BF16 ? 2 : 1;
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1),
          h = inType.getDimSize(2), w = inType.getDimSize(3),
          oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t inPlane = h * w * eb, outPlane = oh * ow * eb;
  // The largest channel chunk whose input and output fit LRAM (alignment
  // included).
  int64_t perChunk = std::min(c, config.lramBytes / (inPlane + outPlane)),
          inAddr = 0, outAddr = 0;
  for (; perChunk >= 1; --perChunk) {
    LramAllocator lram(config);
    std::optional<int64_t> a = lram.allocate(perChunk * inPlane);
    std::optional<int64_t> b =
        a ? lram.allocate(perChunk * outPlane) : std::nullopt;
    if (a && b) {
      inAddr = *a;
      outAddr = *b;
      break;
    }
  }
  if (perChunk < 1)
    return layer + llvm::formatv(": one channel's input and output planes "
                                 "({0} + {1} bytes) do not fit LRAM ({2} "
                                 "bytes)",
                                 inPlane, outPlane, config.lramBytes)
                       .str();
  startProgram(program, name, config,
               {{"input", static_cast<uint64_t>(n * c * inPlane)}},
               static_cast<uint64_t>(n * c * outPlane));
  npusim::SliceTask proto;
  proto.kernel = npusim::KernelKind::ResizeNearest;
  proto.format = proto.outputFormat =
      eb == 2 ? npusim::Format::BF16 : npusim::Format::Int8;
  proto.halfPixel = false;
  std::vector<Task> tasks;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c0 = 0; c0 < c; c0 += perChunk) {
      int64_t cc = std::min(perChunk, c - c0);
      if (!tasks.empty())
        tasks.push_back(barrier());
      tasks.push_back(dmaTask(TaskKind::DmaLoad, 0, (i * c + c0) * inPlane,
                              inAddr, 1, {cc * inPlane}, {1}, {1}, "input"));
      tasks.push_back(barrier());
      int64_t pieces = std::min<int64_t>(config.slices, cc);
      for (int64_t p = 0; p < pieces; ++p) {
        int64_t a = cc * p / pieces, b = cc * (p + 1) / pieces;
        Task t;
        t.kind = TaskKind::Slice;
        t.slice = proto;
        t.slice.slice = static_cast<uint32_t>(p);
        t.slice.input = contiguous(inAddr + a * inPlane, {1, b - a, h, w}, eb);
        t.slice.output =
            contiguous(outAddr + a * outPlane, {1, b - a, oh, ow}, eb);
        t.name = llvm::formatv("chunk{0}.s{1}", c0 / perChunk, p).str();
        fastestVectorMode(t, config);
        tasks.push_back(t);
      }
      tasks.push_back(barrier());
      tasks.push_back(dmaTask(TaskKind::DmaStore, 1, (i * c + c0) * outPlane,
                              outAddr, 1, {cc * outPlane}, {1}, {1}, "output"));
    }
  return finish(program, std::move(tasks), layer);
}

std::optional<std::string> lowerResizeNearest(hl::ResizeNearestOp op,
                                              const npu::NpuConfig &config,
                                              const std::string &name,
                                              npusim::Program &program) {
  std::string layer = layerName(op);
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  if (!inType.hasStaticShape() || !outType.hasStaticShape() ||
      inType.getRank() != 4)
    return layer + ": needs static N x C x H x W shapes";
  std::optional<int64_t> ebOr = elementBytesOf(inType);
  if (!ebOr)
    return layer + ": elements of 8, 16, 32 or 64 bits only";
  int64_t eb = *ebOr;
  if (inType.getNumElements() == 0)
    return layer + ": an empty tensor needs no NPU program";
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
  // Per dim (rows, columns): source positions read (`src`, every `step`-th)
  // and how often each is repeated (`rep`).
  int64_t src[2], step[2], rep[2], in[2], out[2];
  for (int d = 0; d < 2; ++d) {
    in[d] = inType.getDimSize(2 + d);
    out[d] = outType.getDimSize(2 + d);
    if (out[d] % in[d] == 0) {
      src[d] = in[d];
      step[d] = 1;
      rep[d] = out[d] / in[d];
    } else if (in[d] % out[d] == 0) {
      src[d] = out[d];
      step[d] = in[d] / out[d];
      rep[d] = 1;
    } else {
      return lowerResizeTask(op, config, name, program);
    }
  }
  // Chunks of whole channel planes, or of source rows of one channel when
  // a plane does not fit; no store moves more than LRAM's size (it reads
  // each loaded byte rep[1] times).
  int64_t rowBytes = src[1] * eb * rep[1];
  int64_t perChunk = std::min(c, config.lramBytes / (rowBytes * src[0]));
  int64_t rowsPerChunk = src[0];
  if (perChunk < 1) {
    perChunk = 1;
    rowsPerChunk = config.lramBytes / rowBytes;
  }
  if (rowsPerChunk < 1)
    return layer + llvm::formatv(": one source row repeated ({0} bytes) "
                                 "does not fit LRAM ({1} bytes)",
                                 rowBytes, config.lramBytes)
                       .str();
  int64_t inPlane = in[0] * in[1] * eb, outPlane = out[0] * out[1] * eb;
  startProgram(program, name, config,
               {{"input", static_cast<uint64_t>(n * c * inPlane)}},
               static_cast<uint64_t>(n * c * outPlane));
  std::vector<Task> tasks;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c0 = 0; c0 < c; c0 += perChunk)
      for (int64_t y0 = 0; y0 < src[0]; y0 += rowsPerChunk) {
        int64_t cc = std::min(perChunk, c - c0);
        int64_t rows = std::min(rowsPerChunk, src[0] - y0);
        int64_t chunkBytes = rows * src[1] * eb;
        if (!tasks.empty())
          tasks.push_back(barrier());
        tasks.push_back(dmaTask(
            TaskKind::DmaLoad, 0,
            (i * c + c0) * inPlane + y0 * step[0] * in[1] * eb, 0, eb,
            {cc, rows, src[1]}, {inPlane, step[0] * in[1] * eb, step[1] * eb},
            {chunkBytes, src[1] * eb, eb}, "input"));
        tasks.push_back(barrier());
        // Output row y * rep[0] + r, column x * rep[1] + q holds source
        // (y, x): one store per r, the LRAM stride 0 repeating columns.
        for (int64_t r = 0; r < rep[0]; ++r)
          tasks.push_back(dmaTask(
              TaskKind::DmaStore, 1,
              (i * c + c0) * outPlane + ((y0 * rep[0]) + r) * out[1] * eb, 0,
              eb, {cc, rows, src[1], rep[1]},
              {outPlane, rep[0] * out[1] * eb, rep[1] * eb, eb},
              {chunkBytes, src[1] * eb, eb, 0}, "output"));
      }
  return finish(program, std::move(tasks), layer);
}

std::optional<std::string> lowerConcat(hl::ConcatOp op,
                                       const npu::NpuConfig &config,
                                       const std::string &name,
                                       npusim::Program &program) {
  std::string layer = layerName(op);
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  if (!outType.hasStaticShape())
    return layer + ": needs static shapes";
  std::optional<int64_t> ebOr = elementBytesOf(outType);
  if (!ebOr)
    return layer + ": elements of 8, 16, 32 or 64 bits only";
  int64_t eb = *ebOr, rank = outType.getRank(), axis = op.getAxis();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return layer + ": axis " + std::to_string(op.getAxis()) +
           " is outside the rank " + std::to_string(rank);
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outType.getDimSize(d);
  int64_t total = outType.getNumElements() / std::max<int64_t>(1, outer);
  if (outType.getNumElements() == 0)
    return layer + ": an empty tensor needs no NPU program";
  SmallVector<std::pair<std::string, uint64_t>> inputs;
  SmallVector<int64_t> inner;
  for (auto [k, v] : llvm::enumerate(op.getInputs())) {
    auto t = cast<RankedTensorType>(v.getType());
    if (!t.hasStaticShape() || elementBytesOf(t) != eb)
      return layer + ": input " + std::to_string(k) +
             " is not static or has another element size";
    inner.push_back(t.getNumElements() / std::max<int64_t>(1, outer));
    inputs.push_back({"input" + std::to_string(k),
                      static_cast<uint64_t>(t.getNumElements() * eb)});
  }
  startProgram(program, name, config, inputs,
               static_cast<uint64_t>(outType.getNumElements() * eb));
  uint32_t outBinding = static_cast<uint32_t>(inputs.size());
  std::vector<Task> tasks;
  int64_t column = 0, lram = config.lramBytes;
  for (auto [k, ik] : llvm::enumerate(inner)) {
    uint32_t binding = static_cast<uint32_t>(k);
    if (ik == 0)
      continue;
    // Whole rows per chunk, or pieces of one row when a row does not fit.
    int64_t rows = std::max<int64_t>(1, lram / (ik * eb));
    int64_t piece = std::min(ik, lram / eb);
    for (int64_t r0 = 0; r0 < outer; r0 += rows) {
      int64_t rr = std::min(rows, outer - r0);
      for (int64_t e0 = 0; e0 < ik; e0 += piece) {
        int64_t ee = std::min(piece, ik - e0);
        if (!tasks.empty())
          tasks.push_back(barrier());
        tasks.push_back(dmaTask(TaskKind::DmaLoad, binding, (r0 * ik + e0) * eb,
                                0, eb, {rr, ee}, {ik * eb, eb}, {ee * eb, eb},
                                "input"));
        tasks.push_back(barrier());
        tasks.push_back(dmaTask(
            TaskKind::DmaStore, outBinding, (r0 * total + column + e0) * eb, 0,
            eb, {rr, ee}, {total * eb, eb}, {ee * eb, eb}, "output"));
      }
    }
    column += ik;
  }
  return finish(program, std::move(tasks), layer);
}

/// hl.depth_to_space as DMA: per channel group, chunks of channels and
/// rows loaded contiguous and stored interleaved into the output.
std::optional<std::string> lowerDepthToSpace(hl::DepthToSpaceOp op,
                                             const npu::NpuConfig &config,
                                             const std::string &name,
                                             npusim::Program &program) {
  std::string layer = layerName(op);
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  if (!inType.hasStaticShape() || !outType.hasStaticShape() ||
      inType.getRank() != 4 || outType.getRank() != 4)
    return layer + ": needs static 4-d (NCHW) shapes";
  std::optional<int64_t> ebOr = elementBytesOf(inType);
  if (!ebOr)
    return layer + ": elements of 8, 16, 32 or 64 bits only";
  if (op.getMode() != "DCR" && op.getMode() != "CRD")
    return layer + ": mode '" + op.getMode().str() + "' is not DCR or CRD";
  int64_t eb = *ebOr, b = op.getBlock();
  int64_t N = inType.getDimSize(0), Cin = inType.getDimSize(1),
          H = inType.getDimSize(2), W = inType.getDimSize(3);
  if (b < 1 || Cin % (b * b) ||
      outType.getShape() != ArrayRef<int64_t>{N, Cin / (b * b), H * b, W * b})
    return layer + ": block " + std::to_string(b) +
           " does not match the input and output shapes";
  if (inType.getNumElements() == 0)
    return layer + ": an empty tensor needs no NPU program";
  int64_t C = Cin / (b * b), OH = H * b, OW = W * b;
  bool crd = op.getMode() == "CRD";
  // Chunks of cc channels by rr rows (all N) that fit LRAM.
  int64_t L = config.lramBytes, row = N * W * eb;
  if (row > L)
    return layer + llvm::formatv(": does not fit LRAM ({0} bytes): one "
                                 "input row of every batch needs {1}",
                                 L, row)
                       .str();
  int64_t rr = std::min(H, L / row);
  int64_t cc = rr == H ? std::min(C, L / (row * H)) : 1;
  startProgram(program, name, config,
               {{"input", static_cast<uint64_t>(N * Cin * H * W * eb)}},
               static_cast<uint64_t>(N * C * OH * OW * eb));
  std::vector<Task> tasks;
  // A group's channel c is input channel g*C + c (DCR) or c*b*b + g (CRD).
  int64_t chanStride = crd ? b * b : 1;
  for (int64_t g = 0; g < b * b; ++g) {
    int64_t i = g / b, j = g % b;
    for (int64_t c0 = 0; c0 < C; c0 += cc)
      for (int64_t r0 = 0; r0 < H; r0 += rr) {
        int64_t nc = std::min(cc, C - c0), nr = std::min(rr, H - r0);
        int64_t first = crd ? c0 * b * b + g : g * C + c0;
        tasks.push_back(dmaTask(
            TaskKind::DmaLoad, 0, ((first * H) + r0) * W * eb, 0, eb,
            {N, nc, nr * W}, {Cin * H * W * eb, chanStride * H * W * eb, eb},
            {nc * nr * W * eb, nr * W * eb, eb}, "input"));
        tasks.push_back(dmaTask(
            TaskKind::DmaStore, 1, ((c0 * OH + r0 * b + i) * OW + j) * eb, 0,
            eb, {N, nc, nr, W},
            {C * OH * OW * eb, OH * OW * eb, b * OW * eb, b * eb},
            {nc * nr * W * eb, nr * W * eb, W * eb, eb}, "output"));
      }
  }
  return finish(program, std::move(tasks), layer);
}

} // namespace

bool extra::handlesMovement(Operation *op) {
  return isa<hl::ResizeNearestOp, hl::ConcatOp, hl::DepthToSpaceOp>(op);
}

std::optional<std::string> extra::lowerMovement(Operation *op,
                                                const npu::NpuConfig &config,
                                                const std::string &name,
                                                npusim::Program &program) {
  if (auto r = dyn_cast<hl::ResizeNearestOp>(op))
    return lowerResizeNearest(r, config, name, program);
  if (auto d = dyn_cast<hl::DepthToSpaceOp>(op))
    return lowerDepthToSpace(d, config, name, program);
  return lowerConcat(cast<hl::ConcatOp>(op), config, name, program);
}
