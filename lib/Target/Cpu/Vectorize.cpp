//===- Vectorize.cpp - vector-sized tiles of linalg ops, vectorized -------===//
//
// linalg::vectorize turns a static-shaped linalg op into vector ops of its
// whole iteration space, so the ops are first tiled into vector-sized
// tiles (one dim of up to `vectorWidth` elements, the others one) with
// scf.for loops; 2-D NCHW convolutions and poolings are tiled to one output
// row and one filter row so that they decompose into the 1-D forms the
// vectorizer handles.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUVECTORIZE
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

/// Vectorized ops stay below this many iterations (their vectors' size).
constexpr int64_t kMaxVectorIterations = 4096;

/// A vector length for a loop of `extent` iterations: the largest of 16 and
/// 8 that divides it, the whole loop when it is short, else its largest
/// divisor in [4, width]; 0 when none.
static int64_t vectorSize(int64_t extent, int64_t width) {
  for (int64_t v : {width, width / 2})
    if (v >= 1 && extent % v == 0)
      return v;
  if (extent <= width)
    return extent;
  for (int64_t v = width; v >= 4; --v)
    if (extent % v == 0)
      return v;
  return 0;
}

/// The largest divisor of `extent` that is at most `cap`.
static int64_t divisorAtMost(int64_t extent, int64_t cap) {
  for (int64_t v = std::min(extent, cap); v > 1; --v)
    if (extent % v == 0)
      return v;
  return 1;
}

/// Element types whose buffers hold them at their natural width.
static bool isVectorizableElement(Type t) {
  if (auto f = dyn_cast<FloatType>(t))
    return f.isF32() || f.isF64() || f.isF16() || f.isBF16();
  if (auto i = dyn_cast<IntegerType>(t))
    return i.getWidth() == 8 || i.getWidth() == 16 || i.getWidth() == 32 ||
           i.getWidth() == 64;
  return false;
}

/// Ops the vectorizer handles: byte-sized element types, and no gathers
/// (`tensor.extract` in the payload: the vectorizer writes invalid
/// `vector.gather`s for some of them). Copies stay: a vectorized copy folds
/// away (a write of a read), and the copies strata-cpu-distinct-results
/// made must stay.
static bool hasVectorizableTypes(linalg::LinalgOp op) {
  if (isa<linalg::CopyOp>(op))
    return false;
  if (op->getNumRegions() &&
      !op->getRegion(0).getOps<tensor::ExtractOp>().empty())
    return false;
  for (Value v : op->getOperands()) {
    auto st = dyn_cast<ShapedType>(v.getType());
    Type elem = st ? st.getElementType() : v.getType();
    if (!isVectorizableElement(elem))
      return false;
  }
  for (Type t : op->getResultTypes())
    if (!isVectorizableElement(cast<ShapedType>(t).getElementType()))
      return false;
  return true;
}

/// Tile sizes that make `op` a vector-sized tile (0: the whole loop), or
/// nothing when `op` is not vectorized.
static std::optional<SmallVector<int64_t>> vectorTile(linalg::LinalgOp op,
                                                      int64_t width) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty() || llvm::any_of(ranges, ShapedType::isDynamic) ||
      !hasVectorizableTypes(op))
    return std::nullopt;
  SmallVector<int64_t> tile(ranges.size(), 1);
  // Loops (n, f, oh, ow, c, kh, kw): a row of output pixels for a block of
  // output channels, all of kw.
  if (isa<linalg::Conv2DNchwFchwOp>(op)) {
    int64_t f = vectorSize(ranges[1], width);
    if (!f)
      f = 1;
    tile = {1, f, 1, divisorAtMost(ranges[3], 8), divisorAtMost(ranges[4], 8),
            1, 0};
    return tile;
  }
  // Loops (n, c, oh, ow, kh, kw).
  if (isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op)) {
    int64_t w = vectorSize(ranges[3], width);
    if (!w)
      return std::nullopt;
    tile = {1, 1, 1, w, 1, 0};
    return tile;
  }
  if (linalg::isaConvolutionOpInterface(op))
    return std::nullopt;
  if (linalg::isaContractionOpInterface(op)) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->n.empty() || dims->k.empty())
      return std::nullopt;
    unsigned n = dims->n.back(), k = dims->k.back();
    int64_t vn = vectorSize(ranges[n], width);
    if (!vn)
      return std::nullopt;
    tile[n] = vn;
    tile[k] = divisorAtMost(ranges[k], width);
    return tile;
  }
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/true);
      }))
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  unsigned dim = ranges.size() - 1;
  // A short inner reduction (a window): carry a parallel loop instead.
  if (iters[dim] == utils::IteratorType::reduction && ranges[dim] < 8)
    for (unsigned d = ranges.size(); d-- > 0;)
      if (iters[d] == utils::IteratorType::parallel) {
        dim = d;
        break;
      }
  int64_t v = vectorSize(ranges[dim], width);
  if (!v)
    return std::nullopt;
  tile[dim] = v;
  return tile;
}

