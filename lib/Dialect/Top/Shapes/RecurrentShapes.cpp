//===- RecurrentShapes.cpp - shape functions of Recurrent ops -------------===//

#include "strata/Dialect/Top/Shapes/RecurrentShapes.h"

namespace strata::top::shapes {

namespace {
/// True if `shape` is `expected`, a dynamic dim on either side matching any
/// size.
bool matchesShape(Ints shape, Ints expected) {
  if (shape.size() != expected.size())
    return false;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != expected[d] && !isDynamicDim(shape[d]) &&
        !isDynamicDim(expected[d]))
      return false;
  return true;
}

/// Checks an optional operand's shape against `expected`; `name` names it.
std::optional<ShapeError> checkOperandShape(const char *name,
                                            std::optional<Ints> shape,
                                            const Shape &expected) {
  if (!shape || matchesShape(*shape, expected))
    return std::nullopt;
  return ShapeError() << "operand '" << name << "' must have shape " << expected
                      << ", got " << *shape;
}

/// Y's shape for `d` in `layout`.
Shape outputShape(const RecurrentDims &d, int64_t layout) {
  return layout == 0 ? Shape{d.seq, d.dirs, d.batch, d.hidden}
                     : Shape{d.batch, d.seq, d.dirs, d.hidden};
}

/// The shape of a state (initial or final) for `d` in `layout`.
Shape stateShape(const RecurrentDims &d, int64_t layout) {
  return layout == 0 ? Shape{d.dirs, d.batch, d.hidden}
                     : Shape{d.batch, d.dirs, d.hidden};
}
} // namespace

ShapeOr<int64_t> checkRecurrentAttrs(const RecurrentAttrs &attrs) {
  if (attrs.hiddenSize <= 0 || attrs.hiddenSize > (int64_t{1} << 32))
    return ShapeError() << "attribute 'hidden_size' = " << attrs.hiddenSize
                        << " must be in [1, 2^32]";
  if (attrs.layout != 0 && attrs.layout != 1)
    return ShapeError() << "attribute 'layout' = " << attrs.layout
                        << " must be 0 or 1";
  if (attrs.direction == "forward" || attrs.direction == "reverse")
    return 1;
  if (attrs.direction == "bidirectional")
    return 2;
  return ShapeError()
         << "attribute 'direction' = \"" << attrs.direction
         << "\" must be \"forward\", \"reverse\" or \"bidirectional\"";
}

ShapeOr<RecurrentDims> recurrentDims(const RecurrentOperands &operands,
                                     const RecurrentAttrs &attrs) {
  ShapeOr<int64_t> dirs = checkRecurrentAttrs(attrs);
  if (!dirs)
    return ShapeOr<RecurrentDims>::errorOf(dirs);
  Ints in = operands.input;
  if (in.size() != 3)
    return ShapeError() << "operand 'input' must have rank 3 ("
                        << (attrs.layout == 0 ? "[seq, batch, input]"
                                              : "[batch, seq, input]")
                        << "), got shape " << in;
  RecurrentDims d;
  d.seq = attrs.layout == 0 ? in[0] : in[1];
  d.batch = attrs.layout == 0 ? in[1] : in[0];
  d.inputSize = in[2];
  d.hidden = attrs.hiddenSize;
  d.gates = attrs.gates;
  d.dirs = *dirs;
  int64_t gh = d.gates * d.hidden;
  Shape state = stateShape(d, attrs.layout);
  struct Expected {
    const char *name;
    std::optional<Ints> shape;
    Shape want;
  };
  const Expected expected[] = {
      {"weight", operands.weight, {d.dirs, gh, d.inputSize}},
      {"recurrence", operands.recurrence, {d.dirs, gh, d.hidden}},
      {"bias", operands.bias, {d.dirs, 2 * gh}},
      {"sequence_lens", operands.sequenceLens, {d.batch}},
      {"initial_h", operands.initialH, state},
      {"initial_c", operands.initialC, state},
      {"peepholes", operands.peepholes, {d.dirs, 3 * d.hidden}},
  };
  for (const Expected &e : expected)
    if (std::optional<ShapeError> error =
            checkOperandShape(e.name, e.shape, e.want))
      return *error;
  ShapeOr<int64_t> count = checkedElementCount(outputShape(d, attrs.layout));
  if (!count)
    return ShapeOr<RecurrentDims>::errorOf(count);
  return d;
}

ShapeOr<Shapes> inferRecurrent(const RecurrentOperands &operands,
                               const RecurrentAttrs &attrs) {
  ShapeOr<RecurrentDims> d = recurrentDims(operands, attrs);
  if (!d)
    return ShapeOr<Shapes>::errorOf(d);
  Shapes out{outputShape(*d, attrs.layout)};
  for (unsigned i = 1; i < attrs.numResults; ++i)
    out.push_back(stateShape(*d, attrs.layout));
  return out;
}

} // namespace strata::top::shapes
