//===- CheckEquiv.cpp - strata check-equiv --------------------------------===//
//
// strata check-equiv A.mlir B.mlir: runs two Top models with the same
// signature through the reference interpreter on the same seeded random
// inputs and compares every output by `strata compare`'s rules. It checks
// that a pass (or a pipeline) kept what a model computes, where lit tests
// check only the IR it wrote.
//
// strata check-equiv A.mlir B.strata: the same with B a compiled artifact run
// through the runtime (what `strata run` does): integer and bool outputs must
// be equal, float outputs allclose within --float-tolerance. It checks the
// compiler (`strata compile`) against the interpreter on one model.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "RuntimeUtils.h"

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/IndexRanges.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/RandomInputs.h"
#include "strata/Support/Compare.h"
#include "strata/Support/InputFile.h"

#include <cmath>

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand CheckEquivCommand(
    "check-equiv",
    "Check that two Top models compute the same outputs: both run through "
    "the reference interpreter on the same seeded random inputs (or --input), "
    "every output compared by `strata compare`'s rules. With B a compiled "
    "artifact (.strata), B runs through the runtime instead and its outputs "
    "must equal A's (integers, bools) or be allclose within "
    "--float-tolerance (floats). Exit 0 when every "
    "output of every run passes, 1 when one differs (or the models' "
    "signatures differ, or B fails to run where A runs), 2 when the check "
    "cannot be made (bad options, unreadable model or weights, dynamic input "
    "dims without --input-shapes / --input, A fails to run)");

static cl::opt<std::string> modelA(cl::Positional, cl::Required,
                                   cl::desc("<A.mlir>"),
                                   cl::sub(CheckEquivCommand));
static cl::opt<std::string> modelB(cl::Positional, cl::Required,
                                   cl::desc("<B.mlir | B.strata>"),
                                   cl::sub(CheckEquivCommand));
static cl::opt<uint64_t>
    seed("seed", cl::init(0),
         cl::desc("seed of the random inputs; run r uses seed S + r "
                  "(default 0)"),
         cl::value_desc("S"), cl::sub(CheckEquivCommand));
static cl::opt<unsigned>
    runs("runs", cl::init(3),
         cl::desc("number of runs, each on fresh random inputs (default 3; "
                  "1 with --input)"),
         cl::value_desc("N"), cl::sub(CheckEquivCommand));
static cl::opt<std::string> tolerance(
    "tolerance", cl::init("0.99999,0.9999"),
    cl::desc("minimum cosine and euclidean similarity, as 'cos,euclid', for "
             "outputs that are neither equal nor allclose(rtol 1e-3) "
             "(default 0.99999,0.9999: stricter than `strata compare`, a "
             "pass should change only rounding)"),
    cl::value_desc("cos,euclid"), cl::sub(CheckEquivCommand));
static cl::opt<std::string> floatTolerance(
    "float-tolerance", cl::init("1e-3,1e-4"),
    cl::desc("B.strata: float outputs pass when |b - a| <= atol + rtol * |a| "
             "for every element (NaN matches NaN, infinities their own sign), "
             "as 'rtol,atol' (default 1e-3,1e-4)"),
    cl::value_desc("rtol,atol"), cl::sub(CheckEquivCommand));
static cl::opt<std::string>
    inputFile("input",
              cl::desc("run once on these inputs (npz keyed by input name) "
                       "instead of random ones"),
              cl::value_desc("in.npz"), cl::sub(CheckEquivCommand));
static cl::opt<std::string>
    weightsA("weights-a",
             cl::desc("A's weight npz (default: A's top.weight_file attribute, "
                      "relative to A's folder)"),
             cl::value_desc("W.npz"), cl::sub(CheckEquivCommand));
static cl::opt<std::string>
    weightsB("weights-b",
             cl::desc("B's weight npz (default: B's top.weight_file attribute, "
                      "relative to B's folder)"),
             cl::value_desc("W.npz"), cl::sub(CheckEquivCommand));
static cl::list<std::string>
    inputShapes("input-shapes",
                cl::desc("shape of an input with dynamic dims, in both models: "
                         "name:1x3x224x224 (repeatable or comma-separated)"),
                cl::value_desc("name:DxDx..."), cl::CommaSeparated,
                cl::sub(CheckEquivCommand));

namespace {
/// Exit codes.
enum : int { kEquivalent = 0, kDiffer = 1, kCannotCheck = 2 };

/// A model with its entry function and weights.
struct Model {
  std::string path;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp entry;
  TensorMap weights;
};
} // namespace

