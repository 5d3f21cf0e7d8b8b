//===- Deconv.cpp - transposed convolution as GEMM + col2im ---------------===//

#include "strata/Kernels/Deconv.h"

#include "SizeChecks.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace strata::kernels {

namespace {

/// The columns of one unit, reused per thread.
struct ColScratch {
  float *ptr = nullptr;
  int64_t cap = 0;
  ~ColScratch() { std::free(ptr); }
  float *get(int64_t floats) {
    if (floats > cap) {
      std::free(ptr);
      ptr = static_cast<float *>(
          std::aligned_alloc(64, size_t((floats * 4 + 63) / 64 * 64)));
      if (!ptr)
        std::abort(); // out of memory while running a kernel
      cap = floats;
    }
    return ptr;
  }
};
thread_local ColScratch colScratch;

int64_t floorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

} // namespace

std::string checkDeconv2dShape(const Conv2dShape &s) {
  auto str = [](int64_t v) { return std::to_string(v); };
  std::string sizes = detail::checkSizes({{"N", s.n},
                                          {"C", s.c},
                                          {"H", s.h},
                                          {"W", s.w},
                                          {"OH", s.oh},
                                          {"OW", s.ow},
                                          {"O", s.o},
                                          {"KH", s.kh},
                                          {"KW", s.kw},
                                          {"SH", s.sh},
                                          {"SW", s.sw},
                                          {"DH", s.dh},
                                          {"DW", s.dw},
                                          {"G", s.g}},
                                         1);
  if (sizes.empty())
    sizes = detail::checkSizes(
        {{"PT", s.pt}, {"PL", s.pl}, {"PB", s.pb}, {"PR", s.pr}}, 0);
  if (!sizes.empty())
    return sizes;
  if (s.c % s.g || s.o % s.g)
    return "G = " + str(s.g) + " does not divide C = " + str(s.c) +
           " and O = " + str(s.o);
  auto fits = [](int64_t in, int64_t k, int64_t st, int64_t d, int64_t p0,
                 int64_t p1, int64_t out) {
    int64_t base = (in - 1) * st + (k - 1) * d + 1 - p0 - p1;
    return out - base >= 0 && out - base < std::max(st, d);
  };
  if (!fits(s.h, s.kh, s.sh, s.dh, s.pt, s.pb, s.oh) ||
      !fits(s.w, s.kw, s.sw, s.dw, s.pl, s.pr, s.ow))
    return "OH x OW = " + str(s.oh) + " x " + str(s.ow) +
           " does not follow from the input, kernel, strides, dilations, pads "
           "and an output padding below the stride or dilation";
  int64_t x = s.n, y = s.n, f = s.c, cols = s.o / s.g;
  auto mul = [](int64_t &acc, int64_t v) {
    return !__builtin_mul_overflow(acc, v, &acc);
  };
  if (!mul(x, s.c) || !mul(x, s.h) || !mul(x, s.w) || !mul(x, 4) ||
      !mul(y, s.o) || !mul(y, s.oh) || !mul(y, s.ow) || !mul(y, 4) ||
      !mul(f, s.o / s.g) || !mul(f, s.kh) || !mul(f, s.kw) || !mul(f, 4) ||
      !mul(cols, s.kh) || !mul(cols, s.kw) || !mul(cols, s.h) ||
      !mul(cols, s.w) || !mul(cols, 4))
    return "an element count or byte size overflows int64";
  return "";
}

int64_t deconv2dUnits(const Conv2dShape &s, int64_t workgroups) {
  int64_t images = s.n * s.g;
  int64_t chunks = std::max<int64_t>(1, (workgroups + images - 1) / images);
  return images * std::min(chunks, s.oh);
}

