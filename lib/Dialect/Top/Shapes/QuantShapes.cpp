//===- QuantShapes.cpp - shape functions of the Quant ops -----------------===//

#include "strata/Dialect/Top/Shapes/QuantShapes.h"

#include <utility>

namespace strata::top::shapes {

namespace {
/// Checks the per-axis quantization `q` of side `what`, if any, against
/// `shape`.
std::optional<ShapeError> checkOptionalAxis(const char *what,
                                            const std::optional<QuantAxis> &q,
                                            Ints shape) {
  return q ? checkQuantAxis(what, *q, shape) : std::nullopt;
}

/// Checks the number of values of the per-channel attribute `name`: 1, or
/// one per channel (dim `axis` of `input` when known; dim 1 when `axis` is
/// absent).
std::optional<ShapeError> checkChannelCount(const char *name, Ints values,
                                            std::optional<Ints> input,
                                            std::optional<int64_t> axis) {
  int64_t n = values.rank();
  if (n == 1)
    return std::nullopt;
  int64_t dim = axis.value_or(1);
  if (input && !axis && input->rank() < 2)
    return ShapeError() << "attribute '" << name << "' has " << n
                        << " values but per-channel values need an input of "
                           "rank >= 2 (channel is dim 1), got rank "
                        << input->rank();
  if (n == 0)
    return ShapeError() << "attribute '" << name
                        << "' must have 1 value or one per channel, got none";
  int64_t channels =
      input && dim < input->rank() && !isDynamicDim((*input)[dim])
          ? (*input)[dim]
          : 0;
  if (channels > 0 && n != channels)
    return ShapeError() << "attribute '" << name << "' must have 1 or "
                        << channels << " (input dim " << dim << ") values, got "
                        << n << " " << values;
  return std::nullopt;
}

/// Checks the ranges of multiplier (int32; non-negative for "TFLite") and
/// rshift ([0, 63]).
std::optional<ShapeError> checkRequantRanges(const std::string &mode,
                                             Ints multiplier, Ints rshift) {
  int64_t lo = mode == "MultiplierShift" ? INT32_MIN : 0, hi = INT32_MAX;
  for (size_t i = 0; i < multiplier.size(); ++i)
    if (multiplier[i] < lo || multiplier[i] > hi)
      return ShapeError() << "attribute 'multiplier' value " << multiplier[i]
                          << " at index " << i << " must be in [" << lo << ", "
                          << hi << "] for quant_mode \"" << mode << "\"";
  for (size_t i = 0; i < rshift.size(); ++i)
    if (rshift[i] < 0 || rshift[i] > 63)
      return ShapeError() << "attribute 'rshift' value " << rshift[i]
                          << " at index " << i << " must be in [0, 63]";
  return std::nullopt;
}
} // namespace

std::optional<ShapeError> checkQuantAxis(const char *what, const QuantAxis &q,
                                         Ints shape) {
  if (q.axis < 0 || q.axis >= shape.rank())
    return ShapeError() << what << " quantized dimension " << q.axis
                        << " is out of range for rank " << shape.rank();
  int64_t dim = shape[q.axis];
  if (!isDynamicDim(dim) && dim != q.scales)
    return ShapeError() << what << " has " << q.scales
                        << " scales on quantized dimension " << q.axis
                        << " but that dim has size " << dim;
  return std::nullopt;
}

ShapeOr<Shape> inferQuant(Ints input, std::optional<QuantAxis> result) {
  if (auto error = checkOptionalAxis("result", result, input))
    return *error;
  return input.vec();
}

ShapeOr<Shape> inferDequant(Ints input, std::optional<QuantAxis> inputAxis) {
  if (auto error = checkOptionalAxis("input", inputAxis, input))
    return *error;
  return input.vec();
}

std::optional<ShapeError> checkRequantAttrs(const RequantAttrs &attrs,
                                            std::optional<Ints> input) {
  const std::string &mode = attrs.quantMode;
  if (mode != "MultiplierShift" && mode != "TFLite" && mode != "Float" &&
      mode != "TosaSingleRound" && mode != "TosaDoubleRound" &&
      mode != "TFLiteHalfUp")
    return ShapeError() << "attribute 'quant_mode' must be "
                           "\"MultiplierShift\", \"TFLite\", \"Float\", "
                           "\"TosaSingleRound\", \"TosaDoubleRound\" or "
                           "\"TFLiteHalfUp\", "
                           "got \""
                        << mode << "\"";
  if (attrs.axis &&
      (*attrs.axis < 0 || (input && *attrs.axis >= input->rank())))
    return ShapeError() << "attribute 'axis' " << *attrs.axis
                        << " is out of range for an input of rank "
                        << (input ? input->rank() : 0);
  const std::optional<Ints> &multiplier = attrs.multiplier;
  const std::optional<Ints> &rshift = attrs.rshift;
  if (mode == "Float") {
    if (multiplier || rshift || attrs.axis)
      return ShapeError() << "attribute '"
                          << (multiplier ? "multiplier"
                              : rshift   ? "rshift"
                                         : "axis")
                          << "' is not used by quant_mode \"Float\"";
    return std::nullopt;
  }
  if (!multiplier || !rshift)
    return ShapeError() << "quant_mode \"" << mode << "\" requires attribute '"
                        << (multiplier ? "rshift" : "multiplier") << "'";
  for (auto [name, values] :
       {std::pair<const char *, Ints>{"multiplier", *multiplier},
        {"rshift", *rshift}})
    if (auto error = checkChannelCount(name, values, input, attrs.axis))
      return error;
  if (multiplier->size() != 1 && rshift->size() != 1 &&
      multiplier->size() != rshift->size())
    return ShapeError() << "attributes 'multiplier' and 'rshift' have "
                           "different lengths "
                        << multiplier->size() << " and " << rshift->size();
  return checkRequantRanges(mode, *multiplier, *rshift);
}

ShapeOr<Shape> inferRequant(Ints input, const RequantAttrs &attrs) {
  if (auto error = checkOptionalAxis("input", attrs.input, input))
    return *error;
  if (auto error = checkOptionalAxis("result", attrs.result, input))
    return *error;
  if (auto error = checkRequantAttrs(attrs, input))
    return *error;
  return input.vec();
}

} // namespace strata::top::shapes
