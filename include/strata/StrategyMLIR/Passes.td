//===- Passes.td - operator strategy passes ----------------*- tablegen -*-===//

#ifndef STRATA_STRATEGY_PASSES
#define STRATA_STRATEGY_PASSES

include "mlir/Pass/PassBase.td"

def TopSelectStrategy : Pass<"top-select-strategy", "::mlir::ModuleOp"> {
  let summary = "Choose each Top op's implementation for a target";
  let description = [{
    For every Top op that is dispatched (all but `top.Weight`, `top.None`,
    `top.Input` and terminators), reads the op into a workload and selects
    its implementation on `target` from the built-in strategy registry
    (docs/strategy.md): a usable tuning-log record for the workload, target
    and machine wins (lowest cost); otherwise the highest priority whose
    condition holds. The choice is recorded on the op as discardable
    attributes:

    - `strata.impl = "name"` when decided at compile time;
    - `strata.impl = [{impl = "a", when = ["operand 0 dim 0 == 1"]}, ...,
      {impl = "b"} ]` when a condition reads a dim unknown at compile time:
      a guard chain, the first alternative whose clauses hold at run time
      wins, the last has no `when`;
    - `strata.schedule = {tile_m = 64 : i64, ...}` (the implementation's
      schedule parameters, a tuning record's config over the defaults; in a
      guard chain each alternative has its own `schedule`);
    - `strata.tuning_line = N` when a tuning record decided.

    With `explain`, prints for each op the candidates, every clause held /
    failed / unknown with the value it read, the priorities, the tuning
    records and the winner to stdout. A malformed tuning log is an error
    naming the line and field.

    Before:
    ```mlir
    %1 = top.MatMul(%x, %w, %none) : (tensor<?x64xf32>, tensor<64x32xf32>, none) -> tensor<?x32xf32>
    ```
    After:
    ```mlir
    %1 = top.MatMul(%x, %w, %none) {strata.impl = [
        {impl = "matmul.gemv_f32", schedule = {tile_n = 64 : i64}, when = ["operand 0 dim -2 == 1"]},
        {impl = "matmul.gemm_f32", schedule = {...}} ]} : ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "The target whose strategies apply">,
    Option<"tuningLog", "tuning-log", "std::string", /*default=*/"\"\"",
           "A JSON-lines tuning log (docs/strategy.md)">,
    Option<"machine", "machine", "std::string", /*default=*/"\"\"",
           "The machine tuning records must name (default: this host)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print why each op got its implementation">,
  ];
}

#endif // STRATA_STRATEGY_PASSES