static constexpr const char *kTool = "strata check-equiv";

static bool loadModel(const std::string &path, const std::string &weights,
                      mlir::MLIRContext &context, Model &model) {
  model.path = path;
  std::string error;
  if (failed(loadTopModel(path, weights, context, model.module, model.weights,
                          error))) {
    errs() << kTool << ": " << error << "\n";
    return false;
  }
  auto entry = findEntryFunction(*model.module);
  if (failed(entry)) {
    errs() << kTool << ": model '" << path << "' has no entry function\n";
    return false;
  }
  model.entry = *entry;
  return true;
}

static std::string typeString(mlir::Type type) {
  std::string s;
  raw_string_ostream os(s);
  os << type;
  return s;
}

/// Index of the input (or output) named `name`, or -1.
static int findInput(mlir::func::FuncOp f, StringRef name) {
  for (unsigned i = 0; i < f.getNumArguments(); ++i)
    if (inputName(f, i) == name)
      return i;
  return -1;
}
static int findOutput(mlir::func::FuncOp f, StringRef name) {
  for (unsigned i = 0; i < f.getNumResults(); ++i)
    if (outputName(f, i) == name)
      return i;
  return -1;
}

/// Checks that A and B have the same inputs (names and types) and outputs
/// (names; types where both are static). Prints every difference.
static bool sameSignature(const Model &a, const Model &b) {
  bool same = true;
  auto fa = a.entry, fb = b.entry;
  for (unsigned i = 0; i < fa.getNumArguments(); ++i) {
    std::string name = inputName(fa, i);
    int j = findInput(fb, name);
    if (j < 0) {
      errs() << kTool << ": input '" << name << "' of '" << a.path
             << "' is not an input of '" << b.path << "'\n";
      same = false;
    } else if (fa.getArgument(i).getType() != fb.getArgument(j).getType()) {
      errs() << kTool << ": input '" << name << "' is "
             << typeString(fa.getArgument(i).getType()) << " in '" << a.path
             << "' but " << typeString(fb.getArgument(j).getType()) << " in '"
             << b.path << "'\n";
      same = false;
    }
  }
  for (unsigned j = 0; j < fb.getNumArguments(); ++j)
    if (findInput(fa, inputName(fb, j)) < 0) {
      errs() << kTool << ": input '" << inputName(fb, j) << "' of '" << b.path
             << "' is not an input of '" << a.path << "'\n";
      same = false;
    }
  for (unsigned i = 0; i < fa.getNumResults(); ++i) {
    std::string name = outputName(fa, i);
    int j = findOutput(fb, name);
    if (j < 0) {
      errs() << kTool << ": output '" << name << "' of '" << a.path
             << "' is not an output of '" << b.path << "'\n";
      same = false;
      continue;
    }
    auto ta = dyn_cast<mlir::RankedTensorType>(fa.getResultTypes()[i]);
    auto tb = dyn_cast<mlir::RankedTensorType>(fb.getResultTypes()[j]);
    if (ta && tb && ta.hasStaticShape() && tb.hasStaticShape() && ta != tb) {
      errs() << kTool << ": output '" << name << "' is " << typeString(ta)
             << " in '" << a.path << "' but " << typeString(tb) << " in '"
             << b.path << "'\n";
      same = false;
    }
  }
  for (unsigned j = 0; j < fb.getNumResults(); ++j)
    if (findOutput(fa, outputName(fb, j)) < 0) {
      errs() << kTool << ": output '" << outputName(fb, j) << "' of '" << b.path
             << "' is not an output of '" << a.path << "'\n";
      same = false;
    }
  return same;
}

/// Gives input `name` of `f` the static `shape` (the function's type too),
/// so that the interpreter can infer the other shapes.
static bool setInputShape(const Model &m, StringRef name,
                          ArrayRef<int64_t> shape) {
  mlir::func::FuncOp f = m.entry;
  int i = findInput(f, name);
  if (i < 0)
    return true; // reported by the caller for A; B matches A
  mlir::BlockArgument arg = f.getArgument(i);
  auto type = dyn_cast<mlir::TensorType>(arg.getType());
  if (!type) {
    errs() << kTool << ": input '" << name << "' of '" << m.path
           << "' is not a tensor\n";
    return false;
  }
  if (type.hasRank()) {
    bool fits = type.getRank() == static_cast<int64_t>(shape.size());
    for (unsigned d = 0; fits && d < shape.size(); ++d)
      fits = type.isDynamicDim(d) || type.getDimSize(d) == shape[d];
    if (!fits) {
      errs() << kTool << ": shape " << shapeToString(shape)
             << " given for input '" << name << "' does not fit its type "
             << typeString(type) << " in '" << m.path << "'\n";
      return false;
    }
  }
  auto fixed = mlir::RankedTensorType::get(shape, type.getElementType());
  arg.setType(fixed);
  SmallVector<mlir::Type> args(f.getArgumentTypes());
  args[i] = fixed;
  f.setType(mlir::FunctionType::get(f.getContext(), args, f.getResultTypes()));
  return true;
}

