//===- NpuSimTest.cpp - the NPU simulator against scalar references -------===//
//
// Every slice kernel on random shapes and attributes against a plain scalar
// reference written here (logical tensors, no address generators), bit-exact;
// operands are placed in LRAM with random padding between rows so the address
// generators' strides are exercised. Then the cycle model on hand-computed
// cases, and programs the simulator must refuse.
//
//===----------------------------------------------------------------------===//

#include "strata/NpuSim/Simulator.h"
#include "strata/Support/IntegerRequant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace strata;
using namespace strata::npusim;

namespace {

/// A logical tensor: row-major values (integers, or floats for bf16).
struct T {
  std::vector<int64_t> dims;
  std::vector<double> v;
  int64_t size() const {
    int64_t p = 1;
    for (int64_t d : dims)
      p *= d;
    return p;
  }
  double &at(std::initializer_list<int64_t> idx) {
    int64_t off = 0;
    size_t i = 0;
    for (int64_t x : idx)
      off = off * dims[i++] + x;
    return v[off];
  }
};

/// An independent bf16 rounding: the nearer of the two bf16 neighbours,
/// ties to the even one.
double roundBf16(double x) {
  float f = static_cast<float>(x);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t lo = bits & 0xFFFF0000u, hi = lo + 0x10000u;
  float flo, fhi;
  std::memcpy(&flo, &lo, 4);
  std::memcpy(&fhi, &hi, 4);
  double dlo = std::fabs(double(f) - flo), dhi = std::fabs(double(fhi) - f);
  if (dlo < dhi)
    return flo;
  if (dhi < dlo)
    return fhi;
  return ((lo >> 16) & 1) ? fhi : flo;
}

class Harness {
public:
  explicit Harness(uint32_t seed, npu::NpuConfig c = npu::NpuConfig())
      : cfg(c), sim(c), rng(seed) {}

  int64_t rand(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }

  T random(std::vector<int64_t> dims, int64_t lo, int64_t hi) {
    T t{dims, {}};
    t.v.resize(t.size());
    for (double &x : t.v)
      x = static_cast<double>(rand(lo, hi));
    return t;
  }

  T randomBf16(std::vector<int64_t> dims) {
    T t{dims, {}};
    t.v.resize(t.size());
    for (double &x : t.v)
      x = roundBf16(std::uniform_real_distribution<double>(-2, 2)(rng));
    return t;
  }

  /// Places `t` in LRAM with random gaps after each innermost row and
  /// between outer slices; returns its address generator.
  Operand place(const T &t, Format f) {
    int64_t eb = formatBytes(f);
    Operand op;
    op.dims = t.dims;
    op.strides.resize(t.dims.size());
    int64_t stride = eb;
    for (int64_t i = static_cast<int64_t>(t.dims.size()) - 1; i >= 0; --i) {
      op.strides[i] = stride;
      stride *= t.dims[i];
      stride += eb * rand(0, 2);
    }
    next = (next + 63) / 64 * 64;
    op.address = next;
    next += stride + 64;
    EXPECT_LE(next, static_cast<uint64_t>(cfg.lramBytes));
    write(op, t, f);
    return op;
  }

  /// An output operand (filled with a 0x5A pattern).
  Operand placeOut(std::vector<int64_t> dims, Format f) {
    T t{dims, {}};
    t.v.assign(t.size(), 0);
    Operand op = place(t, f);
    auto r = operandRange(op, formatBytes(f));
    std::memset(sim.lram().data() + r->begin, 0x5A, r->end - r->begin);
    return op;
  }

  void write(const Operand &op, const T &t, Format f) {
    int64_t k = 0;
    forEach(op, [&](uint64_t a) { store(a, f, t.v[k++]); });
  }

  T read(const Operand &op, Format f) {
    T t{op.dims, {}};
    forEach(op, [&](uint64_t a) { t.v.push_back(load(a, f)); });
    return t;
  }

  template <typename Fn> void forEach(const Operand &op, Fn fn) {
    std::vector<int64_t> idx(op.dims.size(), 0);
    int64_t total = 1;
    for (int64_t d : op.dims)
      total *= d;
    for (int64_t n = 0; n < total; ++n) {
      uint64_t a = op.address;
      for (size_t i = 0; i < idx.size(); ++i)
        a += idx[i] * op.strides[i];
      fn(a);
      for (int64_t i = static_cast<int64_t>(idx.size()) - 1; i >= 0; --i) {
        if (++idx[i] < op.dims[i])
          break;
        idx[i] = 0;
      }
    }
  }

  void store(uint64_t a, Format f, double x) {
    uint8_t *p = sim.lram().data() + a;
    if (f == Format::Int8) {
      p[0] = static_cast<uint8_t>(static_cast<int64_t>(x));
    } else if (f == Format::Int16) {
      int16_t v = static_cast<int16_t>(static_cast<int64_t>(x));
      std::memcpy(p, &v, 2);
    } else if (f == Format::Int32) {
      int32_t v = static_cast<int32_t>(static_cast<int64_t>(x));
      std::memcpy(p, &v, 4);
    } else if (f == Format::BF16) {
      float fl = static_cast<float>(x);
      uint32_t bits;
      std::memcpy(&bits, &fl, 4);
      uint16_t h = static_cast<uint16_t>(bits >> 16);
      std::memcpy(p, &h, 2);
    }
  }
  /// f32 (the bf16 bias).
  void storeF32(uint64_t a, float x) {
    std::memcpy(sim.lram().data() + a, &x, 4);
  }

