//===- ShapeFunction.h - vocabulary of MLIR-free shape functions -*- C++ -*-===//
//
// The types every shape function uses. A shape function is a free function
// over plain shapes, attribute values and, where a result shape depends on
// them, operand values; it returns the result shape(s) or an error message.
// Shape functions know nothing of MLIR, so the op's type inference, the graph
// API, the reference interpreter and a runtime without MLIR all call the same
// rule (lib/Dialect/Top/Shapes holds Top's).
//
// An error message completes the sentence "'top.<Op>' op ...": the op's
// adapter prefixes it (emitOpError), the runtime may prefix the node name.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_SHAPEFUNCTION_H
#define STRATA_SUPPORT_SHAPEFUNCTION_H

#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata {

class Tensor;

/// A shape: one size per dim.
using Shape = std::vector<int64_t>;

/// A dim whose size is not known (equal to mlir::ShapedType::kDynamic, which
/// a static_assert in the Top dialect checks).
inline constexpr int64_t kDynamicDim = std::numeric_limits<int64_t>::min();
inline bool isDynamicDim(int64_t d) { return d == kDynamicDim; }

/// A read-only view of contiguous int64 values (a shape, an attribute list,
/// an operand's values) that converts from std::vector, llvm::ArrayRef and
/// llvm::SmallVector alike. It does not own the values: never bind it to a
/// temporary that dies before the view is used.
class Ints {
public:
  Ints() = default;
  Ints(const int64_t *data, size_t size) : ptr(data), len(size) {}
  template <typename C,
            typename = std::enable_if_t<std::is_convertible_v<
                decltype(std::declval<const C &>().data()), const int64_t *>>>
  Ints(const C &c) : ptr(c.data()), len(c.size()) {}

  size_t size() const { return len; }
  int64_t rank() const { return static_cast<int64_t>(len); }
  bool empty() const { return len == 0; }
  const int64_t *data() const { return ptr; }
  const int64_t *begin() const { return ptr; }
  const int64_t *end() const { return ptr + len; }
  int64_t operator[](size_t i) const {
    assert(i < len && "index out of range");
    return ptr[i];
  }
  int64_t back() const { return (*this)[len - 1]; }
  /// The values from `start` on (`count` of them, or all the rest).
  Ints slice(size_t start, size_t count = SIZE_MAX) const {
    assert(start <= len && "slice start out of range");
    return Ints(ptr + start, std::min(count, len - start));
  }
  Shape vec() const { return Shape(begin(), end()); }
  bool operator==(Ints other) const {
    if (len != other.len)
      return false;
    for (size_t i = 0; i < len; ++i)
      if (ptr[i] != other.ptr[i])
        return false;
    return true;
  }
  bool operator!=(Ints other) const { return !(*this == other); }

private:
  const int64_t *ptr = nullptr;
  size_t len = 0;
};

/// "[1, 3, 224, 224]"; a dynamic dim prints as "?".
std::string formatInts(Ints values);

/// A floating-point value as MLIR diagnostics print it: "%.6e"
/// ("1.000000e-05"), "nan", "INF", "-INF".
std::string formatDouble(double value);

/// An error message under construction: `return ShapeError() << "attribute
/// 'group' = " << g << " must be >= 1";`. Streams what std::ostream does,
/// plus Ints / Shape as "[1, 2, 3]" and floating-point values as
/// formatDouble (the text emitOpError gave them).
class ShapeError {
public:
  ShapeError() = default;
  ShapeError(const ShapeError &other) : os(other.os.str()) {}
  template <typename T> ShapeError &operator<<(const T &value) {
    if constexpr (std::is_convertible_v<const T &, Ints> &&
                  !std::is_convertible_v<const T &, std::string>)
      os << formatInts(Ints(value));
    else if constexpr (std::is_floating_point_v<T>)
      os << formatDouble(static_cast<double>(value));
    else
      os << value;
    return *this;
  }
  std::string message() const { return os.str(); }

private:
  std::ostringstream os;
};

