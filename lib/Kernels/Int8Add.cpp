//===- Int8Add.cpp - the int8 Add driver and its table loop ---------------===//
//
// Where Int8AddFast's arithmetic is exact (the parameters real scales
// give), every path computes it in vector lanes: AVX-512 with intrinsics,
// AVX2 and portable as plain loops compiled with their flags
// (Int8AddImpl.inc). Otherwise each input's rescale R(q - zp, m, s)
// depends only on the byte q, so the loop reads it from a 256-entry table
// computed with intq (exact for any parameters); the output
// requantization runs in 64-bit integers for the common form (m > 0, s >=
// 31) and through intq otherwise.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Add.h"

#include "Int8Microkernels.h"

#include "strata/Support/IntegerRequant.h"

#include <algorithm>

namespace strata::kernels {

namespace {

int64_t rescale(const Int8AddParams::Input &in, int32_t q) {
  return intq::requantMultiplierShift(int64_t(q) - in.zp, in.multiplier,
                                      std::clamp(in.shift, 0, 63), 0, INT32_MIN,
                                      INT32_MAX);
}

int32_t byteValue(const Int8AddParams::Input &in, uint8_t byte) {
  return in.isUnsigned ? int32_t(byte) : int32_t(int8_t(byte));
}

/// The vector path's constants, or false when its arithmetic would not be
/// exact for these parameters.
bool fastFormOf(const Int8AddParams &p, detail::Int8AddFast &k) {
  auto input = [](const Int8AddParams::Input &in,
                  detail::Int8AddFast::Input &f) {
    int32_t s = std::clamp(in.shift, 0, 63);
    if (in.multiplier < 0 || s < 1 || s > 24)
      return false;
    // |x| <= 255 (q and zp both inside the 8-bit type): |R| <= R(255),
    // which must stay below 2^30, so each fits the 32-bit lanes and the
    // sum of two never wraps.
    if (intq::roundingRightShift(__int128(255) * in.multiplier, s) >=
        (int64_t(1) << 30))
      return false;
    f.isUnsigned = in.isUnsigned;
    f.zp = in.zp;
    f.mHi = uint32_t(in.multiplier >> s);
    f.mLo = uint32_t(in.multiplier & ((int64_t(1) << s) - 1));
    f.s = uint32_t(s);
    f.h = uint32_t(1) << (s - 1);
    return true;
  };
  int32_t tmin = p.out == Int8Output::UInt8 ? 0 : -128;
  int32_t tmax = p.out == Int8Output::UInt8 ? 255 : 127;
  int32_t s = std::clamp(p.shift, 0, 63);
  if (!input(p.a, k.a) || !input(p.b, k.b) || p.multiplier <= 0 || s < 31 ||
      p.zp < -32512 || p.zp > 32512 || p.qmin < tmin || p.qmax > tmax ||
      p.qmin > p.qmax)
    return false;
  k.relu = p.relu;
  k.outUnsigned = p.out == Int8Output::UInt8;
  k.m = p.multiplier;
  k.s = s;
  if (s == 31) { // the same value with a shift of 32 (Int8FusedRows)
    k.m *= 2;
    k.s = 32;
  }
  k.h = int64_t(1) << (k.s - 1);
  k.zp = int16_t(p.zp);
  k.qmin = int16_t(p.qmin);
  k.qmax = int16_t(p.qmax);
  return true;
}

template <typename T>
void tableLoop(const Int8AddParams &p, const uint8_t *a, const uint8_t *b, T *y,
               int64_t n) {
  int32_t ta[256], tb[256];
  for (int v = 0; v < 256; ++v) {
    ta[v] = int32_t(rescale(p.a, byteValue(p.a, uint8_t(v))));
    tb[v] = int32_t(rescale(p.b, byteValue(p.b, uint8_t(v))));
  }
  int32_t s = std::clamp(p.shift, 0, 63);
  bool common = p.multiplier > 0 && s >= 31;
  int64_t lo = int64_t(p.qmin) - p.zp, hi = int64_t(p.qmax) - p.zp;
  uint64_t h = common ? uint64_t(1) << (s - 1) : 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = int32_t(uint32_t(ta[a[i]]) + uint32_t(tb[b[i]]));
    if (p.relu && v < 0)
      v = 0;
    if (!common) {
      y[i] = T(intq::requantMultiplierShift(v, p.multiplier, s, p.zp, p.qmin,
                                            p.qmax));
      continue;
    }
    // |v| * m < 2^62: the rounding shift of the exact product.
    uint64_t av = v < 0 ? 0 - uint64_t(int64_t(v)) : uint64_t(v);
    int64_t r = int64_t((av * uint64_t(p.multiplier) + h) >> s);
    r = v < 0 ? -r : r;
    y[i] = T(std::clamp(r, lo, hi) + p.zp);
  }
}

} // namespace

int32_t int8AddValue(const Int8AddParams &p, int32_t qa, int32_t qb) {
  int32_t v = int32_t(uint32_t(int32_t(rescale(p.a, qa))) +
                      uint32_t(int32_t(rescale(p.b, qb))));
  if (p.relu && v < 0)
    v = 0;
  return int32_t(intq::requantMultiplierShift(
      v, p.multiplier, std::clamp(p.shift, 0, 63), p.zp, p.qmin, p.qmax));
}

void int8Add(const Int8AddParams &p, const void *a, const void *b, void *y,
             int64_t begin, int64_t end, Int8Path path) {
  if (begin >= end)
    return;
  const auto *pa = static_cast<const uint8_t *>(a) + begin;
  const auto *pb = static_cast<const uint8_t *>(b) + begin;
  auto *py = static_cast<uint8_t *>(y) + begin;
  int64_t n = end - begin;
  detail::Int8AddKernel vec = nullptr;
  switch (path) {
  case Int8Path::Avx512Vnni:
    vec = detail::int8Avx512VnniMicrokernel().add;
    break;
  case Int8Path::Avx2:
    vec = detail::int8Avx2Microkernel().add;
    break;
  case Int8Path::Portable:
    vec = detail::int8PortableMicrokernel().add;
    break;
  }
  detail::Int8AddFast k;
  if (vec && fastFormOf(p, k)) {
    vec(k, pa, pb, py, n);
    return;
  }
  if (p.out == Int8Output::UInt8)
    tableLoop(p, pa, pb, py, n);
  else
    tableLoop(p, pa, pb, reinterpret_cast<int8_t *>(py), n);
}

} // namespace strata::kernels
