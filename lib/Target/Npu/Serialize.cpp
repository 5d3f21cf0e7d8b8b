//===- Serialize.cpp - npuhw.program -> NPU program bytes -----------------===//

#include "strata/Target/Npu/NpuProgramIO.h"

using namespace mlir;
using namespace strata;

FailureOr<std::vector<uint8_t>> npuhw::serializeProgram(ProgramOp program) {
  npusim::Program p;
  if (failed(toNpuProgram(program, p)))
    return failure();
  if (std::optional<std::string> err = npusim::verifyProgram(p))
    return program.emitOpError() << *err;
  return npusim::encodeProgram(p);
}