/// Fixes the dynamic input dims of both models from --input-shapes (or the
/// explicit inputs), then describes every input of A for the generator.
static bool describeInputs(Model &a, Model *b, const TensorMap *explicitInputs,
                           std::vector<InputSpec> &specs) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const std::string &spec : inputShapes)
    if (!parseInputShape(kTool, spec, shapes))
      return false;
  for (const auto &[name, shape] : shapes)
    if (findInput(a.entry, name) < 0) {
      errs() << kTool << ": --input-shapes names '" << name
             << "', which is not an input of '" << a.path << "'\n";
      return false;
    }
  // Explicit inputs fix only dynamic dims; the interpreter checks the rest.
  if (explicitInputs)
    for (const auto &[name, t] : *explicitInputs) {
      int i = findInput(a.entry, name);
      auto type =
          i < 0 ? nullptr
                : dyn_cast<mlir::TensorType>(a.entry.getArgument(i).getType());
      if (type && !type.hasStaticShape() && !shapes.count(name))
        shapes[name] = t.shape();
    }
  for (const auto &[name, shape] : shapes)
    if (!setInputShape(a, name, shape) ||
        (b && !setInputShape(*b, name, shape)))
      return false;

  llvm::DenseMap<unsigned, IndexRange> ranges = findIndexRanges(a.entry);
  for (unsigned i = 0; i < a.entry.getNumArguments(); ++i) {
    InputSpec spec;
    spec.name = inputName(a.entry, i);
    mlir::Type argType = a.entry.getArgument(i).getType();
    auto type = dyn_cast<mlir::RankedTensorType>(argType);
    if (!type || !type.hasStaticShape()) {
      errs() << kTool << ": input '" << spec.name << "' has dynamic dims ("
             << typeString(argType) << "): give its shape with --input-shapes "
             << spec.name << ":D0xD1x... or the inputs with --input\n";
      return false;
    }
    std::optional<DType> dtype = top::dtypeOf(type.getElementType());
    if (!dtype) {
      errs() << kTool << ": input '" << spec.name << "' has element type "
             << typeString(type.getElementType())
             << ", which has no host dtype\n";
      return false;
    }
    spec.dtype = *dtype;
    spec.shape.assign(type.getShape().begin(), type.getShape().end());
    if (!checkedNumElements(spec.shape, int64_t(1) << 31)) {
      errs() << kTool << ": input '" << spec.name << "' " << typeString(type)
             << " is too large to fill\n";
      return false;
    }
    if (auto it = ranges.find(i); it != ranges.end()) {
      if (it->second.empty()) {
        errs() << kTool << ": input '" << spec.name
               << "' has no value valid for all its index uses ("
               << it->second.uses << "): give the inputs with --input\n";
        return false;
      }
      spec.indexRange = it->second;
    }
    specs.push_back(std::move(spec));
  }
  return true;
}

/// Describes how input `spec` is filled, for the header.
static void printInputSpec(const InputSpec &spec) {
  outs() << "  input '" << spec.name << "' " << dtypeName(spec.dtype)
         << shapeToString(spec.shape) << ": ";
  if (spec.dtype == DType::Bool)
    outs() << "random bools";
  else if (isFloat(spec.dtype))
    outs() << "uniform in [-1, 1)";
  else if (spec.indexRange)
    outs() << "integers in [" << spec.indexRange->lo << ", "
           << spec.indexRange->hi << ") for " << spec.indexRange->uses;
  else
    outs() << "integers in [0, " << kDefaultIntHi << ") (no index use)";
  outs() << "\n";
}

