//===- RuntimeKernelsTest.cpp - the cpu driver's matmul/conv kernels ------===//
//
// The kernel-table entries: params as the compiler writes them, split over
// workgroups, against a double reference; and every rejection of `check`.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"

#include "CpuKernels.h"
#include "strata/Kernels/InvertedResidual.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/StemConv.h"

using namespace strata::kernels;
using namespace strata::kernels::test;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::CpuKernel;
using strata::runtime::hal::findCpuKernel;

namespace {

BufferInfo bytes(uint64_t n) {
  BufferInfo b;
  b.size = n;
  return b;
}

/// Runs `k` over `workgroups` workgroups after its check passes.
void runKernel(const CpuKernel &k, std::vector<void *> bindings,
               const std::vector<BufferInfo> &infos,
               const std::vector<int64_t> &params, int64_t workgroups) {
  std::string error;
  ASSERT_EQ(params.size(), k.paramCount);
  ASSERT_TRUE(k.check(infos, params, error)) << error;
  for (int64_t id = 0; id < workgroups; ++id)
    ASSERT_EQ(k.fn(bindings.data(), params.data(), id, workgroups), 0);
}

struct MatmulCase {
  int64_t batch, m, n, k;
  bool transB, aBatched, bBatched, bPacked, bias;
  /// 0: none; 1: a separate residual; 2: the residual is the output (in
  /// place).
  int residual = 0;
};

void runMatmul(const MatmulCase &c, int64_t workgroups, unsigned seed) {
  const CpuKernel *k = findCpuKernel(kabi::kMatmulBatched);
  ASSERT_NE(k, nullptr);
  int64_t aMats = c.aBatched ? c.batch : 1, bMats = c.bBatched ? c.batch : 1;
  std::vector<float> a = randomVector(size_t(aMats * c.m * c.k), seed);
  std::vector<float> b = randomVector(size_t(bMats * c.k * c.n), seed + 1);
  std::vector<float> bias = randomVector(size_t(c.n), seed + 2);
  std::vector<float> res = randomVector(size_t(c.batch * c.m * c.n), seed + 3);
  // b holds each matrix as K x N, or N x K when transposed.
  auto bAt = [&](int64_t mat, int64_t p, int64_t j) {
    return c.transB ? b[(mat * c.n + j) * c.k + p]
                    : b[(mat * c.k + p) * c.n + j];
  };
  std::vector<double> want(size_t(c.batch * c.m * c.n));
  for (int64_t bi = 0; bi < c.batch; ++bi)
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double s = c.bias ? bias[j] : 0.0;
        if (c.residual)
          s += res[size_t((bi * c.m + i) * c.n + j)];
        for (int64_t p = 0; p < c.k; ++p)
          s += double(a[((c.aBatched ? bi : 0) * c.m + i) * c.k + p]) *
               double(bAt(c.bBatched ? bi : 0, p, j));
        want[(bi * c.m + i) * c.n + j] = std::min(std::max(s, 0.0), 6.0);
      }
  std::vector<float> weight = b;
  if (c.bPacked) {
    weight.assign(packedBBytes(c.k, c.n) / 4, 0.0f);
    packB(b.data(), c.transB ? c.k : c.n, c.transB, c.k, c.n, weight.data());
  }
  std::vector<float> out(want.size(), -5.0f);
  if (c.residual == 2)
    out = res;
  float *resPtr = c.residual == 1 ? res.data() : out.data();
  std::vector<int64_t> params = {c.batch,
                                 c.m,
                                 c.n,
                                 c.k,
                                 c.transB,
                                 c.aBatched,
                                 c.bBatched,
                                 c.bPacked,
                                 c.bias,
                                 int64_t(Activation::Clip),
                                 kabi::floatParam(0.0f),
                                 kabi::floatParam(6.0f),
                                 c.residual != 0};
  runKernel(*k,
            {a.data(), weight.data(), c.bias ? bias.data() : out.data(),
             out.data(), resPtr},
            {bytes(a.size() * 4), bytes(weight.size() * 4),
             bytes(c.bias ? bias.size() * 4 : out.size() * 4),
             bytes(out.size() * 4), bytes(out.size() * 4)},
            params, workgroups);
  expectClose(out, want, 2e-6 * double(c.k + 8),
              "matmul B" + std::to_string(c.batch) + " M" +
                  std::to_string(c.m) + " N" + std::to_string(c.n) + " K" +
                  std::to_string(c.k) + " wg" + std::to_string(workgroups));
}

