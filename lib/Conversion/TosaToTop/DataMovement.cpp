//===- DataMovement.cpp - TOSA data movement ops to Top -------------------===//
//
// const (a top.Weight carrying the data), identity, reshape, slice, pad,
// concat, transpose, tile, reverse, gather, scatter and resize. Shape
// operands (tosa.const_shape) are read as constants; a shape computed at run
// time is an error naming the operand.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

NamedAttribute i64Array(OpBuilder &b, StringRef name, ArrayRef<int64_t> v) {
  return b.getNamedAttr(name, b.getDenseI64ArrayAttr(v));
}

struct Const : TosaPattern<tosa::ConstOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ConstOp op, Adaptor,
                         OpBuilder &b) const override {
    return weight(b, op.getLoc(), op.getValues());
  }
};

struct Identity : TosaPattern<tosa::IdentityOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::IdentityOp, Adaptor a,
                         OpBuilder &) const override {
    return a.getInput1();
  }
};

/// top.<name> of `op`'s first input with its constant operand `v` (the
/// field `field`) as the i64 array attribute `attr`.
FailureOr<Value> withConstArray(OpBuilder &b, Operation *op, StringRef name,
                                Value input, Value v, StringRef field,
                                StringRef attr) {
  FailureOr<SmallVector<int64_t>> values = requireConstInts(op, v, field);
  if (failed(values))
    return failure();
  return makeTop(b, op->getLoc(), name, op->getResult(0).getType(), input,
                 {i64Array(b, attr, *values)});
}

struct Reshape : TosaPattern<tosa::ReshapeOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ReshapeOp op, Adaptor a,
                         OpBuilder &b) const override {
    return withConstArray(b, op, "Reshape", a.getInput1(), op.getShape(),
                          "shape", "shape");
  }
};

struct Slice : TosaPattern<tosa::SliceOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::SliceOp op, Adaptor a,
                         OpBuilder &b) const override {
    FailureOr<SmallVector<int64_t>> start =
        requireConstInts(op, op.getStart(), "start");
    FailureOr<SmallVector<int64_t>> size =
        requireConstInts(op, op.getSize(), "size");
    if (failed(start) || failed(size))
      return failure();
    RankedTensorType it = tensorType(a.getInput1());
    SmallVector<int64_t> ends, axes;
    for (size_t i = 0; i < start->size(); ++i) {
      int64_t n =
          (*size)[i] == -1 ? it.getDimSize(i) - (*start)[i] : (*size)[i];
      if ((*start)[i] < 0 || n < 0 ||
          (!it.isDynamicDim(i) && (*start)[i] + n > it.getDimSize(i)))
        return unsupported(op, "start/size",
                           "dim " + Twine(i) + ": [" + Twine((*start)[i]) +
                               ", +" + Twine(n) + ") is out of bounds");
      ends.push_back((*start)[i] + n);
      axes.push_back(static_cast<int64_t>(i));
    }
    return makeTop(b, op.getLoc(), "Slice", op.getType(), a.getInput1(),
                   {i64Array(b, "starts", *start), i64Array(b, "ends", ends),
                    i64Array(b, "axes", axes)});
  }
};

struct Pad : TosaPattern<tosa::PadOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::PadOp op, Adaptor a,
                         OpBuilder &b) const override {
    FailureOr<SmallVector<int64_t>> padding =
        requireConstInts(op, op.getPadding(), "padding");
    FailureOr<SmallVector<double>> value = constFloats(op.getPadConst());
    if (failed(padding))
      return failure();
    if (failed(value) || value->size() != 1)
      return unsupported(op, "pad_const", "must be a constant with one value");
    SmallVector<int64_t> pads;
    for (size_t i = 0; i < padding->size(); i += 2)
      pads.push_back((*padding)[i]);
    for (size_t i = 1; i < padding->size(); i += 2)
      pads.push_back((*padding)[i]);
    for (int64_t p : pads)
      if (p < 0)
        return unsupported(op, "padding",
                           "negative padding " + Twine(p) + " is not handled");
    return makeTop(b, op.getLoc(), "Pad", op.getType(), a.getInput1(),
                   {i64Array(b, "pads", pads),
                    b.getNamedAttr("value", b.getF64FloatAttr((*value)[0]))});
  }
};

struct Concat : TosaPattern<tosa::ConcatOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ConcatOp op, Adaptor a,
                         OpBuilder &b) const override {
    return makeTop(b, op.getLoc(), "Concat", op.getType(), a.getInput1(),
                   {b.getNamedAttr("axis", b.getI64IntegerAttr(op.getAxis()))});
  }
};

struct Transpose : TosaPattern<tosa::TransposeOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::TransposeOp op, Adaptor a,
                         OpBuilder &b) const override {
    SmallVector<int64_t> order(op.getPerms().begin(), op.getPerms().end());
    return makeTop(b, op.getLoc(), "Permute", op.getType(), a.getInput1(),
                   {i64Array(b, "order", order)});
  }
};

struct Tile : TosaPattern<tosa::TileOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::TileOp op, Adaptor a,
                         OpBuilder &b) const override {
    return withConstArray(b, op, "Tile", a.getInput1(), op.getMultiples(),
                          "multiples", "repeats");
  }
};

/// reverse: a slice with step -1 along the axis.
struct Reverse : TosaPattern<tosa::ReverseOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ReverseOp op, Adaptor a,
                         OpBuilder &b) const override {
    return makeTop(b, op.getLoc(), "Slice", op.getType(), a.getInput1(),
                   {i64Array(b, "starts", {-1}),
                    i64Array(b, "ends", {std::numeric_limits<int64_t>::min()}),
                    i64Array(b, "axes", {int64_t(op.getAxis())}),
                    i64Array(b, "steps", {-1})});
  }
};

