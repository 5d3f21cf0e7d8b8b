//===- FoldBatchNorm.cpp - BatchNorm, scale and shift into conv weights ---===//
//
// A per-output-channel affine map after a convolution (or a transposed
// convolution) is folded into its filter and bias:
// conv(x, W, b) * s + t  ==  conv(x, W * s, b * s + t).
// BatchNorm in inference mode is that map with
// s = scale / sqrt(variance + epsilon) and t = bias - mean * s.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace strata::top {
#define GEN_PASS_DEF_TOPFOLDBATCHNORM
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace {
/// A float convolution or transposed convolution whose only user is the op
/// being folded into it, with constant filter (and bias, if any) and no
/// epilogue or zero points.
struct FoldableConv {
  Operation *op; ///< a ConvOp or a DeconvOp
  Tensor filter;
  std::vector<double> bias; // O values (zeros when the conv has none)
  int64_t channels = 0;
  /// A Deconv's group count (its filter is [C, O/G, ...]); 0 for a Conv
  /// (filter [O, ...]).
  int64_t deconvGroups = 0;
};

/// The filter dim-0 length a per-output-channel value applies along, and
/// the output channel of filter element (i0, i1): Conv [O, ...] or Deconv
/// [C, O/G, ...].
int64_t outputChannelOf(const FoldableConv &f, int64_t i0, int64_t i1) {
  if (!f.deconvGroups)
    return i0;
  int64_t perGroupIn = f.filter.dim(0) / f.deconvGroups;
  return i0 / perGroupIn * f.filter.dim(1) + i1;
}

std::optional<FoldableConv> foldableConv(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op || !v.hasOneUse())
    return std::nullopt;
  Value filterValue, biasValue;
  int64_t groups = 0;
  if (auto conv = dyn_cast<ConvOp>(op)) {
    // Per-channel constants are matched in NCHW ([1, O, 1, ..]) only.
    if (conv.getDoRelu() || conv.getActivation() || conv.getInputZp() ||
        conv.getWeightZp() || conv.getLayout() != Layout::NCHW)
      return std::nullopt;
    filterValue = conv.getFilter();
    biasValue = conv.getBias();
  } else if (auto dc = dyn_cast<DeconvOp>(op)) {
    if (dc.getDoRelu() || dc.getActivation() ||
        dc.getLayout() != Layout::NCHW || dc.getGroup() < 1)
      return std::nullopt;
    filterValue = dc.getFilter();
    biasValue = dc.getBias();
    groups = dc.getGroup();
  } else {
    return std::nullopt;
  }
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isa<FloatType>(type.getElementType()) || type.getRank() < 2 ||
      ShapedType::isDynamic(type.getDimSize(1)))
    return std::nullopt;
  std::optional<Tensor> filter = constantValue(filterValue);
  if (!filter || !isFloat(filter->dtype()) || filter->rank() < 2)
    return std::nullopt;
  FoldableConv f{op, *filter, {}, type.getDimSize(1), groups};
  if (groups ? (filter->dim(0) % groups != 0 ||
                filter->dim(1) * groups != f.channels)
             : filter->dim(0) != f.channels)
    return std::nullopt;
  f.bias.assign(f.channels, 0.0);
  if (!isNone(biasValue)) {
    std::optional<Tensor> bias = constantValue(biasValue);
    if (!bias || bias->numElements() != f.channels)
      return std::nullopt;
    for (int64_t o = 0; o < f.channels; ++o)
      f.bias[o] = bias->getAsDouble(o);
  }
  return f;
}

