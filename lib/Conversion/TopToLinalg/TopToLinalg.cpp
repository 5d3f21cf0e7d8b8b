//===- TopToLinalg.cpp - the convert-top-to-linalg pass -------------------===//
//
// Applies every family's patterns (one file per family) as one partial
// conversion. Before converting, each Top op without any pattern is reported
// by name, so a model using an op the fallback does not cover yet gets a clear
// compile error instead of the conversion framework's generic one.
//
//===----------------------------------------------------------------------===//

#include "strata/Conversion/TopToLinalg/TopToLinalg.h"
#include "strata/Conversion/Passes.h"
#include "strata/Conversion/UncoveredOps.h"
#include "strata/Dialect/Top/IR/TopDialect.h"
#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Transforms/DialectConversion.h"

namespace strata::conversion {

#define GEN_PASS_DEF_CONVERTTOPTOLINALG
#include "strata/Conversion/Passes.h.inc"

using namespace mlir;

void populateTopToLinalgPatterns(const TopTypeConverter &converter,
                                 RewritePatternSet &patterns) {
  populateTopToLinalgElementwisePatterns(converter, patterns);
  populateTopToLinalgLinearPatterns(converter, patterns);
  populateTopToLinalgReductionPatterns(converter, patterns);
  populateTopToLinalgDataMovementPatterns(converter, patterns);
  populateTopToLinalgIndexedPatterns(converter, patterns);
  populateTopToLinalgControlFlowPatterns(converter, patterns);
  populateTopToLinalgRecurrentPatterns(converter, patterns);
  populateTopToLinalgQuantPatterns(converter, patterns);
  populateTopToLinalgAttentionPatterns(converter, patterns);
  populateTopToLinalgGeometryPatterns(converter, patterns);
  populateTopToLinalgSignalPatterns(converter, patterns);
}

namespace {

/// Top ops the pass leaves alone: graph inputs and weights (a whole model's
/// function; the CPU pipeline turns them into buffers) and `top.None`
/// (absent optional operands, erased once unused).
static bool isKeptTopOp(Operation *op) {
  return isa<top::InputOp, top::WeightOp, top::NoneOp>(op);
}

struct ConvertTopToLinalgPass
    : impl::ConvertTopToLinalgBase<ConvertTopToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    TopTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateTopToLinalgPatterns(converter, patterns);

    // Ops that no pattern matches: one error per kind of op (at its first
    // occurrence, with the count), before converting.
    if (failed(reportUncoveredOps(
            module, patterns,
            [](Operation *op) {
              return isa<top::TopDialect>(op->getDialect()) &&
                     !isKeptTopOp(op);
            },
            [](InFlightDiagnostic &d, Operation *) {
              d << "has no CPU code-generation lowering yet";
            })))
      return signalPassFailure();

    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect,
                           bufferization::BufferizationDialect>();
    target.addIllegalDialect<top::TopDialect>();
    target.addLegalOp<top::InputOp, top::WeightOp, top::NoneOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // Absent optional operands have no users left.
    module.walk([](top::NoneOp op) {
      if (op->use_empty())
        op->erase();
    });
  }
};

} // namespace
} // namespace strata::conversion