/// indices [N, W] as [N, W, 1].
Value indicesColumn(OpBuilder &b, Location loc, Value indices) {
  RankedTensorType t = tensorType(indices);
  SmallVector<int64_t> shape(t.getShape());
  shape.push_back(1);
  return makeTop(b, loc, "Reshape",
                 RankedTensorType::get(shape, t.getElementType()), indices,
                 {i64Array(b, "shape", shape)});
}

/// gather: values [N, K, C], indices [N, W] -> [N, W, C], a top.GatherND
/// with one batch dim.
struct Gather : TosaPattern<tosa::GatherOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::GatherOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    return makeTop(b, loc, "GatherND", op.getType(),
                   {a.getValues(), indicesColumn(b, loc, a.getIndices())},
                   {b.getNamedAttr("batch_dims", b.getI64IntegerAttr(1))});
  }
};

/// scatter: values_in [N, K, C], indices [N, W], input [N, W, C]; a
/// top.ScatterND with full indices (n, indices[n, w]).
struct Scatter : TosaPattern<tosa::ScatterOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ScatterOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    RankedTensorType it = tensorType(a.getIndices());
    if (!it.hasStaticShape())
      return unsupported(op, "indices", "must have a static shape");
    int64_t n = it.getDimSize(0), w = it.getDimSize(1);
    Type elem = it.getElementType();
    SmallVector<int64_t> batch;
    for (int64_t i = 0; i < n; ++i)
      batch.append(w, i);
    Value nIdx =
        intConst(b, loc, RankedTensorType::get({n, w, 1}, elem), batch);
    Value idx =
        makeTop(b, loc, "Concat", RankedTensorType::get({n, w, 2}, elem),
                {nIdx, indicesColumn(b, loc, a.getIndices())},
                {b.getNamedAttr("axis", b.getI64IntegerAttr(2))});
    return makeTop(b, loc, "ScatterND", op.getType(),
                   {a.getValuesIn(), idx, a.getInput()});
  }
};

/// resize: output y maps to the input coordinate (y * d + offset) / n.
/// With offset 0 that is Top's `asymmetric` mode with coordinate scale n/d;
/// with 2 * offset == d - n it is `half_pixel`. NEAREST rounds halves up
/// (`round_prefer_ceil`); BILINEAR is `linear` (floats only).
struct Resize : TosaPattern<tosa::ResizeOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::ResizeOp op, Adaptor a,
                         OpBuilder &b) const override {
    FailureOr<SmallVector<int64_t>> scale =
        requireConstInts(op, op.getScale(), "scale");
    FailureOr<SmallVector<int64_t>> offset =
        requireConstInts(op, op.getOffset(), "offset");
    if (failed(scale) || failed(offset))
      return failure();
    if (failed(requireConstInts(op, op.getBorder(), "border")))
      return failure();
    bool bilinear = op.getMode() == tosa::ResizeMode::BILINEAR;
    Type elem = op.getType().getElementType();
    if (bilinear && !isa<FloatType>(elem))
      return unsupported(op, "mode",
                         "integer BILINEAR (an unnormalized result) is not "
                         "handled");
    std::optional<top::CoordinateMode> mode;
    for (int d = 0; d < 2; ++d) {
      int64_t n = (*scale)[2 * d], dn = (*scale)[2 * d + 1];
      int64_t off = (*offset)[d];
      std::optional<top::CoordinateMode> m;
      if (off == 0)
        m = top::CoordinateMode::Asymmetric;
      else if (2 * off == dn - n)
        m = top::CoordinateMode::HalfPixel;
      if (n == dn && off == 0 && mode)
        m = mode; // identity along this dim: either mode
      if (!m || (mode && *mode != *m))
        return unsupported(op, "offset",
                           "[" + Twine((*offset)[0]) + ", " +
                               Twine((*offset)[1]) + "] with scale [" +
                               Twine((*scale)[0]) + ", " + Twine((*scale)[1]) +
                               ", " + Twine((*scale)[2]) + ", " +
                               Twine((*scale)[3]) +
                               "] is neither 0 nor (d - n) / 2 on both axes");
      mode = m;
    }
    MLIRContext *ctx = b.getContext();
    SmallVector<double> coord{1.0, double((*scale)[0]) / (*scale)[1],
                              double((*scale)[2]) / (*scale)[3], 1.0};
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("mode",
                       top::InterpolationAttr::get(
                           ctx, bilinear ? top::Interpolation::Linear
                                         : top::Interpolation::Nearest)),
        b.getNamedAttr("coordinate_transformation_mode",
                       top::CoordinateModeAttr::get(ctx, *mode)),
        b.getNamedAttr(
            "nearest_mode",
            top::NearestModeAttr::get(ctx, top::NearestMode::RoundPreferCeil)),
        i64Array(b, "sizes", op.getType().getShape()),
        b.getNamedAttr("coordinate_scales", b.getDenseF64ArrayAttr(coord))};
    return makeTop(b, op.getLoc(), "Resize", op.getType(), a.getInput(), attrs);
  }
};

} // namespace

void populateTosaToTopDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<Const, Identity, Reshape, Slice, Pad, Concat, Transpose, Tile,
               Reverse, Gather, Scatter, Resize>(patterns.getContext());
}

} // namespace strata::conversion
