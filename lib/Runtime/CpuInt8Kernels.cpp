//===- CpuInt8Kernels.cpp - int8 matmul and convolution kernels -----------===//
//
// The kernel-table entries of the int8 kernels of lib/Kernels (names and
// params in strata/Kernels/KernelAbi.h; arithmetic in Int8Gemm.h). The
// weight is always the compile-time packed blob (int8PackWeight): panels,
// per-channel weight sums, requant multipliers and shifts. Each `check`
// validates every param and, with overflow-checked arithmetic, that each
// binding is large enough, so the kernel itself trusts them. Workgroups
// split as the f32 kernels: matmuls by row chunks (the weight is packed),
// GEMM convolutions by (image, group, column chunk), depthwise by plane.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "strata/Kernels/Int8Add.h"
#include "strata/Kernels/Int8Gemm.h"
#include "strata/Kernels/Int8Pool.h"
#include "strata/Kernels/Int8Table.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/Table16.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace strata::runtime::hal {

namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

enum Binding { kIn = 0, kWeight = 1, kBias = 2, kOut = 3 };

bool isFlag(int64_t v) { return v == 0 || v == 1; }

std::string str(int64_t v) { return std::to_string(v); }

/// The epilogue params at `p`: has_bias, in_unsigned, in_zp, relu,
/// out_kind, out_zp, qmin, qmax, rounding.
bool checkInt8Epilogue(const std::vector<BufferInfo> &b, const int64_t *p,
                       int64_t channels, std::string &error) {
  if (!isFlag(p[0]) || !isFlag(p[1]) || !isFlag(p[3])) {
    error = "has_bias, in_unsigned and relu must be 0 or 1 (they are " +
            str(p[0]) + ", " + str(p[1]) + ", " + str(p[3]) + ")";
    return false;
  }
  int64_t zlo = p[1] ? 0 : -128, zhi = p[1] ? 255 : 127;
  if (p[2] < zlo || p[2] > zhi) {
    error = "in_zp is " + str(p[2]) + ", outside the input type's [" +
            str(zlo) + ", " + str(zhi) + "]";
    return false;
  }
  if (p[4] < 0 || p[4] > 2) {
    error = "out_kind is " + str(p[4]) +
            ", must be 0 (int32), 1 (int8) or "
            "2 (uint8)";
    return false;
  }
  if (p[4] != 0) {
    int64_t lo = p[4] == 1 ? -128 : 0, hi = p[4] == 1 ? 127 : 255;
    if (p[6] < lo || p[6] > p[7] || p[7] > hi) {
      error = "qmin, qmax are " + str(p[6]) + ", " + str(p[7]) +
              ", not an ordered range inside [" + str(lo) + ", " + str(hi) +
              "]";
      return false;
    }
    if (p[5] < INT32_MIN || p[5] > INT32_MAX) {
      error = "out_zp " + str(p[5]) + " is outside int32";
      return false;
    }
  }
  if (p[8] < 0 || p[8] > 2) {
    error = "rounding is " + str(p[8]) +
            ", must be 0 (MultiplierShift), 1 (TosaSingleRound) or 2 "
            "(TFLiteHalfUp)";
    return false;
  }
  return !p[0] || needBytes(b, kBias, channels, 4, "bias", error);
}

/// Checks the packed weight binding against `layout` (its contents are
/// the compiler's: shifts outside [0, 63] are clamped by the kernels).
bool checkPackedWeight(const std::vector<BufferInfo> &b,
                       const kn::Int8PackedLayout &l, std::string &error) {
  if (l.totalBytes == 0) {
    error = "the packed weight's size overflows";
    return false;
  }
  if (b[kWeight].size < l.totalBytes) {
    error = "binding 1 (packed weight) has " + std::to_string(b[kWeight].size) +
            " bytes, the params need " + std::to_string(l.totalBytes);
    return false;
  }
  return true;
}

bool checkPackedFlag(int64_t v, std::string &error) {
  if (v == 1)
    return true;
  error = "weight_packed is " + str(v) +
          ", the int8 kernels read only the "
          "compile-time packed weight (1)";
  return false;
}

int64_t outBytes(int64_t outKind) { return outKind == 0 ? 4 : 1; }

/// The epilogue and the corrections (bias - offset * weight sums) of one
/// dispatch; `corr` owns the corrections.
struct Int8Run {
  kn::Int8Input in;
  kn::Int8Epilogue e;
  std::vector<int32_t> corr;
};