static int64_t iterations(linalg::LinalgOp op) {
  int64_t n = 1;
  for (int64_t r : op.getStaticLoopRanges()) {
    if (ShapedType::isDynamic(r) || __builtin_mul_overflow(n, r, &n))
      return std::numeric_limits<int64_t>::max();
  }
  return n;
}

struct VectorizePass : impl::CpuVectorizeBase<VectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!fn->hasAttr(kDispatchAttr) || fn.isExternal())
        continue;
      // 1. Tile.
      SmallVector<linalg::LinalgOp> ops;
      fn.walk([&](linalg::LinalgOp op) {
        if (op.hasPureTensorSemantics())
          ops.push_back(op);
      });
      IRRewriter rewriter(ctx);
      for (linalg::LinalgOp op : ops) {
        std::optional<SmallVector<int64_t>> tile = vectorTile(op, vectorWidth);
        if (!tile)
          continue;
        bool isConv = isa<linalg::ConvolutionOpInterface>(op.getOperation());
        if (!isConv && failed(linalg::vectorizeOpPrecondition(op)))
          continue;
        SmallVector<int64_t> ranges = op.getStaticLoopRanges();
        bool whole = true;
        for (unsigned d = 0; d < ranges.size(); ++d)
          whole &= (*tile)[d] == 0 || (*tile)[d] == ranges[d];
        // A convolution or pooling is tiled even when the tile is the whole
        // op: tiling slices its input to exactly the rows and columns its
        // windows read, which the 1-D decomposition below assumes (a ceil-mode
        // or strided window may leave input rows unread).
        if (whole && !isConv)
          continue;
        rewriter.setInsertionPoint(op);
        scf::SCFTilingOptions options;
        options.setTileSizes(getAsIndexOpFoldResult(ctx, *tile));
        FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
            rewriter, cast<TilingInterface>(op.getOperation()), options);
        if (failed(tiled))
          continue;
        rewriter.replaceOp(op, tiled->replacements);
      }
      // 2. Tiled 2-D convolutions and poolings to their 1-D forms.
      {
        RewritePatternSet patterns(ctx);
        linalg::populateDecomposeConvolutionPatterns(patterns);
        linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
        (void)applyPatternsGreedily(fn, std::move(patterns));
      }
      // 3. Vectorize what is small.
      ops.clear();
      fn.walk([&](linalg::LinalgOp op) {
        if (op.hasPureTensorSemantics() && hasVectorizableTypes(op) &&
            iterations(op) <= kMaxVectorIterations &&
            succeeded(linalg::vectorizeOpPrecondition(op)))
          ops.push_back(op);
      });
      for (linalg::LinalgOp op : ops) {
        rewriter.setInsertionPoint(op);
        // Contractions as vector.contract, which lowers to outer products
        // (FMAs along n) rather than to dot products along k.
        bool contraction = linalg::isaContractionOpInterface(op);
        FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
            rewriter, op, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
            /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
            /*assumeDynamicDimsMatchVecSizes=*/false,
            /*createNamedContraction=*/contraction);
        if (failed(result))
          continue;
        if (result->replacements.empty())
          rewriter.eraseOp(op);
        else
          rewriter.replaceOp(op, result->replacements);
      }
    }
  }
};

} // namespace
} // namespace strata::cpu
