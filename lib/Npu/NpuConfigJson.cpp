//===- NpuConfigJson.cpp - reading and writing an NpuConfig as JSON -------===//

#include "strata/Npu/NpuConfigJson.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <functional>
#include <map>

using namespace llvm;

namespace strata::npu {

namespace {

Error fail(StringRef file, const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), "%s: npu config: %s",
                           file.str().c_str(), msg.str().c_str());
}

/// Renders a JSON value for a message, shortened.
std::string show(const json::Value &v) {
  std::string s = formatv("{0}", v).str();
  if (s.size() > 60)
    s = s.substr(0, 57) + "...";
  return s;
}

Error readInt(StringRef file, StringRef field, const json::Value &v,
              int64_t &out) {
  std::optional<int64_t> i = v.getAsInteger();
  if (!i)
    return fail(file, "field '" + field + "' is " + show(v) +
                          ", expected an integer");
  out = *i;
  return Error::success();
}

Error readNumber(StringRef file, StringRef field, const json::Value &v,
                 double &out) {
  std::optional<double> d = v.getAsNumber();
  if (!d || !std::isfinite(*d))
    return fail(file,
                "field '" + field + "' is " + show(v) + ", expected a number");
  out = *d;
  return Error::success();
}

Error readModes(StringRef file, const json::Value &v,
                std::vector<VectorMode> &out) {
  const json::Array *modes = v.getAsArray();
  if (!modes)
    return fail(file, "field 'vector_modes' is " + show(v) +
                          ", expected an array of {name, pixels, channels}");
  out.clear();
  for (const json::Value &m : *modes) {
    const json::Object *o = m.getAsObject();
    if (!o)
      return fail(file, "vector_modes entry " + show(m) +
                            " is not an object {name, pixels, channels}");
    VectorMode mode;
    for (const auto &[key, value] : *o) {
      if (key == "name") {
        std::optional<StringRef> s = value.getAsString();
        if (!s)
          return fail(file, "field 'vector_modes.name' is " + show(value) +
                                ", expected a string");
        mode.name = s->str();
      } else if (key == "pixels") {
        if (Error e = readInt(file, "vector_modes.pixels", value, mode.pixels))
          return e;
      } else if (key == "channels") {
        if (Error e =
                readInt(file, "vector_modes.channels", value, mode.channels))
          return e;
      } else {
        return fail(file, "unknown field 'vector_modes." + key.str() +
                              "' (expected name, pixels, channels)");
      }
    }
    out.push_back(mode);
  }
  return Error::success();
}

Error readFormats(StringRef file, const json::Value &v,
                  std::vector<NumberFormat> &out) {
  const json::Array *formats = v.getAsArray();
  if (!formats)
    return fail(file, "field 'formats' is " + show(v) +
                          ", expected an array of \"int8\", \"int16\", "
                          "\"bf16\"");
  out.clear();
  for (const json::Value &f : *formats) {
    std::optional<StringRef> s = f.getAsString();
    std::optional<NumberFormat> format =
        s ? parseFormatName(s->str()) : std::nullopt;
    if (!format)
      return fail(file, "field 'formats' holds " + show(f) +
                            ", expected \"int8\", \"int16\" or \"bf16\"");
    out.push_back(*format);
  }
  return Error::success();
}

} // namespace

