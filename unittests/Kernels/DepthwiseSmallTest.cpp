//===- DepthwiseSmallTest.cpp - the channel-blocked depthwise path --------===//
//
// 3x3 stride-2 depthwise convolutions with outputs of at most 64 pixels run
// 16 channels per vector (DepthwiseImpl.inc channelBlocked): against a
// double reference, channel counts below, at and above 16 and their tails,
// odd planes, every pad parity, two images, planes split across calls in
// the middle of a 16-channel group and of an image, activations in
// registers and after the store, every ISA this CPU runs. The same shapes
// at stride 1 (the plane paths) as a control.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

namespace strata::kernels::test {
namespace {

TEST(DepthwiseSmall, ChannelBlockedEveryIsaShapeAndSplit) {
  struct Case {
    int64_t n, c, h, w, pt, pl, pb, pr, stride;
    Activation act;
  };
  const Case cases[] = {
      {1, 576, 14, 14, 0, 0, 1, 1, 2, Activation::Clip},
      {2, 17, 13, 15, 1, 1, 1, 1, 2, Activation::HardSwish},
      {1, 16, 9, 16, 1, 0, 0, 1, 2, Activation::None},
      {2, 5, 7, 7, 1, 1, 1, 1, 2, Activation::Sigmoid},
      {1, 40, 15, 14, 0, 1, 1, 0, 2, Activation::Relu},
      {1, 33, 7, 7, 1, 1, 1, 1, 1, Activation::Clip},
  };
  for (Isa isa : supportedIsas())
    for (const Case &k : cases) {
      Conv2dShape s;
      s.n = k.n, s.c = s.o = s.g = k.c, s.h = k.h, s.w = k.w;
      s.kh = s.kw = 3, s.sh = s.sw = k.stride;
      s.pt = k.pt, s.pl = k.pl, s.pb = k.pb, s.pr = k.pr;
      s.oh = (s.h + s.pt + s.pb - 3) / k.stride + 1;
      s.ow = (s.w + s.pl + s.pr - 3) / k.stride + 1;
      ASSERT_EQ(checkConv2dShape(s), "");
      auto x = randomVector(size_t(s.n * s.c * s.h * s.w), 41);
      auto f = randomVector(size_t(s.c * 9), 42);
      auto b = randomVector(size_t(s.c), 43);
      for (float &v : f)
        v *= 4; // reach both ends of a clip to [0, 1]
      Epilogue e;
      e.biasMode = BiasMode::PerRow, e.bias = b.data(), e.act = k.act;
      e.p0 = 0.0f, e.p1 = 1.0f;
      int64_t ohw = s.oh * s.ow;
      std::vector<double> want(size_t(s.n * s.c * ohw));
      for (int64_t n = 0; n < s.n; ++n)
        for (int64_t c = 0; c < s.c; ++c)
          for (int64_t oy = 0; oy < s.oh; ++oy)
            for (int64_t ox = 0; ox < s.ow; ++ox) {
              double acc = b[c];
              for (int64_t ky = 0; ky < 3; ++ky)
                for (int64_t kx = 0; kx < 3; ++kx) {
                  int64_t iy = oy * s.sh - s.pt + ky,
                          ix = ox * s.sw - s.pl + kx;
                  if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                    acc += double(f[c * 9 + ky * 3 + kx]) *
                           x[((n * s.c + c) * s.h + iy) * s.w + ix];
                }
              want[size_t((n * s.c + c) * ohw + oy * s.ow + ox)] =
                  refActivate(acc, k.act, e.p0, e.p1);
            }
      for (int64_t calls : {1, 3, 7}) {
        std::vector<float> y(want.size(), -9.0f);
        int64_t planes = s.n * s.c;
        for (int64_t i = 0; i < calls; ++i)
          ASSERT_TRUE(conv2dDepthwise(s, x.data(), f.data(), e, y.data(),
                                      planes * i / calls,
                                      planes * (i + 1) / calls, isa));
        // Sums of 9 products below 4 in magnitude.
        expectClose(y, want, 1e-6 * 40,
                    std::string(isaName(isa)) + " c " + std::to_string(s.c) +
                        " " + std::to_string(s.h) + "x" + std::to_string(s.w) +
                        " stride " + std::to_string(k.stride) + " calls " +
                        std::to_string(calls));
        if (HasFailure())
          return;
      }
    }
}

} // namespace
} // namespace strata::kernels::test
