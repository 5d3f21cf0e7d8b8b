//===- CpuOpKernels.cpp - elementwise, pooling, softmax, layer norm -------===//
//
// The kernel-table entries of strata/Kernels/OpKernels.h (names, bindings
// and params in strata/Kernels/KernelAbi.h). Each `check` validates every
// param and, with overflow-checked arithmetic, that each binding holds what
// the params make the kernel read or write. Workgroups split rows (binary,
// softmax, layer norm), planes (pooling) or (image, group, output-row
// chunk) units (transposed convolution).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include "strata/Kernels/Deconv.h"
#include "strata/Kernels/Gemm.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Kernels/OpKernels.h"

namespace strata::runtime::hal {

namespace kn = strata::kernels;
namespace kabi = strata::kernels::kabi;

namespace {

bool isFlag(int64_t v) { return v == 0 || v == 1; }

/// Checks the (clamp, limit) pair at `p`.
bool checkClamp(const int64_t *p, std::string &error) {
  if (p[0] < 0 || p[0] > 2) {
    error = "clamp is " + std::to_string(p[0]) + ", must be 0, 1 or 2";
    return false;
  }
  if (p[1] < 0 || p[1] > UINT32_MAX) {
    error = "limit is not the bit pattern of an f32";
    return false;
  }
  return true;
}

bool product(std::initializer_list<int64_t> fs, int64_t &out) {
  out = 1;
  for (int64_t f : fs)
    if (f < 0 || __builtin_mul_overflow(out, f, &out))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Binary: [count, rank, dims[6], a_strides[6], b_strides[6], clamp, limit]
//===----------------------------------------------------------------------===//

kn::BinaryShape binaryShape(const int64_t *p) {
  kn::BinaryShape s;
  s.rank = p[1];
  for (int64_t d = 0; d < kn::kMaxBinaryRank; ++d) {
    s.dims[d] = p[2 + d];
    s.aStride[d] = p[8 + d];
    s.bStride[d] = p[14 + d];
  }
  return s;
}

template <kn::BinaryOp OP>
int binaryKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  kn::BinaryShape s = binaryShape(p);
  int64_t begin, end;
  split(s.units(), id, count, begin, end);
  kn::binaryF32(OP, s, static_cast<const float *>(bindings[0]),
                static_cast<const float *>(bindings[1]),
                static_cast<float *>(bindings[2]), kn::PostClamp(p[20]),
                kabi::paramFloat(p[21]), begin, end);
  return 0;
}

/// Checks the shape params and the operands' bindings.
bool checkBinaryParams(const std::vector<BufferInfo> &b, const int64_t *p,
                       std::string &error) {
  kn::BinaryShape s = binaryShape(p);
  int64_t aElems, bElems;
  std::string why = kn::checkBinaryShape(s, aElems, bElems);
  if (!why.empty()) {
    error = why;
    return false;
  }
  int64_t n;
  product({s.rows(), s.cols()}, n);
  if (n != p[0]) {
    error = "count is " + std::to_string(p[0]) + ", the dims hold " +
            std::to_string(n);
    return false;
  }
  for (int64_t d = s.rank; d < kn::kMaxBinaryRank; ++d)
    if (s.dims[d] || s.aStride[d] || s.bStride[d]) {
      error = "dim " + std::to_string(d) + " is past the rank and not 0";
      return false;
    }
  return needBytes(b, 0, aElems, 4, "a", error) &&
         needBytes(b, 1, bElems, 4, "b", error) &&
         needBytes(b, 2, n, 4, "out", error);
}

bool binaryCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  return checkBinaryParams(b, p.data(), error) &&
         checkClamp(p.data() + 20, error);
}

//===----------------------------------------------------------------------===//
// Softmax [rows, cols] and layer norm [rows, cols, has_scale, has_bias, eps]
//===----------------------------------------------------------------------===//

bool checkRows(const int64_t *p, int64_t &n, std::string &error) {
  if (p[0] < 0 || p[1] < 0 || !product({p[0], p[1], 4}, n)) {
    error = "rows x cols = " + std::to_string(p[0]) + " x " +
            std::to_string(p[1]) + " is negative or overflows";
    return false;
  }
  n /= 4;
  return true;
}

int softmaxKernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  int64_t begin, end;
  split(p[0], id, count, begin, end);
  kn::softmaxRows(static_cast<const float *>(bindings[0]),
                  static_cast<float *>(bindings[1]), p[1], begin, end);
  return 0;
}
bool softmaxCheck(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  int64_t n;
  return checkRows(p.data(), n, error) &&
         needBytes(b, 0, n, 4, "input", error) &&
         needBytes(b, 1, n, 4, "output", error);
}

