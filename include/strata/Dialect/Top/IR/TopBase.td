//===- TopBase.td - Top dialect definition -----------------*- tablegen -*-===//
//
// The Top dialect: hardware-independent neural-network ops (TPU-MLIR naming).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_BASE
#define STRATA_TOP_BASE

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "strata/Dialect/Top/IR/TopInterfaces.td"
include "strata/Interfaces/ShapeInferenceOpInterface.td"
include "strata/Interpreter/InterpretableOpInterface.td"

def Top_Dialect : Dialect {
  let name = "top";
  let cppNamespace = "::strata::top";
  let summary = "Hardware-independent neural-network ops";
  let description = [{
    Top holds a network as the user wrote or imported it, independent of any
    target. Tensors are builtin ranked tensors of float or integer elements;
    quantized tensors use `!quant.uniform` element types. Constants are
    `top.Weight` ops whose data lives in the module's weight file (an npz
    archive named by the module attribute `top.weight_file`).

    Every op verifies its attributes, infers its result shapes
    (`ShapeInferenceOpInterface`, an adapter over the op's free shape
    function in lib/Dialect/Top/Shapes), reports its FLOP count
    (`FlopsOpInterface`) and carries its reference semantics
    (`InterpretableOpInterface`), which the reference interpreter
    (`strata run-ref`) executes. Both interfaces are dialect-neutral
    (include/strata/Interfaces, include/strata/Interpreter).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::quant::QuantDialect"];
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
}

//===----------------------------------------------------------------------===//
// Op properties passes ask about (C++ in TopTraits.h)
//===----------------------------------------------------------------------===//

/// Each result element depends only on the operand elements at the same
/// index after numpy broadcasting (a unary op: the same index), so the op
/// commutes with transposes, reshapes and layout changes of all its operands.
def Top_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::strata::top::OpTrait";
}

/// The op only moves, copies or reinterprets elements (reshapes, transposes,
/// slices, concatenation, padding, gathers): no arithmetic on them.
def Top_ShapeOnly : NativeOpTrait<"ShapeOnly"> {
  let cppNamespace = "::strata::top::OpTrait";
}

/// Any tensor, ranked or not (unranked/dynamic results are filled in by
/// `top-shape-infer`).
def Top_Tensor : AnyTypeOf<[AnyTensor]>;
/// An optional operand: a tensor, or the `none` result of `top.None`.
def Top_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType]>;

/// Base class of Top ops: every op infers shapes, counts FLOPs and has
/// reference semantics.
class Top_Op<string mnemonic, list<Trait> traits = []>
    : Op<Top_Dialect, mnemonic, !listconcat(traits, [
          DeclareOpInterfaceMethods<ShapeInferenceOpInterface>,
          DeclareOpInterfaceMethods<Top_FlopsOpInterface>,
          DeclareOpInterfaceMethods<InterpretableOpInterface>])> {
  let assemblyFormat =
      "`(` operands `)` attr-dict `:` functional-type(operands, results)";
}

#endif // STRATA_TOP_BASE
