//===- OpKernels.cpp - shape checks and the ISA choice of OpKernels.h -----===//

#include "strata/Kernels/OpKernels.h"

#include "OpKernelsIsa.h"
#include "SizeChecks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace strata::kernels {

namespace opk = detail;

int64_t BinaryShape::rows() const {
  int64_t r = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    r *= dims[d];
  return r;
}

int64_t BinaryShape::units() const {
  return rows() * ((cols() + kBinaryChunk - 1) / kBinaryChunk);
}

std::string checkBinaryShape(const BinaryShape &s, int64_t &aElems,
                             int64_t &bElems) {
  if (s.rank < 1 || s.rank > kMaxBinaryRank)
    return "rank is " + std::to_string(s.rank) + ", must be in [1, " +
           std::to_string(kMaxBinaryRank) + "]";
  int64_t count = 1, aMax = 0, bMax = 0;
  for (int64_t d = 0; d < s.rank; ++d) {
    if (s.dims[d] < 0 || s.aStride[d] < 0 || s.bStride[d] < 0)
      return "dim " + std::to_string(d) + " has a negative size or stride";
    int64_t ta, tb;
    if (__builtin_mul_overflow(count, s.dims[d], &count) ||
        (s.dims[d] > 0 &&
         (__builtin_mul_overflow(s.dims[d] - 1, s.aStride[d], &ta) ||
          __builtin_mul_overflow(s.dims[d] - 1, s.bStride[d], &tb) ||
          __builtin_add_overflow(aMax, ta, &aMax) ||
          __builtin_add_overflow(bMax, tb, &bMax))))
      return "an element count or offset overflows int64";
  }
  if (count > INT64_MAX / 4)
    return "an element count or offset overflows int64";
  aElems = count ? aMax + 1 : 0;
  bElems = count ? bMax + 1 : 0;
  return "";
}

std::string checkPool2dShape(const Pool2dShape &s) {
  auto str = [](int64_t v) { return std::to_string(v); };
  std::string sizes = detail::checkSizes({{"N", s.n},
                                          {"C", s.c},
                                          {"H", s.h},
                                          {"W", s.w},
                                          {"OH", s.oh},
                                          {"OW", s.ow},
                                          {"KH", s.kh},
                                          {"KW", s.kw},
                                          {"SH", s.sh},
                                          {"SW", s.sw},
                                          {"DH", s.dh},
                                          {"DW", s.dw}},
                                         1);
  if (sizes.empty())
    sizes = detail::checkSizes(
        {{"PT", s.pt}, {"PL", s.pl}, {"PB", s.pb}, {"PR", s.pr}}, 0);
  if (!sizes.empty())
    return sizes;
  // Floor- or ceil-mode output size; every window starts inside the input
  // or its begin padding.
  auto fits = [](int64_t in, int64_t pb, int64_t pe, int64_t k, int64_t st,
                 int64_t d, int64_t pad0, int64_t out) {
    int64_t span = d * (k - 1) + 1, padded = in + pb + pe;
    if (padded < span)
      return false;
    int64_t lo = (padded - span) / st + 1;
    int64_t hi = (padded - span + st - 1) / st + 1;
    return (out == lo || out == hi) && (out - 1) * st < in + pad0;
  };
  if (!fits(s.h, s.pt, s.pb, s.kh, s.sh, s.dh, s.pt, s.oh) ||
      !fits(s.w, s.pl, s.pr, s.kw, s.sw, s.dw, s.pl, s.ow))
    return "OH x OW = " + str(s.oh) + " x " + str(s.ow) +
           " does not follow from the input, kernel, pads, strides and "
           "dilations (floor or ceil mode)";
  int64_t x = s.n, y = s.n;
  if (__builtin_mul_overflow(x, s.c, &x) ||
      __builtin_mul_overflow(x, s.h, &x) ||
      __builtin_mul_overflow(x, s.w, &x) || __builtin_mul_overflow(x, 4, &x) ||
      __builtin_mul_overflow(y, s.c, &y) ||
      __builtin_mul_overflow(y, s.oh, &y) ||
      __builtin_mul_overflow(y, s.ow, &y) || __builtin_mul_overflow(y, 4, &y))
    return "an element count or byte size overflows int64";
  return "";
}

void binaryF32(BinaryOp op, const BinaryShape &s, const float *a,
               const float *b, float *out, PostClamp clamp, float limit,
               int64_t begin, int64_t end, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return opk::opk_avx512::binary(op, s, a, b, out, clamp, limit, begin, end);
  case Isa::Avx2:
    return opk::opk_avx2::binary(op, s, a, b, out, clamp, limit, begin, end);
  default:
    return opk::opk_portable::binary(op, s, a, b, out, clamp, limit, begin,
                                     end);
  }
}