Int8Run makeRun(void *const *bindings, const int64_t *p,
                const kn::Int8PackedLayout &l, bool perRow, bool withSums) {
  Int8Run r;
  r.in.isUnsigned = p[1] != 0;
  r.in.zp = int32_t(p[2]);
  const auto *blob = static_cast<const uint8_t *>(bindings[kWeight]);
  r.corr.resize(size_t(l.channels));
  kn::int8Corrections(
      r.in, p[0] ? static_cast<const int32_t *>(bindings[kBias]) : nullptr,
      withSums ? reinterpret_cast<const int32_t *>(blob + l.sumOffset)
               : nullptr,
      l.channels, r.corr.data());
  r.e.perRow = perRow;
  r.e.corr = r.corr.data();
  r.e.relu = p[3] != 0;
  r.e.out = kn::Int8Output(p[4]);
  r.e.multiplier = reinterpret_cast<const int32_t *>(blob + l.multiplierOffset);
  r.e.shift = reinterpret_cast<const int32_t *>(blob + l.shiftOffset);
  r.e.zp = int32_t(p[5]);
  r.e.qmin = int32_t(p[6]);
  r.e.qmax = int32_t(p[7]);
  r.e.rounding = kn::Int8Rounding(p[8]);
  return r;
}

//===----------------------------------------------------------------------===//
// Matmul: [B, M, N, K, transpose_b, a_batched, b_batched, b_packed, epi...]
//===----------------------------------------------------------------------===//

kn::Int8PackedLayout matmulLayout(const int64_t *p) {
  return kn::int8PackedLayout(kn::Int8WeightKind::MatmulB, kn::Conv2dShape(),
                              p[3], p[2]);
}

int matmulKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  bool aBatched = p[5];
  kn::Int8PackedLayout l = matmulLayout(p);
  const int64_t *ep = p + kabi::kMatmulStrategyParams + 3;
  Int8Run r = makeRun(bindings, ep, l, /*perRow=*/false, /*withSums=*/true);
  // Row chunks of whole panels over the batch.
  int64_t rowPanels = (m + kn::kPanelRows - 1) / kn::kPanelRows;
  int64_t per = batch >= count ? 1 : (count + batch - 1) / batch;
  int64_t chunks = std::max<int64_t>(1, std::min(per, rowPanels));
  int64_t rowStep = (rowPanels + chunks - 1) / chunks * kn::kPanelRows;
  int64_t begin, end;
  split(batch * chunks, id, count, begin, end);
  int64_t eb = outBytes(ep[4]);
  kn::Int8GemmProblem g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = k;
  g.aXor = r.in.isUnsigned ? 0 : 0x80;
  g.aUnsigned = true;
  g.bPacked = static_cast<const uint8_t *>(bindings[kWeight]);
  g.ldc = n;
  g.epilogue = r.e;
  for (int64_t unit = begin; unit < end; ++unit) {
    int64_t bi = unit / chunks, r0 = unit % chunks * rowStep;
    g.aPlain = static_cast<const uint8_t *>(bindings[kIn]) +
               (aBatched ? bi * m * k : 0);
    g.c = static_cast<uint8_t *>(bindings[kOut]) + bi * m * n * eb;
    kn::int8Gemm(g, r0, std::min(m, r0 + rowStep), 0, n);
  }
  return 0;
}

bool matmulCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  int64_t batch = p[0], m = p[1], n = p[2], k = p[3];
  if (batch < 1 || m < 0 || n < 0 || k < 0) {
    error = "B, M, N, K are " + str(batch) + ", " + str(m) + ", " + str(n) +
            ", " + str(k) + " (B >= 1, the others >= 0)";
    return false;
  }
  for (int i : {4, 5, 6})
    if (!isFlag(p[i])) {
      error =
          "param " + str(i) + " (a flag) is " + str(p[i]) + ", must be 0 or 1";
      return false;
    }
  if (p[6]) {
    error = "b_batched is 1: the int8 matmul takes one packed weight";
    return false;
  }
  if (!checkPackedFlag(p[7], error))
    return false;
  const int64_t *ep = p.data() + kabi::kMatmulStrategyParams + 3;
  int64_t aCount, cCount;
  if (__builtin_mul_overflow(p[5] ? batch : 1, m, &aCount) ||
      __builtin_mul_overflow(aCount, k, &aCount) ||
      __builtin_mul_overflow(batch, m, &cCount) ||
      __builtin_mul_overflow(cCount, n, &cCount)) {
    error = "an operand's element count overflows int64";
    return false;
  }
  return checkPackedWeight(b, matmulLayout(p.data()), error) &&
         needBytes(b, kIn, aCount, 1, "A", error) &&
         needBytes(b, kOut, cCount, uint64_t(outBytes(ep[4])), "C", error) &&
         checkInt8Epilogue(b, ep, n, error);
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