  double load(uint64_t a, Format f) {
    uint8_t *p = sim.lram().data() + a;
    if (f == Format::Int8)
      return static_cast<int8_t>(p[0]);
    if (f == Format::Int16) {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    if (f == Format::Int32) {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float fl;
    std::memcpy(&fl, &bits, 4);
    return fl;
  }

  /// Runs one slice task (as a one-task program); expects success.
  Profile runTask(const SliceTask &s) {
    Program p;
    p.name = "test";
    p.config = cfg;
    Task t;
    t.kind = TaskKind::Slice;
    t.slice = s;
    p.segments.push_back({{t}});
    Profile prof;
    std::string err;
    EXPECT_TRUE(sim.run(p, {}, prof, err)) << err;
    return prof;
  }

  /// Weights [O, I, KH, KW] (or [O, I] for fc) packed (O/B) I .. B.
  T packBlocked(const T &w) {
    int64_t B = cfg.weightChannelBlock, O = w.dims[0];
    int64_t inner = w.size() / O;
    T p;
    p.dims = {(O + B - 1) / B};
    for (size_t i = 1; i < w.dims.size(); ++i)
      p.dims.push_back(w.dims[i]);
    p.dims.push_back(B);
    p.v.assign(p.size(), 0);
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < inner; ++i)
        p.v[((o / B) * inner + i) * B + o % B] = w.v[o * inner + i];
    return p;
  }

  /// A random [C, 3] scale+bias tensor (bias, multiplier, shift).
  T scaleBias(int64_t c) {
    T t{{c, 3}, {}};
    for (int64_t i = 0; i < c; ++i) {
      t.v.push_back(static_cast<double>(rand(-5000, 5000)));
      t.v.push_back(static_cast<double>(rand(int64_t(1) << 29, INT32_MAX)));
      t.v.push_back(static_cast<double>(rand(36, 42)));
    }
    return t;
  }

  npu::NpuConfig cfg;
  Simulator sim;
  std::mt19937 rng;
  uint64_t next = 0;
};

int64_t requantRef(Rounding r, int64_t acc, int64_t m, int64_t s, int64_t zp,
                   int64_t lo, int64_t hi) {
  return r == Rounding::TFLite
             ? intq::requantTFLite(acc, m, s, zp, lo, hi)
             : intq::requantMultiplierShift(acc, m, s, zp, lo, hi);
}

/// The interpolated int16 table, written from docs/npu-sim.md (not from
/// IntegerTable16.h): the entries around `(q + 32768) / 128`, weighted by
/// the remainder, then divided by 2^14 rounding half away from zero and
/// saturated to int8.
int64_t table16Ref(const T &lut, int64_t q) {
  int64_t u = q + 32768, i = u / 128, f = u % 128;
  int64_t v = static_cast<int64_t>(lut.v[i]) * (128 - f) +
              static_cast<int64_t>(lut.v[i + 1]) * f;
  int64_t r = (std::abs(v) + 8192) / 16384;
  return std::clamp<int64_t>(v < 0 ? -r : r, -128, 127);
}

void expectEqual(const T &got, const T &want, const std::string &what) {
  ASSERT_EQ(got.v.size(), want.v.size()) << what;
  for (size_t i = 0; i < got.v.size(); ++i) {
    if (std::isnan(got.v[i]) && std::isnan(want.v[i]))
      continue;
    ASSERT_EQ(got.v[i], want.v[i]) << what << " at flat index " << i;
  }
}

//===----------------------------------------------------------------------===//
// MAC kernels
//===----------------------------------------------------------------------===//

/// conv2d (groups >= 1) or depthwise, int8, every stride/dilation/pad.
/// `zpColumn`: a 4-column scale_bias (each channel's output zero point
/// added to output_zp); `lutMode` 1: one table ([256]) in the activation
/// unit, 2: one per output channel ([O, 256]), 3: the interpolated int16
/// table ([513] int16 entries; the requantization's zero point and clip
/// int16's).
void convCase(Harness &h, bool depthwise, Format outFmt, bool withPartial,
              int iter, bool zpColumn = false, int lutMode = 0) {
  int64_t N = h.rand(1, 2), groups = depthwise ? 1 : h.rand(1, 3);
  int64_t C = depthwise ? h.rand(1, 11) : groups * h.rand(1, 4);
  int64_t O = depthwise ? C : groups * h.rand(1, 5);
  int64_t KH = h.rand(1, 3), KW = h.rand(1, 3), H = h.rand(1, 9),
          W = h.rand(1, 9);
  int64_t sh = h.rand(1, 3), sw = h.rand(1, 3), dh = h.rand(1, 2),
          dw = h.rand(1, 2);
  int64_t pt = h.rand(0, 2), pl = h.rand(0, 2), pb = h.rand(0, 2),
          pr = h.rand(0, 2);
  int64_t effH = H + pt + pb - dh * (KH - 1),
          effW = W + pl + pr - dw * (KW - 1);
  if (effH < 1 || effW < 1)
    return;
  int64_t OH = (effH - 1) / sh + 1, OW = (effW - 1) / sw + 1;
  Rounding rnd = h.rand(0, 1) ? Rounding::TFLite : Rounding::MultiplierShift;
  int64_t xzp = h.rand(-128, 127), wzp = h.rand(-5, 5), ozp = h.rand(-20, 20);
  int64_t lo = h.rand(-128, 0), hi = h.rand(lo, 127);
  if (lutMode == 3) {
    ozp = h.rand(-3000, 3000);
    lo = h.rand(-32768, -20000);
    hi = h.rand(20000, 32767);
  }
  int64_t icg = C / groups, ocg = O / groups;

  T x = h.random({N, C, H, W}, -128, 127);
  T w = h.random(depthwise ? std::vector<int64_t>{C, KH, KW}
                           : std::vector<int64_t>{O, icg, KH, KW},
                 -128, 127);
  T sb = h.scaleBias(O);
  // An int16 pre-activation: smaller shifts spread it over int16.
  if (lutMode == 3)
    for (int64_t o = 0; o < O; ++o)
      sb.v[o * 3 + 2] = static_cast<double>(h.rand(24, 30));
  if (zpColumn) {
    T wide{{O, 4}, {}};
    for (int64_t o = 0; o < O; ++o) {
      for (int64_t j = 0; j < 3; ++j)
        wide.v.push_back(sb.at({o, j}));
      // ozp + zp stays an int8 value.
      wide.v.push_back(static_cast<double>(h.rand(-100 - ozp, 100 - ozp)));
    }
    sb = wide;
  }
  T lut = lutMode == 3 ? h.random({513}, -128 * 128, 127 * 128)
                       : h.random({lutMode == 2 ? O : 1, 256}, -128, 127);
  T part = h.random({N, O, OH, OW}, -100000, 100000);

  SliceTask s;
  s.kernel = depthwise ? KernelKind::DepthwiseConv2D : KernelKind::Conv2D;
  s.outputFormat = outFmt;
  s.input = h.place(x, Format::Int8);
  s.weights = h.place(h.packBlocked(w), Format::Int8);
  s.scaleBias = h.place(sb, Format::Int32);
  if (withPartial)
    s.partial = h.place(part, Format::Int32);
  if (lutMode == 3)
    s.lut = h.place(lut, Format::Int16);
  else if (lutMode)
    s.lut = h.place(lutMode == 2 ? lut : T{{256}, lut.v}, Format::Int8);
  s.output = h.placeOut({N, O, OH, OW}, outFmt);
  s.stride = {sh, sw};
  s.dilation = {dh, dw};
  s.pad = {pt, pl, pb, pr};
  s.groups = groups;
  s.inputZp = xzp;
  s.weightZp = wzp;
  s.outputZp = ozp;
  s.clipMin = lo;
  s.clipMax = hi;
  s.rounding = rnd;
  s.vectorMode = static_cast<uint32_t>(h.rand(0, 2));
  s.slice = static_cast<uint32_t>(h.rand(0, 1));
  h.runTask(s);

  T want{{N, O, OH, OW}, {}};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          int64_t acc = withPartial
                            ? static_cast<int64_t>(part.at({n, o, oy, ox}))
                            : static_cast<int64_t>(sb.at({o, 0}));
          int64_t g = o / ocg;
          for (int64_t ic = 0; ic < (depthwise ? 1 : icg); ++ic)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t iy = oy * sh - pt + ky * dh,
                        ix = ox * sw - pl + kx * dw;
                int64_t xv = xzp; // padding is the zero point
                if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                  xv = static_cast<int64_t>(
                      x.at({n, depthwise ? o : g * icg + ic, iy, ix}));
                int64_t wv = static_cast<int64_t>(
                    depthwise ? w.at({o, ky, kx}) : w.at({o, ic, ky, kx}));
                acc += (xv - xzp) * (wv - wzp);
              }
          acc = static_cast<int32_t>(acc); // 32-bit accumulators wrap
          if (outFmt == Format::Int32)
            want.v.push_back(static_cast<double>(acc));
          else {
            int64_t zp =
                ozp + (zpColumn ? static_cast<int64_t>(sb.at({o, 3})) : 0);
            int64_t q =
                requantRef(rnd, acc, static_cast<int64_t>(sb.at({o, 1})),
                           static_cast<int64_t>(sb.at({o, 2})), zp, lo, hi);
            if (lutMode == 3)
              q = table16Ref(lut, q);
            else if (lutMode)
              q = static_cast<int64_t>(lut.at({lutMode == 2 ? o : 0, q + 128}));
            want.v.push_back(static_cast<double>(q));
          }
        }
  expectEqual(h.read(s.output, outFmt), want,
              std::string(depthwise ? "depthwise" : "conv") + " case " +
                  std::to_string(iter));
}

TEST(NpuSimKernels, Conv2DInt8) {
  Harness h(1);
  for (int i = 0; i < 60; ++i) {
    h.next = 0;
    convCase(h, false, Format::Int8, i % 5 == 4, i);
  }
}

TEST(NpuSimKernels, Conv2DRawAccumulators) {
  Harness h(2);
  for (int i = 0; i < 20; ++i) {
    h.next = 0;
    convCase(h, false, Format::Int32, i % 2 == 1, i);
  }
}

TEST(NpuSimKernels, DepthwiseInt8) {
  Harness h(3);
  for (int i = 0; i < 60; ++i) {
    h.next = 0;
    convCase(h, true, Format::Int8, false, i);
  }
}

TEST(NpuSimKernels, ZeroPointColumnAndActivationTable) {
  // Per-channel output zero points (scale_bias [O, 4]) and the activation
  // unit's table after the requantization, one or one per channel.
  Harness h(11);
  for (int i = 0; i < 60; ++i) {
    h.next = 0;
    convCase(h, i % 2 == 1, Format::Int8, i % 5 == 4, i, i % 3 != 2, i % 3);
  }
}

TEST(NpuSimKernels, InterpolatedInt16Table) {
  // The activation unit's interpolated table on an int16 requantization
  // (conv and depthwise, per-channel zero points, partial sums), then the
  // `table` task on int16 input over every int16 value.
  Harness h(16);
  for (int i = 0; i < 40; ++i) {
    h.next = 0;
    convCase(h, i % 2 == 1, Format::Int8, i % 5 == 4, i, i % 3 == 2, 3);
  }
  h.next = 0;
  T x{{2, 32768}, {}};
  for (int64_t v = -32768; v < 32768; ++v)
    x.v.push_back(static_cast<double>(v));
  T lut = h.random({513}, -128 * 128, 127 * 128);
  SliceTask s;
  s.kernel = KernelKind::Table;
  s.format = Format::Int16;
  s.outputFormat = Format::Int8;
  s.input = h.place(x, Format::Int16);
  s.lut = h.place(lut, Format::Int16);
  s.output = h.placeOut({2, 32768}, Format::Int8);
  h.runTask(s);
  T want{{2, 32768}, {}};
  for (double v : x.v)
    want.v.push_back(
        static_cast<double>(table16Ref(lut, static_cast<int64_t>(v))));
  expectEqual(h.read(s.output, Format::Int8), want, "table16");
}

