//===- StemConv.cpp - direct 3x3 stride-2 convolution of few channels -----===//

#include "StemConv.h"

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

void conv1x1Narrow(int64_t k, int64_t hw, int64_t o, const float *x,
                   const float *filter, const Epilogue &e, float *y,
                   int64_t begin, int64_t end, Isa isa) {
  switch (isa) {
  case Isa::Avx512:
    detail::pointwiseNarrowAvx512(k, hw, o, x, filter, e, y, begin, end);
    return;
  case Isa::Avx2:
    detail::pointwiseNarrowAvx2(k, hw, o, x, filter, e, y, begin, end);
    return;
  default:
    detail::pointwiseNarrowPortable(k, hw, o, x, filter, e, y, begin, end);
    return;
  }
}

} // namespace strata::kernels
