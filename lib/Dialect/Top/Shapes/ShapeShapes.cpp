//===- ShapeShapes.cpp - shape functions of the Shape ops -----------------===//

#include "strata/Dialect/Top/Shapes/ShapeShapes.h"

#include <algorithm>

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Runtime operands and list attributes
//===----------------------------------------------------------------------===//

ShapeOr<int64_t> staticElementCount(Ints shape) {
  std::optional<int64_t> n = checkedNumElements(shape.vec());
  if (!n)
    return ShapeError() << "shape " << shape
                        << " has a negative dim or overflows int64";
  return *n;
}

ShapeOr<int64_t> tensorScalarInt(const char *name, const Tensor &t) {
  if (t.numElements() != 1)
    return ShapeError() << "operand '" << name
                        << "' must hold one integer, got shape " << t.shape();
  return t.getAsInt(0);
}

/// `shape` when its element count is within the runtime limit, else the
/// error.
static ShapeOr<Shape> withinRuntimeLimit(ShapeOr<Shape> shape) {
  if (!shape)
    return shape;
  if (auto err = checkRuntimeResultSize(*shape))
    return *err;
  return shape;
}

/// The "takes X from attribute '<attr>' [..] or from operand '<operand>',
/// not both" error.
static ShapeError notBoth(const char *what, const char *attr, Ints values,
                          const char *operand) {
  return ShapeError() << "takes the " << what << " from attribute '" << attr
                      << "' " << values << " or from operand '" << operand
                      << "', not both";
}

//===----------------------------------------------------------------------===//
// Reshape, Squeeze, Unsqueeze
//===----------------------------------------------------------------------===//

/// The result shape of reshaping `in` to `shape` (0 copies the input dim,
/// one -1 is inferred); errors name `what` (the attribute or the runtime
/// operand) and the shape.
static ShapeOr<Shape> reshapeTo(const char *what, Ints in, Ints shape) {
  ShapeOr<int64_t> inCount = staticElementCount(in);
  if (!inCount)
    return ShapeOr<Shape>::errorOf(inCount);
  Shape out = shape.vec();
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t &d = out[i];
    if (d == -1) {
      if (inferAt >= 0)
        return ShapeError() << what << " " << shape << " has more than one -1";
      inferAt = static_cast<int64_t>(i);
      continue;
    }
    if (d == 0) {
      if (i >= in.size())
        return ShapeError() << what << " " << shape << " copies dim " << i
                            << " (0) but the input has rank " << in.size();
      d = in[i];
    }
    if (d < 0)
      return ShapeError() << what << " " << shape << " has invalid dim " << d
                          << " at index " << i;
    if (d != 0 && known > INT64_MAX / d)
      return ShapeError() << what << " " << shape << " overflows int64";
    known *= d;
  }
  if (inferAt >= 0) {
    if (known == 0 || *inCount % known != 0)
      return ShapeError() << "cannot reshape " << in << " to " << shape
                          << ": element count does not divide";
    out[inferAt] = *inCount / known;
  } else if (known != *inCount) {
    return ShapeError() << "cannot reshape " << in << " (" << *inCount
                        << " elements) to " << shape << " (" << known
                        << " elements)";
  }
  return out;
}

ShapeOr<Shape> inferReshape(Ints input, Ints shape,
                            const std::optional<RuntimeValue> &shapeValue) {
  if (!shapeValue)
    return reshapeTo("attribute 'shape'", input, shape);
  if (!shape.empty())
    return notBoth("shape", "shape", shape, "shape_value");
  if (!shapeValue->tensor)
    return Shape(shapeValue->length(), kDynamicDim);
  return reshapeTo("operand 'shape_value'", input,
                   tensorInts(*shapeValue->tensor));
}

ShapeOr<Shape> inferSqueeze(Ints input, const RuntimeValue &axesValue) {
  int64_t rank = input.rank(), n = axesValue.length();
  if (n > rank)
    return ShapeError() << "operand 'axes_value' holds " << n
                        << " axes but the input has rank " << rank;
  if (!axesValue.tensor)
    return Shape(rank - n, kDynamicDim);
  ShapeOr<Shape> axes =
      normalizeAxesOperand("axes_value", tensorInts(*axesValue.tensor), rank);
  if (!axes)
    return axes;
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(axes->begin(), axes->end(), d) == axes->end()) {
      out.push_back(input[d]);
      continue;
    }
    if (input[d] != 1)
      return ShapeError() << "cannot squeeze dim " << d << " of shape " << input
                          << ": its size is not 1";
  }
  return out;
}

