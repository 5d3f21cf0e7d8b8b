//===- Conv.cpp - convolution as GEMM, im2col packed on the fly -----------===//

#include "strata/Kernels/Conv.h"

#include "Depthwise.h"
#include "Microkernels.h"
#include "Scratch.h"
#include "Vec4.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace strata::kernels {

namespace {

int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

bool mulOk(int64_t &acc, int64_t v) {
  return !__builtin_mul_overflow(acc, v, &acc);
}

using detail::evens4, detail::load4, detail::store4, detail::V4;

/// Copies n floats (the pieces of one packed panel row: at most 16 in
/// practice): 4 at a time, the last 4 overlapping the previous ones,
/// instead of a loop per float.
inline void copyFloats(float *d, const float *s, int64_t n) {
  if (n < 4) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[i];
    return;
  }
  for (int64_t i = 0; i + 4 < n; i += 4)
    store4(d + i, load4(s + i));
  store4(d + n - 4, load4(s + n - 4));
}

/// Zeroes n floats the same way.
inline void zeroFloats(float *d, int64_t n) {
  if (n < 4) {
    for (int64_t i = 0; i < n; ++i)
      d[i] = 0.0f;
    return;
  }
  V4 z = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int64_t i = 0; i + 4 < n; i += 4)
    store4(d + i, z);
  store4(d + n - 4, z);
}

/// The im2col columns of one (image, group) as a B operand.
struct Im2colCtx {
  const Conv2dShape *s;
  const float *x; ///< the group's first input channel of the image
  /// 0: x is the input itself. Otherwise x is its column-phase split (see
  /// splitColumns): each input row as SW runs of `phaseW` floats, run p
  /// holding columns p, p + SW, p + 2 SW, ...
  int64_t phaseW = 0;
};

/// The column-phase split of the group's input (`cg` channels) for a
/// horizontal stride SW > 1: a strided convolution's window column then
/// reads one contiguous run, as at stride 1. One pass over the input per
/// call instead of a strided gather per (filter tap, output pixel).
void splitColumns(const Conv2dShape &s, const float *x, int64_t cg,
                  int64_t phaseW, float *dst) {
  int64_t sw = s.sw;
  for (int64_t r = 0; r < cg * s.h; ++r) {
    const float *src = x + r * s.w;
    float *d = dst + r * sw * phaseW;
    if (sw == 2) {
      int64_t half = s.w / 2, j = 0;
      // 8 input columns -> 4 even + 4 odd per step.
      for (; j + 4 <= half; j += 4) {
        V4 lo = load4(src + 2 * j), hi = load4(src + 2 * j + 4);
        store4(d + j, __builtin_shufflevector(lo, hi, 0, 2, 4, 6));
        store4(d + phaseW + j, __builtin_shufflevector(lo, hi, 1, 3, 5, 7));
      }
      for (; j < half; ++j) {
        d[j] = src[2 * j];
        d[phaseW + j] = src[2 * j + 1];
      }
      if (s.w & 1)
        d[half] = src[s.w - 1];
      continue;
    }
    for (int64_t p = 0; p < sw; ++p)
      for (int64_t j = 0, c = p; c < s.w; ++j, c += sw)
        d[p * phaseW + j] = src[c];
  }
}

