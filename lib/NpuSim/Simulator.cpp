//===- Simulator.cpp - execution and cycle model of NPU programs ----------===//
//
// The execution semantics and the cycle model are docs/npu-sim.md's; every
// requantization goes through strata::intq, the one definition the
// interpreter and the CPU kernels share.
//
//===----------------------------------------------------------------------===//

#include "strata/NpuSim/Simulator.h"

#include "strata/Support/FloatBits.h"
#include "strata/Support/IntegerRequant.h"
#include "strata/Support/IntegerTable16.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

using namespace strata;
using namespace strata::npusim;

//===----------------------------------------------------------------------===//
// Cycle model
//===----------------------------------------------------------------------===//

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

int64_t product(const std::vector<int64_t> &dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

int64_t operandBytes(const Operand &op, int64_t elementBytes) {
  return op.present() ? product(op.dims) * elementBytes : 0;
}
} // namespace

TaskCost npusim::taskCost(const Task &task, const npu::NpuConfig &config) {
  TaskCost c;
  if (task.kind == TaskKind::Wait)
    return c;
  if (task.kind != TaskKind::Slice) {
    c.dmaBytes =
        static_cast<uint64_t>(product(task.dma.counts)) * task.dma.elementBytes;
    // Saturated at 2^40: a valid configuration may make the bandwidth tiny.
    double cycles = std::ceil(static_cast<double>(c.dmaBytes) /
                              config.effectiveDmaBytesPerCycle());
    c.memory =
        cycles < 0x1p40 ? static_cast<int64_t>(cycles) : (int64_t(1) << 40);
    c.cycles = config.dmaSetupCycles + c.memory;
    return c;
  }
  const SliceTask &s = task.slice;
  const npu::VectorMode &mode = config.vectorModes[s.vectorMode];
  int64_t p = mode.pixels, ch = mode.channels;
  const auto &out = s.output.dims;
  int64_t outElems = product(out);
  switch (s.kernel) {
  case KernelKind::Conv2D: {
    const auto &w = s.weights.dims;
    int64_t pixels = out[0] * out[2] * out[3];
    int64_t red = w[1] * w[2] * w[3];
    int64_t perGroup = out[1] / s.groups;
    c.macs = pixels * out[1] * red;
    c.compute = ceilDiv(pixels, p) * s.groups * ceilDiv(perGroup, ch) * red;
    break;
  }
  case KernelKind::DepthwiseConv2D: {
    const auto &w = s.weights.dims;
    int64_t pixels = out[0] * out[2] * out[3];
    c.macs = pixels * out[1] * w[1] * w[2];
    c.compute = ceilDiv(pixels, p) * ceilDiv(out[1], ch) * w[1] * w[2];
    break;
  }
  case KernelKind::FullyConnected: {
    int64_t k = s.input.dims[1];
    c.macs = out[0] * out[1] * k;
    c.compute = ceilDiv(out[0], p) * ceilDiv(out[1], ch) * k;
    break;
  }
  case KernelKind::MatMul: {
    int64_t k = s.input.dims[2];
    c.macs = out[0] * out[1] * out[2] * k;
    c.compute = ceilDiv(out[0] * out[1], p) * ceilDiv(out[2], ch) * k;
    break;
  }
  case KernelKind::MaxPool:
  case KernelKind::AvgPool:
    c.compute = ceilDiv(outElems * s.kernelSize[0] * s.kernelSize[1],
                        config.macsPerSlice);
    break;
  case KernelKind::ReduceMean:
    c.compute = ceilDiv(product(s.input.dims), config.macsPerSlice);
    break;
  default:
    break;
  }
  c.activation = ceilDiv(outElems, config.activationWidth);
  // The interpolated int16 table reads two entries and multiplies per
  // element: the activation unit runs at half its rate (docs/npu-sim.md).
  if (isLut16(s))
    c.activation *= 2;
  // Each address generator moves up to the widest vector mode's pixel count
  // of bytes per cycle; the busiest one bounds the task.
  int64_t bus = 1;
  for (const npu::VectorMode &m : config.vectorModes)
    bus = std::max(bus, m.pixels);
  int64_t eb = formatBytes(s.format);
  int64_t ob = formatBytes(s.outputFormat);
  int64_t busiest = std::max(
      {operandBytes(s.input, eb), operandBytes(s.input2, eb),
       operandBytes(s.weights, eb), operandBytes(s.scaleBias, 4),
       operandBytes(s.partial, 4), operandBytes(s.lut, lutElementBytes(s)),
       operandBytes(s.output, ob)});
  c.memory = ceilDiv(busiest, bus);
  c.cycles =
      std::max({c.compute, c.activation, c.memory}) + config.taskSetupCycles;
  // Saturated at 2^40 cycles (23 minutes at 800 MHz), so sums over any
  // program stay far from overflowing.
  c.cycles = std::min(c.cycles, int64_t(1) << 40);
  return c;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

namespace {
/// Reads and writes operand elements in LRAM (ranges verified already).
struct Lram {
  uint8_t *base;

  static uint64_t at(const Operand &op, std::initializer_list<int64_t> idx) {
    uint64_t a = op.address;
    size_t i = 0;
    for (int64_t x : idx)
      a += static_cast<uint64_t>(x * op.strides[i++]);
    return a;
  }
  static uint64_t at(const Operand &op, const std::vector<int64_t> &idx) {
    uint64_t a = op.address;
    for (size_t i = 0; i < idx.size(); ++i)
      a += static_cast<uint64_t>(idx[i] * op.strides[i]);
    return a;
  }
  int64_t i8(uint64_t a) const { return static_cast<int8_t>(base[a]); }
  int64_t i16(uint64_t a) const {
    int16_t v;
    std::memcpy(&v, base + a, 2);
    return v;
  }
  int64_t i32(uint64_t a) const {
    int32_t v;
    std::memcpy(&v, base + a, 4);
    return v;
  }
  float f32(uint64_t a) const {
    float v;
    std::memcpy(&v, base + a, 4);
    return v;
  }
  float bf16(uint64_t a) const {
    uint16_t v;
    std::memcpy(&v, base + a, 2);
    return bf16ToFloat(v);
  }
  void setI8(uint64_t a, int64_t v) { base[a] = static_cast<uint8_t>(v); }
  void setI32(uint64_t a, int64_t v) {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(base + a, &x, 4);
  }
  void setBf16(uint64_t a, float f) {
    uint16_t v = floatToBF16(f);
    std::memcpy(base + a, &v, 2);
  }
  /// Reads an element of `f` as a float (bf16) or an integer (int8).
  double load(Format f, uint64_t a) const {
    return f == Format::BF16 ? bf16(a) : static_cast<double>(i8(a));
  }
};

/// Calls fn(idx) for every index of `dims`, row-major.
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &dims, Fn fn) {
  std::vector<int64_t> idx(dims.size(), 0);
  if (product(dims) == 0)
    return;
  while (true) {
    fn(idx);
    int64_t i = static_cast<int64_t>(dims.size()) - 1;
    for (; i >= 0; --i) {
      if (++idx[i] < dims[i])
        break;
      idx[i] = 0;
    }
    if (i < 0)
      return;
  }
}

int64_t wrapAccumulator(uint64_t v, int64_t bits) {
  if (bits >= 64)
    return static_cast<int64_t>(v);
  int64_t sh = 64 - bits;
  return static_cast<int64_t>(v << sh) >> sh;
}

int64_t requant(Rounding r, int64_t x, int64_t m, int64_t s, int64_t zp,
                int64_t lo, int64_t hi) {
  return r == Rounding::TFLite
             ? intq::requantTFLite(x, m, s, zp, lo, hi)
             : intq::requantMultiplierShift(x, m, s, zp, lo, hi);
}

/// Rescales one elementwise input: (x << left_shift) * m / 2^s, rounded by
/// the task's rounding mode, not clamped (TFLite: saturated to int32).
int64_t rescaleInput(Rounding r, int64_t x, int64_t leftShift, int64_t m,
                     int64_t s) {
  int64_t shifted = x * (int64_t(1) << leftShift);
  if (r == Rounding::TFLite)
    return intq::requantTFLite(shifted, m, s, 0, INT32_MIN, INT32_MAX);
  // Saturated to +-(2^63 - 1) as HL's rescale (unreachable with int8
  // inputs and multipliers below 2^31 unless the shift is tiny).
  __int128 v = intq::roundingRightShift(static_cast<__int128>(shifted) * m, s);
  return static_cast<int64_t>(std::clamp<__int128>(v, -INT64_MAX, INT64_MAX));
}

float clampF(float v, float lo, float hi) {
  if (std::isnan(v))
    return v;
  return std::min(std::max(v, lo), hi);
}

/// Executes one verified slice task.
class SliceExec {
public:
  SliceExec(const SliceTask &s, const npu::NpuConfig &cfg, uint8_t *lram,
            std::string &error)
      : s(s), cfg(cfg), m{lram}, error(error) {}

  bool run();

private:
  bool mac();
  bool convInt8();
  bool dotInt8();
  bool channelParams(int64_t c, int64_t &bias, int64_t &mult, int64_t &shift,
                     int64_t &zp);
  void elementwise();
  void pool();
  void reduceMean();
  void dataMove();
  void convert();

  /// Whether an int8 MAC task reads its scale_bias rows: for the bias
  /// (no partial sums) or for requantizing (an int8 output).
  bool needsChannelParams() const {
    return !s.partial.present() || s.outputFormat == Format::Int8;
  }

  /// Wraps an int8 MAC accumulator to the configured width and writes it
  /// raw (int32 output) or requantized (int8) with output zero point `zp`,
  /// then (a `lut` operand) looked up in channel `c`'s table.
  void storeAccumulator(uint64_t address, int64_t acc, int64_t mult,
                        int64_t shift, int64_t zp, int64_t c) {
    int64_t v =
        wrapAccumulator(static_cast<uint64_t>(acc), cfg.accumulatorBits);
    if (s.outputFormat == Format::Int32) {
      m.setI32(address, v);
      return;
    }
    int64_t q = requant(s.rounding, v, mult, shift, zp, s.clipMin, s.clipMax);
    if (!lut16.empty()) {
      // The int16 pre-activation (zero point and clip in int16) through
      // the interpolated table.
      m.setI8(address, intq::table16Lookup(lut16.data(),
                                           static_cast<int16_t>(q), -128, 127));
      return;
    }
    m.setI8(address, s.lut.present() ? lookup(c, q) : q);
  }

  int64_t finishInt(int64_t acc, int64_t mult, int64_t shift) const {
    return requant(s.rounding, acc, mult, shift, s.outputZp, s.clipMin,
                   s.clipMax);
  }

  /// Entry `x + 128` of the `lut` operand: its row `c` when it has one per
  /// channel (dims [C, 256]), else its only table ([256] or [1, 256]).
  int64_t lookup(int64_t c, int64_t x) const {
    if (s.lut.dims.size() == 1)
      return m.i8(Lram::at(s.lut, {x + 128}));
    return m.i8(Lram::at(s.lut, {s.lut.dims[0] == 1 ? 0 : c, x + 128}));
  }

  const SliceTask &s;
  const npu::NpuConfig &cfg;
  Lram m;
  std::string &error;
  /// The interpolated int16 table's entries (isLut16), read once per task.
  std::vector<int16_t> lut16;
};

bool SliceExec::channelParams(int64_t c, int64_t &bias, int64_t &mult,
                              int64_t &shift, int64_t &zp) {
  int64_t row = s.scaleBias.dims[0] == 1 ? 0 : c;
  bias = m.i32(Lram::at(s.scaleBias, {row, 0}));
  mult = m.i32(Lram::at(s.scaleBias, {row, 1}));
  shift = m.i32(Lram::at(s.scaleBias, {row, 2}));
  // A fourth column: the channel's output zero point, added to output_zp.
  zp = s.outputZp;
  if (s.scaleBias.dims[1] == 4)
    zp += m.i32(Lram::at(s.scaleBias, {row, 3}));
  if (shift < 0 || shift > 63) {
    error = "field 'scale_bias' row " + std::to_string(row) + " holds shift " +
            std::to_string(shift) + ", expected 0..63";
    return false;
  }
  // An int16 pre-activation (the interpolated table's input) has int16's
  // zero points.
  int64_t zpLo = isLut16(s) ? -32768 : -128, zpHi = isLut16(s) ? 32767 : 127;
  if (zp < zpLo || zp > zpHi) {
    error = "field 'scale_bias' row " + std::to_string(row) +
            " gives output zero point " + std::to_string(zp) + ", expected " +
            std::to_string(zpLo) + ".." + std::to_string(zpHi);
    return false;
  }
  return true;
}

/// int8 conv2d / depthwise: the same sums as the generic loop of mac(), in
/// another order (integer sums are exact below 2^63: at most 2^30 products
/// of at most 2^16 each, wrapped to the accumulator width at the end), one
/// output plane at a time with the weight hoisted out of the pixel loops.
bool SliceExec::convInt8() {
  bool dw = s.kernel == KernelKind::DepthwiseConv2D;
  const auto &in = s.input.dims, &w = s.weights.dims, &out = s.output.dims;
  const auto &is = s.input.strides;
  int64_t B = cfg.weightChannelBlock;
  int64_t kh = dw ? w[1] : w[2], kw = dw ? w[2] : w[3];
  int64_t icPerGroup = dw ? 1 : w[1];
  int64_t ocPerGroup = dw ? 1 : out[1] / s.groups;
  int64_t OH = out[2], OW = out[3];
  std::vector<int64_t> acc(static_cast<size_t>(OH * OW));
  for (int64_t n = 0; n < out[0]; ++n)
    for (int64_t o = 0; o < out[1]; ++o) {
      int64_t bias = 0, mult = 0, shift = 0, zp = 0;
      if (needsChannelParams() && !channelParams(o, bias, mult, shift, zp))
        return false;
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox)
          acc[oy * OW + ox] = s.partial.present()
                                  ? m.i32(Lram::at(s.partial, {n, o, oy, ox}))
                                  : bias;
      int64_t g = o / ocPerGroup;
      for (int64_t ic = 0; ic < icPerGroup; ++ic) {
        int64_t c = dw ? o : g * icPerGroup + ic;
        for (int64_t ky = 0; ky < kh; ++ky)
          for (int64_t kx = 0; kx < kw; ++kx) {
            // Output columns whose input column is inside the input.
            int64_t off = kx * s.dilation[1] - s.pad[1];
            int64_t lo = off >= 0 ? 0 : (-off + s.stride[1] - 1) / s.stride[1];
            int64_t hi =
                in[3] - 1 - off < 0
                    ? -1
                    : std::min(OW - 1, (in[3] - 1 - off) / s.stride[1]);
            int64_t wv =
                m.i8(dw ? Lram::at(s.weights, {o / B, ky, kx, o % B})
                        : Lram::at(s.weights, {o / B, ic, ky, kx, o % B})) -
                s.weightZp;
            if (wv == 0 || lo > hi)
              continue;
            for (int64_t oy = 0; oy < OH; ++oy) {
              int64_t iy = oy * s.stride[0] - s.pad[0] + ky * s.dilation[0];
              if (iy < 0 || iy >= in[2])
                continue;
              const uint8_t *row =
                  m.base + s.input.address + n * is[0] + c * is[1] + iy * is[2];
              int64_t *a = acc.data() + oy * OW;
              int64_t step = s.stride[1] * is[3];
              const uint8_t *px = row + (lo * s.stride[1] + off) * is[3];
              for (int64_t ox = lo; ox <= hi; ++ox, px += step)
                a[ox] += (static_cast<int8_t>(*px) - s.inputZp) * wv;
            }
          }
      }
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          storeAccumulator(Lram::at(s.output, {n, o, oy, ox}),
                           acc[oy * OW + ox], mult, shift, zp, o);
        }
    }
  return true;
}

