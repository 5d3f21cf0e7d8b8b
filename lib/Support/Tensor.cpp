//===- Tensor.cpp - Dense host tensors ------------------------------------===//

#include "strata/Support/Tensor.h"
#include "strata/Support/Limits.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <sstream>

namespace strata {

size_t dtypeSize(DType type) {
  switch (type) {
  case DType::Bool:
  case DType::I8:
  case DType::U8:
  case DType::I4:
  case DType::U4:
  case DType::I2:
  case DType::U2:
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F4E2M1FN:
  case DType::F8E8M0FNU:
    return 1;
  case DType::I16:
  case DType::U16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::U32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::U64:
  case DType::F64:
    return 8;
  }
  return 1;
}

const char *dtypeName(DType type) {
  switch (type) {
  case DType::Bool: return "bool";
  case DType::I8: return "int8";
  case DType::I16: return "int16";
  case DType::I32: return "int32";
  case DType::I64: return "int64";
  case DType::U8: return "uint8";
  case DType::U16: return "uint16";
  case DType::U32: return "uint32";
  case DType::U64: return "uint64";
  case DType::F16: return "float16";
  case DType::BF16: return "bfloat16";
  case DType::F32: return "float32";
  case DType::F64: return "float64";
  case DType::I4: return "int4";
  case DType::U4: return "uint4";
  case DType::I2: return "int2";
  case DType::U2: return "uint2";
  case DType::F8E4M3FN: return "float8_e4m3fn";
  case DType::F8E4M3FNUZ: return "float8_e4m3fnuz";
  case DType::F8E5M2: return "float8_e5m2";
  case DType::F8E5M2FNUZ: return "float8_e5m2fnuz";
  case DType::F4E2M1FN: return "float4_e2m1fn";
  case DType::F8E8M0FNU: return "float8_e8m0fnu";
  }
  return "unknown";
}

std::optional<DType> dtypeFromName(const std::string &name) {
  static const std::pair<const char *, DType> table[] = {
      {"bool", DType::Bool},     {"int8", DType::I8},
      {"int16", DType::I16},     {"int32", DType::I32},
      {"int64", DType::I64},     {"uint8", DType::U8},
      {"uint16", DType::U16},    {"uint32", DType::U32},
      {"uint64", DType::U64},    {"float16", DType::F16},
      {"bfloat16", DType::BF16}, {"float32", DType::F32},
      {"float64", DType::F64},   {"int4", DType::I4},
      {"uint4", DType::U4},      {"int2", DType::I2},
      {"uint2", DType::U2},      {"float8_e4m3fn", DType::F8E4M3FN},
      {"float8_e4m3fnuz", DType::F8E4M3FNUZ},
      {"float8_e5m2", DType::F8E5M2},
      {"float8_e5m2fnuz", DType::F8E5M2FNUZ},
      {"float4_e2m1fn", DType::F4E2M1FN},
      {"float8_e8m0fnu", DType::F8E8M0FNU}};
  for (const auto &[n, t] : table)
    if (name == n)
      return t;
  return std::nullopt;
}

bool isSmallFloat(DType t) {
  return t == DType::F8E4M3FN || t == DType::F8E4M3FNUZ ||
         t == DType::F8E5M2 || t == DType::F8E5M2FNUZ ||
         t == DType::F4E2M1FN;
}
bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64 || t == DType::F8E8M0FNU || isSmallFloat(t);
}
bool isSignedInt(DType t) {
  return t == DType::I8 || t == DType::I16 || t == DType::I32 ||
         t == DType::I64 || t == DType::I4 || t == DType::I2;
}
bool isUnsignedInt(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 ||
         t == DType::U64 || t == DType::Bool || t == DType::U4 ||
         t == DType::U2;
}

unsigned intBitWidth(DType t) {
  switch (t) {
  case DType::Bool: return 1;
  case DType::I2:
  case DType::U2: return 2;
  case DType::I4:
  case DType::U4: return 4;
  default: return isFloat(t) ? 0 : static_cast<unsigned>(dtypeSize(t) * 8);
  }
}

int64_t wrapToNarrowInt(DType type, int64_t v) {
  unsigned bits = intBitWidth(type);
  uint64_t low = static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1);
  if (isSignedInt(type) && (low >> (bits - 1)))
    return static_cast<int64_t>(low) - (int64_t(1) << bits);
  return static_cast<int64_t>(low);
}

std::optional<int64_t> checkedNumElements(const std::vector<int64_t> &shape,
                                          int64_t limit) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > limit / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

