//===- ConvertShapeSlice.cpp - ONNX Slice and Pad to Top ------------------===//
//
// Part of the Shape family (TopShapeOps.td, helpers in ConvertShape.h):
// Slice and Pad. Their starts/ends/axes/steps and pads are attributes in
// the older schemas (Slice before version 10, Pad before 11), then inputs:
// constants become Top attributes, other inputs the runtime operands of
// top.Slice / top.Pad.
//
//===----------------------------------------------------------------------===//

#include "ConvertShape.h"

namespace strata::onnx_import {
namespace {

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
                                          ScatterReductionAttr::get(c.builder().getContext(), ScatterReduction::None));
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
                                PadModeAttr::get(b.getContext(), PadMode::Constant),
                                b.getF64FloatAttr(0.0), padsValue);
  Value zeros = c.constant(Tensor(DType::Bool, *shape), "mask_in");
  auto mask = c.create<PadOp>(b.getI1Type(), zeros, pads,
                              PadModeAttr::get(b.getContext(), PadMode::Constant),
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
  auto modeAttr = PadModeAttr::get(c.context(), *symbolizePadMode(*mode));
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
                                       modeAttr,
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
                                     modeAttr,
                                     b.getF64FloatAttr(value)));
}

const ConverterEntry kShapeSlice[] = {
    {"Slice", convertSlice},
    {"Pad", convertPad},
};
} // namespace

ArrayRef<ConverterEntry> shapeSliceConverters() { return kShapeSlice; }

} // namespace strata::onnx_import
