//===- Avx512Tiles.h - the 12 x 32 tile shapes of AVX-512 kernels -*- C++
//-*-===//
//
// Internal to the kernel library, included only by files compiled with
// AVX-512 flags (the int8 and bf16 microkernels). Internal linkage: each
// file gets its own copy, compiled with its own flags.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_KERNELS_AVX512TILES_H
#define STRATA_LIB_KERNELS_AVX512TILES_H

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

namespace strata::kernels::detail {
namespace {

/// The mask of the first `n` (clamped to [0, 16]) of 16 lanes.
inline __mmask16 tailMask(int64_t n) {
  return n >= 16  ? __mmask16(0xffff)
         : n <= 0 ? __mmask16(0)
                  : __mmask16((1u << n) - 1);
}

/// Calls fn(NV, ROWS) (std::integral_constant) with the register tile
/// covering an mr x nr micro-tile: NV vectors of 16 columns (2 when nr >
/// 16), ROWS rows (12, 8 or 4; a last tile of 4 or 8 rows of a 12-row panel
/// wastes no work).
template <typename Fn>
inline void withTileShape(int64_t mr, int64_t nr, Fn fn) {
  auto rows = [&](auto nv) {
    if (mr > 8)
      fn(nv, std::integral_constant<int, 12>());
    else if (mr > 4)
      fn(nv, std::integral_constant<int, 8>());
    else
      fn(nv, std::integral_constant<int, 4>());
  };
  if (nr > 16)
    rows(std::integral_constant<int, 2>());
  else
    rows(std::integral_constant<int, 1>());
}

} // namespace
} // namespace strata::kernels::detail

#endif // STRATA_LIB_KERNELS_AVX512TILES_H
