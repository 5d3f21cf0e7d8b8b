//===- Tensor.h - Dense host tensors ----------------------------*- C++ -*-===//
//
// A dense, row-major host tensor with an element type and a shape. It is the
// value the reference interpreter computes with and the unit that npz files
// hold. It has no MLIR dependency so the runtime can share it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_TENSOR_H
#define STRATA_SUPPORT_TENSOR_H

#include "strata/Support/FloatBits.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata {

/// Element types a tensor can hold.
enum class DType : uint8_t {
  Bool,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  // Narrow types (ONNX INT4/UINT4/INT2/UINT2, FLOAT8*, FLOAT4E2M1). Each
  // element takes one byte on the host: the 4/2-bit integers as their
  // sign-extended (signed) or zero-extended (unsigned) value, the small floats
  // as their bit pattern in the low bits. Names follow ml_dtypes.
  I4,
  U4,
  I2,
  U2,
  F8E4M3FN,
  F8E4M3FNUZ,
  F8E5M2,
  F8E5M2FNUZ,
  F4E2M1FN,
  // ONNX FLOAT8E8M0 (ml_dtypes float8_e8m0fnu): an unsigned power of two
  // 2^(bits - 127), 0xFF is NaN; no zero, no infinity.
  F8E8M0FNU,
};

/// Size of one element in bytes.
size_t dtypeSize(DType type);
/// Human-readable name, numpy style ("float32", "int8", "bool", ...).
const char *dtypeName(DType type);
/// Parses a numpy-style name; nullopt if unknown.
std::optional<DType> dtypeFromName(const std::string &name);
bool isFloat(DType type);
bool isSignedInt(DType type);
bool isUnsignedInt(DType type);
/// Value bits of an integer type (4 for I4, 8 for I8, 1 for Bool); 0 for
/// floats.
unsigned intBitWidth(DType type);
/// True for the FLOAT8 and FLOAT4 types.
bool isSmallFloat(DType type);

/// Multiplies dims with overflow checks; nullopt on a negative dim or overflow
/// past `limit` elements.
std::optional<int64_t> checkedNumElements(const std::vector<int64_t> &shape,
                                          int64_t limit = INT64_MAX);

/// Formats a shape as "[1, 3, 224, 224]".
std::string shapeToString(const std::vector<int64_t> &shape);

/// Small float (FLOAT8 / FLOAT4, `type` must satisfy isSmallFloat) bits to
/// double; exact.
double smallFloatToDouble(DType type, uint8_t bits);
/// Double to small float bits, rounding to nearest even. Values beyond the
/// largest finite value and infinities become +-max when `saturate` (and
/// always for F4E2M1FN, which has no Inf or NaN), otherwise Inf (F8E5M2) or
/// NaN (the FN / FNUZ types). NaN stays NaN (sign kept where the type has a
/// signed NaN); F4E2M1FN maps NaN to a zero as ml_dtypes does. The FNUZ types
/// have no negative zero: -0 becomes +0.
uint8_t doubleToSmallFloat(DType type, double v, bool saturate);
/// Rounding of a conversion to F8E8M0FNU (ONNX Cast's `round_mode`).
enum class E8M0Rounding { Up, Down, Nearest };
/// The F8E8M0FNU bits of `v` as ONNX converts (onnx.numpy_helper
/// to_float8e8m0): `v` is first rounded to float32, its sign is dropped and
/// its exponent kept, rounded by the float32 fraction per `mode`; NaN and
/// infinity give NaN (0xFF); past 2^127 `saturate` keeps 2^127, otherwise NaN.
uint8_t doubleToE8M0(double v, bool saturate, E8M0Rounding mode);
/// Keeps the low `intBitWidth(type)` bits of `v` (two's complement wrap) and
/// sign- or zero-extends them: the 4/2-bit integer `v` converts to.
int64_t wrapToNarrowInt(DType type, int64_t v);

/// A dense row-major tensor. Copies share the buffer; `clone` deep-copies.
class Tensor {
public:
  Tensor() = default;
  /// Allocates a zero-filled tensor. The shape must be valid (non-negative
  /// dims whose product fits); callers check with checkedNumElements first.
  Tensor(DType type, std::vector<int64_t> shape);

  DType dtype() const { return type; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t dim(int64_t i) const { return dims[i]; }
  int64_t numElements() const { return count; }
  size_t byteSize() const { return static_cast<size_t>(count) * dtypeSize(type); }

  void *raw() { return buffer.get(); }
  const void *raw() const { return buffer.get(); }
  template <typename T> T *data() { return static_cast<T *>(raw()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(raw());
  }

  /// Reads element `i` (flat index) converted to double / writes from double.
  /// Writing a small float rounds to nearest even without saturating (see
  /// doubleToSmallFloat); writing a 4/2-bit integer truncates toward zero and
  /// wraps (NaN and Inf give 0), as ml_dtypes and the ONNX Cast tests do.
  double getAsDouble(int64_t i) const;
  void setFromDouble(int64_t i, double v, bool saturate = false);
  /// Reads element `i` converted to int64 (floats truncate and saturate;
  /// NaN reads as 0).
  int64_t getAsInt(int64_t i) const;

  /// A deep copy with its own buffer.
  Tensor clone() const;
  /// The same buffer seen with another shape of equal element count.
  Tensor reshaped(std::vector<int64_t> newShape) const;
  /// Converts every element to `to` (floats → ints truncate toward zero,
  /// saturating is not applied: matches C++/numpy astype for in-range values).
  /// `saturate` applies to the FLOAT8 targets only (ONNX Cast `saturate`).
  Tensor castTo(DType to, bool saturate = false,
               E8M0Rounding e8m0 = E8M0Rounding::Up) const;

  /// Row-major strides in elements.
  std::vector<int64_t> strides() const;

private:
  DType type = DType::F32;
  std::vector<int64_t> dims;
  int64_t count = 0;
  std::shared_ptr<uint8_t> buffer;
};

} // namespace strata

#endif // STRATA_SUPPORT_TENSOR_H
