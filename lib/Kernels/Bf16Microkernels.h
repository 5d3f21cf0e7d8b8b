//===- Bf16Microkernels.h - the bf16 GEMM microkernels ---------*- C++ -*-===//
//
// Internal to the kernel library. A microkernel multiplies one A
// micro-panel (mr <= MR rows; K groups of 2 x 12 bf16) by one B micro-panel
// (nr <= NR columns: NR / 16 panels `bPanelStride` elements apart, K groups
// of 2 x 16 bf16) over `groups` K groups and writes (or, with
// `accumulate`, adds to) the f32 tile `c` (row stride ldc).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_BF16MICROKERNELS_H
#define STRATA_LIB_KERNELS_BF16MICROKERNELS_H

#include <cstdint>

namespace strata::kernels::detail {

using Bf16Microkernel = void (*)(int64_t groups, const uint16_t *a,
                                 const uint16_t *b, int64_t bPanelStride,
                                 float *c, int64_t ldc, int64_t mr, int64_t nr,
                                 bool accumulate);

struct Bf16MicrokernelInfo {
  int64_t mr, nr;
  Bf16Microkernel fn;
};

Bf16MicrokernelInfo bf16Avx512Microkernel();

} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_BF16MICROKERNELS_H
