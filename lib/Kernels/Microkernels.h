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

#include "strata/Kernels/Gemm.h"

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

/// One 16-column panel of an implicit B (never materialized): row k's
/// lanes in `loLanes` at lo + off[k] + lane, those in `hiLanes` at
/// hi + off[k] + lane (a panel that crosses an output row: hi is the next
/// row's start minus the lanes before it), the others zero.
struct GatherPanel {
  const float *lo, *hi;
  uint32_t loLanes, hiLanes;
};

/// The implicit-GEMM tile: panels[0] for its first 16 columns, panels[1]
/// for the next 16 when nr > 16.
using GatherMicrokernel = void (*)(int64_t kc, const float *a,
                                   const GatherPanel *panels,
                                   const int64_t *off, float *c, int64_t ldc,
                                   int64_t mr, int64_t nr, bool accumulate,
                                   const TileEpilogue *ep,
                                   const TilePrefetch *pf);

struct MicrokernelInfo {
  int64_t mr, nr;
  Microkernel fn;
  /// The same product with B read in place instead of from packed panels
  /// (null when the ISA has none): its `bPanelStride` argument is B's
  /// leading dimension, row k of the tile starting at b + k * ldb; only
  /// the tile's nr columns are read.
  Microkernel directFn = nullptr;
  /// The implicit-GEMM form (null when the ISA has none).
  GatherMicrokernel gatherFn = nullptr;
};

/// The columns of an implicit B: column j starts at
/// base + (j / width - firstRow) * rowStep + j % width, row k `off[k]`
/// floats further (firstRow: the first output row `base` holds, so a
/// workgroup's copy can start there). A 16-column panel starting at a
/// multiple of 16 spans at most two rows (width + gcd(16, width) >= 16).
struct ImplicitB {
  const float *base;
  const int64_t *off;
  int64_t width, rowStep;
  int64_t firstRow = 0;
};

/// Whether `isa` has a gather microkernel (gemmImplicitB runs).
bool implicitBAvailable(Isa isa);

/// gemm() with B given as an ImplicitB instead of p.b; false when the ISA
/// has no gather microkernel (nothing is computed then). colBegin is a
/// multiple of 16.
bool gemmImplicitB(const GemmProblem &p, const ImplicitB &b, int64_t rowBegin,
                   int64_t rowEnd, int64_t colBegin, int64_t colEnd, Isa isa);

MicrokernelInfo portableMicrokernel();
MicrokernelInfo avx2Microkernel();
MicrokernelInfo avx512Microkernel();

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_MICROKERNELS_H
