//===- ResizeUnaryConcatTest.cpp - unary, resize and concat kernels -------===//
//
// kernels::unaryF32, resize2d and concatF32 (OpKernels.h) on every ISA path
// this CPU runs against double references (std::exp/tanh/erf; the ONNX
// Resize coordinate formulas written out per output pixel), on odd sizes
// (vector tails), special values, every coordinate and nearest mode, and
// ranges split as workgroups split them; and the runtime table's checks.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "CpuKernels.h"
#include "RuntimeCheckUtil.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/OpKernels.h"

#include <limits>

using namespace strata::kernels;
using namespace strata::kernels::test;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::findCpuKernel;
using strata::kernels::testing::bytes;
using strata::kernels::testing::expectRejects;

namespace {

double refUnary(UnaryOp op, double x) {
  switch (op) {
  case UnaryOp::Relu:
    return x > 0 ? x : (std::isnan(x) ? x : 0.0);
  case UnaryOp::Sigmoid:
    return 1 / (1 + std::exp(-x));
  case UnaryOp::Tanh:
    return std::tanh(x);
  case UnaryOp::Exp:
    return std::exp(x);
  case UnaryOp::SiLU:
    return x / (1 + std::exp(-x));
  case UnaryOp::Gelu:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case UnaryOp::GeluTanh:
    // 0.5 x (1 + tanh(v)) as x / (1 + exp(-2v)): no cancellation for x < 0.
    return x / (1 + std::exp(-2 * std::sqrt(2 / M_PI) *
                             (x + 0.044715 * x * x * x)));
  case UnaryOp::HardSwish:
    return x * std::min(std::max(x / 6 + 0.5, 0.0), 1.0);
  case UnaryOp::HardSigmoid:
    return std::min(std::max(0.2 * x + 0.5, 0.0), 1.0);
  }
  return x;
}

TEST(UnaryKernels, EveryOpOnTailsAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {0, 1, 15, 16, 17, 100}) {
    std::vector<float> x = randomVector(size_t(n), unsigned(n) + 3);
    for (int64_t i = 0; i < n; ++i)
      x[i] *= 9.0f; // [-9, 9]: both tanh branches, sigmoid tails
    const float special[] = {0.0f,  -0.0f, 1e-6f,  -1e-6f, 0.3f,
                             -0.7f, 50.0f, -50.0f, 88.0f,  -100.0f};
    for (int64_t i = 0; i < n && i < 10; ++i)
      x[i] = special[i];
    for (int op = 0; op <= int(UnaryOp::HardSigmoid); ++op)
      for (Isa isa : supportedIsas()) {
        std::vector<float> y(size_t(n), -1.0f);
        unaryF32(UnaryOp(op), x.data(), y.data(), n, 0.2f, 0.5f, isa);
        for (int64_t i = 0; i < n; ++i) {
          double want = refUnary(UnaryOp(op), x[i]);
          // About 1e-7 relative (exp, sigmoid, tanh); erf's 1.5e-7
          // absolute for GELU; the f32 rounding of the argument for the
          // others near their zeros.
          double tol = 4e-7 * std::fabs(want);
          if (op == int(UnaryOp::Gelu) || op == int(UnaryOp::GeluTanh))
            tol += 2e-7 * (1 + std::fabs(x[i]));
          if (op == int(UnaryOp::HardSwish) || op == int(UnaryOp::HardSigmoid))
            tol += 1e-7 * (1 + std::fabs(x[i]));
          // Results below 1e-35 (sigmoid far left) only need to be tiny.
          EXPECT_NEAR(y[i], want, tol + 1e-35)
              << "op " << op << " x " << x[i] << " " << isaName(isa);
        }
      }
  }
  // In place; infinities and NaN.
  for (Isa isa : supportedIsas()) {
    std::vector<float> v = {inf, -inf, nan, -200.0f, 89.0f, -1e-30f};
    std::vector<float> e = v, t = v, r = v, s = v;
    unaryF32(UnaryOp::Exp, e.data(), e.data(), 6, 0, 0, isa);
    EXPECT_EQ(e[0], inf);
    EXPECT_EQ(e[1], 0.0f);
    EXPECT_TRUE(std::isnan(e[2]));
    EXPECT_EQ(e[3], 0.0f);
    EXPECT_EQ(e[4], inf);
    EXPECT_EQ(e[5], 1.0f);
    unaryF32(UnaryOp::Tanh, t.data(), t.data(), 6, 0, 0, isa);
    EXPECT_EQ(t[0], 1.0f);
    EXPECT_EQ(t[1], -1.0f);
    EXPECT_TRUE(std::isnan(t[2]));
    EXPECT_EQ(t[3], -1.0f);
    EXPECT_FLOAT_EQ(t[5], -1e-30f);
    unaryF32(UnaryOp::Relu, r.data(), r.data(), 6, 0, 0, isa);
    EXPECT_EQ(r[0], inf);
    EXPECT_EQ(r[1], 0.0f);
    EXPECT_TRUE(std::isnan(r[2]));
    unaryF32(UnaryOp::Sigmoid, s.data(), s.data(), 6, 0, 0, isa);
    EXPECT_EQ(s[0], 1.0f);
    EXPECT_NEAR(s[1], 0.0f, 1e-35);
    EXPECT_TRUE(std::isnan(s[2]));
    // exp of a subnormal result (exp(-100) = 3.7e-44).
    float sub = -100.0f, es;
    unaryF32(UnaryOp::Exp, &sub, &es, 1, 0, 0, isa);
    EXPECT_NEAR(es, std::exp(-100.0), 2e-45) << isaName(isa);
  }
}

