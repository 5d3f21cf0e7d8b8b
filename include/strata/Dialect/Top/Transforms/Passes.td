//===- Passes.td - Top dialect passes ----------------------*- tablegen -*-===//

#ifndef STRATA_TOP_PASSES
#define STRATA_TOP_PASSES

include "mlir/Pass/PassBase.td"

def TopShapeInfer : Pass<"top-shape-infer", "::mlir::func::FuncOp"> {
  let summary = "Fill in result shapes written as unknown";
  let description = [{
    Walks the function in order and, for every Top op whose operands all have
    static shapes, replaces each result type that is unranked or has dynamic
    dims with the inferred static shape (keeping the element type). Then
    updates the function's result types to match its `return`.

    Before:
    ```mlir
    %1 = top.Relu(%0) : (tensor<1x8xf32>) -> tensor<*xf32>
    ```
    After:
    ```mlir
    %1 = top.Relu(%0) : (tensor<1x8xf32>) -> tensor<1x8xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

#endif // STRATA_TOP_PASSES
