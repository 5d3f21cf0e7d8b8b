//===- BlockScaled.cpp - TOSA's MX block-scaled ops to Top ----------------===//
//
// cast_from_block_scaled, cast_to_block_scaled and matmul_t_block_scaled
// (TOSA 1.1 draft, extension MXFP) as f32 Top ops: a data tensor of
// f8E4M3FN, f8E5M2, f6E2M3FN, f6E3M2FN or f4E2M1FN with one f8E8M0FNU
// scale per block of 32 along the last dim.
//
// Top carries f8E4M3FN, f8E5M2, f4E2M1FN and f8E8M0FNU tensors (as ONNX
// does) but has no f6 type: an f6 constant is decoded at import into an f32
// weight holding the same values (every f6 value is an f32), and the f6 data
// cast_to_block_scaled produces is carried as f32 values on the f6 grid. An
// f6 (or `!tosa.mxint8`) function argument or result is an error.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "strata/Conversion/TosaToTop/TosaToTop.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace strata::conversion {

using namespace mlir;
using namespace tosa_to_top;

namespace {

constexpr int64_t kBlock = 32;

bool isFp6(Type t) { return isa<Float6E2M3FNType, Float6E3M2FNType>(t); }

/// The MX data formats Top can compute with (`!tosa.mxint8` is not one).
LogicalResult checkMxData(Operation *op, StringRef field, Type elem) {
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType>(elem) ||
      isFp6(elem))
    return success();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << elem;
  return unsupported(op, field,
                     "element type '" + s +
                         "' is not handled (Top has no such type; the MX "
                         "formats converted are f8E4M3FN, f8E5M2, f6E2M3FN, "
                         "f6E3M2FN and f4E2M1FN)");
}

LogicalResult checkBlockSize(Operation *op, tosa::BlockSize size) {
  if (tosa::BlockSizeAttr::getBlockSizeValue(size) == kBlock)
    return success();
  return unsupported(op, "block_size",
                     Twine(tosa::BlockSizeAttr::getBlockSizeValue(size)) +
                         " is not handled (only 32)");
}

Value reshape(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> shape) {
  return makeTop(b, loc, "Reshape",
                 RankedTensorType::get(shape, tensorType(v).getElementType()),
                 v, {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

/// `v`'s shape with its last dim split into [last / 32, 32] (`block` = 32)
/// or replaced by [last, 1] (`block` = 1, the shape of its scales).
SmallVector<int64_t> blocked(Value v, int64_t block) {
  SmallVector<int64_t> s(tensorType(v).getShape());
  int64_t last = s.back();
  s.back() = last / block;
  s.push_back(block);
  return s;
}

/// An f32 tensor of the values of `v` (exact for every MX type and
/// f8E8M0FNU; the f32 carrier of f6 data is returned as is).
Value decode(OpBuilder &b, Location loc, Value v) {
  return castTo(b, loc, v, b.getF32Type());
}

/// top.Cast to a float8E8M0FNU-shaped result with `round_mode`.
Value castE8M0(OpBuilder &b, Location loc, Value v, top::RoundMode mode) {
  return makeTop(b, loc, "Cast",
                 withElement(tensorType(v), b.getType<Float8E8M0FNUType>()), v,
                 {b.getNamedAttr("round_mode", top::RoundModeAttr::get(
                                                   b.getContext(), mode))});
}

/// data * scale per block: [..., C] data (converted value of the op's
/// operand) and [..., C/32] scales as one f32 tensor of the data's shape.
Value dequantize(OpBuilder &b, Location loc, Value data, Value scale) {
  SmallVector<int64_t> shape(tensorType(data).getShape());
  Value d = reshape(b, loc, decode(b, loc, data), blocked(data, kBlock));
  Value s = reshape(b, loc, decode(b, loc, scale), blocked(scale, 1));
  return reshape(b, loc, binary(b, loc, "Mul", d, s), shape);
}

/// Checks a data/scale pair: data of an MX format, scales of one fewer
/// block dim ([..., C/32]).
LogicalResult checkPair(Operation *op, StringRef dataField, Value data,
                        StringRef scaleField, Value scale) {
  RankedTensorType dt = dyn_cast<RankedTensorType>(data.getType());
  RankedTensorType st = dyn_cast<RankedTensorType>(scale.getType());
  if (!dt || !st || !dt.hasStaticShape() || !st.hasStaticShape())
    return unsupported(op, dataField, "must have a static shape");
  if (failed(checkMxData(op, dataField, dt.getElementType())))
    return failure();
  SmallVector<int64_t> want(dt.getShape());
  if (want.empty() || want.back() % kBlock != 0)
    return unsupported(op, dataField,
                       "last dim must be a multiple of the block size 32");
  want.back() /= kBlock;
  if (st.getShape() != ArrayRef<int64_t>(want))
    return unsupported(op, scaleField,
                       "shape must be the data's with the last dim / 32");
  return success();
}

/// cast_from_block_scaled: per block, data (as f32) times its scale (as
/// f32), rounded to the output type (f32, or bf16 by top.Cast).
struct CastFrom : OpConversionPattern<tosa::CastFromBlockScaledOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::CastFromBlockScaledOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkBlockSize(op, op.getBlockSize())) ||
        failed(checkPair(op, "input_data", op.getInputData(), "input_scale",
                         op.getInputScale())))
      return failure();
    Location loc = op.getLoc();
    Value out = dequantize(rewriter, loc, a.getInputData(), a.getInputScale());
    rewriter.replaceOp(
        op, castTo(rewriter, loc, out, op.getType().getElementType()));
    return success();
  }
};

