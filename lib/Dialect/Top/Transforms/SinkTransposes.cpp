//===- SinkTransposes.cpp - cancel top.Permute pairs ----------------------===//
//
// Layout-agnostic ops (elementwise, broadcast binary, Concat, Reduce with
// keepdims) connected to each other form regions. A region can run in any
// dim order `q`: every value v becomes transpose(v, q). Permutes entering
// the region compose with q, Permutes leaving it with q^-1; when that
// removes more Permutes than it adds, the region is rewritten. Folding then
// merges Permute chains and drops identities.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <climits>

namespace strata::top {
#define GEN_PASS_DEF_TOPSINKTRANSPOSES
#include "strata/Dialect/Top/Transforms/Passes.h.inc"
} // namespace strata::top

using namespace mlir;
using namespace strata::top;

namespace {
using Order = SmallVector<int64_t, 6>;

/// The rank of the frame `op` can run in, if it can run permuted: its dims
/// are treated alike (elementwise ops) or named by attributes that can be
/// mapped (Concat / Softmax axis, Reduce axes, Pad amounts, Resize's
/// per-dim scales, sizes and roi; Resize resamples each dim on its own).
std::optional<int64_t> agnosticRank(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || type.getRank() < 2)
    return std::nullopt;
  if (auto reduce = dyn_cast<ReduceOp>(op); reduce && !reduce.getKeepdims())
    return std::nullopt;
  if (op->hasTrait<strata::top::OpTrait::Elementwise>() ||
      isa<ConcatOp, ReduceOp, PadOp, ResizeOp, SoftmaxOp, LogSoftmaxOp>(op))
    return type.getRank();
  // Requant: elementwise but for its per-channel dim (an attribute); its
  // types may not be per-axis (their dim is in the type).
  if (auto requant = dyn_cast<RequantOp>(op))
    if (!isa<quant::UniformQuantizedPerAxisType>(
            getElementTypeOrSelf(requant.getInput().getType())) &&
        !isa<quant::UniformQuantizedPerAxisType>(type.getElementType()))
      return type.getRank();
  return std::nullopt;
}

bool isIdentity(ArrayRef<int64_t> order) {
  for (auto [i, d] : llvm::enumerate(order))
    if (d != static_cast<int64_t>(i))
      return false;
  return true;
}

Order inverse(ArrayRef<int64_t> order) {
  Order inv(order.size());
  for (auto [i, d] : llvm::enumerate(order))
    inv[d] = i;
  return inv;
}

/// The order of transpose(transpose(x, first), second).
Order compose(ArrayRef<int64_t> first, ArrayRef<int64_t> second) {
  Order out;
  for (int64_t d : second)
    out.push_back(first[d]);
  return out;
}

RankedTensorType permutedType(RankedTensorType type, ArrayRef<int64_t> order) {
  return RankedTensorType::get(permuteShape(type.getShape(), order),
                               type.getElementType());
}

/// A tensor of one element broadcasts the same way in every frame.
bool isSingleElement(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1;
}

/// A Permute of rank `rank` defining `v`, if any.
PermuteOp permuteOfRank(Value v, int64_t rank) {
  auto p = v.getDefiningOp<PermuteOp>();
  return p && static_cast<int64_t>(p.getOrder().size()) == rank ? p
                                                                 : PermuteOp();
}

/// Per-dim `values` (rank of them, or 2 * rank: all begins then all ends)
/// in frame `q`: entry i describes dim q[i].
template <typename T>
SmallVector<T> dimValuesInFrame(ArrayRef<T> values, ArrayRef<int64_t> q) {
  size_t rank = q.size();
  SmallVector<T> out(values.size());
  for (size_t half = 0; half < values.size() / rank; ++half)
    for (auto [i, d] : llvm::enumerate(q))
      out[half * rank + i] = values[half * rank + d];
  return out;
}

/// Maps the per-dim array attribute `name` of `op` (if set) into frame `q`.
void mapDimAttr(Operation *op, StringRef name, ArrayRef<int64_t> q) {
  Attribute attr = op->getAttr(name);
  MLIRContext *ctx = op->getContext();
  if (auto ints = dyn_cast_or_null<DenseI64ArrayAttr>(attr))
    op->setAttr(name, DenseI64ArrayAttr::get(
                          ctx, dimValuesInFrame(ints.asArrayRef(), q)));
  else if (auto reals = dyn_cast_or_null<DenseF64ArrayAttr>(attr))
    op->setAttr(name, DenseF64ArrayAttr::get(
                          ctx, dimValuesInFrame(reals.asArrayRef(), q)));
}

