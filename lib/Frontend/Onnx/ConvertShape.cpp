//===- ConvertShape.cpp - ONNX shape and data-movement ops to Top ===//
//
// Transpose, Concat, Split, Slice, Pad, Tile, Expand, Squeeze, Unsqueeze,
// Shape, Size, ConstantOfShape, the Reduce* family and ArgMax/ArgMin.
// Operands that Top takes as attributes (axes, pads, repeats, ...) must be
// constants; ops whose result only depends on static shapes become
// constants.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <limits>

namespace strata::onnx_import {
namespace {

using IntList = std::vector<int64_t>;
using OptIntList = std::optional<IntList>;

DenseI64ArrayAttr i64s(NodeContext &c, ArrayRef<int64_t> v) {
  return c.builder().getDenseI64ArrayAttr(v);
}

/// Input `i` as constant integers; `what` names it in the error.
FailureOr<IntList> requireConstInts(NodeContext &c, size_t i,
                                    StringRef what) {
  if (!c.hasInput(i))
    return c.error() << "input '" << what << "' is required";
  auto v = c.constantInts(i);
  if (!v)
    return c.error() << "the '" << what << "' input must be a constant";
  return *v;
}

/// An int list that is attribute `name` before schema version `inputSince`
/// and optional input `index` from then on.
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

/// Normalizes every entry of `axes` into [0, rank) and rejects duplicates.
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

/// The data type of an element type, or an error naming it.
FailureOr<DType> dtypeFor(NodeContext &c, Type elem) {
  auto dt = elem ? dtypeOf(elem) : std::nullopt;
  if (!dt)
    return c.error() << "element type " << elem
                     << " has no constant representation";
  return *dt;
}

/// Reshapes `x` to `shape`. top.Reshape reads 0 as "copy the input dim", so
/// an empty result (which has no data) becomes a constant instead.
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

//===--- Slice, Pad, Tile, Expand ---===//

/// Slice's starts/ends/axes/steps: attributes before opset 10, inputs since.
struct SliceParams {
  IntList starts, ends;
  OptIntList axes, steps;
};

FailureOr<SliceParams> readSliceParams(NodeContext &c) {
  SliceParams p;
  if (c.version() < 10) {
    auto s = c.attrInts("starts");
    auto e = c.attrInts("ends");
    auto a = c.attrInts("axes");
    if (failed(s) || failed(e) || failed(a))
      return failure();
    if (!*s || !*e)
      return c.error() << "attributes 'starts' and 'ends' are required";
    p.starts = **s;
    p.ends = **e;
    p.axes = *a;
    return p;
  }
  auto s = requireConstInts(c, 1, "starts");
  auto e = requireConstInts(c, 2, "ends");
  auto a = attrOrInputInts(c, "axes", 0, 3);
  auto st = attrOrInputInts(c, "steps", 0, 4);
  if (failed(s) || failed(e) || failed(a) || failed(st))
    return failure();
  p.starts = *s;
  p.ends = *e;
  p.axes = *a;
  p.steps = *st;
  return p;
}

/// `x` converted to element type `to` (itself if it has it). Float
/// functions on integer data compute in f64 and truncate back, as the ONNX
/// reference (numpy) does.
FailureOr<Value> castTo(NodeContext &c, Value x, Type to) {
  if (cast<ShapedType>(x.getType()).getElementType() == to)
    return x;
  return c.create<CastOp>(to, x);
}

/// Slice-10+ whose starts/ends/axes/steps are not all constants: they are
/// cast to i64 and stacked into top.Slice's [4, n] 'bounds_value' operand
/// (absent axes are 0 .. n-1, absent steps 1).
LogicalResult convertRuntimeSlice(NodeContext &c) {
  auto shape = c.inputShape(1);
  if (!shape || shape->size() != 1 || (*shape)[0] < 0)
    return c.error() << "a runtime 'starts' input must be 1-D with a static "
                        "length";
  int64_t n = (*shape)[0];
  OpBuilder &b = c.builder();
  Type i64 = b.getI64Type();
  SmallVector<Value> rows;
  for (size_t i = 1; i <= 4; ++i) {
    Value row;
    if (c.hasInput(i)) {
      auto asI64 = castTo(c, c.input(i), i64);
      if (failed(asI64))
        return failure();
      row = *asI64;
    } else {
      Tensor t(DType::I64, {n});
      for (int64_t k = 0; k < n; ++k)
        t.data<int64_t>()[k] = i == 3 ? k : 1;
      row = c.constant(t, i == 3 ? "axes" : "steps");
    }
    auto r = reshapeValue(c, row, {1, n});
    if (failed(r))
      return failure();
    rows.push_back(*r);
  }
  auto bounds = c.create<ConcatOp>(i64, ValueRange(rows), b.getI64IntegerAttr(0));
  if (failed(bounds))
    return failure();
  return c.setResult(c.create<SliceOp>(elemOf(c, 0), c.input(0), i64s(c, {}),
                                       i64s(c, {}), DenseI64ArrayAttr(),
                                       DenseI64ArrayAttr(), *bounds));
}

LogicalResult convertSlice(NodeContext &c) {
  if (c.version() >= 10) {
    for (size_t i = 1; i <= 4; ++i)
      if (c.hasInput(i) && !c.constantInput(i))
        return convertRuntimeSlice(c);
  }
  auto rank = c.requireRank(0);
  auto p = readSliceParams(c);
  if (failed(rank) || failed(p))
    return failure();
  size_t n = p->starts.size();
  if (p->ends.size() != n || (p->axes && p->axes->size() != n) ||
      (p->steps && p->steps->size() != n))
    return c.error() << "starts " << formatArray(p->starts) << ", ends "
                     << formatArray(p->ends)
                     << ", axes and steps must have the same length";
  DenseI64ArrayAttr axesAttr, stepsAttr;
  if (p->axes) {
    auto axes = normalizeAxes(c, "axes", *p->axes, *rank);
    if (failed(axes))
      return failure();
    axesAttr = i64s(c, *axes);
  }
  if (p->steps) {
    if (llvm::is_contained(*p->steps, 0))
      return c.error() << "steps " << formatArray(*p->steps)
                       << " must not contain 0";
    stepsAttr = i64s(c, *p->steps);
  }
  return c.setResult(c.create<SliceOp>(elemOf(c, 0), c.input(0),
                                       i64s(c, p->starts), i64s(c, p->ends),
                                       axesAttr, stepsAttr));
}

/// Spreads pads given for `axes` over all `rank` dims.
FailureOr<IntList> expandPads(NodeContext &c, ArrayRef<int64_t> pads,
                              const OptIntList &axesIn, int64_t rank) {
  IntList axes;
  if (axesIn) {
    auto a = normalizeAxes(c, "axes", *axesIn, rank);
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  int64_t n = axes.size();
  if (static_cast<int64_t>(pads.size()) != 2 * n)
    return c.error() << "pads " << formatArray(pads) << " must have "
                     << 2 * n << " values (2 per padded axis)";
  IntList full(2 * rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    full[axes[i]] = pads[i];
    full[axes[i] + rank] = pads[i + n];
  }
  return full;
}

/// Pad-18+'s 'pads' for the dims of 'axes' (input 3, all dims if absent),
/// either known at run time only, as the full i64 pads of a rank-`rank`
/// input: the [begins; ends] rows scattered along dim 1 of a [2, rank]
/// zero tensor at the axes (ScatterElements counts negative axes from the
/// back and rejects axes out of range at run time).
FailureOr<Value> runtimeFullPads(NodeContext &c, int64_t rank) {
  auto padsShape = c.inputShape(1);
  if (!padsShape || padsShape->size() != 1 || (*padsShape)[0] % 2 != 0)
    return c.error() << "'pads' must be 1-D with an even static length";
  int64_t n = (*padsShape)[0] / 2;
  Type i64 = c.builder().getI64Type();
  auto pads = castTo(c, c.input(1), i64);
  if (failed(pads))
    return failure();
  if (!c.hasInput(3)) {
    if (n != rank)
      return c.error() << "'pads' has " << 2 * n << " values, expected "
                       << 2 * rank;
    return *pads;
  }
  auto axesShape = c.inputShape(3);
  if (!axesShape || axesShape->size() != 1 || (*axesShape)[0] != n)
    return c.error() << "'axes' must be 1-D with " << n
                     << " values (half the pads)";
  auto axes = castTo(c, c.input(3), i64);
  if (failed(axes))
    return failure();
  auto row = reshapeValue(c, *axes, {1, n});
  if (failed(row))
    return failure();
  auto index = c.create<ConcatOp>(i64, ValueRange{*row, *row},
                                  c.builder().getI64IntegerAttr(0));
  auto updates = reshapeValue(c, *pads, {2, n});
  if (failed(index) || failed(updates))
    return failure();
  Value zeros = c.constant(Tensor(DType::I64, {2, rank}), "pads_zero");
  auto full = c.create<ScatterElementsOp>(i64, zeros, *index, *updates,
                                          c.builder().getI64IntegerAttr(1),
                                          c.builder().getStringAttr("none"));
  if (failed(full))
    return failure();
  return reshapeValue(c, *full, {2 * rank});
}

/// Constant-mode pad whose fill value is a runtime scalar: pad with 0, then
/// select the value where a (constant-folded) mask marks padding.
LogicalResult padWithRuntimeValue(NodeContext &c, DenseI64ArrayAttr pads,
                                  Value padsValue = Value()) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  OpBuilder &b = c.builder();
  Type elem = elemOf(c, 0);
  auto padded = c.create<PadOp>(elem, c.input(0), pads,
                                b.getStringAttr("constant"),
                                b.getF64FloatAttr(0.0), padsValue);
  Value zeros = c.constant(Tensor(DType::Bool, *shape), "mask_in");
  auto mask = c.create<PadOp>(b.getI1Type(), zeros, pads,
                              b.getStringAttr("constant"),
                              b.getF64FloatAttr(1.0), padsValue);
  if (failed(padded) || failed(mask))
    return failure();
  return c.setResult(c.create<WhereOp>(elem, *mask, c.input(2), *padded));
}

LogicalResult convertPad(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto mode = c.attrString("mode", "constant");
  if (failed(rank) || failed(mode))
    return failure();
  bool wrap = *mode == "wrap" && c.version() >= 19;
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge" && !wrap)
    return c.error() << "attribute 'mode' has invalid value '" << *mode
                     << "'" << (*mode == "wrap" ? " (before Pad-19)" : "");
  IntList pads;
  OptIntList axes;
  double value = 0.0;
  bool runtimeValue = false;
  if (c.version() < 11) {
    auto p = c.attrInts("pads");
    auto v = c.attrFloat("value", 0.0f);
    if (failed(p) || failed(v))
      return failure();
    if (!*p)
      return c.error() << "attribute 'pads' is required";
    pads = **p;
    value = *v;
  } else if ((c.hasInput(1) && !c.constantInput(1)) ||
             (c.hasInput(3) && !c.constantInput(3))) {
    // Pads (or axes) known at run time only: the full pads are an operand
    // (result dims `?`).
    auto rank = c.requireRank(0);
    if (failed(rank))
      return failure();
    auto padsValue = runtimeFullPads(c, *rank);
    if (failed(padsValue))
      return failure();
    if (c.hasInput(2) && !c.constantInput(2) && *mode == "constant")
      return padWithRuntimeValue(c, i64s(c, {}), *padsValue);
    double fill = 0.0;
    if (const Tensor *t = c.hasInput(2) ? c.constantInput(2) : nullptr) {
      if (t->numElements() != 1)
        return c.error() << "'constant_value' must hold one element, has "
                         << t->numElements();
      fill = t->getAsDouble(0);
    }
    OpBuilder &b = c.builder();
    return c.setResult(c.create<PadOp>(elemOf(c, 0), c.input(0), i64s(c, {}),
                                       b.getStringAttr(*mode),
                                       b.getF64FloatAttr(fill), *padsValue));
  } else {
    auto p = requireConstInts(c, 1, "pads");
    auto a = attrOrInputInts(c, "axes", 0, 3);
    if (failed(p) || failed(a))
      return failure();
    pads = *p;
    axes = *a;
    if (c.hasInput(2) && *mode == "constant") {
      const Tensor *t = c.constantInput(2);
      if (t && t->numElements() != 1)
        return c.error() << "'constant_value' must hold one element, has "
                         << t->numElements();
      if (t)
        value = t->getAsDouble(0);
      runtimeValue = !t;
    }
  }
  auto full = expandPads(c, pads, axes, *rank);
  if (failed(full))
    return failure();
  if (runtimeValue)
    return padWithRuntimeValue(c, i64s(c, *full));
  OpBuilder &b = c.builder();
  return c.setResult(c.create<PadOp>(elemOf(c, 0), c.input(0), i64s(c, *full),
                                     b.getStringAttr(*mode),
                                     b.getF64FloatAttr(value)));
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

//===--- Reductions ---===//

/// How a Reduce* op is built from top.Reduce: an elementwise step before,
/// the reduction, and one after.
enum class Pre { None, Abs, Square };
enum class Post { None, Sqrt, Log };

struct ReduceRecipe {
  const char *mode;
  Pre pre;
  Post post;
};

/// Schema version from which 'axes' is an input instead of an attribute.
int64_t axesInputSince(NodeContext &c) {
  return c.node().op_type() == "ReduceSum" ? 13 : 18;
}

FailureOr<Value> applyPre(NodeContext &c, Pre pre, Value x, Type elem) {
  switch (pre) {
  case Pre::None:
    return x;
  case Pre::Abs:
    return c.create<AbsOp>(elem, x);
  case Pre::Square:
    return c.create<MulOp>(elem, x, x, c.builder().getBoolAttr(false));
  }
  return x;
}

FailureOr<Value> applyPost(NodeContext &c, Post post, Value x, Type elem) {
  if (post == Post::Sqrt)
    return c.create<SqrtOp>(elem, x);
  if (post == Post::Log)
    return c.create<LogOp>(elem, x);
  return x;
}

/// The axes of a Reduce* node: normalized constants (empty: all, or none
/// with noop_with_empty_axes), or a non-empty runtime 'axes' input.
struct ReduceAxes {
  IntList axes;
  Value runtime;
};

FailureOr<ReduceAxes> readReduceAxes(NodeContext &c, int64_t rank) {
  if (c.version() >= axesInputSince(c) && c.hasInput(1) &&
      !c.constantInts(1)) {
    auto shape = c.inputShape(1);
    if (!shape || shape->size() != 1 || (*shape)[0] < 0)
      return c.error() << "a runtime 'axes' input must be 1-D with a static "
                          "length";
    // An empty axes tensor has no data to wait for.
    if ((*shape)[0] == 0)
      return ReduceAxes{};
    return ReduceAxes{{}, c.input(1)};
  }
  auto axesIn = attrOrInputInts(c, "axes", axesInputSince(c), 1);
  if (failed(axesIn))
    return failure();
  if (!*axesIn)
    return ReduceAxes{};
  auto axes = normalizeAxes(c, "axes", **axesIn, rank);
  if (failed(axes))
    return failure();
  return ReduceAxes{*axes, Value()};
}

/// top.Reduce of `x` over `axes` (the attribute, or the runtime operand).
FailureOr<Value> createReduce(NodeContext &c, Value x, StringRef mode,
                              const ReduceAxes &axes, bool keep) {
  OpBuilder &b = c.builder();
  return c.create<ReduceOp>(cast<ShapedType>(x.getType()).getElementType(), x,
                            i64s(c, axes.axes), b.getBoolAttr(keep),
                            b.getStringAttr(mode), axes.runtime);
}

LogicalResult convertReduceWith(NodeContext &c, const ReduceRecipe &r) {
  auto rank = c.requireRank(0);
  auto keep = c.attrInt("keepdims", 1);
  auto noop = c.attrInt("noop_with_empty_axes", 0);
  if (failed(rank) || failed(keep) || failed(noop))
    return failure();
  auto axesOr = readReduceAxes(c, *rank);
  if (failed(axesOr))
    return failure();
  const ReduceAxes &axes = *axesOr;
  Type elem = elemOf(c, 0);
  bool isInt = !isa<FloatType>(elem);
  Type f64 = c.builder().getF64Type();
  auto v = applyPre(c, r.pre, c.input(0), elem);
  if (failed(v))
    return failure();
  // noop_with_empty_axes: no reduction, only the elementwise steps.
  if (!(axes.axes.empty() && !axes.runtime && *noop)) {
    v = createReduce(c, *v, r.mode, axes, *keep != 0);
    if (failed(v))
      return failure();
  }
  if (r.post != Post::None && isInt) {
    v = castTo(c, *v, f64);
    if (failed(v))
      return failure();
  }
  Type postElem = cast<ShapedType>(v->getType()).getElementType();
  v = applyPost(c, r.post, *v, postElem);
  if (failed(v))
    return failure();
  v = castTo(c, *v, elem);
  return c.setResult(v);
}

#define REDUCE(NAME, MODE, PRE, POST)                                          \
  LogicalResult convert##NAME(NodeContext &c) {                                \
    return convertReduceWith(c, {MODE, Pre::PRE, Post::POST});                 \
  }
REDUCE(ReduceSum, "ReduceSum", None, None)
REDUCE(ReduceMean, "ReduceMean", None, None)
REDUCE(ReduceMax, "ReduceMax", None, None)
REDUCE(ReduceMin, "ReduceMin", None, None)
REDUCE(ReduceProd, "ReduceProd", None, None)
REDUCE(ReduceL1, "ReduceSum", Abs, None)
REDUCE(ReduceL2, "ReduceSum", Square, Sqrt)
REDUCE(ReduceSumSquare, "ReduceSum", Square, None)
REDUCE(ReduceLogSum, "ReduceSum", None, Log)
#undef REDUCE

/// A reduction over `axes` with kept dims (none with `noop`).
FailureOr<Value> reduceKeep(NodeContext &c, Value x, StringRef mode,
                            const ReduceAxes &axes, bool noop) {
  if (noop)
    return x;
  return createReduce(c, x, mode, axes, /*keep=*/true);
}

/// `m` clamped to the largest finite magnitude of its float type `work`.
FailureOr<Value> clampFinite(NodeContext &c, Value m, Type work) {
  auto dt = dtypeFor(c, work);
  if (failed(dt))
    return failure();
  double big = APFloat::getLargest(cast<FloatType>(work).getFloatSemantics())
                   .convertToDouble();
  Tensor lo(*dt, {}), hi(*dt, {});
  lo.setFromDouble(0, -big);
  hi.setFromDouble(0, big);
  BoolAttr noRelu = c.builder().getBoolAttr(false);
  auto below = c.create<MinOp>(work, m, c.constant(hi, "max"), noRelu);
  if (failed(below))
    return failure();
  return c.create<MaxOp>(work, *below, c.constant(lo, "lowest"), noRelu);
}

/// log(sum(exp(x - m))) + m with m the maximum clamped to the finite range,
/// as the ONNX reference and ONNX Runtime compute it (no overflow of exp).
LogicalResult convertReduceLogSumExp(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto keep = c.attrInt("keepdims", 1);
  auto noopAttr = c.attrInt("noop_with_empty_axes", 0);
  if (failed(shape) || failed(keep) || failed(noopAttr))
    return failure();
  int64_t rank = shape->size();
  auto axesOr = readReduceAxes(c, rank);
  if (failed(axesOr))
    return failure();
  const ReduceAxes &axes = *axesOr;
  bool noop = axes.axes.empty() && !axes.runtime && *noopAttr;
  Type elem = elemOf(c, 0);
  auto x = castTo(c, c.input(0), isa<FloatType>(elem)
                                      ? elem
                                      : Type(c.builder().getF64Type()));
  if (failed(x))
    return failure();
  Type work = cast<ShapedType>(x->getType()).getElementType();
  auto m = reduceKeep(c, *x, "ReduceMax", axes, noop);
  if (failed(m))
    return failure();
  auto mc = clampFinite(c, *m, work);
  if (failed(mc))
    return failure();
  auto d = c.create<SubOp>(work, *x, *mc, c.builder().getBoolAttr(false));
  if (failed(d))
    return failure();
  auto e = c.create<ExpOp>(work, *d);
  if (failed(e))
    return failure();
  auto sum = reduceKeep(c, *e, "ReduceSum", axes, noop);
  if (failed(sum))
    return failure();
  auto lg = c.create<LogOp>(work, *sum);
  if (failed(lg))
    return failure();
  auto r = c.create<AddOp>(work, *lg, *mc, c.builder().getBoolAttr(false));
  if (failed(r))
    return failure();
  if (!*keep && !noop && axes.runtime) {
    // Drops the reduced dims (all 1 now): a max over one element each.
    r = createReduce(c, *r, "ReduceMax", axes, /*keep=*/false);
    if (failed(r))
      return failure();
  } else if (!*keep && !noop) {
    IntList out;
    for (int64_t i = 0; i < rank; ++i)
      if (!(axes.axes.empty() || llvm::is_contained(axes.axes, i)))
        out.push_back((*shape)[i]);
    r = reshapeValue(c, *r, out);
    if (failed(r))
      return failure();
  }
  return c.setResult(castTo(c, *r, elem));
}

//===--- ArgMax, ArgMin ---===//

LogicalResult convertArgWith(NodeContext &c, Value x) {
  auto rank = c.requireRank(0);
  auto axisAttr = c.attrInt("axis", 0);
  auto keep = c.attrInt("keepdims", 1);
  auto last = c.attrInt("select_last_index", 0);
  if (failed(rank) || failed(axisAttr) || failed(keep) || failed(last))
    return failure();
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, *rank);
  if (failed(axis))
    return failure();
  OpBuilder &b = c.builder();
  return c.setResult(
      c.create<ArgMaxOp>(b.getI64Type(), x, b.getI64IntegerAttr(*axis),
                         b.getBoolAttr(*keep != 0), b.getBoolAttr(*last != 0)));
}

LogicalResult convertArgMax(NodeContext &c) {
  return convertArgWith(c, c.input(0));
}

/// ArgMin is ArgMax of an order-reversing bijection: -x for floats (NaN
/// stays the maximum, as in numpy), -1 - x for signed and MAX - x for
/// unsigned integers (neither overflows).
LogicalResult convertArgMin(NodeContext &c) {
  Type elem = elemOf(c, 0);
  if (isa_and_nonnull<FloatType>(elem)) {
    auto neg = c.create<NegOp>(elem, c.input(0));
    return failed(neg) ? failure() : convertArgWith(c, *neg);
  }
  auto dt = dtypeFor(c, elem);
  if (failed(dt))
    return failure();
  if (!isSignedInt(*dt) && !isUnsignedInt(*dt))
    return c.error() << "element type " << elem << " is not supported";
  Tensor top(*dt, {});
  if (isSignedInt(*dt))
    top.setFromDouble(0, -1.0);
  else
    std::memset(top.raw(), 0xff, dtypeSize(*dt)); // the type's maximum
  auto flipped = c.create<SubOp>(elem, c.constant(top, "flip"), c.input(0),
                                 c.builder().getBoolAttr(false));
  return failed(flipped) ? failure() : convertArgWith(c, *flipped);
}

const ConverterEntry kShape[] = {
    {"Transpose", convertTranspose},
    {"Concat", convertConcat},
    {"Split", convertSplit},
    {"Slice", convertSlice},
    {"Pad", convertPad},
    {"Tile", convertTile},
    {"Expand", convertExpand},
    {"Squeeze", convertSqueeze},
    {"Unsqueeze", convertUnsqueeze},
    {"Shape", convertShape},
    {"Size", convertSize},
    {"ConstantOfShape", convertConstantOfShape},
    {"ReduceSum", convertReduceSum},
    {"ReduceMean", convertReduceMean},
    {"ReduceMax", convertReduceMax},
    {"ReduceMin", convertReduceMin},
    {"ReduceProd", convertReduceProd},
    {"ReduceL1", convertReduceL1},
    {"ReduceL2", convertReduceL2},
    {"ReduceSumSquare", convertReduceSumSquare},
    {"ReduceLogSum", convertReduceLogSum},
    {"ReduceLogSumExp", convertReduceLogSumExp},
    {"ArgMax", convertArgMax},
    {"ArgMin", convertArgMin},
};
} // namespace

ArrayRef<ConverterEntry> shapeConverters() { return kShape; }

} // namespace strata::onnx_import