int layerNormKernel(void *const *bindings, const int64_t *p, int64_t id,
                    int64_t count) {
  int64_t begin, end;
  split(p[0], id, count, begin, end);
  kn::layerNormRows(static_cast<const float *>(bindings[0]),
                    p[2] ? static_cast<const float *>(bindings[1]) : nullptr,
                    p[3] ? static_cast<const float *>(bindings[2]) : nullptr,
                    static_cast<float *>(bindings[3]), p[1],
                    kabi::paramFloat(p[4]), begin, end);
  return 0;
}
bool layerNormCheck(const std::vector<BufferInfo> &b,
                    const std::vector<int64_t> &p, std::string &error) {
  int64_t n;
  if (!checkRows(p.data(), n, error))
    return false;
  if (!isFlag(p[2]) || !isFlag(p[3])) {
    error = "has_scale and has_bias must be 0 or 1";
    return false;
  }
  float eps = kabi::paramFloat(p[4]);
  if (p[4] < 0 || p[4] > UINT32_MAX || !(eps >= 0.0f)) {
    error = "epsilon is not the bit pattern of an f32 >= 0";
    return false;
  }
  return needBytes(b, 0, n, 4, "input", error) &&
         (!p[2] || needBytes(b, 1, p[1], 4, "scale", error)) &&
         (!p[3] || needBytes(b, 2, p[1], 4, "bias", error)) &&
         needBytes(b, 3, n, 4, "output", error);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

kn::Pool2dShape poolShape(const int64_t *p) {
  kn::Pool2dShape s;
  s.n = p[0], s.c = p[1], s.h = p[2], s.w = p[3], s.oh = p[4], s.ow = p[5];
  s.kh = p[6], s.kw = p[7], s.sh = p[8], s.sw = p[9];
  s.pt = p[10], s.pl = p[11], s.pb = p[12], s.pr = p[13];
  s.dh = p[14], s.dw = p[15];
  return s;
}

bool poolCheck(const std::vector<BufferInfo> &b, const int64_t *p,
               const int64_t *clamp, std::string &error) {
  kn::Pool2dShape s = poolShape(p);
  std::string why = kn::checkPool2dShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  return checkClamp(clamp, error) &&
         needBytes(b, 0, s.n * s.c * s.h * s.w, 4, "input", error) &&
         needBytes(b, 1, s.n * s.c * s.oh * s.ow, 4, "output", error);
}

int maxPoolKernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  kn::Pool2dShape s = poolShape(p);
  int64_t begin, end;
  split(s.n * s.c, id, count, begin, end);
  return kn::maxPool2d(s, static_cast<const float *>(bindings[0]),
                       static_cast<float *>(bindings[1]), kn::PostClamp(p[16]),
                       kabi::paramFloat(p[17]), begin, end)
             ? 0
             : 1;
}
bool maxPoolCheck(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  return poolCheck(b, p.data(), p.data() + 16, error);
}

int avgPoolKernel(void *const *bindings, const int64_t *p, int64_t id,
                  int64_t count) {
  kn::Pool2dShape s = poolShape(p);
  int64_t begin, end;
  split(s.n * s.c, id, count, begin, end);
  return kn::avgPool2d(s, p[16] != 0, static_cast<const float *>(bindings[0]),
                       static_cast<float *>(bindings[1]), kn::PostClamp(p[17]),
                       kabi::paramFloat(p[18]), begin, end)
             ? 0
             : 1;
}
bool avgPoolCheck(const std::vector<BufferInfo> &b,
                  const std::vector<int64_t> &p, std::string &error) {
  if (!isFlag(p[16])) {
    error =
        "count_include_pad is " + std::to_string(p[16]) + ", must be 0 or 1";
    return false;
  }
  return poolCheck(b, p.data(), p.data() + 17, error);
}

int globalAvgPoolKernel(void *const *bindings, const int64_t *p, int64_t id,
                        int64_t count) {
  int64_t begin, end;
  split(p[0], id, count, begin, end);
  kn::globalAvgPool(static_cast<const float *>(bindings[0]),
                    static_cast<float *>(bindings[1]), p[1],
                    kn::PostClamp(p[2]), kabi::paramFloat(p[3]), begin, end);
  return 0;
}
bool globalAvgPoolCheck(const std::vector<BufferInfo> &b,
                        const std::vector<int64_t> &p, std::string &error) {
  int64_t n;
  return checkRows(p.data(), n, error) && checkClamp(p.data() + 2, error) &&
         needBytes(b, 0, n, 4, "input", error) &&
         needBytes(b, 1, p[0], 4, "output", error);
}

//===----------------------------------------------------------------------===//
// Transposed convolution: [geometry (18), has_bias, activation, p0, p1]
//===----------------------------------------------------------------------===//

int deconvKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  kn::Conv2dShape s = kabi::convShapeFromParams(kabi::kConvIm2col, p);
  int64_t begin, end;
  split(kn::deconv2dUnits(s, count), id, count, begin, end);
  kn::deconv2dGemm(s, static_cast<const float *>(bindings[0]),
                   static_cast<const float *>(bindings[1]),
                   p[18] ? static_cast<const float *>(bindings[2]) : nullptr,
                   kn::Activation(p[19]), kabi::paramFloat(p[20]),
                   kabi::paramFloat(p[21]), static_cast<float *>(bindings[3]),
                   count, begin, end);
  return 0;
}
bool deconvCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  kn::Conv2dShape s = kabi::convShapeFromParams(kabi::kConvIm2col, p.data());
  std::string why = kn::checkDeconv2dShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  if (!isFlag(p[18])) {
    error = "has_bias is " + std::to_string(p[18]) + ", must be 0 or 1";
    return false;
  }
  if (p[19] < 0 || p[19] >= kn::kActivationCount || p[20] < 0 ||
      p[20] > UINT32_MAX || p[21] < 0 || p[21] > UINT32_MAX) {
    error = "the activation or its params are out of range";
    return false;
  }
  return needBytes(b, 0, s.n * s.c * s.h * s.w, 4, "input", error) &&
         needBytes(b, 1, s.c * (s.o / s.g) * s.kh * s.kw, 4, "filter", error) &&
         (!p[18] || needBytes(b, 2, s.o, 4, "bias", error)) &&
         needBytes(b, 3, s.n * s.o * s.oh * s.ow, 4, "output", error);
}

//===----------------------------------------------------------------------===//
// Unary: [count]
//===----------------------------------------------------------------------===//

template <kn::UnaryOp OP>
int unaryKernel(void *const *bindings, const int64_t *p, int64_t id,
                int64_t count) {
  int64_t begin, end;
  split(p[0], id, count, begin, end);
  if (end > begin)
    kn::unaryF32(OP, static_cast<const float *>(bindings[0]) + begin,
                 static_cast<float *>(bindings[1]) + begin, end - begin);
  return 0;
}
bool unaryCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
                std::string &error) {
  if (p[0] < 0) {
    error = "count is " + std::to_string(p[0]) + ", must be >= 0";
    return false;
  }
  return needBytes(b, 0, p[0], 4, "in", error) &&
         needBytes(b, 1, p[0], 4, "out", error);
}

//===----------------------------------------------------------------------===//
// Resize: [planes, H, W, OH, OW, mode, coord, nearest, scale_h, scale_w]
//===----------------------------------------------------------------------===//

kn::ResizeShape resizeShape(const int64_t *p) {
  kn::ResizeShape s;
  s.planes = p[0], s.h = p[1], s.w = p[2], s.oh = p[3], s.ow = p[4];
  s.mode = kn::ResizeMode(p[5]);
  s.coord = kn::ResizeCoord(p[6]);
  s.nearest = kn::ResizeNearest(p[7]);
  s.scaleH = kabi::paramDouble(p[8]);
  s.scaleW = kabi::paramDouble(p[9]);
  return s;
}

int resizeKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  kn::ResizeShape s = resizeShape(p);
  int64_t begin, end;
  split(s.planes * s.oh, id, count, begin, end);
  kn::resize2d(s, static_cast<const float *>(bindings[0]),
               static_cast<float *>(bindings[1]), begin, end);
  return 0;
}
bool resizeCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  kn::ResizeShape s = resizeShape(p.data());
  std::string why = kn::checkResizeShape(s);
  if (!why.empty()) {
    error = why;
    return false;
  }
  return needBytes(b, 0, s.planes * s.h * s.w, 4, "input", error) &&
         needBytes(b, 1, s.planes * s.oh * s.ow, 4, "output", error);
}

//===----------------------------------------------------------------------===//
// Concat: [inputs, outer, inner[8]]
//===----------------------------------------------------------------------===//

/// Output elements per workgroup unit: enough to amortize the call.
constexpr int64_t kConcatChunk = 16384;

