//===- Compile.cpp - strata compile ---------------------------------------===//
//
// strata compile MODEL(.onnx | .mlir) --target T -o OUT: import (for ONNX),
// run the default Top optimization pipeline, then
//   - target `top`: write the optimized Top model to the folder OUT;
//   - target `cpu`: compile one variant per set of input shapes
//     (--input-shapes, repeatable) into the artifact file OUT
//     (lib/Target/Cpu, docs/codegen.md).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "QuantCommon.h"

#include "strata/Conversion/TopToHL/Passes.h"
#include "strata/Dialect/HL/IR/HLOps.h"
#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/InitAll.h"
#include "strata/Npu/NpuConfigJson.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Target/Cpu/CpuTarget.h"
#include "strata/Target/Npu/NpuTarget.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Interpreter/Interpreter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "strata/Dialect/Top/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace llvm;

namespace strata::cli {

cl::SubCommand CompileCommand(
    "compile", "Compile an ONNX or Top model (default: optimize it in Top)");

static cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                                      cl::desc("<model.onnx | model.mlir>"),
                                      cl::sub(CompileCommand));
static cl::opt<std::string>
    outDir("o", cl::Required,
           cl::desc("--target top: the output folder (created if missing); "
                    "--target cpu / npu-sim: the artifact file (e.g. "
                    "model.strata)"),
           cl::value_desc("OUT"), cl::sub(CompileCommand));
static cl::opt<std::string> modelName(
    "name",
    cl::desc("model name: files are DIR/<name>.mlir and "
             "DIR/<name>_TOP_F32_weight.npz (default: the input's stem "
             "without a trailing _origin)"),
    cl::value_desc("N"), cl::sub(CompileCommand));
static cl::opt<std::string> target(
    "target",
    cl::desc("what to produce: 'top' (the optimized Top model, a folder), "
             "'cpu' (a .strata artifact for this machine's CPU) or 'npu-sim' "
             "(a .strata artifact mixing npu-sim and CPU dispatches; with "
             "--emit hl the HL module, a folder; with --emit hw the NPU "
             "listing: docs/npu.md)"),
    cl::value_desc("T"), cl::init("top"), cl::sub(CompileCommand));
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("fix an input's shape, name:1x3x224x224 (repeatable or "
             "comma-separated). --target cpu: an input named N times gives "
             "N variants in one artifact (the i-th shape of each such input "
             "in variant i; inputs named once apply to all)"),
    cl::value_desc("name:DxDx..."), cl::CommaSeparated,
    cl::sub(CompileCommand));
static cl::opt<std::string>
    cpuName("cpu",
            cl::desc("--target cpu: the x86-64 CPU to generate code for, as "
                     "LLVM names it (znver4, skylake-avx512, x86-64-v3, ...; "
                     "default: this machine's CPU and features)"),
            cl::value_desc("NAME"), cl::sub(CompileCommand));
static cl::opt<unsigned>
    optLevel("opt-level",
             cl::desc("--target cpu: LLVM optimization level 0-3 (default 2)"),
             cl::value_desc("N"), cl::init(2), cl::sub(CompileCommand));
static cl::opt<bool> report(
    "report",
    cl::desc("--target npu-sim: print the NPU kernels, the CPU ops and the "
             "transposes left; --target cpu: print per variant the dispatch "
             "count, the memory "
             "plan's peak next to the sum of all intermediate tensors, code "
             "and constant sizes"),
    cl::sub(CompileCommand));
static cl::opt<bool> explainStrategy(
    "explain-strategy",
    cl::desc("--target cpu / npu-sim: print for every op the operator "
             "strategy's "
             "candidates, their conditions, priorities, tuning records and "
             "the winner (docs/strategy.md)"),
    cl::sub(CompileCommand));
static cl::opt<std::string> tuningLog(
    "tuning-log",
    cl::desc("--target cpu: a JSON-lines tuning log whose records override "
             "the strategy's priorities (docs/strategy.md)"),
    cl::value_desc("FILE"), cl::sub(CompileCommand));
static cl::opt<std::string> dumpLLVMDialect(
    "dump-llvm-dialect",
    cl::desc("--target cpu: also write the lowered dispatch module (LLVM "
             "dialect) of the last variant to FILE, for debugging"),
    cl::value_desc("FILE"), cl::sub(CompileCommand));