/// int8 fully_connected / matmul: mac()'s sums with the address arithmetic
/// hoisted out of the reduction loop.
bool SliceExec::dotInt8() {
  bool fc = s.kernel == KernelKind::FullyConnected;
  const auto &out = s.output.dims;
  const auto &xs = s.input.strides, &ws = s.weights.strides;
  int64_t B = cfg.weightChannelBlock;
  int64_t k = fc ? s.input.dims[1] : s.input.dims[2];
  int64_t batches = fc ? 1 : out[0];
  int64_t rows = fc ? out[0] : out[1], cols = fc ? out[1] : out[2];
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        std::vector<int64_t> oi =
            fc ? std::vector<int64_t>{r, c} : std::vector<int64_t>{b, r, c};
        int64_t bias = 0, mult = 0, shift = 0, zp = 0;
        if (needsChannelParams() && !channelParams(c, bias, mult, shift, zp))
          return false;
        int64_t acc =
            s.partial.present() ? m.i32(Lram::at(s.partial, oi)) : bias;
        const uint8_t *x =
            m.base + s.input.address + (fc ? r * xs[0] : b * xs[0] + r * xs[1]);
        const uint8_t *w =
            m.base + s.weights.address +
            (fc ? (c / B) * ws[0] + (c % B) * ws[2] : b * ws[0] + c * ws[2]);
        int64_t xStep = fc ? xs[1] : xs[2], wStep = ws[1];
        for (int64_t i = 0; i < k; ++i)
          acc += (static_cast<int8_t>(x[i * xStep]) - s.inputZp) *
                 (static_cast<int8_t>(w[i * wStep]) - s.weightZp);
        storeAccumulator(Lram::at(s.output, oi), acc, mult, shift, zp, c);
      }
  return true;
}