std::string shapeToString(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

namespace {
/// Layout of a small float type: 1 sign bit, `expBits`, `manBits`.
struct SmallFloatFormat {
  int expBits, manBits, bias;
  enum Special {
    IEEE, ///< all-ones exponent: Inf (mantissa 0) or NaN (F8E5M2)
    FN,   ///< only S.1111.111 is NaN; no Inf (F8E4M3FN)
    FNUZ, ///< 1.0000.000 (negative zero) is the one NaN; no Inf
    None, ///< no Inf, no NaN (F4E2M1FN)
  } special;

  int totalBits() const { return 1 + expBits + manBits; }
  uint8_t signBit() const { return uint8_t(1u << (expBits + manBits)); }
  /// The largest finite magnitude's bits.
  uint8_t maxBits() const {
    uint8_t allOnes = uint8_t(signBit() - 1);
    switch (special) {
    case IEEE: return uint8_t(allOnes - (1u << manBits)); // exponent - 1, m all 1
    case FN: return uint8_t(allOnes - 1);
    case FNUZ:
    case None: return allOnes;
    }
    return allOnes;
  }
};

SmallFloatFormat formatOf(DType t) {
  using F = SmallFloatFormat;
  switch (t) {
  case DType::F8E4M3FN: return {4, 3, 7, F::FN};
  case DType::F8E4M3FNUZ: return {4, 3, 8, F::FNUZ};
  case DType::F8E5M2: return {5, 2, 15, F::IEEE};
  case DType::F8E5M2FNUZ: return {5, 2, 16, F::FNUZ};
  default: return {2, 1, 1, F::None}; // F4E2M1FN
  }
}

/// Magnitude of non-special bits (sign cleared).
double smallFloatMagnitude(const SmallFloatFormat &f, unsigned bits) {
  unsigned exp = bits >> f.manBits;
  unsigned man = bits & ((1u << f.manBits) - 1);
  if (exp == 0)
    return std::ldexp(static_cast<double>(man), 1 - f.bias - f.manBits);
  return std::ldexp(static_cast<double>(man + (1u << f.manBits)),
                    static_cast<int>(exp) - f.bias - f.manBits);
}

/// Rounds to the nearest integer, ties to even, whatever the FP rounding mode.
double roundEven(double v) {
  double r = std::floor(v);
  double diff = v - r;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0))
    r += 1.0;
  return r;
}
} // namespace

double smallFloatToDouble(DType type, uint8_t bits) {
  SmallFloatFormat f = formatOf(type);
  bits &= uint8_t((1u << f.totalBits()) - 1);
  bool neg = bits & f.signBit();
  unsigned mag = bits & (f.signBit() - 1u);
  unsigned expAllOnes = (1u << f.expBits) - 1;
  // NaN keeps the sign bit, as ml_dtypes does.
  double nan = std::copysign(std::numeric_limits<double>::quiet_NaN(),
                             neg ? -1.0 : 1.0);
  switch (f.special) {
  case SmallFloatFormat::IEEE:
    if ((mag >> f.manBits) == expAllOnes) {
      if (mag & ((1u << f.manBits) - 1))
        return nan;
      return neg ? -std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::infinity();
    }
    break;
  case SmallFloatFormat::FN:
    if (mag == f.signBit() - 1u)
      return nan;
    break;
  case SmallFloatFormat::FNUZ:
    if (bits == f.signBit())
      return nan; // negative, like ml_dtypes
    break;
  case SmallFloatFormat::None:
    break;
  }
  double m = smallFloatMagnitude(f, mag);
  return neg ? -m : m;
}

uint8_t doubleToSmallFloat(DType type, double v, bool saturate) {
  SmallFloatFormat f = formatOf(type);
  uint8_t sign = std::signbit(v) ? f.signBit() : 0;
  uint8_t nan = 0;
  switch (f.special) {
  case SmallFloatFormat::IEEE: // quiet NaN: all-ones exponent, top mantissa bit
    nan = uint8_t(sign | (f.signBit() - 1u) - ((1u << (f.manBits - 1)) - 1));
    break;
  case SmallFloatFormat::FN: nan = uint8_t(sign | (f.signBit() - 1u)); break;
  case SmallFloatFormat::FNUZ: nan = f.signBit(); break;
  case SmallFloatFormat::None: // ml_dtypes: NaN -> zero with the sign flipped
    nan = sign ? 0 : f.signBit();
    break;
  }
  if (std::isnan(v))
    return nan;
  if (f.special == SmallFloatFormat::None)
    saturate = true;
  double maxMag = smallFloatMagnitude(f, f.maxBits());
  auto overflow = [&]() -> uint8_t {
    if (saturate)
      return uint8_t(sign | f.maxBits());
    if (f.special == SmallFloatFormat::IEEE) // Inf
      return uint8_t(sign | ((f.signBit() - 1u) & ~((1u << f.manBits) - 1)));
    return nan;
  };
  double a = std::fabs(v);
  if (std::isinf(a))
    return overflow();
  // Quantum (value of one mantissa step) at a's binade, or the subnormal one.
  int minExp = 1 - f.bias; // exponent of the smallest normal
  int e = std::max(std::ilogb(a), minExp);
  if (a == 0.0)
    e = minExp;
  double q = std::ldexp(1.0, e - f.manBits);
  double r = roundEven(a / q) * q; // a / q and the product are exact
  if (r > maxMag)
    return overflow();
  if (r == 0.0)
    return f.special == SmallFloatFormat::FNUZ ? 0 : sign;
  int re = std::ilogb(r);
  unsigned bits;
  if (re < minExp) { // subnormal
    bits = static_cast<unsigned>(std::ldexp(r, f.bias - 1 + f.manBits));
  } else {
    unsigned man = static_cast<unsigned>(std::ldexp(r, f.manBits - re)) -
                   (1u << f.manBits);
    bits = (static_cast<unsigned>(re + f.bias) << f.manBits) | man;
  }
  return uint8_t(sign | bits);
}

