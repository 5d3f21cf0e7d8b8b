//===- Simulator.h - the bit-exact, cycle-counting NPU simulator -*- C++
//-*-===//
//
// Runs an NPU program (NpuProgram.h) over host DRAM buffers and an LRAM of
// config.lramBytes: every task bit-exactly (docs/npu-sim.md, "execution
// semantics") and with the documented cycle model ("cycle model"). Tasks
// execute in program order; the timing lets the DMA queue and the slices
// overlap until a wait. Two tasks of different queues between two waits that
// touch overlapping LRAM bytes (one writing) are a race and an error.
//
// MLIR/LLVM-free: the runtime's npu-sim driver links it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_NPUSIM_SIMULATOR_H
#define STRATA_NPUSIM_SIMULATOR_H

#include "strata/NpuSim/NpuProgram.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::npusim {

/// The cost of one task under the cycle model (docs/npu-sim.md).
struct TaskCost {
  int64_t cycles = 0;     ///< total, setup included
  int64_t compute = 0;    ///< MAC array (slice tasks)
  int64_t activation = 0; ///< activation unit
  int64_t memory = 0;     ///< the busiest LRAM address generator
  int64_t macs = 0;       ///< multiply-accumulates the task does
  uint64_t dmaBytes = 0;  ///< bytes a DMA task moves
};

/// The cost of `task` on `config` (the task must have passed verifyTask).
/// The compiler uses it to plan; the simulator to count.
TaskCost taskCost(const Task &task, const npu::NpuConfig &config);

/// The cycles `program` takes under the cycle model, without executing it
/// (the timing of Simulator::run: each queue in order from the last wait,
/// a wait or a segment's end joins them). The compiler uses it to compare
/// schedules.
int64_t programCycles(const Program &program, const npu::NpuConfig &config);

struct TaskProfile {
  int64_t index = 0; ///< numbered across segments
  std::string kind;  ///< "dma_load", "wait", "conv2d", ...
  std::string name;
  int queue = 0; ///< 0: DMA, 1 + s: slice s, -1: wait
  int64_t start = 0, end = 0;
  TaskCost cost;
  double utilization = 0; ///< MACs / (cycles * macsPerSlice)
};

struct Profile {
  std::string program;
  std::vector<TaskProfile> tasks;
  int64_t cycles = 0; ///< end of the last task
  int64_t macs = 0;
  uint64_t dmaBytes = 0;
  uint64_t lramPeak = 0; ///< highest LRAM byte touched + 1
  /// MACs / (cycles * slices * macsPerSlice).
  double utilization = 0;
};

/// A DRAM buffer bound to the program (binding i = buffers[i]).
struct DramBuffer {
  uint8_t *data = nullptr;
  uint64_t size = 0;
};

class Simulator {
public:
  /// The LRAM is config.lramBytes of zeros; it keeps its contents from one
  /// run to the next (a dispatch may leave data resident for the next).
  explicit Simulator(const npu::NpuConfig &config);

  /// Verifies `program` (it must be built for this simulator's config: same
  /// LRAM size, slices and weight block) and runs it. False with `error`
  /// naming the task and field on a bad program or binding.
  bool run(const Program &program, const std::vector<DramBuffer> &bindings,
           Profile &profile, std::string &error);

  const npu::NpuConfig &config() const { return cfg; }
  std::vector<uint8_t> &lram() { return mem; }

private:
  npu::NpuConfig cfg;
  std::vector<uint8_t> mem;
};

/// Chrome trace-event JSON (chrome://tracing, Perfetto) of profiles run one
/// after the other: one process per profile, one thread per queue,
/// timestamps in microseconds at config.clockMHz.
std::string chromeTraceJson(const std::vector<Profile> &profiles,
                            const npu::NpuConfig &config);

} // namespace strata::npusim

#endif // STRATA_NPUSIM_SIMULATOR_H
