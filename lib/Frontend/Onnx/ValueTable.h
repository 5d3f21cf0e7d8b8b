//===- ValueTable.h - ONNX names to values and list values ------*- C++ -*-===//
//
// Private to lib/Frontend/Onnx. The importer keeps two maps from ONNX value
// names: `values` for tensors and `lists` for sequences and optionals, which
// are resolved at import to static lists of tensor values (Top IR only ever
// sees the tensors). This header declares OnnxValue, the helpers that bind
// names and take list values apart, and the expansion of sequence- and
// optional-typed graph inputs and outputs into tensors (docs/onnx.md
// "Sequences and optionals"). ValueTable.cpp defines them.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_ONNX_VALUETABLE_H
#define STRATA_LIB_FRONTEND_ONNX_VALUETABLE_H

#include "onnx.pb.h"

#include "strata/Frontend/Onnx/OnnxImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace strata::onnx_import {

/// An ONNX value as the importer's value map holds it: a tensor, or a
/// sequence / optional resolved at import time to a static list of tensor
/// values (ConvertSequence.cpp; Top IR only ever sees the tensors).
struct OnnxValue {
  enum Kind { Tensor, Sequence, Optional } kind = Tensor;
  mlir::Value tensor;           ///< Tensor only.
  std::vector<OnnxValue> elems; ///< Sequence elements; an Optional's 0 or 1.
  static OnnxValue of(mlir::Value v) { return {Tensor, v, {}}; }
};

/// True if `a` and `b` have the same kinds and lengths throughout.
bool sameStructure(const OnnxValue &a, const OnnxValue &b);
/// "a sequence of length 3", "an empty optional", "a tensor".
std::string describe(const OnnxValue &v);
/// Binds `name` to `v` in `values` (a tensor) or `lists`, removing it from
/// the other map.
void bindName(llvm::StringMap<mlir::Value> &values,
              llvm::StringMap<OnnxValue> &lists, llvm::StringRef name,
              OnnxValue v);
/// Appends the tensors of `v` in order (depth first).
void flattenLeaves(const OnnxValue &v, llvm::SmallVectorImpl<mlir::Value> &out);
/// `structure` with its tensors replaced, in order, by the front of
/// `leaves` (which is advanced past them).
OnnxValue rebuildLeaves(const OnnxValue &structure,
                        llvm::ArrayRef<mlir::Value> &leaves);

/// A sequence- or optional-typed graph input, bound to the tensor inputs
/// NAME.i (sequence elements) or NAME (an optional's tensor).
struct ListInput {
  std::string name;
  bool optional = false, absent = false;
  int64_t length = -1; ///< -1: not a sequence.
};
/// The graph inputs with each sequence / optional input replaced by its
/// tensor inputs (docs/onnx.md "Sequences and optionals"), checking
/// --sequence-lengths and --absent-inputs.
mlir::LogicalResult
expandListInputs(const onnx::GraphProto &g, const ImportOptions &options,
                 const llvm::StringMap<const onnx::TensorProto *> &initializers,
                 mlir::MLIRContext *ctx,
                 std::vector<onnx::ValueInfoProto> &tensorInputs,
                 std::vector<ListInput> &listInputs);
/// Binds the list inputs to the tensor values of their parts (which are
/// removed from `values`).
void bindListInputs(llvm::ArrayRef<ListInput> listInputs,
                    llvm::StringMap<mlir::Value> &values,
                    llvm::StringMap<OnnxValue> &lists);
/// Appends the tensors of graph output `name` holding `v` to `results` as
/// outputs NAME.i (sequence) / NAME (optional), and describes `v` in `info`.
void flattenListOutput(llvm::StringRef name, const OnnxValue &v,
                       llvm::SmallVectorImpl<mlir::Value> &results,
                       llvm::SmallVectorImpl<std::string> &names,
                       llvm::SmallVectorImpl<mlir::NamedAttribute> &info,
                       mlir::Builder &b);

} // namespace strata::onnx_import

#endif // STRATA_LIB_FRONTEND_ONNX_VALUETABLE_H