TEST(NpuSimKernels, WeightBlockFromConfig) {
  npu::NpuConfig c;
  c.weightChannelBlock = 8;
  Harness h(4, c);
  for (int i = 0; i < 20; ++i) {
    h.next = 0;
    convCase(h, i % 2, Format::Int8, false, i);
  }
}

TEST(NpuSimKernels, AccumulatorWrapsAtConfiguredWidth) {
  npu::NpuConfig c;
  c.accumulatorBits = 16;
  Harness h(5, c);
  // 1x1 conv over 64 channels of 127 * 127: the sum overflows 16 bits.
  T x{{1, 64, 1, 1}, std::vector<double>(64, 127)};
  T w{{1, 64, 1, 1}, std::vector<double>(64, 127)};
  T sb{{1, 3}, {5, 1, 0}};
  SliceTask s;
  s.kernel = KernelKind::Conv2D;
  s.outputFormat = Format::Int8;
  s.input = h.place(x, Format::Int8);
  s.weights = h.place(h.packBlocked(w), Format::Int8);
  s.scaleBias = h.place(sb, Format::Int32);
  s.output = h.placeOut({1, 1, 1, 1}, Format::Int8);
  s.clipMin = -128;
  s.clipMax = 127;
  h.runTask(s);
  int64_t exact = 5 + 64 * 127 * 127;            // 1032261
  int64_t wrapped = static_cast<int16_t>(exact); // two's complement, 16 bits
  int64_t want = std::clamp<int64_t>(wrapped, -128, 127);
  EXPECT_EQ(h.read(s.output, Format::Int8).v[0], want);
  EXPECT_NE(want, 127); // the wrap is visible
}

TEST(NpuSimKernels, FullyConnectedAndMatMulInt8) {
  Harness h(6);
  for (int i = 0; i < 40; ++i) {
    h.next = 0;
    bool fc = i % 2 == 0;
    int64_t N = h.rand(1, 5), K = h.rand(1, 37), O = h.rand(1, 13),
            Bt = h.rand(1, 3);
    Rounding rnd = h.rand(0, 1) ? Rounding::TFLite : Rounding::MultiplierShift;
    int64_t xzp = h.rand(-128, 127), wzp = h.rand(-128, 127),
            ozp = h.rand(-10, 10);
    bool perTensor = !fc && h.rand(0, 1);
    T sb = h.scaleBias(perTensor ? 1 : O);
    SliceTask s;
    s.kernel = fc ? KernelKind::FullyConnected : KernelKind::MatMul;
    s.rounding = rnd;
    s.inputZp = xzp;
    s.weightZp = wzp;
    s.outputZp = ozp;
    T x = fc ? h.random({N, K}, -128, 127) : h.random({Bt, N, K}, -128, 127);
    T w = fc ? h.random({O, K}, -128, 127) : h.random({Bt, K, O}, -128, 127);
    s.input = h.place(x, Format::Int8);
    s.weights = h.place(fc ? h.packBlocked(w) : w, Format::Int8);
    s.scaleBias = h.place(sb, Format::Int32);
    std::vector<int64_t> od =
        fc ? std::vector<int64_t>{N, O} : std::vector<int64_t>{Bt, N, O};
    s.output = h.placeOut(od, Format::Int8);
    h.runTask(s);
    T want{od, {}};
    for (int64_t b = 0; b < (fc ? 1 : Bt); ++b)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t o = 0; o < O; ++o) {
          int64_t row = perTensor ? 0 : o;
          int64_t acc = static_cast<int64_t>(sb.at({row, 0}));
          for (int64_t k = 0; k < K; ++k) {
            double xv = fc ? x.at({n, k}) : x.at({b, n, k});
            double wv = fc ? w.at({o, k}) : w.at({b, k, o});
            acc += (static_cast<int64_t>(xv) - xzp) *
                   (static_cast<int64_t>(wv) - wzp);
          }
          want.v.push_back(static_cast<double>(requantRef(
              rnd, static_cast<int32_t>(acc),
              static_cast<int64_t>(sb.at({row, 1})),
              static_cast<int64_t>(sb.at({row, 2})), ozp, -128, 127)));
        }
    expectEqual(h.read(s.output, Format::Int8), want,
                (fc ? "fc case " : "matmul case ") + std::to_string(i));
  }
}

TEST(NpuSimKernels, Conv2DBf16) {
  Harness h(7);
  for (int i = 0; i < 25; ++i) {
    h.next = 0;
    int64_t groups = h.rand(1, 2), C = groups * h.rand(1, 3),
            O = groups * h.rand(1, 5), KH = h.rand(1, 3), KW = h.rand(1, 3),
            H = h.rand(KH, 7), W = h.rand(KW, 7), st = h.rand(1, 2),
            pd = h.rand(0, 1);
    int64_t OH = (H + 2 * pd - KH) / st + 1, OW = (W + 2 * pd - KW) / st + 1;
    T x = h.randomBf16({1, C, H, W});
    T w = h.randomBf16({O, C / groups, KH, KW});
    SliceTask s;
    s.kernel = KernelKind::Conv2D;
    s.format = s.outputFormat = Format::BF16;
    s.groups = groups;
    s.stride = {st, st};
    s.pad = {pd, pd, pd, pd};
    bool relu = i % 2;
    if (relu)
      s.clipMinF = 0;
    s.input = h.place(x, Format::BF16);
    s.weights = h.place(h.packBlocked(w), Format::BF16);
    T bias{{O}, std::vector<double>(O, 0)};
    s.scaleBias = h.place(bias, Format::Int32); // reserve 4 bytes a channel
    std::vector<float> b(O);
    for (int64_t o = 0; o < O; ++o) {
      b[o] = static_cast<float>(h.rand(-100, 100)) / 37.0f;
      h.storeF32(s.scaleBias.address + o * s.scaleBias.strides[0], b[o]);
    }
    s.output = h.placeOut({1, O, OH, OW}, Format::BF16);
    h.runTask(s);
    T want{{1, O, OH, OW}, {}};
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          float acc = b[o];
          int64_t g = o / (O / groups);
          for (int64_t ic = 0; ic < C / groups; ++ic)
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t iy = oy * st - pd + ky, ix = ox * st - pd + kx;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                  continue;
                float prod = static_cast<float>(
                    x.at({0, g * (C / groups) + ic, iy, ix}) *
                    w.at({o, ic, ky, kx})); // exact: bf16 x bf16 fits f32
                acc = acc + prod;
              }
          if (relu && acc < 0)
            acc = 0;
          want.v.push_back(roundBf16(acc));
        }
    expectEqual(h.read(s.output, Format::BF16), want,
                "bf16 conv case " + std::to_string(i));
  }
}

TEST(NpuSimKernels, DepthwiseFcMatMulBf16) {
  Harness h(15);
  for (int i = 0; i < 24; ++i) {
    h.next = 0;
    int kind = i % 3;
    SliceTask s;
    s.format = s.outputFormat = Format::BF16;
    T want;
    std::vector<float> bias;
    auto placeBias = [&](int64_t n) {
      T reserve{{n}, std::vector<double>(n, 0)};
      s.scaleBias = h.place(reserve, Format::Int32);
      for (int64_t c = 0; c < n; ++c) {
        bias.push_back(static_cast<float>(h.rand(-50, 50)) / 13.0f);
        h.storeF32(s.scaleBias.address + c * s.scaleBias.strides[0], bias[c]);
      }
    };
    if (kind == 0) {
      int64_t C = h.rand(1, 9), KH = h.rand(1, 3), KW = h.rand(1, 3),
              H = h.rand(KH, 7), W = h.rand(KW, 7);
      T x = h.randomBf16({1, C, H, W}), w = h.randomBf16({C, KH, KW});
      s.kernel = KernelKind::DepthwiseConv2D;
      s.input = h.place(x, Format::BF16);
      s.weights = h.place(h.packBlocked(w), Format::BF16);
      placeBias(C);
      int64_t OH = H - KH + 1, OW = W - KW + 1;
      s.output = h.placeOut({1, C, OH, OW}, Format::BF16);
      want = {{1, C, OH, OW}, {}};
      for (int64_t c = 0; c < C; ++c)
        for (int64_t oy = 0; oy < OH; ++oy)
          for (int64_t ox = 0; ox < OW; ++ox) {
            float acc = bias[c];
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx)
                acc = acc + static_cast<float>(x.at({0, c, oy + ky, ox + kx}) *
                                               w.at({c, ky, kx}));
            want.v.push_back(roundBf16(acc));
          }
    } else {
      bool fc = kind == 1;
      int64_t N = h.rand(1, 4), K = h.rand(1, 20), O = h.rand(1, 9);
      T x = fc ? h.randomBf16({N, K}) : h.randomBf16({1, N, K});
      T w = fc ? h.randomBf16({O, K}) : h.randomBf16({1, K, O});
      s.kernel = fc ? KernelKind::FullyConnected : KernelKind::MatMul;
      s.input = h.place(x, Format::BF16);
      s.weights = h.place(fc ? h.packBlocked(w) : w, Format::BF16);
      placeBias(O);
      std::vector<int64_t> od =
          fc ? std::vector<int64_t>{N, O} : std::vector<int64_t>{1, N, O};
      s.output = h.placeOut(od, Format::BF16);
      want = {od, {}};
      for (int64_t n = 0; n < N; ++n)
        for (int64_t o = 0; o < O; ++o) {
          float acc = bias[o];
          for (int64_t k = 0; k < K; ++k)
            acc =
                acc + static_cast<float>((fc ? x.at({n, k}) : x.at({0, n, k})) *
                                         (fc ? w.at({o, k}) : w.at({0, k, o})));
          want.v.push_back(roundBf16(acc));
        }
    }
    h.runTask(s);
    expectEqual(h.read(s.output, Format::BF16), want,
                std::string("bf16 ") + kernelName(s.kernel) + " case " +
                    std::to_string(i));
  }
}