static cl::opt<std::string>
    npuConfigFile("npu-config",
                  cl::desc("--target npu-sim: the NPU description, a JSON file "
                           "(docs/npu.md; default: the built-in description)"),
                  cl::value_desc("FILE"), cl::sub(CompileCommand));
static cl::opt<std::string> emitStage(
    "emit",
    cl::desc("--target npu-sim: 'hl' writes the model converted to the HL "
             "dialect (NPU kernels and the ops left on the CPU) to the "
             "folder -o; 'hw' writes the NPU programs' npuhw listing to the "
             "file -o ('-': standard output)"),
    cl::value_desc("STAGE"), cl::sub(CompileCommand));
static cl::opt<bool> npuDoubleBuffer(
    "npu-double-buffer",
    cl::desc("--target npu-sim: load tile k+1 while tile k computes (two "
             "LRAM buffer sets per tiled layer)"),
    cl::sub(CompileCommand));
static cl::opt<bool> npuLramReuse(
    "npu-lram-reuse",
    cl::desc("--target npu-sim: a kernel fed by the previous NPU kernel "
             "reads its input where that kernel left it in LRAM"),
    cl::sub(CompileCommand));
static cl::opt<bool> npuFuseDispatches(
    "npu-fuse-dispatches",
    cl::desc("--target npu-sim: an int8 convolution and the residual add "
             "that is its only user run as one NPU dispatch (the add per "
             "output tile in LRAM); on by default, =false turns it off"),
    cl::init(true), cl::sub(CompileCommand));
static cl::opt<bool> npuPrefetchWeights(
    "npu-prefetch-weights",
    cl::desc("--target npu-sim: a MAC kernel whose only user is the next "
             "MAC kernel shares its NPU dispatch when the cycle model finds "
             "it faster: its output stays in LRAM and the next kernel's "
             "first weights load while it computes; on by default, =false "
             "turns it off"),
    cl::init(true), cl::sub(CompileCommand));
static cl::opt<bool> npuFoldTables(
    "npu-fold-tables",
    cl::desc("--target npu-sim: an int8 convolution whose only user is an "
             "activation table (hl.table) applies the table in its "
             "activation unit, one NPU dispatch; on by default, =false "
             "turns it off"),
    cl::init(true), cl::sub(CompileCommand));
static cl::opt<bool> npuConcatInPlace(
    "npu-concat-in-place",
    cl::desc("--target npu-sim: the producers of an NPU concatenation write "
             "their results straight into its buffer (no concat dispatch); "
             "on by default, =false turns it off"),
    cl::init(true), cl::sub(CompileCommand));
static cl::opt<bool> noSegmentFusion(
    "no-segment-fusion",
    cl::desc("--target npu-sim: keep hl.segmentation ops instead of having "
             "the producing kernel write its output segmented"),
    cl::sub(CompileCommand));
static cl::opt<bool> noSegmentation(
    "no-segmentation",
    cl::desc("--target npu-sim: strided kernels take the stride directly "
             "instead of reading the phases of a segmented input"),
    cl::sub(CompileCommand));
static cl::opt<int64_t> maxRangeElements(
    "max-range-elements",
    cl::desc("--target cpu: the bound of the element count of a Range with "
             "run-time bounds (its buffer; a larger range is a run-time "
             "error naming the op)"),
    cl::value_desc("N"), cl::init(65536), cl::sub(CompileCommand));
static cl::opt<int64_t> maxScanLength(
    "max-scan-length",
    cl::desc("--target cpu: the bound of the scan outputs' length of a Loop "
             "with a run-time trip count (their buffers; a longer loop is a "
             "run-time error naming the op)"),
    cl::value_desc("N"), cl::init(65536), cl::sub(CompileCommand));
static cl::opt<bool> noOptimize(
    "no-optimize",
    cl::desc("skip top-optimize: write the model as imported or read"),
    cl::sub(CompileCommand));
static cl::opt<std::string> passes(
    "passes",
    cl::desc("run this pass pipeline instead of top-optimize: strata-opt's "
             "pass names, comma-separated (e.g. 'top-fold-batchnorm' or "
             "'top-fuse-idioms,canonicalize'), with the weights' data "
             "available to the passes as in top-optimize"),
    cl::value_desc("PIPELINE"), cl::sub(CompileCommand));
