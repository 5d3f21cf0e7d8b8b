//===- OpKernels.cpp - shape checks and the ISA choice of OpKernels.h -----===//

#include "strata/Kernels/OpKernels.h"

#include "OpKernelsIsa.h"
#include "SizeChecks.h"

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

} // namespace strata::kernels
