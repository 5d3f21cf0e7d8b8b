//===- Microkernels.h - the register-blocked GEMM microkernels -*- C++ -*-===//
//
// Internal to the kernel library. A microkernel multiplies one A micro-panel
// (mr <= MR rows, k-major with stride kPanelRows) by one B micro-panel
// (nr <= NR columns: NR / 16 panels of k-major 16-float rows, `bPanelStride`
// floats apart) over `kc` steps, adds C when `accumulate`, applies `ep`
// (after the last K block) and stores the mr x nr tile. `pf`, when not
// null, names memory a kernel may prefetch into L2 while it computes (the
// next micro-panel of A or B). Each ISA's kernel is
// compiled in its own file with that ISA's flags; nothing else in the
// library is, so it runs on any x86-64 CPU.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_MICROKERNELS_H
#define STRATA_LIB_KERNELS_MICROKERNELS_H

#include <cstdint>

namespace strata::kernels::detail {

/// The epilogue of one tile, its pointers moved to the tile's origin. Only
/// the activations fused in registers (activationInRegisters) appear here.
struct TileEpilogue {
  const float *rowBias = nullptr; ///< mr floats
  const float *colBias = nullptr; ///< nr floats
  const float *residual = nullptr;
  int64_t ldr = 0;
  int64_t act = 0; ///< Activation
  float p0 = 0.0f, p1 = 0.0f;
};

/// A stream to prefetch, one step per k: at step k, the floats at
/// p + k * stride and p + k * stride + second.
struct TilePrefetch {
  const float *p = nullptr;
  int64_t stride = 0, second = 0;
};

using Microkernel = void (*)(int64_t kc, const float *a, const float *b,
                             int64_t bPanelStride, float *c, int64_t ldc,
                             int64_t mr, int64_t nr, bool accumulate,
                             const TileEpilogue *ep, const TilePrefetch *pf);

struct MicrokernelInfo {
  int64_t mr, nr;
  Microkernel fn;
  /// The same product with B read in place instead of from packed panels
  /// (null when the ISA has none): its `bPanelStride` argument is B's
  /// leading dimension, row k of the tile starting at b + k * ldb; only
  /// the tile's nr columns are read.
  Microkernel directFn = nullptr;
};

MicrokernelInfo portableMicrokernel();
MicrokernelInfo avx2Microkernel();
MicrokernelInfo avx512Microkernel();

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_MICROKERNELS_H
