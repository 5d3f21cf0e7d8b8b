//===- GemmTest.cpp - the GEMM against a double-accumulating reference ----===//

#include "Reference.h"

#include "strata/Kernels/Gemm.h"

#include <cstring>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

using namespace strata::kernels;
using namespace strata::kernels::test;

namespace {

struct Case {
  int64_t m, n, k;
};

enum class Form { Plain, Transposed, Packed };

std::string formName(Form f) {
  return f == Form::Plain        ? "plain"
         : f == Form::Transposed ? "transposed"
                                 : "packed";
}

/// Runs C = A*B with the epilogue through `isa` and compares with the
/// reference; A and B in the given forms.
void runCase(Case c, Isa isa, Form aForm, Form bForm, const Epilogue &epIn,
             bool residual, unsigned seed) {
  std::vector<float> a = randomVector(size_t(c.m * c.k), seed);
  std::vector<float> b = randomVector(size_t(c.k * c.n), seed + 1);
  std::vector<float> bias = randomVector(size_t(std::max(c.m, c.n)), seed + 2);
  std::vector<float> res = randomVector(size_t(c.m * c.n), seed + 3);
  // Reference: A row-major M x K, B row-major K x N.
  std::vector<double> want(size_t(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < c.k; ++p)
        s += double(a[i * c.k + p]) * double(b[p * c.n + j]);
      if (epIn.biasMode == BiasMode::PerRow)
        s += bias[i];
      if (epIn.biasMode == BiasMode::PerCol)
        s += bias[j];
      if (residual)
        s += res[i * c.n + j];
      want[i * c.n + j] = refActivate(s, epIn.act, epIn.p0, epIn.p1);
    }
  GemmProblem p;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  // `storage` keeps the operand's transposed or packed copy alive.
  auto setOperand = [](GemmOperand &op, Form form, const std::vector<float> &m,
                       int64_t rows, int64_t cols, bool isA,
                       std::vector<float> &storage) {
    switch (form) {
    case Form::Plain:
      op.data = m.data();
      op.ld = cols;
      return;
    case Form::Transposed:
      storage.resize(m.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t q = 0; q < cols; ++q)
          storage[q * rows + r] = m[r * cols + q];
      op.data = storage.data();
      op.ld = rows;
      op.transposed = true;
      return;
    case Form::Packed:
      storage.resize(
          (isA ? packedABytes(rows, cols) : packedBBytes(rows, cols)) / 4 + 1);
      if (isA)
        packA(m.data(), cols, false, rows, cols, storage.data());
      else
        packB(m.data(), cols, false, rows, cols, storage.data());
      op.data = storage.data();
      op.packed = true;
      return;
    }
  };
  std::vector<float> aStorage, bStorage;
  setOperand(p.a, aForm, a, c.m, c.k, /*isA=*/true, aStorage);
  setOperand(p.b, bForm, b, c.k, c.n, /*isA=*/false, bStorage);
  std::vector<float> out(size_t(c.m * c.n), 12345.0f);
  p.c = out.data();
  p.ldc = c.n;
  p.epilogue = epIn;
  p.epilogue.bias = bias.data();
  if (residual) {
    p.epilogue.residual = res.data();
    p.epilogue.ldr = c.n;
  }
  gemm(p, isa);
  // f32 products summed in f32: error grows with sqrt(K) typically; allow
  // 1e-5 * (K + 1) relative to the magnitude (inputs in [-1, 1]).
  double tol = 2e-6 * double(c.k + 8);
  expectClose(out, want, tol,
              std::string(isaName(isa)) + " M=" + std::to_string(c.m) +
                  " N=" + std::to_string(c.n) + " K=" + std::to_string(c.k) +
                  " A " + formName(aForm) + " B " + formName(bForm) + " act " +
                  std::to_string(int(epIn.act)));
}

const Case kShapes[] = {
    {1, 1, 1},      {1, 17, 5},      {13, 1, 7},    {12, 16, 1},  {12, 32, 64},
    {11, 31, 9},    {13, 33, 17},    {24, 48, 3},   {37, 41, 43}, {7, 100, 300},
    {150, 70, 257}, {145, 2050, 20}, {6, 16, 1000}, {97, 65, 513}};

TEST(Gemm, ShapesEveryIsaAndOperandForm) {
  unsigned seed = 1;
  for (Isa isa : supportedIsas())
    for (Case c : kShapes)
      for (Form af : {Form::Plain, Form::Transposed, Form::Packed})
        for (Form bf : {Form::Plain, Form::Transposed, Form::Packed})
          runCase(c, isa, af, bf, Epilogue{}, false, seed++);
}

// C at, and one row over, the 1 MiB above which the first K block prefetches
// the next tile's C rows for writing: both sides of the gate, with and
// without a separate residual and a fused activation.
TEST(Gemm, OutputsAroundThePrefetchGate) {
  unsigned seed = 900;
  Epilogue relu;
  relu.act = Activation::Relu;
  relu.biasMode = BiasMode::PerRow;
  for (Isa isa : supportedIsas())
    for (Case c : {Case{256, 1024, 19}, Case{257, 1024, 19}})
      for (Form af : {Form::Plain, Form::Packed}) {
        runCase(c, isa, af, Form::Packed, Epilogue{}, false, seed++);
        runCase(c, isa, af, Form::Plain, relu, true, seed++);
      }
}

TEST(Gemm, EveryEpilogueEveryIsa) {
  struct Act {
    Activation act;
    float p0, p1;
  };
  const Act acts[] = {{Activation::None, 0, 0},
                      {Activation::Relu, 0, 0},
                      {Activation::Clip, 0, 6},
                      {Activation::Clip, -0.5f, 0.25f},
                      {Activation::LeakyRelu, 0.1f, 0},
                      {Activation::Sigmoid, 0, 0},
                      {Activation::SiLU, 0, 0},
                      {Activation::HardSwish, 0, 0},
                      {Activation::HardSigmoid, 0.2f, 0.5f},
                      {Activation::Gelu, 0, 0},
                      {Activation::GeluTanh, 0, 0}};
  const Case shapes[] = {{13, 37, 29}, {24, 64, 300}, {1, 5, 3}};
  unsigned seed = 1000;
  for (Isa isa : supportedIsas())
    for (Case c : shapes)
      for (const Act &a : acts)
        for (BiasMode bm : {BiasMode::None, BiasMode::PerRow, BiasMode::PerCol})
          for (bool residual : {false, true}) {
            Epilogue e;
            e.biasMode = bm;
            e.act = a.act;
            e.p0 = a.p0;
            e.p1 = a.p1;
            runCase(c, isa, Form::Plain, Form::Packed, e, residual, seed++);
          }
}

TEST(Gemm, SubRangesCoverTheOutput) {
  // Two workgroups computing [0, 24) and [24, M) rows, or split columns at
  // 32, give the whole result.
  for (Isa isa : supportedIsas()) {
    int64_t m = 50, n = 70, k = 33;
    std::vector<float> a = randomVector(m * k, 7), b = randomVector(k * n, 8);
    GemmProblem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.a.data = a.data();
    p.a.ld = k;
    p.b.data = b.data();
    p.b.ld = n;
    std::vector<float> whole(m * n), split(m * n, -1.0f);
    p.c = whole.data();
    p.ldc = n;
    gemm(p, isa);
    p.c = split.data();
    gemm(p, 0, 24, 0, 32, isa);
    gemm(p, 24, m, 0, 32, isa);
    gemm(p, 0, m, 32, n, isa);
    EXPECT_EQ(whole, split) << isaName(isa);
  }
}

TEST(Gemm, KZeroIsTheEpilogueOfZero) {
  GemmProblem p;
  p.m = 3;
  p.n = 4;
  p.k = 0;
  std::vector<float> bias = {1, -2, 3}, out(12, 9.0f);
  p.c = out.data();
  p.ldc = 4;
  p.epilogue.biasMode = BiasMode::PerRow;
  p.epilogue.bias = bias.data();
  p.epilogue.act = Activation::Relu;
  gemm(p, Isa::Portable);
  EXPECT_EQ(out, (std::vector<float>{1, 1, 1, 1, 0, 0, 0, 0, 3, 3, 3, 3}));
}

// A plain B is read in place on the ISAs with a direct microkernel: the
// product must be the packed B's bit for bit (same sums in the same order),
// and only B's own columns may be read: here B is a sub-matrix (ld > n) whose
// last float is the last one before an unreadable page.
TEST(Gemm, PlainBReadInPlaceStaysInsideB) {
  const Case shapes[] = {{13, 37, 29},  {24, 50, 300}, {5, 3, 7},
                         {64, 196, 40}, {12, 530, 9},  {30, 17, 513}};
  long page = sysconf(_SC_PAGESIZE);
  unsigned seed = 500;
  for (Isa isa : supportedIsas())
    for (Case c : shapes) {
      int64_t ld = c.n + 5;
      int64_t floats = (c.k - 1) * ld + c.n;
      size_t bytes = size_t(floats) * sizeof(float);
      size_t span = (bytes + size_t(page) - 1) / size_t(page) * size_t(page);
      void *mem = mmap(nullptr, span + size_t(page), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ASSERT_NE(mem, MAP_FAILED);
      char *base = static_cast<char *>(mem);
      ASSERT_EQ(mprotect(base + span, size_t(page), PROT_NONE), 0);
      float *b = reinterpret_cast<float *>(base + span - bytes);
      std::vector<float> a = randomVector(size_t(c.m * c.k), seed++);
      std::vector<float> bDense = randomVector(size_t(c.k * c.n), seed++);
      for (int64_t r = 0; r < c.k; ++r)
        std::memcpy(b + r * ld, bDense.data() + r * c.n,
                    size_t(c.n) * sizeof(float));
      std::vector<float> bPacked(packedBBytes(c.k, c.n) / 4);
      packB(bDense.data(), c.n, false, c.k, c.n, bPacked.data());
      Epilogue e;
      e.act = Activation::Relu;
      std::vector<float> bias = randomVector(size_t(c.m), seed++);
      e.biasMode = BiasMode::PerRow;
      e.bias = bias.data();
      std::vector<float> inPlace(size_t(c.m * c.n)), packed(inPlace.size());
      for (bool usePacked : {false, true}) {
        GemmProblem p;
        p.m = c.m;
        p.n = c.n;
        p.k = c.k;
        p.a.data = a.data();
        p.a.ld = c.k;
        if (usePacked) {
          p.b.data = bPacked.data();
          p.b.packed = true;
        } else {
          p.b.data = b;
          p.b.ld = ld;
        }
        p.c = usePacked ? packed.data() : inPlace.data();
        p.ldc = c.n;
        p.epilogue = e;
        gemm(p, isa);
      }
      EXPECT_EQ(std::memcmp(inPlace.data(), packed.data(),
                            inPlace.size() * sizeof(float)),
                0)
          << isaName(isa) << " M=" << c.m << " N=" << c.n << " K=" << c.k;
      munmap(mem, span + size_t(page));
    }
}

TEST(Gemm, PackedSizes) {
  EXPECT_EQ(packedABytes(1, 1), 12u * 4);
  EXPECT_EQ(packedABytes(13, 2), 24u * 2 * 4);
  EXPECT_EQ(packedBBytes(3, 17), 3u * 32 * 4);
  EXPECT_EQ(packedBBytes(-1, 2), 0u);
  EXPECT_EQ(packedBBytes(INT64_MAX, INT64_MAX), 0u);
}

TEST(Isa, DetectionAndNames) {
  EXPECT_TRUE(isaSupported(Isa::Portable));
  EXPECT_TRUE(isaSupported(detectIsa()));
  EXPECT_TRUE(isaSupported(activeIsa()));
  EXPECT_STREQ(isaName(Isa::Avx512), "avx512");
}

} // namespace
