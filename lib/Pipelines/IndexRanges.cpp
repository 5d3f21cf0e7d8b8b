//===- IndexRanges.cpp - valid values of integer inputs used as indices ---===//

#include "strata/Pipelines/IndexRanges.h"
#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

using namespace mlir;

namespace strata {

/// Dim `axis` (negative counts from the back) of `v`'s type, if static.
static std::optional<int64_t> staticDim(Value v, int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank || type.isDynamicDim(axis))
    return std::nullopt;
  return type.getDimSize(axis);
}

namespace {
/// One index use: values in [lo, hi) are valid.
struct IndexUse {
  int64_t lo = 0, hi = 0;
  std::string what;
};
} // namespace

static IndexUse dimUse(StringRef what, int64_t axis, int64_t size) {
  return {0, size,
          (what + " (dim " + Twine(axis) + " of size " + Twine(size) + ")")
              .str()};
}

/// The smallest of the dims [first, first + k) of `data` (all dims from
/// `first` on when k is unknown): each row entry of an ND op's indices
/// indexes one of them.
static std::optional<IndexUse> ndUse(StringRef what, Value data,
                                     Value indices, int64_t first) {
  auto dataType = dyn_cast<RankedTensorType>(data.getType());
  auto idxType = dyn_cast<RankedTensorType>(indices.getType());
  if (!dataType || !idxType || idxType.getRank() == 0)
    return std::nullopt;
  int64_t last = dataType.getRank();
  if (!idxType.isDynamicDim(idxType.getRank() - 1))
    last = std::min(last, first + idxType.getShape().back());
  std::optional<IndexUse> best;
  for (int64_t d = first; d < last; ++d) {
    std::optional<int64_t> size = staticDim(data, d);
    if (!size)
      return std::nullopt;
    if (!best || *size < best->hi)
      best = dimUse(what, d, *size);
  }
  return best;
}

/// The time dim of a recurrent op's input: dim 0 (layout 0) or 1.
template <typename RecurrentOp>
static std::optional<IndexUse> sequenceLensUse(RecurrentOp op, OpOperand &use) {
  if (use.getOperandNumber() != op.getSequenceLensMutable().getOperandNumber())
    return std::nullopt;
  int64_t axis = op.getLayout() == 0 ? 0 : 1;
  std::optional<int64_t> steps = staticDim(op.getInput(), axis);
  if (!steps)
    return std::nullopt;
  return IndexUse{0, *steps + 1,
                  (op->getName().getStringRef() + " sequence_lens (up to " +
                   Twine(*steps) + " steps)")
                      .str()};
}