bool SliceExec::mac() {
  bool conv =
      s.kernel == KernelKind::Conv2D || s.kernel == KernelKind::DepthwiseConv2D;
  if (s.format != Format::BF16)
    return conv ? convInt8() : dotInt8();
  // bf16: one output element at a time, the f32 sum starting from the bias
  // and adding in the contract's order (ic, kh, kw; i; k).
  const auto &out = s.output.dims;
  int64_t B = cfg.weightChannelBlock;
  auto start = [&](int64_t c) {
    if (!s.scaleBias.present())
      return 0.0f;
    return m.f32(
        Lram::at(s.scaleBias, {s.scaleBias.dims[0] == 1 ? int64_t(0) : c}));
  };
  auto finish = [&](float acc, const std::vector<int64_t> &outIdx) {
    m.setBf16(Lram::at(s.output, outIdx), clampF(acc, s.clipMinF, s.clipMaxF));
  };
  switch (s.kernel) {
  case KernelKind::Conv2D:
  case KernelKind::DepthwiseConv2D: {
    bool dw = s.kernel == KernelKind::DepthwiseConv2D;
    const auto &in = s.input.dims, &w = s.weights.dims;
    int64_t kh = dw ? w[1] : w[2], kw = dw ? w[2] : w[3];
    int64_t icPerGroup = dw ? 1 : w[1];
    int64_t ocPerGroup = dw ? 1 : out[1] / s.groups;
    for (int64_t n = 0; n < out[0]; ++n)
      for (int64_t o = 0; o < out[1]; ++o)
        for (int64_t oy = 0; oy < out[2]; ++oy)
          for (int64_t ox = 0; ox < out[3]; ++ox) {
            float acc = start(o);
            int64_t g = o / ocPerGroup;
            for (int64_t ic = 0; ic < icPerGroup; ++ic)
              for (int64_t ky = 0; ky < kh; ++ky) {
                int64_t iy = oy * s.stride[0] - s.pad[0] + ky * s.dilation[0];
                if (iy < 0 || iy >= in[2])
                  continue;
                for (int64_t kx = 0; kx < kw; ++kx) {
                  int64_t ix = ox * s.stride[1] - s.pad[1] + kx * s.dilation[1];
                  if (ix < 0 || ix >= in[3])
                    continue;
                  int64_t c = dw ? o : g * icPerGroup + ic;
                  uint64_t wa =
                      dw ? Lram::at(s.weights, {o / B, ky, kx, o % B})
                         : Lram::at(s.weights, {o / B, ic, ky, kx, o % B});
                  // Two statements: never contracted into an FMA (HL
                  // rounds the product first).
                  float prod =
                      m.bf16(Lram::at(s.input, {n, c, iy, ix})) * m.bf16(wa);
                  acc = acc + prod;
                }
              }
            finish(acc, {n, o, oy, ox});
          }
    return true;
  }
  case KernelKind::FullyConnected:
    for (int64_t n = 0; n < out[0]; ++n)
      for (int64_t o = 0; o < out[1]; ++o) {
        float acc = start(o);
        for (int64_t i = 0; i < s.input.dims[1]; ++i) {
          float prod = m.bf16(Lram::at(s.input, {n, i})) *
                       m.bf16(Lram::at(s.weights, {o / B, i, o % B}));
          acc = acc + prod;
        }
        finish(acc, {n, o});
      }
    return true;
  default: // MatMul
    for (int64_t b = 0; b < out[0]; ++b)
      for (int64_t r = 0; r < out[1]; ++r)
        for (int64_t c = 0; c < out[2]; ++c) {
          float acc = start(c);
          for (int64_t i = 0; i < s.input.dims[2]; ++i) {
            float prod = m.bf16(Lram::at(s.input, {b, r, i})) *
                         m.bf16(Lram::at(s.weights, {b, i, c}));
            acc = acc + prod;
          }
          finish(acc, {b, r, c});
        }
    return true;
  }
}

