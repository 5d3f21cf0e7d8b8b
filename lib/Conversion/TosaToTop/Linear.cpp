//===- Linear.cpp - TOSA convolutions, matmul and pools to Top ------------===//
//
// NHWC stays NHWC: Top's Conv, Deconv and pools take `layout = NHWC` with
// TOSA's OHWI filters; top-convert-layout rewrites them later if asked.
// TOSA's pads are [top, bottom, left, right]; Top's are all begins then all
// ends ([top, left, bottom, right]).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

/// TOSA's [b0, e0, b1, e1, ...] pads as Top's [b0, b1, ..., e0, e1, ...].
SmallVector<int64_t> topPads(ArrayRef<int64_t> pads) {
  SmallVector<int64_t> out;
  for (size_t i = 0; i < pads.size(); i += 2)
    out.push_back(pads[i]);
  for (size_t i = 1; i < pads.size(); i += 2)
    out.push_back(pads[i]);
  return out;
}

NamedAttribute nhwc(OpBuilder &b) {
  return b.getNamedAttr(
      "layout", top::LayoutAttr::get(b.getContext(), top::Layout::NHWC));
}

/// The bias operand for a Top conv with `oc` output channels: the TOSA bias
/// itself when it has oc values (or oc == 1), else none (`addAfter` is set:
/// a one-value bias is added to the result).
Value convBias(OpBuilder &b, Location loc, Value bias, int64_t oc,
               bool &addAfter) {
  int64_t n = tensorType(bias).getDimSize(0);
  addAfter = n != oc;
  if (!addAfter)
    return bias;
  return makeTop(b, loc, "None", b.getNoneType(), {});
}

/// The checks shared by the convolutions: zero points and accumulator.
LogicalResult convZeroPoints(Operation *op, Value inZp, Value wZp, int64_t &izp,
                             int64_t &wzp) {
  FailureOr<int64_t> i = zeroPoint(op, inZp, "input_zp");
  FailureOr<int64_t> w = zeroPoint(op, wZp, "weight_zp");
  if (failed(i) || failed(w))
    return failure();
  izp = *i;
  wzp = *w;
  return success();
}

/// A Top NHWC Conv (any spatial rank) of TOSA's input and OHWI filter.
FailureOr<Value> buildConv(Operation *op, OpBuilder &b, Value input,
                           Value filter, Value bias, Value inZp, Value wZp,
                           ArrayRef<int64_t> pad, ArrayRef<int64_t> stride,
                           ArrayRef<int64_t> dilation, int64_t group,
                           RankedTensorType resultType) {
  Location loc = op->getLoc();
  int64_t izp, wzp;
  if (failed(convZeroPoints(op, inZp, wZp, izp, wzp)))
    return failure();
  RankedTensorType ft = tensorType(filter);
  SmallVector<int64_t> kernel(ft.getShape().drop_front().drop_back());
  bool addAfter;
  Value topBias =
      convBias(b, loc, bias, resultType.getShape().back(), addAfter);
  SmallVector<NamedAttribute> attrs{
      b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr(kernel)),
      b.getNamedAttr("strides", b.getDenseI64ArrayAttr(stride)),
      b.getNamedAttr("pads", b.getDenseI64ArrayAttr(topPads(pad))),
      b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dilation)),
      b.getNamedAttr("group", b.getI64IntegerAttr(group)),
      nhwc(b)};
  if (izp != 0)
    attrs.push_back(b.getNamedAttr("input_zp", b.getDenseI64ArrayAttr({izp})));
  if (wzp != 0)
    attrs.push_back(b.getNamedAttr("weight_zp", b.getDenseI64ArrayAttr({wzp})));
  Value conv =
      makeTop(b, loc, "Conv", resultType, {input, filter, topBias}, attrs);
  if (addAfter)
    conv = makeTop(b, loc, "Add", resultType, {conv, bias});
  return conv;
}

/// conv2d and conv3d: the filter is OHWI (ODHWI) as Top's NHWC Conv takes.
template <typename OpTy> struct ConvPattern : TosaPattern<OpTy> {
  using TosaPattern<OpTy>::TosaPattern;
  FailureOr<Value> build(OpTy op, typename OpTy::Adaptor a,
                         OpBuilder &b) const override {
    return buildConv(op, b, a.getInput(), a.getWeight(), a.getBias(),
                     op.getInputZp(), op.getWeightZp(), op.getPad(),
                     op.getStride(), op.getDilation(), 1,
                     tensorType(op.getResult()));
  }
};

