//===- Int8GemmTest.cpp - int8 GEMM / conv against a scalar reference -----===//
//
// Every int8 path this CPU runs against a plain int64 reference that
// subtracts the zero point itself and requantizes with
// strata::intq::requantMultiplierShift: odd M/N/K, tails, several K
// blocks, int8 and uint8 inputs with zero points at the range ends,
// multipliers up to 2^31 - 1 and down to -2^31, shifts 0..63, accumulators
// at the int32 extremes (through the correction term).
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Gemm.h"
#include "strata/Support/IntegerRequant.h"

#include "Int8TestUtil.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

using namespace strata::kernels;

namespace {

using test::edgeValues;
using test::supportedPaths;

/// Random bytes as int8 (or uint8) activations, weights in [-127, 127].
std::vector<int8_t> randomBytes(size_t n, std::mt19937 &gen, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = int8_t(d(gen));
  return v;
}

struct Requant {
  Int8Output out = Int8Output::Int8;
  bool relu = false;
  int32_t zp = 0, qmin = -128, qmax = 127;
  std::vector<int64_t> multiplier, shift; // per channel
};

/// Per-channel multipliers and shifts covering the edges. `common`: only
/// the form real scales give (multiplier in [2^30, 2^31), shift >= 31),
/// which the fused microkernel requantization takes, at its edges.
Requant randomRequant(int64_t channels, Int8Output out, std::mt19937 &gen,
                      bool common = false) {
  Requant r;
  r.out = out;
  r.relu = gen() % 2;
  std::uniform_int_distribution<int64_t> m(1 << 30, (int64_t(1) << 31) - 1);
  for (int64_t c = 0; c < channels; ++c) {
    int64_t mv = m(gen), sv = 20 + int64_t(gen() % 21); // 20..40
    if (common) {
      int64_t edges[] = {31, 32, 33, 63, 31 + int64_t(gen() % 33)};
      sv = edges[c % 5];
      if (c % 3 == 0)
        mv = c % 2 ? (int64_t(1) << 31) - 1 : int64_t(1) << 30;
      r.multiplier.push_back(mv);
      r.shift.push_back(sv);
      continue;
    }
    switch (c % 7) {
    case 0:
      mv = (int64_t(1) << 31) - 1;
      break;
    case 1:
      sv = int64_t(gen() % 64);
      break;
    case 2:
      mv = -mv;
      break;
    case 3:
      mv = INT32_MIN;
      sv = 63;
      break;
    case 4:
      sv = 0;
      mv = int64_t(gen() % 5);
      break;
    }
    r.multiplier.push_back(mv);
    r.shift.push_back(sv);
  }
  if (out == Int8Output::UInt8) {
    r.zp = int32_t(gen() % 2 ? 0 : 255);
    r.qmin = 0;
    r.qmax = 255;
    if (gen() % 2)
      r.qmax = 200; // a narrowed range (capped relu)
  } else {
    r.zp = gen() % 2 ? -128 : 127;
    if (gen() % 3 == 0)
      r.zp = int32_t(gen() % 256) - 128;
    if (gen() % 2)
      r.qmax = 100;
  }
  return r;
}

int64_t reference(int64_t acc, const Requant &r, int64_t ch) {
  int32_t v = int32_t(uint32_t(uint64_t(acc)));
  if (r.relu && v < 0)
    v = 0;
  if (r.out == Int8Output::Int32)
    return v;
  return strata::intq::requantMultiplierShift(v, r.multiplier[ch], r.shift[ch],
                                              r.zp, r.qmin, r.qmax);
}

/// The epilogue over `r`; the arrays live in `m32`, `s32`, `corr`.
Int8Epilogue epilogueOf(const Requant &r, bool perRow,
                        const std::vector<int32_t> &corr,
                        std::vector<int32_t> &m32, std::vector<int32_t> &s32) {
  Int8Epilogue e;
  e.perRow = perRow;
  e.corr = corr.data();
  e.relu = r.relu;
  e.out = r.out;
  m32.assign(r.multiplier.begin(), r.multiplier.end());
  s32.assign(r.shift.begin(), r.shift.end());
  e.multiplier = m32.data();
  e.shift = s32.data();
  e.zp = r.zp;
  e.qmin = r.qmin;
  e.qmax = r.qmax;
  return e;
}

int64_t outAt(const std::vector<uint8_t> &out, Int8Output kind, int64_t i) {
  switch (kind) {
  case Int8Output::Int32: {
    int32_t v;
    std::memcpy(&v, out.data() + i * 4, 4);
    return v;
  }
  case Int8Output::Int8:
    return int8_t(out[size_t(i)]);
  case Int8Output::UInt8:
    return out[size_t(i)];
  }
  return 0;
}

std::string where(Int8Path path, const std::string &what) {
  return std::string(int8PathName(path)) + " " + what;
}

//===----------------------------------------------------------------------===//
// Matmul: X[M, K] (int8 or uint8, zero point in the bias) x W[K, N]
//===----------------------------------------------------------------------===//

void runMatmul(int64_t m, int64_t n, int64_t k, bool isUnsigned,
               bool transposed, Int8Output outKind, unsigned seed,
               bool extremeBias = false) {
  std::mt19937 gen(seed);
  std::vector<int8_t> x = randomBytes(size_t(m * k), gen, isUnsigned ? 0 : -128,
                                      isUnsigned ? 255 : 127);
  std::vector<int8_t> w = randomBytes(size_t(k * n), gen, -127, 127);
  std::vector<int32_t> bias(static_cast<size_t>(n));
  std::uniform_int_distribution<int32_t> bd(-100000, 100000);
  for (int32_t &b : bias)
    b = extremeBias ? (gen() % 2 ? INT32_MAX - int32_t(gen() % 1000)
                                 : INT32_MIN + int32_t(gen() % 1000))
                    : bd(gen);
  Requant r = randomRequant(n, outKind, gen);
  // Reference (W stored N x K when transposed).
  std::vector<int64_t> want(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = bias[size_t(j)];
      for (int64_t p = 0; p < k; ++p) {
        int64_t xv = isUnsigned ? int64_t(uint8_t(x[size_t(i * k + p)]))
                                : int64_t(x[size_t(i * k + p)]);
        int64_t wv = transposed ? w[size_t(j * k + p)] : w[size_t(p * n + j)];
        s += xv * wv;
      }
      want[size_t(i * n + j)] = reference(s, r, j);
    }
  Conv2dShape none;
  Int8PackedLayout l = int8PackedLayout(Int8WeightKind::MatmulB, none, k, n);
  ASSERT_GT(l.totalBytes, 0u);
  std::vector<uint8_t> packed(l.totalBytes + 64);
  uint8_t *blob = packed.data() + (64 - uintptr_t(packed.data()) % 64) % 64;
  int8PackWeight(Int8WeightKind::MatmulB, none, k, n, transposed, w.data(),
                 r.multiplier.data(), r.shift.data(), n, blob);
  Int8Input in{isUnsigned, 0};
  std::vector<int32_t> corr(static_cast<size_t>(n));
  int8Corrections(in, bias.data(),
                  reinterpret_cast<const int32_t *>(blob + l.sumOffset), n,
                  corr.data());
  std::vector<int32_t> m32, s32;
  Int8Epilogue e = epilogueOf(r, /*perRow=*/false, corr, m32, s32);
  int64_t eb = outKind == Int8Output::Int32 ? 4 : 1;
  for (Int8Path path : supportedPaths()) {
    std::vector<uint8_t> out(size_t(m * n * eb), 0xab);
    Int8GemmProblem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.aPlain = reinterpret_cast<const uint8_t *>(x.data());
    p.lda = k;
    p.aXor = isUnsigned ? 0 : 0x80;
    p.aUnsigned = true;
    p.bPacked = blob;
    p.c = out.data();
    p.ldc = n;
    p.epilogue = e;
    // Two row ranges and two column ranges, as workgroups split it.
    int64_t rowMid = std::min(m, int64_t(12) * ((m / 12 + 1) / 2));
    int64_t colMid = std::min(n, int64_t(16) * ((n / 16 + 1) / 2));
    for (auto [r0, r1] : {std::pair{int64_t(0), rowMid}, {rowMid, m}})
      for (auto [c0, c1] : {std::pair{int64_t(0), colMid}, {colMid, n}})
        int8Gemm(p, r0, r1, c0, c1, path);
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_EQ(outAt(out, outKind, i), want[size_t(i)])
          << where(path, "matmul") << " M=" << m << " N=" << n << " K=" << k
          << " at (" << i / n << ", " << i % n << ") unsigned=" << isUnsigned
          << " out=" << int(outKind) << " relu=" << r.relu;
  }
}

TEST(Int8Gemm, MatmulShapes) {
  unsigned seed = 1;
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                         {1, 17, 3},
                         {13, 33, 7},
                         {12, 32, 64},
                         {25, 47, 129},
                         {100, 20, 1},
                         {37, 300, 21},
                         {5, 70, 2053},
                         {7, 40, 9301}})
    for (bool isUnsigned : {false, true})
      for (Int8Output o :
           {Int8Output::Int8, Int8Output::UInt8, Int8Output::Int32}) {
        runMatmul(m, n, k, isUnsigned, /*transposed=*/seed % 2, o, seed);
        ++seed;
      }
}