void softmaxRows(const float *x, float *y, int64_t cols, int64_t rowBegin,
                 int64_t rowEnd, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return opk::opk_avx512::softmax(x, y, cols, rowBegin, rowEnd);
  case Isa::Avx2:
    return opk::opk_avx2::softmax(x, y, cols, rowBegin, rowEnd);
  default:
    return opk::opk_portable::softmax(x, y, cols, rowBegin, rowEnd);
  }
}

void layerNormRows(const float *x, const float *scale, const float *bias,
                   float *y, int64_t cols, float eps, int64_t rowBegin,
                   int64_t rowEnd, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return opk::opk_avx512::layerNorm(x, scale, bias, y, cols, eps, rowBegin,
                                      rowEnd);
  case Isa::Avx2:
    return opk::opk_avx2::layerNorm(x, scale, bias, y, cols, eps, rowBegin,
                                    rowEnd);
  default:
    return opk::opk_portable::layerNorm(x, scale, bias, y, cols, eps, rowBegin,
                                        rowEnd);
  }
}

static bool poolIsa(bool isMax, const Pool2dShape &s, bool countIncludePad,
                    const float *x, float *y, PostClamp clamp, float limit,
                    int64_t begin, int64_t end, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return opk::opk_avx512::pool(isMax, s, countIncludePad, x, y, clamp, limit,
                                 begin, end);
  case Isa::Avx2:
    return opk::opk_avx2::pool(isMax, s, countIncludePad, x, y, clamp, limit,
                               begin, end);
  default:
    return opk::opk_portable::pool(isMax, s, countIncludePad, x, y, clamp,
                                   limit, begin, end);
  }
}

bool maxPool2d(const Pool2dShape &s, const float *x, float *y, PostClamp clamp,
               float limit, int64_t begin, int64_t end, Isa isa) {
  return poolIsa(true, s, false, x, y, clamp, limit, begin, end, isa);
}

bool avgPool2d(const Pool2dShape &s, bool countIncludePad, const float *x,
               float *y, PostClamp clamp, float limit, int64_t begin,
               int64_t end, Isa isa) {
  return poolIsa(false, s, countIncludePad, x, y, clamp, limit, begin, end,
                 isa);
}

void globalAvgPool(const float *x, float *y, int64_t hw, PostClamp clamp,
                   float limit, int64_t begin, int64_t end, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return opk::opk_avx512::globalAvg(x, y, hw, clamp, limit, begin, end);
  case Isa::Avx2:
    return opk::opk_avx2::globalAvg(x, y, hw, clamp, limit, begin, end);
  default:
    return opk::opk_portable::globalAvg(x, y, hw, clamp, limit, begin, end);
  }
}

void unaryF32(UnaryOp op, const float *x, float *y, int64_t n, float p0,
              float p1, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return opk::opk_avx512::unary(op, x, y, n, p0, p1);
  case Isa::Avx2:
    return opk::opk_avx2::unary(op, x, y, n, p0, p1);
  default:
    return opk::opk_portable::unary(op, x, y, n, p0, p1);
  }
}

std::string checkResizeShape(const ResizeShape &s) {
  std::string sizes = detail::checkSizes(
      {{"H", s.h}, {"W", s.w}, {"OH", s.oh}, {"OW", s.ow}}, 1);
  if (sizes.empty())
    sizes = detail::checkSizes({{"planes", s.planes}}, 0);
  if (!sizes.empty())
    return sizes;
  if (s.h > INT32_MAX || s.w > INT32_MAX)
    return "H x W = " + std::to_string(s.h) + " x " + std::to_string(s.w) +
           " exceeds the 32-bit index range";
  if (int64_t(s.mode) < 0 || int64_t(s.mode) > 1)
    return "mode is " + std::to_string(int64_t(s.mode)) + ", must be 0 or 1";
  if (int64_t(s.coord) < 0 || int64_t(s.coord) > 4)
    return "coordinate mode is " + std::to_string(int64_t(s.coord)) +
           ", must be in [0, 4]";
  if (int64_t(s.nearest) < 0 || int64_t(s.nearest) > 3)
    return "nearest mode is " + std::to_string(int64_t(s.nearest)) +
           ", must be in [0, 3]";
  for (double sc : {s.scaleH, s.scaleW})
    if (!(sc > 0.0) || !std::isfinite(sc))
      return "a coordinate scale is " + std::to_string(sc) +
             ", must be finite and > 0";
  int64_t x, y;
  if (__builtin_mul_overflow(s.planes, s.h, &x) ||
      __builtin_mul_overflow(x, s.w, &x) || __builtin_mul_overflow(x, 4, &x) ||
      __builtin_mul_overflow(s.planes, s.oh, &y) ||
      __builtin_mul_overflow(y, s.ow, &y) || __builtin_mul_overflow(y, 4, &y))
    return "an element count or byte size overflows int64";
  return "";
}

