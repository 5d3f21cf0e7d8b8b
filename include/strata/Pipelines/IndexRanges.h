//===- IndexRanges.h - valid values of integer inputs used as indices -*- C++ -*-===//
//
// Random inputs for a model must not make an index operand out of range (the
// reference interpreter rejects such a run). This analysis finds, for each
// argument of an entry function, the index operands it feeds and the values
// they accept.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_PIPELINES_INDEXRANGES_H
#define STRATA_PIPELINES_INDEXRANGES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <string>

namespace strata {

/// Values in [lo, hi) are valid for every index use of an input; `uses`
/// names them ("top.Gather indices (dim 1 of size 10)", ...).
struct IndexRange {
  int64_t lo = 0;
  int64_t hi = 0;
  std::string uses;
  bool empty() const { return hi <= lo; }
};

/// For each argument of `func` that reaches an index operand, the
/// intersection of the valid ranges of all such operands: Gather,
/// GatherElements, ScatterElements, GatherND and ScatterND `indices` ([0, dim)
/// of the indexed dim; for the ND ops the smallest of the indexed dims),
/// OneHot `indices` ([0, depth), when depth is an attribute), MaxUnpool
/// `indices` ([0, result size)), ReverseSequence and LSTM / GRU / RNN
/// `sequence_lens` ([0, time steps]), RoiAlign `batch_indices` ([0, images))
/// and RotaryEmbedding `position_ids` ([0, cache rows)). An argument reaches an operand directly, through
/// value-preserving ops (top.Input, Reshape, Squeeze, Unsqueeze, a widening
/// integer Cast) or through a `func.call` into the callee's argument. Uses
/// whose bound is a dynamic dim are ignored.
llvm::DenseMap<unsigned, IndexRange> findIndexRanges(mlir::func::FuncOp func);

} // namespace strata

#endif // STRATA_PIPELINES_INDEXRANGES_H