kn::Conv2dShape convShape(std::string_view kernel, const int64_t *p) {
  return kabi::convShapeFromParams(kernel, p);
}

bool checkConv(const std::vector<BufferInfo> &b, const kn::Conv2dShape &s,
               kn::Int8WeightKind kind, const int64_t *ep, std::string &error) {
  std::string why = kn::checkConv2dShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  if (kind == kn::Int8WeightKind::Depthwise && s.c != s.g) {
    error = "G = " + str(s.g) + " is not C = " + str(s.c) + " (depthwise)";
    return false;
  }
  return checkPackedWeight(b, kn::int8PackedLayout(kind, s, 0, 0), error) &&
         needBytes(b, kIn, s.n * s.c * s.h * s.w, 1, "input", error) &&
         needBytes(b, kOut, s.n * s.o * s.oh * s.ow, uint64_t(outBytes(ep[4])),
                   "output", error) &&
         checkInt8Epilogue(b, ep, s.o, error);
}

int convGemm(void *const *bindings, const kn::Conv2dShape &s, const int64_t *ep,
             int64_t id, int64_t count, bool tapMajor) {
  kn::Int8PackedLayout l =
      kn::int8PackedLayout(kn::Int8WeightKind::ConvFilter, s, 0, 0);
  Int8Run r = makeRun(bindings, ep, l, /*perRow=*/true, /*withSums=*/true);
  int64_t begin, end;
  split(kn::conv2dGemmUnits(s, count), id, count, begin, end);
  kn::int8Conv2dGemm(s, r.in, bindings[kIn],
                     static_cast<const uint8_t *>(bindings[kWeight]), r.e,
                     bindings[kOut], count, begin, end, tapMajor);
  return 0;
}

int conv1x1Kernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  return convGemm(bindings, convShape(kabi::kConv1x1I8, p), p + 5, id, count,
                  /*tapMajor=*/false);
}
bool conv1x1Check(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  return checkPackedFlag(p[4], error) &&
         checkConv(b, convShape(kabi::kConv1x1I8, p.data()),
                   kn::Int8WeightKind::ConvFilter, p.data() + 5, error);
}

int convIm2colKernel(void *const *bindings, const int64_t *p, int64_t id,
                     int64_t count) {
  return convGemm(bindings, convShape(kabi::kConvIm2colI8, p), p + 19, id,
                  count, /*tapMajor=*/p[18] == 2);
}
bool convIm2colCheck(const std::vector<BufferInfo> &b,
                     const std::vector<int64_t> &p, std::string &error) {
  kn::Conv2dShape s = convShape(kabi::kConvIm2colI8, p.data());
  // 2: the filter packed with K tap-major (kernels::int8ConvTapMajor).
  if (p[18] == 2 && !kn::int8ConvTapMajor(s)) {
    error = "filter_packed is 2 (a tap-major filter) but the convolution "
            "does not take one (it needs one group, a window, strides up to "
            "4 and a multiple of 4 input channels)";
    return false;
  }
  return (p[18] == 2 || checkPackedFlag(p[18], error)) &&
         checkConv(b, s, kn::Int8WeightKind::ConvFilter, p.data() + 19, error);
}

int convDepthwiseKernel(void *const *bindings, const int64_t *p, int64_t id,
                        int64_t count) {
  kn::Conv2dShape s = convShape(kabi::kConvDepthwiseI8, p);
  kn::Int8PackedLayout l =
      kn::int8PackedLayout(kn::Int8WeightKind::Depthwise, s, 0, 0);
  Int8Run r = makeRun(bindings, p + 19, l, /*perRow=*/true,
                      /*withSums=*/false);
  int64_t begin, end;
  split(s.n * s.o, id, count, begin, end);
  kn::int8Conv2dDepthwise(s, r.in, bindings[kIn],
                          static_cast<const int8_t *>(bindings[kWeight]), r.e,
                          bindings[kOut], begin, end);
  return 0;
}
bool convDepthwiseCheck(const std::vector<BufferInfo> &b,
                        const std::vector<int64_t> &p, std::string &error) {
  return checkPackedFlag(p[18], error) &&
         checkConv(b, convShape(kabi::kConvDepthwiseI8, p.data()),
                   kn::Int8WeightKind::Depthwise, p.data() + 19, error);
}

