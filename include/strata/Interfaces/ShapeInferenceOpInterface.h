//===- ShapeInferenceOpInterface.h - result shapes of an op -----*- C++ -*-===//

#ifndef STRATA_INTERFACES_SHAPEINFERENCEOPINTERFACE_H
#define STRATA_INTERFACES_SHAPEINFERENCEOPINTERFACE_H

#include "strata/Support/ShapeFunction.h"
#include "strata/Support/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace strata {

static_assert(kDynamicDim == mlir::ShapedType::kDynamic,
              "shape functions and MLIR must agree on the dynamic dim");

/// Where a shape rule reads its operands from.
class ShapeContext {
public:
  virtual ~ShapeContext();
  /// The shape of tensor operand `value` (static in every context that runs
  /// a shape rule).
  virtual llvm::SmallVector<int64_t> shape(mlir::Value value) const = 0;
  /// The elements of `value` when this context knows them (the tensors of a
  /// run), else nullptr.
  virtual const Tensor *tensor(mlir::Value value) const = 0;
};

/// Operands from the IR: the static shapes of their types, no values.
class TypeShapeContext final : public ShapeContext {
public:
  llvm::SmallVector<int64_t> shape(mlir::Value value) const override;
  const Tensor *tensor(mlir::Value) const override { return nullptr; }
};

/// Checks the op's declared result shapes against `inferShapes` (from the
/// types) when every tensor operand has a static shape.
mlir::LogicalResult verifyInferredShapes(mlir::Operation *op);

/// Fails with an error on `op` naming the result and the dim when a shape
/// from `inferShapes` has a negative dim other than the dynamic marker: such
/// a dim must never reach a RankedTensorType (MLIR only asserts it) nor a
/// size computation. inferShapesFromTypes and the interpreter call it.
mlir::LogicalResult
checkInferredDims(mlir::Operation *op,
                  llvm::ArrayRef<llvm::SmallVector<int64_t>> shapes);

/// Emits `error` (a shape function's message) on `op` as "'<op>' op <msg>"
/// when `result` failed; otherwise appends its value to `shapes`.
mlir::LogicalResult
appendShape(mlir::Operation *op, const ShapeOr<Shape> &result,
            llvm::SmallVectorImpl<llvm::SmallVector<int64_t>> &shapes);
mlir::LogicalResult
appendShapes(mlir::Operation *op, const ShapeOr<Shapes> &result,
             llvm::SmallVectorImpl<llvm::SmallVector<int64_t>> &shapes);

} // namespace strata

#include "strata/Interfaces/ShapeInferenceOpInterface.h.inc"

#endif // STRATA_INTERFACES_SHAPEINFERENCEOPINTERFACE_H