TEST(NpuSimKernels, PoolsReduceRescaleBf16) {
  Harness h(16);
  for (int i = 0; i < 24; ++i) {
    h.next = 0;
    int kind = i % 4;
    int64_t N = 1, C = h.rand(1, 4), H = h.rand(2, 6), W = h.rand(2, 6);
    T x = h.randomBf16({N, C, H, W});
    SliceTask s;
    s.format = s.outputFormat = Format::BF16;
    s.input = h.place(x, Format::BF16);
    T want;
    if (kind < 2) {
      s.kernel = kind ? KernelKind::MaxPool : KernelKind::AvgPool;
      s.kernelSize = {2, 2};
      s.pad = {1, 1, 0, 0};
      s.countIncludePad = h.rand(0, 1);
      int64_t OH = H, OW = W;
      s.output = h.placeOut({N, C, OH, OW}, Format::BF16);
      want = {{N, C, OH, OW}, {}};
      for (int64_t c = 0; c < C; ++c)
        for (int64_t oy = 0; oy < OH; ++oy)
          for (int64_t ox = 0; ox < OW; ++ox) {
            float sum = 0, best = -INFINITY;
            int64_t count = 0;
            for (int64_t ky = 0; ky < 2; ++ky)
              for (int64_t kx = 0; kx < 2; ++kx) {
                int64_t iy = oy - 1 + ky, ix = ox - 1 + kx;
                if (iy < 0 || ix < 0 || iy >= H || ix >= W)
                  continue;
                float v = static_cast<float>(x.at({0, c, iy, ix}));
                sum = sum + v;
                best = std::max(best, v);
                ++count;
              }
            float r =
                kind ? best
                     : sum / static_cast<float>(s.countIncludePad ? 4 : count);
            want.v.push_back(roundBf16(r));
          }
    } else if (kind == 2) {
      s.kernel = KernelKind::ReduceMean;
      s.reduceAxes = 0b1100; // H and W, row-major
      s.output = h.placeOut({N, C, 1, 1}, Format::BF16);
      want = {{N, C, 1, 1}, {}};
      for (int64_t c = 0; c < C; ++c) {
        float sum = 0;
        for (int64_t y = 0; y < H; ++y)
          for (int64_t xx = 0; xx < W; ++xx)
            sum = sum + static_cast<float>(x.at({0, c, y, xx}));
        want.v.push_back(roundBf16(sum / static_cast<float>(H * W)));
      }
    } else {
      s.kernel = KernelKind::Rescale; // a ReLU6 on bf16
      s.clipMinF = 0;
      s.clipMaxF = 1;
      s.output = h.placeOut({N, C, H, W}, Format::BF16);
      want = {{N, C, H, W}, {}};
      for (double v : x.v)
        want.v.push_back(std::clamp(v, 0.0, 1.0));
    }
    h.runTask(s);
    expectEqual(h.read(s.output, Format::BF16), want,
                std::string("bf16 ") + kernelName(s.kernel) + " case " +
                    std::to_string(i));
  }
}

//===----------------------------------------------------------------------===//
// Elementwise, activation, pools, data movement
//===----------------------------------------------------------------------===//

TEST(NpuSimKernels, ElementwiseInt8) {
  Harness h(8);
  const KernelKind kinds[] = {KernelKind::Add, KernelKind::Sub, KernelKind::Mul,
                              KernelKind::Min, KernelKind::Max};
  for (int i = 0; i < 50; ++i) {
    h.next = 0;
    KernelKind k = kinds[i % 5];
    std::vector<int64_t> dims;
    for (int64_t r = h.rand(1, 4); r > 0; --r)
      dims.push_back(h.rand(1, 6));
    T a = h.random(dims, -128, 127);
    // The second input broadcasts along dim 0 half of the time (stride 0).
    bool bcast = h.rand(0, 1);
    std::vector<int64_t> bdims = dims;
    if (bcast)
      bdims[0] = 1;
    T b = h.random(bdims, -128, 127);
    SliceTask s;
    s.kernel = k;
    s.rounding = h.rand(0, 1) ? Rounding::TFLite : Rounding::MultiplierShift;
    s.inputZp = h.rand(-128, 127);
    s.input2Zp = h.rand(-128, 127);
    s.outputZp = h.rand(-128, 127);
    s.leftShift = 20;
    s.inputMultiplier = h.rand(int64_t(1) << 29, INT32_MAX);
    s.inputShift = h.rand(30, 32);
    s.input2Multiplier = h.rand(int64_t(1) << 29, INT32_MAX);
    s.input2Shift = h.rand(30, 32);
    s.multiplier = h.rand(int64_t(1) << 29, INT32_MAX);
    s.shift = k == KernelKind::Mul ? h.rand(36, 40) : h.rand(48, 52);
    s.clipMin = h.rand(-128, 0);
    s.clipMax = h.rand(s.clipMin, 127);
    s.input = h.place(a, Format::Int8);
    s.input2 = h.place(b, Format::Int8);
    if (bcast) {
      s.input2.dims = dims;
      s.input2.strides[0] = 0;
    }
    s.output = h.placeOut(dims, Format::Int8);
    h.runTask(s);
    T want{dims, {}};
    int64_t inner = a.size() / dims[0];
    for (int64_t e = 0; e < a.size(); ++e) {
      int64_t av = static_cast<int64_t>(a.v[e]) - s.inputZp;
      int64_t bv =
          static_cast<int64_t>(b.v[bcast ? e % inner : e]) - s.input2Zp;
      int64_t r;
      if (k == KernelKind::Mul) {
        r = av * bv;
      } else {
        auto res = [&](int64_t v, int64_t m, int64_t sh) -> int64_t {
          int64_t x = v * (int64_t(1) << s.leftShift);
          if (s.rounding == Rounding::TFLite)
            return intq::requantTFLite(x, m, sh, 0, INT32_MIN, INT32_MAX);
          return static_cast<int64_t>(
              intq::roundingRightShift(__int128(x) * m, sh));
        };
        int64_t ra = res(av, s.inputMultiplier, s.inputShift);
        int64_t rb = res(bv, s.input2Multiplier, s.input2Shift);
        r = k == KernelKind::Add   ? ra + rb
            : k == KernelKind::Sub ? ra - rb
            : k == KernelKind::Min ? std::min(ra, rb)
                                   : std::max(ra, rb);
      }
      want.v.push_back(
          static_cast<double>(requantRef(s.rounding, r, s.multiplier, s.shift,
                                         s.outputZp, s.clipMin, s.clipMax)));
    }
    expectEqual(h.read(s.output, Format::Int8), want,
                std::string(kernelName(k)) + " case " + std::to_string(i));
  }
}

