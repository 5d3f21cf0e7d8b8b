//===- Passes.td - the CPU target's passes -----------------*- tablegen -*-===//

#ifndef STRATA_TARGET_CPU_PASSES
#define STRATA_TARGET_CPU_PASSES

include "mlir/Pass/PassBase.td"

def CpuOutlineDispatches : Pass<"strata-cpu-outline-dispatches",
                                "::mlir::ModuleOp"> {
  let summary = "Move every Top op of the entry function into its own "
                "dispatch function";
  let description = [{
    The first step of `strata compile --target cpu`. In the entry function,
    every op other than `top.Input`, `top.Weight`, `top.None`, the return and
    the views (below) moves into a new private function
    `@dispatch_<N>_<Op>` marked `strata.dispatch`, and is replaced by a call
    to it. The function takes the op's tensor operands and every value its
    regions use from above (control flow), in order of first use, and
    returns its results; absent optional operands become a `top.None`
    inside. Tensors with no elements carry no bytes: an empty operand is a
    `tensor.empty` inside the dispatch, an empty result is not returned and
    becomes a `tensor.empty` in the entry function (a dispatch with only
    empty results computes nothing and is dropped when compiling). The entry function is then the model's dispatch list: calls on
    inputs, weights and earlier results.

    Views stay in the entry function: a `top.Reshape`, `top.Squeeze` or
    `top.Unsqueeze` whose operand (through other views) is a weight or a
    dispatch result, when nothing in that chain is returned (a returned
    value lives in the caller's output buffer); memory planning makes them
    share their operand's bytes. Any other view is a dispatch.

    Every value must have a static shape: a dynamic dim is an error naming
    the op and the value (compile with `--input-shapes`), except the
    results of the ops whose result shape depends on input values
    (`top.NonZero`, `top.Unique`, `top.NonMaxSuppression`, `top.Range`) in
    the entry block. Their dispatch keeps the dynamic result types and gets
    `strata.result_bounds`, one i64 array per result: a static upper bound
    of its shape (NonZero `[rank, numel]`; Unique's output the input's
    shape, flattened without an axis, and its indices and counts the
    length of the axis; NonMaxSuppression `[batches * classes * k, 3]` with
    k = min(max_output_boxes_per_class, boxes) when that operand is a
    constant, else the boxes per batch; Range `[max-range-elements]`). The
    runtime computes them with a kernel that reports the actual shape
    (docs/codegen.md, run-time shapes). A value with a run-time shape may
    only be returned: an op reading one is an error naming both.

    A `top.Loop` of the entry block whose scan outputs' length is decided
    at run time (`[?, static...]`, static carried values) becomes a dispatch
    whose Loop carries `strata.scan_bound` = max-scan-length and an i64
    counter: it returns the carried values, each scan output as a
    `[max-scan-length, ...]` buffer and then, per scan output, its dims
    (`[count, slice...]`, i64), listed in `strata.runtime_shape_results`.

    A `top.Loop`'s `max_trip_count` and `cond`, when they are weights
    carrying a one-element integer or i1 value, become `arith.constant`s
    inside its dispatch rather than arguments: the Loop lowering needs a
    compile-time trip count to give scan outputs a static shape.

    An int8 Add or GlobalAvgPool as `top-quantize` writes it (a chain of
    `top.Requant` and i32 `top.Add` / `top.Reduce` ops, docs/quantization.md)
    is one dispatch, outlined where its last op was and marked
    `strata.fuse_elementwise` (see `strata-cpu-fuse-elementwise`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"maxRangeElements", "max-range-elements", "int64_t",
           /*default=*/"65536",
           "The bound of the element count of a Range with run-time "
           "bounds (a larger range is a run-time error)">,
    Option<"maxScanLength", "max-scan-length", "int64_t",
           /*default=*/"65536",
           "The bound of the scan outputs' length of a Loop with a "
           "run-time trip count (a longer loop is a run-time error)">,
  ];
}

def CpuFuseElementwise : Pass<"strata-cpu-fuse-elementwise",
                              "::mlir::ModuleOp"> {
  let summary = "Fuse the elementwise linalg ops of marked dispatches";
  let description = [{
    Runs right after convert-top-to-linalg. In each dispatch function marked
    `strata.fuse_elementwise` (an outlined int8 chain), every elementwise
    `linalg.generic` is fused into its consumer (upstream elementwise op
    fusion): an int8 Add becomes one loop from the two int8 inputs to the
    int8 output, without int32 intermediates. The arithmetic is unchanged.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CpuStridedCopiesToLinalg : Pass<"strata-cpu-strided-copies-to-linalg",
                                    "::mlir::ModuleOp"> {
  let summary = "Rewrite memref.copy between non-contiguous memrefs into "
                "linalg.copy";
  let description = [{
    Runs after bufferization. `finalize-memref-to-llvm` lowers a
    `memref.copy` whose source or target is not a contiguous row-major
    memref (the strided subviews that `tensor.pad`, `tensor.insert_slice`
    and `tensor.extract_slice` bufferize to) to a call of `memrefCopy` from
    MLIR's C runner utilities, which the dispatch shared object cannot
    resolve. Such copies become `linalg.copy`, which
    `convert-linalg-to-loops` turns into loops; copies between contiguous
    memrefs stay `memref.copy` (an `llvm.memcpy`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CpuEmitDispatchABI : Pass<"strata-cpu-emit-dispatch-abi",
                              "::mlir::ModuleOp"> {
  let summary = "Wrap each lowered dispatch function in the runtime's "
                "native-dispatch ABI";
  let description = [{
    Runs on the dispatch module after its lowering to the LLVM dialect (with
    bare-pointer memref arguments). For every `@dispatch_*` function it adds
    the exported `@strata_dispatch_*`:

    ```c
    int strata_dispatch_N(void *const *bindings, const int64_t *params,
                          int64_t workgroup_id, int64_t workgroup_count);
    ```

    which loads the i-th binding as the i-th pointer argument, calls the
    dispatch function and returns 0; the dispatch functions become internal
    so the shared object exports only the wrappers.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CpuDistinctResults : Pass<"strata-cpu-distinct-results",
                              "::mlir::ModuleOp"> {
  let summary = "Make every result of a dispatch function a new tensor";
  let description = [{
    A returned value that is a function argument, or that an earlier return
    operand already returns, is replaced by a copy (`tensor.empty` +
    `linalg.copy`), so that buffer-results-to-out-params can give every
    result its own out-parameter. Every tensor argument is marked
    `bufferization.writable = false`: a dispatch never writes into its
    operands' buffers (bufferization copies first), even where a fold made
    a loop's initial value an operand.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CpuCheckContract : Pass<"strata-cpu-check-contract", "::mlir::ModuleOp"> {
  let summary = "Check that only the ops legal after a lowering stage remain";
  let description = [{
    The CPU pipeline's contract between stages (after torch-mlir's
    VerifyTosaBackendContract): after `stage=linalg` (convert-top-to-linalg)
    only `linalg`, `tensor`, `arith`, `math`, `scf`, `bufferization`,
    `func` and builtin ops may remain; after `stage=llvm` (the conversions to
    the LLVM dialect) only `llvm` and builtin ops. Any other op is an error
    naming it and the stage, at its location (which is the Top op it was
    lowered from), instead of a failure further down the pipeline.
  }];
  let options = [
    Option<"stage", "stage", "std::string", /*default=*/"\"llvm\"",
           "The stage just finished: 'linalg' or 'llvm'">,
  ];
}

def CpuDistributeWorkgroups : Pass<"strata-cpu-distribute-workgroups",
                                   "::mlir::ModuleOp"> {
  let summary = "Split a dispatch's root op over workgroups (scf.forall)";
  let description = [{
    Runs on the dispatch functions on tensors, after convert-top-to-linalg.
    In a dispatch function with one result computed by a linalg op (the
    root), straight-line code (no scf op) and enough work, the root is tiled
    along one parallel loop that indexes its result into an `scf.forall` of
    W iterations (W divides that loop's extent, so every tile is static),
    and its producers (pads, fills, broadcasts, elementwise ops) are fused
    into the tile. The split is kept only when nothing but constants,
    `tensor.empty`, reshapes and the forall remains outside it (every
    workgroup runs what is outside) and the forall writes a `tensor.empty`.
    The function then takes two leading `i64` arguments, the workgroup id
    and count, and carries `strata.workgroup_count = W`;
    strata-cpu-map-workgroups maps the forall onto them after
    bufferization. A dispatch that is not split is unchanged (one
    workgroup).
  }];
  let options = [
    Option<"maxWorkgroups", "max-workgroups", "int64_t", /*default=*/"8",
           "The most workgroups a dispatch splits into">,
    Option<"minWorkPerGroup", "min-work-per-group", "int64_t",
           /*default=*/"16384",
           "Iterations of the root op's loop nest per workgroup, at least">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CpuMapWorkgroups : Pass<"strata-cpu-map-workgroups",
                            "::mlir::ModuleOp"> {
  let summary = "Map a split dispatch's scf.forall onto its workgroup "
                "arguments";
  let description = [{
    Runs after bufferization. In a function marked
    `strata.workgroup_count`, each `scf.forall` directly in the body (one
    loop, from strata-cpu-distribute-workgroups) becomes an `scf.for` over
    the iterations of workgroup `wg` of `wgc` (the first two arguments):
    from `lb + wg * step` to `ub` by `wgc * step`. The runtime may run any
    count of workgroups; each iteration runs exactly once.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def CpuVectorize : Pass<"strata-cpu-vectorize", "::mlir::ModuleOp"> {
  let summary = "Tile linalg ops to vector-sized tiles and vectorize them";
  let description = [{
    Runs on the dispatch functions on tensors, after
    strata-cpu-distribute-workgroups. Each linalg op with static shapes and
    byte-sized element types (no i1 or narrow types: their buffers hold one
    element per byte), other than copies (a vectorized copy folds away) and
    gathers (`tensor.extract` in the payload), whose vectorization
    preconditions hold is tiled with
    scf.for loops to a vector-sized tile: one loop carries a vector of up to
    16 elements (a divisor of its extent), the other loops step by one;
    contractions (matmul) keep 16 of `n` and up to 16 of `k`; a 2-D NCHW
    convolution or pooling keeps a row of the output (`oh` and `kh` of one,
    so that it decomposes into its 1-D form). The tiles, and every other
    small static linalg op, are then vectorized (`linalg::vectorize`,
    contractions as `vector.contract`). An op
    that does not qualify is left to `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "The elements of the vector dim of a tile, at most">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def CpuMarkInPlace : Pass<"strata-cpu-mark-in-place", "::mlir::ModuleOp"> {
  let summary = "Mark the operands a dispatch's result may be written over";
  let description = [{
    Runs on the dispatch functions on tensors, right after
    convert-top-to-linalg. A dispatch function whose body is one
    `linalg.generic` with only parallel loops, writing a `tensor.empty` with
    an identity map and returning its one result, reads each element of an
    operand with an identity map only to write the same element of the
    result. Such operands that are function arguments of the result's shape
    and element width are listed in `strata.in_place_operands` (argument numbers): the
    memory plan may give the result the bytes of such an operand whose life
    ends there (docs/codegen.md). The generated code stays correct when they
    alias: every tile reads its elements before writing them (the other
    operands must not share those bytes; the artifact builder checks).
  }];
}

#endif // STRATA_TARGET_CPU_PASSES
