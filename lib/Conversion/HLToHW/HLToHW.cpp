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
    lramReuse = o.lramReuse;
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
    options.lramReuse = lramReuse;

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
    // LRAM reuse: the output the previous kernel left resident, if any.
    std::optional<int64_t> resident;
    // Whether `b` reads `a`'s result as its input.
    // (Only the MAC kernels keep or read resident tensors.)
    auto feeds = [](Operation *a, Operation *b) {
      return isa<hl::Conv2DOp, hl::DepthwiseConv2DOp, hl::FullyConnectedOp>(
                 a) &&
             isa<hl::Conv2DOp, hl::DepthwiseConv2DOp, hl::FullyConnectedOp>(
                 b) &&
             a->getBlock() == b->getBlock() &&
             b->getOperand(0) == a->getResult(0);
    };
    for (size_t i = 0; i < kernels.size(); ++i) {
      Operation *op = kernels[i];
      HLToHWOptions opOptions = options;
      if (options.lramReuse) {
        opOptions.keepOutputResident =
            i + 1 < kernels.size() && feeds(op, kernels[i + 1]);
        if (resident && i > 0 && feeds(kernels[i - 1], op))
          opOptions.residentInput = resident;
      }
      std::string base = "npu_" + std::to_string(index++);
      if (auto named = dyn_cast<NameLoc>(op->getLoc()))
        base += "_" + named.getName().str();
      std::string name = base;
      for (int n = 1; symbols.lookup(name); ++n)
        name = base + "_" + std::to_string(n);
      npusim::Program program;
      LayerPlan plan;
      std::optional<std::string> error =
          lowerHLOpToProgram(op, config, opOptions, name, program, &plan);
      if (error && opOptions.residentInput) {
        // The layer does not fit beside the resident input: load it.
        opOptions.residentInput.reset();
        error = lowerHLOpToProgram(op, config, opOptions, name, program, &plan);
      }
      resident = error ? std::nullopt : plan.residentOutput;
      if (error) {
        op->emitError() << *error;
        failed = true;
        continue;
      }
      if (opOptions.residentInput)
        op->setAttr("npu.resident_input", b.getUnitAttr());
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