TEST(RuntimeKernels, MatmulVariantsAndWorkgroups) {
  const MatmulCase cases[] = {
      {1, 1, 1, 1, false, false, false, false, false},
      {1, 37, 45, 29, false, false, false, true, true},
      {1, 37, 45, 29, true, false, false, true, true},
      {1, 5, 200, 64, true, false, false, false, true},
      {3, 13, 17, 19, false, true, true, false, true},
      {3, 13, 17, 19, true, true, true, false, false},
      {4, 30, 20, 10, false, true, false, true, true},  // weight shared
      {2, 12, 33, 7, false, false, true, false, false}, // A broadcast
      {1, 100, 130, 90, false, false, false, true, true},
      // Residual, separate and in place; K over one K block (256) so the
      // in-place form accumulates over several blocks.
      {1, 37, 45, 29, false, false, false, true, true, 1},
      {3, 13, 17, 19, true, true, true, false, true, 1},
      {1, 37, 45, 29, false, false, false, true, true, 2},
      {2, 30, 40, 600, false, true, false, true, false, 2},
      {1, 30, 40, 600, false, false, false, false, true, 1},
  };
  unsigned seed = 1;
  for (const MatmulCase &c : cases)
    for (int64_t wg : {1, 2, 3, 8})
      runMatmul(c, wg, seed++);
}