void SliceExec::elementwise() {
  bool bf16 = s.format == Format::BF16;
  forEachIndex(s.output.dims, [&](const std::vector<int64_t> &idx) {
    uint64_t aa = Lram::at(s.input, idx), ba = Lram::at(s.input2, idx);
    uint64_t oa = Lram::at(s.output, idx);
    if (bf16) {
      float a = m.bf16(aa), b = m.bf16(ba), r = 0;
      switch (s.kernel) {
      case KernelKind::Add:
        r = a + b;
        break;
      case KernelKind::Sub:
        r = a - b;
        break;
      case KernelKind::Mul:
        r = a * b;
        break;
      // std::min / std::max as HL (and Top): a NaN right operand loses,
      // a NaN left operand wins.
      case KernelKind::Min:
        r = b < a ? b : a;
        break;
      default:
        r = a < b ? b : a;
        break;
      }
      m.setBf16(oa, clampF(r, s.clipMinF, s.clipMaxF));
      return;
    }
    int64_t a = m.i8(aa) - s.inputZp, b = m.i8(ba) - s.input2Zp;
    if (s.kernel == KernelKind::Mul) {
      m.setI8(oa, finishInt(a * b, s.multiplier, s.shift));
      return;
    }
    int64_t ra = rescaleInput(s.rounding, a, s.leftShift, s.inputMultiplier,
                              s.inputShift);
    int64_t rb = rescaleInput(s.rounding, b, s.leftShift, s.input2Multiplier,
                              s.input2Shift);
    int64_t r = s.kernel == KernelKind::Add   ? ra + rb
                : s.kernel == KernelKind::Sub ? ra - rb
                : s.kernel == KernelKind::Min ? std::min(ra, rb)
                                              : std::max(ra, rb);
    m.setI8(oa, finishInt(r, s.multiplier, s.shift));
  });
}