/// The largest value that rounds to the format's largest finite value (the
/// spec's out_max): max + half an ulp at max.
double outMax(Type elem) {
  if (isa<Float8E4M3FNType>(elem))
    return 448.0 + 16.0;
  if (isa<Float8E5M2Type>(elem))
    return 57344.0 + 4096.0;
  if (isa<Float6E2M3FNType>(elem))
    return 7.5 + 0.25;
  if (isa<Float6E3M2FNType>(elem))
    return 28.0 + 2.0;
  return 6.0 + 1.0; // f4E2M1FN
}

/// `y` (f32) rounded to nearest even on the grid of the MX format `elem`:
/// the `elem` tensor, or for f6 an f32 tensor of those values (the carrier).
/// Out of range (only where the block's m / out_max is an f32 subnormal,
/// rounded down to the clip): f8E4M3FN gives NaN and f8E5M2 Inf, as the
/// spec's round_to_nearest_float; f4 and f6, which have neither, saturate
/// to +-max (as ml_dtypes). f6 rounds through the f8 format with the same
/// mantissa width, scaled so that the smallest normal exponents coincide
/// (f6E2M3FN: f8E4M3FN times 2^-6; f6E3M2FN: f8E5M2 times 2^-12), which
/// gives the same subnormals.
Value roundTo(OpBuilder &b, Location loc, Value y, Type elem) {
  if (isa<Float4E2M1FNType>(elem))
    return castTo(b, loc, y, elem); // top.Cast always saturates to f4
  if (!isFp6(elem))
    return makeTop(b, loc, "Cast", withElement(tensorType(y), elem), y,
                   {b.getNamedAttr("saturate", b.getBoolAttr(false))});
  Type f32 = b.getF32Type();
  bool e2m3 = isa<Float6E2M3FNType>(elem);
  Type via = e2m3 ? Type(b.getType<Float8E4M3FNType>())
                  : Type(b.getType<Float8E5M2Type>());
  double shift = e2m3 ? 64.0 : 4096.0, max = e2m3 ? 7.5 : 28.0;
  Value scaled = binary(b, loc, "Div", y, scalar(b, loc, f32, shift));
  Value rounded = castTo(b, loc, castTo(b, loc, scaled, via), f32);
  Value v = binary(b, loc, "Mul", rounded, scalar(b, loc, f32, shift));
  v = binary(b, loc, "Min", v, scalar(b, loc, f32, max));
  return binary(b, loc, "Max", v, scalar(b, loc, f32, -max));
}