TEST(Int8Gemm, ExtremeAccumulators) {
  unsigned seed = 100;
  for (Int8Output o : {Int8Output::Int8, Int8Output::UInt8, Int8Output::Int32})
    for (int rep = 0; rep < 4; ++rep) {
      runMatmul(14, 40, 3, rep % 2, false, o, seed++, /*extremeBias=*/true);
      runMatmul(3, 17, 0, rep % 2, false, o, seed++, /*extremeBias=*/true);
    }
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// `order`: the filter's K order, -1 the one the compiler packs
/// (int8ConvTapMajor), 0 channel-major (what artifacts of earlier sessions
/// hold), 1 tap-major.
void runConv(const Conv2dShape &s, bool isUnsigned, Int8Output outKind,
             unsigned seed, bool depthwise, bool common = false,
             int order = -1) {
  bool tapMajor = order < 0 ? int8ConvTapMajor(s) : order == 1;
  std::mt19937 gen(seed);
  ASSERT_EQ(checkConv2dShape(s), "");
  std::vector<int8_t> x =
      randomBytes(size_t(s.n * s.c * s.h * s.w), gen, isUnsigned ? 0 : -128,
                  isUnsigned ? 255 : 127);
  int64_t kg = s.gemmK();
  std::vector<int8_t> w = randomBytes(size_t(s.o * kg), gen, -127, 127);
  std::vector<int32_t> bias(size_t(s.o));
  for (int32_t &b : bias)
    b = int32_t(gen() % 200001) - 100000;
  int32_t zp = isUnsigned ? int32_t(gen() % 2 ? 0 : 255)
                          : int32_t(gen() % 2 ? -128 : 127);
  if (gen() % 3 == 0)
    zp = isUnsigned ? int32_t(gen() % 256) : int32_t(gen() % 256) - 128;
  Requant r = randomRequant(s.o, outKind, gen, common);
  int64_t og = s.o / s.g, cg = s.c / s.g;
  std::vector<int64_t> want(size_t(s.n * s.o * s.oh * s.ow));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          int64_t acc = bias[size_t(o)];
          int64_t g = o / og;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t ky = 0; ky < s.kh; ++ky)
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                int64_t iy = oy * s.sh - s.pt + ky * s.dh;
                int64_t ix = ox * s.sw - s.pl + kx * s.dw;
                int64_t c = g * cg + ci;
                int64_t xv = zp; // padding holds the zero point
                if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w) {
                  int8_t b = x[size_t(((n * s.c + c) * s.h + iy) * s.w + ix)];
                  xv = isUnsigned ? int64_t(uint8_t(b)) : int64_t(b);
                }
                acc += (xv - zp) *
                       w[size_t(((o * cg + ci) * s.kh + ky) * s.kw + kx)];
              }
          want[size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox)] =
              reference(acc, r, o);
        }
  Int8WeightKind kind =
      depthwise ? Int8WeightKind::Depthwise : Int8WeightKind::ConvFilter;
  Int8PackedLayout l = int8PackedLayout(kind, s, 0, 0);
  std::vector<uint8_t> packed(l.totalBytes + 64);
  uint8_t *blob = packed.data() + (64 - uintptr_t(packed.data()) % 64) % 64;
  int8PackWeight(kind, s, 0, 0, false, w.data(), r.multiplier.data(),
                 r.shift.data(), s.o, blob, tapMajor);
  Int8Input in{isUnsigned, zp};
  std::vector<int32_t> corr(size_t(s.o));
  int8Corrections(in, bias.data(),
                  depthwise
                      ? nullptr
                      : reinterpret_cast<const int32_t *>(blob + l.sumOffset),
                  s.o, corr.data());
  std::vector<int32_t> m32, s32;
  Int8Epilogue e = epilogueOf(r, /*perRow=*/true, corr, m32, s32);
  int64_t eb = outKind == Int8Output::Int32 ? 4 : 1;
  for (Int8Path path : supportedPaths()) {
    std::vector<uint8_t> out(want.size() * size_t(eb), 0xab);
    if (depthwise) {
      int64_t planes = s.n * s.o;
      int8Conv2dDepthwise(s, in, x.data(), reinterpret_cast<int8_t *>(blob), e,
                          out.data(), 0, planes / 2, path);
      int8Conv2dDepthwise(s, in, x.data(), reinterpret_cast<int8_t *>(blob), e,
                          out.data(), planes / 2, planes, path);
    } else {
      int64_t units = conv2dGemmUnits(s, 3);
      for (int64_t u = 0; u < units; ++u)
        int8Conv2dGemm(s, in, x.data(), blob, e, out.data(), 3, u, u + 1,
                       tapMajor, path);
    }
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(outAt(out, outKind, int64_t(i)), want[i])
          << where(path, depthwise ? "depthwise" : "conv") << " at " << i
          << " C=" << s.c << " O=" << s.o << " G=" << s.g << " K=" << s.kh
          << "x" << s.kw << " S=" << s.sh << "x" << s.sw << " D=" << s.dh
          << " zp=" << zp << " unsigned=" << isUnsigned;
  }
}

