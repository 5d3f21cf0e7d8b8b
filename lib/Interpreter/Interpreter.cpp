//===- Interpreter.cpp - reference interpreter for Top IR -----------------===//

#include "strata/Interpreter/Interpreter.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"

#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace strata {

std::string inputName(func::FuncOp func, unsigned i) {
  if (auto name = func.getArgAttrOfType<StringAttr>(i, "top.name"))
    return name.str();
  return "input" + std::to_string(i);
}

std::string outputName(func::FuncOp func, unsigned i) {
  if (auto name = func.getResultAttrOfType<StringAttr>(i, "top.name"))
    return name.str();
  return "output" + std::to_string(i);
}

std::string valueName(Value value, unsigned fallbackIndex) {
  Location loc = value.getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string s = name.getName().str();
    if (auto r = dyn_cast<OpResult>(value); r && r.getOwner()->getNumResults() > 1)
      s += "_" + std::to_string(r.getResultNumber());
    return s;
  }
  std::string op = value.getDefiningOp()
                       ? value.getDefiningOp()->getName().getStringRef().str()
                       : "arg";
  return op + "_" + std::to_string(fallbackIndex);
}

FailureOr<func::FuncOp> findEntryFunction(ModuleOp module) {
  func::FuncOp entry, onlyPublic;
  int publicCount = 0;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.getName() == "main")
      entry = f;
    if (f.isPublic() && !f.isExternal()) {
      onlyPublic = f;
      ++publicCount;
    }
  }
  if (entry)
    return entry;
  if (publicCount == 1)
    return onlyPublic;
  return module.emitError("no entry function: expected @main or exactly one "
                          "public function");
}

/// Checks that a host tensor can be the value of `type`. With
/// `allowDynamic`, a `?` dim of `type` matches any size (a result whose
/// shape depends on input values).
static LogicalResult checkTensorMatches(Location loc, StringRef what,
                                        const Tensor &t, Type type,
                                        bool allowDynamic = false) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || (!allowDynamic && !ranked.hasStaticShape()))
    return emitError(loc) << what << ": expected a static tensor type, got "
                          << type;
  std::optional<DType> want = top::dtypeOf(ranked.getElementType());
  if (!want)
    return emitError(loc) << what << ": unsupported element type "
                          << ranked.getElementType();
  if (t.dtype() != *want)
    return emitError(loc) << what << " has dtype " << dtypeName(t.dtype())
                          << " but " << dtypeName(*want) << " is expected";
  std::vector<int64_t> shape(ranked.getShape().begin(),
                             ranked.getShape().end());
  for (size_t d = 0; d < shape.size() && d < t.shape().size(); ++d)
    if (ShapedType::isDynamic(shape[d]))
      shape[d] = t.shape()[d];
  if (t.shape() != shape)
    return emitError(loc) << what << " has shape " << shapeToString(t.shape())
                          << " but " << shapeToString(shape)
                          << " is expected";
  return success();
}

/// True if `value` is a ranked tensor whose `?` dims depend on input values
/// (NonZero, Unique, ...) and that is only returned: the interpreter learns
/// its shape when it computes it, and no op needs it before.
static bool isReturnedDataDependent(Value value) {
  return isa<RankedTensorType>(value.getType()) &&
         llvm::all_of(value.getUsers(),
                      [](Operation *user) { return isa<func::ReturnOp>(user); });
}

/// Runs top-shape-infer if some value's shape is unknown, then checks that
/// every tensor in the function has a static shape (except returned
/// data-dependent results, see above).
static LogicalResult ensureStaticShapes(func::FuncOp func) {
  auto allStatic = [&]() -> Operation * {
    Operation *bad = nullptr;
    func.walk([&](Operation *op) {
      for (Value r : op->getResults())
        if (auto tt = dyn_cast<TensorType>(r.getType());
            tt && !tt.hasStaticShape() && !isReturnedDataDependent(r)) {
          bad = op;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return bad;
  };
  if (!allStatic())
    return success();
  PassManager pm(func.getContext(), func::FuncOp::getOperationName());
  pm.addPass(top::createTopShapeInfer());
  if (failed(pm.run(func)))
    return failure();
  if (Operation *bad = allStatic())
    return bad->emitOpError("result shape is still unknown after shape "
                            "inference; the interpreter needs static shapes "
                            "(a result whose shape depends on input values "
                            "may only be returned)");
  return success();
}

FailureOr<TensorMap> interpretModule(ModuleOp module, const TensorMap &inputs,
                                     const TensorMap &weights,
                                     const InterpreterOptions &options) {
  auto entry = findEntryFunction(module);
  if (failed(entry))
    return failure();
  func::FuncOp func = *entry;
  if (func.getBody().getBlocks().size() != 1)
    return func.emitError("the entry function must have a single block");
  if (failed(ensureStaticShapes(func)))
    return failure();
  top::InterpreterEnv env;

  // Inputs.
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string name = inputName(func, i);
    const Tensor *t = inputs.find(name);
    if (!t)
      return func.emitError() << "missing input '" << name << "'";
    if (failed(checkTensorMatches(func.getLoc(), "input '" + name + "'", *t,
                                  arg.getType())))
      return failure();
    env.set(arg, *t);
  }
  for (const auto &[name, t] : inputs) {
    bool known = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      known |= inputName(func, i) == name;
    if (!known)
      return func.emitError() << "unknown input '" << name
                              << "' (the function has no such argument)";
  }

  // Weights.
  WalkResult loaded = func.walk([&](top::WeightOp w) {
    const Tensor *t = weights.find(w.getName().str());
    if (!t) {
      w.emitOpError() << "weight '" << w.getName()
                      << "' is missing from the weight file";
      return WalkResult::interrupt();
    }
    if (failed(checkTensorMatches(w.getLoc(),
                                  "weight '" + w.getName().str() + "'", *t,
                                  w.getType())))
      return WalkResult::interrupt();
    env.set(w.getOutput(), *t);
    return WalkResult::advance();
  });
  if (loaded.wasInterrupted())
    return failure();

  // Remaining uses of each value, so that dead intermediates are freed.
  llvm::DenseMap<Value, unsigned> usesLeft;
  Block &body = func.getBody().front();
  for (Operation &op : body)
    for (Value operand : op.getOperands())
      ++usesLeft[operand];

  TensorMap result;
  unsigned counter = 0;
  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        result.set(outputName(func, i), env.get(v));
      break;
    }
    if (isa<top::WeightOp>(op))
      continue;
    auto iface = dyn_cast<top::InterpretableOpInterface>(op);
    if (!iface)
      return op.emitOpError("has no reference semantics");
    if (failed(iface.interpret(env)))
      return failure();
    for (Value r : op.getResults()) {
      if (isa<NoneType>(r.getType()))
        continue;
      if (!env.has(r))
        return op.emitOpError("produced no value for result #")
               << cast<OpResult>(r).getResultNumber();
      if (failed(checkTensorMatches(op.getLoc(), "result", env.get(r),
                                    r.getType(), /*allowDynamic=*/true)))
        return failure();
      if (options.dumpAll)
        result.set(valueName(r, counter++), env.get(r));
    }
    if (!options.dumpAll)
      for (Value operand : op.getOperands())
        if (--usesLeft[operand] == 0)
          env.erase(operand);
  }
  return result;
}

} // namespace strata