/// The O per-channel values of `v` if it is a constant that varies at most
/// along dim 1 of a result of type `result` and does not broadcast the
/// result to another shape: a single value, or shape [O, 1, .., 1] aligned
/// to dim 1 (for example [1, O, 1, 1] or [O, 1, 1]).
std::optional<std::vector<double>> perChannel(Value v, RankedTensorType result,
                                              int64_t channels) {
  std::optional<Tensor> t = constantValue(v);
  if (!t || !isFloat(t->dtype()) || t->rank() > result.getRank())
    return std::nullopt;
  std::vector<double> values(channels);
  if (t->numElements() == 1) {
    values.assign(channels, t->getAsDouble(0));
    return values;
  }
  int64_t offset = result.getRank() - t->rank();
  for (int64_t i = 0; i < t->rank(); ++i) {
    int64_t want = (i + offset == 1) ? channels : 1;
    if (t->dim(i) != want)
      return std::nullopt;
  }
  if (offset > 1) // the channel dim is not among the constant's dims
    return std::nullopt;
  for (int64_t o = 0; o < channels; ++o)
    values[o] = t->getAsDouble(o);
  return values;
}

/// Replaces `user` (the folded op) by the convolution with the filter
/// scaled by `scale[o]` and the bias mapped to `bias[o] * scale[o] +
/// shift[o]`, o the output channel.
void rewriteConv(PatternRewriter &rewriter, WeightNamer &namer, FoldableConv &f,
                 Operation *user, const std::vector<double> &scale,
                 const std::vector<double> &shift) {
  Operation *conv = f.op;
  Tensor filter = f.filter.clone();
  // The elements per (dim 0, dim 1) pair, from the dims (a division of the
  // element count by a dim is undefined when it is 0).
  int64_t inner = 1;
  for (int64_t d = 2; d < filter.rank(); ++d)
    inner *= filter.dim(d);
  for (int64_t i0 = 0; i0 < filter.dim(0); ++i0)
    for (int64_t i1 = 0; i1 < filter.dim(1); ++i1) {
      double sc = scale[outputChannelOf(f, i0, i1)];
      for (int64_t k = 0; k < inner; ++k) {
        int64_t i = (i0 * filter.dim(1) + i1) * inner + k;
        filter.setFromDouble(i, filter.getAsDouble(i) * sc);
      }
    }
  Tensor bias(filter.dtype(), {f.channels});
  for (int64_t o = 0; o < f.channels; ++o)
    bias.setFromDouble(o, f.bias[o] * scale[o] + shift[o]);

  rewriter.setInsertionPoint(conv);
  Value oldFilter = conv->getOperand(1);
  auto filterType = cast<RankedTensorType>(oldFilter.getType());
  auto biasType =
      RankedTensorType::get({f.channels}, filterType.getElementType());
  std::string base = f.deconvGroups ? "deconv" : "conv";
  if (auto name = dyn_cast<NameLoc>(user->getLoc()))
    base = name.getName().str();
  WeightOp newFilter = createWeight(rewriter, conv->getLoc(), namer,
                                    base + "_filter", filter, filterType);
  WeightOp newBias = createWeight(rewriter, conv->getLoc(), namer,
                                  base + "_bias", bias, biasType);
  rewriter.modifyOpInPlace(conv, [&] {
    if (auto c = dyn_cast<ConvOp>(conv)) {
      c.getFilterMutable().assign(newFilter.getOutput());
      c.getBiasMutable().assign(newBias.getOutput());
    } else {
      auto d = cast<DeconvOp>(conv);
      d.getFilterMutable().assign(newFilter.getOutput());
      d.getBiasMutable().assign(newBias.getOutput());
    }
    conv->setLoc(user->getLoc());
  });
  rewriter.replaceOp(user, conv->getResult(0));
}