/// depthwise_conv2d: the [KH, KW, C, M] filter becomes the grouped OHWI
/// filter [C*M, KH, KW, 1] (output channel c*M + m in both).
struct DepthwiseConv2D : TosaPattern<tosa::DepthwiseConv2DOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::DepthwiseConv2DOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    RankedTensorType wt = tensorType(a.getWeight());
    if (!wt.hasStaticShape())
      return unsupported(op, "weight", "must have a static shape");
    int64_t kh = wt.getDimSize(0), kw = wt.getDimSize(1), c = wt.getDimSize(2),
            m = wt.getDimSize(3);
    Type elem = wt.getElementType();
    Value w = makeTop(
        b, loc, "Reshape", RankedTensorType::get({kh, kw, c * m, 1}, elem),
        a.getWeight(),
        {b.getNamedAttr("shape", b.getDenseI64ArrayAttr({kh, kw, c * m, 1}))});
    w = makeTop(
        b, loc, "Permute", RankedTensorType::get({c * m, kh, kw, 1}, elem), w,
        {b.getNamedAttr("order", b.getDenseI64ArrayAttr({2, 0, 1, 3}))});
    return buildConv(op, b, a.getInput(), w, a.getBias(), op.getInputZp(),
                     op.getWeightZp(), op.getPad(), op.getStride(),
                     op.getDilation(), c, tensorType(op.getResult()));
  }
};

/// transpose_conv2d: top.Deconv with the filter [OC, KH, KW, IC] as
/// [IC, KH, KW, OC]; a negative out_pad crops (Deconv's pads), a positive
/// one adds zeros around the result, and then the bias is added.
struct TransposeConv2D : TosaPattern<tosa::TransposeConv2DOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::TransposeConv2DOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    int64_t izp, wzp;
    if (failed(convZeroPoints(op, op.getInputZp(), op.getWeightZp(), izp, wzp)))
      return failure();
    if (izp != 0 || wzp != 0)
      return unsupported(op, "input_zp/weight_zp",
                         "non-zero zero points (" + Twine(izp) + ", " +
                             Twine(wzp) + ") are not handled");
    RankedTensorType wt = tensorType(a.getWeight());
    int64_t oc = wt.getDimSize(0), kh = wt.getDimSize(1), kw = wt.getDimSize(2),
            ic = wt.getDimSize(3);
    Value w = makeTop(
        b, loc, "Permute",
        RankedTensorType::get({ic, kh, kw, oc}, wt.getElementType()),
        a.getWeight(),
        {b.getNamedAttr("order", b.getDenseI64ArrayAttr({3, 1, 2, 0}))});
    ArrayRef<int64_t> outPad = op.getOutPad(); // top, bottom, left, right
    SmallVector<int64_t> crop, grow;
    bool anyGrow = false;
    for (int64_t p : outPad) {
      crop.push_back(std::max<int64_t>(0, -p));
      grow.push_back(std::max<int64_t>(0, p));
      anyGrow |= p > 0;
    }
    RankedTensorType rt = tensorType(op->getResult(0));
    SmallVector<int64_t> deconvShape(rt.getShape());
    deconvShape[1] -= grow[0] + grow[1];
    deconvShape[2] -= grow[2] + grow[3];
    bool addAfter = true;
    Value bias = makeTop(b, loc, "None", b.getNoneType(), {});
    if (!anyGrow && tensorType(a.getBias()).getDimSize(0) == oc) {
      bias = a.getBias();
      addAfter = false;
    }
    Value r = makeTop(
        b, loc, "Deconv",
        RankedTensorType::get(deconvShape, rt.getElementType()),
        {a.getInput(), w, bias},
        {b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr({kh, kw})),
         b.getNamedAttr("strides", b.getDenseI64ArrayAttr(op.getStride())),
         b.getNamedAttr("pads", b.getDenseI64ArrayAttr(topPads(crop))),
         nhwc(b)});
    if (anyGrow)
      r = makeTop(b, loc, "Pad", rt, r,
                  {b.getNamedAttr(
                      "pads", b.getDenseI64ArrayAttr({0, grow[0], grow[2], 0, 0,
                                                      grow[1], grow[3], 0}))});
    if (addAfter)
      r = makeTop(b, loc, "Add", rt, {r, a.getBias()});
    return r;
  }
};

/// matmul: top.MatMul; integer operands minus their zero points in i32.
struct MatMul : TosaPattern<tosa::MatMulOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::MatMulOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    FailureOr<int64_t> az = zeroPoint(op, op.getAZp(), "a_zp");
    FailureOr<int64_t> bz = zeroPoint(op, op.getBZp(), "b_zp");
    if (failed(az) || failed(bz))
      return failure();
    Value x = a.getA(), y = a.getB();
    Type out = op.getType().getElementType();
    if (isa<IntegerType>(out)) {
      x = castTo(b, loc, x, out);
      y = castTo(b, loc, y, out);
      if (*az)
        x = binary(b, loc, "Sub", x, scalar(b, loc, out, double(*az)));
      if (*bz)
        y = binary(b, loc, "Sub", y, scalar(b, loc, out, double(*bz)));
    }
    Value none = makeTop(b, loc, "None", b.getNoneType(), {});
    return makeTop(b, loc, "MatMul", op.getType(), {x, y, none});
  }
};

