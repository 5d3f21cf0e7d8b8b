//===- Passes.td - Strata's conversions between dialects ---*- tablegen -*-===//

#ifndef STRATA_CONVERSION_PASSES
#define STRATA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTopToLinalg : Pass<"convert-top-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower Top ops to linalg, tensor, arith, math and scf";
  let description = [{
    The CPU target's code-generation fallback: every Top op (other than
    `top.Input`, `top.Weight` and `top.None`) becomes upstream ops on
    tensors — `linalg` named and generic ops, `tensor` reshapes, slices and
    pads, `arith` and `math` scalar ops in the bodies, `scf` for control
    flow. Integer tensors become signless (`ui8` computes as `i8` with the
    unsigned arith ops); function signatures are converted alike.

    Shapes must be static (compile with `--input-shapes` for dynamic
    models). An op with no lowering, or one whose lowering does not apply
    (a dynamic shape, a quantized type, an attribute form not handled), is
    an error naming the op and why; nothing is half converted.

    Before:
    ```mlir
    %0 = top.Add(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<2x3xf32>
    %0 = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> (d1),
           (d0, d1) -> (d0, d1)], iterator_types = ["parallel", "parallel"]}
           ins(%a, %b : ...) outs(%e : tensor<2x3xf32>) {
      ^bb0(%x: f32, %y: f32, %o: f32):
        %s = arith.addf %x, %y : f32
        linalg.yield %s : f32
    } -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect", "::mlir::bufferization::BufferizationDialect",
  ];
}

#endif // STRATA_CONVERSION_PASSES
