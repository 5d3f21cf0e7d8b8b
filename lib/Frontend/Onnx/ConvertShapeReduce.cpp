//===- ConvertShapeReduce.cpp - ONNX reductions, ArgMax, ArgMin to Top ----===//
//
// Part of the Shape family (TopShapeOps.td holds top.Reduce and top.ArgMax;
// helpers in ConvertShape.h): ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd as one top.Reduce; ReduceL1, ReduceL2, ReduceSumSquare,
// ReduceLogSum with an elementwise step before or after it;
// ReduceLogSumExp with the maximum subtracted first; ArgMax, and ArgMin as
// ArgMax of an order-reversing bijection. 'axes' is an attribute before
// its schema's input version, else a constant input or a runtime operand.
//
//===----------------------------------------------------------------------===//

#include "ConvertShape.h"

#include <cstring>

namespace strata::onnx_import {
namespace {

/// How a Reduce* op is built from top.Reduce: an elementwise step before,
/// the reduction, and one after.
enum class Pre { None, Abs, Square };
enum class Post { None, Sqrt, Log };

struct ReduceRecipe {
  ReduceMode mode;
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
FailureOr<Value> createReduce(NodeContext &c, Value x, ReduceMode mode,
                              const ReduceAxes &axes, bool keep) {
  OpBuilder &b = c.builder();
  return c.create<ReduceOp>(cast<ShapedType>(x.getType()).getElementType(), x,
                            i64s(c, axes.axes), b.getBoolAttr(keep),
                            ReduceModeAttr::get(b.getContext(), mode),
                            axes.runtime);
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
REDUCE(ReduceSum, ReduceMode::Sum, None, None)
REDUCE(ReduceMean, ReduceMode::Mean, None, None)
REDUCE(ReduceMax, ReduceMode::Max, None, None)
REDUCE(ReduceMin, ReduceMode::Min, None, None)
REDUCE(ReduceProd, ReduceMode::Prod, None, None)
REDUCE(ReduceL1, ReduceMode::Sum, Abs, None)
REDUCE(ReduceL2, ReduceMode::Sum, Square, Sqrt)
REDUCE(ReduceSumSquare, ReduceMode::Sum, Square, None)
REDUCE(ReduceLogSum, ReduceMode::Sum, None, Log)
#undef REDUCE

/// A reduction over `axes` with kept dims (none with `noop`).
FailureOr<Value> reduceKeep(NodeContext &c, Value x, ReduceMode mode,
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
  auto m = reduceKeep(c, *x, ReduceMode::Max, axes, noop);
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
  auto sum = reduceKeep(c, *e, ReduceMode::Sum, axes, noop);
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
    r = createReduce(c, *r, ReduceMode::Max, axes, /*keep=*/false);
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

const ConverterEntry kShapeReduce[] = {
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

ArrayRef<ConverterEntry> shapeReduceConverters() { return kShapeReduce; }

} // namespace strata::onnx_import
