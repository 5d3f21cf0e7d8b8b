//===- IntegerRequant.h - the integer rounding rules of quantized ops -*- C++
//-*-===//
//
// The one definition of the integer arithmetic that quantized ops use to
// rescale an accumulator: the reference interpreter (top.Requant), the CPU
// int8 kernels and the NPU simulator all call these functions, so their
// results agree bit for bit. Header-only and free of MLIR/LLVM, so the
// runtime and the kernels can include it.
//
// The rules are documented for users in docs/quantization.md and, per mode,
// in the description of top.Requant (TopQuantOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_INTEGERREQUANT_H
#define STRATA_SUPPORT_INTEGERREQUANT_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <utility>

namespace strata::intq {

/// Rounds to the nearest integer, ties to even, independent of the current
/// floating-point rounding mode.
inline double roundHalfToEven(double v) {
  double r = std::round(v); // ties away from zero
  if (std::fabs(v - std::trunc(v)) == 0.5)
    r = 2.0 * std::round(v / 2.0);
  return r;
}

/// The quantization of one real value already divided by its scale (the
/// rule of top.Quant): `round_half_to_even(v) + zp` clamped to [qmin, qmax];
/// NaN gives `zp` (clamped).
inline int64_t quantizeScaled(double v, int64_t zp, int64_t qmin,
                              int64_t qmax) {
  if (std::isnan(v))
    return std::clamp(zp, qmin, qmax);
  double q = roundHalfToEven(v) + static_cast<double>(zp);
  q = std::clamp(q, static_cast<double>(qmin), static_cast<double>(qmax));
  return static_cast<int64_t>(q);
}

/// `round_half_away_from_zero(x / 2^shift)` on a 128-bit value, for shifts
/// in [0, 126]. This is Strata's own requantization rounding
/// (`MultiplierShift`): `y = roundingRightShift(x * multiplier, shift)`.
inline __int128 roundingRightShift(__int128 x, int64_t shift) {
  if (shift <= 0)
    return x;
  __int128 half = static_cast<__int128>(1) << (shift - 1);
  return x >= 0 ? (x + half) >> shift : -((-x + half) >> shift);
}

/// `round_half_away_from_zero(x * multiplier / 2^shift)` with the product
/// exact, then saturated to [qmin, qmax] after adding `zeroPoint`: the whole
/// `MultiplierShift` requantization of one accumulator.
inline int64_t requantMultiplierShift(int64_t x, int64_t multiplier,
                                      int64_t shift, int64_t zeroPoint,
                                      int64_t qmin, int64_t qmax) {
  __int128 y =
      roundingRightShift(static_cast<__int128>(x) * multiplier, shift) +
      zeroPoint;
  return static_cast<int64_t>(std::clamp<__int128>(y, qmin, qmax));
}

/// gemmlowp's SaturatingRoundingDoublingHighMul (TFLite requantization).
inline int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  int64_t nudge = ab >= 0 ? (int64_t(1) << 30) : (1 - (int64_t(1) << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t(1) << 31));
}