/// The valid range of operand `use` if it is an index operand.
static std::optional<IndexUse> indexUse(OpOperand &use) {
  Operation *user = use.getOwner();
  unsigned n = use.getOperandNumber();
  if (auto op = dyn_cast<top::GatherOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber())
      return std::nullopt;
    if (auto size = staticDim(op.getInput(), op.getAxis()))
      return dimUse("top.Gather indices", op.getAxis(), *size);
    return std::nullopt;
  }
  if (auto op = dyn_cast<top::GatherElementsOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber())
      return std::nullopt;
    if (auto size = staticDim(op.getData(), op.getAxis()))
      return dimUse("top.GatherElements indices", op.getAxis(), *size);
    return std::nullopt;
  }
  if (auto op = dyn_cast<top::ScatterElementsOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber())
      return std::nullopt;
    if (auto size = staticDim(op.getData(), op.getAxis()))
      return dimUse("top.ScatterElements indices", op.getAxis(), *size);
    return std::nullopt;
  }
  if (auto op = dyn_cast<top::GatherNDOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber())
      return std::nullopt;
    return ndUse("top.GatherND indices", op.getData(), op.getIndices(),
                 op.getBatchDims());
  }
  if (auto op = dyn_cast<top::ScatterNDOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber())
      return std::nullopt;
    return ndUse("top.ScatterND indices", op.getData(), op.getIndices(), 0);
  }
  if (auto op = dyn_cast<top::OneHotOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber() || !op.getDepth() ||
        *op.getDepth() < 1)
      return std::nullopt;
    return IndexUse{0, *op.getDepth(),
                    ("top.OneHot indices (depth " + Twine(*op.getDepth()) +
                     ")")
                        .str()};
  }
  if (auto op = dyn_cast<top::MaxUnpoolOp>(user)) {
    if (n != op.getIndicesMutable().getOperandNumber())
      return std::nullopt;
    int64_t size = 1;
    for (int64_t d : op.getOutputShape()) {
      if (d < 0 || (d > 0 && size > INT64_MAX / d))
        return std::nullopt;
      size *= d;
    }
    return IndexUse{0, size,
                    ("top.MaxUnpool indices (result size " + Twine(size) +
                     ")")
                        .str()};
  }
  if (auto op = dyn_cast<top::ReverseSequenceOp>(user)) {
    if (n != op.getSequenceLensMutable().getOperandNumber())
      return std::nullopt;
    std::optional<int64_t> steps = staticDim(op.getInput(), op.getTimeAxis());
    if (!steps)
      return std::nullopt;
    return IndexUse{0, *steps + 1,
                    ("top.ReverseSequence sequence_lens (up to " +
                     Twine(*steps) + " steps)")
                        .str()};
  }
  if (auto op = dyn_cast<top::LSTMOp>(user))
    return sequenceLensUse(op, use);
  if (auto op = dyn_cast<top::GRUOp>(user))
    return sequenceLensUse(op, use);
  if (auto op = dyn_cast<top::RNNOp>(user))
    return sequenceLensUse(op, use);
  if (auto op = dyn_cast<top::RoiAlignOp>(user)) {
    if (n != op.getBatchIndicesMutable().getOperandNumber())
      return std::nullopt;
    if (auto images = staticDim(op.getInput(), 0))
      return dimUse("top.RoiAlign batch_indices", 0, *images);
    return std::nullopt;
  }
  if (auto op = dyn_cast<top::RotaryEmbeddingOp>(user)) {
    if (n != op.getPositionIdsMutable().getOperandNumber())
      return std::nullopt;
    if (auto rows = staticDim(op.getCosCache(), 0))
      return dimUse("top.RotaryEmbedding position_ids", 0, *rows);
    return std::nullopt;
  }
  return std::nullopt;
}

/// True if a Cast from `from` to `to` keeps every value (a widening integer
/// cast of the same signedness).
static bool isWideningIntCast(Type from, Type to) {
  auto f = dyn_cast<IntegerType>(getElementTypeOrSelf(from));
  auto t = dyn_cast<IntegerType>(getElementTypeOrSelf(to));
  return f && t && t.getWidth() >= f.getWidth() &&
         f.isUnsigned() == t.isUnsigned();
}

/// The value that carries `use`'s value on unchanged, if any: the result of
/// a value-preserving op, or the callee's argument of a call.
static Value forwardedValue(OpOperand &use) {
  Operation *user = use.getOwner();
  if (use.getOperandNumber() == 0 &&
      isa<top::InputOp, top::ReshapeOp, top::SqueezeOp, top::UnsqueezeOp,
          top::PermuteOp>(user))
    return user->getResult(0);
  if (auto cast = dyn_cast<top::CastOp>(user))
    if (isWideningIntCast(cast.getInput().getType(), cast.getType()))
      return cast.getResult();
  if (auto call = dyn_cast<func::CallOp>(user)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (callee && !callee.isExternal() &&
        use.getOperandNumber() < callee.getNumArguments())
      return callee.getArgument(use.getOperandNumber());
  }
  return nullptr;
}

llvm::DenseMap<unsigned, IndexRange> findIndexRanges(func::FuncOp func) {
  llvm::DenseMap<unsigned, IndexRange> ranges;
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<IntegerType>(getElementTypeOrSelf(arg.getType())))
      continue;
    std::optional<IndexRange> range;
    // A worklist, not recursion: chains of reshapes and calls can be long.
    SmallVector<Value> worklist{arg};
    llvm::SmallPtrSet<void *, 16> seen;
    seen.insert(arg.getAsOpaquePointer());
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (OpOperand &use : v.getUses()) {
        if (Value next = forwardedValue(use)) {
          if (seen.insert(next.getAsOpaquePointer()).second)
            worklist.push_back(next);
          continue;
        }
        std::optional<IndexUse> u = indexUse(use);
        if (!u)
          continue;
        if (!range) {
          range = IndexRange{u->lo, u->hi, u->what};
          continue;
        }
        range->lo = std::max(range->lo, u->lo);
        range->hi = std::min(range->hi, u->hi);
        if (range->uses.find(u->what) == std::string::npos)
          range->uses += ", " + u->what;
      }
    }
    if (range)
      ranges[arg.getArgNumber()] = *range;
  }
  return ranges;
}

} // namespace strata