/// The input coordinate of output `x` (ONNX Resize), written out.
double refSource(ResizeCoord c, double x, int64_t in, int64_t out,
                 double scale) {
  double len = in * scale;
  switch (c) {
  case ResizeCoord::HalfPixel:
    return (x + 0.5) / scale - 0.5;
  case ResizeCoord::HalfPixelSymmetric:
    return in / 2.0 * (1 - out / len) + (x + 0.5) / scale - 0.5;
  case ResizeCoord::PytorchHalfPixel:
    return len > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  case ResizeCoord::AlignCorners:
    return len == 1 ? 0 : x * (in - 1) / (len - 1);
  case ResizeCoord::Asymmetric:
    return x / scale;
  }
  return 0;
}

/// ONNX nearest: round by the mode, then clamp.
int64_t refNearest(ResizeNearest m, double s, int64_t in) {
  double f = std::floor(s);
  double i;
  switch (m) {
  case ResizeNearest::Floor:
    i = f;
    break;
  case ResizeNearest::Ceil:
    i = std::ceil(s);
    break;
  case ResizeNearest::RoundPreferFloor:
    i = s - f == 0.5 ? f : std::round(s);
    break;
  default:
    i = s - f == 0.5 ? f + 1 : std::round(s);
    break;
  }
  return std::clamp<int64_t>(int64_t(i), 0, in - 1);
}

double refResizeAt(const ResizeShape &s, const float *plane, int64_t oy,
                   int64_t ox) {
  double sy = refSource(s.coord, double(oy), s.h, s.oh, s.scaleH);
  double sx = refSource(s.coord, double(ox), s.w, s.ow, s.scaleW);
  if (s.mode == ResizeMode::Nearest)
    return plane[refNearest(s.nearest, sy, s.h) * s.w +
                 refNearest(s.nearest, sx, s.w)];
  auto at = [&](int64_t y, int64_t x) {
    y = std::clamp<int64_t>(y, 0, s.h - 1);
    x = std::clamp<int64_t>(x, 0, s.w - 1);
    return double(plane[y * s.w + x]);
  };
  double y0 = std::floor(sy), x0 = std::floor(sx), ry = sy - y0, rx = sx - x0;
  int64_t iy = int64_t(y0), ix = int64_t(x0);
  return (1 - ry) * ((1 - rx) * at(iy, ix) + rx * at(iy, ix + 1)) +
         ry * ((1 - rx) * at(iy + 1, ix) + rx * at(iy + 1, ix + 1));
}

TEST(ResizeKernel, EveryModeAgainstTheFormulas) {
  struct Geo {
    int64_t h, w, oh, ow;
    double sh, sw; // 0: out / in
  };
  const Geo geos[] = {{5, 7, 10, 14, 0, 0},     {20, 20, 160, 160, 0, 0},
                      {9, 13, 4, 5, 0, 0},      {6, 33, 17, 70, 0, 0},
                      {4, 4, 7, 9, 1.75, 2.25}, {3, 5, 1, 1, 0, 0}};
  unsigned seed = 11;
  for (const Geo &g : geos) {
    ResizeShape s;
    s.planes = 3, s.h = g.h, s.w = g.w, s.oh = g.oh, s.ow = g.ow;
    s.scaleH = g.sh ? g.sh : double(g.oh) / double(g.h);
    s.scaleW = g.sw ? g.sw : double(g.ow) / double(g.w);
    std::vector<float> x = randomVector(size_t(s.planes * g.h * g.w), seed++);
    for (int mode = 0; mode < 2; ++mode)
      for (int coord = 0; coord <= 4; ++coord)
        for (int near = 0; near < (mode ? 1 : 4); ++near) {
          s.mode = ResizeMode(mode);
          s.coord = ResizeCoord(coord);
          s.nearest = ResizeNearest(near);
          ASSERT_EQ(checkResizeShape(s), "");
          int64_t rows = s.planes * s.oh;
          for (Isa isa : supportedIsas()) {
            std::vector<float> y(size_t(rows * s.ow), 0.0f);
            // Three ranges, as three workgroups split them.
            resize2d(s, x.data(), y.data(), 0, rows / 3, isa);
            resize2d(s, x.data(), y.data(), rows / 3, 2 * rows / 3, isa);
            resize2d(s, x.data(), y.data(), 2 * rows / 3, rows, isa);
            for (int64_t p = 0; p < s.planes; ++p)
              for (int64_t oy = 0; oy < s.oh; ++oy)
                for (int64_t ox = 0; ox < s.ow; ++ox) {
                  double want =
                      refResizeAt(s, x.data() + p * s.h * s.w, oy, ox);
                  float got = y[(p * s.oh + oy) * s.ow + ox];
                  if (mode == 0)
                    ASSERT_EQ(got, float(want))
                        << "nearest " << near << " coord " << coord << " at "
                        << p << "," << oy << "," << ox << " " << isaName(isa);
                  else
                    ASSERT_NEAR(got, want, 1e-6)
                        << "coord " << coord << " at " << p << "," << oy << ","
                        << ox << " " << isaName(isa);
                }
          }
        }
  }
}