/// `round_half_away_from_zero(sum / count)`, 0 for an empty window: the
/// integer mean of avg_pool and reduce_mean (before their requantization).
int64_t roundedMean(int64_t sum, int64_t count) {
  if (count <= 0)
    return 0;
  int64_t q = (std::llabs(sum) + count / 2) / count;
  return sum < 0 ? -q : q;
}

void SliceExec::pool() {
  bool bf16 = s.format == Format::BF16;
  bool isMax = s.kernel == KernelKind::MaxPool;
  const auto &in = s.input.dims, &out = s.output.dims;
  int64_t kh = s.kernelSize[0], kw = s.kernelSize[1];
  for (int64_t n = 0; n < out[0]; ++n)
    for (int64_t c = 0; c < out[1]; ++c)
      for (int64_t oy = 0; oy < out[2]; ++oy)
        for (int64_t ox = 0; ox < out[3]; ++ox) {
          // An empty window's max is the lowest value (-128; bf16 -inf).
          int64_t count = 0, sum = 0, best = -128 - s.inputZp;
          float sumF = 0, bestF = -INFINITY;
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              int64_t iy = oy * s.stride[0] - s.pad[0] + ky * s.dilation[0];
              int64_t ix = ox * s.stride[1] - s.pad[1] + kx * s.dilation[1];
              if (iy < 0 || iy >= in[2] || ix < 0 || ix >= in[3])
                continue;
              uint64_t a = Lram::at(s.input, {n, c, iy, ix});
              ++count;
              if (bf16) {
                float v = m.bf16(a);
                sumF = sumF + v;
                // HL's std::max: a NaN tap never wins.
                bestF = bestF < v ? v : bestF;
              } else {
                int64_t v = m.i8(a) - s.inputZp;
                sum += v;
                best = std::max(best, v);
              }
            }
          uint64_t oa = Lram::at(s.output, {n, c, oy, ox});
          int64_t divisor = s.countIncludePad ? kh * kw : count;
          if (bf16) {
            float r =
                isMax ? bestF
                      : (divisor ? sumF / static_cast<float>(divisor) : 0.0f);
            m.setBf16(oa, r);
          } else if (isMax) {
            m.setI8(oa, std::clamp(best + s.outputZp, s.clipMin, s.clipMax));
          } else {
            m.setI8(oa, finishInt(roundedMean(sum, divisor), s.multiplier,
                                  s.shift));
          }
        }
}