TEST(NpuSimKernels, ElementwiseBf16) {
  Harness h(9);
  const KernelKind kinds[] = {KernelKind::Add, KernelKind::Sub, KernelKind::Mul,
                              KernelKind::Min, KernelKind::Max};
  for (int i = 0; i < 10; ++i) {
    h.next = 0;
    KernelKind k = kinds[i % 5];
    std::vector<int64_t> dims = {h.rand(1, 5), h.rand(1, 7)};
    T a = h.randomBf16(dims), b = h.randomBf16(dims);
    // NaN on either side: min/max follow std::min/std::max (HL's rule).
    a.v[0] = std::numeric_limits<double>::quiet_NaN();
    b.v.back() = std::numeric_limits<double>::quiet_NaN();
    SliceTask s;
    s.kernel = k;
    s.format = s.outputFormat = Format::BF16;
    s.input = h.place(a, Format::BF16);
    s.input2 = h.place(b, Format::BF16);
    s.output = h.placeOut(dims, Format::BF16);
    h.runTask(s);
    T want{dims, {}};
    for (int64_t e = 0; e < a.size(); ++e) {
      float x = static_cast<float>(a.v[e]), y = static_cast<float>(b.v[e]);
      float r = k == KernelKind::Add   ? x + y
                : k == KernelKind::Sub ? x - y
                : k == KernelKind::Mul ? x * y
                : k == KernelKind::Min ? std::min(x, y)
                                       : std::max(x, y);
      want.v.push_back(roundBf16(r));
    }
    expectEqual(h.read(s.output, Format::BF16), want,
                std::string("bf16 ") + kernelName(k));
  }
}

TEST(NpuSimKernels, RescaleTableConvert) {
  Harness h(10);
  for (int i = 0; i < 12; ++i) {
    h.next = 0;
    std::vector<int64_t> dims = {h.rand(1, 4), h.rand(1, 9), h.rand(1, 5)};
    T x = h.random(dims, -128, 127);
    T want{dims, {}};
    SliceTask s;
    s.input = h.place(x, Format::Int8);
    s.inputZp = h.rand(-128, 127);
    s.outputZp = h.rand(-128, 127);
    s.rounding = h.rand(0, 1) ? Rounding::TFLite : Rounding::MultiplierShift;
    s.multiplier = h.rand(int64_t(1) << 29, INT32_MAX);
    s.shift = h.rand(28, 33);
    s.clipMin = s.outputZp; // a fused ReLU
    int mode = i % 4;
    if (mode == 0 || mode == 1) {
      s.kernel = mode == 0 ? KernelKind::Rescale : KernelKind::Convert;
      s.output = h.placeOut(dims, Format::Int8);
      for (double v : x.v)
        want.v.push_back(static_cast<double>(requantRef(
            s.rounding, static_cast<int64_t>(v) - s.inputZp, s.multiplier,
            s.shift, s.outputZp, s.clipMin, s.clipMax)));
    } else if (mode == 2) {
      s.kernel = KernelKind::Table;
      s.inputZp = s.outputZp = 0;
      s.clipMin = -128;
      T lut = h.random({256}, -128, 127);
      s.lut = h.place(lut, Format::Int8);
      s.output = h.placeOut(dims, Format::Int8);
      for (double v : x.v)
        want.v.push_back(lut.v[static_cast<int64_t>(v) + 128]);
    } else {
      // int8 -> bf16 -> int8 through two tasks.
      s.kernel = KernelKind::Convert;
      s.outputFormat = Format::BF16;
      s.floatScale = 0.037f;
      s.output = h.placeOut(dims, Format::BF16);
      h.runTask(s);
      T mid{dims, {}};
      for (double v : x.v)
        mid.v.push_back(roundBf16(
            static_cast<float>(static_cast<int64_t>(v) - s.inputZp) * 0.037f));
      expectEqual(h.read(s.output, Format::BF16), mid, "int8->bf16");
      SliceTask back;
      back.kernel = KernelKind::Convert;
      back.format = Format::BF16;
      back.outputFormat = Format::Int8;
      back.floatScale = 0.05f;
      back.outputZp = 3;
      back.input = s.output;
      back.output = h.placeOut(dims, Format::Int8);
      h.runTask(back);
      for (double v : mid.v) {
        // top.Quant: the f64 quotient, ties to even.
        double q = v / static_cast<double>(0.05f);
        want.v.push_back(std::clamp<double>(std::nearbyint(q) + 3, -128, 127));
      }
      expectEqual(h.read(back.output, Format::Int8), want, "bf16->int8");
      continue;
    }
    h.runTask(s);
    expectEqual(h.read(s.output, Format::Int8), want,
                std::string(kernelName(s.kernel)) + " case " +
                    std::to_string(i));
  }
}

/// hl.maxpool / hl.avgpool's rule (docs/npu.md) on random windows with
/// dilation and padding up to empty windows: max over the taps inside the
/// input (an empty window: -128); avg `requant(round_half_away(sum(x -
/// input_zp) / n), multiplier, shift, output_zp, clip)`.
/// convert against top.Quant / top.Dequant (= hl.convert): the f64 scale
/// field, exact ties (round half to even), NaN (the zero point), infinities
/// and values far outside int8, both directions.
TEST(NpuSimKernels, ConvertMatchesTopQuant) {
  Harness h(17);
  const double scales[] = {0.5, 0.25, 0.1, 1.0 / 3.0, 0.037, 2.0};
  for (int i = 0; i < 12; ++i) {
    h.next = 0;
    double scale = scales[i % 6];
    bool useF64 = i % 2 == 0;
    int64_t n = h.rand(40, 90);
    T x = h.randomBf16({n});
    for (double &v : x.v)
      v = roundBf16(v * h.rand(1, 300));
    // Exact ties of x / scale (when scale is a power of two) and specials.
    x.v[0] = 2.5 * scale, x.v[1] = -3.5 * scale, x.v[2] = 0.5 * scale;
    x.v[3] = std::numeric_limits<double>::quiet_NaN();
    x.v[4] = INFINITY, x.v[5] = -INFINITY, x.v[6] = 1e30, x.v[7] = -0.0;
    for (int k = 0; k < 3; ++k)
      x.v[k] = roundBf16(x.v[k]);
    SliceTask s;
    s.kernel = KernelKind::Convert;
    s.format = Format::BF16;
    s.outputFormat = Format::Int8;
    if (useF64)
      s.scale = scale;
    else
      s.floatScale = static_cast<float>(scale);
    double eff =
        useF64 ? scale : static_cast<double>(static_cast<float>(scale));
    s.outputZp = h.rand(-128, 127);
    s.clipMin = -128;
    s.clipMax = 127;
    s.input = h.place(x, Format::BF16);
    s.output = h.placeOut({n}, Format::Int8);
    h.runTask(s);
    T want{{n}, {}};
    for (double v : x.v) {
      double q = std::isnan(v) ? double(s.outputZp)
                               : std::nearbyint(v / eff) + double(s.outputZp);
      want.v.push_back(std::clamp(q, -128.0, 127.0));
    }
    expectEqual(h.read(s.output, Format::Int8), want,
                "bf16->int8 case " + std::to_string(i));

    // int8 -> bf16: (q - zp) * scale in f64, to f32, to bf16.
    h.next = 0;
    T q = h.random({n}, -128, 127);
    SliceTask d;
    d.kernel = KernelKind::Convert;
    d.format = Format::Int8;
    d.outputFormat = Format::BF16;
    d.scale = s.scale;
    d.floatScale = s.floatScale;
    d.inputZp = h.rand(-128, 127);
    d.input = h.place(q, Format::Int8);
    d.output = h.placeOut({n}, Format::BF16);
    h.runTask(d);
    T wantF{{n}, {}};
    for (double v : q.v)
      wantF.v.push_back(roundBf16(
          static_cast<float>((v - static_cast<double>(d.inputZp)) * eff)));
    expectEqual(h.read(d.output, Format::BF16), wantF,
                "int8->bf16 case " + std::to_string(i));
  }
}