struct MaxPool2d : TosaPattern<tosa::MaxPool2dOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::MaxPool2dOp op, Adaptor a,
                         OpBuilder &b) const override {
    if (op.getNanMode() != tosa::NanPropagationMode::PROPAGATE &&
        isa<FloatType>(op.getType().getElementType()))
      return unsupported(op, "nan_mode",
                         "IGNORE is not handled for float inputs");
    return makeTop(
        b, op.getLoc(), "MaxPool", op.getType(), a.getInput(),
        {b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr(op.getKernel())),
         b.getNamedAttr("strides", b.getDenseI64ArrayAttr(op.getStride())),
         b.getNamedAttr("pads", b.getDenseI64ArrayAttr(topPads(op.getPad()))),
         nhwc(b)});
  }
};

/// TOSA's reciprocal_scale(count): 1/count as a multiplier and shift.
void reciprocalScale(int64_t count, int64_t &multiplier, int64_t &shift) {
  int64_t k = 0;
  while ((int64_t(1) << k) < count)
    ++k; // (1 << k) / 2 < count <= (1 << k)
  int64_t numerator = ((int64_t(1) << 30) + 1) << k;
  multiplier = numerator / count;
  shift = 30 + k;
}

/// avg_pool2d: floats are top.AvgPool not counting the padding. Integers
/// follow the spec: the window sum of (x - input_zp) (a depthwise top.Conv
/// with a filter of ones), times reciprocal_scale(count) of each output
/// position's count of in-bounds elements, plus output_zp, saturated.
struct AvgPool2d : TosaPattern<tosa::AvgPool2dOp> {
  using TosaPattern::TosaPattern;
  FailureOr<Value> build(tosa::AvgPool2dOp op, Adaptor a,
                         OpBuilder &b) const override {
    Location loc = op.getLoc();
    FailureOr<int64_t> izp = zeroPoint(op, op.getInputZp(), "input_zp");
    FailureOr<int64_t> ozp = zeroPoint(op, op.getOutputZp(), "output_zp");
    if (failed(izp) || failed(ozp))
      return failure();
    RankedTensorType rt = tensorType(op->getResult(0));
    ArrayRef<int64_t> k = op.getKernel(), s = op.getStride(), p = op.getPad();
    SmallVector<NamedAttribute> window{
        b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr(k)),
        b.getNamedAttr("strides", b.getDenseI64ArrayAttr(s)),
        b.getNamedAttr("pads", b.getDenseI64ArrayAttr(topPads(p)))};
    Type elem = rt.getElementType();
    if (isa<FloatType>(elem)) {
      window.push_back(nhwc(b));
      return makeTop(b, loc, "AvgPool", rt, a.getInput(), window);
    }
    RankedTensorType it = tensorType(a.getInput());
    if (!it.hasStaticShape() || !rt.hasStaticShape())
      return unsupported(op, "input", "an integer pool needs static shapes");
    int64_t c = it.getDimSize(3), ih = it.getDimSize(1), iw = it.getDimSize(2);
    int64_t oh = rt.getDimSize(1), ow = rt.getDimSize(2);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value ones = intConst(
        b, loc, RankedTensorType::get({c, k[0], k[1], 1}, it.getElementType()),
        {1});
    window.push_back(b.getNamedAttr("group", b.getI64IntegerAttr(c)));
    window.push_back(nhwc(b));
    if (*izp)
      window.push_back(
          b.getNamedAttr("input_zp", b.getDenseI64ArrayAttr({*izp})));
    Value none = makeTop(b, loc, "None", b.getNoneType(), {});
    Value sum = makeTop(b, loc, "Conv", withElement(rt, i32),
                        {a.getInput(), ones, none}, window);
    SmallVector<int64_t> mult, shift;
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x) {
        int64_t y0 = y * s[0] - p[0], x0 = x * s[1] - p[2];
        int64_t cy = std::min(y0 + k[0], ih) - std::max<int64_t>(y0, 0);
        int64_t cx = std::min(x0 + k[1], iw) - std::max<int64_t>(x0, 0);
        int64_t count = std::max<int64_t>(cy, 0) * std::max<int64_t>(cx, 0);
        if (count <= 0)
          return unsupported(op, "pad",
                             "an output window lies wholly in the padding");
        int64_t m, sh;
        reciprocalScale(count, m, sh);
        mult.push_back(m);
        shift.push_back(sh);
      }
    Value r = applyScale(b, loc, castTo(b, loc, sum, i64), mult, shift,
                         /*doubleRound=*/false, {1, oh, ow, 1});
    r = binary(b, loc, "Add", r, scalar(b, loc, i64, double(*ozp)));
    return saturateTo(b, loc, r, elem);
  }
};

} // namespace

void populateTosaToTopLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<ConvPattern<tosa::Conv2DOp>, ConvPattern<tosa::Conv3DOp>,
               DepthwiseConv2D, TransposeConv2D, MatMul, MaxPool2d, AvgPool2d>(
      patterns.getContext());
}

} // namespace strata::conversion
