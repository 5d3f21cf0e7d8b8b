//===- NpuConfig.cpp - defaults and checks of the NPU description ---------===//

#include "strata/Npu/NpuConfig.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace strata::npu {

bool NpuConfig::supports(NumberFormat f) const {
  return std::find(formats.begin(), formats.end(), f) != formats.end();
}

NpuConfig defaultNpuConfig() { return NpuConfig(); }

const char *formatName(NumberFormat f) {
  switch (f) {
  case NumberFormat::Int8:
    return "int8";
  case NumberFormat::Int16:
    return "int16";
  case NumberFormat::BF16:
    return "bf16";
  }
  return "?";
}

std::optional<NumberFormat> parseFormatName(const std::string &name) {
  for (NumberFormat f :
       {NumberFormat::Int8, NumberFormat::Int16, NumberFormat::BF16})
    if (name == formatName(f))
      return f;
  return std::nullopt;
}

namespace {

/// "npu config: field 'F' is V, expected R".
template <typename T>
std::string fieldError(const char *field, T value, const char *expected) {
  std::ostringstream os;
  os << "npu config: field '" << field << "' is " << value << ", expected "
     << expected;
  return os.str();
}

bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace

std::optional<std::string> validateNpuConfig(const NpuConfig &c) {
  auto inRange = [](int64_t v, int64_t lo, int64_t hi) {
    return v >= lo && v <= hi;
  };
  if (c.name.empty() || c.name.size() > 64)
    return fieldError("name", "'" + c.name + "'", "1..64 characters");
  if (!inRange(c.lramBytes, 4096, int64_t(1) << 30))
    return fieldError("lram_bytes", c.lramBytes, "4096..2^30");
  if (!isPowerOf2(c.lramAlignment) || c.lramAlignment > 4096)
    return fieldError("lram_alignment", c.lramAlignment,
                      "a power of 2 up to 4096");
  if (c.lramBytes % c.lramAlignment != 0)
    return fieldError("lram_bytes", c.lramBytes,
                      "a multiple of lram_alignment");
  if (!inRange(c.slices, 1, 64))
    return fieldError("slices", c.slices, "1..64");
  if (!inRange(c.macsPerSlice, 1, 65536))
    return fieldError("macs_per_slice", c.macsPerSlice, "1..65536");
  if (c.vectorModes.empty())
    return fieldError("vector_modes", "[]", "at least one mode");
  for (const VectorMode &m : c.vectorModes) {
    if (m.name.empty())
      return fieldError("vector_modes.name", "''", "a name");
    // Both at most macs_per_slice (<= 2^16) before the product: no overflow.
    if (m.pixels < 1 || m.channels < 1 || m.pixels > c.macsPerSlice ||
        m.channels > c.macsPerSlice ||
        m.pixels * m.channels != c.macsPerSlice) {
      std::ostringstream v;
      v << m.pixels << "x" << m.channels << " (mode '" << m.name << "')";
      return fieldError("vector_modes", v.str(),
                        "pixels * channels == macs_per_slice");
    }
  }
  if (!inRange(c.weightChannelBlock, 1, 64))
    return fieldError("weight_channel_block", c.weightChannelBlock, "1..64");
  if (!inRange(c.accumulatorBits, 16, 64))
    return fieldError("accumulator_bits", c.accumulatorBits, "16..64");
  if (!inRange(c.activationWidth, 1, 4096))
    return fieldError("activation_width", c.activationWidth, "1..4096");
  if (!inRange(c.lutEntries, 2, 65536) || !isPowerOf2(c.lutEntries))
    return fieldError("lut_entries", c.lutEntries, "a power of 2 in 2..65536");
  if (c.lut16Entries != 0 && c.lut16Entries != 513)
    return fieldError("lut16_entries", c.lut16Entries,
                      "513 (the interpolated int16 table) or 0 (none)");
  if (c.formats.empty())
    return fieldError("formats", "[]", "at least one of int8, int16, bf16");
  if (!(c.dmaBytesPerCycle > 0 && c.dmaBytesPerCycle <= 4096))
    return fieldError("dma_bytes_per_cycle", c.dmaBytesPerCycle, "(0, 4096]");
  if (!(c.dmaEfficiency > 0 && c.dmaEfficiency <= 1))
    return fieldError("dma_efficiency", c.dmaEfficiency, "(0, 1]");
  if (!inRange(c.dmaSetupCycles, 0, 1 << 20))
    return fieldError("dma_setup_cycles", c.dmaSetupCycles, "0..2^20");
  if (!inRange(c.taskSetupCycles, 0, 1 << 20))
    return fieldError("task_setup_cycles", c.taskSetupCycles, "0..2^20");
  if (!inRange(c.cpuFallbackCycles, 0, 1 << 30))
    return fieldError("cpu_fallback_cycles", c.cpuFallbackCycles, "0..2^30");
  if (!inRange(c.clockMHz, 1, 100000))
    return fieldError("clock_mhz", c.clockMHz, "1..100000");
  return std::nullopt;
}

} // namespace strata::npu