//===----------------------------------------------------------------------===//
// Add: [count, a_unsigned, a_zp, a_m, a_s, b_unsigned, b_zp, b_m, b_s,
//       relu, out_kind, out_m, out_s, out_zp, qmin, qmax]
//===----------------------------------------------------------------------===//

kn::Int8AddParams addParams(const int64_t *p) {
  kn::Int8AddParams a;
  for (auto [in, at] : {std::pair{&a.a, 1}, {&a.b, 5}}) {
    in->isUnsigned = p[at] != 0;
    in->zp = int32_t(p[at + 1]);
    in->multiplier = int32_t(p[at + 2]);
    in->shift = int32_t(p[at + 3]);
  }
  a.relu = p[9] != 0;
  a.out = kn::Int8Output(p[10]);
  a.multiplier = int32_t(p[11]);
  a.shift = int32_t(p[12]);
  a.zp = int32_t(p[13]);
  a.qmin = int32_t(p[14]);
  a.qmax = int32_t(p[15]);
  return a;
}

int addKernel(void *const *bindings, const int64_t *p, int64_t id,
              int64_t count) {
  int64_t begin, end;
  // Chunks of 64 elements: whole vectors per workgroup.
  split((p[0] + 63) / 64, id, count, begin, end);
  kn::int8Add(addParams(p), bindings[0], bindings[1], bindings[2], begin * 64,
              std::min(p[0], end * 64));
  return 0;
}

bool addCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
              std::string &error) {
  if (p[0] < 0) {
    error = "count is " + str(p[0]) + ", must be >= 0";
    return false;
  }
  const char *names[] = {"a", "b"};
  for (int i = 0; i < 2; ++i) {
    const int64_t *in = p.data() + 1 + 4 * i;
    if (!isFlag(in[0])) {
      error = std::string(names[i]) + "_unsigned is " + str(in[0]) +
              ", must be 0 or 1";
      return false;
    }
    int64_t lo = in[0] ? 0 : -128, hi = in[0] ? 255 : 127;
    if (in[1] < lo || in[1] > hi) {
      error = std::string(names[i]) + "_zp is " + str(in[1]) +
              ", outside its type's [" + str(lo) + ", " + str(hi) + "]";
      return false;
    }
    if (in[2] < INT32_MIN || in[2] > INT32_MAX || in[3] < 0 || in[3] > 63) {
      error = std::string(names[i]) + "_multiplier, " + names[i] +
              "_shift are " + str(in[2]) + ", " + str(in[3]) +
              " (int32 and [0, 63])";
      return false;
    }
  }
  if (!isFlag(p[9])) {
    error = "relu is " + str(p[9]) + ", must be 0 or 1";
    return false;
  }
  if (p[10] != 1 && p[10] != 2) {
    error = "out_kind is " + str(p[10]) + ", must be 1 (int8) or 2 (uint8)";
    return false;
  }
  if (p[11] < INT32_MIN || p[11] > INT32_MAX || p[12] < 0 || p[12] > 63) {
    error = "out_multiplier, out_shift are " + str(p[11]) + ", " + str(p[12]) +
            " (int32 and [0, 63])";
    return false;
  }
  if (p[13] < INT32_MIN || p[13] > INT32_MAX) {
    error = "out_zp " + str(p[13]) + " is outside int32";
    return false;
  }
  int64_t lo = p[10] == 1 ? -128 : 0, hi = p[10] == 1 ? 127 : 255;
  if (p[14] < lo || p[14] > p[15] || p[15] > hi) {
    error = "qmin, qmax are " + str(p[14]) + ", " + str(p[15]) +
            ", not an ordered range inside [" + str(lo) + ", " + str(hi) + "]";
    return false;
  }
  return needBytes(b, 0, p[0], 1, "a", error) &&
         needBytes(b, 1, p[0], 1, "b", error) &&
         needBytes(b, 2, p[0], 1, "out", error);
}