struct FoldBatchNorm : OpRewritePattern<BatchNormOp> {
  FoldBatchNorm(MLIRContext *ctx, WeightNamer &namer)
      : OpRewritePattern(ctx), namer(namer) {}
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    std::optional<FoldableConv> f = foldableConv(bn.getInput());
    if (!f || bn.getType() != f->op->getResult(0).getType() ||
        bn.getLayout() != Layout::NCHW)
      return rewriter.notifyMatchFailure(bn, "input is not a foldable conv");
    int64_t c = f->channels;
    std::optional<Tensor> mean = constantValue(bn.getMean());
    std::optional<Tensor> var = constantValue(bn.getVariance());
    std::optional<Tensor> scale, bias;
    if (!isNone(bn.getScale()) && !(scale = constantValue(bn.getScale())))
      return rewriter.notifyMatchFailure(bn, "scale is not a constant");
    if (!isNone(bn.getBias()) && !(bias = constantValue(bn.getBias())))
      return rewriter.notifyMatchFailure(bn, "bias is not a constant");
    if (!mean || !var || mean->numElements() != c || var->numElements() != c ||
        (scale && scale->numElements() != c) ||
        (bias && bias->numElements() != c))
      return rewriter.notifyMatchFailure(bn, "statistics are not constants");
    double eps = bn.getEpsilon().convertToDouble();
    std::vector<double> s(c), t(c);
    for (int64_t o = 0; o < c; ++o) {
      double gamma = scale ? scale->getAsDouble(o) : 1.0;
      double beta = bias ? bias->getAsDouble(o) : 0.0;
      s[o] = gamma / std::sqrt(var->getAsDouble(o) + eps);
      t[o] = beta - mean->getAsDouble(o) * s[o];
    }
    rewriteConv(rewriter, namer, *f, bn, s, t);
    return success();
  }
  WeightNamer &namer;
};

/// Mul or Add with one operand a foldable conv and the other per-channel.
template <typename OpTy, bool IsMul>
struct FoldAffine : OpRewritePattern<OpTy> {
  FoldAffine(MLIRContext *ctx, WeightNamer &namer)
      : OpRewritePattern<OpTy>(ctx), namer(namer) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getDoRelu())
      return rewriter.notifyMatchFailure(op, "applies relu");
    for (auto [convSide, other] : {std::pair(op.getLhs(), op.getRhs()),
                                   std::pair(op.getRhs(), op.getLhs())}) {
      std::optional<FoldableConv> f = foldableConv(convSide);
      if (!f || op.getType() != f->op->getResult(0).getType())
        continue;
      std::optional<std::vector<double>> k =
          perChannel(other, cast<RankedTensorType>(op.getType()), f->channels);
      if (!k)
        continue;
      std::vector<double> scale(f->channels, 1.0), shift(f->channels, 0.0);
      (IsMul ? scale : shift) = *k;
      rewriteConv(rewriter, namer, *f, op, scale, shift);
      return success();
    }
    return rewriter.notifyMatchFailure(op,
                                       "no conv with a per-channel constant");
  }
  WeightNamer &namer;
};

/// A per-input-channel affine map before a convolution that reads no
/// padding is folded into its filter and bias (every tap reads the input,
/// so conv(x * s + t, W, b) == conv(x, W * s[c], b + sum W * t[c])): the
/// `x * s + t` blocks (PP-LCNet's learnable affine) before 1x1 convs.
struct FoldAffineIntoConv : OpRewritePattern<ConvOp> {
  FoldAffineIntoConv(MLIRContext *ctx, WeightNamer &namer)
      : OpRewritePattern(ctx), namer(namer) {}

  /// `v`'s (Add or Mul) non-constant operand and the constant's per-channel
  /// values, when `v` has one use and applies no relu.
  template <typename OpTy>
  static std::optional<std::pair<Value, std::vector<double>>>
  affineStep(Value v, RankedTensorType type, int64_t channels) {
    auto op = v.getDefiningOp<OpTy>();
    if (!op || !v.hasOneUse() || op.getDoRelu() || op.getType() != type)
      return std::nullopt;
    for (auto [x, k] : {std::pair(op.getLhs(), op.getRhs()),
                        std::pair(op.getRhs(), op.getLhs())})
      if (x.getType() == type)
        if (std::optional<std::vector<double>> values =
                perChannel(k, type, channels))
          return std::pair(x, *values);
    return std::nullopt;
  }