Conv2dShape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                  int64_t k, int64_t stride, int64_t pad, int64_t dil,
                  int64_t g) {
  Conv2dShape s;
  s.n = n;
  s.c = c;
  s.h = h;
  s.w = w;
  s.o = o;
  s.kh = k;
  s.kw = k;
  s.sh = s.sw = stride;
  s.pt = s.pl = s.pb = s.pr = pad;
  s.dh = s.dw = dil;
  s.g = g;
  s.oh = (h + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  s.ow = (w + 2 * pad - dil * (k - 1) - 1) / stride + 1;
  return s;
}

/// runConv with requants of the common form: every shape twice per input
/// signedness and 8-bit output type.
void runCommonConvs(std::initializer_list<Conv2dShape> shapes, unsigned seed,
                    bool depthwise) {
  for (const Conv2dShape &s : shapes)
    for (bool isUnsigned : {false, true})
      for (Int8Output o : {Int8Output::Int8, Int8Output::UInt8})
        for (int rep = 0; rep < 2; ++rep)
          runConv(s, isUnsigned, o, seed++, depthwise, /*common=*/true);
}

TEST(Int8Conv, Gemm) {
  unsigned seed = 200;
  for (const Conv2dShape &s :
       {shape(1, 3, 9, 11, 5, 3, 1, 1, 1, 1),
        shape(2, 8, 7, 7, 16, 1, 1, 0, 1, 1),
        shape(1, 16, 10, 9, 24, 3, 2, 1, 1, 1),
        shape(1, 6, 12, 12, 9, 3, 1, 2, 2, 3),
        shape(1, 32, 6, 6, 13, 1, 2, 0, 1, 1),
        shape(1, 3, 20, 19, 8, 7, 2, 3, 1, 1),
        shape(1, 300, 4, 5, 7, 2, 1, 0, 1, 1),
        // Rows wider than the 16-byte copies, stride 1 and 2.
        shape(1, 5, 9, 70, 6, 3, 1, 1, 1, 1),
        shape(1, 3, 9, 75, 6, 3, 2, 1, 1, 1)})
    for (bool isUnsigned : {false, true})
      for (Int8Output o :
           {Int8Output::Int8, Int8Output::UInt8, Int8Output::Int32})
        runConv(s, isUnsigned, o, seed++, /*depthwise=*/false);
}

/// Stride-2 rows of every length class of the phase and im2col copies
/// (fewer than 8 outputs, 8-15, 16 and more with an overlapping last
/// window), odd and even widths (the last byte read is the row's last
/// even-offset byte), pads 0 to 3, windows 1 to 7.
TEST(Int8Conv, StridedRowCopies) {
  unsigned seed = 1200;
  for (int64_t w : {13, 15, 16, 17, 30, 31, 33, 34, 47, 64, 65})
    for (auto [k, pad] :
         {std::pair<int64_t, int64_t>{1, 0}, {3, 1}, {7, 3}, {3, 0}}) {
      Conv2dShape s = shape(1, 2, 5, w, 13, k, 2, pad, 1, 1);
      runConv(s, seed % 2, Int8Output::Int8, seed, /*depthwise=*/false,
              /*common=*/seed % 3 != 0);
      ++seed;
    }
}

/// Outputs of at most 64 pixels with common requants: the AVX-512 VNNI
/// path's transposed form (pixels as rows, channels in the lanes). Channel
/// counts around its 12-row panels and 48-channel tiles, 1 to 64 pixels
/// (pixel-tile tails of 1..7), 1x1 straight and strided, windows,
/// dilation, K from 1 to past one K block, two images, every workgroup
/// split of runConv.
TEST(Int8Conv, TransposedSmallOutputs) {
  runCommonConvs({shape(1, 1, 1, 1, 1, 1, 1, 0, 1, 1),
                  shape(1, 5, 2, 3, 13, 1, 1, 0, 1, 1),
                  shape(2, 17, 7, 7, 47, 1, 1, 0, 1, 1),
                  shape(1, 24, 7, 7, 48, 3, 1, 1, 1, 1),
                  shape(1, 9, 8, 8, 49, 3, 1, 1, 1, 1),
                  shape(1, 40, 14, 14, 100, 1, 2, 0, 1, 1),
                  shape(1, 12, 14, 13, 60, 3, 2, 1, 1, 1),
                  shape(1, 7, 1, 64, 12, 1, 1, 0, 1, 1),
                  shape(1, 6, 9, 9, 36, 5, 1, 2, 2, 1),
                  shape(1, 3, 11, 11, 97, 7, 2, 3, 1, 1),
                  shape(1, 600, 3, 3, 20, 3, 1, 1, 1, 1)},
                 900, /*depthwise=*/false);
}

/// Windows on one group with C a multiple of 4: the filter packed
/// tap-major (int8ConvTapMajor) on every path; on AVX-512 VNNI, K >= 48 in
/// one K block reads B in place from the 4-channel interleaved input
/// (common requants: the pipelined tiles): over the real pixels with the
/// taps outside the row masked for stride 1 and OW = W, else over the
/// padded width. Widths 5 to 64 around the 16- and 32-column tiles, 4 to
/// 516 channels, windows 2 to 9, pads 0 to 4, dilation 2, row tails, two
/// images, K at one K block (4608) and past it (packed, tap-major across
/// the K blocks), K = 36 (fused, not pipelined), 7 x 7 outputs (transposed
/// form); strides 2, 3 and 4 (the phases interleaved: real pixels, or the
/// padded width when a phase is wider than the output rows); int32
/// outputs (packed).
TEST(Int8Conv, TapMajorInPlace) {
  std::initializer_list<Conv2dShape> shapes = {
      shape(1, 8, 9, 17, 5, 3, 1, 1, 1, 1),
      shape(2, 12, 10, 30, 13, 3, 1, 1, 1, 1),
      shape(1, 16, 11, 40, 25, 3, 1, 0, 1, 1),
      shape(1, 8, 12, 33, 24, 3, 1, 2, 2, 1),
      shape(1, 4, 10, 20, 7, 5, 1, 2, 1, 1),
      shape(1, 20, 6, 64, 12, 2, 1, 0, 1, 1),
      shape(1, 64, 9, 56, 37, 3, 1, 1, 1, 1),
      shape(1, 512, 3, 20, 12, 3, 1, 1, 1, 1),
      shape(1, 516, 3, 18, 12, 3, 1, 1, 1, 1),
      shape(1, 4, 9, 30, 6, 3, 1, 1, 1, 1),
      shape(1, 8, 14, 14, 20, 3, 1, 1, 1, 1),
      shape(1, 8, 13, 13, 20, 3, 1, 1, 1, 1),
      // Narrow rows (a tile's 32 pixels span up to 7 of them), 7 x 7 and
      // 9 x 9 windows (more than 8 taps a row: the padded width).
      shape(1, 8, 11, 9, 14, 3, 1, 1, 1, 1),
      shape(1, 12, 30, 5, 13, 3, 1, 1, 1, 1),
      shape(1, 4, 20, 23, 9, 7, 1, 3, 1, 1),
      shape(1, 4, 12, 30, 6, 9, 1, 4, 1, 1),
      shape(1, 16, 7, 7, 30, 3, 1, 1, 1, 1),
      // Strided: B in place from the 4-channel interleaved phases.
      shape(1, 16, 30, 34, 13, 3, 2, 1, 1, 1),
      shape(2, 8, 29, 31, 20, 3, 2, 1, 1, 1),
      shape(1, 12, 20, 50, 9, 3, 3, 1, 1, 1),
      shape(1, 4, 40, 41, 7, 5, 2, 2, 1, 1),
      shape(1, 8, 20, 60, 10, 3, 4, 0, 1, 1),
      // A phase wider than the output rows: the padded width.
      shape(1, 8, 20, 40, 10, 3, 2, 0, 1, 1),
      // Dilated and strided: every tap in one column phase (real pixels);
      // the taps' column phase not the one built without the padding
      // (the padded width).
      shape(1, 8, 21, 37, 10, 3, 2, 2, 2, 1),
      shape(1, 8, 21, 40, 10, 3, 2, 1, 2, 1),
      shape(1, 8, 24, 24, 12, 3, 2, 1, 1, 1),
      shape(1, 8, 14, 14, 16, 3, 2, 1, 1, 1)};
  runCommonConvs(shapes, 1500, /*depthwise=*/false);
  // The same shapes with channel-major filters (filter_packed 1: the
  // artifacts of earlier sessions), packed on every path.
  unsigned seed = 1600;
  for (const Conv2dShape &s : shapes)
    runConv(s, seed % 2, Int8Output::Int8, seed, /*depthwise=*/false,
            /*common=*/true, /*order=*/0),
        ++seed;
  for (const Conv2dShape &s : shapes)
    runConv(s, seed % 2, Int8Output::Int32, seed, /*depthwise=*/false), ++seed;
}

/// Requants of the common form only (the fused microkernel requantization
/// on the AVX-512 VNNI path): 1x1 (straight into C), windows and strides
/// (over the padded width), several K blocks, row and column tails.
TEST(Int8Conv, GemmCommonRequant) {
  runCommonConvs({shape(1, 3, 9, 11, 5, 3, 1, 1, 1, 1),
                  shape(2, 8, 7, 7, 16, 1, 1, 0, 1, 1),
                  shape(1, 16, 10, 9, 24, 3, 2, 1, 1, 1),
                  shape(1, 6, 12, 12, 9, 3, 1, 2, 2, 3),
                  shape(1, 64, 15, 13, 37, 1, 1, 0, 1, 1),
                  shape(1, 300, 4, 5, 7, 2, 1, 0, 1, 1),
                  shape(1, 130, 7, 7, 30, 3, 1, 1, 1, 1),
                  shape(1, 5, 9, 70, 6, 3, 1, 1, 1, 1),
                  // K = 4689 > one K block (4608).
                  shape(1, 521, 4, 5, 13, 3, 1, 1, 1, 1)},
                 250, /*depthwise=*/false);
}

/// Common requants: the AVX-512 VNNI path's depthwise with 16 channels in
/// the vector lanes: channel counts around 16, planes from 1 x 1 to 70 x
/// 70 (rows of several 16-pixel chunks), strides, a 5 x 5
/// dilated window, two images (runConv splits the planes in two halves, so
/// a call starts inside a block of 16).
TEST(Int8Conv, DepthwiseLanes) {
  runCommonConvs({shape(1, 1, 1, 1, 1, 3, 1, 1, 1, 1),
                  shape(2, 15, 7, 7, 15, 3, 1, 1, 1, 15),
                  shape(1, 16, 14, 14, 16, 3, 2, 1, 1, 16),
                  shape(2, 17, 16, 16, 17, 3, 1, 1, 1, 17),
                  shape(1, 33, 5, 9, 33, 5, 1, 4, 2, 33),
                  shape(1, 40, 13, 3, 40, 3, 2, 1, 1, 40),
                  // Rows of several 16-pixel chunks.
                  shape(1, 17, 3, 40, 17, 3, 1, 1, 1, 17),
                  shape(1, 18, 30, 21, 18, 3, 2, 1, 1, 18),
                  shape(1, 5, 70, 70, 5, 3, 1, 1, 1, 5)},
                 950, /*depthwise=*/true);
}

TEST(Int8Conv, DepthwiseCommonRequant) {
  unsigned seed = 350;
  for (const Conv2dShape &s : {shape(1, 8, 9, 11, 8, 3, 1, 1, 1, 8),
                               shape(2, 5, 12, 13, 10, 3, 2, 1, 1, 5),
                               shape(1, 24, 14, 14, 24, 3, 1, 1, 1, 24),
                               shape(1, 3, 30, 40, 3, 3, 2, 0, 1, 3)})
    for (bool isUnsigned : {false, true})
      for (Int8Output o : {Int8Output::Int8, Int8Output::UInt8})
        runConv(s, isUnsigned, o, seed++, /*depthwise=*/true, /*common=*/true);
}

/// The depthwise kernels keep a padded plane per thread and rewrite only
/// its interior while the geometry stays: a plane whose padded width and
/// pads match the previous one's but whose image is narrower (a right pad
/// where the previous image was) must still see zeros there.
TEST(Int8Conv, DepthwisePaddingReuse) {
  auto asymmetric = [](int64_t w, int64_t pr) {
    Conv2dShape s = shape(1, 4, 6, w, 4, 3, 1, 1, 1, 4);
    s.pr = pr;
    s.ow = w + s.pl + pr - 2;
    return s;
  };
  unsigned seed = 370;
  for (int rep = 0; rep < 2; ++rep) {
    runConv(asymmetric(10, 0), false, Int8Output::Int8, seed++, true, true);
    runConv(asymmetric(9, 1), false, Int8Output::Int8, seed++, true, true);
    runConv(asymmetric(10, 0), true, Int8Output::Int32, seed++, true);
    runConv(asymmetric(9, 1), true, Int8Output::Int32, seed++, true);
  }
}

TEST(Int8Conv, Depthwise) {
  unsigned seed = 300;
  for (const Conv2dShape &s : {shape(1, 8, 9, 11, 8, 3, 1, 1, 1, 8),
                               shape(2, 5, 12, 13, 10, 3, 2, 1, 1, 5),
                               shape(1, 4, 17, 7, 4, 5, 1, 2, 2, 4),
                               shape(1, 3, 30, 40, 3, 3, 2, 0, 1, 3),
                               shape(1, 2, 5, 64, 2, 3, 1, 1, 1, 2),
                               shape(1, 2, 4, 65, 2, 3, 1, 1, 1, 2),
                               // Two output rows per vector (OW <= 8).
                               shape(1, 3, 7, 7, 3, 3, 1, 1, 1, 3),
                               shape(1, 2, 9, 8, 2, 3, 1, 1, 1, 2),
                               shape(1, 2, 6, 5, 2, 5, 1, 2, 1, 2),
                               shape(1, 2, 5, 1, 2, 3, 1, 1, 1, 2),
                               shape(2, 3, 14, 14, 3, 3, 2, 1, 1, 3)})
    for (bool isUnsigned : {false, true})
      for (Int8Output o :
           {Int8Output::Int8, Int8Output::UInt8, Int8Output::Int32})
        runConv(s, isUnsigned, o, seed++, /*depthwise=*/true);
}

} // namespace