TEST(NpuSimKernels, PoolsInt8) {
  Harness h(11);
  for (int i = 0; i < 60; ++i) {
    h.next = 0;
    bool isMax = i % 2;
    int64_t N = h.rand(1, 2), C = h.rand(1, 5), KH = h.rand(1, 3),
            KW = h.rand(1, 3), dh = h.rand(1, 3), dw = h.rand(1, 3);
    int64_t EH = (KH - 1) * dh + 1, EW = (KW - 1) * dw + 1;
    int64_t H = h.rand(1, 8), W = h.rand(1, 8), sh = h.rand(1, 3),
            sw = h.rand(1, 3), pt = h.rand(0, EH), pl = h.rand(0, EW);
    int64_t pb = std::max<int64_t>(h.rand(0, EH), EH - H - pt),
            pr = std::max<int64_t>(h.rand(0, EW), EW - W - pl);
    int64_t OH = (H + pt + pb - EH) / sh + 1, OW = (W + pl + pr - EW) / sw + 1;
    T x = h.random({N, C, H, W}, -128, 127);
    SliceTask s;
    s.kernel = isMax ? KernelKind::MaxPool : KernelKind::AvgPool;
    s.kernelSize = {KH, KW};
    s.stride = {sh, sw};
    s.dilation = {dh, dw};
    s.pad = {pt, pl, pb, pr};
    s.countIncludePad = h.rand(0, 1);
    if (isMax) {
      s.inputZp = s.outputZp = 0; // HL's maxpool has none
    } else {
      s.inputZp = h.rand(-128, 127);
      s.outputZp = h.rand(-128, 127);
      s.multiplier = h.rand(int64_t(1) << 29, INT32_MAX);
      s.shift = h.rand(29, 33);
      s.clipMin = h.rand(-128, 0);
      s.clipMax = h.rand(0, 127);
    }
    s.input = h.place(x, Format::Int8);
    s.output = h.placeOut({N, C, OH, OW}, Format::Int8);
    h.runTask(s);
    T want{{N, C, OH, OW}, {}};
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t oy = 0; oy < OH; ++oy)
          for (int64_t ox = 0; ox < OW; ++ox) {
            int64_t best = -128, sum = 0, count = 0;
            for (int64_t ky = 0; ky < KH; ++ky)
              for (int64_t kx = 0; kx < KW; ++kx) {
                int64_t iy = oy * sh - pt + ky * dh,
                        ix = ox * sw - pl + kx * dw;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W)
                  continue;
                int64_t v =
                    static_cast<int64_t>(x.at({n, c, iy, ix})) - s.inputZp;
                best = std::max(best, v);
                sum += v;
                ++count;
              }
            int64_t r;
            if (isMax) {
              r = best;
            } else {
              int64_t d = s.countIncludePad ? KH * KW : count;
              int64_t mean =
                  d ? static_cast<int64_t>(std::round(double(sum) / double(d)))
                    : 0;
              r = intq::requantMultiplierShift(mean, s.multiplier, s.shift,
                                               s.outputZp, s.clipMin,
                                               s.clipMax);
            }
            want.v.push_back(static_cast<double>(r));
          }
    expectEqual(h.read(s.output, Format::Int8), want,
                std::string(isMax ? "max" : "avg") + " pool case " +
                    std::to_string(i));
  }
}

TEST(NpuSimKernels, ReduceMeanInt8) {
  Harness h(12);
  for (int i = 0; i < 20; ++i) {
    h.next = 0;
    std::vector<int64_t> dims = {h.rand(1, 3), h.rand(1, 5), h.rand(1, 6),
                                 h.rand(1, 6)};
    uint32_t axes = static_cast<uint32_t>(h.rand(1, 15));
    T x = h.random(dims, -128, 127);
    std::vector<int64_t> od = dims;
    for (int a = 0; a < 4; ++a)
      if (axes >> a & 1)
        od[a] = 1;
    SliceTask s;
    s.kernel = KernelKind::ReduceMean;
    s.reduceAxes = axes;
    s.inputZp = h.rand(-128, 127);
    s.outputZp = h.rand(-128, 127);
    s.multiplier = h.rand(int64_t(1) << 29, INT32_MAX);
    s.shift = h.rand(28, 33);
    s.input = h.place(x, Format::Int8);
    s.output = h.placeOut(od, Format::Int8);
    h.runTask(s);
    T want{od, std::vector<double>(static_cast<size_t>(T{od, {}}.size()), 0)};
    std::vector<int64_t> sums(want.v.size(), 0);
    for (int64_t a = 0; a < dims[0]; ++a)
      for (int64_t b = 0; b < dims[1]; ++b)
        for (int64_t c = 0; c < dims[2]; ++c)
          for (int64_t d = 0; d < dims[3]; ++d) {
            int64_t oa = (axes & 1) ? 0 : a, ob = (axes & 2) ? 0 : b,
                    oc = (axes & 4) ? 0 : c, odd = (axes & 8) ? 0 : d;
            int64_t off = ((oa * od[1] + ob) * od[2] + oc) * od[3] + odd;
            sums[off] += static_cast<int64_t>(x.at({a, b, c, d})) - s.inputZp;
          }
    int64_t n = T{dims, {}}.size() / T{od, {}}.size();
    for (size_t e = 0; e < sums.size(); ++e) {
      // hl.reduce_mean: round_half_away(sum / n), then requantized.
      int64_t mean =
          static_cast<int64_t>(std::round(double(sums[e]) / double(n)));
      want.v[e] = static_cast<double>(requantRef(s.rounding, mean, s.multiplier,
                                                 s.shift, s.outputZp, s.clipMin,
                                                 s.clipMax));
    }
    expectEqual(h.read(s.output, Format::Int8), want,
                "reduce_mean case " + std::to_string(i));
  }
}

TEST(NpuSimKernels, DataMovement) {
  Harness h(13);
  for (int i = 0; i < 30; ++i) {
    h.next = 0;
    Format f = i % 2 ? Format::BF16 : Format::Int8;
    int64_t N = h.rand(1, 2), C = h.rand(1, 4), H = h.rand(1, 5),
            W = h.rand(1, 5);
    SliceTask s;
    s.format = s.outputFormat = f;
    T want;
    int kind = i % 3;
    if (kind == 0) {
      T x = f == Format::BF16 ? h.randomBf16({N, C, H, W})
                              : h.random({N, C, H, W}, -128, 127);
      std::vector<int64_t> perm = {0, 1, 2, 3};
      std::shuffle(perm.begin(), perm.end(), h.rng);
      std::vector<int64_t> od(4);
      for (int k = 0; k < 4; ++k)
        od[k] = x.dims[perm[k]];
      s.kernel = KernelKind::Transpose;
      s.perm = perm;
      s.input = h.place(x, f);
      s.output = h.placeOut(od, f);
      want = {od, {}};
      for (int64_t a = 0; a < od[0]; ++a)
        for (int64_t b = 0; b < od[1]; ++b)
          for (int64_t c = 0; c < od[2]; ++c)
            for (int64_t d = 0; d < od[3]; ++d) {
              int64_t o[4] = {a, b, c, d}, src[4];
              for (int k = 0; k < 4; ++k)
                src[perm[k]] = o[k];
              want.v.push_back(x.at({src[0], src[1], src[2], src[3]}));
            }
    } else if (kind == 1) {
      T x = f == Format::BF16 ? h.randomBf16({N, C, H, W})
                              : h.random({N, C, H, W}, -128, 127);
      int64_t OH = h.rand(1, 11), OW = h.rand(1, 11);
      s.kernel = KernelKind::ResizeNearest;
      s.halfPixel = h.rand(0, 1);
      s.input = h.place(x, f);
      s.output = h.placeOut({N, C, OH, OW}, f);
      want = {{N, C, OH, OW}, {}};
      auto src = [&](int64_t o, int64_t in, int64_t out) {
        double v = s.halfPixel
                       ? std::floor((o + 0.5) * double(in) / double(out))
                       : std::floor(o * double(in) / double(out));
        return std::min<int64_t>(static_cast<int64_t>(v), in - 1);
      };
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t y = 0; y < OH; ++y)
            for (int64_t xx = 0; xx < OW; ++xx)
              want.v.push_back(x.at({n, c, src(y, H, OH), src(xx, W, OW)}));
    } else {
      int64_t b = h.rand(1, 3);
      T x = f == Format::BF16 ? h.randomBf16({N, C * b * b, H, W})
                              : h.random({N, C * b * b, H, W}, -128, 127);
      s.kernel = KernelKind::DepthToSpace;
      s.block = b;
      s.crd = h.rand(0, 1);
      s.input = h.place(x, f);
      s.output = h.placeOut({N, C, H * b, W * b}, f);
      want = {{N, C, H * b, W * b}, {}};
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t y = 0; y < H * b; ++y)
            for (int64_t xx = 0; xx < W * b; ++xx) {
              int64_t ic = s.crd ? c * b * b + (y % b) * b + xx % b
                                 : ((y % b) * b + xx % b) * C + c;
              want.v.push_back(x.at({n, ic, y / b, xx / b}));
            }
    }
    h.runTask(s);
    expectEqual(h.read(s.output, f), want,
                std::string(kernelName(s.kernel)) + " case " +
                    std::to_string(i));
  }
}

//===----------------------------------------------------------------------===//
// DMA, programs, the cycle model
//===----------------------------------------------------------------------===//

Task dmaTask(TaskKind k, uint32_t binding, uint64_t dram, uint64_t lram,
             std::vector<int64_t> counts, std::vector<int64_t> dramStrides,
             std::vector<int64_t> lramStrides, uint8_t eb = 1) {
  Task t;
  t.kind = k;
  t.dma = {binding, dram, lram, eb, counts, dramStrides, lramStrides};
  return t;
}