/// `axes` (any sign) of a rank-`rank` tensor as seen from frame `q`, sorted.
SmallVector<int64_t> axesInFrame(ArrayRef<int64_t> axes, ArrayRef<int64_t> q) {
  SmallVector<int64_t> out;
  int64_t rank = q.size();
  for (int64_t a : axes) {
    a = a < 0 ? a + rank : a;
    out.push_back(llvm::find(q, a) - q.begin());
  }
  llvm::sort(out);
  return out;
}

/// True if `op` is a Reduce without keepdims that can read its input in
/// frame `q` and still give the same result: the dims it keeps appear in
/// the same relative order in the frame.
bool reduceAbsorbsFrame(Operation *op, ArrayRef<int64_t> q) {
  auto reduce = dyn_cast<ReduceOp>(op);
  if (!reduce || reduce.getKeepdims())
    return false;
  int64_t rank = q.size();
  SmallVector<bool> reduced(rank, reduce.getAxes().empty());
  for (int64_t a : reduce.getAxes()) {
    if (a < -rank || a >= rank)
      return false;
    reduced[a < 0 ? a + rank : a] = true;
  }
  int64_t last = -1;
  for (int64_t d : q) {
    if (reduced[d])
      continue;
    if (d < last)
      return false;
    last = d;
  }
  return true;
}

/// A Permute of `u` by `order` that already exists (in `u`'s block), which
/// a region entering frame `order` can share.
PermuteOp existingPermute(Value u, ArrayRef<int64_t> order) {
  for (Operation *user : u.getUsers())
    if (auto p = dyn_cast<PermuteOp>(user))
      if (p.getOrder() == order && p->getBlock() == u.getParentBlock())
        return p;
  return PermuteOp();
}

/// A region of connected layout-agnostic ops of one rank.
struct Region {
  int64_t rank = 0;
  llvm::SetVector<Operation *> ops;
  /// Operands of region ops defined outside the region.
  SmallVector<OpOperand *> inputs;
  /// Region values with users outside the region, and those uses.
  llvm::MapVector<Value, SmallVector<OpOperand *>> outputs;

  bool contains(Operation *op) const { return op && ops.contains(op); }
};

/// True for a function argument or its `top.Input`: a Permute there sits at
/// the graph's boundary.
bool isGraphInput(Value v) {
  return isa<BlockArgument>(v) || isa_and_nonnull<InputOp>(v.getDefiningOp());
}

/// What running a region in frame `q` would change.
struct FrameCost {
  /// Permutes afterwards minus now (worth it when negative); INT_MAX if
  /// `q` cannot be applied.
  int64_t delta = INT_MAX;
  /// True if every Permute left afterwards is a new one on a graph input.
  bool onlyAtInputs = false;
};

FrameCost costOf(const Region &r, ArrayRef<int64_t> q) {
  llvm::SmallPtrSet<Operation *, 8> before, enter;
  llvm::SmallDenseSet<Value, 8> seen;
  int64_t after = 0, atInputs = 0;
  for (OpOperand *operand : r.inputs) {
    Value u = operand->get();
    if (!seen.insert(u).second || isSingleElement(u))
      continue;
    if (PermuteOp p = permuteOfRank(u, r.rank)) {
      before.insert(p);
      enter.insert(p);
      after += isIdentity(compose(p.getOrder(), q)) ? 0 : 1;
      if (llvm::any_of(p->getUsers(),
                       [&](Operation *user) { return !r.contains(user); }))
        ++after; // p stays for its other users
      continue;
    }
    auto type = dyn_cast<RankedTensorType>(u.getType());
    if (!type || type.getRank() > r.rank)
      return {};
    if (!isa_and_nonnull<WeightOp>(u.getDefiningOp()) &&
        !(type.getRank() == r.rank && existingPermute(u, q))) {
      ++after; // a new run-time Permute (constants fold)
      atInputs += isGraphInput(u) ? 1 : 0;
    }
  }
  Order qInv = inverse(q);
  for (auto &[v, uses] : r.outputs) {
    bool needsBack = false;
    for (OpOperand *use : uses) {
      if (reduceAbsorbsFrame(use->getOwner(), q))
        continue; // reads the frame directly, its axes mapped
      auto s = dyn_cast<PermuteOp>(use->getOwner());
      if (!s) {
        needsBack = true;
        continue;
      }
      if (enter.contains(s))
        return {}; // leaves and re-enters the region: keep it simple
      before.insert(s);
      after += isIdentity(compose(qInv, s.getOrder())) ? 0 : 1;
    }
    after += needsBack ? 1 : 0;
  }
  return {after - static_cast<int64_t>(before.size()), after == atInputs};
}

