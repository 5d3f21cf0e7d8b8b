//===- ConvertShape.cpp - ONNX shape and data-movement ops to Top ---------===//
//
// The Shape family (TopShapeOps.td): Reshape, Flatten, Transpose, Concat,
// Split, Tile, Expand, Squeeze, Unsqueeze, Gather, Shape, Size,
// ConstantOfShape; Slice and Pad are in ConvertShapeSlice.cpp, the
// reductions in ConvertShapeReduce.cpp, the helpers they share
// (ConvertShape.h) here. Operands that Top takes as attributes (axes, pads,
// repeats, ...) must be constants unless the Top op has a runtime operand
// for them; ops whose result only depends on static shapes become
// constants.
//
//===----------------------------------------------------------------------===//

#include "ConvertShape.h"

#include <cstring>

namespace strata::onnx_import {

//===----------------------------------------------------------------------===//
// Helpers of the Shape family (ConvertShape.h)
//===----------------------------------------------------------------------===//

FailureOr<IntList> requireConstInts(NodeContext &c, size_t i,
                                    StringRef what) {
  if (!c.hasInput(i))
    return c.error() << "input '" << what << "' is required";
  auto v = c.constantInts(i);
  if (!v)
    return c.error() << "the '" << what << "' input must be a constant";
  return *v;
}

FailureOr<OptIntList> attrOrInputInts(NodeContext &c, StringRef name,
                                      int64_t inputSince, size_t index) {
  if (c.version() < inputSince)
    return c.attrInts(name);
  if (!c.hasInput(index))
    return OptIntList();
  auto v = requireConstInts(c, index, name);
  if (failed(v))
    return failure();
  return OptIntList(*v);
}

FailureOr<IntList> normalizeAxes(NodeContext &c, StringRef what,
                                 ArrayRef<int64_t> axes, int64_t rank) {
  IntList out;
  for (int64_t a : axes) {
    auto n = c.normalizeAxis(what, a, rank);
    if (failed(n))
      return failure();
    if (llvm::is_contained(out, *n))
      return c.error() << what << " " << formatArray(axes)
                       << " has a duplicate axis " << a;
    out.push_back(*n);
  }
  return out;
}

FailureOr<DType> dtypeFor(NodeContext &c, Type elem) {
  auto dt = elem ? dtypeOf(elem) : std::nullopt;
  if (!dt)
    return c.error() << "element type " << elem
                     << " has no constant representation";
  return *dt;
}

FailureOr<Value> reshapeValue(NodeContext &c, Value x,
                              ArrayRef<int64_t> shape) {
  Type elem = cast<ShapedType>(x.getType()).getElementType();
  if (llvm::is_contained(shape, 0)) {
    auto dt = dtypeFor(c, elem);
    if (failed(dt))
      return failure();
    return c.constant(Tensor(*dt, IntList(shape)), "empty");
  }
  return c.create<ReshapeOp>(elem, x, i64s(c, shape));
}

LogicalResult reshapeTo(NodeContext &c, ArrayRef<int64_t> shape) {
  return c.setResult(reshapeValue(c, c.input(0), shape));
}

FailureOr<Value> castTo(NodeContext &c, Value x, Type to) {
  if (cast<ShapedType>(x.getType()).getElementType() == to)
    return x;
  return c.create<CastOp>(to, x);
}

namespace {

//===--- Reshape, Flatten ---===//

LogicalResult convertReshape(NodeContext &c) {
  std::vector<int64_t> shape;
  auto allowZero = c.attrInt("allowzero", 0);
  if (failed(allowZero))
    return failure();
  if (c.version() >= 5 && !c.constantInput(1)) {
    // Known at run time only: the result dims are `?`.
    if (*allowZero)
      return c.error() << "with allowzero = 1 the 'shape' input must be a "
                          "constant (top.Reshape reads 0 as a copied dim)";
    return c.setResult(c.create<ReshapeOp>(
        elemOf(c, 0), c.input(0), c.builder().getDenseI64ArrayAttr({}),
        c.input(1)));
  }
  if (c.version() < 5) {
    auto s = c.attrInts("shape");
    if (failed(s))
      return failure();
    if (!*s)
      return c.error() << "attribute 'shape' is required";
    shape = **s;
  } else {
    auto s = c.constantInts(1);
    if (!s)
      return c.error() << "the 'shape' input must be a constant";
    shape = *s;
  }
  // top.Reshape reads 0 as "copy the input dim" (allowzero = 0). A literal
  // zero dim (allowzero = 1) makes the result empty, so it is a constant: the
  // empty tensor of that shape, once the input is checked to be empty too.
  if (*allowZero && llvm::is_contained(shape, 0)) {
    if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
      return c.error() << "allowzero = 1 with a 0 in shape "
                       << formatArray(shape)
                       << " allows no negative dims (ONNX forbids 0 with -1)";
    auto in = c.requireShape(0);
    if (failed(in))
      return failure();
    auto count = checkedNumElements(*in);
    if (!count || *count != 0)
      return c.error() << "input shape " << formatArray(*in)
                       << " is not empty, but shape " << formatArray(shape)
                       << " with allowzero = 1 has no elements";
    auto dt = dtypeOf(elemOf(c, 0));
    if (!dt)
      return c.error() << "input element type " << elemOf(c, 0)
                       << " is not supported";
    c.setOutput(0, c.constant(Tensor(*dt, shape), "empty"));
    return success();
  }
  auto out = c.create<ReshapeOp>(elemOf(c, 0), c.input(0),
                                 c.builder().getDenseI64ArrayAttr(shape));
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertFlatten(NodeContext &c) {
  auto in = c.requireShape(0);
  auto axisAttr = c.attrInt("axis", 1);
  if (failed(in) || failed(axisAttr))
    return failure();
  int64_t rank = in->size();
  if (*axisAttr < -rank || *axisAttr > rank)
    return c.error() << "attribute 'axis' = " << *axisAttr
                     << " is out of range for rank " << rank;
  int64_t axis = *axisAttr < 0 ? *axisAttr + rank : *axisAttr;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t &part = i < axis ? outer : inner;
    if (__builtin_mul_overflow(part, (*in)[i], &part))
      return c.error() << "the flattened shape of " << formatArray(*in)
                       << " overflows int64";
  }
  auto out = c.create<ReshapeOp>(
      elemOf(c, 0), c.input(0),
      c.builder().getDenseI64ArrayAttr({outer, inner}));
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

//===--- Transpose, Concat, Split ---===//

LogicalResult convertTranspose(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto permAttr = c.attrInts("perm");
  if (failed(rank) || failed(permAttr))
    return failure();
  IntList perm;
  if (*permAttr) {
    perm = **permAttr;
  } else {
    for (int64_t i = *rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  IntList sorted = perm;
  llvm::sort(sorted);
  bool ok = static_cast<int64_t>(perm.size()) == *rank;
  for (int64_t i = 0; ok && i < *rank; ++i)
    ok = sorted[i] == i;
  if (!ok)
    return c.error() << "attribute 'perm' = " << formatArray(perm)
                     << " is not a permutation of 0.." << *rank - 1;
  return c.setResult(
      c.create<PermuteOp>(elemOf(c, 0), c.input(0), i64s(c, perm)));
}

LogicalResult convertConcat(NodeContext &c) {
  if (c.numInputs() == 0)
    return c.error() << "needs at least one input";
  auto rank = c.requireRank(0);
  auto axisAttr = c.attrIntOpt("axis");
  if (failed(rank) || failed(axisAttr))
    return failure();
  if (!*axisAttr)
    return c.error() << "attribute 'axis' is required";
  auto axis = c.normalizeAxis("attribute 'axis'", **axisAttr, *rank);
  if (failed(axis))
    return failure();
  SmallVector<Value> inputs;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    if (elemOf(c, i) != elemOf(c, 0))
      return c.error() << "input " << i << " has element type "
                       << elemOf(c, i) << ", input 0 has " << elemOf(c, 0);
    inputs.push_back(c.input(i));
  }
  return c.setResult(c.create<ConcatOp>(elemOf(c, 0), ValueRange(inputs),
                                        c.builder().getI64IntegerAttr(*axis)));
}

/// Split sizes when neither 'split' nor a valid list is given: `n` chunks of
/// ceil(dim / n), the last one smaller (opset 18 num_outputs), or equal
/// chunks that must divide `dim` (`exact`).
FailureOr<IntList> chunkSizes(NodeContext &c, int64_t dim, int64_t n,
                              bool exact) {
  if (n < 1)
    return c.error() << "cannot split into " << n << " outputs";
  if (exact && dim % n != 0)
    return c.error() << "dim " << dim << " cannot be split evenly into " << n
                     << " outputs; give 'split'";
  int64_t chunk = (dim + n - 1) / n;
  IntList sizes(n, chunk);
  sizes.back() = dim - chunk * (n - 1);
  if (sizes.back() < 0)
    return c.error() << "dim " << dim << " cannot be split into " << n
                     << " chunks of " << chunk;
  return sizes;
}

LogicalResult convertSplit(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto axisAttr = c.attrInt("axis", 0);
  if (failed(shape) || failed(axisAttr))
    return failure();
  if (shape->empty())
    return c.error() << "input 'input' is a scalar; Split needs rank >= 1";
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, shape->size());
  if (failed(axis))
    return failure();
  int64_t dim = (*shape)[*axis];
  int64_t n = c.numOutputs();
  SmallVector<Type> types(n, elemOf(c, 0));
  if (c.version() >= 13 && c.hasInput(1) && !c.constantInput(1)) {
    // Sizes known at run time only stay an operand (`?` along the axis).
    auto r = c.createMulti<SplitOp>(types, c.input(0),
                                    c.builder().getI64IntegerAttr(*axis),
                                    i64s(c, {}), c.input(1));
    if (failed(r))
      return failure();
    for (int64_t i = 0; i < n; ++i)
      c.setOutput(i, (*r)[i]);
    return success();
  }
  auto split = attrOrInputInts(c, "split", 13, 1);
  auto numOutputs = c.attrIntOpt("num_outputs");
  if (failed(split) || failed(numOutputs))
    return failure();
  IntList sizes;
  if (*split) {
    if (*numOutputs)
      return c.error() << "'split' and attribute 'num_outputs' are both given";
    sizes = **split;
  } else {
    if (*numOutputs && **numOutputs != n)
      return c.error() << "attribute 'num_outputs' = " << **numOutputs
                       << " but the node has " << n << " outputs";
    auto s = chunkSizes(c, dim, n, !*numOutputs);
    if (failed(s))
      return failure();
    sizes = *s;
  }
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return c.error() << "'split' = " << formatArray(sizes)
                       << " has a negative size";
    if (__builtin_add_overflow(sum, s, &sum))
      return c.error() << "'split' = " << formatArray(sizes)
                       << " overflows int64";
  }
  if (static_cast<int64_t>(sizes.size()) != n || sum != dim)
    return c.error() << "'split' = " << formatArray(sizes) << " must have "
                     << n << " sizes summing to dim " << dim;
  auto r = c.createMulti<SplitOp>(types, c.input(0),
                                  c.builder().getI64IntegerAttr(*axis),
                                  i64s(c, sizes));
  if (failed(r))
    return failure();
  for (int64_t i = 0; i < n; ++i)
    c.setOutput(i, (*r)[i]);
  return success();
}

LogicalResult convertTile(NodeContext &c) {
  // Repeats known at run time only stay an operand (result dims `?`).
  if (c.hasInput(1) && !c.constantInput(1))
    return c.setResult(
        c.create<TileOp>(elemOf(c, 0), c.input(0), i64s(c, {}), c.input(1)));
  auto rank = c.requireRank(0);
  auto repeats = requireConstInts(c, 1, "repeats");
  if (failed(rank) || failed(repeats))
    return failure();
  if (static_cast<int64_t>(repeats->size()) != *rank)
    return c.error() << "'repeats' " << formatArray(*repeats) << " must have "
                     << *rank << " values";
  for (int64_t r : *repeats)
    if (r < 0)
      return c.error() << "'repeats' " << formatArray(*repeats)
                       << " must not be negative";
  return c.setResult(
      c.create<TileOp>(elemOf(c, 0), c.input(0), i64s(c, *repeats)));
}

LogicalResult convertExpand(NodeContext &c) {
  // A shape known at run time only stays an operand (result dims `?`).
  if (c.hasInput(1) && !c.constantInput(1))
    return c.setResult(
        c.create<ExpandOp>(elemOf(c, 0), c.input(0), i64s(c, {}), c.input(1)));
  auto shape = requireConstInts(c, 1, "shape");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return c.error() << "'shape' " << formatArray(*shape)
                       << " must not be negative";
  return c.setResult(
      c.create<ExpandOp>(elemOf(c, 0), c.input(0), i64s(c, *shape)));
}

//===--- Squeeze, Unsqueeze ---===//

/// Squeeze/Unsqueeze whose 'axes' input is known at run time only.
template <typename OpTy>
FailureOr<Value> runtimeAxesOp(NodeContext &c) {
  return c.create<OpTy>(elemOf(c, 0), c.input(0), c.input(1));
}

LogicalResult convertSqueeze(NodeContext &c) {
  if (c.version() >= 13 && c.hasInput(1) && !c.constantInput(1))
    return c.setResult(runtimeAxesOp<SqueezeOp>(c));
  auto in = c.requireShape(0);
  auto axesIn = attrOrInputInts(c, "axes", 13, 1);
  if (failed(in) || failed(axesIn))
    return failure();
  int64_t rank = in->size();
  IntList axes;
  if (*axesIn) {
    auto a = normalizeAxes(c, "axes", **axesIn, rank);
    if (failed(a))
      return failure();
    axes = *a;
    for (int64_t a : axes)
      if ((*in)[a] != 1)
        return c.error() << "cannot squeeze axis " << a << " of shape "
                         << formatArray(*in) << ": its dim is not 1";
  } else {
    for (int64_t i = 0; i < rank; ++i)
      if ((*in)[i] == 1)
        axes.push_back(i);
  }
  IntList out;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(axes, i))
      out.push_back((*in)[i]);
  return reshapeTo(c, out);
}

LogicalResult convertUnsqueeze(NodeContext &c) {
  if (c.version() >= 13 && c.hasInput(1) && !c.constantInput(1))
    return c.setResult(runtimeAxesOp<UnsqueezeOp>(c));
  auto in = c.requireShape(0);
  auto axesIn = attrOrInputInts(c, "axes", 13, 1);
  if (failed(in) || failed(axesIn))
    return failure();
  if (!*axesIn)
    return c.error() << "'axes' is required";
  int64_t outRank = in->size() + (*axesIn)->size();
  auto axes = normalizeAxes(c, "axes", **axesIn, outRank);
  if (failed(axes))
    return failure();
  IntList out;
  size_t next = 0;
  for (int64_t i = 0; i < outRank; ++i)
    out.push_back(llvm::is_contained(*axes, i) ? 1 : (*in)[next++]);
  return reshapeTo(c, out);
}

//===--- Gather ---===//

LogicalResult convertGather(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto axisAttr = c.attrInt("axis", 0);
  if (failed(rank) || failed(axisAttr))
    return failure();
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, *rank);
  if (failed(axis))
    return failure();
  Type idx = elemOf(c, 1);
  if (!idx || !isa<IntegerType>(idx) || idx.isInteger(1))
    return c.error() << "'indices' must be int32 or int64, got " << idx;
  auto out = c.create<GatherOp>(elemOf(c, 0), c.input(0), c.input(1),
                                c.builder().getI64IntegerAttr(*axis));
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

//===--- Shape, Size, ConstantOfShape ---===//

LogicalResult convertShape(NodeContext &c) {
  auto in = c.requireShape(0);
  auto startAttr = c.attrInt("start", 0);
  auto endAttr = c.attrIntOpt("end");
  if (failed(in) || failed(startAttr) || failed(endAttr))
    return failure();
  int64_t rank = in->size();
  auto clampAxis = [&](int64_t a) {
    return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
  };
  int64_t start = clampAxis(*startAttr);
  int64_t end = *endAttr ? clampAxis(**endAttr) : rank;
  int64_t n = std::max<int64_t>(end - start, 0);
  Tensor t(DType::I64, {n});
  for (int64_t i = 0; i < n; ++i)
    t.data<int64_t>()[i] = (*in)[start + i];
  c.setOutput(0, c.constant(t, "shape"));
  return success();
}

LogicalResult convertSize(NodeContext &c) {
  auto in = c.requireShape(0);
  if (failed(in))
    return failure();
  Tensor t(DType::I64, {});
  auto n = checkedNumElements(*in);
  if (!n)
    return c.error() << "the element count of " << formatArray(*in)
                     << " overflows";
  t.data<int64_t>()[0] = *n;
  c.setOutput(0, c.constant(t, "size"));
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &c) {
  Tensor fill(DType::F32, {1});
  if (const onnx::AttributeProto *a = c.attr("value")) {
    std::string err;
    if (a->type() != onnx::AttributeProto::TENSOR)
      return c.error() << "attribute 'value' must be a tensor";
    if (!readTensorProto(a->t(), c.modelDir(), fill, err))
      return c.error() << "attribute 'value': " << err;
    if (fill.numElements() != 1)
      return c.error() << "attribute 'value' must hold one element, has "
                       << fill.numElements();
  }
  if (c.hasInput(0) && !c.constantInput(0)) {
    // A shape known at run time only: the fill value expanded to it.
    Value scalar = c.constant(fill.reshaped({}), "value");
    return c.setResult(
        c.create<ExpandOp>(cast<ShapedType>(scalar.getType()).getElementType(),
                           scalar, i64s(c, {}), c.input(0)));
  }
  auto shape = requireConstInts(c, 0, "input");
  if (failed(shape))
    return failure();
  auto count = checkedNumElements(*shape, int64_t(1) << 28);
  if (!count)
    return c.error() << "shape " << formatArray(*shape)
                     << " is negative or too large for a constant";
  Tensor t(fill.dtype(), *shape);
  size_t size = dtypeSize(fill.dtype());
  auto *dst = static_cast<uint8_t *>(t.raw());
  for (int64_t i = 0; i < *count; ++i)
    std::memcpy(dst + i * size, fill.raw(), size);
  c.setOutput(0, c.constant(t, "value"));
  return success();
}

const ConverterEntry kShape[] = {
    {"Reshape", convertReshape},
    {"Flatten", convertFlatten},
    {"Transpose", convertTranspose},
    {"Concat", convertConcat},
    {"Split", convertSplit},
    {"Tile", convertTile},
    {"Expand", convertExpand},
    {"Squeeze", convertSqueeze},
    {"Unsqueeze", convertUnsqueeze},
    {"Gather", convertGather},
    {"Shape", convertShape},
    {"Size", convertSize},
    {"ConstantOfShape", convertConstantOfShape},
};
} // namespace

ArrayRef<ConverterEntry> shapeConverters() { return kShape; }

} // namespace strata::onnx_import