/// Compares B's outputs with A's for one run; returns the failures.
static unsigned compareRun(mlir::func::FuncOp entry, const TensorMap &outA,
                           const TensorMap &outB, StringRef run, double cosTol,
                           double eucTol, unsigned &compared) {
  unsigned failed = 0;
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    std::string name = outputName(entry, i);
    const Tensor *ta = outA.find(name), *tb = outB.find(name);
    ++compared;
    if (!ta || !tb) {
      outs() << "  FAIL " << run << " " << name << ": missing from "
             << (ta ? "B" : "A") << "'s outputs\n";
      ++failed;
      continue;
    }
    if (ta->dtype() != tb->dtype()) {
      outs() << "  FAIL " << run << " " << name << ": MISMATCH (dtype "
             << dtypeName(tb->dtype()) << " differs from "
             << dtypeName(ta->dtype()) << ")\n";
      ++failed;
      continue;
    }
    CompareResult r = compareTensors(*ta, *tb, cosTol, eucTol);
    if (!r.passed())
      ++failed;
    outs() << (r.passed() ? "  PASS " : "  FAIL ") << run << " " << name << ": "
           << verdictName(r.verdict);
    if (!r.detail.empty())
      outs() << " (" << r.detail << ")";
    else
      outs() << format(" cos=%.7f euclid=%.7f max_abs=%.3g", r.cosine,
                       r.euclidean, r.maxAbsError);
    outs() << "\n";
  }
  return failed;
}

/// `printf`-style `fmt` with two doubles, as a string.
static std::string formatText(const char *fmt, double x, double y) {
  std::string s;
  raw_string_ostream(s) << format(fmt, x, y);
  return s;
}

/// The runs both modes share: prints the header ("check-equiv <what>: ...,
/// <tolerance>" and the inputs), then per run interprets A on the run's
/// inputs, gets B's outputs from `runB` (false: B failed to run where A ran,
/// one failure) and counts `compare`'s failures; prints the summary and
/// returns the exit code.
static int
runAndCompare(Model &a, StringRef bPath, const std::string &what,
              const std::string &tolerance, const std::vector<InputSpec> &specs,
              const TensorMap &given,
              function_ref<bool(const TensorMap &, TensorMap &)> runB,
              function_ref<unsigned(const TensorMap &, const TensorMap &,
                                    StringRef, unsigned &)>
                  compare) {
  unsigned numRuns = inputFile.empty() ? runs : 1;
  outs() << "check-equiv " << what << ": ";
  if (inputFile.empty())
    outs() << numRuns << " run(s) from seed " << seed;
  else
    outs() << "inputs from " << inputFile;
  outs() << ", " << tolerance << "\n";
  if (inputFile.empty())
    for (const InputSpec &spec : specs)
      printInputSpec(spec);
  unsigned compared = 0, numFailed = 0;
  for (unsigned r = 0; r < numRuns; ++r) {
    uint64_t runSeed = seed + r;
    std::string run =
        inputFile.empty()
            ? ("run " + Twine(r) + " (seed " + Twine(runSeed) + ")").str()
            : std::string("run 0");
    TensorMap inputs = inputFile.empty() ? randomInputs(specs, runSeed) : given;
    auto outA = interpretModule(*a.module, inputs, a.weights);
    if (failed(outA)) {
      errs() << kTool << ": '" << a.path << "' failed to run on the inputs of "
             << run << "; nothing to compare B with (give --input)\n";
      return kCannotCheck;
    }
    TensorMap outB;
    if (!runB(inputs, outB)) {
      outs() << "  FAIL " << run << ": '" << bPath << "' failed to run where '"
             << a.path << "' ran\n";
      ++compared;
      ++numFailed;
      continue;
    }
    numFailed += compare(*outA, outB, run, compared);
  }
  outs() << compared - numFailed << " passed, " << numFailed << " failed\n";
  return numFailed ? kDiffer : kEquivalent;
}

//===----------------------------------------------------------------------===//
// B a compiled artifact
//===----------------------------------------------------------------------===//