/// Writes B[k0 .. k0+kc, j0 .. j0+nc) in panels of PW columns (16: the B
/// panels; 12: the A panels of the transposed form, whose rows are the
/// output pixels): row k is (input channel, ky, kx), column j the output
/// pixel (oy, ox). A panel's columns split into segments along one output
/// row; each segment of each row k is a (strided) run of one input row,
/// copied with zeros where it leaves the input. Row k is the outer loop:
/// it walks every panel, so the input rows it reads are read front to back
/// (panel by panel instead, each panel reads a piece of every row k: as
/// many streams as the K block has rows, which the hardware prefetcher
/// does not follow).
template <int64_t PW>
void packIm2colPanels(const void *ctxPtr, int64_t k0, int64_t kc, int64_t j0,
                      int64_t nc, float *dst) {
  const Im2colCtx &ctx = *static_cast<const Im2colCtx *>(ctxPtr);
  const Conv2dShape &s = *ctx.s;
  int64_t ohw = s.oh * s.ow;
  /// A run of one output row inside a panel: its first column's window
  /// row, output column, length and place in the panel row (`out`: the
  /// panel's offset plus `at`).
  struct Segment {
    int64_t iy0, ox0, len, out;
  };
  /// Each panel's valid columns; the segments of all panels in order.
  struct Panel {
    int64_t cols, segEnd;
  };
  int64_t panels = (nc + PW - 1) / PW;
  thread_local std::vector<Segment> segs;
  thread_local std::vector<Panel> panelInfo;
  segs.clear();
  panelInfo.resize(size_t(panels));
  int64_t panelFloats = kc * PW;
  for (int64_t pi = 0; pi < panels; ++pi) {
    int64_t jBase = j0 + pi * PW;
    int64_t cols = std::max<int64_t>(
        0, std::min<int64_t>(PW, std::min(j0 + nc, ohw) - jBase));
    for (int64_t jj = 0; jj < cols;) {
      int64_t j = jBase + jj, oy = j / s.ow, ox = j % s.ow;
      int64_t len = std::min(cols - jj, s.ow - ox);
      segs.push_back({oy * s.sh - s.pt, ox, len, pi * panelFloats + jj});
      jj += len;
    }
    panelInfo[size_t(pi)] = {cols, int64_t(segs.size())};
  }
  int64_t rowFloats = ctx.phaseW ? s.sw * ctx.phaseW : s.w;
  // Per window column kx: its offset from ox * SW is kx * DW - PL; with the
  // split input, the phase run it reads, that run's index for ox = 0 and
  // how many of the run's entries are in the row.
  struct Tap {
    int64_t phase, shift, valid;
  };
  auto tapOf = [&](int64_t kx) {
    int64_t off = kx * s.dw - s.pl;
    if (!ctx.phaseW)
      return Tap{0, off, s.w};
    int64_t phase = ((off % s.sw) + s.sw) % s.sw;
    return Tap{phase, (off - phase) / s.sw, (s.w - phase + s.sw - 1) / s.sw};
  };
  constexpr int64_t kTapTable = 16;
  Tap taps[kTapTable];
  for (int64_t kx = 0; kx < std::min(s.kw, kTapTable); ++kx)
    taps[kx] = tapOf(kx);
  int64_t ch = k0 / (s.kh * s.kw), r = k0 % (s.kh * s.kw);
  int64_t ky = r / s.kw, kx = r % s.kw;
  for (int64_t kk = 0; kk < kc; ++kk) {
    const float *xc = ctx.x + ch * s.h * rowFloats;
    float *d = dst + kk * PW;
    int64_t off = kx * s.dw - s.pl;
    Tap tap = kx < kTapTable ? taps[kx] : tapOf(kx);
    int64_t phase = tap.phase, shift = tap.shift, valid = tap.valid;
    const Segment *g = segs.data();
    for (int64_t pi = 0; pi < panels; ++pi) {
      const Panel &pn = panelInfo[size_t(pi)];
      if (pn.cols < PW)
        zeroFloats(d + pi * panelFloats + pn.cols, PW - pn.cols);
      for (const Segment *gEnd = segs.data() + pn.segEnd; g < gEnd; ++g) {
        float *out = d + g->out;
        int64_t iy = g->iy0 + ky * s.dh;
        if (iy < 0 || iy >= s.h) {
          zeroFloats(out, g->len);
          continue;
        }
        const float *row = xc + iy * rowFloats;
        if (ctx.phaseW || s.sw == 1) {
          // One contiguous run: index ix0 + i of `run`, in bounds on
          // [lo, hi) of the segment.
          const float *run = row + phase * ctx.phaseW;
          int64_t ix0 = g->ox0 + shift;
          int64_t lo = std::clamp<int64_t>(-ix0, 0, g->len);
          int64_t hi = std::clamp<int64_t>(valid - ix0, lo, g->len);
          if (hi - lo == PW) { // a whole panel row inside the input
            std::memcpy(out, run + ix0, PW * sizeof(float));
            continue;
          }
          zeroFloats(out, lo);
          copyFloats(out + lo, run + ix0 + lo, hi - lo);
          zeroFloats(out + hi, g->len - hi);
        } else {
          int64_t ix = g->ox0 * s.sw + off;
          for (int64_t i = 0; i < g->len; ++i, ix += s.sw)
            out[i] = uint64_t(ix) < uint64_t(s.w) ? row[ix] : 0.0f;
        }
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

void packIm2col(const void *ctxPtr, int64_t k0, int64_t kc, int64_t j0,
                int64_t nc, float *dst) {
  packIm2colPanels<kPanelCols>(ctxPtr, k0, kc, j0, nc, dst);
}

/// Per-thread buffers of the transposed form: the packed columns and the
/// transposed output block.
thread_local detail::Scratch scratchCols, scratchOut;
/// Per-thread buffer of the column-phase split input.
thread_local detail::Scratch scratchSplit;

/// The im2col context of the group's input `xg`: the input itself, or for
/// a horizontal stride over 1 its column-phase split in scratchSplit.
Im2colCtx im2colContext(const Conv2dShape &s, const float *xg) {
  Im2colCtx ctx{&s, xg};
  if (s.sw > 1) {
    int64_t cg = s.c / s.g;
    ctx.phaseW = (s.w + s.sw - 1) / s.sw;
    float *xs = scratchSplit.get<float>(size_t(cg * s.h * s.sw * ctx.phaseW));
    splitColumns(s, xg, cg, ctx.phaseW, xs);
    ctx.x = xs;
  }
  return ctx;
}

/// Whether the columns are the input itself (1x1, stride 1, no pads).
bool columnsAreInput(const Conv2dShape &s) {
  return s.kh == 1 && s.kw == 1 && s.sh == 1 && s.sw == 1 && s.pt == 0 &&
         s.pl == 0 && s.pb == 0 && s.pr == 0 && s.oh == s.h && s.ow == s.w;
}

/// One unit of the GEMM convolutions: (image, group) = unit / chunks and
/// chunk unit % chunks of `chunk` (a multiple of 16) along a dimension of
/// `extent` (output pixels, or output channels for the transposed form).
struct ConvUnit {
  int64_t n, g;       ///< image and group
  int64_t begin, end; ///< the chunk, empty when begin >= end
  const float *xg;    ///< the group's first input channel of the image
};
ConvUnit convUnit(const Conv2dShape &s, const float *x, int64_t unit,
                  int64_t chunks, int64_t chunk, int64_t extent) {
  int64_t image = unit / chunks;
  ConvUnit u;
  u.n = image / s.g;
  u.g = image % s.g;
  u.begin = unit % chunks * chunk;
  u.end = std::min(extent, u.begin + chunk);
  u.xg = x + (u.n * s.c + u.g * (s.c / s.g)) * s.h * s.w;
  return u;
}

/// A 1x1 unpadded convolution with a stride: its columns are the input
/// subsampled, which subsampleInput writes once (C/G x OH x OW floats) so
/// the GEMM reads it as a plain operand.
bool columnsAreSubsampledInput(const Conv2dShape &s) {
  return s.kh == 1 && s.kw == 1 && s.pt == 0 && s.pl == 0 && s.pb == 0 &&
         s.pr == 0 && !columnsAreInput(s);
}

const float *subsampleInput(const Conv2dShape &s, const float *xg) {
  int64_t cg = s.c / s.g;
  float *d = scratchSplit.get<float>(size_t(cg * s.oh * s.ow));
  float *out = d;
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      const float *row = xg + (c * s.h + oy * s.sh) * s.w;
      int64_t ox = 0;
      if (s.sw == 2) // the even columns, 4 per step (reads stay in the row)
        for (; 2 * ox + 8 <= s.w && ox + 4 <= s.ow; ox += 4, out += 4)
          store4(out, evens4(row + 2 * ox));
      for (; ox < s.ow; ++ox)
        *out++ = row[ox * s.sw];
    }
  return d;
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
      packedConvFilterBytes(s) == 0 ||
      packedConvFilterBytes(s, ConvGemmForm::Transposed) == 0)
    return "an element count or byte size overflows int64";
  return "";
}

uint64_t packedConvFilterBytes(const Conv2dShape &s, ConvGemmForm form) {
  int64_t k = s.c / s.g;
  if (__builtin_mul_overflow(k, s.kh, &k) ||
      __builtin_mul_overflow(k, s.kw, &k))
    return 0;
  uint64_t one = form == ConvGemmForm::Transposed ? packedBBytes(k, s.o / s.g)
                                                  : packedABytes(s.o / s.g, k);
  uint64_t all;
  if (one == 0 || __builtin_mul_overflow(one, uint64_t(s.g), &all) ||
      all > uint64_t(INT64_MAX))
    return 0;
  return all;
}

void packConvFilter(const Conv2dShape &s, const float *filter, float *dst,
                    ConvGemmForm form) {
  int64_t og = s.o / s.g, k = s.gemmK();
  bool t = form == ConvGemmForm::Transposed;
  uint64_t groupFloats =
      (t ? packedBBytes(k, og) : packedABytes(og, k)) / sizeof(float);
  for (int64_t g = 0; g < s.g; ++g) {
    // The group's filter is og x k; the transposed form reads it as the
    // k x og B operand (stored transposed).
    if (t)
      packB(filter + g * og * k, k, /*transposed=*/true, k, og,
            dst + g * groupFloats);
    else
      packA(filter + g * og * k, k, /*transposed=*/false, og, k,
            dst + g * groupFloats);
  }
}

ConvGemmForm preferredConvGemmForm(const Conv2dShape &s) {
  int64_t og = s.o / s.g, ohw = s.oh * s.ow;
  if (og < 16 || ohw > kMaxTransposedPixels)
    return ConvGemmForm::Normal;
  // The share of the microkernel's lanes that compute real outputs: its
  // columns come in vectors of 16, its rows in steps of 4.
  double normal = double(ohw) / double(roundUp(ohw, kPanelCols)) * double(og) /
                  double(roundUp(og, 4));
  double transposed = double(ohw) / double(roundUp(ohw, 4)) * double(og) /
                      double(roundUp(og, kPanelCols));
  return transposed > normal * 1.08 ? ConvGemmForm::Transposed
                                    : ConvGemmForm::Normal;
}

namespace {

/// Y[o, q] = T[q, o - colBegin] (+ R[o, q], then relu when `act` is Relu
/// and there is a residual) for o in [colBegin, colEnd) and q in
/// [qBegin, qEnd) (qBegin a multiple of 4): 4 x 4 blocks transposed in
/// registers, the edges one float at a time.
void writeBackTransposed(const float *t, int64_t ldt, int64_t ohw,
                         int64_t colBegin, int64_t colEnd, const float *r,
                         Activation act, float *y, int64_t qBegin,
                         int64_t qEnd) {
  bool relu = r && act == Activation::Relu; // ResNet's residual blocks
  auto one = [&](int64_t o, int64_t q) {
    float v = t[q * ldt + (o - colBegin)];
    if (r)
      v += r[o * ohw + q];
    y[o * ohw + q] = relu ? std::max(v, 0.0f) : v;
  };
  int64_t o = colBegin;
  for (; o + 4 <= colEnd; o += 4) {
    const float *tc = t + (o - colBegin);
    int64_t q = qBegin;
    for (; q + 4 <= qEnd; q += 4) {
      const float *tq = tc + q * ldt;
      V4 c[4] = {load4(tq), load4(tq + ldt), load4(tq + 2 * ldt),
                 load4(tq + 3 * ldt)};
      detail::transpose4(c[0], c[1], c[2], c[3]);
      for (int64_t i = 0; i < 4; ++i) {
        V4 v = c[i];
        if (r)
          v += load4(r + (o + i) * ohw + q);
        if (relu) {
          V4 z = {0.0f, 0.0f, 0.0f, 0.0f};
          v = v > z ? v : z;
        }
        store4(y + (o + i) * ohw + q, v);
      }
    }
    for (; q < qEnd; ++q)
      for (int64_t i = 0; i < 4; ++i)
        one(o + i, q);
  }
  for (; o < colEnd; ++o)
    for (int64_t q = qBegin; q < qEnd; ++q)
      one(o, q);
}

/// Whether the transposed form splits a (image, group) by output pixels
/// (rows of C^T, whole 12-row panels; the last chunk also takes the rows
/// past the last full panel) rather than by output channels: when its A is
/// packed from an im2col (ResNet-50's strided 3x3 at 7x7). Split by
/// channels each workgroup packed the whole A (4608 x 49 floats there, 15%
/// of the layer) for its half of the columns.
bool transposedRowChunks(const Conv2dShape &s, int64_t chunks) {
  return chunks > 1 && !columnsAreInput(s) && !columnsAreSubsampledInput(s) &&
         s.oh * s.ow / kPanelRows >= chunks;
}

} // namespace

int64_t conv2dGemmTransposedUnits(const Conv2dShape &s, int64_t workgroups) {
  int64_t images = s.n * s.g;
  int64_t panels = (s.o / s.g + kPanelCols - 1) / kPanelCols;
  int64_t chunks = std::max<int64_t>(1, (workgroups + images - 1) / images);
  if (transposedRowChunks(s, chunks))
    return images * chunks;
  return images * std::min(chunks, panels);
}

void conv2dGemmTransposed(const Conv2dShape &s, const float *x,
                          const float *filter, bool filterPacked,
                          const Epilogue &e, float *y, int64_t workgroups,
                          int64_t begin, int64_t end, Isa isa) {
  int64_t images = s.n * s.g;
  int64_t chunks = conv2dGemmTransposedUnits(s, workgroups) / images;
  int64_t og = s.o / s.g, k = s.gemmK();
  int64_t ohw = s.oh * s.ow;
  int64_t chunkCols = roundUp((og + chunks - 1) / chunks, kPanelCols);
  uint64_t groupFloats = packedBBytes(k, og) / sizeof(float);
  int64_t rowsPadded = roundUp(ohw, kPanelRows);
  bool byRows = transposedRowChunks(s, chunks);
  int64_t fullPanels = ohw / kPanelRows;
  for (int64_t unit = begin; unit < end; ++unit) {
    ConvUnit u = convUnit(s, x, unit, chunks, chunkCols, og);
    // Rows [rowBegin, rowEnd) of C^T: all, or the chunk's whole panels.
    int64_t rowBegin = 0, rowEnd = ohw;
    if (byRows) {
      int64_t c = unit % chunks;
      rowBegin = c * fullPanels / chunks * kPanelRows;
      rowEnd =
          c + 1 == chunks ? ohw : (c + 1) * fullPanels / chunks * kPanelRows;
      u.begin = 0;
      u.end = og;
    }
    if (u.begin >= u.end || rowBegin >= rowEnd)
      continue;
    int64_t n = u.n, g = u.g, colBegin = u.begin, colEnd = u.end;
    const float *xg = u.xg;
    // A = cols^T (output pixels x K): the input (1x1 unpadded; subsampled
    // first for a stride) read transposed, else packed whole as 12-row
    // panels.
    GemmProblem p;
    bool subsampled = columnsAreSubsampledInput(s);
    if (columnsAreInput(s) || subsampled) {
      p.a.data = subsampled ? subsampleInput(s, xg) : xg;
      p.a.ld = ohw;
      p.a.transposed = true;
    } else {
      float *a = scratchCols.get<float>(size_t(rowsPadded * k));
      Im2colCtx ctx = im2colContext(s, xg);
      packIm2colPanels<kPanelRows>(&ctx, 0, k, rowBegin,
                                   roundUp(rowEnd - rowBegin, kPanelRows),
                                   a + rowBegin * k);
      p.a.data = a;
      p.a.packed = true;
    }
    int64_t width = colEnd - colBegin;
    // Rows of t one cache line longer than a multiple of 64 floats, so the
    // write-back's column walks do not map every row to one L1 set.
    int64_t ldt = roundUp(width, 64) + 16;
    float *t = scratchOut.get<float>(size_t(ohw * ldt));
    p.m = ohw;
    p.n = og;
    p.k = k;
    if (filterPacked) {
      p.b.data = filter + g * groupFloats;
      p.b.packed = true;
    } else {
      p.b.data = filter + g * og * k;
      p.b.ld = k;
      p.b.transposed = true;
    }
    // Columns [colBegin, colEnd) of C^T land in t (row stride ldt).
    p.c = t - colBegin;
    p.ldc = ldt;
    if (e.biasMode == BiasMode::PerRow) {
      p.epilogue.biasMode = BiasMode::PerCol;
      p.epilogue.bias = e.bias + g * og;
    }
    // The residual is laid out as Y, not C^T: it is added while writing Y
    // back, and the activation after it.
    if (!e.residual) {
      p.epilogue.act = e.act;
      p.epilogue.p0 = e.p0;
      p.epilogue.p1 = e.p1;
    }
    gemm(p, rowBegin, rowEnd, colBegin, colEnd, isa);
    float *yg = y + (n * s.o + g * og) * ohw;
    const float *rg =
        e.residual ? e.residual + (n * s.o + g * og) * ohw : nullptr;
    writeBackTransposed(t, ldt, ohw, colBegin, colEnd, rg, e.act, yg, rowBegin,
                        rowEnd);
    if (rg && e.act != Activation::None && e.act != Activation::Relu) {
      Epilogue act;
      act.act = e.act;
      act.p0 = e.p0;
      act.p1 = e.p1;
      applyEpilogue(yg + colBegin * ohw + rowBegin, ohw, width,
                    rowEnd - rowBegin, 0, 0, act,
                    /*withBiasAndResidual=*/false);
    }
  }
}

namespace {

/// The implicit GEMM: B is never built; the microkernel reads each tap's
/// 16 output columns straight from a zero-padded, column-phase split copy
/// of the input (two masked loads where a panel crosses an output row).
/// It needs every 16-column panel (starting at a multiple of 16) to span at
/// most two output rows: OW + gcd(16, OW) >= 16 (14x14 and 28x28 outputs
/// do; 7x7 ones, in the transposed form anyway, do not).
bool implicitGemmApplies(const Conv2dShape &s) {
  return s.ow + std::gcd<int64_t>(kPanelCols, s.ow) >= kPanelCols &&
         !columnsAreInput(s) && !columnsAreSubsampledInput(s);
}

thread_local detail::Scratch scratchPadded;

/// Runs columns [colBegin, colEnd) of the group's GEMM `p` (A, C and the
/// epilogue set) as an implicit GEMM; false when the ISA has no gather
/// microkernel.
bool implicitGemm(const Conv2dShape &s, const float *xg, const GemmProblem &p,
                  int64_t colBegin, int64_t colEnd, Isa isa) {
  // Padded rows hp x padded columns wp, each row stored as SW runs of
  // phaseW floats, run q holding padded columns q, q + SW, ...: the window
  // column kx of output column ox is entry ox + (kx DW) / SW of run
  // (kx DW) % SW, so 16 output columns are 16 consecutive floats. Only the
  // padded rows [r0, r0 + rows) that output rows [oy0, oy1) read are
  // copied: each workgroup copies its share, not the whole input.
  int64_t cg = s.c / s.g, hp = s.h + s.pt + s.pb, wp = s.w + s.pl + s.pr;
  int64_t phaseW = (wp + s.sw - 1) / s.sw, rowFloats = s.sw * phaseW;
  int64_t oy0 = colBegin / s.ow, oy1 = (colEnd - 1) / s.ow + 1;
  int64_t r0 = oy0 * s.sh;
  int64_t rows = std::min(hp, (oy1 - 1) * s.sh + (s.kh - 1) * s.dh + 1) - r0;
  size_t floats = size_t(cg * rows * rowFloats);
  float *padded = scratchPadded.get<float>(floats);
  std::memset(padded, 0, floats * sizeof(float));
  int64_t iyBegin = std::max<int64_t>(0, r0 - s.pt);
  int64_t iyEnd = std::min(s.h, r0 + rows - s.pt);
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t iy = iyBegin; iy < iyEnd; ++iy) {
      const float *src = xg + (c * s.h + iy) * s.w;
      float *row = padded + (c * rows + iy + s.pt - r0) * rowFloats;
      // Run q's entry i is input column q + i SW - PL: from the first
      // entry inside the input, every SW-th input column.
      for (int64_t q = 0; q < s.sw; ++q) {
        int64_t i0 = q >= s.pl ? 0 : (s.pl - q + s.sw - 1) / s.sw;
        int64_t ix = q + i0 * s.sw - s.pl;
        float *d = row + q * phaseW + i0;
        if (s.sw == 1) {
          if (ix < s.w)
            std::memcpy(d, src + ix, size_t(s.w - ix) * sizeof(float));
          continue;
        }
        if (s.sw == 2)
          for (; ix + 8 <= s.w; ix += 8, d += 4)
            store4(d, evens4(src + ix));
        for (; ix < s.w; ix += s.sw)
          *d++ = src[ix];
      }
    }
  thread_local std::vector<int64_t> off;
  off.resize(size_t(p.k));
  for (int64_t kk = 0; kk < p.k; ++kk) {
    int64_t c = kk / (s.kh * s.kw), ky = kk / s.kw % s.kh, kx = kk % s.kw;
    int64_t dx = kx * s.dw;
    off[size_t(kk)] =
        (c * rows + ky * s.dh) * rowFloats + dx % s.sw * phaseW + dx / s.sw;
  }
  detail::ImplicitB b{padded, off.data(), s.ow, s.sh * rowFloats, oy0};
  return detail::gemmImplicitB(p, b, 0, p.m, colBegin, colEnd, isa);
}

} // namespace

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
  int64_t og = s.o / s.g, k = s.gemmK();
  int64_t ohw = s.oh * s.ow;
  int64_t chunkCols = roundUp((ohw + chunks - 1) / chunks, kPanelCols);
  // Chunks of whole panels rounded down, the last one taking the rest, when
  // that balances better (a partial panel costs about half a panel more
  // than its columns): 196 columns in 96 + 100, not 112 + 84.
  auto cost = [](int64_t cols) {
    return cols + (cols % kPanelCols ? kPanelCols / 2 : 0);
  };
  int64_t downCols = ohw / chunks / kPanelCols * kPanelCols;
  bool lastTakesRest =
      chunks > 1 && downCols > 0 &&
      std::max(downCols, cost(ohw - (chunks - 1) * downCols)) <
          std::max(chunkCols, cost(ohw - (chunks - 1) * chunkCols));
  if (lastTakesRest)
    chunkCols = downCols;
  uint64_t groupFloats = packedABytes(og, k) / sizeof(float);
  bool direct = columnsAreInput(s);
  bool subsampled = columnsAreSubsampledInput(s);
  bool implicitB = implicitGemmApplies(s) && detail::implicitBAvailable(isa);
  for (int64_t unit = begin; unit < end; ++unit) {
    ConvUnit u = convUnit(s, x, unit, chunks, chunkCols, ohw);
    if (lastTakesRest && unit % chunks == chunks - 1)
      u.end = ohw;
    if (u.begin >= u.end)
      continue;
    int64_t n = u.n, g = u.g, colBegin = u.begin, colEnd = u.end;
    const float *xg = u.xg;
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
    p.c = y + (n * s.o + g * og) * ohw;
    p.ldc = ohw;
    p.epilogue = e;
    if (e.biasMode == BiasMode::PerRow)
      p.epilogue.bias = e.bias + g * og;
    if (e.residual)
      p.epilogue.residual = e.residual + (n * s.o + g * og) * ohw;
    p.epilogue.ldr = ohw;
    if (implicitB && implicitGemm(s, xg, p, colBegin, colEnd, isa))
      continue;
    Im2colCtx ctx{&s, xg};
    if (direct || subsampled) {
      p.b.data = subsampled ? subsampleInput(s, xg) : xg;
      p.b.ld = ohw;
    } else {
      ctx = im2colContext(s, xg);
      p.b.packFn = packIm2col;
      p.b.packCtx = &ctx;
    }
    gemm(p, 0, og, colBegin, colEnd, isa);
  }
}

bool conv2dDepthwise(const Conv2dShape &s, const float *x, const float *filter,
                     const Epilogue &e, float *y, int64_t begin, int64_t end,
                     Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return detail::depthwiseAvx512(s, x, s.h * s.w, filter, e, y, begin,
                                   end) == 0;
  case Isa::Avx2:
    return detail::depthwiseAvx2(s, x, s.h * s.w, filter, e, y, begin,
                                   end) == 0;
  default:
    return detail::depthwisePortable(s, x, s.h * s.w, filter, e, y, begin,
                                   end) == 0;
  }
}

} // namespace strata::kernels