Task waitTask() { return Task(); }

TEST(NpuSimProgram, StridedDmaRoundTrip) {
  npu::NpuConfig cfg;
  Simulator sim(cfg);
  std::vector<uint8_t> src(4096), dst(4096, 0);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<uint8_t>(i * 7 + 3);
  Program p;
  p.config = cfg;
  p.bindings = {{"src", 4096, false}, {"dst", 4096, true}};
  // A 2x3x4 block of 2-byte elements from a [.., 10, 12] layout into a
  // dense LRAM tile, then back out transposed on the last two dims.
  p.segments.push_back({{dmaTask(TaskKind::DmaLoad, 0, 100, 128, {2, 3, 4},
                                 {240, 24, 2}, {24, 8, 2}, 2),
                         waitTask(),
                         dmaTask(TaskKind::DmaStore, 1, 0, 128, {2, 3, 4},
                                 {24, 2, 6}, {24, 8, 2}, 2)}});
  Profile prof;
  std::string err;
  ASSERT_TRUE(sim.run(p, {{src.data(), 4096}, {dst.data(), 4096}}, prof, err))
      << err;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 2; ++k)
          ASSERT_EQ(dst[a * 24 + b * 2 + c * 6 + k],
                    src[100 + a * 240 + b * 24 + c * 2 + k]);
  EXPECT_EQ(prof.dmaBytes, 96u);
  EXPECT_EQ(prof.lramPeak, 128u + 48u);
}