TEST(ConcatKernel, SlicesAndRanges) {
  // Three inputs [2, 3, 5], [2, 1, 5], [2, 4, 5] along axis 1: outer 2.
  const int64_t inner[] = {15, 5, 20};
  std::vector<std::vector<float>> in;
  for (int i = 0; i < 3; ++i)
    in.push_back(randomVector(size_t(2 * inner[i]), unsigned(20 + i)));
  const float *ptrs[] = {in[0].data(), in[1].data(), in[2].data()};
  std::vector<float> want;
  for (int64_t o = 0; o < 2; ++o)
    for (int i = 0; i < 3; ++i)
      want.insert(want.end(), in[i].begin() + o * inner[i],
                  in[i].begin() + (o + 1) * inner[i]);
  for (int64_t parts : {1, 3, 7}) {
    std::vector<float> y(want.size(), -1.0f);
    int64_t n = int64_t(want.size());
    for (int64_t k = 0; k < parts; ++k)
      concatF32(ptrs, inner, 3, y.data(), n * k / parts, n * (k + 1) / parts);
    EXPECT_EQ(y, want) << parts << " parts";
  }
}

TEST(ResizeUnaryConcat, RuntimeChecks) {
  std::string error;
  auto with = [](std::vector<int64_t> p, size_t i, int64_t v) {
    p[i] = v;
    return p;
  };
  // Unary.
  ASSERT_TRUE(
      findCpuKernel("tanh_f32")->check({bytes(40), bytes(40)}, {10}, error))
      << error;
  expectRejects("gelu_f32", {bytes(40), bytes(36)}, {10}, "binding 1 (out)");
  expectRejects("exp_f32", {bytes(40), bytes(40)}, {-1}, "count is -1");
  // Resize 2 planes 4x4 -> 8x8.
  std::vector<int64_t> rp = {
      2, 4, 4, 8, 8, 0, 4, 2, kabi::doubleParam(2.0), kabi::doubleParam(2.0)};
  std::vector<BufferInfo> rb = {bytes(2 * 16 * 4), bytes(2 * 64 * 4)};
  ASSERT_TRUE(findCpuKernel(kabi::kResize2d)->check(rb, rp, error)) << error;
  expectRejects(kabi::kResize2d, rb, with(rp, 5, 2), "mode is 2");
  expectRejects(kabi::kResize2d, rb, with(rp, 6, 5), "coordinate mode is 5");
  expectRejects(kabi::kResize2d, rb, with(rp, 7, 4), "nearest mode is 4");
  expectRejects(kabi::kResize2d, rb, with(rp, 8, kabi::doubleParam(-1.0)),
                "coordinate scale");
  expectRejects(kabi::kResize2d, rb, with(rp, 1, 0), "H is 0");
  expectRejects(kabi::kResize2d, {bytes(100), bytes(512)}, rp, "binding 0");
  expectRejects(kabi::kResize2d, {bytes(128), bytes(500)}, rp, "binding 1");
  expectRejects(kabi::kResize2d, rb,
                with(with(with(rp, 0, 1 << 30), 1, 1 << 30), 2, 1 << 30),
                "overflows");
  // Concat of 2 inputs of 6 and 4 floats per slice, outer 3.
  std::vector<int64_t> cp = {2, 3, 6, 4, 0, 0, 0, 0, 0, 0};
  std::vector<BufferInfo> cb(9, bytes(0));
  cb[0] = bytes(72), cb[1] = bytes(48), cb[8] = bytes(120);
  ASSERT_TRUE(findCpuKernel(kabi::kConcat)->check(cb, cp, error)) << error;
  expectRejects(kabi::kConcat, cb, with(cp, 0, 9), "inputs is 9");
  expectRejects(kabi::kConcat, cb, with(cp, 0, 0), "inputs is 0");
  expectRejects(kabi::kConcat, cb, with(cp, 4, 1), "past the inputs");
  expectRejects(kabi::kConcat, cb, with(cp, 3, -1), "must be >= 0");
  expectRejects(kabi::kConcat, cb, with(cp, 2, 7), "binding 0");
  std::vector<BufferInfo> small = cb;
  small[8] = bytes(116);
  expectRejects(kabi::kConcat, small, cp, "binding 8 (output)");
  expectRejects(kabi::kConcat, cb, with(cp, 1, INT64_MAX / 2), "overflows");
}

} // namespace