void SliceExec::reduceMean() {
  bool bf16 = s.format == Format::BF16;
  const auto &in = s.input.dims;
  std::vector<int64_t> outerDims = s.output.dims, innerDims(in.size(), 1);
  for (size_t i = 0; i < in.size(); ++i)
    if (s.reduceAxes >> i & 1)
      innerDims[i] = in[i];
  int64_t count = product(innerDims);
  std::vector<int64_t> idx(in.size());
  forEachIndex(outerDims, [&](const std::vector<int64_t> &o) {
    int64_t sum = 0;
    float sumF = 0;
    forEachIndex(innerDims, [&](const std::vector<int64_t> &r) {
      for (size_t i = 0; i < in.size(); ++i)
        idx[i] = o[i] + r[i];
      uint64_t a = Lram::at(s.input, idx);
      if (bf16)
        sumF = sumF + m.bf16(a);
      else
        sum += m.i8(a) - s.inputZp;
    });
    uint64_t oa = Lram::at(s.output, o);
    if (bf16)
      m.setBf16(oa, sumF / static_cast<float>(count));
    else
      m.setI8(oa, finishInt(roundedMean(sum, count), s.multiplier, s.shift));
  });
}

/// Rescale, table, transpose, resize_nearest, depth_to_space.
void SliceExec::dataMove() {
  int64_t eb = formatBytes(s.format);
  const auto &in = s.input.dims;
  std::vector<int64_t> src(in.size());
  forEachIndex(s.output.dims, [&](const std::vector<int64_t> &o) {
    uint64_t oa = Lram::at(s.output, o);
    switch (s.kernel) {
    case KernelKind::Rescale: {
      uint64_t a = Lram::at(s.input, o);
      if (s.format == Format::BF16)
        m.setBf16(oa, clampF(m.bf16(a), s.clipMinF, s.clipMaxF));
      else
        m.setI8(oa, finishInt(m.i8(a) - s.inputZp, s.multiplier, s.shift));
      return;
    }
    case KernelKind::Table: {
      if (!lut16.empty()) {
        // The interpolated int16 table on an int16 input.
        int64_t x = m.i16(Lram::at(s.input, o));
        m.setI8(oa, intq::table16Lookup(lut16.data(), static_cast<int16_t>(x),
                                        -128, 127));
        return;
      }
      // A per-channel table ([C, 256]) reads row o[1] of an [N, C, L] input.
      int64_t x = m.i8(Lram::at(s.input, o));
      m.setI8(oa, lookup(s.lut.dims.size() == 2 ? o[1] : 0, x));
      return;
    }
    case KernelKind::Transpose:
      for (size_t i = 0; i < o.size(); ++i)
        src[s.perm[i]] = o[i];
      break;
    case KernelKind::ResizeNearest: {
      const auto &out = s.output.dims;
      auto map = [&](int64_t y, int64_t inD, int64_t outD) {
        int64_t v =
            s.halfPixel ? ((2 * y + 1) * inD) / (2 * outD) : (y * inD) / outD;
        return std::min(v, inD - 1);
      };
      src = {o[0], o[1], map(o[2], in[2], out[2]), map(o[3], in[3], out[3])};
      break;
    }
    default: { // DepthToSpace
      int64_t b = s.block, c = s.output.dims[1];
      int64_t by = o[2] % b, bx = o[3] % b;
      int64_t ic =
          s.crd ? o[1] * b * b + by * b + bx : (by * b + bx) * c + o[1];
      src = {o[0], ic, o[2] / b, o[3] / b};
      break;
    }
    }
    std::memmove(m.base + oa, m.base + Lram::at(s.input, src),
                 static_cast<size_t>(eb));
  });
}

void SliceExec::convert() {
  double scale = s.convertScale();
  forEachIndex(s.output.dims, [&](const std::vector<int64_t> &o) {
    uint64_t a = Lram::at(s.input, o), oa = Lram::at(s.output, o);
    if (s.format == Format::Int8 && s.outputFormat == Format::Int8) {
      m.setI8(oa, finishInt(m.i8(a) - s.inputZp, s.multiplier, s.shift));
    } else if (s.format == Format::Int8) {
      // top.Dequant / hl.convert: the f64 product rounded to f32, then to
      // bf16.
      m.setBf16(oa, static_cast<float>(
                        static_cast<double>(m.i8(a) - s.inputZp) * scale));
    } else if (s.outputFormat == Format::Int8) {
      // top.Quant: round_half_even(x / scale) in f64 plus the zero point,
      // clipped; NaN gives the zero point (clipped).
      double x = static_cast<double>(m.bf16(a)) / scale;
      int64_t q = s.outputZp;
      if (!std::isnan(x)) {
        double r = std::round(x); // ties away from zero
        if (std::fabs(x - std::trunc(x)) == 0.5)
          r = 2.0 * std::round(x / 2.0);
        q = static_cast<int64_t>(std::clamp(r, -1e9, 1e9)) + s.outputZp;
      }
      m.setI8(oa, std::clamp(q, s.clipMin, s.clipMax));
    } else {
      m.setBf16(oa, m.bf16(a));
    }
  });
}