  LogicalResult matchAndRewrite(ConvOp conv,
                                PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(conv.getInput().getType());
    if (!inType || !inType.hasStaticShape() || inType.getRank() < 3 ||
        !isa<FloatType>(inType.getElementType()) || conv.getInputZp() ||
        conv.getWeightZp() || conv.getLayout() != Layout::NCHW ||
        conv.getGroup() < 1)
      return rewriter.notifyMatchFailure(conv, "not a float NCHW conv");
    if (std::optional<ArrayRef<int64_t>> pads = conv.getPads())
      if (llvm::any_of(*pads, [](int64_t p) { return p != 0; }))
        return rewriter.notifyMatchFailure(conv, "pads read zeros");
    int64_t c = inType.getDimSize(1), g = conv.getGroup();
    std::optional<Tensor> filter = constantValue(conv.getFilter());
    if (!filter || !isFloat(filter->dtype()) || filter->rank() < 3 ||
        c % g != 0 || filter->dim(1) * g != c || filter->dim(0) % g != 0)
      return rewriter.notifyMatchFailure(conv, "filter is not a constant");
    int64_t o = filter->dim(0);
    std::vector<double> bias(o, 0.0);
    if (!isNone(conv.getBias())) {
      std::optional<Tensor> b = constantValue(conv.getBias());
      if (!b || b->numElements() != o)
        return rewriter.notifyMatchFailure(conv, "bias is not a constant");
      for (int64_t i = 0; i < o; ++i)
        bias[i] = b->getAsDouble(i);
    }
    // x * s + t, x * s, or x + t.
    Value x = conv.getInput();
    Operation *first = nullptr;
    std::vector<double> scale(c, 1.0), shift(c, 0.0);
    if (auto step = affineStep<AddOp>(x, inType, c)) {
      first = x.getDefiningOp();
      std::tie(x, shift) = *step;
    }
    if (auto step = affineStep<MulOp>(x, inType, c)) {
      first = first ? first : x.getDefiningOp();
      std::tie(x, scale) = *step;
    }
    if (!first)
      return rewriter.notifyMatchFailure(conv, "no affine map before it");

    Tensor w = filter->clone();
    int64_t perGroupOut = o / g, cl = filter->dim(1), inner = 1;
    for (int64_t d = 2; d < w.rank(); ++d)
      inner *= w.dim(d);
    for (int64_t oc = 0; oc < o; ++oc)
      for (int64_t j = 0; j < cl; ++j) {
        int64_t ch = oc / perGroupOut * cl + j;
        for (int64_t k = 0; k < inner; ++k) {
          int64_t i = (oc * cl + j) * inner + k;
          double v = w.getAsDouble(i);
          bias[oc] += v * shift[ch];
          w.setFromDouble(i, v * scale[ch]);
        }
      }
    Tensor b(w.dtype(), {o});
    for (int64_t i = 0; i < o; ++i)
      b.setFromDouble(i, bias[i]);
    auto filterType = cast<RankedTensorType>(conv.getFilter().getType());
    std::string base = "conv";
    if (auto name = dyn_cast<NameLoc>(conv.getLoc()))
      base = name.getName().str();
    rewriter.setInsertionPoint(conv);
    WeightOp newFilter = createWeight(rewriter, conv.getLoc(), namer,
                                      base + "_affine_filter", w, filterType);
    WeightOp newBias =
        createWeight(rewriter, conv.getLoc(), namer, base + "_affine_bias", b,
                     RankedTensorType::get({o}, filterType.getElementType()));
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getInputMutable().assign(x);
      conv.getFilterMutable().assign(newFilter.getOutput());
      conv.getBiasMutable().assign(newBias.getOutput());
    });
    // The Add / Mul have no other user: gone.
    rewriter.eraseOp(first);
    return success();
  }
  WeightNamer &namer;
};

struct TopFoldBatchNormPass
    : public strata::top::impl::TopFoldBatchNormBase<TopFoldBatchNormPass> {
  void runOnOperation() override {
    WeightNamer namer(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNorm, FoldAffine<MulOp, true>,
                 FoldAffine<AddOp, false>, FoldAffineIntoConv>(&getContext(),
                                                               namer);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
