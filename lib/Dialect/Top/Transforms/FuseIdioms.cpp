//===- FuseIdioms.cpp - primitive graphs of common functions into ops -----===//
//
// Exporters write GELU, SiLU, HardSwish, LayerNorm, RMSNorm and Softmax as
// graphs of primitive ops (PyTorch's decompositions, tf2onnx). The patterns
// here read the products (trees of Mul and Div) those graphs end in and
// replace the whole graph by the one Top op computing it. Every value inside
// a matched graph must have no user outside it (it would otherwise still be
// computed, and the fused op would duplicate it), constants must match
// within kTolerance, and the result must keep the input's type.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>

namespace strata::top {
#define GEN_PASS_DEF_TOPFUSEIDIOMS
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace {
/// Relative tolerance for the constants of an idiom (exporters round
/// sqrt(2), sqrt(2 / pi), 1 / 6 to f32 or to 4 digits).
constexpr double kTolerance = 1e-3;

bool near(double value, double expected) {
  return std::abs(value - expected) <= kTolerance * std::abs(expected);
}

/// The value of a float constant with one element.
std::optional<double> scalarConstant(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  std::optional<Tensor> t = constantValue(v);
  if (!t)
    return std::nullopt;
  return t->getAsDouble(0);
}

bool isConstant(Value v, double expected) {
  std::optional<double> c = scalarConstant(v);
  return c && near(*c, expected);
}

/// `v`'s producer as an OpTy if `v` has no other user; binary ops must not
/// apply relu.
template <typename OpTy>
OpTy onlyUse(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  auto op = v.getDefiningOp<OpTy>();
  if constexpr (std::is_same_v<OpTy, AddOp> || std::is_same_v<OpTy, SubOp> ||
                std::is_same_v<OpTy, MulOp> || std::is_same_v<OpTy, DivOp> ||
                std::is_same_v<OpTy, PowOp>)
    if (op && op.getDoRelu())
      return nullptr;
  return op;
}

/// The operand of a binary `op` other than a scalar constant `c`.
template <typename OpTy>
Value operandBeside(OpTy op, double c) {
  if (!op)
    return nullptr;
  if (isConstant(op.getRhs(), c))
    return op.getLhs();
  if (isConstant(op.getLhs(), c))
    return op.getRhs();
  return nullptr;
}

/// `scale * prod(factors) / prod(divisors)`, read off the tree of Mul and Div
/// ops under a root whose inner results have no other user. Scalar
/// constants go into `scale`.
struct Product {
  SmallVector<Value> factors, divisors;
  double scale = 1.0;
  SmallVector<Operation *> ops; // the Mul and Div ops of the tree
};

Product flattenProduct(Value root) {
  Product p;
  SmallVector<std::pair<Value, bool>> work = {{root, false}};
  while (!work.empty()) {
    auto [v, divisor] = work.pop_back_val();
    if ((v == root || v.hasOneUse()) && p.ops.size() < 16) {
      auto mul = v.getDefiningOp<MulOp>();
      if (mul && !mul.getDoRelu()) {
        p.ops.push_back(mul);
        work.push_back({mul.getRhs(), divisor});
        work.push_back({mul.getLhs(), divisor});
        continue;
      }
      auto div = v.getDefiningOp<DivOp>();
      if (div && !div.getDoRelu()) {
        p.ops.push_back(div);
        work.push_back({div.getRhs(), !divisor});
        work.push_back({div.getLhs(), divisor});
        continue;
      }
    }
    if (std::optional<double> c = scalarConstant(v)) {
      p.scale = divisor ? p.scale / *c : p.scale * *c;
      continue;
    }
    (divisor ? p.divisors : p.factors).push_back(v);
  }
  return p;
}

/// True if `v` (with one use) is `scale * x` for x itself.
bool isScaled(Value v, Value x, double scale) {
  if (!v.hasOneUse())
    return false;
  Product p = flattenProduct(v);
  return p.divisors.empty() && p.factors.size() == 1 && p.factors[0] == x &&
         near(p.scale, scale);
}

/// True if `v` (with one use) is `x * x * x` or `Pow(x, 3)`.
bool isCube(Value v, Value x) {
  if (auto pow = onlyUse<PowOp>(v)) {
    std::optional<double> e = scalarConstant(pow.getRhs());
    return pow.getLhs() == x && e && *e == 3.0;
  }
  if (!v.hasOneUse())
    return false;
  Product p = flattenProduct(v);
  return p.divisors.empty() && p.scale == 1.0 && p.factors.size() == 3 &&
         llvm::all_of(p.factors, [&](Value f) { return f == x; });
}

/// Replaces `root` by a new op of type OpTy on `x` (keeping root's name).
template <typename OpTy, typename... Args>
LogicalResult replaceBy(PatternRewriter &rewriter, Operation *root,
                        Value x, Args &&...args) {
  if (root->getResult(0).getType() != x.getType())
    return failure(); // a constant broadcast the result
  rewriter.replaceOpWithNewOp<OpTy>(root, x.getType(), x,
                                    std::forward<Args>(args)...);
  return success();
}

//===----------------------------------------------------------------------===//
// Activations: 0.5 * x * (1 + erf(x / sqrt(2))), its tanh form,
// x * sigmoid(x), x * hardsigmoid(x), x * clip(x + 3, 0, 6) / 6
//===----------------------------------------------------------------------===//

LogicalResult matchGelu(Operation *root, const Product &p,
                        PatternRewriter &rewriter) {
  if (!p.divisors.empty() || p.factors.size() != 2 || !near(p.scale, 0.5))
    return failure();
  for (int i = 0; i < 2; ++i) {
    Value x = p.factors[i];
    Value t = operandBeside(onlyUse<AddOp>(p.factors[1 - i]), 1.0);
    if (!t)
      continue;
    if (auto erf = onlyUse<ErfOp>(t);
        erf && isScaled(erf.getInput(), x, M_SQRT1_2))
      return replaceBy<GeluOp>(rewriter, root, x,
                               GeluApproximationAttr::get(rewriter.getContext(),
                                                          GeluApproximation::None));
    auto tanh = onlyUse<TanhOp>(t);
    if (!tanh || !tanh.getInput().hasOneUse())
      continue;
    Product inner = flattenProduct(tanh.getInput());
    if (!inner.divisors.empty() || inner.factors.size() != 1 ||
        !near(inner.scale, std::sqrt(2.0 / M_PI)))
      continue;
    auto sum = onlyUse<AddOp>(inner.factors[0]);
    if (!sum)
      continue;
    for (auto [a, b] : {std::pair(sum.getLhs(), sum.getRhs()),
                        std::pair(sum.getRhs(), sum.getLhs())}) {
      if (a != x || !b.hasOneUse())
        continue;
      Product cube = flattenProduct(b);
      bool isCubeTerm =
          cube.divisors.empty() && near(cube.scale, 0.044715) &&
          ((cube.factors.size() == 1 && isCube(cube.factors[0], x)) ||
           (cube.factors.size() == 3 &&
            llvm::all_of(cube.factors, [&](Value f) { return f == x; })));
      if (isCubeTerm)
        return replaceBy<GeluOp>(rewriter, root, x,
                                 GeluApproximationAttr::get(
                                     rewriter.getContext(), GeluApproximation::Tanh));
    }
  }
  return failure();
}

LogicalResult matchSwish(Operation *root, const Product &p,
                         PatternRewriter &rewriter) {
  if (!p.divisors.empty() || p.factors.size() != 2)
    return failure();
  for (int i = 0; i < 2; ++i) {
    Value x = p.factors[i], gate = p.factors[1 - i];
    if (auto sig = onlyUse<SigmoidOp>(gate);
        sig && sig.getInput() == x && near(p.scale, 1.0))
      return replaceBy<SiLUOp>(rewriter, root, x);
    if (auto hs = onlyUse<HardSigmoidOp>(gate);
        hs && hs.getInput() == x && near(p.scale, 1.0) &&
        near(hs.getAlpha().convertToDouble(), 1.0 / 6.0) &&
        near(hs.getBeta().convertToDouble(), 0.5))
      return replaceBy<HardSwishOp>(rewriter, root, x);
    auto clip = onlyUse<ClipOp>(gate);
    if (clip && clip.getMin().convertToDouble() == 0.0 &&
        near(clip.getMax().convertToDouble(), 6.0) && near(p.scale, 1.0 / 6.0) &&
        operandBeside(onlyUse<AddOp>(clip.getInput()), 3.0) == x)
      return replaceBy<HardSwishOp>(rewriter, root, x);
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Normalizations: t * rsqrt(mean(t^2) + eps) (or t / sqrt(..)) with
// t = x - mean(x) (LayerNorm) or t = x (RMSNorm), times gamma
//===----------------------------------------------------------------------===//

/// The first dim of `reduce`'s axes if they are the suffix `a .. rank-1` of
/// its input's dims, it keeps them and has mode `mode`.
std::optional<int64_t> suffixAxis(ReduceOp reduce, ReduceMode mode) {
  if (!reduce || reduce.getMode() != mode || !reduce.getKeepdims())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(reduce.getInput().getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t a : reduce.getAxes())
    axes.push_back(a < 0 ? a + rank : a);
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  llvm::sort(axes);
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i))
      return std::nullopt;
  if (axes.empty())
    return std::nullopt;
  return axes.front();
}

/// `mean(t^2) + eps` with its pieces: the `t` squared, axis and eps.
struct MeanSquare {
  Value t;
  Operation *square;
  int64_t axis;
  double eps;
};

std::optional<MeanSquare> matchMeanSquarePlusEps(Value v) {
  auto add = onlyUse<AddOp>(v);
  if (!add)
    return std::nullopt;
  for (auto [meanV, epsV] : {std::pair(add.getLhs(), add.getRhs()),
                             std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<double> eps = scalarConstant(epsV);
    auto mean = onlyUse<ReduceOp>(meanV);
    if (!eps || *eps < 0 || !mean || add.getType() != mean.getType())
      continue;
    std::optional<int64_t> axis = suffixAxis(mean, ReduceMode::Mean);
    Value sq = mean.getInput();
    if (!axis || !sq.hasOneUse())
      continue;
    if (auto pow = onlyUse<PowOp>(sq)) {
      std::optional<double> e = scalarConstant(pow.getRhs());
      if (e && *e == 2.0 && pow.getType() == pow.getLhs().getType())
        return MeanSquare{pow.getLhs(), pow, *axis, *eps};
    }
    if (auto mul = onlyUse<MulOp>(sq); mul && mul.getLhs() == mul.getRhs())
      return MeanSquare{mul.getLhs(), mul, *axis, *eps};
  }
  return std::nullopt;
}

/// True if constant `gamma` holds one value per element of `x`'s dims
/// `axis..` without broadcasting `x` (right-aligned, leading 1s allowed);
/// with `exact` it must also have all of them (LayerNorm's scale and bias).
bool isNormalizedShapeConstant(Value gamma, Value x, int64_t axis,
                               bool exact) {
  auto g = dyn_cast<RankedTensorType>(gamma.getType());
  auto t = cast<RankedTensorType>(x.getType());
  if (!g || !g.hasStaticShape() || !t.hasStaticShape() ||
      g.getElementType() != t.getElementType() || !constantValue(gamma))
    return false;
  ArrayRef<int64_t> gs = g.getShape(), xs = t.getShape().drop_front(axis);
  if (gs.size() > xs.size()) {
    for (int64_t d : gs.drop_back(xs.size()))
      if (d != 1)
        return false;
    gs = gs.take_back(xs.size());
  }
  for (size_t i = 1; i <= gs.size(); ++i) {
    int64_t gd = gs[gs.size() - i], xd = xs[xs.size() - i];
    if (gd != xd && (exact || gd != 1))
      return false;
  }
  if (!exact)
    return true;
  int64_t count = 1;
  for (int64_t d : xs)
    count *= d;
  return g.getNumElements() == count;
}

LogicalResult matchNorm(Operation *root, const Product &p,
                        PatternRewriter &rewriter) {
  if (!near(p.scale, 1.0) || p.divisors.size() > 1)
    return failure();
  // The 1 / sqrt(mean(t^2) + eps) term: a divisor Sqrt or a factor Rsqrt.
  std::optional<MeanSquare> ms;
  SmallVector<Value> rest;
  if (p.divisors.size() == 1) {
    if (auto sqrt = onlyUse<SqrtOp>(p.divisors[0]))
      ms = matchMeanSquarePlusEps(sqrt.getInput());
    rest = p.factors;
  } else {
    for (Value f : p.factors) {
      auto rsqrt = onlyUse<RsqrtOp>(f);
      if (!ms && rsqrt && (ms = matchMeanSquarePlusEps(rsqrt.getInput())))
        continue;
      rest.push_back(f);
    }
  }
  if (!ms || rest.empty() || rest.size() > 2 ||
      (rest.size() == 2 && rest[0] == rest[1]) ||
      !llvm::is_contained(rest, ms->t))
    return failure();
  Value gamma = rest.size() == 2 ? (rest[0] == ms->t ? rest[1] : rest[0])
                                 : Value();
  Location loc = root->getLoc();
  // LayerNorm: t = x - mean(x) over the same axes; t feeds only the square
  // and the product.
  auto sub = ms->t.getDefiningOp<SubOp>();
  auto mean = sub ? onlyUse<ReduceOp>(sub.getRhs()) : ReduceOp();
  if (sub && !sub.getDoRelu() && mean && mean.getInput() == sub.getLhs() &&
      suffixAxis(mean, ReduceMode::Mean) == ms->axis) {
    llvm::SmallPtrSet<Operation *, 8> inside(p.ops.begin(), p.ops.end());
    inside.insert(ms->square);
    if (!llvm::all_of(ms->t.getUsers(),
                      [&](Operation *u) { return inside.contains(u); }))
      return failure();
    Value x = sub.getLhs();
    if ((gamma && !isNormalizedShapeConstant(gamma, x, ms->axis, true)) ||
        root->getResult(0).getType() != x.getType())
      return failure();
    Value none = NoneOp::create(rewriter, loc, rewriter.getNoneType());
    return replaceBy<LayerNormOp>(
        rewriter, root, x, gamma ? gamma : none, none,
        rewriter.getI64IntegerAttr(ms->axis), rewriter.getF64FloatAttr(ms->eps));
  }
  // RMSNorm needs its scale.
  Value x = ms->t;
  if (!gamma || !isNormalizedShapeConstant(gamma, x, ms->axis, false))
    return failure();
  return replaceBy<RMSNormOp>(rewriter, root, x, gamma,
                              rewriter.getI64IntegerAttr(ms->axis),
                              rewriter.getF64FloatAttr(ms->eps));
}

//===----------------------------------------------------------------------===//
// Softmax: exp(x - max(x)) / sum(exp(x - max(x))), or without the max
//===----------------------------------------------------------------------===//

/// The single axis of a keepdims reduction with `mode`, normalized.
std::optional<int64_t> singleAxis(ReduceOp reduce, ReduceMode mode) {
  if (!reduce || reduce.getMode() != mode || !reduce.getKeepdims() ||
      reduce.getAxes().size() != 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(reduce.getInput().getType());
  if (!type)
    return std::nullopt;
  int64_t a = reduce.getAxes()[0];
  return a < 0 ? a + type.getRank() : a;
}

/// `v` as a keepdims reduction over one axis: a Reduce with keepdims, or
/// (as tf2onnx writes it) a Reduce without keepdims, then a Reshape that
/// puts the reduced dim back as 1 and an optional Expand to the same shape.
/// Returns the Reduce and the axis.
std::optional<std::pair<ReduceOp, int64_t>> keepdimsReduce(Value v,
                                                           ReduceMode mode) {
  if (auto expand = onlyUse<ExpandOp>(v);
      expand && expand.getType() == expand.getInput().getType())
    v = expand.getInput();
  if (auto reduce = onlyUse<ReduceOp>(v)) {
    if (std::optional<int64_t> axis = singleAxis(reduce, mode))
      return std::pair(reduce, *axis);
    return std::nullopt;
  }
  auto reshape = onlyUse<ReshapeOp>(v);
  auto reduce = reshape ? onlyUse<ReduceOp>(reshape.getInput()) : ReduceOp();
  if (!reduce || reduce.getMode() != mode || reduce.getKeepdims() ||
      reduce.getAxes().size() != 1)
    return std::nullopt;
  auto in = dyn_cast<RankedTensorType>(reduce.getInput().getType());
  auto out = dyn_cast<RankedTensorType>(reshape.getType());
  if (!in || !out || !in.hasStaticShape() || out != v.getType())
    return std::nullopt;
  int64_t axis = reduce.getAxes()[0];
  if (axis < 0)
    axis += in.getRank();
  SmallVector<int64_t> kept(in.getShape());
  kept[axis] = 1;
  if (out.getShape() != ArrayRef<int64_t>(kept))
    return std::nullopt;
  return std::pair(reduce, axis);
}

LogicalResult matchSoftmax(Operation *root, const Product &p,
                           PatternRewriter &rewriter) {
  if (!isa<DivOp>(root) || p.factors.size() != 1 || p.divisors.size() != 1 ||
      !near(p.scale, 1.0))
    return failure();
  Value e = p.factors[0];
  auto exp = e.getDefiningOp<ExpOp>();
  auto sum = keepdimsReduce(p.divisors[0], ReduceMode::Sum);
  if (!exp || !sum || sum->first.getInput() != e ||
      std::distance(e.getUses().begin(), e.getUses().end()) != 2)
    return failure();
  int64_t axis = sum->second;
  Value x = exp.getInput();
  if (auto sub = onlyUse<SubOp>(x); sub && !sub.getDoRelu()) {
    auto max = keepdimsReduce(sub.getRhs(), ReduceMode::Max);
    if (max && max->first.getInput() == sub.getLhs() && max->second == axis)
      x = sub.getLhs();
  }
  return replaceBy<SoftmaxOp>(rewriter, root, x,
                              rewriter.getI64IntegerAttr(axis));
}

/// Tries every idiom that ends in a product on the Mul or Div `op`.
template <typename OpTy>
struct FuseProductIdiom : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (op.getDoRelu() || !type || !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "not a float product");
    Product p = flattenProduct(op.getResult());
    for (auto match : {matchGelu, matchSwish, matchNorm, matchSoftmax})
      if (succeeded(match(op, p, rewriter)))
        return success();
    return rewriter.notifyMatchFailure(op, "no idiom");
  }
};

//===----------------------------------------------------------------------===//
// LayerNorm followed by its scale and shift
//===----------------------------------------------------------------------===//

/// Mul(LayerNorm(x) {scale = none, bias = none}, gamma) and
/// Add(LayerNorm(x) {bias = none}, beta) with constant gamma / beta of the
/// normalized shape into the LayerNorm.
template <typename OpTy, bool IsScale>
struct FoldLayerNormAffine : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.getDoRelu())
      return rewriter.notifyMatchFailure(op, "applies relu");
    for (auto [lnV, c] : {std::pair(op.getLhs(), op.getRhs()),
                          std::pair(op.getRhs(), op.getLhs())}) {
      auto ln = onlyUse<LayerNormOp>(lnV);
      if (!ln || ln.getType() != op.getType() || !isNone(ln.getBias()) ||
          (IsScale && !isNone(ln.getScale())))
        continue;
      auto type = cast<RankedTensorType>(ln.getType());
      int64_t axis = ln.getAxis() < 0 ? ln.getAxis() + type.getRank()
                                      : ln.getAxis();
      if (!isNormalizedShapeConstant(c, ln.getInput(), axis, true))
        continue;
      if (Operation *def = c.getDefiningOp();
          def->getBlock() == ln->getBlock() && ln->isBeforeInBlock(def))
        rewriter.moveOpBefore(def, ln); // a weight has no operands
      Value value = c;
      rewriter.modifyOpInPlace(ln, [&] {
        (IsScale ? ln.getScaleMutable() : ln.getBiasMutable()).assign(value);
        ln->setLoc(op.getLoc());
      });
      rewriter.replaceOp(op, ln.getResult());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no LayerNorm with a constant");
  }
};

struct TopFuseIdiomsPass
    : public strata::top::impl::TopFuseIdiomsBase<TopFuseIdiomsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    patterns.add<FuseProductIdiom<MulOp>, FuseProductIdiom<DivOp>,
                 FoldLayerNormAffine<MulOp, true>,
                 FoldLayerNormAffine<AddOp, false>>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
