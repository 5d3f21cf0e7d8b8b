//===- NpuHWOps.td - the task-level NPU dialect ------------*- tablegen -*-===//
//
// npuhw mirrors the NPU program format (lib/NpuSim/npu_program.fbs) one to
// one: a program of segments of DMA, slice and wait tasks. It is the listing
// of the binary: lib/Target/Npu serializes it to program bytes and
// disassembles bytes back to it. docs/npu-sim.md is the reference.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_NPUHW_OPS
#define STRATA_NPUHW_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def NpuHW_Dialect : Dialect {
  let name = "npuhw";
  let cppNamespace = "::strata::npuhw";
  let summary = "Task-level NPU programs: DMA, slice tasks, waits";
  let description = [{
    One op per instruction of the NPU program format: `npuhw.program` holds
    the NPU configuration and the DRAM bindings, `npuhw.segment`s hold tasks
    (`npuhw.dma_load`, `npuhw.dma_store`, `npuhw.slice_task`, `npuhw.wait`).
    The program verifier checks every task against the configuration
    (LRAM ranges, field ranges, operand shapes) with the simulator's own
    checks, so a program that verifies is one the simulator accepts.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class NpuHW_Attr<string name, string attrMnemonic> :
    AttrDef<NpuHW_Dialect, name> {
  let mnemonic = attrMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
}

def NpuHW_OperandAttr : NpuHW_Attr<"Operand", "operand"> {
  let summary = "an LRAM address generator";
  let description = [{
    Element (i0, .., ik) is at LRAM byte `address + sum(i_j * strides[j])`;
    strides in bytes, >= 0 (0 broadcasts).
  }];
  let parameters = (ins "int64_t":$address,
                        ArrayRefParameter<"int64_t">:$dims,
                        ArrayRefParameter<"int64_t">:$strides);
  let assemblyFormat = "`<` `address` `=` $address `,` `dims` `=` `[` $dims "
                       "`]` `,` `strides` `=` `[` $strides `]` `>`";
}

def NpuHW_BindingAttr : NpuHW_Attr<"Binding", "binding"> {
  let summary = "a DRAM buffer of the dispatch";
  let parameters = (ins StringRefParameter<>:$name, "int64_t":$size,
                        "bool":$writable);
}

class NpuHW_Op<string mnemonic, list<Trait> traits = []> :
    Op<NpuHW_Dialect, mnemonic, traits>;

def NpuHW_ProgramOp : NpuHW_Op<"program", [Symbol, IsolatedFromAbove,
    NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "an NPU program (one dispatch)";
  let description = [{
    `config` is the NPU configuration as a dictionary with the keys of the
    JSON schema (docs/npu.md); `bindings` lists the DRAM buffers the program
    reads and writes, in dispatch binding order. The body holds segments.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DictionaryAttr:$config,
                       TypedArrayAttrBase<NpuHW_BindingAttr,
                                          "bindings">:$bindings);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def NpuHW_SegmentOp : NpuHW_Op<"segment", [HasParent<"ProgramOp">,
    NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "tasks ending in a barrier";
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
}

class NpuHW_DmaOp<string mnemonic> : NpuHW_Op<mnemonic,
    [HasParent<"SegmentOp">]> {
  let arguments = (ins I32Attr:$binding,
                       DefaultValuedAttr<I64Attr, "0">:$dram_offset,
                       I64Attr:$lram_address,
                       DefaultValuedAttr<I64Attr, "1">:$element_bytes,
                       DenseI64ArrayAttr:$counts,
                       DenseI64ArrayAttr:$dram_strides,
                       DenseI64ArrayAttr:$lram_strides,
                       OptionalAttr<StrAttr>:$name);
  let assemblyFormat = "attr-dict";
}

def NpuHW_DmaLoadOp : NpuHW_DmaOp<"dma_load"> {
  let summary = "a strided copy DRAM -> LRAM on the DMA queue";
}

def NpuHW_DmaStoreOp : NpuHW_DmaOp<"dma_store"> {
  let summary = "a strided copy LRAM -> DRAM on the DMA queue";
}

def NpuHW_WaitOp : NpuHW_Op<"wait", [HasParent<"SegmentOp">]> {
  let summary = "a barrier on every earlier task";
  let assemblyFormat = "attr-dict";
}

def NpuHW_SliceTaskOp : NpuHW_Op<"slice_task", [HasParent<"SegmentOp">]> {
  let summary = "one kernel on one slice";
  let description = [{
    `kernel` is one of conv2d, depthwise_conv2d, fully_connected, matmul,
    add, sub, mul, min, max, rescale, table, max_pool, avg_pool,
    reduce_mean, transpose, resize_nearest, depth_to_space, convert;
    docs/npu-sim.md lists the operands and fields each reads.
  }];
  let arguments = (ins
    StrAttr:$kernel,
    DefaultValuedAttr<I32Attr, "0">:$slice,
    DefaultValuedAttr<StrAttr, "\"int8\"">:$format,
    DefaultValuedAttr<StrAttr, "\"int8\"">:$output_format,
    DefaultValuedAttr<I32Attr, "0">:$vector_mode,
    OptionalAttr<NpuHW_OperandAttr>:$input,
    OptionalAttr<NpuHW_OperandAttr>:$input2,
    OptionalAttr<NpuHW_OperandAttr>:$weights,
    OptionalAttr<NpuHW_OperandAttr>:$scale_bias,
    OptionalAttr<NpuHW_OperandAttr>:$partial,
    OptionalAttr<NpuHW_OperandAttr>:$lut,
    OptionalAttr<NpuHW_OperandAttr>:$output,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$stride,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pad,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$kernel_size,
    DefaultValuedAttr<I64Attr, "1">:$groups,
    DefaultValuedAttr<I64Attr, "0">:$input_zp,
    DefaultValuedAttr<I64Attr, "0">:$input2_zp,
    DefaultValuedAttr<I64Attr, "0">:$weight_zp,
    DefaultValuedAttr<I64Attr, "0">:$output_zp,
    DefaultValuedAttr<I64Attr, "-128">:$clip_min,
    DefaultValuedAttr<I64Attr, "127">:$clip_max,
    DefaultValuedAttr<StrAttr, "\"multiplier_shift\"">:$rounding,
    DefaultValuedAttr<I64Attr, "0">:$multiplier,
    DefaultValuedAttr<I64Attr, "0">:$shift,
    DefaultValuedAttr<I64Attr, "0">:$input_multiplier,
    DefaultValuedAttr<I64Attr, "0">:$input_shift,
    DefaultValuedAttr<I64Attr, "0">:$input2_multiplier,
    DefaultValuedAttr<I64Attr, "0">:$input2_shift,
    DefaultValuedAttr<I64Attr, "0">:$left_shift,
    DefaultValuedAttr<F32Attr, "1.0f">:$float_scale,
    OptionalAttr<F32Attr>:$clip_min_f,
    OptionalAttr<F32Attr>:$clip_max_f,
    DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$perm,
    DefaultValuedAttr<I32Attr, "0">:$reduce_axes,
    DefaultValuedAttr<I64Attr, "1">:$block,
    DefaultValuedAttr<BoolAttr, "false">:$crd,
    DefaultValuedAttr<BoolAttr, "false">:$half_pixel,
    DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
    DefaultValuedAttr<F64Attr, "0.0">:$scale,
    OptionalAttr<StrAttr>:$name);
  let assemblyFormat = "attr-dict";
}

#endif // STRATA_NPUHW_OPS