static cl::opt<std::string> layout(
    "layout",
    cl::desc("convert layout-sensitive ops (Conv, pools, norms, ...) to "
             "'nchw' or 'nhwc' while optimizing (default: keep the model's)"),
    cl::value_desc("L"), cl::sub(CompileCommand));

static cl::opt<std::string> quantizeMode(
    "quantize",
    cl::desc("quantize after optimizing: int8 (needs --calibration), bf16 "
             "or f16 (docs/quantization.md)"),
    cl::value_desc("MODE"), cl::sub(CompileCommand));
static QuantizeOptions quantizeOptions(CompileCommand);

/// Reads `modelFile` as an ONNX model or as a Top module with its weights.
using ShapeMap = std::map<std::string, std::vector<int64_t>>;

LogicalResult applyInputShapes(StringRef tool, mlir::ModuleOp module,
                               const ShapeMap &shapes) {
  FailureOr<mlir::func::FuncOp> entry = findEntryFunction(module);
  if (failed(entry)) {
    errs() << tool << ": the model has no entry function\n";
    return failure();
  }
  mlir::func::FuncOp main = *entry;
  std::set<std::string> used;
  SmallVector<mlir::Type> argTypes(main.getArgumentTypes());
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto it = shapes.find(inputName(main, i));
    if (it == shapes.end())
      continue;
    used.insert(it->first);
    auto old = dyn_cast<mlir::TensorType>(argTypes[i]);
    auto type = mlir::RankedTensorType::get(
        it->second, old ? old.getElementType() : argTypes[i]);
    auto ranked = dyn_cast_or_null<mlir::RankedTensorType>(old);
    bool fits = old && (!ranked || ranked.getRank() == type.getRank());
    for (int64_t d = 0; fits && ranked && d < ranked.getRank(); ++d)
      fits = ranked.isDynamicDim(d) || ranked.getDimSize(d) == it->second[d];
    if (!fits) {
      errs() << tool << ": --input-shapes " << it->first
             << ": the shape does not fit the input's type " << argTypes[i]
             << "\n";
      return failure();
    }
    argTypes[i] = type;
    main.getArgument(i).setType(type);
    for (mlir::Operation *user : main.getArgument(i).getUsers())
      if (auto in = dyn_cast<top::InputOp>(user))
        in.getOutput().setType(type);
  }
  for (const auto &[name, shape] : shapes)
    if (!used.count(name)) {
      errs() << tool << ": --input-shapes names '" << name
             << "', which is not an input of the model\n";
      return failure();
    }
  main.setType(mlir::FunctionType::get(module.getContext(), argTypes,
                                       main.getResultTypes()));
  mlir::PassManager pm(module.getContext());
  pm.addNestedPass<mlir::func::FuncOp>(top::createTopShapeInfer());
  if (failed(pm.run(module)) || failed(mlir::verify(module))) {
    errs() << tool
           << ": the model does not take the input shapes "
              "given\n";
    return failure();
  }
  return success();
}

/// Reads `modelFile` as an ONNX model or as a Top module with its weights,
/// with the inputs in `shapes` fixed to those shapes.
static FailureOr<onnx_import::ImportedModel> load(mlir::MLIRContext &context,
                                                  const ShapeMap &shapes) {
  onnx_import::ImportedModel model;
  if (StringRef(modelFile).ends_with(".onnx")) {
    onnx_import::ImportOptions options;
    options.name = modelName;
    options.inputShapes = shapes;
    return onnx_import::importOnnxFile(modelFile, context, options);
  }
  std::string error;
  if (failed(loadTopModel(modelFile, "", context, model.module, model.weights,
                          error))) {
    errs() << "strata compile: " << error << "\n";
    return failure();
  }
  if (!shapes.empty() &&
      failed(applyInputShapes("strata compile", *model.module, shapes)))
    return failure();
  return model;
}

