//===- TopShapeOps.td - reshape, permute, concat, ... ------*- tablegen -*-===//

#ifndef STRATA_TOP_SHAPE_OPS
#define STRATA_TOP_SHAPE_OPS

def Top_ReshapeOp : Top_Op<"Reshape", [Pure]> {
  let summary = "Reinterprets a tensor with another shape";
  let description = [{
    `shape` gives the new dims; one entry may be -1 (inferred) and 0 copies
    the input's dim at that position (ONNX `allowzero = 0`). Element count
    must be preserved.
  }];
  let arguments = (ins Top_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Top_Tensor:$output);
}

#endif // STRATA_TOP_SHAPE_OPS
