//===- NpuProgram.cpp - encode, decode and verify NPU programs ------------===//
//
// The binary form is npu_program.fbs; the checks are those docs/npu-sim.md
// lists per task kind. Every size and address is checked with 128-bit
// arithmetic, so a hostile program cannot overflow a check.
//
//===----------------------------------------------------------------------===//

#include "strata/NpuSim/NpuProgram.h"
#include "strata/Support/IntegerTable16.h"

#include "strata/NpuSim/npu_program_generated.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

using namespace strata;
using namespace strata::npusim;
namespace fb = strata::npu::fb;

namespace {
const char *const kKernelNames[kNumKernelKinds] = {"conv2d",
                                                   "depthwise_conv2d",
                                                   "fully_connected",
                                                   "matmul",
                                                   "add",
                                                   "sub",
                                                   "mul",
                                                   "min",
                                                   "max",
                                                   "rescale",
                                                   "table",
                                                   "max_pool",
                                                   "avg_pool",
                                                   "reduce_mean",
                                                   "transpose",
                                                   "resize_nearest",
                                                   "depth_to_space",
                                                   "convert"};
const char *const kFormatNames[4] = {"int8", "int16", "bf16", "int32"};
} // namespace

bool npusim::isLut16(const SliceTask &s) {
  return s.lut.dims.size() == 1 && s.lut.dims[0] == intq::kTable16Entries;
}

int64_t npusim::lutElementBytes(const SliceTask &s) {
  return isLut16(s) ? 2 : 1;
}

int64_t npusim::formatBytes(Format f) {
  switch (f) {
  case Format::Int8:
    return 1;
  case Format::Int16:
  case Format::BF16:
    return 2;
  case Format::Int32:
    return 4;
  }
  return 1;
}

const char *npusim::formatName(Format f) {
  auto i = static_cast<unsigned>(f);
  return i < 4 ? kFormatNames[i] : "?";
}

std::optional<Format> npusim::parseFormat(const std::string &name) {
  for (unsigned i = 0; i < 4; ++i)
    if (name == kFormatNames[i])
      return static_cast<Format>(i);
  return std::nullopt;
}

const char *npusim::kernelName(KernelKind k) {
  auto i = static_cast<unsigned>(k);
  return i < kNumKernelKinds ? kKernelNames[i] : "?";
}

std::optional<KernelKind> npusim::parseKernel(const std::string &name) {
  for (int i = 0; i < kNumKernelKinds; ++i)
    if (name == kKernelNames[i])
      return static_cast<KernelKind>(i);
  return std::nullopt;
}

const char *npusim::taskKindName(TaskKind k) {
  switch (k) {
  case TaskKind::DmaLoad:
    return "dma_load";
  case TaskKind::DmaStore:
    return "dma_store";
  case TaskKind::Slice:
    return "slice_task";
  case TaskKind::Wait:
    return "wait";
  }
  return "?";
}

const char *npusim::roundingName(Rounding r) {
  return r == Rounding::TFLite ? "tflite" : "multiplier_shift";
}

