//===- Isa.cpp - CPU feature detection and the STRATA_CPU_ISA override ----===//

#include "strata/Kernels/Isa.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace strata::kernels {

bool isaSupported(Isa isa) {
  switch (isa) {
  case Isa::Portable:
    return true;
#if defined(__x86_64__)
  case Isa::Avx2:
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  case Isa::Avx512:
    return __builtin_cpu_supports("avx512f") && isaSupported(Isa::Avx2);
#else
  default:
    return false;
#endif
  }
  return false;
}

Isa detectIsa() {
  if (isaSupported(Isa::Avx512))
    return Isa::Avx512;
  if (isaSupported(Isa::Avx2))
    return Isa::Avx2;
  return Isa::Portable;
}

const char *isaName(Isa isa) {
  switch (isa) {
  case Isa::Portable:
    return "portable";
  case Isa::Avx2:
    return "avx2";
  case Isa::Avx512:
    return "avx512";
  }
  return "?";
}

static Isa readActiveIsa() {
  Isa best = detectIsa();
  const char *env = std::getenv("STRATA_CPU_ISA");
  if (!env || !*env)
    return best;
  for (Isa isa : {Isa::Portable, Isa::Avx2, Isa::Avx512})
    if (std::strcmp(env, isaName(isa)) == 0) {
      if (isaSupported(isa))
        return isa;
      std::fprintf(stderr,
                   "strata: STRATA_CPU_ISA=%s: this CPU does not run it; "
                   "using %s\n",
                   env, isaName(best));
      return best;
    }
  std::fprintf(stderr,
               "strata: STRATA_CPU_ISA=%s is not one of portable, avx2, "
               "avx512; using %s\n",
               env, isaName(best));
  return best;
}

Isa activeIsa() {
  static const Isa isa = readActiveIsa();
  return isa;
}

} // namespace strata::kernels
