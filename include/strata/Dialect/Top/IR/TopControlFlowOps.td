//===- TopControlFlowOps.td - If, Loop, Scan with regions --*- tablegen -*-===//
//
// Control flow with nested regions (ONNX If, Loop, Scan). The regions are not
// isolated from above: ops inside may use values of the enclosing scope, as
// ONNX subgraphs may reference outer-scope names. Every region has one block
// ending in `top.Yield`.
//
// Shapes: a result dim that the types alone cannot give (a Loop's iteration
// count, If branches that yield different dims) is dynamic (`?`); the
// reference interpreter fills such dims in at run time from the tensors it
// computes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_CONTROL_FLOW_OPS
#define STRATA_TOP_CONTROL_FLOW_OPS

def Top_YieldOp : Op<Top_Dialect, "Yield", [Pure, Terminator,
    ParentOneOf<["IfOp", "LoopOp", "ScanOp"]>]> {
  let summary = "Ends a region of a control-flow op with its values";
  let description = [{
    The values a `top.If` branch, a `top.Loop` body or a `top.Scan` body
    produces; the parent op's verifier checks their number and types.

    ```mlir
    top.Yield %a, %b : tensor<i1>, tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<Top_Tensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Top_IfOp : Top_Op<"If", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Runs one of two regions chosen by a boolean";
  let description = [{
    `cond` is a one-element `i1` tensor (shape `[]` or `[1]`). If it is true
    the `then` region runs, else the `else` region; the results are the
    values that region yields. Both regions take no arguments and yield one
    value per result, with the result's element type. A result dim is static
    where both branches yield the same static dim, else dynamic; both
    branches must yield the same rank.

    ```mlir
    %r = top.If %c : tensor<i1> -> (tensor<5xf32>) then {
      top.Yield %a : tensor<5xf32>
    } else {
      top.Yield %b : tensor<5xf32>
    }
    ```
  }];
  let arguments = (ins Top_Tensor:$cond);
  let results = (outs Variadic<Top_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $cond attr-dict `:` type($cond) `->` `(` type($results) `)`
    `then` $thenRegion `else` $elseRegion
  }];
  let hasVerifier = 1;
}

def Top_LoopOp : Top_Op<"Loop", [RecursiveMemoryEffects]> {
  let summary = "Runs a region repeatedly, carrying values and stacking outputs";
  let description = [{
    ONNX Loop. `max_trip_count` is a one-element `i64` tensor or `none`
    (unbounded); `cond` a one-element `i1` tensor or `none` (true). The body
    runs while the iteration number is below `max_trip_count` and the
    condition is true. Its block takes `(iteration : tensor<i64>,
    cond : tensor<i1>, carried...)`, where each carried value has the type of
    its initial value, and yields `(cond, carried..., scan...)`. The results
    are the final carried values followed by one result per scan value: the
    values of every iteration stacked on a new leading dim, whose size is the
    iteration count (dynamic unless known statically, see below).

    A carried value must keep its element type and its shape across
    iterations. The leading dim of a scan result is static only if the loop
    provably runs `max_trip_count` times; Strata never proves that from
    types, so it is `?` and the interpreter sets it at run time. When no
    iteration runs, a scan result has a leading dim of 0 and the dims the
    body's yield type gives.

    ```mlir
    %y, %s = top.Loop(%m, %c, %y0) : (tensor<i64>, tensor<i1>, tensor<1xf32>)
        -> (tensor<1xf32>, tensor<?x1xf32>) {
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<1xf32>):
      %n = top.Add(%yi, %yi) : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
      top.Yield %ci, %n, %n : tensor<i1>, tensor<1xf32>, tensor<1xf32>
    }
    ```
  }];
  let arguments = (ins Top_TensorOrNone:$max_trip_count,
                       Top_TensorOrNone:$cond,
                       Variadic<Top_Tensor>:$initial);
  let results = (outs Variadic<Top_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` operands `)` attr-dict `:` functional-type(operands, results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of scan outputs (results after the carried values).
    unsigned getNumScanOutputs() {
      return getNumResults() - getInitial().size();
    }
  }];
}

def Top_ScanOp : Top_Op<"Scan", [RecursiveMemoryEffects]> {
  let summary = "Runs a region over slices of tensors, carrying state";
  let description = [{
    ONNX Scan (opset 9 and later). The first `inputs.size() -
    num_scan_inputs` operands are initial states, the rest are scanned: the
    body runs once per slice along `scan_input_axes[j]` (default 0) of scan
    input `j`, in reverse order where `scan_input_directions[j]` is 1. All
    scan inputs must have the same length along their axes. The block takes
    `(state..., slice...)` (a slice drops the scanned dim) and yields
    `(state..., scan output slice...)`. The results are the final states
    followed by each scan output: its per-iteration slices stacked along
    `scan_output_axes[k]` (default 0, may be negative: counted on the output
    rank), in reverse order where `scan_output_directions[k]` is 1.

    ```mlir
    %s, %z = top.Scan(%init, %x) {num_scan_inputs = 1 : i64}
        : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
    ^bb0(%acc: tensor<2xf32>, %xi: tensor<2xf32>):
      %n = top.Add(%acc, %xi) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      top.Yield %n, %n : tensor<2xf32>, tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Top_Tensor>:$inputs,
                       Top_AxisAttr:$num_scan_inputs,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_input_axes,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_input_directions,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_output_axes,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_output_directions);
  let results = (outs Variadic<Top_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` operands `)` attr-dict `:` functional-type(operands, results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of state values (operands before the scan inputs).
    unsigned getNumStates() {
      return getInputs().size() - getNumScanInputs();
    }
  }];
}

#endif // STRATA_TOP_CONTROL_FLOW_OPS