/// gemmlowp's RoundingDivideByPOT (ties away from zero), for exponents in
/// [0, 63].
inline int64_t roundingDivideByPOT(int64_t x, int64_t exponent) {
  if (exponent <= 0)
    return x;
  uint64_t mask =
      (exponent >= 64) ? ~uint64_t(0) : ((uint64_t(1) << exponent) - 1);
  uint64_t remainder = static_cast<uint64_t>(x) & mask;
  uint64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/// The `TFLite` requantization of one accumulator: `x` saturated to int32,
/// multiplied by the Q0.31 `multiplier`, divided by `2^shift`, plus
/// `zeroPoint`, saturated to [qmin, qmax].
inline int64_t requantTFLite(int64_t x, int64_t multiplier, int64_t shift,
                             int64_t zeroPoint, int64_t qmin, int64_t qmax) {
  int64_t x32 = std::clamp<int64_t>(x, std::numeric_limits<int32_t>::min(),
                                    std::numeric_limits<int32_t>::max());
  int64_t y = roundingDivideByPOT(saturatingRoundingDoublingHighMul(
                                      static_cast<int32_t>(x32),
                                      static_cast<int32_t>(multiplier)),
                                  shift) +
              zeroPoint;
  return std::clamp(y, qmin, qmax);
}

/// `round(x / 2^exponent)` with ties toward +infinity: `(x + 2^(e-1)) >>
/// e` (arithmetic, the sum in 128 bits), for exponents in [0, 63].
/// The rounding right shift of ARM's SRSHL and of ruy's kernels.
inline int64_t roundingShiftHalfUp(int64_t x, int64_t exponent) {
  if (exponent <= 0)
    return x;
  return static_cast<int64_t>((static_cast<__int128>(x) +
                               (static_cast<__int128>(1) << (exponent - 1))) >>
                              exponent);
}

/// The `TFLiteHalfUp` requantization of one accumulator, what the TFLite
/// interpreter's (ai-edge-litert 2.x, x86) CONV_2D and FULLY_CONNECTED
/// compute: as `requantTFLite` (x saturated to int32,
/// SaturatingRoundingDoublingHighMul by the Q0.31 `multiplier`) but the
/// division by `2^shift` rounds ties toward +infinity instead of away from
/// zero; plus `zeroPoint`, saturated to [qmin, qmax].
inline int64_t requantTFLiteHalfUp(int64_t x, int64_t multiplier, int64_t shift,
                                   int64_t zeroPoint, int64_t qmin,
                                   int64_t qmax) {
  int64_t x32 = std::clamp<int64_t>(x, std::numeric_limits<int32_t>::min(),
                                    std::numeric_limits<int32_t>::max());
  int64_t y = roundingShiftHalfUp(saturatingRoundingDoublingHighMul(
                                      static_cast<int32_t>(x32),
                                      static_cast<int32_t>(multiplier)),
                                  shift) +
              zeroPoint;
  return std::clamp(y, qmin, qmax);
}

/// TOSA's `apply_scale_32` / `apply_scale_16` (the TOSA 1.0 specification,
/// as MLIR 22's `tosa.rescale` defines it) on an exact 128-bit product:
/// `floor((x * multiplier + round) / 2^shift)` with `round = 2^(shift - 1)`
/// (0 for shift 0), i.e. round half up (`SINGLE_ROUND`). With `doubleRound`
/// and `shift > 31`, `round` is further `+ 2^30` for `x >= 0` and `- 2^30`
/// for `x < 0` (`DOUBLE_ROUND`: the rounding of a first shift by 31 folded
/// in). For shifts in [0, 63].
inline __int128 applyScaleTosa(int64_t x, int64_t multiplier, int64_t shift,
                               bool doubleRound) {
  __int128 round = shift > 0 ? static_cast<__int128>(1) << (shift - 1) : 0;
  if (doubleRound && shift > 31)
    round += x >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  __int128 v = static_cast<__int128>(x) * multiplier + round;
  // >> on a signed 128-bit value is an arithmetic shift: floor division.
  return shift > 0 ? v >> shift : v;
}

/// The TOSA requantization of one accumulator (`tosa.rescale` after the
/// input zero point is subtracted): `applyScaleTosa` plus `zeroPoint`,
/// saturated to [qmin, qmax].
inline int64_t requantTosa(int64_t x, int64_t multiplier, int64_t shift,
                           bool doubleRound, int64_t zeroPoint, int64_t qmin,
                           int64_t qmax) {
  __int128 y = applyScaleTosa(x, multiplier, shift, doubleRound) + zeroPoint;
  return static_cast<int64_t>(std::clamp<__int128>(y, qmin, qmax));
}

//===----------------------------------------------------------------------===//
// Integer average pooling (h-int8; docs/quantization.md)
//===----------------------------------------------------------------------===//

/// A multiplier and shift with which `roundingRightShift(sum * m, s)` is
/// exactly `round_half_away_from_zero(sum / n)` for every |sum| <= maxAbsSum
/// (n >= 1): m = ceil(2^s / n) with the smallest s such that
/// maxAbsSum * n <= 2^(s-1). Then sum * m / 2^s exceeds sum / n in
/// magnitude by less than 1 / (2n), the smallest distance from a non-tie
/// quotient to a rounding boundary, and a tie moves away from zero, as the
/// rounding does. This is the integer mean of the NPU's HL avgpool.
inline std::pair<int64_t, int64_t> divisionMultiplierShift(int64_t n,
                                                           int64_t maxAbsSum) {
  if (n <= 1)
    return {1, 0};
  int64_t s = 1;
  while (s < 62 && (static_cast<__int128>(std::max<int64_t>(maxAbsSum, 1)) *
                    n) > (static_cast<__int128>(1) << (s - 1)))
    ++s;
  int64_t m =
      static_cast<int64_t>(((static_cast<__int128>(1) << s) + n - 1) / n);
  return {m, s};
}

/// `round_half_away_from_zero(sum / n)` in exact integer arithmetic (n >= 1).
inline int64_t roundedDivide(int64_t sum, int64_t n) {
  int64_t q = (std::abs(sum) * 2 + n) / (2 * n);
  return sum < 0 ? -q : q;
}

} // namespace strata::intq

#endif // STRATA_SUPPORT_INTEGERREQUANT_H