TEST(NpuSimCycles, HandComputedConvAndOverlap) {
  npu::NpuConfig cfg; // 2 slices x 256 MACs, modes 64x4 / 32x8 / 16x16
  Task conv;
  conv.kind = TaskKind::Slice;
  SliceTask &s = conv.slice;
  s.kernel = KernelKind::Conv2D;
  s.input = {0, {1, 16, 8, 8}, {1024, 64, 8, 1}};
  s.weights = {4096, {8, 16, 3, 3, 4}, {576, 36, 12, 4, 1}};
  s.scaleBias = {16384, {32, 3}, {12, 4}};
  s.output = {20480, {1, 32, 8, 8}, {2048, 64, 8, 1}};
  s.pad = {1, 1, 1, 1};
  // 64x4: ceil(64/64)=1 pixel block, ceil(32/4)=8 channel blocks, 144 taps.
  TaskCost c = taskCost(conv, cfg);
  EXPECT_EQ(c.macs, 64 * 32 * 144);
  EXPECT_EQ(c.compute, 1 * 8 * 144);
  EXPECT_EQ(c.activation, 2048 / 16);
  EXPECT_EQ(c.memory, 4608 / 64); // weights are the busiest generator
  EXPECT_EQ(c.cycles, 1152 + 16);
  // 16x16: ceil(64/16)=4 x ceil(32/16)=2 x 144.
  s.vectorMode = 2;
  EXPECT_EQ(taskCost(conv, cfg).compute, 4 * 2 * 144);
  // 32x8 on 8x7 pixels: ceil(56/32)=2 x 4 x 144, utilization 56/64.
  s.vectorMode = 1;
  s.output.dims = {1, 32, 8, 7};
  s.pad = {1, 0, 1, 1};
  EXPECT_EQ(taskCost(conv, cfg).compute, 2 * 4 * 144);

  Task dma = dmaTask(TaskKind::DmaLoad, 0, 0, 40000, {1000}, {1}, {1});
  // 32 setup + ceil(1000 / (8 * 0.65)) = 32 + 193.
  EXPECT_EQ(taskCost(dma, cfg).cycles, 225);

  // DMA and a slice between two waits overlap; after a wait they do not.
  s.vectorMode = 0;
  s.output.dims = {1, 32, 8, 8};
  s.pad = {1, 1, 1, 1};
  Program p;
  p.config = cfg;
  p.bindings = {{"in", 1000, false}};
  p.segments.push_back({{dma, conv}});
  Simulator sim(cfg);
  Profile prof;
  std::string err;
  std::vector<uint8_t> dram(1000, 1);
  // Valid scale+bias rows (shift 0..63) in LRAM.
  std::memset(sim.lram().data() + 16384, 0, 32 * 12);
  ASSERT_TRUE(sim.run(p, {{dram.data(), 1000}}, prof, err)) << err;
  EXPECT_EQ(prof.cycles, 1168);
  // The compiler's timing-only count agrees with the run (every program
  // below).
  EXPECT_EQ(programCycles(p, cfg), prof.cycles);
  EXPECT_EQ(prof.macs, 64 * 32 * 144);
  EXPECT_DOUBLE_EQ(prof.utilization, double(64 * 32 * 144) / (1168.0 * 512));
  EXPECT_DOUBLE_EQ(prof.tasks[1].utilization,
                   double(64 * 32 * 144) / (1168.0 * 256));
  p.segments[0].tasks.insert(p.segments[0].tasks.begin() + 1, waitTask());
  ASSERT_TRUE(sim.run(p, {{dram.data(), 1000}}, prof, err)) << err;
  EXPECT_EQ(prof.cycles, 225 + 1168);
  EXPECT_EQ(programCycles(p, cfg), prof.cycles);
  EXPECT_EQ(prof.tasks[2].start, 225);
  // Two slices run side by side; one slice runs its tasks in order.
  Task conv2 = conv;
  conv2.slice.slice = 1;
  conv2.slice.output.address = 28672;
  p.segments[0].tasks = {conv, conv2};
  ASSERT_TRUE(sim.run(p, {{dram.data(), 1000}}, prof, err)) << err;
  EXPECT_EQ(prof.cycles, 1168);
  EXPECT_EQ(programCycles(p, cfg), prof.cycles);
  conv2.slice.slice = 0;
  p.segments[0].tasks = {conv, conv2};
  ASSERT_TRUE(sim.run(p, {{dram.data(), 1000}}, prof, err)) << err;
  EXPECT_EQ(prof.cycles, 2 * 1168);
  EXPECT_EQ(programCycles(p, cfg), prof.cycles);
  // A segment's end joins the queues as a wait does.
  p.segments = {{{conv}}, {{conv2}}};
  ASSERT_TRUE(sim.run(p, {{dram.data(), 1000}}, prof, err)) << err;
  EXPECT_EQ(programCycles(p, cfg), prof.cycles);
  std::string trace = chromeTraceJson({prof}, cfg);
  EXPECT_NE(trace.find("\"ph\":\"X\""), std::string::npos);
  EXPECT_NE(trace.find("\"macs\":294912"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Bad programs
//===----------------------------------------------------------------------===//

Program smallProgram() {
  Program p;
  p.name = "small";
  p.bindings = {{"x", 64, false}, {"y", 64, true}};
  SliceTask s;
  s.kernel = KernelKind::Add;
  s.input = {0, {64}, {1}};
  s.input2 = {0, {64}, {1}};
  s.output = {128, {64}, {1}};
  s.multiplier = 1;
  Task add;
  add.kind = TaskKind::Slice;
  add.slice = s;
  p.segments.push_back(
      {{dmaTask(TaskKind::DmaLoad, 0, 0, 0, {64}, {1}, {1}), waitTask(), add,
        waitTask(), dmaTask(TaskKind::DmaStore, 1, 0, 128, {64}, {1}, {1})}});
  return p;
}

std::string runError(const Program &p) {
  Simulator sim(p.config);
  std::vector<uint8_t> a(64), b(64);
  Profile prof;
  std::string err;
  EXPECT_FALSE(sim.run(p, {{a.data(), 64}, {b.data(), 64}}, prof, err));
  return err;
}

TEST(NpuSimBadInput, RefusedWithTaskAndField) {
  Program p = smallProgram();
  {
    Simulator sim(p.config);
    std::vector<uint8_t> a(64, 3), b(64);
    Profile prof;
    std::string err;
    ASSERT_TRUE(sim.run(p, {{a.data(), 64}, {b.data(), 64}}, prof, err)) << err;
  }
  Program q = p;
  q.segments[0].tasks[2].slice.output.address = p.config.lramBytes - 10;
  EXPECT_NE(runError(q).find("task 2 (slice_task add): field 'output' reaches "
                             "past LRAM"),
            std::string::npos)
      << runError(q);
  q = p;
  q.segments[0].tasks[0].dma.binding = 7;
  EXPECT_NE(runError(q).find("task 0 (dma_load): field 'binding' is 7"),
            std::string::npos);
  q = p;
  q.segments[0].tasks[4].dma.binding = 0;
  EXPECT_NE(runError(q).find("read-only"), std::string::npos);
  q = p;
  q.segments[0].tasks[0].dma.counts = {65};
  EXPECT_NE(runError(q).find("field 'dram_offset'"), std::string::npos);
  q = p;
  q.segments[0].tasks[2].slice.input.strides = {INT64_MAX};
  EXPECT_NE(runError(q).find("field 'input' strides"), std::string::npos);
  q = p;
  q.segments[0].tasks[2].slice.input.address = UINT64_MAX - 2;
  EXPECT_NE(runError(q).find("field 'input' reaches past LRAM"),
            std::string::npos);
  q = p;
  q.segments[0].tasks[2].slice.slice = 2;
  EXPECT_NE(runError(q).find("field 'slice' is 2, expected 0..1"),
            std::string::npos);
  q = p;
  q.segments[0].tasks[2].slice.shift = 64;
  EXPECT_NE(runError(q).find("field 'shift' is 64"), std::string::npos);
  q = p;
  q.segments[0].tasks[2].slice.weights = {0, {4}, {1}};
  EXPECT_NE(runError(q).find("field 'weights' is set but kernel add"),
            std::string::npos);
  q = p;
  q.segments[0].tasks[2].slice.input2 = {0, {1 << 20, 1 << 20}, {0, 0}};
  q.segments[0].tasks[2].slice.input = q.segments[0].tasks[2].slice.input2;
  EXPECT_NE(runError(q).find("field 'input' dims [1048576, 1048576] hold more "
                             "elements than LRAM has bytes (524288)"),
            std::string::npos)
      << runError(q);
  q = p;
  q.config.slices = 0;
  EXPECT_NE(runError(q).find("slices"), std::string::npos);
  // A DMA and a slice task on the same LRAM bytes with no wait: a race.
  q = p;
  q.segments[0].tasks.erase(q.segments[0].tasks.begin() + 1);
  EXPECT_NE(runError(q).find("races with task 0"), std::string::npos)
      << runError(q);
}

/// A program of one fully_connected task 'fc0' (1x4 -> 1x4) whose
/// scale_bias rows have `sbCols` columns at LRAM 128.
Program fcProgram(const npu::NpuConfig &cfg, int64_t sbCols) {
  Program p;
  p.config = cfg;
  Task t;
  t.kind = TaskKind::Slice;
  t.name = "fc0";
  t.slice.kernel = KernelKind::FullyConnected;
  t.slice.input = {0, {1, 4}, {4, 1}};
  t.slice.weights = {64, {1, 4, 4}, {16, 4, 1}};
  t.slice.scaleBias = {128, {4, sbCols}, {4 * sbCols, 4}};
  t.slice.output = {256, {1, 4}, {4, 1}};
  p.segments.push_back({{t}});
  return p;
}

TEST(NpuSimBadInput, BadScaleBiasRowAtRunTime) {
  npu::NpuConfig cfg;
  Simulator sim(cfg);
  Program p = fcProgram(cfg, 3);
  int32_t bad = 99;
  std::memcpy(sim.lram().data() + 128 + 8, &bad, 4);
  Profile prof;
  std::string err;
  EXPECT_FALSE(sim.run(p, {}, prof, err));
  EXPECT_NE(err.find("task 0 (fully_connected 'fc0'): field 'scale_bias' row "
                     "0 holds shift 99"),
            std::string::npos)
      << err;
}

TEST(NpuSimBadInput, ZeroPointColumnAndLutDims) {
  npu::NpuConfig cfg;
  Program p = fcProgram(cfg, 4);
  p.segments[0].tasks[0].slice.lut = {512, {3, 256}, {256, 1}};
  EXPECT_NE(runError(p).find("task 0 (slice_task fully_connected 'fc0'): field "
                             "'lut' dims are [3, 256], expected [256], [1, "
                             "256] or [4, 256]"),
            std::string::npos)
      << runError(p);
  p.segments[0].tasks[0].slice.lut = {};
  p.segments[0].tasks[0].slice.scaleBias = {128, {4, 5}, {20, 4}};
  EXPECT_NE(runError(p).find("field 'scale_bias' dims are [4, 5], expected "
                             "[4, 3 or 4] or [1, 3 or 4]"),
            std::string::npos)
      << runError(p);
  // A zero point column whose sum with output_zp leaves int8: a run-time
  // error naming the row.
  p.segments[0].tasks[0].slice.scaleBias = {128, {4, 4}, {16, 4}};
  p.segments[0].tasks[0].slice.outputZp = 100;
  Simulator sim(cfg);
  int32_t zp = 50;
  std::memcpy(sim.lram().data() + 128 + 16 + 12, &zp, 4);
  Profile prof;
  std::string err;
  EXPECT_FALSE(sim.run(p, {}, prof, err));
  EXPECT_NE(err.find("field 'scale_bias' row 1 gives output zero point 150, "
                     "expected -128..127"),
            std::string::npos)
      << err;
}

TEST(NpuSimBadInput, InterpolatedTableFieldsAndConfig) {
  npu::NpuConfig cfg;
  Program p = fcProgram(cfg, 3);
  SliceTask &s = p.segments[0].tasks[0].slice;
  // The [513] int16 table: the int16 zero point and clip verify.
  s.lut = {512, {513}, {2}};
  s.outputZp = -3000;
  s.clipMin = -32768;
  s.clipMax = 32767;
  EXPECT_EQ(verifyProgram(p), std::nullopt) << *verifyProgram(p);
  s.clipMax = 40000;
  EXPECT_NE(runError(p).find("field 'clip_max' is 40000"), std::string::npos)
      << runError(p);
  s.clipMax = 32767;
  // Without the interpolated table the int16 fields are refused.
  s.lut = {512, {256}, {1}};
  EXPECT_NE(runError(p).find("field 'output_zp' is -3000, expected "
                             "-128..127"),
            std::string::npos)
      << runError(p);
  // An NPU without the interpolated mode refuses the [513] table.
  s.lut = {512, {513}, {2}};
  p.config.lut16Entries = 0;
  EXPECT_NE(runError(p).find("field 'lut' is an interpolated int16 table, "
                             "the NPU's lut16_entries is 0"),
            std::string::npos)
      << runError(p);
  // A table task on int16 input needs the [513] table.
  p.config.lut16Entries = 513;
  Task t;
  t.kind = TaskKind::Slice;
  t.name = "t16";
  t.slice.kernel = KernelKind::Table;
  t.slice.format = Format::Int16;
  t.slice.input = {0, {8}, {2}};
  t.slice.output = {64, {8}, {1}};
  t.slice.lut = {128, {256}, {1}};
  p.segments[0].tasks = {t};
  EXPECT_NE(runError(p).find("field 'lut' dims are [256], an int16 input "
                             "needs the [513] table"),
            std::string::npos)
      << runError(p);
  // int16 is the table task's only: a conv on int16 input is refused.
  p.segments[0].tasks[0].slice.kernel = KernelKind::Add;
  EXPECT_NE(runError(p).find("is int16: only the table kernel"),
            std::string::npos)
      << runError(p);
}

TEST(NpuSimBadInput, EncodeDecodeAndCorruptedBytes) {
  Program p = smallProgram();
  std::vector<uint8_t> bytes = encodeProgram(p);
  Program back;
  ASSERT_FALSE(decodeProgram(bytes.data(), bytes.size(), back));
  EXPECT_EQ(encodeProgram(back), bytes);
  EXPECT_FALSE(verifyProgram(back));

  std::vector<uint8_t> truncated(bytes.begin(),
                                 bytes.begin() + bytes.size() / 2);
  EXPECT_TRUE(decodeProgram(truncated.data(), truncated.size(), back));
  std::vector<uint8_t> wrongId = bytes;
  wrongId[4] = 'X';
  auto err = decodeProgram(wrongId.data(), wrongId.size(), back);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("identifier"), std::string::npos);

  // Random corruption: decode, verify and run either refuse with a message
  // or succeed; none may crash (run under the sanitizers in CI builds).
  std::mt19937 rng(14);
  int refused = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<uint8_t> c = bytes;
    for (int k = 0; k < 3; ++k)
      c[rng() % c.size()] = static_cast<uint8_t>(rng());
    Program q;
    if (auto e = decodeProgram(c.data(), c.size(), q)) {
      EXPECT_FALSE(e->empty());
      ++refused;
      continue;
    }
    Simulator sim(npu::NpuConfig{});
    std::vector<uint8_t> a(64), b(64);
    Profile prof;
    std::string e;
    if (!sim.run(q, {{a.data(), 64}, {b.data(), 64}}, prof, e)) {
      EXPECT_FALSE(e.empty());
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

} // namespace