void deconv2dGemm(const Conv2dShape &s, const float *x, const float *filter,
                  const float *bias, Activation act, float p0, float p1,
                  float *y, int64_t workgroups, int64_t begin, int64_t end,
                  Isa isa) {
  int64_t images = s.n * s.g;
  int64_t chunks = deconv2dUnits(s, workgroups) / images;
  int64_t rowsPerChunk = (s.oh + chunks - 1) / chunks;
  int64_t cg = s.c / s.g, og = s.o / s.g, taps = s.kh * s.kw;
  int64_t m = og * taps, hw = s.h * s.w, ohw = s.oh * s.ow;
  Epilogue actOnly;
  actOnly.act = act;
  actOnly.p0 = p0;
  actOnly.p1 = p1;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t image = unit / chunks, chunk = unit % chunks;
    int64_t n = image / s.g, g = image % s.g;
    int64_t oy0 = chunk * rowsPerChunk;
    int64_t oy1 = std::min(s.oh, oy0 + rowsPerChunk);
    if (oy0 >= oy1)
      continue;
    float *yg = y + (n * s.o + g * og) * ohw;
    for (int64_t o = 0; o < og; ++o) {
      float v = bias ? bias[g * og + o] : 0.0f;
      std::fill(yg + o * ohw + oy0 * s.ow, yg + o * ohw + oy1 * s.ow, v);
    }
    // Input rows iy with iy * SH + ky * DH - PT in [oy0, oy1) for some ky.
    int64_t iy0 = std::max<int64_t>(
        0, floorDiv(oy0 + s.pt - (s.kh - 1) * s.dh + s.sh - 1, s.sh));
    int64_t iy1 = std::min(s.h, floorDiv(oy1 - 1 + s.pt, s.sh) + 1);
    if (iy0 < iy1) {
      int64_t pixels = (iy1 - iy0) * s.w;
      float *cols = colScratch.get(m * pixels);
      // cols[m, pixels] = filter_g^T[m, cg] * x_g[cg, pixels]; the filter
      // block of group g is cg x m (row-major), read transposed.
      GemmProblem p;
      p.m = m;
      p.n = pixels;
      p.k = cg;
      p.a.data = filter + g * cg * m;
      p.a.ld = m;
      p.a.transposed = true;
      p.b.data = x + (n * s.c + g * cg) * hw + iy0 * s.w;
      p.b.ld = hw;
      p.c = cols;
      p.ldc = pixels;
      gemm(p, isa);
      // col2im: row (o, ky, kx) of cols adds into output channel o.
      for (int64_t o = 0; o < og; ++o)
        for (int64_t ky = 0; ky < s.kh; ++ky)
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            const float *cr = cols + ((o * s.kh + ky) * s.kw + kx) * pixels;
            float *yo = yg + o * ohw;
            for (int64_t iy = iy0; iy < iy1; ++iy) {
              int64_t oy = iy * s.sh + ky * s.dh - s.pt;
              if (oy < oy0 || oy >= oy1)
                continue;
              const float *src = cr + (iy - iy0) * s.w;
              float *dst = yo + oy * s.ow;
              int64_t off = kx * s.dw - s.pl;
              // ix in [ixLo, ixHi) lands inside the output row.
              int64_t ixLo =
                  std::max<int64_t>(0, floorDiv(-off + s.sw - 1, s.sw));
              int64_t ixHi = std::min(s.w, floorDiv(s.ow - 1 - off, s.sw) + 1);
              if (s.sw == 1)
                for (int64_t ix = ixLo; ix < ixHi; ++ix)
                  dst[ix + off] += src[ix];
              else
                for (int64_t ix = ixLo; ix < ixHi; ++ix)
                  dst[ix * s.sw + off] += src[ix];
            }
          }
    }
    if (act != Activation::None)
      for (int64_t o = 0; o < og; ++o)
        applyEpilogue(yg + o * ohw + oy0 * s.ow, s.ow, oy1 - oy0, s.ow, 0, 0,
                      actOnly, /*withBiasAndResidual=*/false);
  }
}

} // namespace strata::kernels
