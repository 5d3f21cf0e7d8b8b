//===- InterpretableOpInterface.h - reference semantics ---------*- C++ -*-===//

#ifndef STRATA_INTERPRETER_INTERPRETABLEOPINTERFACE_H
#define STRATA_INTERPRETER_INTERPRETABLEOPINTERFACE_H

#include "strata/Interpreter/InterpreterEnv.h"

#include "mlir/IR/OpDefinition.h"

#include "strata/Interpreter/InterpretableOpInterface.h.inc"

#endif // STRATA_INTERPRETER_INTERPRETABLEOPINTERFACE_H
