//===- Disassemble.cpp - NPU program bytes -> npuhw (the listing) ---------===//

#include "strata/Target/Npu/NpuProgramIO.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace strata;

OwningOpRef<ModuleOp> npuhw::disassembleProgram(MLIRContext *ctx,
                                                const uint8_t *data,
                                                uint64_t size,
                                                std::string &error) {
  ctx->getOrLoadDialect<NpuHWDialect>();
  npusim::Program p;
  if (std::optional<std::string> err = npusim::decodeProgram(data, size, p)) {
    error = *err;
    return nullptr;
  }
  if (std::optional<std::string> err = npusim::verifyProgram(p)) {
    error = *err;
    return nullptr;
  }
  Location loc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module->getBody());
  buildProgram(b, loc, p);
  if (failed(mlir::verify(*module))) {
    error = "npu program: the listing does not verify";
    return nullptr;
  }
  return module;
}
