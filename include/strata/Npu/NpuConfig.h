//===- NpuConfig.h - the parametric description of the NPU ------*- C++ -*-===//
//
// Every size the NPU target uses (LRAM, slices, MACs, the activation unit,
// DMA bandwidth, the clock) comes from an NpuConfig, never from a constant in
// a pass or in the simulator. The compiler reads one from a JSON file
// (`--npu-config`, readNpuConfigJson) or takes defaultNpuConfig(); the
// artifact carries the configuration it was compiled for, and the npu-sim
// driver runs with that one. The schema, field by field, is in docs/npu.md.
//
// MLIR/LLVM-free: the runtime and the simulator include it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_NPU_NPUCONFIG_H
#define STRATA_NPU_NPUCONFIG_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::npu {

/// One way the MAC array of a slice is used in one cycle: `pixels` output
/// pixels times `channels` output channels, one input channel (or one weight
/// tap) at a time. `pixels * channels` must equal the slice's MAC count.
struct VectorMode {
  std::string name;
  int64_t pixels = 0;
  int64_t channels = 0;
};

/// The number formats an NPU computes in.
enum class NumberFormat { Int8, Int16, BF16 };

/// The NPU, as the compiler and the simulator see it. Defaults model the
/// public figures of the seed's NPU (../shared/seeds/001).
struct NpuConfig {
  /// A label written into artifacts and profiles.
  std::string name = "strata-npu";
  /// Local RAM of the NPU, shared by the slices, in bytes.
  int64_t lramBytes = 512 * 1024;
  /// Every LRAM buffer starts at a multiple of this (bytes, a power of 2).
  int64_t lramAlignment = 64;
  /// Compute slices working in parallel.
  int64_t slices = 2;
  /// int8 multiply-accumulates per cycle and slice.
  int64_t macsPerSlice = 256;
  /// The MAC array's vectorization modes.
  std::vector<VectorMode> vectorModes = {
      {"64x4", 64, 4}, {"32x8", 32, 8}, {"16x16", 16, 16}};
  /// Output channels processed together: the weight layout (O/N)IHWN packs
  /// this many output channels contiguously (the seed's 4).
  int64_t weightChannelBlock = 4;
  /// Width of the accumulators, in bits (int8 products summed without
  /// overflow up to this width; the simulator wraps beyond it).
  int64_t accumulatorBits = 32;
  /// Elements per cycle of the activation unit (shift, round, clip, zero
  /// point, lookup table).
  int64_t activationWidth = 16;
  /// Entries of the activation unit's piecewise-linear lookup table.
  int64_t lutEntries = 256;
  /// Entries of the activation unit's interpolated int16-input table mode
  /// (strata/Support/IntegerTable16.h: 513 int16 entries, a 9-bit index
  /// and 7-bit linear interpolation, the `--table-input int16` tables); 0:
  /// the unit has no such mode (those layers stay on the CPU).
  int64_t lut16Entries = 513;
  /// Number formats the slices compute in.
  std::vector<NumberFormat> formats = {NumberFormat::Int8, NumberFormat::Int16,
                                       NumberFormat::BF16};
  /// DMA between DRAM and LRAM: peak bytes per cycle and the fraction of it
  /// reached in practice.
  double dmaBytesPerCycle = 8.0;
  double dmaEfficiency = 0.65;
  /// Fixed cycles to start one DMA descriptor and one slice task.
  int64_t dmaSetupCycles = 32;
  int64_t taskSetupCycles = 16;
  /// Fixed cycles charged for handing a dispatch to the CPU and back.
  int64_t cpuFallbackCycles = 2000;
  /// Clock of the NPU, in MHz (cycles to time in profiles).
  int64_t clockMHz = 800;

  /// MACs per cycle of the whole NPU.
  int64_t peakMacsPerCycle() const { return slices * macsPerSlice; }
  /// DMA bytes moved per cycle on average.
  double effectiveDmaBytesPerCycle() const {
    return dmaBytesPerCycle * dmaEfficiency;
  }
  bool supports(NumberFormat f) const;
};

/// The default configuration (the same as a default-constructed NpuConfig).
NpuConfig defaultNpuConfig();

/// Checks that every field holds a possible value; the error names the field
/// and the value ("npu config: field 'slices' is 0, expected 1..64").
std::optional<std::string> validateNpuConfig(const NpuConfig &config);

/// The name of a number format as written in the JSON schema ("int8",
/// "int16", "bf16"), and back.
const char *formatName(NumberFormat f);
std::optional<NumberFormat> parseFormatName(const std::string &name);

} // namespace strata::npu

#endif // STRATA_NPU_NPUCONFIG_H