TEST(RuntimeKernels, ConvKernelsAgreeWithTheLibrary) {
  // The table entries read their params as documented: compare with a
  // direct reference on one shape per kernel, several workgroup counts.
  struct Conv {
    const char *kernel;
    std::vector<int64_t> geometry; // strategy params
    int64_t packed; ///< filter_packed: 0 plain, 1 normal, 2 transposed form
  };
  const Conv convs[] = {
      {kabi::kConv1x1, {2, 12, 35, 20}, 1},
      {kabi::kConv1x1, {1, 7, 9, 5}, 0},
      {kabi::kConvIm2col,
       {1, 6, 9, 11, 5, 6, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
       1},
      // The transposed form: packed for it (2), and plain on a shape that
      // prefers it (the kernel then picks it itself).
      {kabi::kConv1x1, {2, 12, 7, 40}, 2},
      {kabi::kConvIm2col,
       {1, 6, 9, 11, 5, 6, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2},
       2},
      {kabi::kConvIm2col,
       {1, 6, 9, 9, 7, 7, 48, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1},
       0},
      {kabi::kConvDepthwise,
       {2, 4, 9, 10, 9, 10, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
       false},
      // The direct stem: 10 output channels (a tile of 8 and two single).
      {kabi::kConvStem,
       {2, 3, 17, 21, 9, 11, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},
       false},
      // The narrow 1x1: 13 output channels (8 + 4 + 1), a pixel tail.
      {kabi::kConv1x1Narrow, {2, 12, 301, 13}, 0},
  };
  unsigned seed = 50;
  for (const Conv &cv : convs) {
    const CpuKernel *k = findCpuKernel(cv.kernel);
    ASSERT_NE(k, nullptr) << cv.kernel;
    bool is1x1 = std::string(cv.kernel) == kabi::kConv1x1 ||
                 std::string(cv.kernel) == kabi::kConv1x1Narrow;
    const std::vector<int64_t> &g = cv.geometry;
    Conv2dShape s;
    if (is1x1) {
      s.n = g[0], s.c = g[1], s.h = s.oh = g[2], s.o = g[3];
    } else {
      s.n = g[0], s.c = g[1], s.h = g[2], s.w = g[3], s.oh = g[4], s.ow = g[5];
      s.o = g[6], s.kh = g[7], s.kw = g[8], s.sh = g[9], s.sw = g[10];
      s.pt = g[11], s.pl = g[12], s.pb = g[13], s.pr = g[14];
      s.dh = g[15], s.dw = g[16], s.g = g[17];
    }
    ASSERT_EQ(checkConv2dShape(s), "");
    std::vector<float> x = randomVector(size_t(s.n * s.c * s.h * s.w), seed);
    std::vector<float> f = randomVector(size_t(s.o * s.gemmK()), seed + 1);
    std::vector<float> bias = randomVector(size_t(s.o), seed + 2);
    bool withResidual = std::string(cv.kernel) != kabi::kConvDepthwise &&
                        std::string(cv.kernel) != kabi::kConvStem;
    std::vector<float> res = randomVector(size_t(s.n * s.o * s.oh * s.ow),
                                          withResidual ? seed + 3 : 0);
    std::vector<double> want(size_t(s.n * s.o * s.oh * s.ow));
    int64_t cg = s.c / s.g, og = s.o / s.g;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t o = 0; o < s.o; ++o)
        for (int64_t oy = 0; oy < s.oh; ++oy)
          for (int64_t ox = 0; ox < s.ow; ++ox) {
            double acc = bias[o];
            if (withResidual)
              acc += res[size_t(((n * s.o + o) * s.oh + oy) * s.ow + ox)];
            for (int64_t c = 0; c < cg; ++c)
              for (int64_t ky = 0; ky < s.kh; ++ky)
                for (int64_t kx = 0; kx < s.kw; ++kx) {
                  int64_t iy = oy * s.sh - s.pt + ky * s.dh;
                  int64_t ix = ox * s.sw - s.pl + kx * s.dw;
                  if (iy >= 0 && iy < s.h && ix >= 0 && ix < s.w)
                    acc +=
                        double(
                            x[((n * s.c + o / og * cg + c) * s.h + iy) * s.w +
                              ix]) *
                        double(f[((o * cg + c) * s.kh + ky) * s.kw + kx]);
                }
            want[((n * s.o + o) * s.oh + oy) * s.ow + ox] =
                acc < 0 ? 0.1 * acc : acc;
          }
    std::vector<float> weight = f;
    if (cv.packed) {
      ConvGemmForm form =
          cv.packed == 2 ? ConvGemmForm::Transposed : ConvGemmForm::Normal;
      weight.assign(packedConvFilterBytes(s, form) / 4, 0.0f);
      packConvFilter(s, f.data(), weight.data(), form);
    }
    std::vector<int64_t> params = g;
    params.push_back(cv.packed);
    params.insert(params.end(), {1, int64_t(Activation::LeakyRelu),
                                 kabi::floatParam(0.1f), 0, withResidual});
    for (int64_t wg : {1, 2, 5}) {
      // The residual separate, then (GEMM kernels) the output in its place.
      for (bool inPlace : {false, true}) {
        if (inPlace && !withResidual)
          continue;
        std::vector<float> y =
            inPlace ? res : std::vector<float>(want.size(), 3.0f);
        runKernel(*k,
                  {x.data(), weight.data(), bias.data(), y.data(),
                   inPlace ? y.data() : res.data()},
                  {bytes(x.size() * 4), bytes(weight.size() * 4),
                   bytes(bias.size() * 4), bytes(y.size() * 4),
                   bytes(res.size() * 4)},
                  params, wg);
        expectClose(y, want, 2e-6 * double(s.gemmK() + 8),
                    std::string(cv.kernel) + " wg" + std::to_string(wg) +
                        (inPlace ? " in place" : ""));
      }
    }
    seed += 3;
  }
}

/// Expects `check` to fail with a message containing `needle`.
void expectRejects(const char *kernel, const std::vector<BufferInfo> &b,
                   const std::vector<int64_t> &p, const std::string &needle) {
  const CpuKernel *k = findCpuKernel(kernel);
  ASSERT_NE(k, nullptr);
  std::string error;
  EXPECT_FALSE(k->check(b, p, error)) << kernel << " accepted: " << needle;
  EXPECT_NE(error.find(needle), std::string::npos)
      << kernel << ": '" << error << "' lacks '" << needle << "'";
}

TEST(RuntimeKernels, MatmulCheckRejections) {
  // Good: B=2, M=3, N=4, K=5, batched A and B, bias.
  std::vector<BufferInfo> b = {bytes(2 * 3 * 5 * 4), bytes(2 * 5 * 4 * 4),
                               bytes(4 * 4), bytes(2 * 3 * 4 * 4),
                               bytes(2 * 3 * 4 * 4)};
  std::vector<int64_t> p = {2, 3, 4, 5, 0, 1, 1, 0, 1, 1, 0, 0, 1};
  std::string error;
  ASSERT_TRUE(findCpuKernel(kabi::kMatmulGemm)->check(b, p, error)) << error;
  auto with = [&](size_t i, int64_t v) {
    std::vector<int64_t> q = p;
    q[i] = v;
    return q;
  };
  expectRejects(kabi::kMatmulGemm, b, with(0, 0), "B >= 1");
  expectRejects(kabi::kMatmulGemm, b, with(1, -1), "B >= 1");
  expectRejects(kabi::kMatmulGemm, b, with(4, 2), "must be 0 or 1");
  expectRejects(kabi::kMatmulGemm, b, with(7, 1), "packed B cannot be batched");
  expectRejects(kabi::kMatmulGemm, b, with(8, 3), "has_bias");
  expectRejects(kabi::kMatmulGemm, b, with(9, 10), "activation is 10");
  expectRejects(kabi::kMatmulGemm, b, with(9, -1), "activation is -1");
  expectRejects(kabi::kMatmulGemm, b, with(10, -1), "bit pattern");
  expectRejects(kabi::kMatmulGemm, b, with(1, 4), "binding 0 (A)");
  expectRejects(kabi::kMatmulGemm, b, with(3, 6), "binding 1 (B)");
  expectRejects(kabi::kMatmulGemm, b, with(2, 5), "binding 1 (B)");
  expectRejects(kabi::kMatmulGemm, b, with(1, INT64_MAX / 2), "overflows");
  std::vector<BufferInfo> small = b;
  small[2] = bytes(3 * 4);
  expectRejects(kabi::kMatmulGemm, small, p, "binding 2 (bias)");
  small = b;
  small[3] = bytes(10);
  expectRejects(kabi::kMatmulGemm, small, p, "binding 3 (C)");
  small = b;
  small[4] = bytes(2 * 3 * 4 * 4 - 4);
  expectRejects(kabi::kMatmulGemm, small, p, "binding 4 (residual)");
  expectRejects(kabi::kMatmulGemm, b, with(12, 2), "has_residual");
  // Packed B: needs the padded panel size, not K x N.
  std::vector<int64_t> packed = {1, 3, 4, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  std::vector<BufferInfo> pb = {bytes(3 * 5 * 4), bytes(5 * 4 * 4), bytes(0),
                                bytes(3 * 4 * 4), bytes(0)};
  expectRejects(kabi::kMatmulGemm, pb, packed, "packed B");
  pb[1] = bytes(packedBBytes(5, 4));
  EXPECT_TRUE(findCpuKernel(kabi::kMatmulGemm)->check(pb, packed, error))
      << error;
}

TEST(RuntimeKernels, ConvCheckRejections) {
  // N=1, C=4, 8x8, O=6, 3x3, stride 1, pads 1, G=2 -> 8x8.
  std::vector<int64_t> p = {1, 4, 8, 8, 8, 8, 6, 3, 3, 1, 1, 1,
                            1, 1, 1, 1, 1, 2, 0, 1, 1, 0, 0, 0};
  std::vector<BufferInfo> b = {bytes(4 * 64 * 4), bytes(6 * 2 * 9 * 4),
                               bytes(6 * 4), bytes(6 * 64 * 4), bytes(0)};
  std::string error;
  ASSERT_TRUE(findCpuKernel(kabi::kConvIm2col)->check(b, p, error)) << error;
  auto with = [&](size_t i, int64_t v) {
    std::vector<int64_t> q = p;
    q[i] = v;
    return q;
  };
  expectRejects(kabi::kConvIm2col, b, with(4, 9), "does not follow");
  expectRejects(kabi::kConvIm2col, b, with(17, 3), "does not divide");
  expectRejects(kabi::kConvIm2col, b, with(9, 0), "SH is 0");
  expectRejects(kabi::kConvIm2col, b, with(11, -2), "PT is -2");
  expectRejects(kabi::kConvIm2col, b, with(18, 3), "filter_packed");
  expectRejects(kabi::kConvIm2col, b, with(18, -1), "filter_packed");
  expectRejects(kabi::kConvIm2col, b, with(18, 1), "packed filter");
  expectRejects(kabi::kConvIm2col, b, with(18, 2), "packed filter");
  // The transposed form takes at most kMaxTransposedPixels output pixels.
  expectRejects(kabi::kConv1x1,
                {bytes(4 * 1089 * 4), bytes(1 << 20), bytes(16 * 4),
                 bytes(16 * 1089 * 4), bytes(0)},
                {1, 4, 1089, 16, 2, 0, 0, 0, 0, 0}, "transposed form");
  expectRejects(kabi::kConvIm2col, b, with(20, 99), "activation");
  expectRejects(kabi::kConvIm2col, b, with(0, INT64_MAX / 3), "overflow");
  std::vector<BufferInfo> small = b;
  small[0] = bytes(100);
  expectRejects(kabi::kConvIm2col, small, p, "binding 0 (input)");
  small = b;
  small[1] = bytes(100);
  expectRejects(kabi::kConvIm2col, small, p, "binding 1 (filter)");
  small = b;
  small[2] = bytes(20);
  expectRejects(kabi::kConvIm2col, small, p, "binding 2 (bias)");
  small = b;
  small[3] = bytes(6 * 64 * 4 - 1);
  expectRejects(kabi::kConvIm2col, small, p, "binding 3 (output)");
  // Depthwise wants G == C and a plain filter.
  expectRejects(kabi::kConvDepthwise, b, p, "is not C");
  expectRejects(kabi::kConvDepthwise, b, with(18, 1), "plain filter");
  expectRejects(kabi::kConvIm2col, b, with(23, 1), "binding 4 (residual)");
  std::vector<int64_t> dw = {1, 4, 8, 8, 8, 8, 4, 3, 3, 1, 1, 1,
                             1, 1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 1};
  std::vector<BufferInfo> dwb = {bytes(4 * 64 * 4), bytes(4 * 9 * 4), bytes(0),
                                 bytes(4 * 64 * 4), bytes(4 * 64 * 4)};
  expectRejects(kabi::kConvDepthwise, dwb, dw, "takes no residual");
  // The stem: 3x3 stride 2, group 1, few channels, plain filter, no
  // residual.
  std::vector<int64_t> st = {1, 3, 8, 8, 4, 4, 4, 3, 3, 2, 2, 1,
                             1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0};
  std::vector<BufferInfo> stb = {bytes(3 * 64 * 4), bytes(4 * 27 * 4),
                                 bytes(0), bytes(4 * 16 * 4),
                                 bytes(4 * 16 * 4)};
  ASSERT_TRUE(findCpuKernel(kabi::kConvStem)->check(stb, st, error)) << error;
  auto stWith = [&](size_t i, int64_t v) {
    std::vector<int64_t> q = st;
    q[i] = v;
    return q;
  };
  expectRejects(kabi::kConvStem, stb, stWith(23, 1), "takes no residual");
  expectRejects(kabi::kConvStem, stb, stWith(18, 1), "plain filter");
  std::vector<int64_t> dil = st; // 8x8, dilation 2: 3x3 outputs
  dil[4] = dil[5] = 3, dil[15] = dil[16] = 2;
  expectRejects(kabi::kConvStem, stb, dil, "dilations 2x2 are not 1x1");
  std::vector<int64_t> wide = st;
  wide[1] = 5;
  std::vector<BufferInfo> wideb = stb;
  wideb[0] = bytes(5 * 64 * 4), wideb[1] = bytes(4 * 45 * 4);
  expectRejects(kabi::kConvStem, wideb, wide, "input channels 5");
  small = stb;
  small[1] = bytes(4 * 27 * 4 - 4);
  expectRejects(kabi::kConvStem, small, st, "binding 1 (filter)");
  // The narrow 1x1 reads the plain filter.
  std::vector<int64_t> nq = {1, 4, 10, 3, 1, 0, 0, 0, 0, 0};
  std::vector<BufferInfo> nqb = {bytes(40 * 4), bytes(12 * 4), bytes(0),
                                 bytes(30 * 4), bytes(0)};
  expectRejects(kabi::kConv1x1Narrow, nqb, nq, "plain filter");
  nq[4] = 0;
  ASSERT_TRUE(findCpuKernel(kabi::kConv1x1Narrow)->check(nqb, nq, error))
      << error;
  nq[2] = 11;
  expectRejects(kabi::kConv1x1Narrow, nqb, nq, "binding 0 (input)");
  // 1x1: N, C, HW, O.
  std::vector<int64_t> q = {1, 4, 10, 3, 0, 0, 0, 0, 0, 0};
  std::vector<BufferInfo> qb = {bytes(40 * 4), bytes(12 * 4), bytes(0),
                                bytes(30 * 4), bytes(0)};
  ASSERT_TRUE(findCpuKernel(kabi::kConv1x1)->check(qb, q, error)) << error;
  q[2] = 11;
  expectRejects(kabi::kConv1x1, qb, q, "binding 0 (input)");
  q[2] = 0;
  expectRejects(kabi::kConv1x1, qb, q, "H is 0");
}

TEST(RuntimeKernels, NamesAndWorkgroups) {
  for (const char *name :
       {kabi::kMatmulGemm, kabi::kMatmulGemv, kabi::kMatmulBatched,
        kabi::kConv1x1, kabi::kConvIm2col, kabi::kConvDepthwise}) {
    EXPECT_TRUE(kabi::isRuntimeKernel(name)) << name;
    EXPECT_NE(findCpuKernel(name), nullptr) << name;
  }
  EXPECT_FALSE(kabi::isRuntimeKernel("conv2d_winograd_f23_f32"));
  EXPECT_TRUE(kabi::isRuntimeKernel(kabi::kConvWinograd));
  int64_t small[] = {1, 4, 4, 4, 0};
  int64_t large[] = {1, 512, 512, 512, 0};
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kMatmulGemm, small, 5), 1);
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kMatmulGemm, large, 5), 8);
  // One workgroup per MFLOP: 1.18 MFLOP stays whole, 2.4 splits in two.
  int64_t pooler[] = {1, 1, 768, 768, 0};
  int64_t twice[] = {1, 2, 768, 768, 0};
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kMatmulGemm, pooler, 5), 1);
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kMatmulGemm, twice, 5), 2);
  // Matrix-vector and depthwise multiply-adds count 8 times (memory-bound).
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kMatmulGemv, pooler, 5), 8);
  int64_t dw7[] = {1, 32, 7, 7, 7, 7, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32};
  int64_t dw14[] = {1, 96, 14, 14, 14, 14, 96, 3, 3,
                    1, 1,  1,  1,  1,  1,  1,  1, 96};
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kConvDepthwise, dw7, 18), 1);
  EXPECT_EQ(kabi::suggestedWorkgroups(kabi::kConvDepthwise, dw14, 18), 2);
  // Memory-bound kernels: one workgroup per 16 Ki elements.
  EXPECT_EQ(kabi::suggestedOpWorkgroups(32 * 1024 - 1), 1);
  EXPECT_EQ(kabi::suggestedOpWorkgroups(32 * 1024), 2);
  EXPECT_EQ(kabi::suggestedOpWorkgroups(int64_t(1) << 20), 8);
}

