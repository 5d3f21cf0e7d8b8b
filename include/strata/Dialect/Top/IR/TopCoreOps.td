//===- TopCoreOps.td - graph inputs, weights, none ---------*- tablegen -*-===//

#ifndef STRATA_TOP_CORE_OPS
#define STRATA_TOP_CORE_OPS

def Top_InputOp : Top_Op<"Input", [Pure]> {
  let summary = "A graph input";
  let description = [{
    Marks a function argument as a network input. The result has the
    argument's type; the op exists so that later stages (quantization,
    preprocessing) have a place to attach input-specific information.

    ```mlir
    %0 = top.Input(%arg0) : (tensor<1x3x224x224xf32>) -> tensor<1x3x224x224xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs Top_Tensor:$output);
}

def Top_WeightOp : Top_Op<"Weight", [Pure]> {
  let summary = "A named constant stored in the weight file";
  let description = [{
    A constant tensor whose data is the array `name` of the module's weight
    file (`top.weight_file`). The npz array must have exactly the result's
    shape and element type (the storage type for quantized results).

    ```mlir
    %w = top.Weight() {name = "conv1_filter"} : () -> tensor<16x3x3x3xf32>
    ```

    While a model is optimized, a weight may carry its data in `value` (a
    dense resource blob, or inline `dense<...>` in tests) with exactly the
    result's type; passes that fold constants read and create such weights.
    When the model is written the data moves into the weight file and
    `value` is dropped. The interpreter prefers `value` over the file.

    ```mlir
    %s = top.Weight() {name = "scale", value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<ElementsAttr>:$value);
  let results = (outs AnyStaticShapeTensor:$output);
  let builders = [
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::StringAttr":$name), [{
      build($_builder, $_state, type, name, ::mlir::ElementsAttr());
    }]>,
    OpBuilder<(ins "::mlir::Type":$type, "::llvm::StringRef":$name), [{
      build($_builder, $_state, type, $_builder.getStringAttr(name),
            ::mlir::ElementsAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Top_NoneOp : Top_Op<"None", [Pure]> {
  let summary = "The absent value of an optional operand";
  let description = [{
    Stands for an optional operand that is not given (for example a
    convolution without bias).

    ```mlir
    %none = top.None() : () -> none
    ```
  }];
  let results = (outs NoneType:$output);
}

#endif // STRATA_TOP_CORE_OPS
