//===- Signal.cpp - TOSA fft2d and rfft2d to Top --------------------------===//
//
// Both become two top.DFT ops (ONNX DFT: one axis, complex values as a last
// dim of 2): along W, then along H. TOSA's inverse fft2d does not divide by
// H * W while ONNX's inverse DFT divides by each length, so the inverse
// result is multiplied back by H * W.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

/// `v` [N, H, W, C] with C = 1 or 2 as [N, H, W, C] along `axis` (1 or 2)
/// transformed.
Value dft(OpBuilder &b, Location loc, Value v, int64_t axis, int64_t length,
          bool inverse, bool onesided) {
  RankedTensorType t = tensorType(v);
  SmallVector<int64_t> shape(t.getShape());
  if (onesided)
    shape[axis] = length / 2 + 1;
  shape.back() = 2;
  return makeTop(b, loc, "DFT",
                 RankedTensorType::get(shape, t.getElementType()), v,
                 {b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
                  b.getNamedAttr("dft_length", b.getI64IntegerAttr(length)),
                  b.getNamedAttr("inverse", b.getBoolAttr(inverse)),
                  b.getNamedAttr("onesided", b.getBoolAttr(onesided))});
}

/// [N, H, W] -> [N, H, W, 1].
Value withChannel(OpBuilder &b, Location loc, Value v) {
  RankedTensorType t = tensorType(v);
  SmallVector<int64_t> shape(t.getShape());
  shape.push_back(1);
  return makeTop(b, loc, "Reshape",
                 RankedTensorType::get(shape, t.getElementType()), v,
                 {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

/// The real and imaginary parts of [N, H, W, 2] as two [N, H, W] tensors of
/// `type`.
SmallVector<Value> parts(OpBuilder &b, Location loc, Value c,
                         RankedTensorType type) {
  SmallVector<int64_t> one(type.getShape());
  one.push_back(1);
  SmallVector<Value> out;
  for (int64_t i = 0; i < 2; ++i) {
    Value s = makeTop(b, loc, "Slice",
                      RankedTensorType::get(one, type.getElementType()), c,
                      {b.getNamedAttr("starts", b.getDenseI64ArrayAttr({i})),
                       b.getNamedAttr("ends", b.getDenseI64ArrayAttr({i + 1})),
                       b.getNamedAttr("axes", b.getDenseI64ArrayAttr({3}))});
    out.push_back(makeTop(
        b, loc, "Reshape", type, s,
        {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(type.getShape()))}));
  }
  return out;
}

LogicalResult checkStatic(Operation *op) {
  for (Type t : op->getOperandTypes())
    if (auto r = dyn_cast<RankedTensorType>(t); !r || !r.hasStaticShape())
      return unsupported(op, "input", "must have a static shape");
  for (Type t : op->getResultTypes())
    if (failed(checkElementType(op, t)))
      return failure();
  return success();
}

struct FFT2d : OpConversionPattern<tosa::FFT2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::FFT2dOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStatic(op)))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getOutputReal().getType());
    int64_t h = type.getDimSize(1), w = type.getDimSize(2);
    Value re = withChannel(rewriter, loc, a.getInputReal());
    Value im = withChannel(rewriter, loc, a.getInputImag());
    SmallVector<int64_t> shape(type.getShape());
    shape.push_back(2);
    Value c =
        makeTop(rewriter, loc, "Concat",
                RankedTensorType::get(shape, type.getElementType()), {re, im},
                {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(3))});
    bool inverse = op.getInverse();
    c = dft(rewriter, loc, c, 2, w, inverse, false);
    c = dft(rewriter, loc, c, 1, h, inverse, false);
    if (inverse)
      c = binary(rewriter, loc, "Mul", c,
                 scalar(rewriter, loc, type.getElementType(), double(h * w)));
    rewriter.replaceOp(op, parts(rewriter, loc, c, type));
    return success();
  }
};

/// rfft2d: a one-sided DFT of the real input along W (W/2 + 1 bins), then a
/// full one along H.
struct RFFT2d : OpConversionPattern<tosa::RFFT2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::RFFT2dOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkStatic(op)))
      return failure();
    Location loc = op.getLoc();
    auto in = cast<RankedTensorType>(op.getInputReal().getType());
    auto type = cast<RankedTensorType>(op.getOutputReal().getType());
    Value c = withChannel(rewriter, loc, a.getInputReal());
    c = dft(rewriter, loc, c, 2, in.getDimSize(2), false, true);
    c = dft(rewriter, loc, c, 1, in.getDimSize(1), false, false);
    rewriter.replaceOp(op, parts(rewriter, loc, c, type));
    return success();
  }
};

} // namespace

void populateTosaToTopSignalPatterns(RewritePatternSet &patterns) {
  patterns.add<FFT2d, RFFT2d>(patterns.getContext());
}

} // namespace strata::conversion