bool SliceExec::run() {
  if (isLut16(s)) {
    lut16.resize(static_cast<size_t>(intq::kTable16Entries));
    for (int64_t i = 0; i < intq::kTable16Entries; ++i)
      lut16[i] = static_cast<int16_t>(m.i16(Lram::at(s.lut, {i})));
  }
  switch (s.kernel) {
  case KernelKind::Conv2D:
  case KernelKind::DepthwiseConv2D:
  case KernelKind::FullyConnected:
  case KernelKind::MatMul:
    return mac();
  case KernelKind::Add:
  case KernelKind::Sub:
  case KernelKind::Mul:
  case KernelKind::Min:
  case KernelKind::Max:
    elementwise();
    return true;
  case KernelKind::MaxPool:
  case KernelKind::AvgPool:
    pool();
    return true;
  case KernelKind::ReduceMean:
    reduceMean();
    return true;
  case KernelKind::Convert:
    convert();
    return true;
  default:
    dataMove();
    return true;
  }
}

} // namespace

Simulator::Simulator(const npu::NpuConfig &config)
    : cfg(config),
      mem(static_cast<size_t>(std::max<int64_t>(config.lramBytes, 0))) {}

bool Simulator::run(const Program &program,
                    const std::vector<DramBuffer> &bindings, Profile &profile,
                    std::string &error) {
  if (std::optional<std::string> err = verifyProgram(program)) {
    error = *err;
    return false;
  }
  const npu::NpuConfig &pc = program.config;
  if (pc.lramBytes != cfg.lramBytes || pc.slices != cfg.slices ||
      pc.weightChannelBlock != cfg.weightChannelBlock ||
      pc.accumulatorBits != cfg.accumulatorBits) {
    error = "npu program '" + program.name + "' was built for NPU '" + pc.name +
            "' (lram_bytes " + std::to_string(pc.lramBytes) + ", slices " +
            std::to_string(pc.slices) + "), not for the simulated '" +
            cfg.name + "' (lram_bytes " + std::to_string(cfg.lramBytes) +
            ", slices " + std::to_string(cfg.slices) + ")";
    return false;
  }
  if (bindings.size() < program.bindings.size()) {
    error = "npu program '" + program.name + "' declares " +
            std::to_string(program.bindings.size()) + " bindings, " +
            std::to_string(bindings.size()) + " were bound";
    return false;
  }
  for (size_t i = 0; i < program.bindings.size(); ++i)
    if (!bindings[i].data || bindings[i].size < program.bindings[i].size) {
      error = "npu program '" + program.name + "': binding " +
              std::to_string(i) + " ('" + program.bindings[i].name + "') has " +
              std::to_string(bindings[i].size) + " bytes, the program needs " +
              std::to_string(program.bindings[i].size);
      return false;
    }

  profile = Profile();
  profile.program = program.name;
  // Timing: each queue (0: DMA, 1 + s: slice s) runs in order from the last
  // barrier; a wait (and a segment's end) joins them all.
  std::vector<int64_t> queueEnd(1 + static_cast<size_t>(pc.slices), 0);
  int64_t barrier = 0;
  auto join = [&]() {
    barrier = *std::max_element(queueEnd.begin(), queueEnd.end());
    std::fill(queueEnd.begin(), queueEnd.end(), barrier);
  };

  int64_t index = 0;
  for (const Segment &seg : program.segments) {
    for (const Task &task : seg.tasks) {
      TaskProfile tp;
      tp.index = index;
      tp.name = task.name;
      tp.kind = task.kind == TaskKind::Slice ? kernelName(task.slice.kernel)
                                             : taskKindName(task.kind);
      auto where = [&]() {
        return "npu program '" + program.name + "': task " +
               std::to_string(index) + " (" + tp.kind +
               (task.name.empty() ? "" : " '" + task.name + "'") + ")";
      };
      if (task.kind == TaskKind::Wait) {
        join();
        tp.queue = -1;
        tp.start = tp.end = barrier;
        profile.tasks.push_back(tp);
        ++index;
        continue;
      }
      tp.queue = task.kind == TaskKind::Slice
                     ? 1 + static_cast<int>(task.slice.slice)
                     : 0;
      // Races were refused by verifyProgram; the LRAM high-water mark.
      LramAccess acc = lramAccess(task);
      for (const ByteRange &r : acc.reads)
        profile.lramPeak = std::max(profile.lramPeak, r.end);
      for (const ByteRange &r : acc.writes)
        profile.lramPeak = std::max(profile.lramPeak, r.end);

      // Execute.
      if (task.kind == TaskKind::Slice) {
        std::string err;
        SliceExec exec(task.slice, pc, mem.data(), err);
        if (!exec.run()) {
          error = where() + ": " + err;
          return false;
        }
      } else {
        const Dma &d = task.dma;
        uint8_t *dram = bindings[d.binding].data;
        bool load = task.kind == TaskKind::DmaLoad;
        std::vector<int64_t> counts = d.counts;
        forEachIndex(counts, [&](const std::vector<int64_t> &i) {
          uint64_t da = d.dramOffset, la = d.lramAddress;
          for (size_t k = 0; k < i.size(); ++k) {
            da += static_cast<uint64_t>(i[k] * d.dramStrides[k]);
            la += static_cast<uint64_t>(i[k] * d.lramStrides[k]);
          }
          if (load)
            std::memcpy(mem.data() + la, dram + da, d.elementBytes);
          else
            std::memcpy(dram + da, mem.data() + la, d.elementBytes);
        });
      }

      tp.cost = taskCost(task, pc);
      tp.start = std::max(queueEnd[tp.queue], barrier);
      // Saturating: a hostile program cannot overflow the timeline.
      tp.end = std::min(tp.start + tp.cost.cycles, int64_t(1) << 62);
      queueEnd[tp.queue] = tp.end;
      if (tp.cost.cycles > 0 && task.kind == TaskKind::Slice)
        tp.utilization = static_cast<double>(tp.cost.macs) /
                         (static_cast<double>(tp.cost.cycles) *
                          static_cast<double>(pc.macsPerSlice));
      profile.macs += tp.cost.macs;
      profile.dmaBytes += tp.cost.dmaBytes;
      profile.tasks.push_back(tp);
      ++index;
    }
    join();
  }
  profile.cycles = barrier;
  if (profile.cycles > 0)
    profile.utilization = static_cast<double>(profile.macs) /
                          (static_cast<double>(profile.cycles) *
                           static_cast<double>(pc.peakMacsPerCycle()));
  return true;
}

