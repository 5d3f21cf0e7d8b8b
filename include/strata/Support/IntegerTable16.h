//===- IntegerTable16.h - the int16 -> int8 interpolated table --*- C++ -*-===//
//
// The one definition of an activation table on int16 inputs
// (`--table-input int16`, top.Table16): the reference interpreter, the CPU
// kernel (strata/Kernels/Table16.h) and the NPU simulator call these
// functions or match them bit for bit (tested). Header-only and free of
// MLIR/LLVM.
//
// The lookup is TOSA's int16 TABLE (513 int16 entries; the input's top 9
// bits, after adding 32768, index an entry, its low 7 bits interpolate
// linearly to the next one; the result an int32 with 7 fractional bits),
// followed by Strata's rounding right shift by 14 (round half away from
// zero, as `MultiplierShift` in IntegerRequant.h) and saturation to the
// int8 output's range. The entries are the activation's output directly in
// the output's quantization with 7 fractional bits, zero point included:
// `entry[i] = clamp(round_half_to_even(128 * (f(x_i) / s_out + zp_out)),
// 128 * qmin, 128 * qmax)` with `x_i = (i * 128 - 32768 - zp_in) * s_in`,
// so a lookup needs no multiplier. docs/quantization.md ("Int16 table
// inputs") states the same for users and for the NPU.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_INTEGERTABLE16_H
#define STRATA_SUPPORT_INTEGERTABLE16_H

#include "strata/Support/IntegerRequant.h"

#include <algorithm>
#include <cstdint>

namespace strata::intq {

/// Entries of an int16-input table: one per 128 input steps, both ends.
inline constexpr int64_t kTable16Entries = 513;
/// Fractional bits of an entry (the output step is 2^7 entry units).
inline constexpr int64_t kTable16EntryFractionBits = 7;
/// Fractional bits of the interpolated result (the entries' 7 and the
/// interpolation's 7): the final rounding right shift.
inline constexpr int64_t kTable16ResultShift = 14;

/// The int16 storage value entry `i` (in [0, 512]) stands for: `i * 128 -
/// 32768` (entry 512 for 32768, one past int16's range: only its
/// interpolation weight is ever used).
inline int64_t table16EntryInput(int64_t i) { return i * 128 - 32768; }

/// TOSA's int16 TABLE on one input: `u = x + 32768`, `index = u >> 7` (in
/// [0, 511]), `fraction = u & 127`, `base = table[index]`, `next =
/// table[index + 1]`, result `base * 128 + (next - base) * fraction` (an
/// int32 with 7 fractional bits; exact: |result| < 2^23).
inline int32_t table16Interpolate(const int16_t *table, int16_t x) {
  int32_t u = int32_t(x) + 32768;
  int32_t index = u >> 7, fraction = u & 127;
  int32_t base = table[index], next = table[index + 1];
  return base * 128 + (next - base) * fraction;
}

/// The int16 -> int8 table lookup: table16Interpolate, then `round half
/// away from zero (v / 2^14)`, saturated to [qmin, qmax] (the output's
/// storage range; the zero point is inside the entries).
inline int8_t table16Lookup(const int16_t *table, int16_t x, int64_t qmin,
                            int64_t qmax) {
  int64_t v = static_cast<int64_t>(
      roundingRightShift(table16Interpolate(table, x), kTable16ResultShift));
  return static_cast<int8_t>(std::clamp(v, qmin, qmax));
}

/// One entry from the activation's real output `y` at the entry's input:
/// `round_half_to_even(128 * (y / outScale + outZp))` saturated to
/// [128 * qmin, 128 * qmax] (NaN gives 128 * outZp, clamped).
inline int16_t table16Entry(double y, double outScale, int64_t outZp,
                            int64_t qmin, int64_t qmax) {
  const int64_t one = int64_t(1) << kTable16EntryFractionBits;
  return static_cast<int16_t>(quantizeScaled(
      y / outScale * double(one), outZp * one, qmin * one, qmax * one));
}

} // namespace strata::intq

#endif // STRATA_SUPPORT_INTEGERTABLE16_H