int concatKernel(void *const *bindings, const int64_t *p, int64_t id,
                 int64_t count) {
  const float *inputs[kabi::kConcatMaxInputs];
  int64_t row = 0;
  for (int64_t i = 0; i < p[0]; ++i) {
    inputs[i] = static_cast<const float *>(bindings[i]);
    row += p[2 + i];
  }
  int64_t total = p[1] * row, begin, end;
  split((total + kConcatChunk - 1) / kConcatChunk, id, count, begin, end);
  kn::concatF32(inputs, p + 2, p[0],
                static_cast<float *>(bindings[kabi::kConcatMaxInputs]),
                begin * kConcatChunk, std::min(total, end * kConcatChunk));
  return 0;
}
bool concatCheck(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  if (p[0] < 1 || p[0] > kabi::kConcatMaxInputs) {
    error = "inputs is " + std::to_string(p[0]) + ", must be in [1, " +
            std::to_string(kabi::kConcatMaxInputs) + "]";
    return false;
  }
  int64_t row = 0, total;
  for (int64_t i = 0; i < kabi::kConcatMaxInputs; ++i) {
    int64_t inner = p[2 + i], n;
    if (inner < 0 || (i >= p[0] && inner != 0)) {
      error = "inner[" + std::to_string(i) + "] is " + std::to_string(inner) +
              (inner < 0 ? ", must be >= 0" : ", past the inputs: must be 0");
      return false;
    }
    if (!product({p[1], inner, 4}, n) ||
        __builtin_add_overflow(row, inner, &row)) {
      error = "outer x inner overflows";
      return false;
    }
    if (i < p[0] && !needBytes(b, size_t(i), p[1] * inner, 4, "input", error))
      return false;
  }
  if (!product({p[1], row, 4}, total)) {
    error = "outer x inner overflows";
    return false;
  }
  return needBytes(b, kabi::kConcatMaxInputs, total / 4, 4, "output", error);
}

const CpuKernel kOpKernels[] = {
    {kabi::kBinaryKernels[0], 3, kabi::kBinaryParams, 0b100, binaryCheck,
     binaryKernel<kn::BinaryOp::Add>},
    {kabi::kBinaryKernels[1], 3, kabi::kBinaryParams, 0b100, binaryCheck,
     binaryKernel<kn::BinaryOp::Sub>},
    {kabi::kBinaryKernels[2], 3, kabi::kBinaryParams, 0b100, binaryCheck,
     binaryKernel<kn::BinaryOp::Mul>},
    {kabi::kBinaryKernels[3], 3, kabi::kBinaryParams, 0b100, binaryCheck,
     binaryKernel<kn::BinaryOp::Div>},
    {kabi::kBinaryKernels[4], 3, kabi::kBinaryParams, 0b100, binaryCheck,
     binaryKernel<kn::BinaryOp::Max>},
    {kabi::kBinaryKernels[5], 3, kabi::kBinaryParams, 0b100, binaryCheck,
     binaryKernel<kn::BinaryOp::Min>},
    {kabi::kSoftmax, 2, kabi::kSoftmaxParams, 0b10, softmaxCheck,
     softmaxKernel},
    {kabi::kLayerNorm, 4, kabi::kLayerNormParams, 0b1000, layerNormCheck,
     layerNormKernel},
    {kabi::kMaxPool, 2, kabi::kMaxPoolParams, 0b10, maxPoolCheck,
     maxPoolKernel},
    {kabi::kAvgPool, 2, kabi::kAvgPoolParams, 0b10, avgPoolCheck,
     avgPoolKernel},
    {kabi::kGlobalAvgPool, 2, kabi::kGlobalAvgPoolParams, 0b10,
     globalAvgPoolCheck, globalAvgPoolKernel},
    {kabi::kDeconv, 4, kabi::kDeconvParams, 0b1000, deconvCheck, deconvKernel},
    {kabi::kUnaryKernels[0], 2, kabi::kUnaryParams, 0b10, unaryCheck,
     unaryKernel<kn::UnaryOp::Relu>},
    {kabi::kUnaryKernels[1], 2, kabi::kUnaryParams, 0b10, unaryCheck,
     unaryKernel<kn::UnaryOp::Sigmoid>},
    {kabi::kUnaryKernels[2], 2, kabi::kUnaryParams, 0b10, unaryCheck,
     unaryKernel<kn::UnaryOp::Tanh>},
    {kabi::kUnaryKernels[3], 2, kabi::kUnaryParams, 0b10, unaryCheck,
     unaryKernel<kn::UnaryOp::Exp>},
    {kabi::kUnaryKernels[4], 2, kabi::kUnaryParams, 0b10, unaryCheck,
     unaryKernel<kn::UnaryOp::SiLU>},
    {kabi::kUnaryKernels[5], 2, kabi::kUnaryParams, 0b10, unaryCheck,
     unaryKernel<kn::UnaryOp::Gelu>},
    {kabi::kResize2d, 2, kabi::kResize2dParams, 0b10, resizeCheck,
     resizeKernel},
    {kabi::kConcat, kabi::kConcatMaxInputs + 1, kabi::kConcatParams,
     1u << kabi::kConcatMaxInputs, concatCheck, concatKernel},
};

} // namespace

CpuKernelList opKernels() {
  return {kOpKernels, sizeof(kOpKernels) / sizeof(kOpKernels[0])};
}

} // namespace strata::runtime::hal