/// Workgroup `id` of `count`'s elements [first, last) of `n`, in chunks of
/// 64 (whole vectors per workgroup); false when it has none.
bool vectorChunks(int64_t n, int64_t id, int64_t count, int64_t &first,
                  int64_t &last) {
  int64_t begin, end;
  split((n + 63) / 64, id, count, begin, end);
  first = begin * 64;
  last = std::min(n, end * 64);
  return last > first;
}

int tableKernel(void *const *bindings, const int64_t *p, int64_t id,
                int64_t count) {
  int64_t first, last;
  if (!vectorChunks(p[0], id, count, first, last))
    return 0;
  int8_t table[256];
  std::memcpy(table, p + 1, sizeof(table));
  kn::int8Table(static_cast<const int8_t *>(bindings[0]) + first,
                static_cast<int8_t *>(bindings[1]) + first, last - first,
                table);
  return 0;
}

bool tableCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
                std::string &error) {
  if (p[0] < 0) {
    error = "count is " + str(p[0]) + ", must be >= 0";
    return false;
  }
  return needBytes(b, 0, p[0], 1, "in", error) &&
         needBytes(b, 1, p[0], 1, "out", error);
}

int tableChannelsKernel(void *const *bindings, const int64_t *p, int64_t id,
                        int64_t count) {
  int64_t first, last;
  if (!vectorChunks(p[0], id, count, first, last))
    return 0;
  kn::int8TableChannels(static_cast<const int8_t *>(bindings[0]),
                        static_cast<int8_t *>(bindings[1]), first, last, p[1],
                        p[2], reinterpret_cast<const int8_t *>(p + 3));
  return 0;
}

bool tableChannelsCheck(const std::vector<BufferInfo> &b,
                        const std::vector<int64_t> &p, std::string &error) {
  const int64_t fixed = kabi::kTableChannelsI8FixedParams;
  if (p.size() < size_t(fixed)) {
    error = "takes at least " + str(fixed) + " params, has " + str(p.size());
    return false;
  }
  if (p[0] < 0 || p[1] < 1 || p[2] < 1) {
    error = "count, channels, inner are " + str(p[0]) + ", " + str(p[1]) +
            ", " + str(p[2]) + ": need count >= 0, channels >= 1, inner >= 1";
    return false;
  }
  if (p[1] > (INT64_MAX - fixed) / 32 ||
      int64_t(p.size()) != fixed + 32 * p[1]) {
    error = "has " + str(p.size()) + " params, " + str(p[1]) +
            " channels need " + str(fixed) + " + 32 x channels";
    return false;
  }
  return needBytes(b, 0, p[0], 1, "in", error) &&
         needBytes(b, 1, p[0], 1, "out", error);
}

/// table16_i8's arguments from its params (table16Check passed).
kn::Table16Args table16Args(const int64_t *p) {
  const int64_t fixed = kabi::kTable16I8FixedParams;
  kn::Table16Args a;
  a.channels = p[1];
  a.inner = p[2];
  a.int32Input = p[3] == 1;
  a.zeroPoint = p[4];
  a.qmin = p[5];
  a.qmax = p[6];
  a.table = reinterpret_cast<const int16_t *>(p + fixed);
  a.multiplier = p + fixed + kabi::kTable16I8TableParams;
  a.shift = a.multiplier + a.channels;
  return a;
}

int table16Kernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  int64_t first, last;
  if (!vectorChunks(p[0], id, count, first, last))
    return 0;
  kn::table16(bindings[0], static_cast<int8_t *>(bindings[1]), first, last,
              table16Args(p));
  return 0;
}

