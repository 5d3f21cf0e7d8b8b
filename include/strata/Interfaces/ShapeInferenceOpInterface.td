//===- ShapeInferenceOpInterface.td - result shapes of an op -*- tablegen -*-===//
//
// A dialect-neutral interface: any dialect whose ops have shape rules
// (Top now; the NPU's kernel-level dialect next) implements it, and the
// verifier, the shape-inference passes and the reference interpreter use it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERFACES_SHAPEINFERENCEOPINTERFACE
#define STRATA_INTERFACES_SHAPEINFERENCEOPINTERFACE

include "mlir/IR/OpBase.td"

def ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::strata";
  let description = [{
    Computes the shape of every result from the operands' shapes, the op's
    attributes and, for results whose shape depends on operand values (a
    runtime target shape, NonZero, ...), those values when the context knows
    them. The context is where the operands come from: the IR's static types
    (`TypeShapeContext`: type inference, the verifier, the graph API) or the
    tensors of a run (the reference interpreter). Dims that cannot be known
    from what the context gives are `kDynamicDim`.

    The implementation range-checks every attribute it uses and emits an
    error naming the attribute and its value when one is invalid. Top ops
    implement it as a thin adapter over a free shape function
    (lib/Dialect/Top/Shapes).

    The interface's verifier checks declared result shapes against the
    inferred ones (dynamic dims on either side match anything); it runs when
    every tensor operand has a static shape.
  }];
  let methods = [
    InterfaceMethod<
      "Fills `shapes` with one shape per result, or emits an error.",
      "::mlir::LogicalResult", "inferShapes",
      (ins "const ::strata::ShapeContext &":$context,
           "::llvm::SmallVectorImpl<::llvm::SmallVector<int64_t>> &":$shapes)>,
  ];
  let extraSharedClassDeclaration = [{
    /// Shape inference from the IR's types; every tensor operand must have a
    /// static shape.
    ::mlir::LogicalResult inferShapesFromTypes(
        ::llvm::SmallVectorImpl<::llvm::SmallVector<int64_t>> &shapes) {
      if (::mlir::failed(
              $_op.inferShapes(::strata::TypeShapeContext(), shapes)))
        return ::mlir::failure();
      return ::strata::checkInferredDims($_op.getOperation(), shapes);
    }
  }];
  let verify = [{ return ::strata::verifyInferredShapes($_op); }];
}

#endif // STRATA_INTERFACES_SHAPEINFERENCEOPINTERFACE