std::optional<Rounding> npusim::parseRounding(const std::string &name) {
  if (name == "multiplier_shift")
    return Rounding::MultiplierShift;
  if (name == "tflite")
    return Rounding::TFLite;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

namespace {
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<fb::Operand> encodeOperand(FlatBufferBuilder &b, const Operand &op) {
  if (!op.present())
    return 0;
  return fb::CreateOperand(b, op.address, b.CreateVector(op.dims),
                           b.CreateVector(op.strides));
}

Offset<fb::Config> encodeConfig(FlatBufferBuilder &b, const npu::NpuConfig &c) {
  std::vector<Offset<fb::VectorMode>> modes;
  for (const npu::VectorMode &m : c.vectorModes)
    modes.push_back(
        fb::CreateVectorMode(b, b.CreateString(m.name), m.pixels, m.channels));
  std::vector<uint8_t> formats;
  for (npu::NumberFormat f : c.formats)
    formats.push_back(f == npu::NumberFormat::Int8    ? uint8_t(Format::Int8)
                      : f == npu::NumberFormat::Int16 ? uint8_t(Format::Int16)
                                                      : uint8_t(Format::BF16));
  auto name = b.CreateString(c.name);
  auto modesV = b.CreateVector(modes);
  auto formatsV = b.CreateVector(
      reinterpret_cast<const fb::Format *>(formats.data()), formats.size());
  fb::ConfigBuilder cb(b);
  cb.add_name(name);
  cb.add_lram_bytes(c.lramBytes);
  cb.add_lram_alignment(c.lramAlignment);
  cb.add_slices(c.slices);
  cb.add_macs_per_slice(c.macsPerSlice);
  cb.add_vector_modes(modesV);
  cb.add_weight_channel_block(c.weightChannelBlock);
  cb.add_accumulator_bits(c.accumulatorBits);
  cb.add_activation_width(c.activationWidth);
  cb.add_lut_entries(c.lutEntries);
  cb.add_lut16_entries(c.lut16Entries);
  cb.add_formats(formatsV);
  cb.add_dma_bytes_per_cycle(c.dmaBytesPerCycle);
  cb.add_dma_efficiency(c.dmaEfficiency);
  cb.add_dma_setup_cycles(c.dmaSetupCycles);
  cb.add_task_setup_cycles(c.taskSetupCycles);
  cb.add_cpu_fallback_cycles(c.cpuFallbackCycles);
  cb.add_clock_mhz(c.clockMHz);
  return cb.Finish();
}

Offset<fb::SliceTask> encodeSlice(FlatBufferBuilder &b, const SliceTask &s) {
  auto input = encodeOperand(b, s.input);
  auto input2 = encodeOperand(b, s.input2);
  auto weights = encodeOperand(b, s.weights);
  auto sb = encodeOperand(b, s.scaleBias);
  auto partial = encodeOperand(b, s.partial);
  auto lut = encodeOperand(b, s.lut);
  auto output = encodeOperand(b, s.output);
  auto stride = b.CreateVector(s.stride);
  auto dilation = b.CreateVector(s.dilation);
  auto pad = b.CreateVector(s.pad);
  auto ks = b.CreateVector(s.kernelSize);
  auto perm = b.CreateVector(s.perm);
  fb::SliceTaskBuilder tb(b);
  tb.add_slice(s.slice);
  tb.add_kernel(static_cast<fb::KernelKind>(s.kernel));
  tb.add_format(static_cast<fb::Format>(s.format));
  tb.add_output_format(static_cast<fb::Format>(s.outputFormat));
  tb.add_vector_mode(s.vectorMode);
  tb.add_input(input);
  tb.add_input2(input2);
  tb.add_weights(weights);
  tb.add_scale_bias(sb);
  tb.add_partial(partial);
  tb.add_lut(lut);
  tb.add_output(output);
  tb.add_stride(stride);
  tb.add_dilation(dilation);
  tb.add_pad(pad);
  tb.add_kernel_size(ks);
  tb.add_groups(s.groups);
  tb.add_input_zp(s.inputZp);
  tb.add_input2_zp(s.input2Zp);
  tb.add_weight_zp(s.weightZp);
  tb.add_output_zp(s.outputZp);
  tb.add_clip_min(s.clipMin);
  tb.add_clip_max(s.clipMax);
  tb.add_rounding(static_cast<fb::Rounding>(s.rounding));
  tb.add_multiplier(s.multiplier);
  tb.add_shift(s.shift);
  tb.add_input_multiplier(s.inputMultiplier);
  tb.add_input_shift(s.inputShift);
  tb.add_input2_multiplier(s.input2Multiplier);
  tb.add_input2_shift(s.input2Shift);
  tb.add_left_shift(s.leftShift);
  tb.add_float_scale(s.floatScale);
  tb.add_clip_min_f(s.clipMinF);
  tb.add_clip_max_f(s.clipMaxF);
  tb.add_perm(perm);
  tb.add_reduce_axes(s.reduceAxes);
  tb.add_block(s.block);
  tb.add_crd(s.crd);
  tb.add_half_pixel(s.halfPixel);
  tb.add_count_include_pad(s.countIncludePad);
  tb.add_scale(s.scale);
  return tb.Finish();
}
} // namespace

std::vector<uint8_t> npusim::encodeProgram(const Program &program) {
  FlatBufferBuilder b;
  // Every default is written, so two encodings of equal programs are equal
  // byte for byte and a decoder sees every field as the encoder meant it.
  b.ForceDefaults(true);
  std::vector<Offset<fb::Segment>> segments;
  for (const Segment &seg : program.segments) {
    std::vector<Offset<fb::Task>> tasks;
    for (const Task &t : seg.tasks) {
      Offset<fb::Dma> dma = 0;
      Offset<fb::SliceTask> slice = 0;
      if (t.kind == TaskKind::DmaLoad || t.kind == TaskKind::DmaStore)
        dma =
            fb::CreateDma(b, t.dma.binding, t.dma.dramOffset, t.dma.lramAddress,
                          t.dma.elementBytes, b.CreateVector(t.dma.counts),
                          b.CreateVector(t.dma.dramStrides),
                          b.CreateVector(t.dma.lramStrides));
      if (t.kind == TaskKind::Slice)
        slice = encodeSlice(b, t.slice);
      auto name = t.name.empty() ? 0 : b.CreateString(t.name);
      tasks.push_back(fb::CreateTask(b, static_cast<fb::TaskKind>(t.kind), dma,
                                     slice, name));
    }
    segments.push_back(fb::CreateSegment(b, b.CreateVector(tasks)));
  }
  std::vector<Offset<fb::Binding>> bindings;
  for (const Binding &bd : program.bindings)
    bindings.push_back(
        fb::CreateBinding(b, b.CreateString(bd.name), bd.size, bd.writable));
  auto config = encodeConfig(b, program.config);
  auto name = b.CreateString(program.name);
  auto root =
      fb::CreateProgram(b, program.version, name, config,
                        b.CreateVector(bindings), b.CreateVector(segments));
  b.Finish(root, fb::ProgramIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(),
                              b.GetBufferPointer() + b.GetSize());
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

namespace {
/// The elements of a [long] vector, copied bytewise: the FlatBuffers
/// verifier checks a vector's length field for 4-byte alignment only, so its
/// 8-byte elements may be misaligned (reading them typed would be undefined).
std::vector<int64_t> longs(const flatbuffers::Vector<int64_t> *v) {
  std::vector<int64_t> out;
  if (v && v->size()) {
    out.resize(v->size());
    std::memcpy(out.data(), v->Data(), v->size() * sizeof(int64_t));
  }
  return out;
}

Operand decodeOperand(const fb::Operand *op) {
  Operand out;
  if (!op)
    return out;
  out.address = op->address();
  out.dims = longs(op->dims());
  out.strides = longs(op->strides());
  return out;
}
} // namespace

std::optional<std::string>
npusim::decodeProgram(const uint8_t *data, uint64_t size, Program &program) {
  if (!data || size < 8)
    return std::string("npu program: too short (") + std::to_string(size) +
           " bytes)";
  // Scalars are read typed at offsets the verifier checks for alignment
  // relative to the buffer's start: decode from an 8-byte aligned copy when
  // the caller's bytes are not.
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0) {
    aligned.resize((size + 7) / 8);
    std::memcpy(aligned.data(), data, size);
    data = reinterpret_cast<const uint8_t *>(aligned.data());
  }
  if (!flatbuffers::BufferHasIdentifier(data, fb::ProgramIdentifier()))
    return std::string("npu program: bad file identifier (expected 'SNPU')");
  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyProgramBuffer(verifier))
    return std::string("npu program: the FlatBuffers table is corrupted");
  const fb::Program *p = fb::GetProgram(data);
  if (p->version() != kIsaVersion)
    return "npu program: ISA version " + std::to_string(p->version()) +
           ", this simulator runs version " + std::to_string(kIsaVersion);
  program = Program();
  program.version = p->version();
  program.name = p->name() ? p->name()->str() : "";
  const fb::Config *c = p->config();
  if (!c)
    return std::string("npu program: no config table");
  npu::NpuConfig &cfg = program.config;
  cfg.name = c->name() ? c->name()->str() : "";
  cfg.lramBytes = c->lram_bytes();
  cfg.lramAlignment = c->lram_alignment();
  cfg.slices = c->slices();
  cfg.macsPerSlice = c->macs_per_slice();
  cfg.vectorModes.clear();
  if (c->vector_modes())
    for (const fb::VectorMode *m : *c->vector_modes())
      cfg.vectorModes.push_back(
          {m->name() ? m->name()->str() : "", m->pixels(), m->channels()});
  cfg.weightChannelBlock = c->weight_channel_block();
  cfg.accumulatorBits = c->accumulator_bits();
  cfg.activationWidth = c->activation_width();
  cfg.lutEntries = c->lut_entries();
  cfg.lut16Entries = c->lut16_entries();
  cfg.formats.clear();
  if (c->formats())
    for (auto f : *c->formats()) {
      switch (static_cast<Format>(f)) {
      case Format::Int8:
        cfg.formats.push_back(npu::NumberFormat::Int8);
        break;
      case Format::Int16:
        cfg.formats.push_back(npu::NumberFormat::Int16);
        break;
      case Format::BF16:
        cfg.formats.push_back(npu::NumberFormat::BF16);
        break;
      default:
        return "npu program: config field 'formats' holds unknown format " +
               std::to_string(static_cast<int>(f));
      }
    }
  cfg.dmaBytesPerCycle = c->dma_bytes_per_cycle();
  cfg.dmaEfficiency = c->dma_efficiency();
  cfg.dmaSetupCycles = c->dma_setup_cycles();
  cfg.taskSetupCycles = c->task_setup_cycles();
  cfg.cpuFallbackCycles = c->cpu_fallback_cycles();
  cfg.clockMHz = c->clock_mhz();

  if (p->bindings())
    for (const fb::Binding *bd : *p->bindings())
      program.bindings.push_back(
          {bd->name() ? bd->name()->str() : "", bd->size(), bd->writable()});

  int64_t index = 0;
  if (p->segments())
    for (const fb::Segment *seg : *p->segments()) {
      Segment &out = program.segments.emplace_back();
      if (!seg->tasks())
        continue;
      for (const fb::Task *t : *seg->tasks()) {
        std::string where = "npu program: task " + std::to_string(index++);
        Task &task = out.tasks.emplace_back();
        auto kind = static_cast<unsigned>(t->kind());
        if (kind > static_cast<unsigned>(TaskKind::Wait))
          return where + ": unknown task kind " + std::to_string(kind);
        task.kind = static_cast<TaskKind>(kind);
        task.name = t->name() ? t->name()->str() : "";
        if (task.kind == TaskKind::DmaLoad || task.kind == TaskKind::DmaStore) {
          const fb::Dma *d = t->dma();
          if (!d)
            return where + " (" + taskKindName(task.kind) +
                   "): missing field 'dma'";
          task.dma.binding = d->binding();
          task.dma.dramOffset = d->dram_offset();
          task.dma.lramAddress = d->lram_address();
          task.dma.elementBytes = d->element_bytes();
          task.dma.counts = longs(d->counts());
          task.dma.dramStrides = longs(d->dram_strides());
          task.dma.lramStrides = longs(d->lram_strides());
        } else if (task.kind == TaskKind::Slice) {
          const fb::SliceTask *s = t->slice();
          if (!s)
            return where + " (slice_task): missing field 'slice'";
          SliceTask &st = task.slice;
          auto k = static_cast<unsigned>(s->kernel());
          if (k >= static_cast<unsigned>(kNumKernelKinds))
            return where + " (slice_task): field 'kernel' holds unknown " +
                   "kernel " + std::to_string(k);
          auto fmt = static_cast<unsigned>(s->format());
          auto ofmt = static_cast<unsigned>(s->output_format());
          if (fmt > 3 || ofmt > 3)
            return where + " (slice_task): field '" +
                   (fmt > 3 ? "format" : "output_format") +
                   "' holds unknown format " +
                   std::to_string(fmt > 3 ? fmt : ofmt);
          auto rnd = static_cast<unsigned>(s->rounding());
          if (rnd > 1)
            return where + " (slice_task): field 'rounding' holds unknown " +
                   "mode " + std::to_string(rnd);
          st.slice = s->slice();
          st.kernel = static_cast<KernelKind>(k);
          st.format = static_cast<Format>(fmt);
          st.outputFormat = static_cast<Format>(ofmt);
          st.vectorMode = s->vector_mode();
          st.input = decodeOperand(s->input());
          st.input2 = decodeOperand(s->input2());
          st.weights = decodeOperand(s->weights());
          st.scaleBias = decodeOperand(s->scale_bias());
          st.partial = decodeOperand(s->partial());
          st.lut = decodeOperand(s->lut());
          st.output = decodeOperand(s->output());
          st.stride = longs(s->stride());
          st.dilation = longs(s->dilation());
          st.pad = longs(s->pad());
          st.kernelSize = longs(s->kernel_size());
          st.groups = s->groups();
          st.inputZp = s->input_zp();
          st.input2Zp = s->input2_zp();
          st.weightZp = s->weight_zp();
          st.outputZp = s->output_zp();
          st.clipMin = s->clip_min();
          st.clipMax = s->clip_max();
          st.rounding = static_cast<Rounding>(rnd);
          st.multiplier = s->multiplier();
          st.shift = s->shift();
          st.inputMultiplier = s->input_multiplier();
          st.inputShift = s->input_shift();
          st.input2Multiplier = s->input2_multiplier();
          st.input2Shift = s->input2_shift();
          st.leftShift = s->left_shift();
          st.floatScale = s->float_scale();
          st.clipMinF = s->clip_min_f();
          st.clipMaxF = s->clip_max_f();
          st.perm = longs(s->perm());
          st.reduceAxes = s->reduce_axes();
          st.block = s->block();
          st.crd = s->crd();
          st.halfPixel = s->half_pixel();
          st.countIncludePad = s->count_include_pad();
          st.scale = s->scale();
        }
      }
    }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

std::optional<ByteRange> npusim::operandRange(const Operand &op,
                                              int64_t elementBytes) {
  if (op.dims.size() != op.strides.size())
    return std::nullopt;
  unsigned __int128 last = 0;
  for (size_t i = 0; i < op.dims.size(); ++i) {
    if (op.dims[i] <= 0 || op.strides[i] < 0 ||
        op.dims[i] > (int64_t(1) << 40) || op.strides[i] > (int64_t(1) << 40))
      return std::nullopt;
    last += static_cast<unsigned __int128>(op.dims[i] - 1) *
            static_cast<unsigned __int128>(op.strides[i]);
  }
  unsigned __int128 end = static_cast<unsigned __int128>(op.address) + last +
                          static_cast<unsigned __int128>(elementBytes);
  if (end > std::numeric_limits<uint64_t>::max())
    return std::nullopt;
  return ByteRange{op.address, static_cast<uint64_t>(end)};
}

namespace {
/// Collects the first error of one task, prefixed with its index and kind.
class TaskChecker {
public:
  TaskChecker(const Task &task, const npu::NpuConfig &config, int64_t index)
      : task(task), config(config) {
    std::ostringstream os;
    os << "task " << index << " (" << taskKindName(task.kind);
    if (task.kind == TaskKind::Slice)
      os << " " << kernelName(task.slice.kernel);
    if (!task.name.empty())
      os << " '" << task.name << "'";
    os << ")";
    prefix = os.str();
  }

  bool failed() const { return error.has_value(); }
  std::optional<std::string> take() { return error; }

  bool fail(const std::string &field, const std::string &msg) {
    if (!error)
      error = prefix + ": field '" + field + "' " + msg;
    return false;
  }

  static std::string str(const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  }

  bool range(const std::string &field, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi)
      return fail(field, "is " + std::to_string(v) + ", expected " +
                             std::to_string(lo) + ".." + std::to_string(hi));
    return true;
  }

  /// A list of exactly `n` values each in [lo, hi].
  bool list(const std::string &field, const std::vector<int64_t> &v, size_t n,
            int64_t lo, int64_t hi) {
    if (v.size() != n)
      return fail(field, "has " + std::to_string(v.size()) +
                             " values, expected " + std::to_string(n));
    for (int64_t x : v)
      if (x < lo || x > hi)
        return fail(field, "is " + str(v) + ", expected values in " +
                               std::to_string(lo) + ".." + std::to_string(hi));
    return true;
  }

  /// An LRAM operand of `rank` dims (0: any rank 1..6) inside LRAM.
  bool operand(const std::string &field, const Operand &op, size_t rank,
               int64_t elementBytes) {
    if (!op.present())
      return fail(field, "is missing");
    if (op.dims.size() > kMaxOperandDims || (rank && op.dims.size() != rank))
      return fail(field,
                  "has " + std::to_string(op.dims.size()) + " dims, expected " +
                      (rank ? std::to_string(rank) : std::string("1..6")));
    if (op.strides.size() != op.dims.size())
      return fail(field, "has " + std::to_string(op.strides.size()) +
                             " strides for " + std::to_string(op.dims.size()) +
                             " dims");
    for (int64_t d : op.dims)
      if (d <= 0 || d > (int64_t(1) << 31))
        return fail(field,
                    "dims " + str(op.dims) + ": every dim must be in 1..2^31");
    // No operand has more elements than LRAM has bytes (broadcasts
    // included), which bounds the work of any task.
    __int128 elements = 1;
    for (int64_t d : op.dims)
      elements *= d;
    if (elements > config.lramBytes)
      return fail(field, "dims " + str(op.dims) + " hold more elements than " +
                             "LRAM has bytes (" +
                             std::to_string(config.lramBytes) + ")");
    for (int64_t s : op.strides)
      if (s < 0 || s > (int64_t(1) << 40))
        return fail(field, "strides " + str(op.strides) +
                               ": every stride must be in 0..2^40");
    std::optional<ByteRange> r = operandRange(op, elementBytes);
    if (!r || r->end > static_cast<uint64_t>(config.lramBytes))
      return fail(field, "reaches past LRAM: address " +
                             std::to_string(op.address) + ", dims " +
                             str(op.dims) + ", strides " + str(op.strides) +
                             " end beyond " + std::to_string(config.lramBytes) +
                             " bytes");
    return true;
  }

  bool absent(const std::string &field, const Operand &op) {
    if (op.present())
      return fail(field, "is set but kernel " +
                             std::string(kernelName(task.slice.kernel)) +
                             " does not read it");
    return true;
  }

  bool dimsEq(const std::string &field, const Operand &op,
              const std::vector<int64_t> &expected) {
    if (op.dims != expected)
      return fail(field,
                  "dims are " + str(op.dims) + ", expected " + str(expected));
    return true;
  }

  bool check(const std::vector<Binding> &bindings);

private:
  bool checkDma(const std::vector<Binding> &bindings);
  bool checkSlice();
  bool checkQuant(bool perChannel);
  bool checkMac();
  bool checkWindow(int64_t inH, int64_t inW, int64_t outH, int64_t outW,
                   int64_t kh, int64_t kw);

  const Task &task;
  const npu::NpuConfig &config;
  std::string prefix;
  std::optional<std::string> error;
};

bool TaskChecker::check(const std::vector<Binding> &bindings) {
  switch (task.kind) {
  case TaskKind::DmaLoad:
  case TaskKind::DmaStore:
    return checkDma(bindings);
  case TaskKind::Slice:
    return checkSlice();
  case TaskKind::Wait:
    return true;
  }
  return fail("kind", "is unknown");
}

bool TaskChecker::checkDma(const std::vector<Binding> &bindings) {
  const Dma &d = task.dma;
  if (d.binding >= bindings.size())
    return fail("binding", "is " + std::to_string(d.binding) +
                               ", the program declares " +
                               std::to_string(bindings.size()) + " bindings");
  if (task.kind == TaskKind::DmaStore && !bindings[d.binding].writable)
    return fail("binding", "is " + std::to_string(d.binding) + " ('" +
                               bindings[d.binding].name +
                               "'), which is read-only");
  if (d.elementBytes != 1 && d.elementBytes != 2 && d.elementBytes != 4 &&
      d.elementBytes != 8)
    return fail("element_bytes", "is " + std::to_string(d.elementBytes) +
                                     ", expected 1, 2, 4 or 8");
  if (d.counts.empty() || d.counts.size() > kMaxDmaDims)
    return fail("counts", "has " + std::to_string(d.counts.size()) +
                              " dims, expected 1..4");
  if (d.dramStrides.size() != d.counts.size())
    return fail("dram_strides", "has " + std::to_string(d.dramStrides.size()) +
                                    " values for " +
                                    std::to_string(d.counts.size()) + " dims");
  if (d.lramStrides.size() != d.counts.size())
    return fail("lram_strides", "has " + std::to_string(d.lramStrides.size()) +
                                    " values for " +
                                    std::to_string(d.counts.size()) + " dims");
  Operand lram{d.lramAddress, d.counts, d.lramStrides};
  if (!operand("lram_address", lram, 0, d.elementBytes))
    return false;
  Operand dram{d.dramOffset, d.counts, d.dramStrides};
  for (int64_t s : d.dramStrides)
    if (s < 0 || s > (int64_t(1) << 40))
      return fail("dram_strides",
                  "are " + str(d.dramStrides) + ", expected values in 0..2^40");
  std::optional<ByteRange> r = operandRange(dram, d.elementBytes);
  if (!r || r->end > bindings[d.binding].size)
    return fail("dram_offset",
                "is " + std::to_string(d.dramOffset) + " with counts " +
                    str(d.counts) + " and strides " + str(d.dramStrides) +
                    ": reaches past binding " + std::to_string(d.binding) +
                    " ('" + bindings[d.binding].name + "', " +
                    std::to_string(bindings[d.binding].size) + " bytes)");
  return true;
}

bool TaskChecker::checkQuant(bool perChannel) {
  const SliceTask &s = task.slice;
  // The interpolated int16 table reads an int16 pre-activation: the
  // requantization's zero point and clip are int16's.
  int64_t lo = isLut16(s) ? -32768 : -128, hi = isLut16(s) ? 32767 : 127;
  if (!range("input_zp", s.inputZp, -128, 127) ||
      !range("output_zp", s.outputZp, lo, hi))
    return false;
  if (s.outputFormat == Format::Int8) {
    if (!range("clip_min", s.clipMin, lo, hi) ||
        !range("clip_max", s.clipMax, s.clipMin, hi))
      return false;
  }
  if (!perChannel) {
    if (!range("multiplier", s.multiplier, 0, INT32_MAX) ||
        !range("shift", s.shift, 0, 63))
      return false;
  }
  return true;
}

bool TaskChecker::checkWindow(int64_t inH, int64_t inW, int64_t outH,
                              int64_t outW, int64_t kh, int64_t kw) {
  const SliceTask &s = task.slice;
  if (!list("stride", s.stride, 2, 1, 64) ||
      !list("dilation", s.dilation, 2, 1, 64) ||
      !list("pad", s.pad, 4, 0, 1 << 16))
    return false;
  __int128 needH =
      __int128(outH - 1) * s.stride[0] + __int128(s.dilation[0]) * (kh - 1) + 1;
  __int128 needW =
      __int128(outW - 1) * s.stride[1] + __int128(s.dilation[1]) * (kw - 1) + 1;
  if (needH > __int128(inH) + s.pad[0] + s.pad[2])
    return fail("output", "has " + std::to_string(outH) +
                              " rows, more than the padded input allows (" +
                              std::to_string(inH) + " rows, pad " + str(s.pad) +
                              ")");
  if (needW > __int128(inW) + s.pad[1] + s.pad[3])
    return fail("output", "has " + std::to_string(outW) +
                              " columns, more than the padded input allows (" +
                              std::to_string(inW) + " columns, pad " +
                              str(s.pad) + ")");
  return true;
}

/// conv2d, depthwise_conv2d, fully_connected, matmul.
bool TaskChecker::checkMac() {
  const SliceTask &s = task.slice;
  bool bf16 = s.format == Format::BF16;
  if (s.format != Format::Int8 && !bf16)
    return fail("format", std::string("is ") + formatName(s.format) +
                              ", expected int8 or bf16");
  if (bf16 && s.outputFormat != Format::BF16)
    return fail("output_format", std::string("is ") +
                                     formatName(s.outputFormat) +
                                     ", expected bf16 for a bf16 input");
  if (!bf16 && s.outputFormat != Format::Int8 &&
      s.outputFormat != Format::Int32)
    return fail("output_format", std::string("is ") +
                                     formatName(s.outputFormat) +
                                     ", expected int8 or int32");
  if (s.outputFormat == Format::Int32 && config.accumulatorBits > 32)
    return fail("output_format", "is int32 but the accumulators are " +
                                     std::to_string(config.accumulatorBits) +
                                     " bits wide");
  int64_t eb = formatBytes(s.format);
  int64_t ob = formatBytes(s.outputFormat);
  int64_t B = config.weightChannelBlock;
  auto blocks = [&](int64_t c) { return (c + B - 1) / B; };
  int64_t channels = 0; // output channels: the scale_bias rows
  switch (s.kernel) {
  case KernelKind::Conv2D: {
    if (!operand("input", s.input, 4, eb) ||
        !operand("weights", s.weights, 5, eb) ||
        !operand("output", s.output, 4, ob))
      return false;
    const auto &in = s.input.dims, &w = s.weights.dims, &out = s.output.dims;
    channels = out[1];
    if (!range("groups", s.groups, 1, in[1]))
      return false;
    if (in[1] % s.groups || out[1] % s.groups)
      return fail("groups", "is " + std::to_string(s.groups) +
                                ", which divides neither the input's " +
                                std::to_string(in[1]) + " nor the output's " +
                                std::to_string(out[1]) + " channels");
    if (!dimsEq("weights", s.weights,
                {blocks(out[1]), in[1] / s.groups, w[2], w[3], B}) ||
        !dimsEq("output", s.output, {in[0], out[1], out[2], out[3]}) ||
        !checkWindow(in[2], in[3], out[2], out[3], w[2], w[3]))
      return false;
    break;
  }
  case KernelKind::DepthwiseConv2D: {
    if (!operand("input", s.input, 4, eb) ||
        !operand("weights", s.weights, 4, eb) ||
        !operand("output", s.output, 4, ob))
      return false;
    const auto &in = s.input.dims, &w = s.weights.dims, &out = s.output.dims;
    channels = in[1];
    if (!dimsEq("weights", s.weights, {blocks(in[1]), w[1], w[2], B}) ||
        !dimsEq("output", s.output, {in[0], in[1], out[2], out[3]}) ||
        !checkWindow(in[2], in[3], out[2], out[3], w[1], w[2]))
      return false;
    break;
  }
  case KernelKind::FullyConnected: {
    if (!operand("input", s.input, 2, eb) ||
        !operand("weights", s.weights, 3, eb) ||
        !operand("output", s.output, 2, ob))
      return false;
    const auto &in = s.input.dims, &out = s.output.dims;
    channels = out[1];
    if (!dimsEq("weights", s.weights, {blocks(out[1]), in[1], B}) ||
        !dimsEq("output", s.output, {in[0], out[1]}))
      return false;
    break;
  }
  case KernelKind::MatMul: {
    if (!operand("input", s.input, 3, eb) ||
        !operand("weights", s.weights, 3, eb) ||
        !operand("output", s.output, 3, ob))
      return false;
    const auto &in = s.input.dims, &w = s.weights.dims;
    channels = w[2];
    if (!dimsEq("weights", s.weights, {in[0], in[2], w[2]}) ||
        !dimsEq("output", s.output, {in[0], in[1], w[2]}))
      return false;
    break;
  }
  default:
    break;
  }
  if (bf16) {
    if (s.scaleBias.present()) {
      if (!operand("scale_bias", s.scaleBias, 1, 4))
        return false;
      if (s.scaleBias.dims[0] != channels && s.scaleBias.dims[0] != 1)
        return fail("scale_bias", "dims are " + str(s.scaleBias.dims) +
                                      ", expected [" +
                                      std::to_string(channels) + "] or [1]");
    }
    if (s.clipMinF > s.clipMaxF || std::isnan(s.clipMinF) ||
        std::isnan(s.clipMaxF))
      return fail("clip_min_f", "is above clip_max_f");
  } else {
    if (!operand("scale_bias", s.scaleBias, 2, 4))
      return false;
    // Rows (bias, multiplier, shift[, output zero point]).
    if ((s.scaleBias.dims[0] != channels && s.scaleBias.dims[0] != 1) ||
        (s.scaleBias.dims[1] != 3 && s.scaleBias.dims[1] != 4))
      return fail("scale_bias", "dims are " + str(s.scaleBias.dims) +
                                    ", expected [" + std::to_string(channels) +
                                    ", 3 or 4] or [1, 3 or 4]");
    if (!checkQuant(true) || !range("weight_zp", s.weightZp, -128, 127))
      return false;
  }
  if (s.partial.present()) {
    if (bf16)
      return fail("partial", "is set on a bf16 task (int8 only)");
    if (!operand("partial", s.partial, s.output.dims.size(), 4) ||
        !dimsEq("partial", s.partial, s.output.dims))
      return false;
  }
  if (s.lut.present()) {
    // The activation unit's table after the requantization: one ([256] or
    // [1, 256]) or one per output channel ([channels, 256]); or the
    // interpolated int16 table ([513] int16) on an int16 requantization.
    if (bf16 || s.outputFormat != Format::Int8)
      return fail("lut", "needs an int8 output");
    if (isLut16(s)) {
      if (config.lut16Entries != intq::kTable16Entries)
        return fail("lut", "is an interpolated int16 table, the NPU's "
                           "lut16_entries is " +
                               std::to_string(config.lut16Entries));
      return operand("lut", s.lut, 1, 2) && absent("input2", s.input2);
    }
    if (config.lutEntries < 256)
      return fail("lut", "needs 256 entries, the NPU's table has " +
                             std::to_string(config.lutEntries));
    if (!operand("lut", s.lut, s.lut.dims.size() == 1 ? 1 : 2, 1))
      return false;
    const auto &d = s.lut.dims;
    if (d.back() != 256 || (d.size() == 2 && d[0] != 1 && d[0] != channels))
      return fail("lut", "dims are " + str(d) +
                             ", expected [256], [1, 256] "
                             "or [" +
                             std::to_string(channels) + ", 256]");
  }
  return absent("input2", s.input2);
}

bool TaskChecker::checkSlice() {
  const SliceTask &s = task.slice;
  if (!range("slice", s.slice, 0, config.slices - 1) ||
      !range("vector_mode", s.vectorMode, 0,
             static_cast<int64_t>(config.vectorModes.size()) - 1))
    return false;
  for (Format f : {s.format, s.outputFormat}) {
    bool ok =
        f == Format::Int32 ||
        (f == Format::Int8 && config.supports(npu::NumberFormat::Int8)) ||
        (f == Format::Int16 && config.supports(npu::NumberFormat::Int16)) ||
        (f == Format::BF16 && config.supports(npu::NumberFormat::BF16));
    if (!ok)
      return fail(f == s.format ? "format" : "output_format",
                  std::string("is ") + formatName(f) +
                      ", which the NPU configuration '" + config.name +
                      "' does not support");
  }
  if (s.format == Format::Int16 && s.kernel != KernelKind::Table)
    return fail("format", "is int16: only the table kernel (the interpolated "
                          "int16 table) reads int16");
  if (s.format == Format::Int32)
    return fail("format", "is int32: int32 is an output format only");
  int64_t eb = formatBytes(s.format);
  bool bf16 = s.format == Format::BF16;
  auto sameFormat = [&]() {
    if (s.outputFormat != s.format)
      return fail("output_format",
                  std::string("is ") + formatName(s.outputFormat) +
                      ", expected the input's " + formatName(s.format));
    return true;
  };
  auto noWeights = [&]() {
    return absent("weights", s.weights) && absent("scale_bias", s.scaleBias) &&
           absent("partial", s.partial);
  };
  auto rank4Window = [&](int64_t kh, int64_t kw) {
    if (!operand("input", s.input, 4, eb) ||
        !operand("output", s.output, 4, eb))
      return false;
    const auto &in = s.input.dims, &out = s.output.dims;
    if (!dimsEq("output", s.output, {in[0], in[1], out[2], out[3]}))
      return false;
    return kh == 0 || checkWindow(in[2], in[3], out[2], out[3], kh, kw);
  };
  auto quant = [&](bool withRescale) {
    if (bf16)
      return true;
    if (!checkQuant(false) || !range("rounding", int64_t(s.rounding), 0, 1))
      return false;
    if (withRescale)
      return range("input2_zp", s.input2Zp, -128, 127) &&
             range("input_multiplier", s.inputMultiplier, 0, INT32_MAX) &&
             range("input_shift", s.inputShift, 0, 63) &&
             range("input2_multiplier", s.input2Multiplier, 0, INT32_MAX) &&
             range("input2_shift", s.input2Shift, 0, 63) &&
             range("left_shift", s.leftShift, 0, 31);
    return true;
  };

  switch (s.kernel) {
  case KernelKind::Conv2D:
  case KernelKind::DepthwiseConv2D:
  case KernelKind::FullyConnected:
  case KernelKind::MatMul:
    return checkMac();
  case KernelKind::Add:
  case KernelKind::Sub:
  case KernelKind::Mul:
  case KernelKind::Min:
  case KernelKind::Max:
    if (!sameFormat() || !operand("input", s.input, 0, eb) ||
        !operand("input2", s.input2, s.input.dims.size(), eb) ||
        !operand("output", s.output, s.input.dims.size(), eb) ||
        !dimsEq("input2", s.input2, s.input.dims) ||
        !dimsEq("output", s.output, s.input.dims) || !noWeights() ||
        !absent("lut", s.lut))
      return false;
    return quant(s.kernel != KernelKind::Mul);
  case KernelKind::Rescale:
    if (!sameFormat() || !operand("input", s.input, 0, eb) ||
        !operand("output", s.output, s.input.dims.size(), eb) ||
        !dimsEq("output", s.output, s.input.dims) || !noWeights() ||
        !absent("input2", s.input2) || !absent("lut", s.lut))
      return false;
    return quant(false);
  case KernelKind::Table:
    if (s.format == Format::Int16 && s.outputFormat == Format::Int8) {
      // The interpolated int16 table: [513] int16 entries.
      if (config.lut16Entries != intq::kTable16Entries)
        return fail("format", "is int16, the NPU's lut16_entries is " +
                                  std::to_string(config.lut16Entries));
      if (!operand("input", s.input, 0, 2) ||
          !operand("output", s.output, s.input.dims.size(), 1) ||
          !dimsEq("output", s.output, s.input.dims) || !noWeights() ||
          !absent("input2", s.input2) || !operand("lut", s.lut, 1, 2))
        return false;
      if (!isLut16(s))
        return fail("lut", "dims are " + str(s.lut.dims) +
                               ", an int16 input needs the [513] table");
      return true;
    }
    if (s.format != Format::Int8)
      return fail("format", std::string("is ") + formatName(s.format) +
                                ", the lookup table maps int8 only");
    if (config.lutEntries < 256)
      return fail("lut", "needs 256 entries, the NPU's table has " +
                             std::to_string(config.lutEntries));
    if (!sameFormat() || !operand("input", s.input, 0, 1) ||
        !operand("output", s.output, s.input.dims.size(), 1) ||
        !dimsEq("output", s.output, s.input.dims) || !noWeights() ||
        !absent("input2", s.input2))
      return false;
    // One table ([256]), or one per channel ([C, 256]) of an [N, C, L]
    // input.
    if (!s.lut.present() || s.lut.dims.size() == 1)
      return operand("lut", s.lut, 1, 1) && dimsEq("lut", s.lut, {256});
    if (!operand("lut", s.lut, 2, 1))
      return false;
    if (s.input.dims.size() != 3 || s.lut.dims[1] != 256 ||
        (s.lut.dims[0] != 1 && s.lut.dims[0] != s.input.dims[1]))
      return fail("lut", "dims are " + str(s.lut.dims) +
                             ": a per-channel table is [C, 256] for an "
                             "[N, C, L] input, the input is " +
                             str(s.input.dims));
    return true;
  case KernelKind::MaxPool:
  case KernelKind::AvgPool:
    if (!sameFormat() || !list("kernel_size", s.kernelSize, 2, 1, 1 << 16) ||
        !rank4Window(s.kernelSize[0], s.kernelSize[1]) || !noWeights() ||
        !absent("input2", s.input2) || !absent("lut", s.lut))
      return false;
    return quant(false);
  case KernelKind::ReduceMean: {
    if (!sameFormat() || !operand("input", s.input, 0, eb) ||
        !operand("output", s.output, s.input.dims.size(), eb) || !noWeights() ||
        !absent("input2", s.input2) || !absent("lut", s.lut))
      return false;
    size_t r = s.input.dims.size();
    if (s.reduceAxes == 0 || (s.reduceAxes >> r) != 0)
      return fail("reduce_axes", "is " + std::to_string(s.reduceAxes) +
                                     ", expected a non-empty mask of the " +
                                     std::to_string(r) + " dims");
    std::vector<int64_t> expected = s.input.dims;
    for (size_t i = 0; i < r; ++i)
      if (s.reduceAxes >> i & 1)
        expected[i] = 1;
    return dimsEq("output", s.output, expected) && quant(false);
  }
  case KernelKind::Transpose: {
    if (!sameFormat() || !operand("input", s.input, 0, eb) ||
        !operand("output", s.output, s.input.dims.size(), eb) || !noWeights() ||
        !absent("input2", s.input2) || !absent("lut", s.lut))
      return false;
    size_t r = s.input.dims.size();
    std::vector<int64_t> sorted = s.perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int64_t>(i))
        sorted.clear();
    if (s.perm.size() != r || sorted.size() != r)
      return fail("perm", "is " + str(s.perm) + ", not a permutation of " +
                              std::to_string(r) + " dims");
    std::vector<int64_t> expected(r);
    for (size_t i = 0; i < r; ++i)
      expected[i] = s.input.dims[s.perm[i]];
    return dimsEq("output", s.output, expected);
  }
  case KernelKind::ResizeNearest:
    return sameFormat() && rank4Window(0, 0) && noWeights() &&
           absent("input2", s.input2) && absent("lut", s.lut);
  case KernelKind::DepthToSpace: {
    if (!sameFormat() || !range("block", s.block, 1, 64) ||
        !operand("input", s.input, 4, eb) ||
        !operand("output", s.output, 4, eb) || !noWeights() ||
        !absent("input2", s.input2) || !absent("lut", s.lut))
      return false;
    const auto &in = s.input.dims;
    int64_t bb = s.block * s.block;
    if (in[1] % bb)
      return fail("block", "is " + std::to_string(s.block) + ": the input's " +
                               std::to_string(in[1]) +
                               " channels are not a multiple of " +
                               std::to_string(bb));
    return dimsEq("output", s.output,
                  {in[0], in[1] / bb, in[2] * s.block, in[3] * s.block});
  }
  case KernelKind::Convert: {
    int64_t ob = formatBytes(s.outputFormat);
    if (s.outputFormat != Format::Int8 && s.outputFormat != Format::BF16)
      return fail("output_format", std::string("is ") +
                                       formatName(s.outputFormat) +
                                       ", expected int8 or bf16");
    if (!operand("input", s.input, 0, eb) ||
        !operand("output", s.output, s.input.dims.size(), ob) ||
        !dimsEq("output", s.output, s.input.dims) || !noWeights() ||
        !absent("input2", s.input2) || !absent("lut", s.lut))
      return false;
    if (s.format == Format::Int8 && s.outputFormat == Format::Int8)
      return quant(false);
    if (!std::isfinite(s.scale))
      return fail("scale", "is " + std::to_string(s.scale) +
                               ", expected a finite scale (0: float_scale)");
    if (s.scale == 0.0 &&
        (!std::isfinite(s.floatScale) || s.floatScale == 0.0f))
      return fail("float_scale", "is " + std::to_string(s.floatScale) +
                                     ", expected a finite non-zero scale");
    if (s.format == Format::Int8)
      return range("input_zp", s.inputZp, -128, 127);
    return range("output_zp", s.outputZp, -128, 127) &&
           range("clip_min", s.clipMin, -128, 127) &&
           range("clip_max", s.clipMax, s.clipMin, 127);
  }
  }
  return fail("kernel", "is unknown");
}
} // namespace

