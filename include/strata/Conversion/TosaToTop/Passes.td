//===- Passes.td - the TOSA front end's pass ----------------*- tablegen -*-===//
//
// Its own group (registerTosaToTopPasses), so the CPU target, which registers
// the Conversion group, does not depend on the TOSA front end.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_CONVERSION_TOSATOTOP_PASSES
#define STRATA_CONVERSION_TOSATOTOP_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTosaToTop : Pass<"convert-tosa-to-top", "::mlir::ModuleOp"> {
  let summary = "Convert a model in MLIR's TOSA dialect to Top";
  let description = [{
    The TOSA front end (`strata import model.mlir`): every op of MLIR 22's
    TOSA dialect that Strata supports becomes Top ops of the same semantics
    (the TOSA 1.0 specification's). NHWC stays NHWC: Conv, Deconv and the
    pools get `layout = NHWC` with TOSA's OHWI filters. Constants become
    `top.Weight` ops carrying their data (`value`), named after their
    locations; shape operands (`tosa.const_shape`) become attributes.
    Integer arithmetic Top has no single op for (rescale, mul's shift,
    arithmetic shifts, integer avg_pool2d, table, clz, floor) is written as
    integer Top ops computing the spec's formula in i64. Function arguments
    are wrapped in `top.Input`.

    An op with no conversion, an op of another dialect, or an attribute or
    operand form not handled (a shape computed at run time, i48
    accumulators, integer bilinear resize, ...) is an error naming the op,
    the field and the value; docs/tosa.md lists what is covered.

    Before:
    ```mlir
    %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
    After:
    ```mlir
    %0 = top.Add(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let dependentDialects = ["::strata::top::TopDialect"];
}

#endif // STRATA_CONVERSION_TOSATOTOP_PASSES
