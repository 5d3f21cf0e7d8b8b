//===- Isa.h - which instruction set the kernels use ------------*- C++ -*-===//

#ifndef STRATA_KERNELS_ISA_H
#define STRATA_KERNELS_ISA_H

namespace strata::kernels {

/// The kernel paths, from the most portable.
enum class Isa { Portable = 0, Avx2 = 1, Avx512 = 2 };

/// Whether this CPU runs `isa`'s kernels (AVX2 needs FMA too; AVX-512 is
/// AVX-512F).
bool isaSupported(Isa isa);
/// The best path this CPU runs.
Isa detectIsa();
/// The path the kernels use: detectIsa(), or STRATA_CPU_ISA
/// (`portable`, `avx2`, `avx512`) when it is set and the CPU runs it.
/// Read once.
Isa activeIsa();
const char *isaName(Isa isa);

} // namespace strata::kernels

#endif // STRATA_KERNELS_ISA_H
