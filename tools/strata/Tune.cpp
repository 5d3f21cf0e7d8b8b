//===- Tune.cpp - strata tune ---------------------------------------------===//
//
// strata tune MODEL(.onnx | .mlir) --log tune.jsonl: for each distinct
// workload of the model (Workload::key()) whose strategy has more than one
// applicable candidate, compiles the op alone once per candidate and
// schedule configuration (a one-op artifact whose tuning log forces that
// choice), times it through the runtime and appends one record per
// measurement to the log (docs/tuning.md). `strata compile --tuning-log`
// then picks the lowest cost per workload.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "RuntimeUtils.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Frontend/Onnx/OnnxImporter.h"
#include "strata/InitAll.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Kernels/KernelAbi.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Strategy/CpuStrategies.h"
#include "strata/Strategy/TuningLog.h"
#include "strata/StrategyMLIR/TuningLogReader.h"
#include "strata/StrategyMLIR/WorkloadFromOp.h"
#include "strata/Target/Cpu/CpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <unistd.h>

using namespace llvm;

namespace strata::cli {

cl::SubCommand TuneCommand(
    "tune", "Time the operator strategy's candidates for each workload of a "
            "model and append the costs to a tuning log (docs/tuning.md)");

static cl::opt<std::string> modelFile(cl::Positional, cl::Required,
                                      cl::desc("<model.onnx | model.mlir>"),
                                      cl::sub(TuneCommand));
static cl::opt<std::string>
    logFile("log", cl::Required,
            cl::desc("the JSON-lines tuning log to append to (created if "
                     "missing)"),
            cl::value_desc("tune.jsonl"), cl::sub(TuneCommand));
static cl::list<std::string> inputShapes(
    "input-shapes",
    cl::desc("fix an input's shape, name:1x3x224x224 (repeatable or "
             "comma-separated)"),
    cl::value_desc("name:DxDx..."), cl::CommaSeparated, cl::sub(TuneCommand));
static cl::opt<double> budgetSeconds(
    "budget-seconds",
    cl::desc("stop after about this many seconds (default 600); the records "
             "measured so far are kept"),
    cl::value_desc("N"), cl::init(600), cl::sub(TuneCommand));
static cl::opt<int64_t>
    threads("threads", cl::desc("runtime threads while timing (default 1)"),
            cl::value_desc("N"), cl::init(1), cl::sub(TuneCommand));
static cl::opt<double> minTimeMs(
    "min-time-ms",
    cl::desc("time each configuration for at least this long (default 100; "
             "at least 3 and at most 50 runs after a warm-up)"),
    cl::value_desc("MS"), cl::init(100), cl::sub(TuneCommand));
static cl::list<std::string> onlyImplementations(
    "implementations", cl::CommaSeparated,
    cl::desc("time only these implementations (names as in "
             "--explain-strategy; default: every applicable candidate)"),
    cl::value_desc("NAMES"), cl::sub(TuneCommand));
static cl::opt<bool> noOptimize(
    "no-optimize",
    cl::desc("tune the model as read (compile it with --no-optimize too)"),
    cl::sub(TuneCommand));
static cl::opt<bool>
    dryRun("dry-run",
           cl::desc("list the workloads and the configurations that would be "
                    "timed, time nothing, write nothing"),
           cl::sub(TuneCommand));

static constexpr const char *kTool = "strata tune";
using ShapeMap = std::map<std::string, std::vector<int64_t>>;

namespace {

/// One configuration to time: an implementation with a schedule.
struct Config {
  std::string implementation;
  strategy::ScheduleParams schedule; ///< only the values tuned
  /// The configuration compile picks without a log (the priority winner
  /// with its default schedule).
  bool isDefault = false;
};

/// A distinct workload of the model and its candidates.
struct WorkItem {
  strategy::Workload workload;
  mlir::Operation *op = nullptr;
  unsigned uses = 0;
  std::string priorityWinner;
  std::vector<Config> configs;
};

/// The schedule values tried per implementation: only parameters a kernel
/// reads (docs/tuning.md). The others (the GEMM kernels' tile_m / tile_n /
/// tile_k, fixed in lib/Kernels so far) are timed with their defaults only.
std::vector<strategy::ScheduleParams>
scheduleSpace(const strategy::Implementation &impl) {
  const std::string &kernel = impl.lowering.kernel;
  if (kernel == kernels::kabi::kConvWinograd)
    return {{{"tile_hw", 16}},
            {{"tile_hw", 32}},
            {{"tile_hw", 64}},
            {{"tile_hw", 128}}};
  return {{}};
}

bool scheduleApplies(const strategy::Implementation &impl,
                     const strategy::ScheduleParams &s) {
  for (const auto &[name, value] : s)
    if (!impl.schedule.count(name))
      return false;
  return true;
}

std::string scheduleText(const strategy::ScheduleParams &s) {
  std::string t = "{";
  for (const auto &[name, value] : s)
    t += (t.size() > 1 ? ", " : "") + name + " = " + std::to_string(value);
  return t + "}";
}

FailureOr<onnx_import::ImportedModel> loadModel(mlir::MLIRContext &context,
                                                const ShapeMap &shapes) {
  onnx_import::ImportedModel model;
  if (StringRef(modelFile).ends_with(".onnx")) {
    onnx_import::ImportOptions options;
    options.inputShapes = shapes;
    FailureOr<onnx_import::ImportedModel> m =
        onnx_import::importOnnxFile(modelFile, context, options);
    if (failed(m))
      return failure();
    model = std::move(*m);
  } else {
    std::string error;
    if (failed(loadTopModel(modelFile, "", context, model.module, model.weights,
                            error))) {
      errs() << kTool << ": " << error << "\n";
      return failure();
    }
    if (!shapes.empty() &&
        failed(applyInputShapes(kTool, *model.module, shapes)))
      return failure();
  }
  if (!noOptimize) {
    FailureOr<TensorMap> optimized =
        optimizeTopModule(*model.module, model.weights);
    if (failed(optimized)) {
      errs() << kTool << ": optimizing '" << modelFile << "' failed\n";
      return failure();
    }
    model.weights = std::move(*optimized);
  }
  return model;
}

bool skipped(mlir::Operation *op) {
  return isa<top::WeightOp, top::NoneOp, top::InputOp>(op) ||
         op->hasTrait<mlir::OpTrait::IsTerminator>();
}

/// The model's distinct workloads with more than one applicable candidate
/// (or any candidate named by --implementations). `dynamicOps` counts the
/// ops skipped for a shape not known (the model needs --input-shapes).
std::vector<WorkItem> collectWork(mlir::func::FuncOp main,
                                  unsigned &dynamicOps) {
  const strategy::StrategyRegistry &registry = strategy::builtinRegistry();
  std::set<std::string> only(onlyImplementations.begin(),
                             onlyImplementations.end());
  std::vector<WorkItem> items;
  std::map<std::string, size_t> byKey;
  for (mlir::Operation &op : main.front()) {
    if (skipped(&op) || op.getNumRegions())
      continue;
    ShapeOr<strategy::Workload> w = strategy::workloadFromOp(&op);
    if (!w)
      continue;
    bool known = true;
    for (const auto *list : {&w->operands, &w->results})
      for (const strategy::TensorDesc &t : *list)
        known = known && (t.isNone() || t.allStatic());
    if (!known) {
      ++dynamicOps;
      continue;
    }
    std::string key = w->key();
    auto it = byKey.find(key);
    if (it != byKey.end()) {
      ++items[it->second].uses;
      continue;
    }
    strategy::Strategy s =
        registry.lookup(op.getName().getStringRef().str(), "cpu");
    WorkItem item{*w, &op, 1, "", {}};
    std::vector<strategy::Implementation> impls = s.implementations();
    // Equal priorities have disjoint conditions: at most one of them holds.
    std::sort(impls.begin(), impls.end(), [](const auto &a, const auto &b) {
      return a.priority != b.priority ? a.priority > b.priority
                                      : a.name < b.name;
    });
    for (const strategy::Implementation &impl : impls) {
      if (impl.condition.evaluate(*w).truth != strategy::Truth::True)
        continue;
      // A kernel the runtime does not have yet compiles as codegen: the
      // same as the codegen candidate, not a choice of its own.
      if (impl.lowering.kind == strategy::Lowering::Kind::Kernel &&
          !kernels::kabi::isRuntimeKernel(impl.lowering.kernel))
        continue;
      if (item.priorityWinner.empty())
        item.priorityWinner = impl.name;
      if (!only.empty() && !only.count(impl.name))
        continue;
      for (strategy::ScheduleParams &sp : scheduleSpace(impl)) {
        if (!scheduleApplies(impl, sp))
          continue;
        bool isDefault = impl.name == item.priorityWinner;
        for (const auto &[name, value] : sp)
          isDefault = isDefault && impl.schedule.at(name) == value;
        item.configs.push_back({impl.name, std::move(sp), isDefault});
      }
    }
    bool worth = only.empty() ? item.configs.size() > 1 : !item.configs.empty();
    if (!worth)
      continue;
    byKey[key] = items.size();
    items.push_back(std::move(item));
  }
  return items;
}

/// A module holding `op` alone: its non-constant operands become inputs,
/// its weights are cloned with their data (copied into `weights`).
mlir::OwningOpRef<mlir::ModuleOp> oneOpModule(mlir::Operation *op,
                                              const TensorMap &modelWeights,
                                              TensorMap &weights) {
  mlir::MLIRContext *ctx = op->getContext();
  mlir::OpBuilder b(ctx);
  mlir::Location loc = op->getLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  std::vector<mlir::Value> inputs;
  for (mlir::Value v : op->getOperands()) {
    mlir::Operation *def = v.getDefiningOp();
    if (!def || !isa<top::WeightOp, top::NoneOp>(def))
      inputs.push_back(v);
  }
  SmallVector<mlir::Type> argTypes, resultTypes(op->getResultTypes());
  for (mlir::Value v : inputs)
    argTypes.push_back(v.getType());
  auto fn = mlir::func::FuncOp::create(
      b, loc, "main", b.getFunctionType(argTypes, resultTypes));
  for (unsigned i = 0; i < inputs.size(); ++i)
    fn.setArgAttr(i, "top.name", b.getStringAttr("in" + std::to_string(i)));
  for (unsigned i = 0; i < resultTypes.size(); ++i)
    fn.setResultAttr(i, "top.name", b.getStringAttr("out" + std::to_string(i)));
  mlir::Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  mlir::IRMapping map;
  for (unsigned i = 0; i < inputs.size(); ++i)
    map.map(inputs[i],
            top::InputOp::create(b, loc, argTypes[i], body->getArgument(i))
                .getResult());
  for (mlir::Value v : op->getOperands()) {
    mlir::Operation *def = v.getDefiningOp();
    if (def && isa<top::WeightOp, top::NoneOp>(def) && !map.contains(v)) {
      mlir::Operation *clone = b.clone(*def);
      map.map(v, clone->getResult(0));
      if (auto w = dyn_cast<top::WeightOp>(def)) {
        if (const Tensor *t = modelWeights.find(w.getName().str()))
          weights.set(w.getName().str(), *t);
      }
    }
  }
  mlir::Operation *clone = b.clone(*op, map);
  mlir::func::ReturnOp::create(b, loc, clone->getResults());
  return module;
}

/// Fills every input with small pseudo-random values (f32) or zero bytes.
bool bindRandomInputs(const rt::Model &m, rt::Session &session,
                      std::vector<std::vector<char>> &storage) {
  uint32_t state = 12345;
  for (size_t i = 0; i < m.inputCount(); ++i) {
    strata_tensor_info info = m.input(i);
    std::vector<int64_t> shape(info.dims, info.dims + info.rank);
    size_t count = 1;
    for (int64_t d : shape)
      count *= size_t(std::max<int64_t>(d, 0));
    size_t elem = strata_dtype_size(info.dtype);
    if (!elem)
      return false;
    storage.emplace_back(count * elem, 0);
    if (info.dtype == STRATA_DTYPE_F32) {
      auto *f = reinterpret_cast<float *>(storage.back().data());
      for (size_t k = 0; k < count; ++k) {
        state = state * 1664525u + 1013904223u;
        f[k] = float(int(state >> 9 & 0xffff) - 32768) / 32768.0f;
      }
    }
    session.setInput(i, info.dtype, shape, storage.back().data(),
                     storage.back().size());
  }
  return true;
}

/// A terminal progress bar on stderr (plain lines when it is not a TTY).
class Progress {
public:
  explicit Progress(size_t total) : total(total) { tty = ::isatty(2); }
  void step(size_t done, StringRef what) {
    if (!tty) {
      errs() << "[" << done << "/" << total << "] " << what << "\n";
      return;
    }
    constexpr size_t kWidth = 30;
    size_t filled = total ? done * kWidth / total : kWidth;
    std::string bar(filled, '=');
    bar.resize(kWidth, ' ');
    std::string text = what.str();
    if (text.size() > 60)
      text = text.substr(0, 57) + "...";
    errs() << "\r[" << bar << "] " << done << "/" << total << " " << text
           << "\x1b[K";
    errs().flush();
  }
  void finish() {
    if (tty)
      errs() << "\n";
  }

private:
  size_t total;
  bool tty = false;
};

/// Seconds per run of `art` (median), or failure with `error`.
FailureOr<double> timeArtifact(const std::string &art, double minSeconds,
                               std::string &error) {
  try {
    rt::Model m = rt::Model::loadFile(art);
    rt::Session session(m, size_t(threads));
    std::vector<std::vector<char>> storage;
    if (!bindRandomInputs(m, session, storage)) {
      error = "an input has a dtype the tuner cannot fill";
      return failure();
    }
    // One thread: the process's CPU time, which other processes on a
    // shared machine do not inflate; more threads: wall time.
    auto now = [] {
      if (threads == 1) {
        timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
      }
      return std::chrono::duration<double>(
                 std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
    double t0 = now();
    session.run(); // warm-up: first-run reorders, page faults
    double first = now() - t0;
    std::vector<double> times;
    double total = 0;
    // One timed run is enough for a configuration this slow.
    int maxRuns = first > 4 * minSeconds ? 1 : 50;
    while (times.size() < size_t(maxRuns) &&
           (times.size() < 3 || total < minSeconds)) {
      double s = now();
      session.run();
      double t = now() - s;
      times.push_back(t);
      total += t;
      if (maxRuns == 1)
        break;
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  } catch (const rt::Error &e) {
    error = e.what();
    return failure();
  }
}

} // namespace

int tune() {
  if (threads < 1 || threads > 1024) {
    errs() << kTool << ": --threads " << threads << " must be in [1, 1024]\n";
    return 2;
  }
  if (!(budgetSeconds > 0)) {
    errs() << kTool << ": --budget-seconds "
           << format("%g", budgetSeconds.getValue()) << " must be > 0\n";
    return 2;
  }
  if (!(minTimeMs >= 0) || minTimeMs > 60000) {
    errs() << kTool << ": --min-time-ms " << format("%g", minTimeMs.getValue())
           << " must be in [0, 60000]\n";
    return 2;
  }
  {
    const strategy::StrategyRegistry &registry = strategy::builtinRegistry();
    for (const std::string &name : onlyImplementations) {
      bool known = false;
      for (const std::string &op : registry.ops())
        known = known || registry.lookup(op, "cpu").find(name).has_value();
      if (!known) {
        errs() << kTool << ": --implementations names '" << name
               << "', which no op has on target 'cpu'";
        for (const std::string &lib : registry.missingLibraries())
          errs() << " (this build lacks the optional library '" << lib << "')";
        errs() << "\n";
        return 2;
      }
    }
  }
  ShapeMap shapes;
  for (const std::string &spec : inputShapes)
    if (!parseInputShape(kTool, spec, shapes))
      return 2;
  auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         started)
        .count();
  };

  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());
  FailureOr<onnx_import::ImportedModel> model = loadModel(context, shapes);
  if (failed(model)) {
    errs() << kTool << ": cannot read '" << modelFile << "'\n";
    return 1;
  }
  FailureOr<mlir::func::FuncOp> main = findEntryFunction(*model->module);
  if (failed(main)) {
    errs() << kTool << ": the model has no entry function\n";
    return 1;
  }
  unsigned dynamicOps = 0;
  std::vector<WorkItem> work = collectWork(*main, dynamicOps);
  if (dynamicOps)
    outs() << "note: " << dynamicOps
           << " op(s) have shapes not known at compile time and are not "
              "tuned; give --input-shapes (as for strata compile)\n";
  size_t total = 0;
  for (const WorkItem &w : work)
    total += w.configs.size();
  std::string machine = strategy::hostMachine();
  outs() << "machine " << machine << ": " << work.size()
         << " workload(s) with candidates to compare, " << total
         << " configuration(s)\n";
  if (dryRun) {
    for (const WorkItem &w : work) {
      outs() << "workload (" << w.uses << " op(s)): " << w.workload.key()
             << "\n";
      for (const Config &c : w.configs)
        outs() << "  " << c.implementation << " " << scheduleText(c.schedule)
               << "\n";
    }
    return 0;
  }

