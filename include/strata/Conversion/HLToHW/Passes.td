//===- Passes.td - HL to the NPU's task-level npuhw dialect -*- tablegen -*-===//

#ifndef STRATA_CONVERSION_HLTOHW_PASSES
#define STRATA_CONVERSION_HLTOHW_PASSES

include "mlir/Pass/PassBase.td"

def ConvertHLToHW : Pass<"convert-hl-to-hw", "::mlir::ModuleOp"> {
  let summary = "Lower each HL kernel to an NPU program (npuhw.program)";
  let description = [{
    For every `hl.conv2d`, `hl.depthwise_conv2d`, `hl.fully_connected`,
    `hl.transpose` and int8 `hl.add/sub/mul/min/max/activation/table`, writes
    one `npuhw.program` (a dispatch of the npu-sim device) at the end
    of the module and names it on the HL op (`npu.program = @sym`). The
    program DMA-loads the input, the packed weights and the scale_bias rows
    from DRAM into LRAM, runs slice tasks (split over the description's
    slices, each with the vector mode the cycle model finds fastest) and
    stores the result. A layer that does not fit LRAM is tiled by output
    rows, output channels (whole weight blocks) and, when needed (or,
    double-buffered, when streaming it overlaps more of the loads), the
    reduction (int32 partials), checked exactly with the
    LRAM allocator (`lram_alignment`); a layer that can never fit is an
    error naming the layer and the sizes. docs/npu.md, "HL -> HW".
  }];
  let options = [
    Option<"npuConfig", "npu-config", "std::string", "",
           "the NPU description (a JSON file, docs/npu.md); default: the "
           "built-in one">,
    Option<"doubleBuffer", "double-buffer", "bool", "false",
           "load tile k+1 while tile k computes (two LRAM buffer sets)">,
    Option<"lramReuse", "lram-reuse", "bool", "false",
           "a kernel fed by the previous NPU kernel reads its input where "
           "that kernel left it in LRAM instead of loading it">,
    Option<"fuseDispatches", "fuse-dispatches", "bool", "false",
           "an int8 hl.conv2d whose only user is an int8 hl.add runs the "
           "add in the same program, per output tile in LRAM (one "
           "dispatch)">,
    Option<"foldTables", "fold-tables", "bool", "false",
           "an int8 hl.conv2d / hl.depthwise_conv2d whose only user is an "
           "hl.table applies the table in its activation unit (one "
           "dispatch; the table in LRAM); a table after an int8 "
           "elementwise op or a fused add runs in that dispatch">,
    Option<"prefetchWeights", "prefetch-weights", "bool", "false",
           "a MAC kernel whose only user is the next MAC kernel shares its "
           "program: its output stays in LRAM and the consumer's first "
           "weights load while it computes">,
  ];
  let dependentDialects = ["::strata::npuhw::NpuHWDialect"];
}

#endif // STRATA_CONVERSION_HLTOHW_PASSES
