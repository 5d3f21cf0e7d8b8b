//===- InvertedResidual.cpp - fused expansion, depthwise, projection ------===//

#include "strata/Kernels/InvertedResidual.h"

#include "Depthwise.h"
#include "Scratch.h"

#include <algorithm>
#include <cstring>
#include <unistd.h>
#include <vector>

namespace strata::kernels {

Conv2dShape InvertedResidualShape::depthwiseShape() const {
  Conv2dShape d;
  d.n = n, d.c = e, d.h = h, d.w = w, d.oh = oh, d.ow = ow, d.o = e;
  d.kh = d.kw = 3, d.sh = d.sw = stride;
  d.pt = pt, d.pl = pl, d.pb = pb, d.pr = pr, d.g = e;
  return d;
}

std::string checkInvertedResidualShape(const InvertedResidualShape &s) {
  if (s.stride != 1 && s.stride != 2)
    return "stride " + std::to_string(s.stride) + " is not 1 or 2";
  if (s.p < 1)
    return "output channels " + std::to_string(s.p) + " is not positive";
  Conv2dShape d = s.depthwiseShape();
  std::string why = checkConv2dShape(d);
  if (!why.empty())
    return why;
  // The expansion and projection: C x H x W -> E, E x OH x OW -> P.
  Conv2dShape pw = d;
  pw.kh = pw.kw = 1, pw.sh = pw.sw = 1, pw.pt = pw.pl = pw.pb = pw.pr = 0;
  pw.g = 1, pw.c = s.c, pw.o = s.e, pw.oh = s.h, pw.ow = s.w;
  if (why = checkConv2dShape(pw); !why.empty())
    return why;
  pw.c = s.e, pw.o = s.p, pw.h = pw.oh = s.oh, pw.w = pw.ow = s.ow;
  return checkConv2dShape(pw);
}

namespace {
/// Input rows [first, last) the output rows [oy0, oy1) read, unclipped.
int64_t firstInputRow(const InvertedResidualShape &s, int64_t oy0) {
  return oy0 * s.stride - s.pt;
}
int64_t lastInputRow(const InvertedResidualShape &s, int64_t oy1) {
  return (oy1 - 1) * s.stride - s.pt + 3;
}
} // namespace

int64_t invertedResidualStripRows(const InvertedResidualShape &s,
                                  int64_t cacheBytes) {
  // R output rows read R * stride + 3 - stride expanded rows.
  int64_t perRow = 4 * s.e * (s.stride * s.w + s.ow);
  int64_t fixed = 4 * s.e * (3 - s.stride) * s.w;
  int64_t rows = (cacheBytes - fixed) / std::max<int64_t>(perRow, 1);
  // At least 48 GEMM columns per strip (the microkernel's vectors).
  rows = std::max(rows, (48 + s.ow - 1) / s.ow);
  return std::clamp<int64_t>(rows, 1, s.oh);
}

int64_t invertedResidualCacheBytes() {
  static const int64_t bytes = [] {
    long l2 = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return l2 >= (64 << 10) ? int64_t(l2) / 2 : int64_t(512) << 10;
  }();
  return bytes;
}

int64_t invertedResidualUnits(const InvertedResidualShape &s,
                              int64_t stripRows) {
  return s.n * ((s.oh + stripRows - 1) / stripRows);
}

/// The projection GEMM of output rows [oy0, oy1) of image `img`: W3 (packed)
/// times `b` (E x the strip's pixels), with bias and residual, into y.
static void project(const InvertedResidualShape &s,
                    const InvertedResidualWeights &wt, const GemmOperand &b,
                    float *y, int64_t img, int64_t oy0, int64_t oy1, Isa isa) {
  int64_t ohw = s.oh * s.ow;
  GemmProblem p;
  p.m = s.p, p.n = (oy1 - oy0) * s.ow, p.k = s.e;
  p.a.data = wt.w3, p.a.packed = true;
  p.b = b;
  p.c = y + img * s.p * ohw + oy0 * s.ow, p.ldc = ohw;
  p.epilogue = wt.e3;
  p.epilogue.biasMode = wt.b3 ? BiasMode::PerRow : BiasMode::None;
  p.epilogue.bias = wt.b3;
  p.epilogue.residual =
      wt.residual ? wt.residual + img * s.p * ohw + oy0 * s.ow : nullptr;
  p.epilogue.ldr = ohw;
  gemm(p, isa);
}

static bool invertedResidualBuffered(const InvertedResidualShape &s,
                                     const InvertedResidualWeights &wt,
                                     const float *x, float *y,
                                     int64_t stripRows, int64_t begin,
                                     int64_t end, Isa isa) {
  thread_local detail::Scratch expanded, depthwise;
  int64_t strips = (s.oh + stripRows - 1) / stripRows;
  int64_t maxIn = (stripRows - 1) * s.stride + 3;
  int64_t ld1 = maxIn * s.w; // floats per channel of the expanded strip
  float *t1 = expanded.get<float>(size_t(s.e * ld1));
  float *t2 = depthwise.get<float>(size_t(s.e * stripRows * s.ow));
  // The expanded rows t1 holds: [have0, have1) of image `haveImage`.
  int64_t haveImage = -1, have0 = 0, have1 = 0;
  for (int64_t u = begin; u < end; ++u) {
    int64_t img = u / strips, oy0 = u % strips * stripRows;
    int64_t oy1 = std::min(oy0 + stripRows, s.oh);
    int64_t a0 = firstInputRow(s, oy0), a1 = lastInputRow(s, oy1);
    int64_t r0 = std::max<int64_t>(a0, 0), r1 = std::min(a1, s.h);
    // Keep the rows the previous strip expanded that this one reads.
    int64_t from = r0;
    if (haveImage == img && r0 >= have0 && r0 < have1) {
      if (r0 > have0)
        for (int64_t ch = 0; ch < s.e; ++ch)
          std::memmove(t1 + ch * ld1, t1 + ch * ld1 + (r0 - have0) * s.w,
                       size_t((have1 - r0) * s.w) * sizeof(float));
      from = std::max(have1, r0);
    }
    if (r1 > from) {
      GemmProblem p;
      p.m = s.e, p.n = (r1 - from) * s.w, p.k = s.c;
      p.a.data = wt.w1, p.a.packed = true;
      p.b.data = x + img * s.c * s.h * s.w + from * s.w, p.b.ld = s.h * s.w;
      p.c = t1 + (from - r0) * s.w, p.ldc = ld1;
      p.epilogue = wt.e1;
      p.epilogue.biasMode = wt.b1 ? BiasMode::PerRow : BiasMode::None;
      p.epilogue.bias = wt.b1, p.epilogue.residual = nullptr;
      gemm(p, isa);
    }
    haveImage = img, have0 = r0, have1 = r1;

    // The depthwise over the strip: its pads are the rows outside the image.
    Conv2dShape d = s.depthwiseShape();
    d.n = 1, d.h = r1 - r0, d.oh = oy1 - oy0;
    d.pt = r0 - a0, d.pb = a1 - r1;
    Epilogue e2 = wt.e2;
    e2.biasMode = wt.b2 ? BiasMode::PerRow : BiasMode::None;
    e2.bias = wt.b2, e2.residual = nullptr;
    int rc;
    switch (isa) {
    case Isa::Avx512:
      rc = detail::depthwiseAvx512(d, t1, ld1, wt.dw, e2, t2, 0, s.e);
      break;
    case Isa::Avx2:
      rc = detail::depthwiseAvx2(d, t1, ld1, wt.dw, e2, t2, 0, s.e);
      break;
    default:
      rc = detail::depthwisePortable(d, t1, ld1, wt.dw, e2, t2, 0, s.e);
      break;
    }
    if (rc != 0)
      return false;

    // The projection of the strip's pixels, written into y.
    GemmOperand b;
    b.data = t2, b.ld = (oy1 - oy0) * s.ow;
    project(s, wt, b, y, img, oy0, oy1, isa);
  }
  return true;
}

namespace {

/// The Rows path's row layout (see invertedResidualRows).
struct RingGeometry {
  int64_t slots = 0; ///< expanded rows kept per channel
  int64_t pw = 0;    ///< floats per padded row
  int64_t half = 0;  ///< stride 2: where a row's odd half starts
  /// The positions [lo, hi) of a row the expansion GEMM writes. Stride 2:
  /// the input columns whose padded column is even (evN of them, from
  /// input column evIx in steps of 2) at [evPos, evPos + evN), the others
  /// at [odPos, odPos + odN); the positions between are pads the GEMM
  /// writes too and that are zeroed after it.
  int64_t lo = 0, hi = 0;
  int64_t evIx = 0, evN = 0, evPos = 0, odN = 0, odPos = 0;
  /// Floats the depthwise may read past a row's end (into the next row or
  /// past the ring: lanes of outputs beyond OW, never used).
  int64_t overread = 0;
};

RingGeometry ringGeometry(const InvertedResidualShape &s, int64_t stripRows) {
  RingGeometry g;
  int64_t blocks = (s.ow + 15) / 16;
  g.slots = (stripRows - 1) * s.stride + 3;
  if (s.stride == 1) {
    // Output column ox < OW reads padded columns ox .. ox + 2 <= W + PL +
    // PR - 1: the row holds exactly the padded columns.
    g.pw = s.pl + s.w + s.pr;
    g.lo = s.pl, g.hi = s.pl + s.w;
    g.overread = 16 * blocks + 2;
    return g;
  }
  // Output column ox < OW reads even[ox], odd[ox] and even[ox + 1].
  g.half = std::max(s.ow + 1, (s.pl + s.w - 1) / 2 + 1);
  g.pw = g.half + std::max(s.ow, (s.pl + s.w) / 2);
  g.evIx = s.pl & 1;
  g.evN = (s.w - g.evIx + 1) / 2;
  g.evPos = (g.evIx + s.pl) / 2;
  int64_t odIx = 1 - g.evIx;
  g.odN = s.w > odIx ? (s.w - odIx + 1) / 2 : 0;
  g.odPos = g.half + (odIx + s.pl) / 2;
  g.lo = g.evN ? g.evPos : g.odPos;
  g.hi = g.odN ? g.odPos + g.odN : g.evPos + g.evN;
  g.overread = g.half + 16 * blocks + 1;
  return g;
}

} // namespace

/// The block over strips with the expanded rows in a ring of zero-padded
/// rows per channel (slot = input row mod slots): the expansion GEMM writes
/// a strip's new rows straight into their slots (consecutive slots are
/// contiguous, so one GEMM covers them, its columns running over the pads
/// between rows, which are zeroed after it; stride 2: each row's columns
/// reordered even/odd as the depthwise reads them), rows shared with the
/// previous strip stay where they are, the depthwise stage reads the slots
/// and writes the projection's packed B operand, which the projection GEMM
/// reads as is.
static bool invertedResidualRows(const InvertedResidualShape &s,
                                 const InvertedResidualWeights &wt,
                                 const float *x, float *y, int64_t stripRows,
                                 int64_t begin, int64_t end, Isa isa) {
  thread_local detail::Scratch ringBuf, panelBuf, stageBuf, rowBuf;
  thread_local std::vector<int64_t> slotKey;
  thread_local std::vector<const float *> inRows;
  thread_local std::vector<int64_t> inStep;
  RingGeometry g = ringGeometry(s, stripRows);
  int64_t chStride = g.slots * g.pw; // floats between channels in the ring
  int64_t zeroLen = g.pw + g.overread + 32;
  float *ring = ringBuf.get<float>(size_t(s.e * chStride + zeroLen));
  float *zeroRow = ring + s.e * chStride; // also the ring's read slack
  int64_t maxCols = stripRows * s.ow;
  float *panels = panelBuf.get<float>(size_t((maxCols + 15) / 16 * 16 * s.e));
  float *stage = stageBuf.get<float>(size_t(maxCols + 32));
  int64_t nreg = g.hi - g.lo;
  // The expansion's B: C rows of up to `slots` padded rows' columns.
  int64_t ldt = g.slots * g.pw;
  float *tmp = rowBuf.get<float>(size_t(s.c * ldt));
  // Zero what no GEMM writes: the pads of every slot, the zero row.
  for (int64_t ch = 0; ch < s.e; ++ch)
    for (int64_t r = 0; r < g.slots; ++r) {
      float *rp = ring + ch * chStride + r * g.pw;
      std::fill(rp, rp + g.lo, 0.0f);
      std::fill(rp + g.hi, rp + g.pw, 0.0f);
    }
  std::fill(zeroRow, zeroRow + zeroLen, 0.0f);
  std::fill(tmp, tmp + s.c * ldt, 0.0f);
  slotKey.assign(size_t(g.slots), -1);
  inRows.resize(size_t(g.slots));
  inStep.resize(size_t(g.slots));
  // Pads inside a row's GEMM region (stride 2), relative to lo.
  int64_t dummy0 = g.evPos + g.evN - g.lo, dummy1 = g.odPos - g.lo;
  bool innerPads = s.stride == 2 && g.evN && g.odN && dummy1 > dummy0;

  // Expands input rows [iy0, iy0 + count) of image `img` (consecutive
  // slots) in one GEMM.
  auto deinterleave = isa == Isa::Avx512 ? detail::deinterleaveAvx512
                      : isa == Isa::Avx2 ? detail::deinterleaveAvx2
                                         : detail::deinterleavePortable;
  auto expandRows = [&](int64_t img, int64_t iy0, int64_t count) {
    const float *xi = x + img * s.c * s.h * s.w;
    int64_t n = (count - 1) * g.pw + nreg;
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t r = 0; r < count; ++r) {
        const float *src = xi + c * s.h * s.w + (iy0 + r) * s.w;
        float *t = tmp + c * n + r * g.pw - g.lo; // t[pos]: row position
        if (s.stride == 1) {
          std::memcpy(t + g.lo, src, size_t(s.w) * sizeof(float));
        } else if (g.evIx == 0) {
          deinterleave(src, s.w, t + g.evPos, t + g.odPos);
        } else {
          if (g.odN)
            t[g.odPos] = src[0];
          deinterleave(src + 1, s.w - 1, t + g.evPos, t + g.odPos + 1);
        }
        // The pads up to the next row's region (written as zeros: the
        // GEMM's columns there are only zeroed again afterwards).
        if (r + 1 < count)
          std::fill(t + g.hi, t + g.pw + g.lo, 0.0f);
        if (innerPads)
          std::fill(t + g.lo + dummy0, t + g.lo + dummy1, 0.0f);
      }
    float *dst = ring + (iy0 % g.slots) * g.pw + g.lo;
    GemmProblem p;
    p.m = s.e, p.n = n, p.k = s.c;
    p.a.data = wt.w1, p.a.packed = true;
    p.b.data = tmp, p.b.ld = n;
    p.c = dst, p.ldc = chStride;
    p.epilogue = wt.e1;
    p.epilogue.biasMode = wt.b1 ? BiasMode::PerRow : BiasMode::None;
    p.epilogue.bias = wt.b1, p.epilogue.residual = nullptr;
    if (isa != Isa::Avx512 ||
        !detail::expandTilesAvx512(s.e, n, s.c, wt.w1, tmp, n, wt.b1, wt.e1,
                                   dst, chStride))
      gemm(p, isa);
    // Back to zero: the pads the GEMM's columns ran over (a float or two
    // per row in MobileNetV2: stores, not a memset call each).
    auto zero = [](float *d, int64_t n) {
      if (n > 4) {
        std::fill(d, d + n, 0.0f);
        return;
      }
      for (int64_t i = 0; i < 4; ++i)
        if (i < n)
          d[i] = 0.0f;
    };
    if (count > 1 || innerPads)
      for (int64_t ch = 0; ch < s.e; ++ch) {
        float *d = dst + ch * chStride;
        for (int64_t r = 0; r < count; ++r, d += g.pw) {
          if (innerPads)
            zero(d + dummy0, dummy1 - dummy0);
          if (r + 1 < count)
            zero(d + nreg, g.pw - nreg);
        }
      }
  };

