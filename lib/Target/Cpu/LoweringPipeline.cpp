//===- LoweringPipeline.cpp - dispatch functions to the LLVM dialect ------===//

#include "strata/Conversion/Passes.h"
#include "strata/Target/Cpu/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include <mutex>

#include "llvm/Support/raw_ostream.h"

namespace strata::cpu {

using namespace mlir;

/// Upstream passes only, by their registered names: the pipeline reads as
/// the lowering's documentation (docs/codegen.md walks through it).
static const char *kLoweringPipeline =
    // Top -> linalg/tensor/arith/math/scf on tensors.
    "convert-top-to-linalg,strata-cpu-check-contract{stage=linalg},"
    // The int8 chains (an int8 Add: Requant, Requant, Add, Requant) as one
    // elementwise loop.
    "strata-cpu-fuse-elementwise,"
    "canonicalize,cse,strata-cpu-distinct-results,"
    // Which operands the memory plan may write the result over.
    "strata-cpu-mark-in-place,"
    // Split each dispatch's root op over workgroups (an scf.forall with its
    // producers fused into the tile).
    "strata-cpu-distribute-workgroups,canonicalize,cse,"
    // Vector-sized tiles of the linalg ops, vectorized.
    "strata-cpu-vectorize,canonicalize,cse,"
    // Tensors -> buffers; a dispatch's results become out-parameters the
    // runtime binds (the static allocations are hoisted into them). Loops
    // may yield new buffers: canonicalize drops an scf.while's unused
    // after-region arguments, so its condition operands no longer line up
    // with its iteration arguments.
    "one-shot-bufferize{bufferize-function-boundaries "
    "allow-return-allocs-from-loops "
    "function-boundary-type-conversion=identity-layout-map},"
    // The forall of a split dispatch becomes the workgroup's iterations.
    "strata-cpu-map-workgroups,"
    "buffer-results-to-out-params{hoist-static-allocs},"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
    "canonicalize,"
    // Strided copies (pads, slices) as loops, not calls of memrefCopy.
    "strata-cpu-strided-copies-to-linalg,"
    // linalg -> loops -> LLVM; memrefs cross function boundaries as bare
    // pointers (static shapes).
    // expand-strided-metadata writes affine.apply for dynamic offsets (the
    // slices of a loop step): lower-affine again after it.
    // The vector ops: reductions and n-D transfers to 1-D vector ops.
    "func.func(lower-vector-multi-reduction),"
    "convert-vector-to-scf{full-unroll target-rank=1},"
    "func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf,"
    "expand-strided-metadata,lower-affine,"
    // math-to-libm unrolls vector math it has no intrinsic for (erf) into
    // vector.extract/insert: before the vector conversion.
    "convert-math-to-llvm,convert-math-to-libm,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
    "finalize-memref-to-llvm,convert-arith-to-llvm,"
    "convert-index-to-llvm,convert-ub-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv},convert-cf-to-llvm,"
    "reconcile-unrealized-casts,strata-cpu-check-contract{stage=llvm},"
    // The runtime's entry points.
    "strata-cpu-emit-dispatch-abi";

void buildCpuDispatchLoweringPipeline(OpPassManager &pm) {
  // The textual pipeline names passes; make sure they are registered
  // (registering a pass again is harmless).
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    conversion::registerConversionPasses();
    registerCpuPasses();
  });
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(kLoweringPipeline, pm, os)))
    llvm::report_fatal_error(
        llvm::Twine("the CPU lowering pipeline does not "
                    "parse (a pass is not registered?): ") +
        errors);
}

void prepareContextForCpuLowering(MLIRContext *context) {
  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);
}

void registerCpuTargetPasses() {
  registerCpuPasses();
  PassPipelineRegistration<>(
      "strata-cpu-lower-dispatches",
      "Lower the dispatch functions of strata-cpu-outline-dispatches (after "
      "moving them to their own module) to the LLVM dialect with the "
      "runtime's dispatch ABI",
      buildCpuDispatchLoweringPipeline);
}

} // namespace strata::cpu