Expected<NpuConfig> parseNpuConfigJson(StringRef text, StringRef fileName) {
  Expected<json::Value> root = json::parse(text);
  if (!root)
    return fail(fileName, "not valid JSON: " + toString(root.takeError()));
  const json::Object *o = root->getAsObject();
  if (!o)
    return fail(fileName, "the top level must be a JSON object");

  NpuConfig c = defaultNpuConfig();
  std::map<std::string, std::function<Error(const json::Value &)>> fields = {
      {"name",
       [&](const json::Value &v) -> Error {
         std::optional<StringRef> s = v.getAsString();
         if (!s)
           return fail(fileName,
                       "field 'name' is " + show(v) + ", expected a string");
         c.name = s->str();
         return Error::success();
       }},
      {"lram_bytes",
       [&](const json::Value &v) {
         return readInt(fileName, "lram_bytes", v, c.lramBytes);
       }},
      {"lram_alignment",
       [&](const json::Value &v) {
         return readInt(fileName, "lram_alignment", v, c.lramAlignment);
       }},
      {"slices",
       [&](const json::Value &v) {
         return readInt(fileName, "slices", v, c.slices);
       }},
      {"macs_per_slice",
       [&](const json::Value &v) {
         return readInt(fileName, "macs_per_slice", v, c.macsPerSlice);
       }},
      {"vector_modes",
       [&](const json::Value &v) {
         return readModes(fileName, v, c.vectorModes);
       }},
      {"weight_channel_block",
       [&](const json::Value &v) {
         return readInt(fileName, "weight_channel_block", v,
                        c.weightChannelBlock);
       }},
      {"accumulator_bits",
       [&](const json::Value &v) {
         return readInt(fileName, "accumulator_bits", v, c.accumulatorBits);
       }},
      {"activation_width",
       [&](const json::Value &v) {
         return readInt(fileName, "activation_width", v, c.activationWidth);
       }},
      {"lut_entries",
       [&](const json::Value &v) {
         return readInt(fileName, "lut_entries", v, c.lutEntries);
       }},
      {"lut16_entries",
       [&](const json::Value &v) {
         return readInt(fileName, "lut16_entries", v, c.lut16Entries);
       }},
      {"formats",
       [&](const json::Value &v) {
         return readFormats(fileName, v, c.formats);
       }},
      {"dma_bytes_per_cycle",
       [&](const json::Value &v) {
         return readNumber(fileName, "dma_bytes_per_cycle", v,
                           c.dmaBytesPerCycle);
       }},
      {"dma_efficiency",
       [&](const json::Value &v) {
         return readNumber(fileName, "dma_efficiency", v, c.dmaEfficiency);
       }},
      {"dma_setup_cycles",
       [&](const json::Value &v) {
         return readInt(fileName, "dma_setup_cycles", v, c.dmaSetupCycles);
       }},
      {"task_setup_cycles",
       [&](const json::Value &v) {
         return readInt(fileName, "task_setup_cycles", v, c.taskSetupCycles);
       }},
      {"cpu_fallback_cycles",
       [&](const json::Value &v) {
         return readInt(fileName, "cpu_fallback_cycles", v,
                        c.cpuFallbackCycles);
       }},
      {"clock_mhz",
       [&](const json::Value &v) {
         return readInt(fileName, "clock_mhz", v, c.clockMHz);
       }},
  };
  for (const auto &[key, value] : *o) {
    auto it = fields.find(key.str());
    if (it == fields.end()) {
      std::string known;
      for (const auto &f : fields)
        known += (known.empty() ? "" : ", ") + f.first;
      return fail(fileName,
                  "unknown field '" + key.str() + "' (known: " + known + ")");
    }
    if (Error e = it->second(value))
      return std::move(e);
  }
  if (std::optional<std::string> error = validateNpuConfig(c))
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             fileName.str().c_str(), error->c_str());
  return c;
}

std::string printNpuConfigJson(const NpuConfig &c) {
  json::Array modes;
  for (const VectorMode &m : c.vectorModes)
    modes.push_back(json::Object{
        {"name", m.name}, {"pixels", m.pixels}, {"channels", m.channels}});
  json::Array formats;
  for (NumberFormat f : c.formats)
    formats.push_back(formatName(f));
  json::Object o{
      {"name", c.name},
      {"lram_bytes", c.lramBytes},
      {"lram_alignment", c.lramAlignment},
      {"slices", c.slices},
      {"macs_per_slice", c.macsPerSlice},
      {"vector_modes", std::move(modes)},
      {"weight_channel_block", c.weightChannelBlock},
      {"accumulator_bits", c.accumulatorBits},
      {"activation_width", c.activationWidth},
      {"lut_entries", c.lutEntries},
      {"lut16_entries", c.lut16Entries},
      {"formats", std::move(formats)},
      {"dma_bytes_per_cycle", c.dmaBytesPerCycle},
      {"dma_efficiency", c.dmaEfficiency},
      {"dma_setup_cycles", c.dmaSetupCycles},
      {"task_setup_cycles", c.taskSetupCycles},
      {"cpu_fallback_cycles", c.cpuFallbackCycles},
      {"clock_mhz", c.clockMHz},
  };
  return formatv("{0:2}", json::Value(std::move(o))).str();
}

} // namespace strata::npu
