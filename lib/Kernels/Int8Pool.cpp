//===- Int8Pool.cpp - max pooling of int8 / uint8 planes ------------------===//
//
// Per output row: the max of the window's input rows (in unsigned order:
// int8 bytes XOR 0x80, so one unsigned max serves both types) into a row
// padded with 0 (the smallest value: padding never wins), split into its
// stride phases (phase b holds columns b, b + SW, ..), then each window tap
// kx is one contiguous run of phase kx % SW. Every loop is contiguous bytes
// (the compiler vectorizes them); stride 2 splits its phases with SSE2.
// Compiled for the baseline ISA.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Pool.h"

#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace strata::kernels {

std::string checkInt8MaxPool2dShape(const Pool2dShape &s) {
  std::string why = checkPool2dShape(s);
  if (!why.empty())
    return why;
  if (s.dh != 1 || s.dw != 1)
    return "DH, DW are " + std::to_string(s.dh) + ", " + std::to_string(s.dw) +
           " (the int8 max pool takes dilation 1)";
  if (s.pt >= s.kh || s.pl >= s.kw)
    return "PT, PL are " + std::to_string(s.pt) + ", " + std::to_string(s.pl) +
           ", not below KH, KW = " + std::to_string(s.kh) + ", " +
           std::to_string(s.kw) + " (a window would hold only padding)";
  return "";
}

namespace {

/// even[j] = row[2j], odd[j] = row[2j + 1] for j < n; row has 2n + 32
/// readable bytes (n rounded up to 16 is read).
void splitPhases2(const uint8_t *row, int64_t n, uint8_t *even, uint8_t *odd) {
  int64_t j = 0;
#if defined(__SSE2__)
  __m128i lo = _mm_set1_epi16(0x00ff);
  for (; j + 16 <= n; j += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + 2 * j));
    __m128i b =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + 2 * j + 16));
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(even + j),
        _mm_packus_epi16(_mm_and_si128(a, lo), _mm_and_si128(b, lo)));
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(odd + j),
        _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
  }
#endif
  for (; j < n; ++j) {
    even[j] = row[2 * j];
    odd[j] = row[2 * j + 1];
  }
}

} // namespace

void int8MaxPool2d(const Pool2dShape &s, bool isUnsigned, const uint8_t *x,
                   uint8_t *y, int64_t begin, int64_t end) {
  // The geometry in locals: byte stores may alias `s`, and reloading its
  // fields after each one keeps the compiler from vectorizing the loops.
  const int64_t h = s.h, w = s.w, oh = s.oh, ow = s.ow, kh = s.kh, kw = s.kw;
  const int64_t sh = s.sh, sw = s.sw, pt = s.pt, pl = s.pl;
  const uint8_t flip = isUnsigned ? 0 : 0x80;
  // The padded row: the input's W columns after PL zeros, zeros up to the
  // last window's end (in ceil mode past W + PR).
  const int64_t rowLen = std::max(pl + w + s.pr, (ow - 1) * sw + kw);
  const int64_t phaseLen = (rowLen + sw - 1) / sw;
  thread_local std::vector<uint8_t> buf;
  size_t rowBytes = size_t(phaseLen * sw + 32);
  buf.assign(rowBytes + size_t(sw * phaseLen), 0);
  uint8_t *const row = buf.data();
  uint8_t *const phases = row + rowBytes;
  for (int64_t plane = begin; plane < end; ++plane) {
    const uint8_t *xp = x + plane * h * w;
    uint8_t *yp = y + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy) {
      int64_t y0 = oy * sh - pt;
      int64_t lo = std::max<int64_t>(y0, 0), hi = std::min(y0 + kh, h);
      uint8_t *__restrict r = row + pl;
      const uint8_t *__restrict src = xp + lo * w;
      for (int64_t i = 0; i < w; ++i)
        r[i] = uint8_t(src[i] ^ flip);
      for (int64_t iy = lo + 1; iy < hi; ++iy) {
        const uint8_t *__restrict next = xp + iy * w;
        for (int64_t i = 0; i < w; ++i)
          r[i] = std::max(r[i], uint8_t(next[i] ^ flip));
      }
      // Phase b of the padded row at phases + b * phaseLen (stride 1: the
      // row itself).
      const uint8_t *ph = row;
      if (sw == 2) {
        splitPhases2(row, phaseLen, phases, phases + phaseLen);
        ph = phases;
      } else if (sw > 2) {
        for (int64_t b = 0; b < sw; ++b)
          for (int64_t j = 0; j < phaseLen; ++j)
            phases[b * phaseLen + j] = row[j * sw + b];
        ph = phases;
      }
      uint8_t *__restrict o = yp + oy * ow;
      std::memcpy(o, ph, size_t(ow));
      for (int64_t kx = 1; kx < kw; ++kx) {
        const uint8_t *__restrict p = ph + (kx % sw) * phaseLen + kx / sw;
        for (int64_t ox = 0; ox < ow; ++ox)
          o[ox] = std::max(o[ox], p[ox]);
      }
      for (int64_t ox = 0; ox < ow; ++ox)
        o[ox] = uint8_t(o[ox] ^ flip);
    }
  }
}

} // namespace strata::kernels