uint8_t doubleToE8M0(double v, bool saturate, E8M0Rounding mode) {
  float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF) // NaN, +-Inf
    return 0xFF;
  bool roundUp = false;
  switch (mode) {
  case E8M0Rounding::Up: roundUp = (bits & 0x7FFFFF) != 0; break;
  case E8M0Rounding::Down: break;
  case E8M0Rounding::Nearest: {
    bool guard = bits & 0x400000, round = bits & 0x200000,
         sticky = bits & 0x1FFFFF, lsb = exponent > 0;
    roundUp = guard && (round || sticky || lsb);
    break;
  }
  }
  if (roundUp && !(saturate && exponent == 0xFE))
    ++exponent; // 0xFE + 1 = 0xFF: NaN without saturation
  return static_cast<uint8_t>(exponent);
}

Tensor::Tensor(DType type, std::vector<int64_t> shape)
    : type(type), dims(std::move(shape)) {
  std::optional<int64_t> n = checkedNumElements(dims);
  if (!n || *n > limits().maxElements)
    throw TensorAllocationError(
        n ? static_cast<uint64_t>(*n) * dtypeSize(type) : 0, n.value_or(-1),
        /*overLimit=*/true);
  count = *n;
  size_t bytes = static_cast<size_t>(count) * dtypeSize(type);
  // Round up to 64 bytes so vector kernels may read whole lines.
  size_t alloc = ((bytes + 63) / 64) * 64;
  if (alloc == 0)
    alloc = 64;
  void *p = std::aligned_alloc(64, alloc);
  if (!p)
    throw TensorAllocationError(bytes, count, /*overLimit=*/false);
  std::memset(p, 0, alloc);
  buffer = std::shared_ptr<uint8_t>(static_cast<uint8_t *>(p),
                                    [](uint8_t *q) { std::free(q); });
}

double Tensor::getAsDouble(int64_t i) const {
  switch (type) {
  case DType::Bool: return data<uint8_t>()[i] ? 1.0 : 0.0;
  case DType::I8: return data<int8_t>()[i];
  case DType::I16: return data<int16_t>()[i];
  case DType::I32: return data<int32_t>()[i];
  case DType::I64: return static_cast<double>(data<int64_t>()[i]);
  case DType::U8: return data<uint8_t>()[i];
  case DType::U16: return data<uint16_t>()[i];
  case DType::U32: return data<uint32_t>()[i];
  case DType::U64: return static_cast<double>(data<uint64_t>()[i]);
  case DType::F16: return halfToFloat(data<uint16_t>()[i]);
  case DType::BF16: return bf16ToFloat(data<uint16_t>()[i]);
  case DType::F32: return data<float>()[i];
  case DType::F64: return data<double>()[i];
  case DType::I4:
  case DType::I2: return data<int8_t>()[i];
  case DType::U4:
  case DType::U2: return data<uint8_t>()[i];
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F4E2M1FN: return smallFloatToDouble(type, data<uint8_t>()[i]);
  case DType::F8E8M0FNU: {
    uint8_t bits = data<uint8_t>()[i];
    return bits == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                        : std::ldexp(1.0, int(bits) - 127);
  }
  }
  return 0;
}

int64_t Tensor::getAsInt(int64_t i) const {
  switch (type) {
  case DType::I64: return data<int64_t>()[i];
  case DType::U64: return static_cast<int64_t>(data<uint64_t>()[i]);
  default: {
    // Saturating: NaN is 0, values beyond int64 clamp (no UB).
    double v = getAsDouble(i);
    if (std::isnan(v))
      return 0;
    if (v >= 9223372036854775808.0)
      return INT64_MAX;
    if (v < -9223372036854775808.0)
      return INT64_MIN;
    return static_cast<int64_t>(v);
  }
  }
}