/// cast_to_block_scaled: per block, m = max |x| (NaN propagates), the scale
/// 2^k with k the smallest integer such that m / out_max <= 2^k (f8E4M3FN)
/// or < 2^k (the others), clipped to [2^-127, 2^127] (NaN when m is NaN or
/// Inf), and the data x / scale rounded to nearest even.
struct CastTo : OpConversionPattern<tosa::CastToBlockScaledOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::CastToBlockScaledOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkBlockSize(op, op.getBlockSize())) ||
        failed(checkPair(op, "output_data", op.getOutputData(), "output_scale",
                         op.getOutputScale())))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type f32 = b.getF32Type();
    Type elem = op.getOutputData().getType().getElementType();
    if (!isa<FloatType>(tensorType(op.getInputData()).getElementType()))
      return unsupported(op, "input_data", "must be a float tensor");
    SmallVector<int64_t> shape(tensorType(a.getInputData()).getShape());
    SmallVector<int64_t> blocks = blocked(a.getInputData(), kBlock);
    SmallVector<int64_t> scaleShape(blocks.begin(), blocks.end() - 1);
    scaleShape.push_back(1);

    Value x = reshape(b, loc, decode(b, loc, a.getInputData()), blocks);
    Value absX = makeTop(b, loc, "Abs", tensorType(x), x);
    Value m = makeTop(
        b, loc, "Reduce", RankedTensorType::get(scaleShape, f32), absX,
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({-1})),
         b.getNamedAttr("keepdims", b.getBoolAttr(true)),
         b.getNamedAttr("mode", top::ReduceModeAttr::get(
                                    b.getContext(), top::ReduceMode::Max))});
    Value r = binary(b, loc, "Div", m, scalar(b, loc, f32, outMax(elem)));
    // 2^k through f8E8M0FNU's rounding of the exponent: up gives
    // 2^ceil(log2 r), down twice 2^floor(log2 r). Below 2^-126 r is an f32
    // subnormal, whose exponent field is 0: there the clip to 2^-127 is
    // decided by comparing with 2^-127 itself.
    Value minScale = scalar(b, loc, f32, std::ldexp(1.0, -127));
    bool ceilMode = isa<Float8E4M3FNType>(elem);
    Value pow2;
    if (ceilMode) {
      pow2 = decode(b, loc, castE8M0(b, loc, r, top::RoundMode::Up));
    } else {
      pow2 = decode(b, loc, castE8M0(b, loc, r, top::RoundMode::Down));
      pow2 = binary(b, loc, "Mul", pow2, scalar(b, loc, f32, 2.0));
    }
    Value tiny = compare(b, loc, r, minScale,
                         ceilMode ? top::CompareMode::LessOrEqual
                                  : top::CompareMode::Less);
    Value scale = where(b, loc, tiny, minScale, pow2);
    // x / scale is exact (a power of two) wherever the result is not 0 in
    // the target format.
    Value y = reshape(b, loc, binary(b, loc, "Div", x, scale), shape);
    Value data = roundTo(b, loc, y, elem);
    // The scales are powers of two (or NaN): any rounding mode is exact,
    // and "down" keeps 2^-127 (an f32 subnormal) as the exponent 0.
    SmallVector<int64_t> outScaleShape(scaleShape.begin(),
                                       scaleShape.end() - 1);
    Value outScale = castE8M0(b, loc, reshape(b, loc, scale, outScaleShape),
                              top::RoundMode::Down);
    rewriter.replaceOp(op, ValueRange{data, outScale});
    return success();
  }
};