bool table16Check(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  const int64_t fixed = kabi::kTable16I8FixedParams;
  const int64_t tableParams = kabi::kTable16I8TableParams;
  if (p.size() < size_t(fixed + tableParams)) {
    error = "takes at least " + str(fixed + tableParams) + " params, has " +
            str(p.size());
    return false;
  }
  if (p[0] < 0 || p[1] < 1 || p[2] < 1 || (p[3] != 0 && p[3] != 1)) {
    error = "count, channels, inner, in_kind are " + str(p[0]) + ", " +
            str(p[1]) + ", " + str(p[2]) + ", " + str(p[3]) +
            ": need count >= 0, channels >= 1, inner >= 1, in_kind 0 or 1";
    return false;
  }
  if (p[4] < -32768 || p[4] > 32767 || p[5] < -128 || p[6] > 127 ||
      p[5] > p[6]) {
    error = "in_zp, qmin, qmax are " + str(p[4]) + ", " + str(p[5]) + ", " +
            str(p[6]) + ": need in_zp in int16, -128 <= qmin <= qmax <= 127";
    return false;
  }
  int64_t want = fixed + tableParams;
  if (p[3] == 1) {
    if (p[1] > (INT64_MAX - want) / 2) {
      error = "channels " + str(p[1]) + " is too large";
      return false;
    }
    want += 2 * p[1];
  }
  if (int64_t(p.size()) != want) {
    error = "has " + str(p.size()) + " params, needs " + str(want);
    return false;
  }
  if (p[3] == 1)
    for (int64_t c = 0; c < p[1]; ++c) {
      int64_t m = p[size_t(fixed + tableParams + c)];
      int64_t s = p[size_t(fixed + tableParams + p[1] + c)];
      if (m < INT32_MIN || m > INT32_MAX || s < 0 || s > 63) {
        error = "channel " + str(c) + "'s multiplier " + str(m) + " or shift " +
                str(s) + " is outside int32 / [0, 63]";
        return false;
      }
    }
  return needBytes(b, 0, p[0], p[3] == 1 ? 4 : 2, "in", error) &&
         needBytes(b, 1, p[0], 1, "out", error);
}

//===----------------------------------------------------------------------===//
// Max pool: maxpool2d_nchw_f32's params (16 geometry, clamp, limit)
//===----------------------------------------------------------------------===//

template <bool IsUnsigned>
int maxPoolKernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  kn::Pool2dShape s = kabi::poolShapeFromParams(p);
  int64_t begin, end;
  split(s.n * s.c, id, count, begin, end);
  kn::int8MaxPool2d(s, IsUnsigned, static_cast<const uint8_t *>(bindings[0]),
                    static_cast<uint8_t *>(bindings[1]), begin, end);
  return 0;
}

bool maxPoolCheck(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  kn::Pool2dShape s = kabi::poolShapeFromParams(p.data());
  std::string why = kn::checkInt8MaxPool2dShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  if (p[16] != 0 || p[17] != 0) {
    error = "clamp, limit are " + str(p[16]) + ", " + str(p[17]) +
            " (the int8 max pool takes no clamp: 0, 0)";
    return false;
  }
  return needBytes(b, 0, s.n * s.c * s.h * s.w, 1, "input", error) &&
         needBytes(b, 1, s.n * s.c * s.oh * s.ow, 1, "output", error);
}

constexpr unsigned kWritesOut = 1u << kOut;
const CpuKernel kInt8Kernels[] = {
    {kabi::kMatmulGemmI8, 4, kabi::kMatmulI8Params, kWritesOut, matmulCheck,
     matmulKernel},
    {kabi::kConv1x1I8, 4, kabi::kConv1x1I8Params, kWritesOut, conv1x1Check,
     conv1x1Kernel},
    {kabi::kConvIm2colI8, 4, kabi::kConvI8Params, kWritesOut, convIm2colCheck,
     convIm2colKernel},
    {kabi::kConvDepthwiseI8, 4, kabi::kConvI8Params, kWritesOut,
     convDepthwiseCheck, convDepthwiseKernel},
    {kabi::kAddRequantI8, 3, kabi::kAddRequantI8Params, 1u << 2, addCheck,
     addKernel},
    {kabi::kTableI8, 2, kabi::kTableI8Params, 1u << 1, tableCheck,
     tableKernel},
    {kabi::kTableChannelsI8, 2, kAnyParamCount, 1u << 1, tableChannelsCheck,
     tableChannelsKernel},
    {kabi::kMaxPoolI8, 2, kabi::kMaxPoolParams, 1u << 1, maxPoolCheck,
     maxPoolKernel<false>},
    {kabi::kMaxPoolU8, 2, kabi::kMaxPoolParams, 1u << 1, maxPoolCheck,
     maxPoolKernel<true>},
    {kabi::kTable16I8, 2, kAnyParamCount, 1u << 1, table16Check, table16Kernel},
};

} // namespace

CpuKernelList int8Kernels() {
  return {kInt8Kernels, sizeof(kInt8Kernels) / sizeof(kInt8Kernels[0])};
}

} // namespace strata::runtime::hal