  std::error_code ec;
  raw_fd_ostream log(logFile, ec, sys::fs::OF_Append | sys::fs::OF_Text);
  if (ec) {
    errs() << kTool << ": cannot open the log '" << logFile
           << "': " << ec.message() << "\n";
    return 1;
  }
  SmallString<128> tmpDir;
  if (std::error_code e =
          sys::fs::createUniqueDirectory("strata-tune", tmpDir)) {
    errs() << kTool << ": cannot create a temporary folder: " << e.message()
           << "\n";
    return 1;
  }
  std::string forceLog = (tmpDir + "/force.jsonl").str();
  std::string art = (tmpDir + "/op.strata").str();

  Progress progress(total);
  size_t done = 0, written = 0;
  bool outOfBudget = false;
  struct Best {
    std::string impl;
    strategy::ScheduleParams schedule;
    double cost = 0, defaultCost = 0;
  };
  std::vector<std::pair<const WorkItem *, Best>> summary;
  std::vector<std::string> notes;
  for (const WorkItem &w : work) {
    Best best;
    std::string key = w.workload.key();
    for (const Config &c : w.configs) {
      if (elapsed() > budgetSeconds) {
        outOfBudget = true;
        break;
      }
      std::string label = w.workload.op + " " + c.implementation + " " +
                          scheduleText(c.schedule);
      progress.step(done, label);
      ++done;
      // The one-op model, compiled with a log that forces this choice.
      {
        raw_fd_ostream force(forceLog, ec);
        force << strategy::formatTuningRecord({key, "cpu", machine,
                                               c.implementation, c.schedule,
                                               1e-9, 0})
              << "\n";
      }
      TensorMap weights;
      mlir::OwningOpRef<mlir::ModuleOp> one =
          oneOpModule(w.op, model->weights, weights);
      cpu::CpuCompileOptions options;
      options.tuningLog = forceLog;
      cpu::CpuArtifactBuilder builder("tune");
      cpu::VariantReport report;
      std::string error;
      if (failed(builder.addVariant(*one, weights, options, report, error)) ||
          !builder.write(art, error)) {
        notes.push_back(label + ": not measured, compiling failed: " + error);
        continue;
      }
      if (!report.kernelsNotAvailable.empty()) {
        auto why = report.kernelFallbackReasons.begin();
        notes.push_back(label + ": not measured, the kernel does not take it" +
                        (why != report.kernelFallbackReasons.end()
                             ? " (" + why->second + ")"
                             : std::string()));
        continue;
      }
      FailureOr<double> cost = timeArtifact(art, minTimeMs / 1000.0, error);
      if (failed(cost)) {
        notes.push_back(label + ": not measured, running failed: " + error);
        continue;
      }
      log << strategy::formatTuningRecord({key, "cpu", machine,
                                           c.implementation, c.schedule,
                                           std::max(*cost, 1e-9), 0})
          << "\n";
      log.flush();
      ++written;
      if (best.impl.empty() || *cost < best.cost)
        best = {c.implementation, c.schedule, *cost, best.defaultCost};
      if (c.isDefault)
        best.defaultCost = *cost;
    }
    if (!best.impl.empty())
      summary.push_back({&w, best});
    if (outOfBudget)
      break;
  }
  progress.step(done, outOfBudget ? "budget reached" : "done");
  progress.finish();
  sys::fs::remove(forceLog);
  sys::fs::remove(art);
  sys::fs::remove(tmpDir);
  for (const std::string &n : notes)
    outs() << "note: " << n << "\n";
  double defaultTotal = 0, tunedTotal = 0;
  for (const auto &[w, best] : summary) {
    outs() << w->workload.op << " x" << w->uses << ": best " << best.impl << " "
           << scheduleText(best.schedule) << " "
           << format("%.4f", best.cost * 1e3) << " ms";
    if (best.defaultCost > 0) {
      outs() << " (default " << w->priorityWinner << ": "
             << format("%.4f", best.defaultCost * 1e3) << " ms, "
             << format("%.2fx", best.defaultCost / best.cost) << ")";
      defaultTotal += best.defaultCost * w->uses;
      tunedTotal += best.cost * w->uses;
    }
    outs() << "\n";
  }
  if (tunedTotal > 0)
    outs() << "the tuned ops (each workload times its ops): "
           << format("%.3f", defaultTotal * 1e3) << " ms with the defaults, "
           << format("%.3f", tunedTotal * 1e3) << " ms with the log\n";
  outs() << "appended " << written << " record(s) to " << logFile << " in "
         << format("%.1f", elapsed()) << " s";
  if (outOfBudget)
    outs() << " (stopped at the --budget-seconds limit; " << (total - done)
           << " configuration(s) not timed)";
  outs() << "\n";
  return 0;
}

} // namespace strata::cli