template <typename T> static T castFromDouble(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v))
      return 0;
    // Out-of-range float → int conversion is UB in C++; clamp first.
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo)
      return std::numeric_limits<T>::lowest();
    if (v >= hi)
      return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

/// The 4/2-bit integer a double converts to: truncated toward zero, then
/// wrapped (NaN and Inf give 0). fmod is exact, so huge values wrap exactly.
static int64_t narrowIntFromDouble(DType type, double v) {
  if (!std::isfinite(v))
    return 0;
  double m = std::fmod(std::trunc(v), 256.0);
  return wrapToNarrowInt(type, static_cast<int64_t>(m));
}

void Tensor::setFromDouble(int64_t i, double v, bool saturate) {
  switch (type) {
  case DType::I4:
  case DType::I2:
    data<int8_t>()[i] = static_cast<int8_t>(narrowIntFromDouble(type, v));
    break;
  case DType::U4:
  case DType::U2:
    data<uint8_t>()[i] = static_cast<uint8_t>(narrowIntFromDouble(type, v));
    break;
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F4E2M1FN:
    data<uint8_t>()[i] = doubleToSmallFloat(type, v, saturate);
    break;
  case DType::F8E8M0FNU:
    data<uint8_t>()[i] = doubleToE8M0(v, saturate, E8M0Rounding::Up);
    break;
  case DType::Bool: data<uint8_t>()[i] = v != 0.0; break;
  case DType::I8: data<int8_t>()[i] = castFromDouble<int8_t>(v); break;
  case DType::I16: data<int16_t>()[i] = castFromDouble<int16_t>(v); break;
  case DType::I32: data<int32_t>()[i] = castFromDouble<int32_t>(v); break;
  case DType::I64: data<int64_t>()[i] = castFromDouble<int64_t>(v); break;
  case DType::U8: data<uint8_t>()[i] = castFromDouble<uint8_t>(v); break;
  case DType::U16: data<uint16_t>()[i] = castFromDouble<uint16_t>(v); break;
  case DType::U32: data<uint32_t>()[i] = castFromDouble<uint32_t>(v); break;
  case DType::U64: data<uint64_t>()[i] = castFromDouble<uint64_t>(v); break;
  case DType::F16: data<uint16_t>()[i] = floatToHalf(static_cast<float>(v)); break;
  case DType::BF16: data<uint16_t>()[i] = floatToBF16(static_cast<float>(v)); break;
  case DType::F32: data<float>()[i] = static_cast<float>(v); break;
  case DType::F64: data<double>()[i] = v; break;
  }
}

Tensor Tensor::clone() const {
  Tensor t(type, dims);
  if (byteSize())
    std::memcpy(t.raw(), raw(), byteSize());
  return t;
}

Tensor Tensor::reshaped(std::vector<int64_t> newShape) const {
  Tensor t = *this;
  t.dims = std::move(newShape);
  return t;
}

Tensor Tensor::castTo(DType to, bool saturate, E8M0Rounding e8m0) const {
  if (to == type)
    return *this;
  Tensor t(to, dims);
  bool intToInt = !isFloat(type) && !isFloat(to);
  for (int64_t i = 0; i < count; ++i) {
    if (intToInt) {
      // Exact integer conversion with C++ (wrap-around) semantics.
      int64_t v = getAsInt(i);
      switch (to) {
      case DType::Bool: t.data<uint8_t>()[i] = v != 0; break;
      case DType::I8: t.data<int8_t>()[i] = static_cast<int8_t>(v); break;
      case DType::I16: t.data<int16_t>()[i] = static_cast<int16_t>(v); break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case DType::I64: t.data<int64_t>()[i] = v; break;
      case DType::U8: t.data<uint8_t>()[i] = static_cast<uint8_t>(v); break;
      case DType::U16: t.data<uint16_t>()[i] = static_cast<uint16_t>(v); break;
      case DType::U32: t.data<uint32_t>()[i] = static_cast<uint32_t>(v); break;
      case DType::U64: t.data<uint64_t>()[i] = static_cast<uint64_t>(v); break;
      case DType::I4:
      case DType::I2:
        t.data<int8_t>()[i] = static_cast<int8_t>(wrapToNarrowInt(to, v));
        break;
      case DType::U4:
      case DType::U2:
        t.data<uint8_t>()[i] = static_cast<uint8_t>(wrapToNarrowInt(to, v));
        break;
      default: break;
      }
    } else if (to == DType::F8E8M0FNU) {
      t.data<uint8_t>()[i] = doubleToE8M0(getAsDouble(i), saturate, e8m0);
    } else {
      t.setFromDouble(i, getAsDouble(i), saturate);
    }
  }
  return t;
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * dims[i + 1];
  return s;
}

} // namespace strata
