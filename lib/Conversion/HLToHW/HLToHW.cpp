//===- HLToHW.cpp - convert-hl-to-hw: one NPU program per HL kernel -------===//
//
// For every HL kernel with a lowering (LowerKernels.cpp), writes its
// npuhw.program at the end of the module and names it on the op
// (`npu.program = @sym`). The compile driver turns each named op into an
// npu-sim dispatch; strata-opt prints the listing (docs/npu.md, "HL -> HW").
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/HLToHW/Passes.h"
#include "strata/Npu/NpuConfigJson.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MemoryBuffer.h"

namespace strata::conversion {
#define GEN_PASS_DEF_CONVERTHLTOHW
#include "strata/Conversion/HLToHW/Passes.h.inc"
} // namespace strata::conversion

using namespace mlir;
using namespace strata;
using namespace strata::conversion;

namespace {

struct ConvertHLToHWPass
    : public conversion::impl::ConvertHLToHWBase<ConvertHLToHWPass> {
  using ConvertHLToHWBase::ConvertHLToHWBase;
  ConvertHLToHWPass(const npu::NpuConfig &c, const HLToHWOptions &o)
      : given(c) {
    doubleBuffer = o.doubleBuffer;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    npu::NpuConfig config = given.value_or(npu::defaultNpuConfig());
    if (!npuConfig.empty()) {
      auto file = llvm::MemoryBuffer::getFile(npuConfig, /*IsText=*/true);
      if (!file) {
        module.emitError() << "npu-config '" << npuConfig
                           << "' cannot be read: " << file.getError().message();
        return signalPassFailure();
      }
      llvm::Expected<npu::NpuConfig> parsed =
          npu::parseNpuConfigJson((*file)->getBuffer(), npuConfig);
      if (!parsed) {
        module.emitError() << llvm::toString(parsed.takeError());
        return signalPassFailure();
      }
      config = *parsed;
    }
    HLToHWOptions options;
    options.doubleBuffer = doubleBuffer;

    SmallVector<Operation *> kernels;
    module.walk([&](Operation *op) {
      if (hasNpuLowering(op))
        kernels.push_back(op);
    });
    SymbolTable symbols(module);
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    int64_t index = 0;
    bool failed = false;
    for (Operation *op : kernels) {
      std::string base = "npu_" + std::to_string(index++);
      if (auto named = dyn_cast<NameLoc>(op->getLoc()))
        base += "_" + named.getName().str();
      std::string name = base;
      for (int n = 1; symbols.lookup(name); ++n)
        name = base + "_" + std::to_string(n);
      npusim::Program program;
      if (auto error = lowerHLOpToProgram(op, config, options, name, program)) {
        op->emitError() << *error;
        failed = true;
        continue;
      }
      npuhw::ProgramOp p = npuhw::buildProgram(b, op->getLoc(), program);
      symbols.insert(p);
      op->setAttr("npu.program", FlatSymbolRefAttr::get(p.getSymNameAttr()));
    }
    if (failed)
      signalPassFailure();
  }

  std::optional<npu::NpuConfig> given;
};

} // namespace

std::unique_ptr<Pass>
conversion::createConvertHLToHWPass(const npu::NpuConfig &config,
                                    const HLToHWOptions &options) {
  return std::make_unique<ConvertHLToHWPass>(config, options);
}