std::optional<std::string>
npusim::verifyTask(const Task &task, const npu::NpuConfig &config,
                   const std::vector<Binding> &bindings, int64_t index) {
  TaskChecker checker(task, config, index);
  checker.check(bindings);
  return checker.take();
}

LramAccess npusim::lramAccess(const Task &t) {
  LramAccess a;
  if (t.kind == TaskKind::DmaLoad || t.kind == TaskKind::DmaStore) {
    Operand op{t.dma.lramAddress, t.dma.counts, t.dma.lramStrides};
    if (auto r = operandRange(op, t.dma.elementBytes))
      (t.kind == TaskKind::DmaLoad ? a.writes : a.reads).push_back(*r);
    return a;
  }
  if (t.kind != TaskKind::Slice)
    return a;
  const SliceTask &s = t.slice;
  int64_t eb = formatBytes(s.format);
  auto add = [&](const Operand &op, int64_t bytes, bool write) {
    if (!op.present())
      return;
    if (auto r = operandRange(op, bytes))
      (write ? a.writes : a.reads).push_back(*r);
  };
  add(s.input, eb, false);
  add(s.input2, eb, false);
  add(s.weights, eb, false);
  add(s.scaleBias, 4, false);
  add(s.partial, 4, false);
  add(s.lut, lutElementBytes(s), false);
  add(s.output, formatBytes(s.outputFormat), true);
  return a;
}