TEST(RuntimeKernels, InvertedResidualCheckAndRun) {
  // N=1, C=3, H=W=9, E=10, P=3, stride 2, pads 1, OH=OW=5; relu6 on the
  // first two stages, biases on all, residual none; strip_rows 2.
  int64_t six = kabi::floatParam(6.0f);
  std::vector<int64_t> p = {1, 3, 9,   9, 10, 3, 2,   1, 1, 1, 1, 5, 5, 1,
                            2, 0, six, 1, 2,  0, six, 1, 0, 0, 0, 0, 2};
  ASSERT_EQ(int64_t(p.size()), kabi::kInvertedResidualParams);
  uint64_t w1 = packedABytes(10, 3), w3 = packedABytes(3, 10);
  std::vector<BufferInfo> b = {bytes(3 * 81 * 4), bytes(w1),     bytes(40),
                               bytes(90 * 4),     bytes(40),     bytes(w3),
                               bytes(12),         bytes(75 * 4), bytes(75 * 4)};
  const char *name = kabi::kInvertedResidual;
  std::string error;
  ASSERT_TRUE(findCpuKernel(name)->check(b, p, error)) << error;
  auto bad = p;
  bad[6] = 3;
  expectRejects(name, b, bad, "stride 3");
  bad = p;
  bad[11] = 6;
  expectRejects(name, b, bad, "");
  bad = p;
  bad[18] = 99;
  expectRejects(name, b, bad, "depthwise activation is 99");
  bad = p;
  bad[25] = 2;
  expectRejects(name, b, bad, "has_residual is 2");
  bad = p;
  bad[26] = -1;
  expectRejects(name, b, bad, "strip_rows is -1");
  auto small = b;
  small[5] = bytes(w3 - 4);
  expectRejects(name, small, p, "packed projection filter");
  small = b;
  small[4] = bytes(36);
  expectRejects(name, small, p, "depthwise bias");

  // Two workgroups through the table entry against the library call with
  // the whole image as one strip.
  InvertedResidualShape s;
  s.c = 3, s.h = s.w = 9, s.e = 10, s.p = 3, s.stride = 2, s.oh = s.ow = 5;
  auto x = randomVector(3 * 81, 1), f1 = randomVector(30, 2),
       b1 = randomVector(10, 3), dw = randomVector(90, 4),
       b2 = randomVector(10, 5), f3 = randomVector(30, 6),
       b3 = randomVector(3, 7);
  std::vector<float> p1(w1 / 4), p3(w3 / 4), y(75), want(75);
  packA(f1.data(), 3, false, 10, 3, p1.data());
  packA(f3.data(), 10, false, 3, 10, p3.data());
  runKernel(*findCpuKernel(name),
            {x.data(), p1.data(), b1.data(), dw.data(), b2.data(), p3.data(),
             b3.data(), y.data(), y.data()},
            b, p, 2);
  InvertedResidualWeights wt;
  wt.w1 = p1.data(), wt.b1 = b1.data(), wt.dw = dw.data(), wt.b2 = b2.data();
  wt.w3 = p3.data(), wt.b3 = b3.data();
  wt.e1.act = wt.e2.act = Activation::Clip;
  wt.e1.p1 = wt.e2.p1 = 6.0f;
  ASSERT_TRUE(invertedResidual(s, wt, x.data(), want.data(), 5, 0, 1));
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << i;
}

