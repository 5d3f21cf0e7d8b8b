//===- NpuSimReport.cpp - strata run --device npu-sim reports -------------===//
//
// After `strata run --device npu-sim`, prints one line per NPU dispatch of
// the last run (cycles, MACs, MAC utilization, DMA bytes, LRAM peak), the
// total with the CPU-fallback cost of the variant's CPU dispatches, and
// writes the Chrome trace of --profile. docs/npu-sim.md explains the figures.
//
//===----------------------------------------------------------------------===//

#include "NpuSimReport.h"

#include "strata/NpuSim/Simulator.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

namespace {
/// The variant the inputs select (the session picks it the same way).
size_t selectedVariant(const rt::Model &m, const TensorMap &inputs) {
  for (size_t v = 0; v < m.variantCount(); ++v) {
    bool match = true;
    for (size_t i = 0; match && i < m.inputCount(); ++i) {
      const Tensor *t = inputs.find(m.input(i).name);
      match = t && t->shape() == m.variantShape(v, false, i);
    }
    if (match)
      return v;
  }
  return 0;
}
} // namespace

bool reportNpuSim(StringRef tool, const rt::Model &m, const TensorMap &inputs,
                  std::vector<runtime::npusim::DispatchProfile> profiles,
                  int64_t runs, const std::string &tracePath) {
  size_t variant = selectedVariant(m, inputs);
  strata_variant_info vi = m.variantInfo(variant);
  int64_t npuDispatches = 0, cpuDispatches = 0;
  for (size_t d = 0; d < vi.dispatch_count; ++d) {
    strata_dispatch_info di = m.dispatchInfo(variant, d);
    (StringRef(di.device) == runtime::npusim::kNpuSimDevice ? npuDispatches
                                                            : cpuDispatches)++;
  }
  // Keep the last run's profiles.
  if (runs > 0 && npuDispatches > 0 &&
      profiles.size() >= static_cast<size_t>(npuDispatches))
    profiles.erase(profiles.begin(), profiles.end() - npuDispatches);
  if (npuDispatches == 0)
    outs() << "npu-sim: no dispatch of this model runs on npu-sim\n";
  npu::NpuConfig config;
  if (!profiles.empty())
    config = profiles.front().config;
  int64_t cycles = 0, macs = 0;
  uint64_t dma = 0, peak = 0;
  for (size_t i = 0; i < profiles.size(); ++i) {
    const strata::npusim::Profile &p = profiles[i].profile;
    outs() << "npu-sim dispatch " << i << " '" << p.program << "': " << p.cycles
           << " cycles ("
           << format("%.2f", double(p.cycles) / double(config.clockMHz))
           << " us at " << config.clockMHz << " MHz), " << p.macs
           << " MACs, MAC utilization " << format("%.1f", 100 * p.utilization)
           << "%, DMA " << p.dmaBytes << " bytes, LRAM peak " << p.lramPeak
           << " bytes\n";
    cycles += p.cycles;
    macs += p.macs;
    dma += p.dmaBytes;
    peak = std::max(peak, p.lramPeak);
  }
  int64_t fallback = cpuDispatches * config.cpuFallbackCycles;
  int64_t total = cycles + fallback;
  double util =
      total ? double(macs) / (double(total) * double(config.peakMacsPerCycle()))
            : 0.0;
  outs() << "npu-sim total: " << total << " cycles ("
         << format("%.2f", double(total) / double(config.clockMHz)) << " us), "
         << profiles.size() << " NPU dispatches, " << cpuDispatches
         << " CPU dispatches x " << config.cpuFallbackCycles
         << " fallback cycles, " << macs << " MACs, MAC utilization "
         << format("%.1f", 100 * util) << "%, DMA " << dma
         << " bytes, LRAM peak " << peak << " bytes\n";
  if (tracePath.empty())
    return true;
  std::vector<strata::npusim::Profile> list;
  for (auto &p : profiles)
    list.push_back(p.profile);
  std::error_code ec;
  raw_fd_ostream os(tracePath, ec, sys::fs::OF_Text);
  if (ec) {
    errs() << tool << ": cannot write '" << tracePath << "': " << ec.message()
           << "\n";
    return false;
  }
  os << strata::npusim::chromeTraceJson(list, config);
  return true;
}

} // namespace strata::cli
