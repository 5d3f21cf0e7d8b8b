//===- TopTypeOps.td - element type reinterpretation -------*- tablegen -*-===//
//
// Ops that change how the bits of a tensor are read. Value conversions
// between element types are `top.Cast` (TopElementwiseOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_TYPE_OPS
#define STRATA_TOP_TYPE_OPS

def Top_BitCastOp : Top_Op<"BitCast", [Pure]> {
  let summary = "Reinterpret element bits as another type (ONNX BitCast)";
  let description = [{
    Reads the bits of every element as the result's element type; the shape
    is unchanged. Both element types must have the same storage width in
    bits, where `i1` (ONNX BOOL) counts as 8 bits, the 4-bit types (`i4`,
    `ui4`, `f4E2M1FN`) as 4 and the 2-bit integers as 2; otherwise the op is
    invalid. An `i1` result is 1 where the source bits are non-zero.

    ```mlir
    %y = top.BitCast(%x) : (tensor<2x3xf32>) -> tensor<2x3xi32>
    ```

    FLOPs: 0.
  }];
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // STRATA_TOP_TYPE_OPS