  int64_t strips = (s.oh + stripRows - 1) / stripRows;
  for (int64_t u = begin; u < end; ++u) {
    int64_t img = u / strips, oy0 = u % strips * stripRows;
    int64_t oy1 = std::min(oy0 + stripRows, s.oh);
    int64_t a0 = firstInputRow(s, oy0), a1 = lastInputRow(s, oy1);
    // The rows not in the ring yet, in runs of consecutive slots.
    int64_t runStart = -1;
    int64_t r1 = std::min(a1, s.h);
    for (int64_t iy = std::max<int64_t>(a0, 0); iy <= r1; ++iy) {
      bool need = iy < r1 && slotKey[size_t(iy % g.slots)] != img * s.h + iy;
      if (need && runStart >= 0 && iy % g.slots == 0) {
        expandRows(img, runStart, iy - runStart); // the ring wraps here
        runStart = -1;
      }
      if (need && runStart < 0)
        runStart = iy;
      if (!need && runStart >= 0) {
        expandRows(img, runStart, iy - runStart);
        runStart = -1;
      }
      if (need)
        slotKey[size_t(iy % g.slots)] = img * s.h + iy;
    }
    for (int64_t i = 0; i < a1 - a0; ++i) {
      int64_t iy = a0 + i;
      bool inside = iy >= 0 && iy < s.h;
      inRows[size_t(i)] = inside ? ring + (iy % g.slots) * g.pw : zeroRow;
      inStep[size_t(i)] = inside ? chStride : 0;
    }
    detail::Dw3x3Strip d;
    d.stride = s.stride, d.ow = s.ow, d.outRows = oy1 - oy0, d.half = g.half;
    d.in = inRows.data(), d.inStep = inStep.data(), d.filter = wt.dw;
    d.e = wt.e2;
    d.e.biasMode = wt.b2 ? BiasMode::PerRow : BiasMode::None;
    d.e.bias = wt.b2, d.e.residual = nullptr;
    d.stage = stage, d.panels = panels, d.k = s.e;
    switch (isa) {
    case Isa::Avx512:
      detail::dwStripAvx512(d, 0, s.e);
      break;
    case Isa::Avx2:
      detail::dwStripAvx2(d, 0, s.e);
      break;
    default:
      detail::dwStripPortable(d, 0, s.e);
      break;
    }

    GemmOperand b;
    b.data = panels, b.packed = true;
    project(s, wt, b, y, img, oy0, oy1, isa);
  }
  return true;
}

bool invertedResidualUsesRows(const InvertedResidualShape &s) {
  return s.w >= kInvertedResidualMinRowWidth;
}

bool invertedResidual(const InvertedResidualShape &s,
                      const InvertedResidualWeights &wt, const float *x,
                      float *y, int64_t stripRows, int64_t begin, int64_t end,
                      Isa isa, InvertedResidualPath path) {
  if (path == InvertedResidualPath::Rows ||
      (path == InvertedResidualPath::Auto && invertedResidualUsesRows(s)))
    return invertedResidualRows(s, wt, x, y, stripRows, begin, end, isa);
  return invertedResidualBuffered(s, wt, x, y, stripRows, begin, end, isa);
}

} // namespace strata::kernels