namespace {

/// The epilogue alone (K = 0: the accumulator is the correction term) on
/// values chosen to sit on the rounding edges: v * m / 2^s exactly k + 1/2
/// (ties go away from zero), one unit either side, the int32 extremes, and
/// saturation at qmin / qmax; per row (convolution) and per column (matmul)
/// channels, every path, against intq::requantMultiplierShift.
TEST(Int8Gemm, RoundingEdges) {
  std::vector<int32_t> values = edgeValues();
  // (multiplier, shift): exact halves for odd v, quarters, identities.
  std::vector<std::pair<int32_t, int32_t>> ms = {
      {1 << 30, 31},   {1 << 30, 32},    {3 << 28, 31},   {INT32_MAX, 31},
      {INT32_MAX, 63}, {-(1 << 30), 31}, {INT32_MIN, 31}, {INT32_MIN, 62},
      {1, 0},          {1, 1},           {-1, 1},         {5, 2},
      {1 << 30, 40},   {1 << 30, 30}};
  for (Int8Path path : supportedPaths())
    for (bool perRow : {true, false})
      for (Int8Output out :
           {Int8Output::Int8, Int8Output::UInt8, Int8Output::Int32})
        for (auto [m, s] : ms) {
          int64_t channels = int64_t(values.size());
          std::vector<int32_t> corr(values), mult(size_t(channels), m),
              shift(size_t(channels), s);
          Int8Epilogue e;
          e.perRow = perRow;
          e.corr = corr.data();
          e.out = out;
          e.multiplier = mult.data();
          e.shift = shift.data();
          e.zp = out == Int8Output::UInt8 ? 128 : -3;
          e.qmin = out == Int8Output::UInt8 ? 0 : -128;
          e.qmax = out == Int8Output::UInt8 ? 250 : 127;
          int64_t rows = perRow ? channels : 3, cols = perRow ? 19 : channels;
          int64_t eb = out == Int8Output::Int32 ? 4 : 1;
          std::vector<uint8_t> y(size_t(rows * cols * eb), 0xcd);
          Int8GemmProblem p;
          p.m = rows;
          p.n = cols;
          p.k = 0;
          p.aPlain = nullptr;
          p.bPacked = nullptr;
          p.c = y.data();
          p.ldc = cols;
          p.epilogue = e;
          int8Gemm(p, 0, rows, 0, cols, path);
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
              int64_t ch = perRow ? i : j;
              int64_t want =
                  out == Int8Output::Int32
                      ? values[size_t(ch)]
                      : strata::intq::requantMultiplierShift(
                            values[size_t(ch)], m, s, e.zp, e.qmin, e.qmax);
              ASSERT_EQ(outAt(y, out, i * cols + j), want)
                  << int8PathName(path) << " v=" << values[size_t(ch)]
                  << " m=" << m << " s=" << s << " perRow=" << perRow
                  << " out=" << int(out);
            }
        }
}

} // namespace

