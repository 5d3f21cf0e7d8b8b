//===- CpuKernels.h - Built-in reference kernels of the cpu driver -*- C++ -*-//
//
// A registry name -> kernel with the native dispatch ABI. Each kernel says
// how many bindings and params it takes and checks, when a dispatch is
// prepared, that its bindings are large enough for its params, so a verified
// artifact cannot make a kernel read or write out of bounds. These are
// reference kernels for tests and simple models; the fast f32 matmul and
// convolution kernels (lib/Kernels) are in CpuGemmKernels.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_RUNTIME_CPUKERNELS_H
#define STRATA_LIB_RUNTIME_CPUKERNELS_H

#include "strata/Runtime/HAL.h"

#include <memory>
#include <string>
#include <string_view>

namespace strata::runtime::hal {

/// A CpuKernel::paramCount for a kernel whose param count depends on its
/// params (its check function checks it).
inline constexpr size_t kAnyParamCount = ~size_t(0);

struct CpuKernel {
  const char *name;
  size_t bindingCount;
  size_t paramCount; ///< or kAnyParamCount
  /// Which bindings the kernel writes (bit i: binding i).
  unsigned writes;
  /// Checks bindings against params; false with `error` set.
  bool (*check)(const std::vector<BufferInfo> &bindings,
                const std::vector<int64_t> &params, std::string &error);
  DispatchFn fn;
};

/// The f32 GEMM and convolution kernels of lib/Kernels (CpuGemmKernels.cpp).
struct CpuKernelList {
  const CpuKernel *first;
  size_t count;
  const CpuKernel *begin() const { return first; }
  const CpuKernel *end() const { return first + count; }
};
CpuKernelList gemmKernels();
/// The int8 matmul and convolution kernels (CpuInt8Kernels.cpp).
CpuKernelList int8Kernels();
/// The bf16 matmul kernel (CpuBf16Kernels.cpp).
CpuKernelList bf16Kernels();
/// Elementwise, pooling, softmax and layer-norm kernels (CpuOpKernels.cpp).
CpuKernelList opKernels();
/// The kernels of the ops whose result shape is decided at run time
/// (CpuShapeKernels.cpp).
CpuKernelList shapeKernels();
/// What kernel `kernel`'s non-zero return `code` means, or "".
std::string cpuKernelErrorText(std::string_view kernel, int code);

/// [begin, end) of workgroup `id` of `count` over `n` items.
void split(int64_t n, int64_t id, int64_t count, int64_t &begin, int64_t &end);
/// Whether binding `i` holds `count` elements of `elemSize` bytes; false
/// with `error` naming the binding (`what`) otherwise.
bool needBytes(const std::vector<BufferInfo> &b, size_t i, int64_t count,
               uint64_t elemSize, const char *what, std::string &error);

/// Prepares a oneDNN-backed kernel (kabi::isOneDnnKernel names;
/// CpuOneDnnKernels.cpp): its primitives are created here, once. Null with
/// `error` set when the runtime was built without oneDNN or the dispatch is
/// invalid.
std::unique_ptr<Function> prepareOneDnnKernel(const DispatchRequest &request,
                                              std::string &error);
/// Whether this runtime runs the oneDNN kernels.
bool runtimeHasOneDnn();

/// The kernel named `name`, or null.
const CpuKernel *findCpuKernel(std::string_view name);
/// Every kernel's name, comma-separated (for error messages).
std::string cpuKernelNames();

} // namespace strata::runtime::hal

#endif // STRATA_LIB_RUNTIME_CPUKERNELS_H
