//===- InterpretableOpInterface.td - reference semantics -----*- tablegen -*-===//
//
// A dialect-neutral interface: any dialect whose ops the reference
// interpreter runs (Top now; the NPU dialects and the simulator next)
// implements it. The interpreter (include/strata/Interpreter/Executor.h)
// computes each result's shape with the op's ShapeInferenceOpInterface from
// the operands' tensors before calling `interpret`.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERPRETER_INTERPRETABLEOPINTERFACE
#define STRATA_INTERPRETER_INTERPRETABLEOPINTERFACE

include "mlir/IR/OpBase.td"

def InterpretableOpInterface : OpInterface<"InterpretableOpInterface"> {
  let cppNamespace = "::strata";
  let description = [{
    Reference semantics: reads the op's operand tensors from the environment
    (`env.get`), computes the results on the host and stores them
    (`env.set`). The shapes of the results are in `env.resultShape`; the op
    never reads a shape from an IR type, which may be dynamic. Errors (for
    example data-dependent indices out of range) are emitted on the op.
  }];
  let methods = [
    InterfaceMethod<"Executes the op on host tensors.",
      "::mlir::LogicalResult", "interpret",
      (ins "::strata::InterpreterEnv &":$env)>,
  ];
}

#endif // STRATA_INTERPRETER_INTERPRETABLEOPINTERFACE