/// The variants --input-shapes asks for: an input named N times gives N
/// variants; inputs named once apply to every variant. No option: one
/// variant with the model's own shapes.
static FailureOr<std::vector<ShapeMap>> variantShapes() {
  std::map<std::string, std::vector<std::vector<int64_t>>> byName;
  for (const std::string &spec : inputShapes) {
    ShapeMap one;
    if (!parseInputShape("strata compile", spec, one))
      return failure();
    for (auto &[name, shape] : one)
      byName[name].push_back(shape);
  }
  size_t count = 1;
  for (auto &[name, list] : byName)
    count = std::max(count, list.size());
  for (auto &[name, list] : byName)
    if (list.size() != 1 && list.size() != count) {
      errs() << "strata compile: --input-shapes names '" << name << "' "
             << list.size() << " times; an input is named once or as many "
             << "times as there are variants (" << count << ")\n";
      return failure();
    }
  if (count > 1 && target != "cpu") {
    errs() << "strata compile: several shapes for one input (variants) need "
              "--target cpu\n";
    return failure();
  }
  std::vector<ShapeMap> variants(count);
  for (size_t v = 0; v < count; ++v)
    for (auto &[name, list] : byName)
      variants[v][name] = list.size() == 1 ? list[0] : list[v];
  return variants;
}

/// Loads and optimizes one variant; prints the error and returns failure.
static FailureOr<onnx_import::ImportedModel>
loadOptimized(mlir::MLIRContext &context, const ShapeMap &shapes) {
  FailureOr<onnx_import::ImportedModel> model = load(context, shapes);
  if (failed(model)) {
    errs() << "strata compile: cannot read '" << modelFile << "'\n";
    return failure();
  }
  if (!noOptimize) {
    FailureOr<TensorMap> optimized =
        passes.empty()
            ? optimizeTopModule(*model->module, model->weights, layout)
            : runTopPipeline(*model->module, model->weights, passes);
    if (failed(optimized)) {
      errs() << "strata compile: optimizing '" << modelFile
             << "' failed (--no-optimize skips it)\n";
      return failure();
    }
    model->weights = std::move(*optimized);
  }
  if (!quantizeMode.empty()) {
    QuantizeRequest request = quantizeOptions.request(quantizeMode);
    bool usageError = false;
    FailureOr<TensorMap> quantized = quantizeModel(
        "strata compile", *model->module, model->weights, request, usageError);
    if (failed(quantized))
      return failure();
    model->weights = std::move(*quantized);
  }
  return model;
}

static std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

