//===- FloatBits.h - IEEE half and bfloat16 bit conversions -----*- C++ -*-===//
//
// The one definition of the 16-bit float conversions used by the tensor
// library, the runtime's shape kernels, the bf16 kernels and the NPU
// simulator. Header-only and free of MLIR/LLVM so every layer can include it.
// Conversions to 16 bits round to nearest even; NaN stays a quiet NaN.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_FLOATBITS_H
#define STRATA_SUPPORT_FLOATBITS_H

#include <cstdint>
#include <cstring>

namespace strata {

/// IEEE binary16 bits to float (exact).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: renormalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ff;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Float to IEEE binary16 bits, round to nearest even; overflow gives Inf.
inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) // inf or nan
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);
  if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
    return sign | 0x7c00u;
  if (absx < 0x38800000u) { // subnormal or zero in half
    if (absx < 0x33000000u)
      return sign;
    // value / 2^-24 = mant24 * 2^(e - 126); shift right with round-to-even.
    uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
    int shift = 126 - static_cast<int>(absx >> 23); // 14..24
    uint32_t result = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (result & 1)))
      ++result;
    return sign | static_cast<uint16_t>(result);
  }
  uint32_t exp = (absx >> 23) - 127 + 15;
  uint32_t mant = absx & 0x7fffffu;
  uint32_t result = (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (result & 1)))
    ++result;
  return sign | static_cast<uint16_t>(result);
}

/// bfloat16 bits to float (exact).
inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Float to bfloat16 bits, round to nearest even.
inline uint16_t floatToBF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u); // quiet nan
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

} // namespace strata

#endif // STRATA_SUPPORT_FLOATBITS_H
