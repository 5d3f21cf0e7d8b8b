//===- WeightValues.h - weight data carried inside the IR -------*- C++ -*-===//
//
// Optimization passes need the data of weights (to fold a BatchNorm into a
// convolution, to evaluate constant subgraphs). While a module is being
// optimized, every `top.Weight` carries its data in its `value` attribute (a
// dense resource blob, not uniqued in the context); when the model is
// written, the data moves back into the weight file and the attribute is
// dropped. Lit tests may write small values inline as `dense<...>`.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_IR_WEIGHTVALUES_H
#define STRATA_DIALECT_TOP_IR_WEIGHTVALUES_H

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Support/Npz.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace strata::top {

/// The data of `value` (an ElementsAttr of a supported element type) as a
/// host tensor; fails with a diagnostic at `loc` otherwise.
mlir::FailureOr<Tensor> tensorFromElements(mlir::ElementsAttr value,
                                           mlir::Location loc);

/// `t` as an ElementsAttr of `type` (same shape; element type `t`'s or the
/// storage type of a quantized `type`), held in a dense resource blob.
mlir::ElementsAttr elementsFromTensor(const Tensor &t,
                                      mlir::RankedTensorType type);

/// The data of a weight that carries a `value`; nullopt if it has none.
std::optional<Tensor> weightValue(WeightOp weight);
/// The data of `v` if it is produced by a `top.Weight` carrying a value.
std::optional<Tensor> constantValue(mlir::Value v);

/// Gives new weights names unique in a module ("<base>", "<base>_1", ...).
class WeightNamer {
public:
  explicit WeightNamer(mlir::ModuleOp module);
  std::string unique(llvm::StringRef base);

private:
  llvm::StringSet<> used;
};

/// Creates a `top.Weight` named uniquely after `base` holding `t`.
WeightOp createWeight(mlir::OpBuilder &builder, mlir::Location loc,
                      WeightNamer &namer, llvm::StringRef base,
                      const Tensor &t, mlir::RankedTensorType type);

/// Reports that weight `w` has no value in `weights`: missing from the
/// weight file, or, when no file was read (`weights` holds nothing) and the
/// module names none (`top.weight_file`), that there is no weight file.
void emitMissingWeight(WeightOp w, const TensorMap &weights);

/// Attaches each weight's data from `weights` as its `value`. Fails (with a
/// diagnostic naming the weight) when one is missing or mismatched.
mlir::LogicalResult attachWeightValues(mlir::ModuleOp module,
                                       const TensorMap &weights);

/// Moves every weight's `value` into `out` (keyed by name) and drops the
/// attribute. Weights without a value must already be in `out`.
mlir::LogicalResult detachWeightValues(mlir::ModuleOp module, TensorMap &out);

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_IR_WEIGHTVALUES_H