/// The absolute, dot-free form of `path`, to compare two spellings of it.
static std::string normalPath(StringRef path) {
  SmallString<256> p(path);
  (void)sys::fs::make_absolute(p);
  sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

/// Checks --dump-llvm-dialect FILE before anything is compiled: a file name
/// in an existing folder, not a folder, and neither the model nor the -o
/// artifact (writing it would destroy them). "-" is standard output.
static bool checkDumpPath() {
  if (!dumpLLVMDialect.getNumOccurrences())
    return true;
  StringRef path = dumpLLVMDialect;
  auto fail = [&](const Twine &why) {
    errs() << "strata compile: --dump-llvm-dialect '" << path << "' " << why
           << "\n";
    return false;
  };
  if (path.empty())
    return fail("is empty; give a file name");
  if (path == "-")
    return true;
  if (sys::fs::is_directory(path))
    return fail("is a folder; give a file name");
  for (auto [other, what] : {std::pair<StringRef, const char *>{
                                 modelFile, "the model being compiled"},
                             {outDir, "the -o artifact"}})
    if (normalPath(path) == normalPath(other) ||
        sys::fs::equivalent(path, other))
      return fail(Twine("is ") + what + "; give another file name");
  SmallString<256> parent(normalPath(path));
  sys::path::remove_filename(parent);
  if (!sys::fs::is_directory(parent))
    return fail(Twine("cannot be written: its folder '") + parent +
                "' does not exist or is not a folder");
  if (sys::fs::exists(path) && !sys::fs::is_regular_file(path))
    return fail("exists and is not a regular file");
  if (sys::fs::access(parent, sys::fs::AccessMode::Write) ||
      (sys::fs::exists(path) &&
       sys::fs::access(path, sys::fs::AccessMode::Write)))
    return fail("cannot be written (no write permission)");
  return true;
}

/// --target cpu.
static int compileCpu(mlir::MLIRContext &context,
                      const std::vector<ShapeMap> &variants,
                      const std::string &name) {
  if (!cpuName.empty() && !cpu::isKnownCpu(cpuName)) {
    errs() << "strata compile: --cpu '" << cpuName
           << "' is not an x86-64 CPU LLVM knows (e.g. znver4, "
              "skylake-avx512, x86-64-v3)\n";
    return 2;
  }
  if (optLevel > 3) {
    errs() << "strata compile: --opt-level " << optLevel
           << " must be 0, 1, 2 or 3\n";
    return 2;
  }
  if (!checkDumpPath())
    return 2;
  cpu::CpuCompileOptions options;
  options.codegen.cpu = cpuName;
  options.codegen.optLevel = optLevel;
  options.tuningLog = tuningLog;
  options.explainStrategy = explainStrategy;
  options.dumpLLVMDialect = dumpLLVMDialect;
  if (maxRangeElements < 0 || maxScanLength < 0) {
    errs() << "strata compile: --max-range-elements " << maxRangeElements
           << " and --max-scan-length " << maxScanLength << " must be >= 0\n";
    return 2;
  }
  options.maxRangeElements = maxRangeElements;
  options.maxScanLength = maxScanLength;
  cpu::CpuArtifactBuilder builder(name);
  for (size_t v = 0; v < variants.size(); ++v) {
    FailureOr<onnx_import::ImportedModel> model =
        loadOptimized(context, variants[v]);
    if (failed(model))
      return 1;
    cpu::VariantReport r;
    std::string error;
    if (failed(builder.addVariant(*model->module, model->weights, options, r,
                                  error))) {
      errs() << "strata compile: --target cpu: " << error << "\n";
      return 1;
    }
    if (explainStrategy) {
      outs() << "variant " << v << " lowering: " << r.kernelDispatchNotes.size()
             << " op(s) call a runtime kernel, the others are generated code\n";
      for (const std::string &note : r.kernelDispatchNotes)
        outs() << "  " << note << "\n";
      for (const auto &[impl, why] : r.kernelFallbackReasons)
        outs() << "  " << impl << ": generated code, " << why << "\n";
    }
    if (report) {
      outs() << "variant " << v << ": inputs";
      for (const auto &shape : r.inputShapes)
        outs() << " " << shapeText(shape);
      outs() << "\n  dispatches: " << r.dispatches << " (+" << r.copies
             << " output copies, " << r.views << " views sharing bytes)\n"
             << "  arena: " << r.arenaSize << " bytes planned; "
             << r.tensorBytes << " bytes of intermediate tensors in all ("
             << llvm::format("%.1f", r.tensorBytes
                                         ? 100.0 * r.arenaSize / r.tensorBytes
                                         : 100.0)
             << "%), " << r.inPlace
             << " result(s) written in place of an operand\n"
             << "  workgroups: " << r.splitDispatches
             << " dispatch(es) split into more than one\n"
             << "  code: " << r.codeBytes << " bytes\n";
      for (const auto &[kernel, n] : r.kernelDispatches)
        outs() << "  kernel '" << kernel << "': " << n << " dispatch(es)\n";
      if (r.packedWeightBytes)
        outs() << "  packed weights: " << r.packedWeightBytes << " bytes\n";
      if (r.residualAddsFused)
        outs() << "  residual adds fused into a kernel epilogue: "
               << r.residualAddsFused << "\n";
      if (r.invertedResidualsFused)
        outs() << "  inverted-residual blocks fused into one kernel: "
               << r.invertedResidualsFused << "\n";
      for (const auto &[impl, n] : r.kernelsNotAvailable) {
        outs() << "  strategy chose '" << impl << "' for " << n
               << " op(s); the codegen fallback compiled them";
        auto why = r.kernelFallbackReasons.find(impl);
        if (why != r.kernelFallbackReasons.end())
          outs() << " (" << why->second << ")";
        outs() << "\n";
      }
    }
  }
  if (report)
    outs() << "constants: " << builder.constantBytes() << " bytes\n";
  std::string error;
  if (!builder.write(outDir, error)) {
    errs() << "strata compile: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outDir << "\n";
  return 0;
}

/// Reads --npu-config (or the default description); prints the error.
static FailureOr<npu::NpuConfig> readNpuConfig() {
  if (npuConfigFile.empty())
    return npu::defaultNpuConfig();
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(npuConfigFile, /*IsText=*/true);
  if (!file) {
    errs() << "strata compile: --npu-config '" << npuConfigFile
           << "' cannot be read: " << file.getError().message() << "\n";
    return failure();
  }
  Expected<npu::NpuConfig> config =
      npu::parseNpuConfigJson((*file)->getBuffer(), npuConfigFile);
  if (!config) {
    errs() << "strata compile: " << toString(config.takeError()) << "\n";
    return failure();
  }
  return *config;
}

/// --explain-strategy for npu-sim: each candidate op's HL kernel, or why it
/// stays on the CPU, with the strategy's explanation.
static void
printHLDecisions(const std::vector<conversion::HLDecision> &decisions) {
  size_t onNpu = 0;
  for (const conversion::HLDecision &d : decisions)
    onNpu += !d.kernel.empty();
  outs() << "npu-sim: " << onNpu << " of " << decisions.size()
         << " candidate op(s) run on the NPU; every other op stays on the "
            "CPU (no NPU kernel)\n";
  for (const conversion::HLDecision &d : decisions) {
    outs() << d.op << " '" << d.location << "': ";
    if (!d.kernel.empty())
      outs() << d.kernel << "\n";
    else
      outs() << "stays on the CPU: " << d.reason << "\n";
    if (!d.strategy.empty())
      for (StringRef line : llvm::split(StringRef(d.strategy).rtrim(), '\n'))
        outs() << "    " << line << "\n";
  }
}

/// --target npu-sim --emit hl: Top -> HL, transposes cancelled, strided
/// kernels segmented; writes OUT/<name>.mlir and its weights.
static int emitHL(const npu::NpuConfig &config,
                  onnx_import::ImportedModel &model, const std::string &name) {
  mlir::ModuleOp module = *model.module;
  std::vector<conversion::HLDecision> decisions;
  mlir::PassManager pm(module.getContext());
  pm.addPass(conversion::createConvertTopToHLPass(config, &decisions));
  // Transposes first: a strided kernel's producer must be visible (not
  // behind a transpose) for the segmentation to fuse into it.
  pm.addPass(conversion::createHLCancelTransposes());
  conversion::HLSegmentStridedOptions segmentOptions;
  segmentOptions.fuse = !noSegmentFusion;
  if (!noSegmentation)
    pm.addPass(conversion::createHLSegmentStrided(segmentOptions, config));
  FailureOr<TensorMap> weights = runTopPasses(module, model.weights, pm);
  if (failed(weights)) {
    errs() << "strata compile: --target npu-sim: converting '" << modelFile
           << "' to HL failed\n";
    return 1;
  }
  if (explainStrategy)
    printHLDecisions(decisions);
  if (report) {
    std::map<std::string, size_t> hlOps, cpuOps;
    size_t transposes = 0, fused = 0;
    module.walk([&](mlir::Operation *op) {
      StringRef dialect = op->getName().getDialectNamespace();
      if (dialect == "hl") {
        ++hlOps[op->getName().getStringRef().str()];
        fused += op->hasAttr("segment_output");
      } else if (dialect == "top" &&
                 !isa<top::WeightOp, top::InputOp, top::NoneOp>(op)) {
        ++cpuOps[op->getName().getStringRef().str()];
      }
      transposes += isa<hl::TransposeOp, top::PermuteOp>(op);
    });
    outs() << "npu-sim HL module (" << config.name << "):\n  NPU kernels:";
    for (auto &[op, n] : hlOps)
      outs() << " " << op << " x" << n;
    outs() << "\n  CPU ops:";
    for (auto &[op, n] : cpuOps)
      outs() << " " << op << " x" << n;
    outs() << "\n  transposes left: " << transposes
           << " (hl.transpose and top.Permute)\n"
           << "  segmentations fused into their producer: " << fused << "\n";
  }
  if (!prepareOutputDir("strata compile", outDir))
    return 1;
  std::string error;
  if (failed(writeModelPair(module, *weights, outDir, name, name + ".mlir",
                            name + "_HL_weight.npz", error))) {
    errs() << "strata compile: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outDir << "/" << name << ".mlir and " << outDir << "/"
         << name << "_HL_weight.npz\n";
  return 0;
}

/// --target npu-sim without --emit hl: Top -> HL -> HW, then the listing
/// (--emit hw) or the artifact mixing npu-sim and CPU dispatches.
static int compileNpuArtifact(const npu::NpuConfig &config,
                              onnx_import::ImportedModel &model,
                              const std::string &name) {
  mlir::ModuleOp module = *model.module;
  conversion::HLToHWOptions hwOptions;
  hwOptions.doubleBuffer = npuDoubleBuffer;
  hwOptions.lramReuse = npuLramReuse;
  hwOptions.fuseDispatches = npuFuseDispatches;
  hwOptions.prefetchWeights = npuPrefetchWeights;
  hwOptions.foldTables = npuFoldTables;
  std::vector<conversion::HLDecision> decisions;
  FailureOr<TensorMap> weights =
      npu::lowerTopToNpu(module, model.weights, config, hwOptions, &decisions,
                         !noSegmentation, !noSegmentFusion);
  if (failed(weights)) {
    errs() << "strata compile: --target npu-sim: lowering '" << modelFile
           << "' to the NPU failed\n";
    return 1;
  }
  if (emitStage == "hw") {
    std::error_code ec;
    raw_fd_ostream os(outDir, ec);
    if (ec) {
      errs() << "strata compile: cannot write '" << outDir
             << "': " << ec.message() << "\n";
      return 1;
    }
    for (auto program : module.getOps<npuhw::ProgramOp>()) {
      program.print(os);
      os << "\n";
    }
    return 0;
  }
  cpu::CpuCompileOptions options;
  options.explainStrategy = explainStrategy;
  options.foreignDispatch = npu::npuForeignDispatch;
  options.concatInPlace = npuConcatInPlace;
  if (explainStrategy)
    printHLDecisions(decisions);
  cpu::CpuArtifactBuilder builder(name);
  cpu::VariantReport r;
  std::string error;
  if (failed(builder.addVariant(module, *weights, options, r, error))) {
    errs() << "strata compile: --target npu-sim: " << error << "\n";
    return 1;
  }
  if (explainStrategy)
    for (const std::string &note : r.kernelDispatchNotes)
      outs() << "  " << note << "\n";
  if (report) {
    unsigned onNpu = r.foreignDispatches["npu-sim"];
    outs() << "npu-sim artifact (" << config.name << "): " << onNpu
           << " npu-sim dispatch(es), " << r.dispatches - onNpu
           << " CPU dispatch(es)\n";
  }
  if (!builder.write(outDir, error)) {
    errs() << "strata compile: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outDir << "\n";
  return 0;
}

/// --target npu-sim.
static int compileNpu(mlir::MLIRContext &context, const ShapeMap &shapes,
                      const std::string &name) {
  FailureOr<npu::NpuConfig> config = readNpuConfig();
  if (failed(config))
    return 2;
  FailureOr<onnx_import::ImportedModel> model = loadOptimized(context, shapes);
  if (failed(model))
    return 1;
  if (emitStage == "hl")
    return emitHL(*config, *model, name);
  return compileNpuArtifact(*config, *model, name);
}

int compile() {
  if (target != "top" && target != "cpu" && target != "npu-sim") {
    errs() << "strata compile: --target '" << target
           << "' is not available; the targets are 'top', 'cpu' and "
              "'npu-sim'\n";
    return 2;
  }
  for (auto [opt, given] :
       {std::pair<const char *, bool>{"npu-config",
                                      npuConfigFile.getNumOccurrences() > 0},
        {"emit", emitStage.getNumOccurrences() > 0},
        {"npu-double-buffer", npuDoubleBuffer.getNumOccurrences() > 0},
        {"npu-lram-reuse", npuLramReuse.getNumOccurrences() > 0},
        {"npu-fuse-dispatches", npuFuseDispatches.getNumOccurrences() > 0},
        {"npu-prefetch-weights", npuPrefetchWeights.getNumOccurrences() > 0},
        {"npu-fold-tables", npuFoldTables.getNumOccurrences() > 0},
        {"npu-concat-in-place", npuConcatInPlace.getNumOccurrences() > 0},
        {"no-segment-fusion", noSegmentFusion.getNumOccurrences() > 0},
        {"no-segmentation", noSegmentation.getNumOccurrences() > 0}})
    if (given && target != "npu-sim") {
      errs() << "strata compile: --" << opt << " needs --target npu-sim\n";
      return 2;
    }
  if (emitStage.getNumOccurrences() && emitStage != "hl" && emitStage != "hw") {
    errs() << "strata compile: --emit '" << emitStage
           << "' is not available; the stages are 'hl' and 'hw'\n";
    return 2;
  }
  for (auto [opt, given] :
       {std::pair<const char *, bool>{"report", report.getNumOccurrences() > 0},
        {"explain-strategy", explainStrategy.getNumOccurrences() > 0}})
    if (given && target != "cpu" && target != "npu-sim") {
      errs() << "strata compile: --" << opt
             << " needs --target cpu or npu-sim\n";
      return 2;
    }
  std::pair<const char *, bool> cpuOnly[] = {
      {"cpu", cpuName.getNumOccurrences() > 0},
      {"opt-level", optLevel.getNumOccurrences() > 0},
      {"tuning-log", tuningLog.getNumOccurrences() > 0},
      {"dump-llvm-dialect", dumpLLVMDialect.getNumOccurrences() > 0},
      {"max-range-elements", maxRangeElements.getNumOccurrences() > 0},
      {"max-scan-length", maxScanLength.getNumOccurrences() > 0}};
  for (auto [opt, given] : cpuOnly)
    if (given && target != "cpu") {
      errs() << "strata compile: --" << opt << " needs --target cpu\n";
      return 2;
    }
  if (!layout.empty() && layout != "nchw" && layout != "nhwc") {
    errs() << "strata compile: --layout '" << layout
           << "' must be 'nchw' or 'nhwc'\n";
    return 2;
  }
  if (quantizeMode.empty() && quantizeOptions.anyGiven()) {
    errs() << "strata compile: --calibration, --keep-float(-file) and "
              "--symmetric need --quantize\n";
    return 2;
  }
  if (!quantizeMode.empty() && noOptimize) {
    errs() << "strata compile: --quantize needs the optimized model (the "
              "calibration table names its tensors); drop --no-optimize\n";
    return 2;
  }
  if (!passes.empty() && (noOptimize || !layout.empty())) {
    errs() << "strata compile: --passes replaces top-optimize; it cannot be "
              "combined with --no-optimize or --layout\n";
    return 2;
  }
  if (!passes.empty()) {
    registerAllPasses();
    mlir::OpPassManager probe("builtin.module");
    if (failed(parseTopPipeline(passes, probe, errs()))) {
      errs() << "strata compile: --passes '" << passes
             << "' is not a pass pipeline ('strata-opt --help' lists the "
                "passes)\n";
      return 2;
    }
  }
  if (modelName.getNumOccurrences() &&
      !checkModelName("strata compile", modelName))
    return 2;
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  // Errors name the op and its node; printing the op (a whole function for
  // an error on the entry function) would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());

  FailureOr<std::vector<ShapeMap>> variants = variantShapes();
  if (failed(variants))
    return 2;
  std::string name = modelName;
  if (name.empty()) {
    name = sys::path::stem(modelFile).str();
    if (StringRef(name).ends_with("_origin"))
      name.resize(name.size() - StringRef("_origin").size());
  }
  if (target == "cpu")
    return compileCpu(context, *variants, name);
  if (target == "npu-sim")
    return compileNpu(context, variants->front(), name);

  FailureOr<onnx_import::ImportedModel> model =
      loadOptimized(context, variants->front());
  if (failed(model))
    return 1;
  if (!prepareOutputDir("strata compile", outDir))
    return 1;
  std::string error;
  if (failed(writeOptimizedTopModel(*model->module, model->weights, outDir,
                                    name, error))) {
    errs() << "strata compile: " << error << "\n";
    return 1;
  }
  outs() << "wrote " << outDir << "/" << name << ".mlir and " << outDir << "/"
         << name << "_TOP_F32_weight.npz\n";
  return 0;
}

} // namespace strata::cli
