//===- CpuKernels.cpp - Built-in reference kernels of the cpu driver ------===//
//
// copy:       bindings (src, dst), params (bytes). Workgroups split the bytes.
// add_f32:    bindings (a, b, out), params (n). out[i] = a[i] + b[i].
// matmul_f32: bindings (A [M,K], B [K,N], C [M,N]), params (M, N, K), row
//             major. Workgroups split the rows of C.
// The fast f32 matmul and convolution kernels are in CpuGemmKernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

#include <cstring>

namespace strata::runtime::hal {

/// [begin, end) of workgroup `id` of `count` over `n` items.
void split(int64_t n, int64_t id, int64_t count, int64_t &begin, int64_t &end) {
  int64_t chunk = n / count, rest = n % count;
  begin = id * chunk + (id < rest ? id : rest);
  end = begin + chunk + (id < rest ? 1 : 0);
}

bool needBytes(const std::vector<BufferInfo> &b, size_t i, int64_t count,
               uint64_t elemSize, const char *what, std::string &error) {
  uint64_t bytes;
  if (count < 0 || __builtin_mul_overflow(uint64_t(count), elemSize, &bytes) ||
      b[i].size < bytes) {
    error = std::string("binding ") + std::to_string(i) + " (" + what +
            ") has " + std::to_string(b[i].size) + " bytes, the params need " +
            (count < 0 ? std::string("a negative count")
                       : std::to_string(uint64_t(count)) + " x " +
                             std::to_string(elemSize));
    return false;
  }
  return true;
}

namespace {
int copyKernel(void *const *bindings, const int64_t *params, int64_t id,
               int64_t count) {
  int64_t begin, end;
  split(params[0], id, count, begin, end);
  if (end > begin)
    std::memcpy(static_cast<char *>(bindings[1]) + begin,
                static_cast<const char *>(bindings[0]) + begin,
                size_t(end - begin));
  return 0;
}
bool copyCheck(const std::vector<BufferInfo> &b, const std::vector<int64_t> &p,
               std::string &error) {
  return needBytes(b, 0, p[0], 1, "src", error) &&
         needBytes(b, 1, p[0], 1, "dst", error);
}

int addF32Kernel(void *const *bindings, const int64_t *params, int64_t id,
                 int64_t count) {
  const float *a = static_cast<const float *>(bindings[0]);
  const float *b = static_cast<const float *>(bindings[1]);
  float *out = static_cast<float *>(bindings[2]);
  int64_t begin, end;
  split(params[0], id, count, begin, end);
  for (int64_t i = begin; i < end; ++i)
    out[i] = a[i] + b[i];
  return 0;
}
bool addF32Check(const std::vector<BufferInfo> &b,
                 const std::vector<int64_t> &p, std::string &error) {
  return needBytes(b, 0, p[0], 4, "a", error) &&
         needBytes(b, 1, p[0], 4, "b", error) &&
         needBytes(b, 2, p[0], 4, "out", error);
}

int matmulF32Kernel(void *const *bindings, const int64_t *params, int64_t id,
                    int64_t count) {
  const float *a = static_cast<const float *>(bindings[0]);
  const float *b = static_cast<const float *>(bindings[1]);
  float *c = static_cast<float *>(bindings[2]);
  int64_t m = params[0], n = params[1], k = params[2];
  int64_t begin, end;
  split(m, id, count, begin, end);
  for (int64_t i = begin; i < end; ++i) {
    float *row = c + i * n;
    for (int64_t j = 0; j < n; ++j)
      row[j] = 0.0f;
    for (int64_t p = 0; p < k; ++p) {
      float av = a[i * k + p];
      const float *brow = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += av * brow[j];
    }
  }
  return 0;
}
bool matmulF32Check(const std::vector<BufferInfo> &b,
                    const std::vector<int64_t> &p, std::string &error) {
  int64_t mk, kn, mn;
  if (p[0] < 0 || p[1] < 0 || p[2] < 0 ||
      __builtin_mul_overflow(p[0], p[2], &mk) ||
      __builtin_mul_overflow(p[2], p[1], &kn) ||
      __builtin_mul_overflow(p[0], p[1], &mn)) {
    error = "params M, N, K must be non-negative and their products fit";
    return false;
  }
  return needBytes(b, 0, mk, 4, "A", error) &&
         needBytes(b, 1, kn, 4, "B", error) &&
         needBytes(b, 2, mn, 4, "C", error);
}

const CpuKernel kKernels[] = {
    {"copy", 2, 1, 0b10, copyCheck, copyKernel},
    {"add_f32", 3, 1, 0b100, addF32Check, addF32Kernel},
    {"matmul_f32", 3, 3, 0b100, matmulF32Check, matmulF32Kernel},
};
} // namespace

const CpuKernel *findCpuKernel(std::string_view name) {
  for (const CpuKernel &k : kKernels)
    if (name == k.name)
      return &k;
  for (const CpuKernel &k : gemmKernels())
    if (name == k.name)
      return &k;
  for (const CpuKernel &k : int8Kernels())
    if (name == k.name)
      return &k;
  for (const CpuKernel &k : bf16Kernels())
    if (name == k.name)
      return &k;
  for (const CpuKernel &k : opKernels())
    if (name == k.name)
      return &k;
  for (const CpuKernel &k : shapeKernels())
    if (name == k.name)
      return &k;
  return nullptr;
}

std::string cpuKernelNames() {
  std::string names;
  for (const CpuKernel &k : kKernels)
    names += (names.empty() ? "" : ", ") + std::string(k.name);
  for (const CpuKernel &k : gemmKernels())
    names += ", " + std::string(k.name);
  for (const CpuKernel &k : int8Kernels())
    names += ", " + std::string(k.name);
  for (const CpuKernel &k : bf16Kernels())
    names += ", " + std::string(k.name);
  for (const CpuKernel &k : opKernels())
    names += ", " + std::string(k.name);
  if (runtimeHasOneDnn()) // prepared by prepareOneDnnKernel, not the table
    names += ", onednn_conv2d_f32, onednn_matmul_f32";
  for (const CpuKernel &k : shapeKernels())
    names += ", " + std::string(k.name);
  return names;
}

} // namespace strata::runtime::hal
