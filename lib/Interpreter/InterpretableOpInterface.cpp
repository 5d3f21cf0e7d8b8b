//===- InterpretableOpInterface.cpp - reference semantics -----------------===//

#include "strata/Interpreter/InterpretableOpInterface.h"

#include "strata/Interpreter/InterpretableOpInterface.cpp.inc"