namespace {

/// The rounding edges through a convolution's microkernel (K > 0, so the
/// AVX-512 VNNI path requantizes in its registers) and a depthwise
/// convolution's rows (requantized in vector registers): zero weights, so each
/// output channel's accumulator is its bias, set to an edge value; 1x1
/// (written straight) and 3x3 padded (over the padded width), K short
/// (the fused microkernel) and K >= 48 (the software-pipelined one, whose
/// tiles are written during the next tile's K loop), relu on and
/// off, every path and every rounding (MultiplierShift against
/// intq::requantMultiplierShift, TosaSingleRound against intq::requantTosa,
/// TFLiteHalfUp against intq::requantTFLiteHalfUp).
TEST(Int8Conv, RoundingEdges) {
  std::vector<int32_t> values = edgeValues();
  std::vector<std::pair<int32_t, int32_t>> ms = {
      {1 << 30, 31},
      {1 << 30, 32},
      {3 << 28, 31},
      {INT32_MAX, 31},
      {INT32_MAX, 63},
      {INT32_MAX, 32},
      {(1 << 30) + 1, 33},
      {1 << 30, 62},
      {1 << 30, 40},
      {-(1 << 30), 31},
      {1 << 30, 30},
      // TFLite's Q31 multipliers with small exponents.
      {1 << 30, 1},
      {1518500250, 5},
      {(1 << 30) + 7, 0}};
  int64_t channels = int64_t(values.size());
  auto expected = [](Int8Rounding r, int64_t v, int64_t m, int64_t sh,
                     int64_t zp, int64_t lo, int64_t hi) -> int64_t {
    if (r == Int8Rounding::HalfUp)
      return strata::intq::requantTosa(v, m, std::clamp<int64_t>(sh, 0, 63),
                                       /*doubleRound=*/false, zp, lo, hi);
    if (r == Int8Rounding::TFLiteHalfUp)
      return strata::intq::requantTFLiteHalfUp(
          v, m, std::clamp<int64_t>(sh, 0, 63), zp, lo, hi);
    return strata::intq::requantMultiplierShift(v, m, sh, zp, lo, hi);
  };
  for (Int8Rounding rounding :
       {Int8Rounding::HalfAwayFromZero, Int8Rounding::HalfUp,
        Int8Rounding::TFLiteHalfUp})
    for (int form : {0, 1, 2})
      for (int64_t k : {1, 3}) {
        // 0: depthwise; 1: GEMM, K of 2 or 18 (the fused microkernel); 2:
        // GEMM, K of 48 or 54 (the software-pipelined one, K >= 48).
        bool depthwise = form == 0;
        int64_t cin = form == 2 ? (k == 1 ? 48 : 6) : 2;
        Conv2dShape s =
            depthwise
                ? shape(1, channels, 5, 9, channels, k, 1, k / 2, 1, channels)
                : shape(1, cin, 5, 9, channels, k, 1, k / 2, 1, 1);
        Int8WeightKind kind =
            depthwise ? Int8WeightKind::Depthwise : Int8WeightKind::ConvFilter;
        std::vector<int8_t> x(size_t(s.c * s.h * s.w), 7);
        std::vector<int8_t> w(size_t(s.o * s.gemmK()), 0);
        for (auto [m, sh] : ms)
          for (Int8Output out : {Int8Output::Int8, Int8Output::UInt8})
            for (bool relu : {false, true})
              for (int z = 0; z < 3; ++z) {
                bool u = out == Int8Output::UInt8;
                int32_t zps[3] = {u ? 128 : -3, u ? 0 : -128, u ? 255 : 127};
                Int8PackedLayout l = int8PackedLayout(kind, s, 0, 0);
                std::vector<uint8_t> packed(l.totalBytes + 64);
                uint8_t *blob =
                    packed.data() + (64 - uintptr_t(packed.data()) % 64) % 64;
                std::vector<int64_t> m64(size_t(channels), m),
                    s64(size_t(channels), sh);
                int8PackWeight(kind, s, 0, 0, false, w.data(), m64.data(),
                               s64.data(), channels, blob, int8ConvTapMajor(s));
                Int8Input in{false, 0};
                std::vector<int32_t> corr(static_cast<size_t>(channels));
                int8Corrections(in, values.data(),
                                depthwise ? nullptr
                                          : reinterpret_cast<const int32_t *>(
                                                blob + l.sumOffset),
                                channels, corr.data());
                Int8Epilogue e;
                e.corr = corr.data();
                e.relu = relu;
                e.out = out;
                e.multiplier = reinterpret_cast<const int32_t *>(
                    blob + l.multiplierOffset);
                e.shift =
                    reinterpret_cast<const int32_t *>(blob + l.shiftOffset);
                e.zp = zps[z];
                e.qmin = u ? 0 : -128;
                e.qmax = u ? (z == 0 ? 250 : 255) : (z == 0 ? 100 : 127);
                e.rounding = rounding;
                int64_t ohw = s.oh * s.ow;
                for (Int8Path path : supportedPaths()) {
                  std::vector<uint8_t> y(size_t(channels * ohw), 0xcd);
                  if (depthwise)
                    int8Conv2dDepthwise(s, in, x.data(),
                                        reinterpret_cast<const int8_t *>(blob),
                                        e, y.data(), 0, channels, path);
                  else
                    int8Conv2dGemm(s, in, x.data(), blob, e, y.data(), 1, 0, 1,
                                   int8ConvTapMajor(s), path);
                  for (int64_t c = 0; c < channels; ++c) {
                    int32_t v = values[size_t(c)];
                    if (relu && v < 0)
                      v = 0;
                    int64_t want =
                        expected(rounding, v, m, sh, e.zp, e.qmin, e.qmax);
                    for (int64_t i = 0; i < ohw; ++i)
                      ASSERT_EQ(outAt(y, out, c * ohw + i), want)
                          << int8PathName(path) << " k=" << k
                          << " rounding=" << int(rounding)
                          << " depthwise=" << depthwise
                          << " v=" << values[size_t(c)] << " m=" << m
                          << " s=" << sh << " relu=" << relu << " zp=" << e.zp
                          << " at " << i;
                  }
                }
              }
      }
}

} // namespace
