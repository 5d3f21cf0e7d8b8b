//===- Table16.h - int16 -> int8 interpolated table lookup ------*- C++ -*-===//
//
// The CPU kernel of a fused activation on an int16 pre-activation
// (top.Table16; docs/quantization.md, "Int16 table inputs"): each element
// through strata::intq::table16Lookup (strata/Support/IntegerTable16.h),
// optionally after requantizing an int32 accumulator to int16 with
// strata::intq::requantMultiplierShift (the top.Requant before the table),
// so an int8 conv's int32 result goes through without an int16 buffer.
// AVX-512 and AVX2: one 32-bit gather per element reads an entry and the
// next (the table is int16, the gather's offset 2 * index); portable: a
// scalar loop (the reference of the vector paths' tests).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_TABLE16_H
#define STRATA_KERNELS_TABLE16_H

#include "strata/Kernels/Isa.h"

#include <cstdint>

namespace strata::kernels {

/// What a table16 call reads and how.
struct Table16Args {
  /// The 513 entries (intq::kTable16Entries; a gather at index <= 511
  /// reads entries index and index + 1, never past entry 512).
  const int16_t *table = nullptr;
  int64_t qmin = -128, qmax = 127;
  /// An int32 input: requantized to int16 first, channel c = (i / inner) %
  /// channels with multiplier[c], shift[c] (MultiplierShift) and zeroPoint.
  bool int32Input = false;
  int64_t channels = 1, inner = 1;
  const int64_t *multiplier = nullptr, *shift = nullptr;
  int64_t zeroPoint = 0;
};

/// out[i] for i in [first, last): `in` is int16 or (int32Input) int32,
/// both indexed from element 0.
void table16(const void *in, int8_t *out, int64_t first, int64_t last,
             const Table16Args &args);

/// table16 on `isa`'s path (AVX-512 needs AVX-512 BW and VL too; a path
/// this CPU does not run falls back to the next one down): the tests run
/// every path in one process.
void table16OnIsa(const void *in, int8_t *out, int64_t first, int64_t last,
                  const Table16Args &args, Isa isa);

/// The same, one element at a time with the Support header's functions.
void table16Portable(const void *in, int8_t *out, int64_t first, int64_t last,
                     const Table16Args &args);

} // namespace strata::kernels

#endif // STRATA_KERNELS_TABLE16_H
