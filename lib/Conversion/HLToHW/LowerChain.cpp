//===- LowerChain.cpp - conv -> conv dispatches with weight prefetch ------===//
//
// A MAC kernel whose only user is the next MAC kernel shares its program
// (docs/npu.md, "Multi-op dispatches"): the producer keeps its whole output
// in LRAM (never stored to DRAM), the consumer reads it there, and the
// consumer's first weight loads run on the DMA queue while the producer
// computes, into LRAM the producer leaves free. The producer is planned in
// the low part of LRAM and the consumer's buffers above it; the split and
// the place of the prefetch in the producer's schedule are the ones the
// cycle model (npusim::programCycles) finds fastest. Either layer may apply
// its folded hl.table (HLToHWOptions::foldedTable): the consumer then reads
// the producer's looked-up output.
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/NpuSim/Simulator.h"

#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace strata;
using namespace strata::conversion;

namespace {

using npusim::Task;
using npusim::TaskKind;

bool overlaps(const npusim::ByteRange &a, const npusim::ByteRange &b) {
  return a.begin < b.end && b.begin < a.end;
}

/// The chain's program: the producer's tasks with `prefetch` inserted
/// before its wait number `at` (none when `prefetch` is empty), then the
/// consumer's remaining tasks.
npusim::Program merge(const npusim::Program &a, const npusim::Program &b,
                      const std::vector<Task> &prefetch, size_t at,
                      const std::vector<Task> &rest) {
  npusim::Program p;
  p.name = a.name;
  p.config = a.config;
  // The producer's bindings but its output, the consumer's but its input.
  p.bindings.assign(a.bindings.begin(), a.bindings.end() - 1);
  p.bindings.insert(p.bindings.end(), b.bindings.begin() + 1, b.bindings.end());
  std::vector<Task> first;
  size_t waits = 0;
  for (const Task &t : a.segments.front().tasks) {
    if (t.kind == TaskKind::Wait && waits++ == at)
      first.insert(first.end(), prefetch.begin(), prefetch.end());
    first.push_back(t);
  }
  p.segments.push_back({std::move(first)});
  p.segments.push_back({rest});
  return p;
}

} // namespace

std::optional<std::string> conversion::lowerChainToProgram(
    Operation *producer, Operation *consumer, const npu::NpuConfig &config,
    const HLToHWOptions &options, const HLToHWOptions &consumerOptions,
    const std::string &name, npusim::Program &program, LayerPlan *plan) {
  // The value the consumer reads: the producer's result, or its folded
  // table's.
  Operation *mid = options.foldedTable ? options.foldedTable : producer;
  if (producer->getNumResults() != 1 || consumer->getNumOperands() < 3 ||
      consumer->getOperand(0) != mid->getResult(0) ||
      !producer->getResult(0).hasOneUse() || !mid->getResult(0).hasOneUse() ||
      options.fusedAdd || consumerOptions.fusedAdd ||
      llvm::is_contained(producer->getOperands(), consumer->getOperand(1)) ||
      llvm::is_contained(producer->getOperands(), consumer->getOperand(2)))
    return std::string("not a conv -> conv chain");
  // The pair apart: what the chain must beat.
  npusim::Program alone;
  if (auto e = lowerHLOpToProgram(producer, config, options, name, alone))
    return e;
  int64_t apart = npusim::programCycles(alone, config);
  HLToHWOptions apartConsumer = consumerOptions;
  apartConsumer.residentInput.reset();
  if (auto e = lowerHLOpToProgram(consumer, config, apartConsumer, name, alone))
    return e;
  apart += npusim::programCycles(alone, config);

  int64_t best = -1;
  // The producer's share of LRAM in eighths (8: all of it; the consumer's
  // first loads are then prefetched only if they land where the producer
  // never goes).
  for (int64_t eighths : {8, 6, 5, 4, 3, 2}) {
    int64_t split = config.lramBytes * eighths / 8 / config.lramAlignment *
                    config.lramAlignment;
    npu::NpuConfig low = config;
    low.lramBytes = split;
    HLToHWOptions ao = options;
    ao.chainOutput = true;
    ao.keepOutputResident = false;
    npusim::Program a;
    LayerPlan aPlan;
    if (lowerHLOpToProgram(producer, low, ao, name, a, &aPlan) ||
        !aPlan.residentOutput)
      continue;
    a.config = config;
    HLToHWOptions bo = consumerOptions;
    bo.residentInput = aPlan.residentOutput;
    bo.reservedBelow = eighths == 8 ? 0 : split;
    npusim::Program b;
    LayerPlan bPlan;
    if (lowerHLOpToProgram(consumer, config, bo, name, b, &bPlan))
      continue;
    // The consumer's bindings move behind the producer's (its input, weights,
    // scale_bias, folded table if any): its weights and scale_bias follow
    // them, then its table if any, then its result (it reads no input from
    // DRAM).
    uint32_t shift = static_cast<uint32_t>(a.bindings.size()) - 2;
    std::vector<Task> prefetch, rest;
    bool loading = true, readsInput = false;
    for (const npusim::Segment &seg : b.segments)
      for (Task t : seg.tasks) {
        if (t.kind == TaskKind::DmaLoad || t.kind == TaskKind::DmaStore) {
          readsInput |= t.dma.binding == 0;
          t.dma.binding += shift;
        }
        loading = loading && t.kind == TaskKind::DmaLoad;
        (loading ? prefetch : rest).push_back(std::move(t));
      }
    if (readsInput)
      continue;
    // The exact check: a prefetched load may not touch an LRAM byte any
    // producer task touches.
    std::vector<npusim::ByteRange> used;
    size_t waits = 0;
    for (const Task &t : a.segments.front().tasks) {
      waits += t.kind == TaskKind::Wait;
      npusim::LramAccess acc = npusim::lramAccess(t);
      llvm::append_range(used, acc.reads);
      llvm::append_range(used, acc.writes);
    }
    bool disjoint = llvm::all_of(prefetch, [&](const Task &t) {
      npusim::LramAccess acc = npusim::lramAccess(t);
      return llvm::all_of(acc.writes, [&](const npusim::ByteRange &w) {
        return llvm::none_of(
            used, [&](const npusim::ByteRange &u) { return overlaps(w, u); });
      });
    });
    // Candidate places: before each of the producer's waits (at most 16 of
    // them, spread), or not prefetched.
    std::vector<std::pair<size_t, bool>> places{{0, false}};
    if (disjoint && waits) {
      size_t step = std::max<size_t>(1, waits / 16);
      for (size_t w = 0; w < waits; w += step)
        places.push_back({w, true});
      places.push_back({waits - 1, true});
    }
    for (auto [at, moved] : places) {
      std::vector<Task> r = moved ? rest : prefetch;
      if (!moved)
        r.insert(r.end(), rest.begin(), rest.end());
      npusim::Program p =
          merge(a, b, moved ? prefetch : std::vector<Task>{}, at, r);
      int64_t cycles = npusim::programCycles(p, config);
      if (best < 0 || cycles < best) {
        best = cycles;
        program = std::move(p);
        if (plan) {
          *plan = bPlan;
          plan->lramBytes = std::max(aPlan.lramBytes, bPlan.lramBytes);
        }
      }
    }
  }
  if (best < 0)
    return std::string("the chain does not fit LRAM");
  if (best >= apart)
    return std::string("the chain is not faster than two dispatches");
  program.name = name;
  if (auto e = npusim::verifyProgram(program))
    return "chain " + name +
           ": internal error, the program does not verify: " + *e;
  return std::nullopt;
}
