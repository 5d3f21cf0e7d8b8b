//===- TopElementwiseOps.td - binary and unary elementwise -*- tablegen -*-===//

#ifndef STRATA_TOP_ELEMENTWISE_OPS
#define STRATA_TOP_ELEMENTWISE_OPS

/// Binary op with numpy broadcasting; operands and result share the element
/// type.
class Top_BinaryOp<string mnemonic, string desc> : Top_Op<mnemonic, [Pure]> {
  let summary = desc # " with numpy broadcasting";
  let description = [{
    Elementwise; shapes broadcast as in numpy (dims aligned from the right,
    each pair equal or one of them 1). Operands and result have the same
    element type. `do_relu` applies relu to the result.
  }];
  let arguments = (ins Top_Tensor:$lhs, Top_Tensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$do_relu);
  let results = (outs Top_Tensor:$output);
}

def Top_AddOp : Top_BinaryOp<"Add", "Addition">;

/// Unary op on any float tensor.
class Top_UnaryOp<string mnemonic, string desc, string formula>
    : Top_Op<mnemonic, [Pure]> {
  let summary = desc;
  let description = "Elementwise `" # formula # "`; the result has the "
                    # "operand's shape and element type.";
  let arguments = (ins Top_Tensor:$input);
  let results = (outs Top_Tensor:$output);
}

def Top_ReluOp : Top_UnaryOp<"Relu", "Rectified linear unit", "max(x, 0)">;

#endif // STRATA_TOP_ELEMENTWISE_OPS