/// The result of a shape function: a value, or an error message.
template <typename T> class [[nodiscard]] ShapeOr {
public:
  ShapeOr(T value) : val(std::move(value)) {}
  ShapeOr(const ShapeError &error) : err(error.message()) {}
  /// Converts the error of another result (propagation).
  template <typename U>
  static ShapeOr errorOf(const ShapeOr<U> &other) {
    ShapeOr r{Tag()};
    r.err = other.error();
    return r;
  }

  explicit operator bool() const { return val.has_value(); }
  bool failed() const { return !val.has_value(); }
  const T &operator*() const & { return *val; }
  T &operator*() & { return *val; }
  T &&operator*() && { return std::move(*val); }
  const T *operator->() const { return &*val; }
  T *operator->() { return &*val; }
  /// The error message (empty if this holds a value).
  const std::string &error() const { return err; }

private:
  struct Tag {};
  explicit ShapeOr(Tag) {}
  std::optional<T> val;
  std::string err;
};

/// Several result shapes.
using Shapes = std::vector<Shape>;

/// The outcome of a check: no value if it passed, else the error. Use as
/// `if (ShapeCheck c = checkX(..)) return *c;`.
using ShapeCheck = std::optional<ShapeError>;

/// Checks the int list attribute `name`: `size` values, each >= `minValue`.
/// Errors read "attribute '<name>' must have <size> values, got <n> [..]"
/// and "attribute '<name>' value <v> at index <i> must be >= <minValue>
/// (got [..])".
ShapeCheck checkIntsAttr(const char *name, Ints values, size_t size,
                         int64_t minValue);

/// Checks that string attribute `name` is one of `allowed`; the error reads
/// "attribute '<name>' must be one of "a", "b", got "<value>"".
ShapeCheck checkEnumAttr(const char *name, const std::string &value,
                         std::initializer_list<const char *> allowed);

/// Product of `shape`'s dims; the error reads "shape [..] has a negative dim
/// or overflows int64".
ShapeOr<int64_t> countElements(Ints shape);

/// Checks that a result shape computed from operand values has at most 2^31
/// elements (a run allocates it); the error reads "result shape [..]
/// computed at run time has more than 2^31 elements".
ShapeCheck checkRuntimeResultSize(Ints shape);

/// Product of `shape`'s dims; nullopt on a negative or dynamic dim or on
/// int64 overflow.
std::optional<int64_t> shapeElementCount(Ints shape);

/// Checks that `shape`'s element count fits int64 and no dim is negative;
/// the error reads "shape [..] has a negative dim or overflows int64". The
/// count, or kDynamicDim when a dim is dynamic (its static dims are still
/// checked).
ShapeOr<int64_t> checkedElementCount(Ints shape);

/// `axis` in [-rank, rank) as an index in [0, rank); the error reads
/// "attribute '<name>' = <axis> is out of range for rank <rank>".
ShapeOr<int64_t> normalizeAxisAttr(const char *name, int64_t axis,
                                   int64_t rank);

/// Normalizes every entry of the axis list attribute `name` (see
/// normalizeAxisAttr) and rejects duplicates ("attribute '<name>' [..]
/// repeats dim <d>").
ShapeOr<Shape> normalizeAxesAttr(const char *name, Ints axes, int64_t rank);

/// shapeElementCount as a step of a shape function: the error reads "shape
/// [..] has a negative dim or overflows int64".
ShapeOr<int64_t> checkedShapeElementCount(Ints shape);

/// Normalizes axes held by operand `name` (a runtime `axes_value`) like
/// normalizeAxesAttr; the errors read "operand '<name>' holds axis <a>, out
/// of range for rank <r>" and "operand '<name>' [..] repeats dim <d>".
ShapeOr<Shape> normalizeAxesOperand(const char *name, Ints axes, int64_t rank);

/// The elements of an integer tensor (a runtime operand) as int64 values.
Shape tensorInts(const Tensor &t);

/// numpy broadcast of two shapes; the error reads "operand shapes [..] and
/// [..] do not broadcast". A dynamic dim broadcasts with anything: against 1
/// or another dynamic dim it stays dynamic, against n > 1 it is n.
ShapeOr<Shape> broadcastShape(Ints lhs, Ints rhs);

} // namespace strata

#endif // STRATA_SUPPORT_SHAPEFUNCTION_H