/// matmul_t_block_scaled as the spec computes it: per block of 32 along C,
/// the dot product of the data (as f32), times scale_A * scale_B (an f32
/// product), summed over the blocks. A [N, H, C] -> [N, C/32, H, 32] and B
/// [D, W, C] -> [D, C/32, W, 32] (D = N, or 1 broadcast), one batched
/// MatMul with the right side transposed gives [N, C/32, H, W].
struct MatMulT : OpConversionPattern<tosa::MatmulTBlockScaledOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tosa::MatmulTBlockScaledOp op, OpAdaptor a,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(checkBlockSize(op, op.getBlockSize())) ||
        failed(checkPair(op, "a_data", op.getAData(), "a_scale",
                         op.getAScale())) ||
        failed(
            checkPair(op, "b_data", op.getBData(), "b_scale", op.getBScale())))
      return failure();
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type f32 = b.getF32Type();
    RankedTensorType rt = tensorType(op.getOutputData());
    if (!rt.getElementType().isF32())
      return unsupported(op, "output_data", "must be f32");
    ArrayRef<int64_t> as = tensorType(a.getAData()).getShape();
    ArrayRef<int64_t> bs = tensorType(a.getBData()).getShape();
    int64_t n = as[0], h = as[1], cb = as[2] / kBlock, d = bs[0], w = bs[1];
    auto permute = [&](Value v, ArrayRef<int64_t> order) {
      ArrayRef<int64_t> s = tensorType(v).getShape();
      SmallVector<int64_t> out;
      for (int64_t i : order)
        out.push_back(s[i]);
      return makeTop(b, loc, "Permute", RankedTensorType::get(out, f32), v,
                     {b.getNamedAttr("order", b.getDenseI64ArrayAttr(order))});
    };
    Value x = permute(
        reshape(b, loc, decode(b, loc, a.getAData()), {n, h, cb, kBlock}),
        {0, 2, 1, 3});
    Value y = permute(
        reshape(b, loc, decode(b, loc, a.getBData()), {d, w, cb, kBlock}),
        {0, 2, 1, 3});
    Value none = makeTop(b, loc, "None", b.getNoneType(), {});
    Value dots = makeTop(
        b, loc, "MatMul", RankedTensorType::get({n, cb, h, w}, f32),
        {x, y, none}, {b.getNamedAttr("right_transpose", b.getBoolAttr(true))});
    Value sa =
        reshape(b, loc, permute(decode(b, loc, a.getAScale()), {0, 2, 1}),
                {n, cb, h, 1});
    Value sb =
        reshape(b, loc, permute(decode(b, loc, a.getBScale()), {0, 2, 1}),
                {d, cb, 1, w});
    Value scaled = binary(b, loc, "Mul", dots, binary(b, loc, "Mul", sa, sb));
    Value out = makeTop(
        b, loc, "Reduce", rt, scaled,
        {b.getNamedAttr("axes", b.getDenseI64ArrayAttr({1})),
         b.getNamedAttr("keepdims", b.getBoolAttr(false)),
         b.getNamedAttr("mode", top::ReduceModeAttr::get(
                                    b.getContext(), top::ReduceMode::Sum))});
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// An f6 constant: an f32 weight of the same values (Top has no f6 type).
struct Fp6Const : OpConversionPattern<tosa::ConstOp> {
  Fp6Const(MLIRContext *ctx) : OpConversionPattern(ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(tosa::ConstOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType t = tensorType(op.getResult());
    if (!isFp6(t.getElementType()))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValues());
    if (!dense)
      return unsupported(op, "values",
                         "f6 data must be a dense attribute to be decoded");
    SmallVector<APFloat> values;
    for (APFloat v : dense.getValues<APFloat>()) {
      bool lost;
      v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    rewriter.replaceOp(
        op, weight(rewriter, op.getLoc(),
                   DenseElementsAttr::get(withElement(t, rewriter.getF32Type()),
                                          values)));
    return success();
  }
};

} // namespace

namespace tosa_to_top {

LogicalResult checkCarriedSignatures(ModuleOp module) {
  bool ok = true;
  module.walk([&](func::FuncOp f) {
    auto check = [&](Type t, StringRef what, unsigned i) {
      auto shaped = dyn_cast<ShapedType>(t);
      if (!shaped)
        return;
      Type elem = shaped.getElementType();
      if (!isFp6(elem) && !isa<tosa::mxint8Type>(elem))
        return;
      std::string s;
      llvm::raw_string_ostream os(s);
      os << elem;
      f.emitError() << "function @" << f.getSymName() << " " << what << " " << i
                    << " has element type '" << s
                    << "', which Top has no tensors of (f6 data can only be "
                       "a constant or a cast_to_block_scaled result used by "
                       "the block-scaled ops; mxint8 is not handled)";
      ok = false;
    };
    for (auto [i, t] : llvm::enumerate(f.getArgumentTypes()))
      check(t, "argument", i);
    for (auto [i, t] : llvm::enumerate(f.getResultTypes()))
      check(t, "result", i);
  });
  return success(ok);
}

} // namespace tosa_to_top

void populateTosaToTopBlockScaledPatterns(RewritePatternSet &patterns) {
  patterns.add<CastFrom, CastTo, MatMulT, Fp6Const>(patterns.getContext());
}

} // namespace strata::conversion