//===----------------------------------------------------------------------===//
// Chrome trace
//===----------------------------------------------------------------------===//

namespace {
std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else
      out += c;
  }
  return out + "\"";
}
} // namespace

std::string npusim::chromeTraceJson(const std::vector<Profile> &profiles,
                                    const npu::NpuConfig &config) {
  std::ostringstream os;
  os.precision(6);
  os << std::fixed;
  double usPerCycle =
      1.0 / static_cast<double>(std::max<int64_t>(config.clockMHz, 1));
  os << "{\"traceEvents\":[";
  bool first = true;
  int64_t offset = 0;
  for (size_t p = 0; p < profiles.size(); ++p) {
    const Profile &prof = profiles[p];
    for (int q = 0; q <= config.slices; ++q) {
      os << (first ? "" : ",") << "{\"ph\":\"M\",\"name\":\"thread_name\","
         << "\"pid\":" << p << ",\"tid\":" << q << ",\"args\":{\"name\":"
         << jsonString(q == 0 ? "dma" : "slice " + std::to_string(q - 1))
         << "}}";
      first = false;
    }
    os << ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << p
       << ",\"args\":{\"name\":"
       << jsonString("dispatch " + std::to_string(p) + " " + prof.program)
       << "}}";
    for (const TaskProfile &t : prof.tasks) {
      if (t.queue < 0)
        continue;
      os << ",{\"ph\":\"X\",\"pid\":" << p << ",\"tid\":" << t.queue
         << ",\"name\":" << jsonString(t.name.empty() ? t.kind : t.name)
         << ",\"ts\":" << static_cast<double>(offset + t.start) * usPerCycle
         << ",\"dur\":" << static_cast<double>(t.cost.cycles) * usPerCycle
         << ",\"args\":{\"task\":" << t.index
         << ",\"kind\":" << jsonString(t.kind)
         << ",\"cycles\":" << t.cost.cycles << ",\"macs\":" << t.cost.macs
         << ",\"utilization\":" << t.utilization
         << ",\"dma_bytes\":" << t.cost.dmaBytes << "}}";
    }
    offset += prof.cycles;
  }
  os << "]}\n";
  return os.str();
}

int64_t npusim::programCycles(const Program &program,
                              const npu::NpuConfig &config) {
  std::vector<int64_t> queueEnd(1 + static_cast<size_t>(config.slices), 0);
  int64_t barrier = 0;
  auto join = [&]() {
    barrier = *std::max_element(queueEnd.begin(), queueEnd.end());
    std::fill(queueEnd.begin(), queueEnd.end(), barrier);
  };
  for (const Segment &seg : program.segments) {
    for (const Task &task : seg.tasks) {
      if (task.kind == TaskKind::Wait) {
        join();
        continue;
      }
      size_t q = task.kind == TaskKind::Slice ? 1 + task.slice.slice : 0;
      int64_t start = std::max(queueEnd[q], barrier);
      queueEnd[q] =
          std::min(start + taskCost(task, config).cycles, int64_t(1) << 62);
    }
    join();
  }
  return barrier;
}