/// Checks that the artifact has A's inputs (names and dtypes) and outputs
/// (names). Prints every difference.
static bool sameArtifactSignature(const Model &a, const rt::Model &b,
                                  const std::string &bPath) {
  bool same = true;
  auto fa = a.entry;
  auto find = [](bool outputs, const rt::Model &m, StringRef name) -> int {
    size_t n = outputs ? m.outputCount() : m.inputCount();
    for (size_t i = 0; i < n; ++i)
      if ((outputs ? m.output(i) : m.input(i)).name == name)
        return static_cast<int>(i);
    return -1;
  };
  for (unsigned i = 0; i < fa.getNumArguments(); ++i) {
    std::string name = inputName(fa, i);
    int j = find(false, b, name);
    if (j < 0) {
      errs() << kTool << ": input '" << name << "' of '" << a.path
             << "' is not an input of '" << bPath << "'\n";
      same = false;
      continue;
    }
    std::optional<DType> dtype = top::dtypeOfValue(fa.getArgument(i));
    std::optional<strata_dtype> want =
        dtype ? toRuntimeDType(*dtype) : std::nullopt;
    if (!want || *want != b.input(j).dtype) {
      errs() << kTool << ": input '" << name << "' is "
             << typeString(fa.getArgument(i).getType()) << " in '" << a.path
             << "' but " << strata_dtype_name(b.input(j).dtype) << " in '"
             << bPath << "'\n";
      same = false;
    }
  }
  for (size_t j = 0; j < b.inputCount(); ++j)
    if (findInput(fa, b.input(j).name) < 0) {
      errs() << kTool << ": input '" << b.input(j).name << "' of '" << bPath
             << "' is not an input of '" << a.path << "'\n";
      same = false;
    }
  for (unsigned i = 0; i < fa.getNumResults(); ++i)
    if (find(true, b, outputName(fa, i)) < 0) {
      errs() << kTool << ": output '" << outputName(fa, i) << "' of '" << a.path
             << "' is not an output of '" << bPath << "'\n";
      same = false;
    }
  for (size_t j = 0; j < b.outputCount(); ++j)
    if (findOutput(fa, b.output(j).name) < 0) {
      errs() << kTool << ": output '" << b.output(j).name << "' of '" << bPath
             << "' is not an output of '" << a.path << "'\n";
      same = false;
    }
  return same;
}

/// Compares the artifact's output `b` with the interpreter's `a`: same
/// dtype and shape; integers and bools equal; floats allclose. Returns
/// whether it passes and says why in `detail`.
static bool artifactOutputMatches(const Tensor &a, const Tensor &b, double rtol,
                                  double atol, std::string &detail) {
  if (a.dtype() != b.dtype()) {
    detail = "MISMATCH (dtype " + std::string(dtypeName(b.dtype())) +
             " differs from " + dtypeName(a.dtype()) + ")";
    return false;
  }
  if (a.shape() != b.shape()) {
    detail = "MISMATCH (shape " + shapeToString(b.shape()) + " differs from " +
             shapeToString(a.shape()) + ")";
    return false;
  }
  int64_t n = a.numElements(), bad = 0, firstBad = -1;
  double maxAbs = 0;
  bool exact = !isFloat(a.dtype());
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    if (exact) {
      ok = a.getAsInt(i) == b.getAsInt(i);
    } else {
      double x = a.getAsDouble(i), y = b.getAsDouble(i);
      if (std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y)) {
        ok = (std::isnan(x) && std::isnan(y)) || x == y;
      } else {
        double d = std::abs(y - x);
        maxAbs = std::max(maxAbs, d);
        ok = d <= atol + rtol * std::abs(x);
      }
    }
    if (!ok && bad++ == 0)
      firstBad = i;
  }
  std::string s;
  raw_string_ostream os(s);
  if (exact)
    os << (bad ? "DIFFERENT" : "EQUAL") << " (exact, " << n << " elements";
  else
    os << (bad ? "NOT_CLOSE" : "CLOSE") << format(" (max_abs=%.3g", maxAbs);
  if (bad) {
    os << ", " << bad << " element(s) differ, first at flat index " << firstBad
       << ": ";
    if (exact)
      os << a.getAsInt(firstBad) << " vs " << b.getAsInt(firstBad);
    else
      os << format("%.9g vs %.9g", a.getAsDouble(firstBad),
                   b.getAsDouble(firstBad));
  }
  os << ")";
  detail = os.str();
  return bad == 0;
}

/// Runs the artifact `m` on `inputs` through a fresh session into `out`;
/// false (having printed why) when the runtime refuses or fails.
static bool runArtifact(const rt::Model &m, const TensorMap &inputs,
                        const std::string &from, TensorMap &out) {
  try {
    rt::Session session(m, 1);
    if (!bindInputs(kTool, m, session, inputs, from))
      return false;
    session.run();
    return collectOutputs(kTool, m, session, out);
  } catch (const rt::Error &e) {
    errs() << kTool << ": " << e.what() << "\n";
    return false;
  }
}