TEST(RuntimeKernels, StemBlockCheckAndRun) {
  // N=1, C=3, H=W=17, E=6, P=5, stem out 9x9 (pads 1), depthwise stride 1
  // pads 1, OH=OW=9; relu6 on the first two stages, biases on all;
  // strip_rows 2.
  int64_t six = kabi::floatParam(6.0f);
  std::vector<int64_t> p = {1,   3, 17, 17, 6,   5, 9, 9, 1, 1, 1,
                            1,   1, 1,  1,  1,   1, 9, 9, 1, 2, 0,
                            six, 1, 2,  0,  six, 1, 0, 0, 0, 2};
  ASSERT_EQ(int64_t(p.size()), kabi::kStemBlockParams);
  std::vector<BufferInfo> b = {
      bytes(3 * 289 * 4), bytes(6 * 27 * 4), bytes(6 * 4), bytes(6 * 9 * 4),
      bytes(6 * 4),       bytes(5 * 6 * 4),  bytes(5 * 4), bytes(5 * 81 * 4)};
  const char *name = kabi::kStemBlock;
  std::string error;
  ASSERT_TRUE(findCpuKernel(name)->check(b, p, error)) << error;
  auto bad = p;
  bad[12] = 3;
  expectRejects(name, b, bad, "stride 3");
  bad = p, bad[1] = 5;
  expectRejects(name, b, bad, "the stem: input channels 5");
  bad = p, bad[17] = 8;
  expectRejects(name, b, bad, "the depthwise");
  bad = p, bad[24] = 99;
  expectRejects(name, b, bad, "depthwise activation is 99");
  bad = p, bad[31] = -1;
  expectRejects(name, b, bad, "strip_rows is -1");
  auto small = b;
  small[1] = bytes(6 * 27 * 4 - 4);
  expectRejects(name, small, p, "stem filter");
  small = b, small[6] = bytes(16);
  expectRejects(name, small, p, "projection bias");

  // Two workgroups through the table entry against the library call with
  // the whole image as one strip.
  StemBlockShape s;
  s.c = 3, s.h = s.w = 17, s.e = 6, s.p = 5, s.h1 = s.w1 = 9;
  s.pt1 = s.pl1 = s.pb1 = s.pr1 = s.pt = s.pl = s.pb = s.pr = 1;
  s.oh = s.ow = 9;
  auto x = randomVector(3 * 289, 1), f1 = randomVector(6 * 27, 2),
       b1 = randomVector(6, 3), dw = randomVector(54, 4),
       b2 = randomVector(6, 5), f3 = randomVector(30, 6),
       b3 = randomVector(5, 7);
  std::vector<float> y(5 * 81), want(5 * 81);
  runKernel(*findCpuKernel(name),
            {x.data(), f1.data(), b1.data(), dw.data(), b2.data(), f3.data(),
             b3.data(), y.data()},
            b, p, 2);
  StemBlockWeights wt;
  wt.w1 = f1.data(), wt.b1 = b1.data(), wt.dw = dw.data(), wt.b2 = b2.data();
  wt.w3 = f3.data(), wt.b3 = b3.data();
  wt.e1.act = wt.e2.act = Activation::Clip;
  wt.e1.p1 = wt.e2.p1 = 6.0f;
  ASSERT_TRUE(stemBlock(s, wt, x.data(), want.data(), 9, 0, 1));
  for (size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(y[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << i;
}

} // namespace
