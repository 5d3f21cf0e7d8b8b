//===- Compare.cpp - strata compare ---------------------------------------===//

#include "Commands.h"

#include "strata/Support/Compare.h"
#include "strata/Support/Npz.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

cl::SubCommand CompareCommand(
    "compare",
    "Compare two npz files tensor by tensor (tpu-mlir npz_tool rules)");

static cl::opt<std::string> reference(cl::Positional, cl::Required,
                                      cl::desc("<reference.npz>"),
                                      cl::sub(CompareCommand));
static cl::opt<std::string> target(cl::Positional, cl::Required,
                                   cl::desc("<target.npz>"),
                                   cl::sub(CompareCommand));
static cl::opt<std::string> tolerance(
    "tolerance", cl::init("0.99,0.99"),
    cl::desc("minimum cosine and euclidean similarity, as 'cos,euclid' "
             "(used when tensors are neither equal nor allclose)"),
    cl::value_desc("cos,euclid"), cl::sub(CompareCommand));

bool parseTolerance(StringRef tool, StringRef spec, double &cosTol,
                    double &eucTol) {
  auto [a, b] = spec.split(',');
  // Similarities of 1 mean identical; a negative or NaN threshold would
  // pass anything (a negated tensor has cosine -1).
  auto inRange = [](double v) { return v >= 0 && v <= 1; };
  if (b.empty() || a.trim().getAsDouble(cosTol) ||
      b.trim().getAsDouble(eucTol) || !inRange(cosTol) || !inRange(eucTol)) {
    errs() << tool << ": --tolerance must be 'cos,euclid' with values in "
           << "[0, 1], got '" << spec << "'\n";
    return false;
  }
  return true;
}

int compare() {
  double cosTol, eucTol;
  if (!parseTolerance("strata compare", tolerance, cosTol, eucTol))
    return 2;
  TensorMap a, b;
  std::string error;
  if (!readNpz(reference, a, error) || !readNpz(target, b, error)) {
    errs() << "strata compare: " << error << "\n";
    return 2;
  }
  unsigned compared = 0, failed = 0;
  for (const auto &[name, ta] : a) {
    const Tensor *tb = b.find(name);
    if (!tb) {
      ++compared;
      ++failed;
      outs() << "  FAIL " << name << ": missing from " << target << "\n";
      continue;
    }
    CompareResult r = compareTensors(ta, *tb, cosTol, eucTol);
    ++compared;
    if (!r.passed())
      ++failed;
    outs() << (r.passed() ? "  PASS " : "  FAIL ") << name << ": "
           << verdictName(r.verdict);
    if (!r.detail.empty())
      outs() << " (" << r.detail << ")";
    else
      outs() << format(" cos=%.6f euclid=%.6f max_abs=%.3g max_rel=%.3g",
                       r.cosine, r.euclidean, r.maxAbsError, r.maxRelError);
    outs() << "\n";
  }
  for (const auto &[name, tb] : b)
    if (!a.find(name))
      outs() << "  " << name << ": only in " << target << " (skipped)\n";
  outs() << compared - failed << " passed, " << failed << " failed\n";
  if (compared == 0) {
    errs() << "strata compare: no tensor name is in both files\n";
    return 1;
  }
  return failed ? 1 : 0;
}

} // namespace strata::cli
