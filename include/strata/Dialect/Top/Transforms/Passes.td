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

def TopInlineFunctions : Pass<"top-inline-functions", "::mlir::ModuleOp"> {
  let summary = "Inline every call of a function with a body";
  let description = [{
    Replaces each `func.call` by a copy of the callee's body (calls inside
    it are inlined in turn), then erases private functions nobody calls any
    more. The ONNX importer turns model-local functions into private
    functions marked `strata.implements`; composite fusion replaces the
    known ones by fused ops first, and this pass inlines the rest. Fails on
    call chains deeper than 64 (recursion).

    Before:
    ```mlir
    func.func private @"local.twice"(%x: tensor<2xf32>) -> tensor<2xf32>
        attributes {strata.implements = "local.twice"} {
      %y = top.Add(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    }
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %r = call @"local.twice"(%a) : (tensor<2xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %r = top.Add(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    }
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // STRATA_TOP_PASSES