namespace {
bool overlaps(const std::vector<ByteRange> &x, const std::vector<ByteRange> &y,
              ByteRange &where) {
  for (const ByteRange &a : x)
    for (const ByteRange &b : y)
      if (a.begin < b.end && b.begin < a.end) {
        where = {std::max(a.begin, b.begin), std::min(a.end, b.end)};
        return true;
      }
  return false;
}

std::string taskLabel(const Task &t, int64_t index) {
  std::string s = "task " + std::to_string(index) + " (" + taskKindName(t.kind);
  if (t.kind == TaskKind::Slice)
    s += std::string(" ") + kernelName(t.slice.kernel);
  if (!t.name.empty())
    s += " '" + t.name + "'";
  return s + ")";
}
} // namespace

std::optional<Race> npusim::findRace(const Program &program) {
  struct Pending {
    int queue;
    int64_t index;
    const Task *task;
    LramAccess access;
  };
  std::vector<Pending> interval;
  int64_t index = 0;
  for (const Segment &seg : program.segments) {
    for (const Task &task : seg.tasks) {
      if (task.kind == TaskKind::Wait) {
        interval.clear();
        ++index;
        continue;
      }
      int queue = task.kind == TaskKind::Slice
                      ? 1 + static_cast<int>(task.slice.slice)
                      : 0;
      LramAccess acc = lramAccess(task);
      for (const Pending &p : interval) {
        if (p.queue == queue)
          continue;
        ByteRange r;
        if (overlaps(acc.writes, p.access.reads, r) ||
            overlaps(acc.writes, p.access.writes, r) ||
            overlaps(acc.reads, p.access.writes, r))
          return Race{index, taskLabel(task, index) + " races with " +
                                 taskLabel(*p.task, p.index) +
                                 " on another queue: both touch LRAM bytes [" +
                                 std::to_string(r.begin) + ", " +
                                 std::to_string(r.end) +
                                 "), one writing, with no wait between them"};
      }
      interval.push_back({queue, index, &task, std::move(acc)});
      ++index;
    }
    interval.clear();
  }
  return std::nullopt;
}

std::optional<std::string> npusim::verifyProgram(const Program &program) {
  if (program.version != kIsaVersion)
    return "npu program: ISA version " + std::to_string(program.version) +
           ", expected " + std::to_string(kIsaVersion);
  if (std::optional<std::string> err = npu::validateNpuConfig(program.config))
    return "npu program: " + *err;
  int64_t index = 0;
  for (const Segment &seg : program.segments)
    for (const Task &task : seg.tasks)
      if (std::optional<std::string> err =
              verifyTask(task, program.config, program.bindings, index++))
        return "npu program: " + *err;
  if (std::optional<Race> race = findRace(program))
    return "npu program: " + race->message;
  return std::nullopt;
}
