//===- StemConv.cpp - direct 3x3 stride-2 convolution of few channels -----===//

#include "StemConv.h"

#include <algorithm>

namespace strata::kernels {

std::string checkStemConvShape(const Conv2dShape &s) {
  std::string why = checkConv2dShape(s);
  if (!why.empty())
    return why;
  if (s.g != 1)
    return "group " + std::to_string(s.g) + " is not 1";
  if (s.kh != 3 || s.kw != 3)
    return "filter " + std::to_string(s.kh) + "x" + std::to_string(s.kw) +
           " is not 3x3";
  if (s.sh != 2 || s.sw != 2)
    return "strides " + std::to_string(s.sh) + "x" + std::to_string(s.sw) +
           " are not 2x2";
  if (s.dh != 1 || s.dw != 1)
    return "dilations " + std::to_string(s.dh) + "x" + std::to_string(s.dw) +
           " are not 1x1";
  if (s.c > kStemMaxChannels)
    return "input channels " + std::to_string(s.c) + " exceed " +
           std::to_string(kStemMaxChannels);
  return "";
}

void conv2dStem(const Conv2dShape &s, const float *x, const float *filter,
                const Epilogue &e, float *y, int64_t begin, int64_t end,
                Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    detail::stemConvAvx512(s, x, filter, e, y, begin, end);
    return;
  case Isa::Avx2:
    detail::stemConvAvx2(s, x, filter, e, y, begin, end);
    return;
  default:
    detail::stemConvPortable(s, x, filter, e, y, begin, end);
    return;
  }
}

Conv2dShape StemBlockShape::stemShape() const {
  Conv2dShape s;
  s.n = n, s.c = c, s.h = h, s.w = w, s.oh = h1, s.ow = w1, s.o = e;
  s.kh = s.kw = 3, s.sh = s.sw = 2;
  s.pt = pt1, s.pl = pl1, s.pb = pb1, s.pr = pr1;
  return s;
}

Conv2dShape StemBlockShape::depthwiseShape() const {
  Conv2dShape d;
  d.n = n, d.c = e, d.h = h1, d.w = w1, d.oh = oh, d.ow = ow, d.o = e;
  d.kh = d.kw = 3, d.sh = d.sw = stride;
  d.pt = pt, d.pl = pl, d.pb = pb, d.pr = pr, d.g = e;
  return d;
}

std::string checkStemBlockShape(const StemBlockShape &s) {
  if (s.stride != 1 && s.stride != 2)
    return "stride " + std::to_string(s.stride) + " is not 1 or 2";
  if (s.p < 1)
    return "output channels " + std::to_string(s.p) + " is not positive";
  if (std::string why = checkStemConvShape(s.stemShape()); !why.empty())
    return "the stem: " + why;
  if (std::string why = checkConv2dShape(s.depthwiseShape()); !why.empty())
    return "the depthwise: " + why;
  // The projection: E x OH x OW -> P.
  Conv2dShape pw;
  pw.n = s.n, pw.c = s.e, pw.h = pw.oh = s.oh, pw.w = pw.ow = s.ow, pw.o = s.p;
  if (std::string why = checkConv2dShape(pw); !why.empty())
    return "the projection: " + why;
  return "";
}

int64_t stemBlockStripRows(const StemBlockShape &s) {
  int64_t rows = 1024 / s.ow;
  return rows < 1 ? 1 : rows > s.oh ? s.oh : rows;
}

bool stemBlock(const StemBlockShape &s, const StemBlockWeights &wt,
               const float *x, float *y, int64_t stripRows, int64_t begin,
               int64_t end, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    return detail::stemBlockAvx512(s, wt, x, y, stripRows, begin, end) == 0;
  case Isa::Avx2:
    return detail::stemBlockAvx2(s, wt, x, y, stripRows, begin, end) == 0;
  default:
    return detail::stemBlockPortable(s, wt, x, y, stripRows, begin, end) == 0;
  }
}

int64_t conv1x1NarrowChunk(int64_t n, int64_t hw, int64_t workgroups) {
  // Pixels per chunk for c chunks per image: whole vectors, at most
  // kPointwiseChunk.
  auto chunkFor = [&](int64_t c) {
    int64_t chunk = (hw + c - 1) / c;
    return std::min(kPointwiseChunk,
                    std::max<int64_t>(16, (chunk + 15) / 16 * 16));
  };
  int64_t chunks =
      std::max<int64_t>(1, (hw + kPointwiseChunk - 1) / kPointwiseChunk);
  // The fewest chunks per image, from the cache-sized count up, whose units
  // split evenly over the workgroups (else the cache-sized chunks).
  if (workgroups > 1)
    for (int64_t c = chunks; c < chunks + 4 * workgroups; ++c) {
      int64_t chunk = chunkFor(c);
      if (conv1x1NarrowUnits(n, hw, chunk) % workgroups == 0)
        return chunk;
    }
  return chunkFor(chunks);
}

void conv1x1Narrow(int64_t k, int64_t hw, int64_t o, const float *x,
                   const float *filter, const Epilogue &e, float *y,
                   int64_t chunk, int64_t begin, int64_t end, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    detail::pointwiseNarrowAvx512(k, hw, o, x, filter, e, y, chunk, begin, end);
    return;
  case Isa::Avx2:
    detail::pointwiseNarrowAvx2(k, hw, o, x, filter, e, y, chunk, begin, end);
    return;
  default:
    detail::pointwiseNarrowPortable(k, hw, o, x, filter, e, y, chunk, begin,
                                    end);
    return;
  }
}

} // namespace strata::kernels