/// `u` as seen from frame `q`: transpose(u, q), broadcast operands of
/// lower rank first reshaped to full rank.
Value enterFrame(OpBuilder &b, Value u, ArrayRef<int64_t> q, int64_t rank) {
  if (isSingleElement(u))
    return u;
  Location loc = u.getLoc();
  if (PermuteOp p = permuteOfRank(u, rank)) {
    Order c = compose(p.getOrder(), q);
    if (isIdentity(c))
      return p.getInput();
    b.setInsertionPointAfter(p);
    auto inType = cast<RankedTensorType>(p.getInput().getType());
    return PermuteOp::create(b, loc, permutedType(inType, c), p.getInput(),
                             b.getDenseI64ArrayAttr(c));
  }
  auto type = cast<RankedTensorType>(u.getType());
  if (type.getRank() == rank)
    if (PermuteOp shared = existingPermute(u, q)) {
      // Hoist it next to `u` so that it dominates the region's uses.
      if (Operation *def = u.getDefiningOp())
        shared->moveAfter(def);
      else
        shared->moveBefore(&u.getParentBlock()->front());
      return shared;
    }
  b.setInsertionPointAfterValue(u);
  Value full = u;
  if (type.getRank() < rank) {
    SmallVector<int64_t> shape(rank - type.getRank(), 1);
    llvm::append_range(shape, type.getShape());
    full = ReshapeOp::create(b, loc,
                             RankedTensorType::get(shape, type.getElementType()),
                             u, b.getDenseI64ArrayAttr(shape));
  }
  return PermuteOp::create(
      b, loc, permutedType(cast<RankedTensorType>(full.getType()), q), full,
      b.getDenseI64ArrayAttr(q));
}

/// Runs the region in frame `q`.
void rewriteRegion(Region &r, ArrayRef<int64_t> q) {
  OpBuilder b(r.ops.front()->getContext());
  DenseMap<Value, Value> entered;
  for (OpOperand *operand : r.inputs) {
    Value u = operand->get();
    auto it = entered.find(u);
    if (it == entered.end())
      it = entered.try_emplace(u, enterFrame(b, u, q, r.rank)).first;
    operand->set(it->second);
  }
  Order qInv = inverse(q);
  // Positions in the frame: dim i of a new value is dim q[i] of the old.
  DenseMap<Value, RankedTensorType> oldType;
  for (Operation *op : r.ops) {
    Value v = op->getResult(0);
    auto type = cast<RankedTensorType>(v.getType());
    oldType[v] = type;
    v.setType(permutedType(type, q));
    if (auto concat = dyn_cast<ConcatOp>(op))
      concat.setAxis(axesInFrame({concat.getAxis()}, q)[0]);
    if (auto reduce = dyn_cast<ReduceOp>(op))
      reduce.setAxes(axesInFrame(reduce.getAxes(), q));
    if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
      auto axis = op->getAttrOfType<IntegerAttr>("axis");
      int64_t mapped = axesInFrame({axis ? axis.getInt() : -1}, q)[0];
      op->setAttr("axis", b.getI64IntegerAttr(mapped));
    }
    if (auto requant = dyn_cast<RequantOp>(op)) {
      auto m = requant.getMultiplier(), r = requant.getRshift();
      if ((m && m->size() > 1) || (r && r->size() > 1)) {
        int64_t axis = requant.getAxis() ? *requant.getAxis() : 1;
        requant.setAxis(axesInFrame({axis}, q)[0]);
      }
    }
    if (isa<PadOp>(op))
      mapDimAttr(op, "pads", q);
    if (isa<ResizeOp>(op))
      for (StringRef name : {"scales", "sizes", "roi", "coordinate_scales"})
        mapDimAttr(op, name, q);
  }
  for (auto &[v, uses] : r.outputs) {
    PermuteOp back;
    for (OpOperand *use : uses) {
      if (reduceAbsorbsFrame(use->getOwner(), q)) {
        auto reduce = cast<ReduceOp>(use->getOwner());
        if (!reduce.getAxes().empty())
          reduce.setAxes(axesInFrame(reduce.getAxes(), q));
        continue;
      }
      if (!back) {
        b.setInsertionPointAfterValue(v);
        back = PermuteOp::create(b, v.getLoc(), oldType[v], v,
                                 b.getDenseI64ArrayAttr(qInv));
      }
      use->set(back);
    }
  }
}

/// Union-find over ops (iterative, path halving).
struct OpSets {
  DenseMap<Operation *, Operation *> parent;
  Operation *find(Operation *op) {
    while (parent[op] != op) {
      parent[op] = parent[parent[op]];
      op = parent[op];
    }
    return op;
  }
  void unite(Operation *a, Operation *b) { parent[find(a)] = find(b); }
};