/// check-equiv A.mlir B.strata, after A is loaded.
static int checkArtifact(Model &a, const TensorMap &given) {
  double rtol, atol;
  {
    auto [r, t] = StringRef(floatTolerance).split(',');
    if (t.empty() || r.trim().getAsDouble(rtol) || t.trim().getAsDouble(atol) ||
        !(rtol >= 0) || !(atol >= 0) || std::isinf(rtol) || std::isinf(atol)) {
      errs() << kTool << ": --float-tolerance '" << floatTolerance
             << "' must be 'rtol,atol', two finite numbers >= 0\n";
      return kCannotCheck;
    }
  }
  std::string error;
  {
    // The runtime maps the file itself; this applies the checks every
    // command makes first (a regular file, --max-file-size).
    InputFile probe;
    if (!probe.open(modelB, "artifact", error)) {
      errs() << kTool << ": " << error << "\n";
      return kCannotCheck;
    }
  }
  std::optional<rt::Model> b;
  try {
    b.emplace(rt::Model::loadFile(modelB));
  } catch (const rt::Error &e) {
    errs() << kTool << ": " << e.what() << "\n";
    return kCannotCheck;
  }
  if (!sameArtifactSignature(a, *b, modelB)) {
    errs() << kTool << ": '" << a.path << "' and '" << modelB
           << "' have different signatures\n";
    return kDiffer;
  }
  std::vector<InputSpec> specs;
  if (!describeInputs(a, nullptr, inputFile.empty() ? nullptr : &given, specs))
    return kCannotCheck;
  return runAndCompare(
      a, modelB, a.path + " (interpreter) vs " + modelB + " (runtime)",
      formatText("integers exact, floats |b - a| <= %g + %g * |a|", atol, rtol),
      specs, given,
      [&](const TensorMap &inputs, TensorMap &out) {
        return runArtifact(*b, inputs, inputFile, out);
      },
      [&](const TensorMap &outA, const TensorMap &outB, StringRef run,
          unsigned &compared) {
        unsigned numFailed = 0;
        for (unsigned i = 0; i < a.entry.getNumResults(); ++i) {
          std::string name = outputName(a.entry, i);
          const Tensor *ta = outA.find(name), *tb = outB.find(name);
          ++compared;
          std::string detail = "missing from the artifact's outputs";
          bool ok =
              ta && tb && artifactOutputMatches(*ta, *tb, rtol, atol, detail);
          numFailed += !ok;
          outs() << (ok ? "  PASS " : "  FAIL ") << run << " " << name << ": "
                 << detail << "\n";
        }
        return numFailed;
      });
}

int checkEquiv() {
  double cosTol, eucTol;
  if (!parseTolerance(kTool, tolerance, cosTol, eucTol))
    return kCannotCheck;
  if (runs == 0) {
    errs() << kTool << ": --runs must be at least 1\n";
    return kCannotCheck;
  }
  mlir::MLIRContext context;
  registerAndLoadDialects(context);
  // Errors name the op and its node; printing the op (a whole function for
  // an error on the entry function) would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diag(sourceMgr, &context, llvm::errs());

  bool artifact = StringRef(modelB).ends_with(".strata");
  if (artifact && weightsB.getNumOccurrences()) {
    errs() << kTool << ": --weights-b has no use with an artifact (its "
           << "constants are inside it)\n";
    return kCannotCheck;
  }
  Model a, b;
  if (!loadModel(modelA, weightsA, context, a) ||
      (!artifact && !loadModel(modelB, weightsB, context, b)))
    return kCannotCheck;
  TensorMap given;
  if (!inputFile.empty()) {
    std::string error;
    if (!readNpz(inputFile, given, error)) {
      errs() << kTool << ": " << error << "\n";
      return kCannotCheck;
    }
  }
  if (artifact)
    return checkArtifact(a, given);
  if (!sameSignature(a, b)) {
    errs() << kTool << ": '" << a.path << "' and '" << b.path
           << "' have different signatures\n";
    return kDiffer;
  }
  std::vector<InputSpec> specs;
  if (!describeInputs(a, &b, inputFile.empty() ? nullptr : &given, specs))
    return kCannotCheck;

  return runAndCompare(
      a, b.path, a.path + " vs " + b.path,
      formatText("tolerance cos %g euclid %g", cosTol, eucTol), specs, given,
      [&](const TensorMap &inputs, TensorMap &out) {
        auto outB = interpretModule(*b.module, inputs, b.weights);
        if (failed(outB))
          return false;
        out = std::move(*outB);
        return true;
      },
      [&](const TensorMap &outA, const TensorMap &outB, StringRef run,
          unsigned &compared) {
        return compareRun(a.entry, outA, outB, run, cosTol, eucTol, compared);
      });
}

} // namespace strata::cli
