//===- DepthwiseSmallTest.cpp - channel-blocked and in-place depthwise ----===//
//
// 3x3 stride-2 depthwise convolutions with outputs of at most 64 pixels run
// 16 channels per vector (DepthwiseImpl.inc channelBlocked): against a
// double reference, channel counts below, at and above 16 and their tails,
// odd planes, every pad parity, two images, planes split across calls in
// the middle of a 16-channel group and of an image, activations in
// registers and after the store, every ISA this CPU runs. The same shapes
// at stride 1 (the plane paths) as a control. Then the stride-1 paths that
// read the planes in place with AVX-512 masked loads (see the second test).
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace strata::kernels::test {
namespace {

/// The 3x3 depthwise convolution in doubles (o = c * multiplier; output
/// plane p = n * o + oc reads input channel oc / multiplier), bias and
/// activation as `e` says.
std::vector<double> refDepthwise3x3(const Conv2dShape &s, const float *x,
                                    const std::vector<float> &f,
                                    const std::vector<float> &b,
                                    const Epilogue &e) {
  int64_t ohw = s.oh * s.ow, mult = s.o / s.c;
  std::vector<double> want(size_t(s.n * s.o * ohw));
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.o; ++o)
      for (int64_t oy = 0; oy < s.oh; ++oy)
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          double acc = b[size_t(o)];
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              int64_t iy = oy * s.sh - s.pt + ky, ix = ox * s.sw - s.pl + kx;
              if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                acc += double(f[size_t(o * 9 + ky * 3 + kx)]) *
                       x[((n * s.c + o / mult) * s.h + iy) * s.w + ix];
            }
          want[size_t((n * s.o + o) * ohw + oy * s.ow + ox)] =
              refActivate(acc, e.act, e.p0, e.p1);
        }
  return want;
}

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
      std::vector<double> want = refDepthwise3x3(s, x.data(), f, b, e);
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

// Stride 1, one pad on every side, rows of at most 8 columns and planes of
// at most 256 (DepthwiseImpl.inc smallSame3x3Applies: the flattened path)
// or rows of more than 8 columns (stride1Rows3x3Applies); with AVX-512 both
// read the planes in place with zero-masked loads. The input sits between
// two inaccessible pages, its first plane starting right after one and its
// last plane ending right before the other: the masked lanes before and
// after the planes must not be read. Shapes at and around the bounds (8, 9,
// 16, 17, 32 and 33 columns, 256 floats, 0 or 1 pads above and below; 33x8
// and 2 pads above take the padded plane as controls), a channel
// multiplier, two images, planes split over calls, every activation kind.
TEST(DepthwiseSmall, FlattenedSamePlanesInPlaceEveryIsa) {
  struct Case {
    int64_t n, c, mult, h, w;
    Activation act;
    int64_t pt = 1, pb = 1;
  };
  const Case cases[] = {
      {1, 960, 1, 7, 7, Activation::Clip},
      {2, 17, 1, 8, 8, Activation::None},
      {1, 5, 2, 32, 8, Activation::Relu},
      {1, 6, 1, 1, 1, Activation::Clip},
      {2, 3, 3, 3, 5, Activation::HardSwish},
      {1, 4, 1, 2, 7, Activation::Sigmoid},
      {1, 3, 1, 33, 8, Activation::Clip},
      {1, 3, 1, 7, 9, Activation::Clip},
      {1, 384, 1, 14, 14, Activation::Clip},
      {1, 5, 1, 1, 16, Activation::Relu},
      {2, 3, 2, 5, 9, Activation::None},
      {1, 4, 1, 2, 13, Activation::HardSwish},
      {1, 3, 1, 3, 16, Activation::Sigmoid},
      {1, 2, 1, 17, 15, Activation::Clip},
      {1, 3, 1, 4, 17, Activation::Clip},
      {1, 3, 1, 5, 28, Activation::Clip},
      {1, 2, 1, 6, 33, Activation::Relu},
      {1, 2, 2, 3, 32, Activation::None},
      {1, 2, 1, 112, 112, Activation::HardSwish},
      {1, 3, 1, 6, 20, Activation::Clip, 0, 0},
      {1, 2, 1, 5, 112, Activation::Relu, 0, 1},
      {2, 2, 1, 4, 12, Activation::None, 2, 0},
      {1, 2, 1, 3, 7, Activation::Clip, 1, 0},
      {1, 2, 1, 5, 14, Activation::Relu, 1, 0},
      {1, 2, 1, 4, 40, Activation::Clip, 1, 0},
      {1, 2, 1, 9, 10, Activation::None, 0, 1},
  };
  long page = sysconf(_SC_PAGESIZE);
  for (Isa isa : supportedIsas())
    for (const Case &k : cases) {
      Conv2dShape s;
      s.n = k.n, s.c = s.g = k.c, s.o = k.c * k.mult, s.h = k.h, s.w = k.w;
      s.kh = s.kw = 3, s.sh = s.sw = 1;
      s.pl = s.pr = 1, s.pt = k.pt, s.pb = k.pb;
      s.oh = s.h + s.pt + s.pb - 2, s.ow = s.w;
      ASSERT_EQ(checkConv2dShape(s), "");
      auto xv = randomVector(size_t(s.n * s.c * s.h * s.w), 51);
      auto f = randomVector(size_t(s.o * 9), 52);
      auto b = randomVector(size_t(s.o), 53);
      for (float &v : f)
        v *= 4; // reach both ends of a clip to [0, 1]
      // Guard page, pages holding the input's bytes (first at the start),
      // guard page; then the input moved to end at the second guard page.
      size_t bytes = xv.size() * sizeof(float);
      size_t dataPages = (bytes + size_t(page) - 1) / size_t(page);
      size_t total = (dataPages + 2) * size_t(page);
      void *map = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ASSERT_NE(map, MAP_FAILED);
      char *base = static_cast<char *>(map);
      ASSERT_EQ(mprotect(base, size_t(page), PROT_NONE), 0);
      ASSERT_EQ(mprotect(base + (dataPages + 1) * size_t(page), size_t(page),
                         PROT_NONE),
                0);
      for (bool atEnd : {false, true}) {
        char *at = base + size_t(page);
        if (atEnd)
          at += dataPages * size_t(page) - bytes;
        float *x = reinterpret_cast<float *>(at);
        std::copy(xv.begin(), xv.end(), x);
        Epilogue e;
        e.biasMode = BiasMode::PerRow, e.bias = b.data(), e.act = k.act;
        e.p0 = 0.0f, e.p1 = 1.0f;
        std::vector<double> want = refDepthwise3x3(s, x, f, b, e);
        for (int64_t calls : {1, 3}) {
          std::vector<float> y(want.size(), -9.0f);
          int64_t planes = s.n * s.o;
          for (int64_t i = 0; i < calls; ++i)
            ASSERT_TRUE(conv2dDepthwise(s, x, f.data(), e, y.data(),
                                        planes * i / calls,
                                        planes * (i + 1) / calls, isa));
          // Sums of 9 products below 4 in magnitude.
          expectClose(y, want, 1e-6 * 40,
                      std::string(isaName(isa)) + " c " + std::to_string(s.c) +
                          " x" + std::to_string(k.mult) + " " +
                          std::to_string(s.h) + "x" + std::to_string(s.w) +
                          " calls " + std::to_string(calls) +
                          (atEnd ? " at the end" : " at the start"));
          if (HasFailure())
            break;
        }
      }
      munmap(map, total);
      if (HasFailure())
        return;
    }
}

} // namespace
} // namespace strata::kernels::test