/// The regions of `block`'s top-level ops.
SmallVector<Region> collectRegions(Block &block) {
  OpSets sets;
  for (Operation &op : block) {
    std::optional<int64_t> rank = agnosticRank(&op);
    if (!rank)
      continue;
    sets.parent[&op] = &op;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &block && agnosticRank(def) == rank)
        sets.unite(def, &op);
    }
  }
  DenseMap<Operation *, size_t> index;
  SmallVector<Region> regions;
  for (Operation &op : block) {
    if (!sets.parent.count(&op))
      continue;
    Operation *leader = sets.find(&op);
    auto [it, inserted] = index.try_emplace(leader, regions.size());
    if (inserted) {
      regions.emplace_back();
      regions.back().rank = *agnosticRank(&op);
    }
    regions[it->second].ops.insert(&op);
  }
  for (Region &r : regions)
    for (Operation *op : r.ops) {
      for (OpOperand &operand : op->getOpOperands())
        if (!r.contains(operand.get().getDefiningOp()))
          r.inputs.push_back(&operand);
      for (OpOperand &use : op->getResult(0).getUses())
        if (!r.contains(use.getOwner()))
          r.outputs[op->getResult(0)].push_back(&use);
    }
  return regions;
}

/// Rewrites each region whose best frame removes Permutes; true if any. A
/// region that touches one rewritten in this round (its uses and operands
/// changed under it) waits for the next round.
bool sinkOnce(Block &block) {
  bool changed = false;
  llvm::SmallPtrSet<Operation *, 32> rewritten;
  for (Region &r : collectRegions(block)) {
    auto touches = [&](Operation *op) { return rewritten.contains(op); };
    if (llvm::any_of(r.inputs,
                     [&](OpOperand *o) {
                       return touches(o->get().getDefiningOp());
                     }) ||
        llvm::any_of(r.outputs, [&](auto &entry) {
          return llvm::any_of(entry.second, [&](OpOperand *use) {
            return touches(use->getOwner());
          });
        }))
      continue;
    SmallVector<Order> candidates;
    for (OpOperand *operand : r.inputs)
      if (PermuteOp p = permuteOfRank(operand->get(), r.rank))
        candidates.push_back(inverse(p.getOrder()));
    for (auto &[v, uses] : r.outputs)
      for (OpOperand *use : uses)
        if (auto s = dyn_cast<PermuteOp>(use->getOwner()))
          candidates.push_back(Order(s.getOrder()));
    // Fewer Permutes wins. On a tie, a move that leaves Permutes only on
    // graph inputs is taken (the ops it crosses can then fold into their
    // neighbours, e.g. a Pad into the Conv after it); the move back never
    // qualifies, so regions cannot flip back and forth.
    int64_t best = 0;
    std::optional<Order> bestOrder;
    for (const Order &q : candidates) {
      if (isIdentity(q))
        continue;
      FrameCost cost = costOf(r, q);
      if (cost.delta == INT_MAX)
        continue;
      int64_t score =
          2 * cost.delta - (cost.delta == 0 && cost.onlyAtInputs ? 1 : 0);
      if (score < best) {
        best = score;
        bestOrder = q;
      }
    }
    if (bestOrder) {
      rewriteRegion(r, *bestOrder);
      rewritten.insert(r.ops.begin(), r.ops.end());
      changed = true;
    }
  }
  return changed;
}

/// A Permute that moves only size-1 dims keeps the data order: a Reshape.
struct PermuteOfUnitDimsToReshape : OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getType());
    if (!inType || !outType || !inType.hasStaticShape() ||
        !outType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    int64_t last = -1;
    for (int64_t d : op.getOrder()) {
      if (inType.getDimSize(d) == 1)
        continue;
      if (d < last)
        return rewriter.notifyMatchFailure(op, "moves a dim of size > 1");
      last = d;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        op, outType, op.getInput(),
        rewriter.getDenseI64ArrayAttr(outType.getShape()));
    return success();
  }
};

struct TopSinkTransposesPass
    : public strata::top::impl::TopSinkTransposesBase<TopSinkTransposesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.getBody().empty())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<PermuteOfUnitDimsToReshape>(&getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Folding (Permute chains, identities) runs between rounds; each round
    // strictly lowers the Permute count, the bound is a safety net.
    for (int round = 0; round < 32; ++round) {
      bool changed = sinkOnce(func.getBody().front());
      if (failed(applyPatternsGreedily(func, frozen)))
        return signalPassFailure();
      if (!changed)
        break;
    }
  }
};
} // namespace
