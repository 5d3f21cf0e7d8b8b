//===- ShapeFunction.cpp - vocabulary of MLIR-free shape functions --------===//

#include "strata/Support/ShapeFunction.h"
#include "strata/Support/Limits.h"
#include "strata/Support/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace strata {

std::string formatInts(Ints values) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      os << ", ";
    if (isDynamicDim(values[i]))
      os << '?';
    else
      os << values[i];
  }
  os << ']';
  return os.str();
}

std::optional<int64_t> shapeElementCount(Ints shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > INT64_MAX / d)
      return std::nullopt;
    n *= d;
  }
  return n;
}

ShapeOr<int64_t> checkedElementCount(Ints shape) {
  Shape known;
  for (int64_t d : shape)
    if (!isDynamicDim(d))
      known.push_back(d);
  std::optional<int64_t> n = shapeElementCount(known);
  if (!n)
    return ShapeError() << "shape " << shape
                        << " has a negative dim or overflows int64";
  if (known.size() != shape.size())
    return kDynamicDim;
  return *n;
}

std::string formatDouble(double value) {
  // llvm::write_double with FloatStyle::Exponent, which MLIR's diagnostics
  // use for doubles.
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return std::signbit(value) ? "-INF" : "INF";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6e", value);
  return buf;
}

ShapeCheck checkIntsAttr(const char *name, Ints values, size_t size,
                         int64_t minValue) {
  if (values.size() != size)
    return ShapeError() << "attribute '" << name << "' must have " << size
                        << " values, got " << values.size() << " " << values;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] < minValue)
      return ShapeError() << "attribute '" << name << "' value " << values[i]
                          << " at index " << i << " must be >= " << minValue
                          << " (got " << values << ")";
  return std::nullopt;
}

ShapeCheck checkEnumAttr(const char *name, const std::string &value,
                         std::initializer_list<const char *> allowed) {
  std::string list;
  for (const char *a : allowed) {
    if (value == a)
      return std::nullopt;
    list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  }
  return ShapeError() << "attribute '" << name << "' must be one of " << list
                      << ", got \"" << value << "\"";
}

ShapeOr<int64_t> countElements(Ints shape) {
  std::optional<int64_t> n = shapeElementCount(shape);
  if (!n)
    return ShapeError() << "shape " << shape
                        << " has a negative dim or overflows int64";
  return *n;
}

ShapeCheck checkRuntimeResultSize(Ints shape) {
  if (!checkedNumElements(shape.vec(), limits().maxElements))
    return ShapeError() << "result shape " << shape
                        << " computed at run time has more than "
                        << formatElementLimit()
                        << " elements, the element limit (--max-elements "
                           "raises it)";
  return std::nullopt;
}

ShapeOr<int64_t> normalizeAxisAttr(const char *name, int64_t axis,
                                   int64_t rank) {
  if (axis < -rank || axis >= rank)
    return ShapeError() << "attribute '" << name << "' = " << axis
                        << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

ShapeOr<Shape> normalizeAxesAttr(const char *name, Ints axes, int64_t rank) {
  Shape out;
  std::vector<bool> seen(std::max<int64_t>(rank, 0), false);
  for (int64_t axis : axes) {
    ShapeOr<int64_t> a = normalizeAxisAttr(name, axis, rank);
    if (!a)
      return ShapeOr<Shape>::errorOf(a);
    if (seen[*a])
      return ShapeError() << "attribute '" << name << "' " << axes
                          << " repeats dim " << *a;
    seen[*a] = true;
    out.push_back(*a);
  }
  return out;
}

ShapeOr<int64_t> checkedShapeElementCount(Ints shape) {
  std::optional<int64_t> n = shapeElementCount(shape);
  if (!n)
    return ShapeError() << "shape " << shape
                        << " has a negative dim or overflows int64";
  return *n;
}

ShapeOr<Shape> normalizeAxesOperand(const char *name, Ints axes, int64_t rank) {
  Shape out;
  std::vector<bool> seen(std::max<int64_t>(rank, 0), false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank)
      return ShapeError() << "operand '" << name << "' holds axis " << axis
                          << ", out of range for rank " << rank;
    int64_t a = axis < 0 ? axis + rank : axis;
    if (seen[a])
      return ShapeError() << "operand '" << name << "' " << axes
                          << " repeats dim " << a;
    seen[a] = true;
    out.push_back(a);
  }
  return out;
}

Shape tensorInts(const Tensor &t) {
  Shape out(static_cast<size_t>(t.numElements()));
  for (int64_t i = 0; i < t.numElements(); ++i)
    out[i] = t.getAsInt(i);
  return out;
}

ShapeOr<Shape> broadcastShape(Ints lhs, Ints rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    // A dynamic dim is 1 or the other dim; only run time tells.
    if (isDynamicDim(a) || isDynamicDim(b)) {
      int64_t known = isDynamicDim(a) ? b : a;
      out[i] = isDynamicDim(known) || known == 1 ? kDynamicDim : known;
      continue;
    }
    if (a != b && a != 1 && b != 1)
      return ShapeError() << "operand shapes " << lhs << " and " << rhs
                          << " do not broadcast";
    out[i] = a == 1 ? b : a;
  }
  return out;
}

} // namespace strata