ShapeOr<Shape> inferUnsqueeze(Ints input, const RuntimeValue &axesValue) {
  int64_t outRank = input.rank() + axesValue.length();
  if (!axesValue.tensor)
    return Shape(outRank, kDynamicDim);
  ShapeOr<Shape> axes = normalizeAxesOperand(
      "axes_value", tensorInts(*axesValue.tensor), outRank);
  if (!axes)
    return axes;
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < outRank; ++d) {
    bool inserted = std::find(axes->begin(), axes->end(), d) != axes->end();
    out.push_back(inserted ? 1 : input[next++]);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Permute, Concat, Split
//===----------------------------------------------------------------------===//

std::optional<ShapeError> checkPermutation(Ints order) {
  std::vector<bool> seen(order.size(), false);
  for (int64_t v : order) {
    if (v < 0 || v >= order.rank() || seen[v])
      return ShapeError() << "attribute 'order' " << order
                          << " is not a permutation of 0.." << order.size() - 1;
    seen[v] = true;
  }
  return std::nullopt;
}

ShapeOr<Shape> inferPermute(Ints input, Ints order) {
  if (auto err = checkIntsAttr("order", order, input.size(), 0))
    return *err;
  if (auto err = checkPermutation(order))
    return *err;
  Shape out;
  for (int64_t d : order)
    out.push_back(input[d]);
  return out;
}

ShapeOr<Shape> inferConcat(const Shapes &inputs, int64_t axisAttr) {
  if (inputs.empty())
    return ShapeError() << "needs at least one input";
  Shape out = inputs[0];
  ShapeOr<int64_t> axis = normalizeAxisAttr("axis", axisAttr, out.size());
  if (!axis)
    return ShapeOr<Shape>::errorOf(axis);
  for (size_t i = 1; i < inputs.size(); ++i) {
    const Shape &shape = inputs[i];
    bool same = shape.size() == out.size();
    for (size_t d = 0; same && d < shape.size(); ++d)
      same = static_cast<int64_t>(d) == *axis || shape[d] == out[d];
    if (!same)
      return ShapeError() << "input #" << i << " has shape " << shape
                          << " but input #0 has shape " << inputs[0]
                          << "; only dim " << *axis
                          << " (attribute 'axis') may differ";
    if (__builtin_add_overflow(out[*axis], shape[*axis], &out[*axis]))
      return ShapeError() << "concatenated dim " << *axis << " overflows int64";
  }
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

std::optional<ShapeError> checkSplitAttrs(Ints split, bool hasSplitValue,
                                          size_t numResults) {
  if (hasSplitValue) {
    if (!split.empty())
      return notBoth("sizes", "split", split, "split_value");
    return std::nullopt;
  }
  if (split.size() != numResults)
    return ShapeError() << "attribute 'split' " << split << " has "
                        << split.size() << " sizes but the op has "
                        << numResults << " results";
  return checkIntsAttr("split", split, split.size(), 0);
}

/// Checks that `sizes` (named `what`) are >= 0 and sum to `dim`, the size
/// of dim `axis`.
static std::optional<ShapeError> checkSplitSizes(const char *what, Ints sizes,
                                                 int64_t dim, int64_t axis) {
  int64_t sum = 0;
  bool bad = false;
  for (int64_t size : sizes)
    bad |= size < 0 || __builtin_add_overflow(sum, size, &sum);
  if (bad || sum != dim)
    return ShapeError() << what << " " << sizes << " must sum to the size "
                        << dim << " of dim " << axis;
  return std::nullopt;
}

ShapeOr<Shapes> inferSplit(Ints input, int64_t axisAttr, Ints split,
                           size_t numResults,
                           const std::optional<RuntimeValue> &splitValue) {
  if (auto err = checkSplitAttrs(split, splitValue.has_value(), numResults))
    return *err;
  ShapeOr<int64_t> axis = normalizeAxisAttr("axis", axisAttr, input.rank());
  if (!axis)
    return ShapeOr<Shapes>::errorOf(axis);
  const char *what = "attribute 'split'";
  Shape sizes = split.vec();
  if (splitValue) {
    what = "operand 'split_value'";
    int64_t n = splitValue->tensor ? splitValue->tensor->numElements()
                                   : splitValue->length();
    if (n != static_cast<int64_t>(numResults))
      return ShapeError() << "operand 'split_value' has " << n
                          << " sizes but the op has " << numResults
                          << " results";
    if (!splitValue->tensor) {
      Shape out = input.vec();
      out[*axis] = kDynamicDim;
      return Shapes(numResults, out);
    }
    sizes = tensorInts(*splitValue->tensor);
  }
  if (auto err = checkSplitSizes(what, sizes, input[*axis], *axis))
    return *err;
  Shapes out;
  for (int64_t size : sizes) {
    out.push_back(input.vec());
    out.back()[*axis] = size;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Pad, Tile, Expand
//===----------------------------------------------------------------------===//

std::optional<ShapeError> checkPadMode(const std::string &mode) {
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return ShapeError() << "attribute 'mode' = \"" << mode
                        << "\" must be \"constant\", \"reflect\", \"edge\" "
                           "or \"wrap\"";
  return std::nullopt;
}

/// The result shape of padding `in` by `pads` in `mode`; errors name
/// `what` (the attribute or the runtime operand).
static ShapeOr<Shape> padShape(const char *what, const std::string &mode,
                               Ints in, Ints pads) {
  Shape out = in.vec();
  int64_t rank = in.rank();
  if (pads.rank() != 2 * rank)
    return ShapeError() << what << " must have " << 2 * rank << " values, got "
                        << pads.size() << " " << pads;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t dim = out[d], b = pads[d], e = pads[d + rank];
    auto tooBig = [&](int64_t pad) { return pad > 0 && pad >= dim; };
    if (mode == "reflect" && (tooBig(b) || tooBig(e)))
      return ShapeError() << what << " " << pads << " must be smaller than dim "
                          << d << " (size " << dim << ") in mode \"reflect\"";
    if ((mode == "edge" || mode == "wrap") && dim == 0 && (b > 0 || e > 0))
      return ShapeError() << what << " " << pads << " pads the empty dim " << d
                          << " in mode \"" << mode << "\"";
    if (__builtin_add_overflow(dim, b, &out[d]) ||
        __builtin_add_overflow(out[d], e, &out[d]) || out[d] < 0)
      return ShapeError() << what << " " << pads << " gives dim " << d
                          << " (size " << dim
                          << ") a negative or overflowing size";
  }
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

ShapeOr<Shape> inferPad(Ints input, const std::string &mode, Ints pads,
                        const std::optional<RuntimeValue> &padsValue) {
  if (auto err = checkPadMode(mode))
    return *err;
  if (!padsValue)
    return padShape("attribute 'pads'", mode, input, pads);
  if (!pads.empty())
    return notBoth("pads", "pads", pads, "pads_value");
  int64_t n = padsValue->length(), rank = input.rank();
  if (n != 2 * rank)
    return ShapeError() << "operand 'pads_value' has " << n
                        << " entries but the input has rank " << rank
                        << " (needs " << 2 * rank << ")";
  if (!padsValue->tensor)
    return Shape(rank, kDynamicDim);
  return withinRuntimeLimit(padShape("operand 'pads_value'", mode, input,
                                     tensorInts(*padsValue->tensor)));
}

/// The result shape of tiling `in` by `repeats`; errors name `what`.
static ShapeOr<Shape> tileShape(const char *what, Ints in, Ints repeats) {
  if (repeats.size() != in.size())
    return ShapeError() << what << " must have " << in.size() << " values, got "
                        << repeats.size() << " " << repeats;
  Shape out = in.vec();
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t r = repeats[i];
    if (r < 0)
      return ShapeError() << what << " " << repeats << " has a negative entry "
                          << r;
    if (__builtin_mul_overflow(out[i], r, &out[i]))
      return ShapeError() << what << " " << repeats << " overflows a dim of "
                          << in;
  }
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

ShapeOr<Shape> inferTile(Ints input, Ints repeats,
                         const std::optional<RuntimeValue> &repeatsValue) {
  if (!repeatsValue)
    return tileShape("attribute 'repeats'", input, repeats);
  int64_t n = repeatsValue->length();
  if (n != input.rank())
    return ShapeError() << "operand 'repeats_value' has " << n
                        << " entries but the input has rank " << input.size();
  if (repeatsValue->tensor)
    return withinRuntimeLimit(tileShape("operand 'repeats_value'", input,
                                        tensorInts(*repeatsValue->tensor)));
  Shape out = input.vec();
  for (int64_t &d : out)
    if (d != 0)
      d = kDynamicDim;
  return out;
}

std::optional<ShapeError> checkExpandAttrs(Ints shape, bool hasShapeValue) {
  if (hasShapeValue && !shape.empty())
    return notBoth("shape", "shape", shape, "shape_value");
  return checkIntsAttr("shape", shape, shape.size(), 0);
}

/// The broadcast of `in` and `shape` (entries of `shape` may be `?`: then
/// the dim is the input's unless that is 1 or `?`); errors name `what`.
static ShapeOr<Shape> expandShape(const char *what, Ints in, Ints shape) {
  size_t rank = std::max(in.size(), shape.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (isDynamicDim(b)) {
      out[i] = a == 1 ? kDynamicDim : a;
      continue;
    }
    if (isDynamicDim(a)) {
      out[i] = b == 1 ? kDynamicDim : b;
      continue;
    }
    if (b < 0)
      return ShapeError() << what << " " << shape << " has a negative entry "
                          << b;
    if (a != b && a != 1 && b != 1)
      return ShapeError() << what << " " << shape
                          << " does not broadcast with the input shape " << in;
    out[i] = a == 1 ? b : a;
  }
  if (std::none_of(out.begin(), out.end(), isDynamicDim)) {
    ShapeOr<int64_t> count = staticElementCount(out);
    if (!count)
      return ShapeOr<Shape>::errorOf(count);
  }
  return out;
}

ShapeOr<Shape> inferExpand(Ints input, Ints shape,
                           const std::optional<RuntimeValue> &shapeValue) {
  if (auto err = checkExpandAttrs(shape, shapeValue.has_value()))
    return *err;
  if (!shapeValue)
    return expandShape("attribute 'shape'", input, shape);
  if (shapeValue->tensor)
    return withinRuntimeLimit(expandShape("operand 'shape_value'", input,
                                          tensorInts(*shapeValue->tensor)));
  return expandShape("operand 'shape_value'", input,
                     Shape(shapeValue->length(), kDynamicDim));
}

} // namespace strata::top::shapes