namespace {

/// The samples of output coordinate `x` of a dim of `in` resized by
/// `scale` to `out` (ResizeShapes.cpp's buildFilter for nearest and linear
/// without antialias or exclude_outside, in the same double arithmetic).
detail::ResizeTap resizeTap(const ResizeShape &s, int64_t in, int64_t out,
                            double scale, int64_t x) {
  double xd = double(x), ind = double(in), len = scale * ind, src;
  switch (s.coord) {
  case ResizeCoord::Asymmetric:
    src = xd / scale;
    break;
  case ResizeCoord::AlignCorners:
    src = len == 1.0 ? 0.0 : xd * (ind - 1) / (len - 1);
    break;
  case ResizeCoord::PytorchHalfPixel:
    src = len == 1.0 ? -0.5 : (xd + 0.5) / scale - 0.5;
    break;
  case ResizeCoord::HalfPixelSymmetric:
    src = ind / 2 * (1 - double(out) / len) + (xd + 0.5) / scale - 0.5;
    break;
  default:
    src = (xd + 0.5) / scale - 0.5;
    break;
  }
  double pos = std::clamp(src, -1.0e15, 1.0e15);
  double base = std::floor(pos), r = pos - base;
  if (r == 0.0) {
    base -= 1.0;
    r = 1.0;
  }
  int64_t b = int64_t(base);
  auto clampIndex = [&](int64_t i) {
    return int32_t(std::clamp<int64_t>(i, 0, in - 1));
  };
  if (s.mode == ResizeMode::Nearest) {
    bool up;
    if (r == 1.0 || s.nearest == ResizeNearest::Ceil)
      up = true;
    else if (s.nearest == ResizeNearest::Floor)
      up = false;
    else if (s.nearest == ResizeNearest::RoundPreferCeil)
      up = r >= 0.5;
    else
      up = r > 0.5;
    int32_t i = clampIndex(b + (up ? 1 : 0));
    return {i, i, 1.0f, 0.0f};
  }
  return {clampIndex(b), clampIndex(b + 1), float(1.0 - r), float(r)};
}

} // namespace

void resize2d(const ResizeShape &s, const float *x, float *y, int64_t begin,
              int64_t end, Isa isa) {
  if (begin >= end)
    return;
  std::vector<detail::ResizeTap> tx(size_t(s.ow));
  for (int64_t o = 0; o < s.ow; ++o)
    tx[o] = resizeTap(s, s.w, s.ow, s.scaleW, o);
  std::vector<float> tmp(size_t(s.w));
  bool nearest = s.mode == ResizeMode::Nearest;
  auto rowFn = isa == Isa::Avx512 ? opk::opk_avx512::resizeRow
               : isa == Isa::Avx2 ? opk::opk_avx2::resizeRow
                                  : opk::opk_portable::resizeRow;
  detail::ResizeTap prev{};
  for (int64_t u = begin; u < end; ++u) {
    int64_t plane = u / s.oh, oy = u % s.oh;
    detail::ResizeTap ty = resizeTap(s, s.h, s.oh, s.scaleH, oy);
    float *out = y + u * s.ow;
    // Upsampling repeats rows: the same taps as the row above, same plane.
    if (u > begin && oy > 0 && ty.i0 == prev.i0 && ty.i1 == prev.i1 &&
        ty.w0 == prev.w0 && ty.w1 == prev.w1) {
      std::memcpy(out, out - s.ow, size_t(s.ow) * sizeof(float));
      continue;
    }
    prev = ty;
    rowFn(ty, x + plane * s.h * s.w, s.w, tx.data(), s.ow, nearest,
          tmp.data(), out);
  }
}

void concatF32(const float *const *inputs, const int64_t *inner,
               int64_t count, float *out, int64_t begin, int64_t end) {
  int64_t row = 0;
  for (int64_t i = 0; i < count; ++i)
    row += inner[i];
  if (row == 0)
    return;
  for (int64_t o = begin; o < end;) {
    int64_t slice = o / row, at = o % row, i = 0;
    while (at >= inner[i])
      at -= inner[i++];
    int64_t n = std::min(inner[i] - at, end - o);
    std::memcpy(out + o, inputs[i] + slice * inner[i] + at,
                size_t(n) * sizeof(float));
    o += n;
  }
}

} // namespace strata::kernels
