//===- Conv.cpp - convolution as GEMM, im2col packed on the fly -----------===//

#include "strata/Kernels/Conv.h"

#include "Depthwise.h"

#include <algorithm>
#include <cstring>

namespace strata::kernels {

namespace {

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

bool mulOk(int64_t &acc, int64_t v) {
  return !__builtin_mul_overflow(acc, v, &acc);
}

/// The im2col columns of one (image, group) as a B operand.
struct Im2colCtx {
  const Conv2dShape *s;
  const float *x; ///< the group's first input channel of the image
};

/// Writes B[k0 .. k0+kc, j0 .. j0+nc) in 16-column panels: row k is (input
/// channel, ky, kx), column j the output pixel (oy, ox). A panel's columns
/// split into segments along one output row; each segment of each row k is
/// a (strided) run of one input row, copied with zeros where it leaves the
/// input.
void packIm2col(const void *ctxPtr, int64_t k0, int64_t kc, int64_t j0,
                int64_t nc, float *dst) {
  const Im2colCtx &ctx = *static_cast<const Im2colCtx *>(ctxPtr);
  const Conv2dShape &s = *ctx.s;
  int64_t ohw = s.oh * s.ow, hw = s.h * s.w;
  struct Segment {
    int64_t iy0, ix0, len, at; ///< window origin of its first column
  };
  Segment segs[kPanelCols];
  for (int64_t p = 0; p < nc; p += kPanelCols, dst += kc * kPanelCols) {
    int64_t jBase = j0 + p;
    int64_t cols =
        std::min<int64_t>(kPanelCols, std::min(j0 + nc, ohw) - jBase);
    int64_t nsegs = 0;
    for (int64_t jj = 0; jj < cols;) {
      int64_t j = jBase + jj, oy = j / s.ow, ox = j % s.ow;
      int64_t len = std::min(cols - jj, s.ow - ox);
      segs[nsegs++] = {oy * s.sh - s.pt, ox * s.sw - s.pl, len, jj};
      jj += len;
    }
    int64_t ch = k0 / (s.kh * s.kw), r = k0 % (s.kh * s.kw);
    int64_t ky = r / s.kw, kx = r % s.kw;
    for (int64_t kk = 0; kk < kc; ++kk) {
      const float *xc = ctx.x + ch * hw;
      float *d = dst + kk * kPanelCols;
      if (cols < kPanelCols)
        std::memset(d + cols, 0, size_t(kPanelCols - cols) * sizeof(float));
      for (int64_t si = 0; si < nsegs; ++si) {
        const Segment &g = segs[si];
        float *out = d + g.at;
        int64_t iy = g.iy0 + ky * s.dh;
        if (iy < 0 || iy >= s.h) {
          std::memset(out, 0, size_t(g.len) * sizeof(float));
          continue;
        }
        const float *row = xc + iy * s.w;
        int64_t ix = g.ix0 + kx * s.dw;
        if (s.sw == 1) {
          // Columns [lo, hi) of the segment read inside the row.
          int64_t lo = std::clamp<int64_t>(-ix, 0, g.len);
          int64_t hi = std::clamp<int64_t>(s.w - ix, lo, g.len);
          for (int64_t i = 0; i < lo; ++i)
            out[i] = 0.0f;
          std::memcpy(out + lo, row + ix + lo, size_t(hi - lo) * sizeof(float));
          for (int64_t i = hi; i < g.len; ++i)
            out[i] = 0.0f;
        } else {
          for (int64_t i = 0; i < g.len; ++i, ix += s.sw)
            out[i] = uint64_t(ix) < uint64_t(s.w) ? row[ix] : 0.0f;
        }
      }
      if (++kx == s.kw) {
        kx = 0;
        if (++ky == s.kh) {
          ky = 0;
          ++ch;
        }
      }
    }
  }
}

/// Whether the columns are the input itself (1x1, stride 1, no pads).
bool columnsAreInput(const Conv2dShape &s) {
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 &&
         s.pl == 0 && s.pb == 0 && s.pr == 0 && s.oh == s.h && s.ow == s.w;
}

} // namespace

std::string checkConv2dShape(const Conv2dShape &s) {
  auto str = [](int64_t v) { return std::to_string(v); };
  for (auto [name, v] : {std::pair<const char *, int64_t>{"N", s.n},
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
                         {"G", s.g}})
    if (v < 1)
      return std::string(name) + " is " + str(v) + ", must be at least 1";
  for (auto [name, v] : {std::pair<const char *, int64_t>{"PT", s.pt},
                         {"PL", s.pl},
                         {"PB", s.pb},
                         {"PR", s.pr}})
    if (v < 0 || v > (int64_t(1) << 30))
      return std::string(name) + " is " + str(v) + ", must be in [0, 2^30]";
  for (int64_t v : {s.h, s.w, s.kh, s.kw, s.sh, s.sw, s.dh, s.dw})
    if (v > (int64_t(1) << 30))
      return "a spatial size, stride or dilation is over 2^30";
  if (s.c % s.g || s.o % s.g)
    return "G = " + str(s.g) + " does not divide C = " + str(s.c) +
           " and O = " + str(s.o);
  int64_t spanH = s.dh * (s.kh - 1) + 1, spanW = s.dw * (s.kw - 1) + 1;
  int64_t inH = s.h + s.pt + s.pb, inW = s.w + s.pl + s.pr;
  if (inH < spanH || inW < spanW || (inH - spanH) / s.sh + 1 != s.oh ||
      (inW - spanW) / s.sw + 1 != s.ow)
    return "OH x OW = " + str(s.oh) + " x " + str(s.ow) +
           " does not follow from the input, pads, strides and dilations";
  int64_t x = s.n, y = s.n, f = s.o, k = s.c / s.g;
  if (!mulOk(x, s.c) || !mulOk(x, s.h) || !mulOk(x, s.w) || !mulOk(x, 4) ||
      !mulOk(y, s.o) || !mulOk(y, s.oh) || !mulOk(y, s.ow) || !mulOk(y, 4) ||
      !mulOk(k, s.kh) || !mulOk(k, s.kw) || !mulOk(f, k) || !mulOk(f, 4) ||
      packedConvFilterBytes(s) == 0)
    return "an element count or byte size overflows int64";
  return "";
}

uint64_t packedConvFilterBytes(const Conv2dShape &s) {
  int64_t k = s.c / s.g;
  if (__builtin_mul_overflow(k, s.kh, &k) ||
      __builtin_mul_overflow(k, s.kw, &k))
    return 0;
  uint64_t one = packedABytes(s.o / s.g, k), all;
  if (one == 0 || __builtin_mul_overflow(one, uint64_t(s.g), &all) ||
      all > uint64_t(INT64_MAX))
    return 0;
  return all;
}

void packConvFilter(const Conv2dShape &s, const float *filter, float *dst) {
  int64_t og = s.o / s.g, k = s.gemmK();
  uint64_t groupFloats = packedABytes(og, k) / sizeof(float);
  for (int64_t g = 0; g < s.g; ++g)
    packA(filter + g * og * k, k, /*transposed=*/false, og, k,
          dst + g * groupFloats);
}

int64_t conv2dGemmUnits(const Conv2dShape &s, int64_t workgroups) {
  int64_t images = s.n * s.g;
  int64_t panels = (s.oh * s.ow + kPanelCols - 1) / kPanelCols;
  int64_t chunks = std::max<int64_t>(1, (workgroups + images - 1) / images);
  return images * std::min(chunks, panels);
}

void conv2dGemm(const Conv2dShape &s, const float *x, const float *filter,
                bool filterPacked, const Epilogue &e, float *y,
                int64_t workgroups, int64_t begin, int64_t end, Isa isa) {
  int64_t images = s.n * s.g;
  int64_t chunks = conv2dGemmUnits(s, workgroups) / images;
  int64_t og = s.o / s.g, cg = s.c / s.g, k = s.gemmK();
  int64_t ohw = s.oh * s.ow;
  int64_t chunkCols = roundUp((ohw + chunks - 1) / chunks, kPanelCols);
  uint64_t groupFloats = packedABytes(og, k) / sizeof(float);
  bool direct = columnsAreInput(s);
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t image = unit / chunks, chunk = unit % chunks;
    int64_t n = image / s.g, g = image % s.g;
    int64_t colBegin = chunk * chunkCols;
    int64_t colEnd = std::min(ohw, colBegin + chunkCols);
    if (colBegin >= colEnd)
      continue;
    const float *xg = x + (n * s.c + g * cg) * s.h * s.w;
    GemmProblem p;
    p.m = og;
    p.n = ohw;
    p.k = k;
    if (filterPacked) {
      p.a.data = filter + g * groupFloats;
      p.a.packed = true;
    } else {
      p.a.data = filter + g * og * k;
      p.a.ld = k;
    }
    Im2colCtx ctx{&s, xg};
    if (direct) {
      p.b.data = xg;
      p.b.ld = ohw;
    } else {
      p.b.packFn = packIm2col;
      p.b.packCtx = &ctx;
    }
    p.c = y + (n * s.o + g * og) * ohw;
    p.ldc = ohw;
    p.epilogue = e;
    if (e.biasMode == BiasMode::PerRow)
      p.epilogue.bias = e.bias + g * og;
    if (e.residual)
      p.epilogue.residual = e.residual + (n * s.o + g * og) * ohw;
    p.epilogue.ldr = ohw;
    gemm(p, 0, og, colBegin, colEnd, isa);
  }
}

bool conv2dDepthwise(const Conv2dShape &s, const float *x, const float *filter,
                     const Epilogue &e, float *y, int64_t begin, int64_t end,
                     Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return detail::depthwiseAvx512(s, x, filter, e, y, begin, end) == 0;
  case Isa::Avx2:
    return detail::depthwiseAvx2(s, x, filter, e, y, begin, end) == 0;
  default:
    return detail::depthwisePortable(s, x, filter, e, y, begin, end) == 0;
  }
}

} // namespace strata::kernels
