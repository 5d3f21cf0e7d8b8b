//===- TopInterfaces.td - Top op interfaces ----------------*- tablegen -*-===//

#ifndef STRATA_TOP_INTERFACES
#define STRATA_TOP_INTERFACES

include "mlir/IR/OpBase.td"

def Top_ShapeInferenceOpInterface : OpInterface<"ShapeInferenceOpInterface"> {
  let cppNamespace = "::strata::top";
  let description = [{
    Computes the static shape of every result from the operand shapes and the
    op's attributes. It is called only when every tensor operand has a static
    shape. It range-checks every attribute it uses and emits an error naming
    the attribute and its value when one is invalid, so the same function
    serves the verifier, the `top-shape-infer` pass and the graph API.

    The interface's verifier checks declared result shapes against the
    inferred ones (dynamic dims in the declared type match anything).
  }];
  let methods = [
    InterfaceMethod<
      "Fills `shapes` with one shape per result, or emits an error.",
      "::mlir::LogicalResult", "inferShapes",
      (ins "::llvm::SmallVectorImpl<::llvm::SmallVector<int64_t>> &":$shapes)>,
  ];
  let verify = [{ return ::strata::top::verifyInferredShapes($_op); }];
}

def Top_FlopsOpInterface : OpInterface<"FlopsOpInterface"> {
  let cppNamespace = "::strata::top";
  let description = [{
    The number of floating-point (or integer) operations one execution of the
    op performs: a multiply-accumulate counts as two.
  }];
  let methods = [
    InterfaceMethod<"Returns the op's FLOP count.", "int64_t", "getFlops">,
  ];
}

def Top_InterpretableOpInterface : OpInterface<"InterpretableOpInterface"> {
  let cppNamespace = "::strata::top";
  let description = [{
    Reference semantics: reads the op's operand values from the environment,
    computes the results on the host and stores them back. Errors (for
    example data-dependent indices out of range) are emitted on the op.
  }];
  let methods = [
    InterfaceMethod<"Executes the op on host tensors.",
      "::mlir::LogicalResult", "interpret",
      (ins "::strata::top::InterpreterEnv &":$env)>,
  ];
}

#endif // STRATA_TOP_INTERFACES
