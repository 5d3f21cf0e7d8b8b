//===- CompositeEquivalence.cpp - a fused body against the original -------===//
//
// An ONNX model-local function's body is its meaning; its name is only a
// hint. Before `top-fuse-composites` replaces such a body by the fused op
// its name suggests, both run through the reference interpreter on seeded
// inputs and must agree (checkFusedMatchesBody). Explicit marks
// (`strata.implements` written by a user, `tf._implements`) stay promises
// and are not checked.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Transforms/CompositeRegistry.h"

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Interpreter/Executor.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>

using namespace mlir;

namespace strata::top {
namespace {
/// Seeded runs; each draws fresh inputs.
constexpr unsigned kRuns = 3;

/// SplitMix64: the same numbers on every machine.
struct SeededStream {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

/// Random inputs for `fn`'s arguments: floats uniform in [-1, 1), integers
/// in {0, 1} (valid indices for any non-trivial table), bools 0 or 1.
/// Fails when an argument is not a static tensor of a host type.
FailureOr<std::vector<Tensor>> seededInputs(func::FuncOp fn, uint64_t seed) {
  SeededStream rng{seed};
  std::vector<Tensor> args;
  for (Type t : fn.getArgumentTypes()) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    std::optional<DType> dtype =
        ranked ? dtypeOf(ranked.getElementType()) : std::nullopt;
    if (!ranked || !ranked.hasStaticShape() || !dtype)
      return failure();
    std::vector<int64_t> shape(ranked.getShape().begin(),
                               ranked.getShape().end());
    Tensor f64(DType::F64, shape);
    for (int64_t i = 0, n = f64.numElements(); i < n; ++i)
      f64.setFromDouble(i, isFloat(*dtype) ? rng.unit() * 2 - 1
                                           : std::floor(rng.unit() * 2));
    args.push_back(f64.castTo(*dtype));
  }
  return args;
}

/// Runs `fn`'s body on `args`; the error text of the first diagnostic on
/// failure. Weights need their values attached (`value`).
FailureOr<std::vector<Tensor>> runBody(func::FuncOp fn,
                                       ArrayRef<Tensor> args,
                                       std::string &error) {
  ScopedDiagnosticHandler capture(fn.getContext(), [&](Diagnostic &diag) {
    if (error.empty())
      error = diag.str();
    return success();
  });
  InterpreterEnv env;
  Executor executor(env);
  WalkResult loaded = fn.walk([&](WeightOp w) {
    auto value = w.getValueAttr();
    if (!value) {
      error = "weight '" + w.getName().str() + "' has no value here";
      return WalkResult::interrupt();
    }
    FailureOr<Tensor> t = tensorFromElements(value, w.getLoc());
    if (failed(t))
      return WalkResult::interrupt();
    executor.bindConstant(w.getOutput(), *t);
    return WalkResult::advance();
  });
  if (loaded.wasInterrupted())
    return failure();
  return executor.runFunction(fn.getBody(), args);
}

/// Where `fused` differs from `body` beyond rounding: element-wise
/// |f - b| <= atol + rtol * |b|, NaN only against NaN, infinities exactly.
std::optional<std::string> compareResult(const Tensor &body,
                                         const Tensor &fused, unsigned index) {
  std::string which = "result " + std::to_string(index);
  if (body.dtype() != fused.dtype() || body.shape() != fused.shape())
    return which + " has type " + dtypeName(fused.dtype()) +
           shapeToString(fused.shape()) + ", the body gives " +
           dtypeName(body.dtype()) + shapeToString(body.shape());
  bool wide = body.dtype() == DType::F32 || body.dtype() == DType::F64;
  double rtol = wide ? 1e-4 : 2e-2, atol = wide ? 1e-5 : 2e-2;
  for (int64_t i = 0, n = body.numElements(); i < n; ++i) {
    double b = body.getAsDouble(i), f = fused.getAsDouble(i);
    bool same = (std::isnan(b) && std::isnan(f)) || b == f ||
                (std::isfinite(b) && std::isfinite(f) &&
                 std::fabs(f - b) <= atol + rtol * std::fabs(b));
    if (!same)
      return which + " element " + std::to_string(i) + " is " +
             std::to_string(f) + ", the body computes " + std::to_string(b);
  }
  return std::nullopt;
}
} // namespace

std::optional<std::string> checkFusedMatchesBody(func::FuncOp body,
                                                 func::FuncOp fused) {
  for (unsigned run = 0; run < kRuns; ++run) {
    FailureOr<std::vector<Tensor>> args = seededInputs(body, run);
    if (failed(args))
      return std::string("cannot check the fused op against the body: an "
                         "input is not a static tensor");
    std::string bodyError, fusedError;
    FailureOr<std::vector<Tensor>> expected = runBody(body, *args, bodyError);
    if (failed(expected))
      return "cannot check the fused op against the body: the body does not "
             "run on seeded inputs (" +
             bodyError + ")";
    FailureOr<std::vector<Tensor>> actual = runBody(fused, *args, fusedError);
    if (failed(actual))
      return "the fused op does not run where the body does (" + fusedError +
             ")";
    for (unsigned i = 0; i < body.getNumResults(); ++i)
      if (std::optional<std::string> d =
              compareResult((*expected)[i], (*actual)[i], i))
        return "the fused op computes something else than the body (seeded "
               "run " +
               std::to_string(run) + ": " + *d + ")";
  }
  return std::nullopt;
}

} // namespace strata::top
