//===- Interpreter.cpp - reference interpreter for Top IR -----------------===//

#include "strata/Interpreter/Interpreter.h"
#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"

#include "strata/Dialect/Top/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"
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

/// Checks that a host tensor can be the value of `type`.
static LogicalResult checkTensorMatches(Location loc, StringRef what,
                                        const Tensor &t, Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
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
  if (t.shape() != shape)
    return emitError(loc) << what << " has shape " << shapeToString(t.shape())
                          << " but " << shapeToString(shape)
                          << " is expected";
  return success();
}

/// Runs top-shape-infer if some value's shape is unknown. Shapes it cannot
/// give (they depend on tensor values: a Loop's iteration count, ...) are
/// found at run time by the Executor.
static LogicalResult inferStaticShapes(func::FuncOp func) {
  WalkResult dynamic = func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto tt = dyn_cast<TensorType>(t); tt && !tt.hasStaticShape())
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (!dynamic.wasInterrupted())
    return success();
  PassManager pm(func.getContext(), func::FuncOp::getOperationName());
  pm.addPass(top::createTopShapeInfer());
  return pm.run(func);
}

namespace {
/// Executes blocks of Top IR on host tensors through each op's
/// InterpretableOpInterface, regions (If, Loop, Scan bodies) through the
/// environment's region runner, and `func.call` by running the callee.
///
/// Dynamic shapes: when a value's type has dynamic dims (or no rank), the
/// executor checks the tensor computed for it against what the type does
/// give and then sets the value's type to the tensor's static type, so that
/// the ops using it infer static result shapes before they run (their
/// reference semantics read result shapes from the IR). Every such
/// refinement is logged and undone: after each run of a region (a loop body
/// may see other shapes in its next iteration) and when the executor ends.
class Executor {
public:
  Executor(top::InterpreterEnv &env, const InterpreterOptions &options,
           TensorMap &dump)
      : env(env), options(options), dump(dump) {
    env.setRegionRunner([this](Region &region, ArrayRef<Tensor> args) {
      return runRegion(region, args);
    });
  }
  ~Executor() {
    restoreTypes(0);
    env.setRegionRunner(nullptr);
  }

  /// Runs the entry block: frees each value after its last use (unless every
  /// value is dumped) and dumps intermediates when asked.
  LogicalResult runEntryBlock(Block &block, std::vector<Tensor> &results);
  /// Checks that `t` can be the value of `v`, refines `v`'s type if it is not
  /// static, and binds it.
  LogicalResult bind(Value v, Tensor t, Location loc, const Twine &what);

private:
  FailureOr<std::vector<Tensor>> runRegion(Region &region,
                                           ArrayRef<Tensor> args);
  LogicalResult runOp(Operation &op);
  LogicalResult runCall(func::CallOp call);
  /// Gives results that shape inference can now fix a static type.
  LogicalResult refineResultTypes(Operation &op);
  LogicalResult collectYield(Operation &terminator,
                             std::vector<Tensor> &results);
  void setType(Value v, Type type) {
    log.emplace_back(v, v.getType());
    v.setType(type);
  }
  void restoreTypes(size_t mark) {
    while (log.size() > mark) {
      log.back().first.setType(log.back().second);
      log.pop_back();
    }
  }

  top::InterpreterEnv &env;
  const InterpreterOptions &options;
  TensorMap &dump;
  unsigned dumpCounter = 0;
  unsigned callDepth = 0;
  SmallVector<std::pair<Value, Type>> log;
};
} // namespace

LogicalResult Executor::bind(Value v, Tensor t, Location loc,
                             const Twine &what) {
  Type type = v.getType();
  auto tensorType = dyn_cast<TensorType>(type);
  if (tensorType && !tensorType.hasStaticShape()) {
    std::optional<DType> want = top::dtypeOf(tensorType.getElementType());
    if (!want)
      return emitError(loc) << what << ": unsupported element type "
                            << tensorType.getElementType();
    if (t.dtype() != *want)
      return emitError(loc) << what << " has dtype " << dtypeName(t.dtype())
                            << " but " << dtypeName(*want) << " is expected";
    if (tensorType.hasRank()) {
      bool ok = tensorType.getRank() == t.rank();
      for (int64_t d = 0; ok && d < t.rank(); ++d)
        ok = tensorType.isDynamicDim(d) || tensorType.getDimSize(d) == t.dim(d);
      if (!ok)
        return emitError(loc) << what << " has shape "
                              << shapeToString(t.shape()) << " but its type is "
                              << type;
    }
    setType(v, RankedTensorType::get(t.shape(), tensorType.getElementType()));
  } else if (failed(checkTensorMatches(loc, what.str(), t, type))) {
    return failure();
  }
  env.set(v, std::move(t));
  return success();
}

LogicalResult Executor::refineResultTypes(Operation &op) {
  bool dynamic = llvm::any_of(op.getResultTypes(), [](Type t) {
    auto tt = dyn_cast<TensorType>(t);
    return tt && !tt.hasStaticShape();
  });
  if (!dynamic)
    return success();
  auto iface = dyn_cast<top::ShapeInferenceOpInterface>(op);
  if (!iface)
    return success();
  for (Value operand : op.getOperands())
    if (!top::isNone(operand) && !top::hasStaticShape(operand))
      return success();
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(iface.inferShapes(shapes)))
    return failure();
  for (auto [r, shape] : llvm::zip(op.getResults(), shapes)) {
    auto tt = dyn_cast<TensorType>(r.getType());
    if (tt && !tt.hasStaticShape() &&
        llvm::none_of(shape, ShapedType::isDynamic))
      setType(r, RankedTensorType::get(shape, tt.getElementType()));
  }
  return success();
}

LogicalResult Executor::runCall(func::CallOp call) {
  auto callee =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  if (!callee || callee.isExternal())
    return call.emitOpError() << "calls '" << call.getCallee()
                              << "', which is not a function with a body";
  if (callee.getBody().getBlocks().size() != 1)
    return callee.emitError("a called function must have a single block");
  // Calls nest on the C++ stack; a recursive model would never end.
  if (callDepth >= 64)
    return call.emitOpError("nests calls more than 64 deep (recursion?)");
  std::vector<Tensor> args;
  for (Value v : call.getOperands())
    args.push_back(env.get(v));
  ++callDepth;
  auto results = runRegion(callee.getBody(), args);
  --callDepth;
  if (failed(results))
    return failure();
  for (auto [i, r] : llvm::enumerate(call.getResults()))
    if (failed(bind(r, std::move((*results)[i]), call.getLoc(),
                    "result #" + Twine(i) + " of the call")))
      return failure();
  return success();
}

LogicalResult Executor::runOp(Operation &op) {
  if (auto call = dyn_cast<func::CallOp>(op))
    return runCall(call);
  if (isa<top::WeightOp>(op))
    return success(); // bound before the run
  auto iface = dyn_cast<top::InterpretableOpInterface>(op);
  if (!iface)
    return op.emitOpError("has no reference semantics");
  if (failed(refineResultTypes(op)))
    return failure();
  if (failed(iface.interpret(env)))
    return failure();
  for (Value r : op.getResults()) {
    if (isa<NoneType>(r.getType()))
      continue;
    if (!env.has(r))
      return op.emitOpError("produced no value for result #")
             << cast<OpResult>(r).getResultNumber();
    Tensor t = env.get(r);
    if (failed(bind(r, std::move(t), op.getLoc(), "result")))
      return failure();
  }
  return success();
}

LogicalResult Executor::collectYield(Operation &terminator,
                                     std::vector<Tensor> &results) {
  for (Value v : terminator.getOperands()) {
    if (!env.has(v))
      return terminator.emitOpError("returns a value that was never computed");
    results.push_back(env.get(v));
  }
  return success();
}

FailureOr<std::vector<Tensor>> Executor::runRegion(Region &region,
                                                   ArrayRef<Tensor> args) {
  if (!region.hasOneBlock())
    return region.getParentOp()->emitOpError("region must have one block");
  Block &block = region.front();
  if (block.getNumArguments() != args.size())
    return region.getParentOp()->emitOpError()
           << "region takes " << block.getNumArguments() << " arguments but "
           << args.size() << " were given";
  size_t mark = log.size();
  std::vector<Tensor> results;
  LogicalResult status = success();
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    status = bind(arg, args[i], region.getParentOp()->getLoc(),
                  "region argument #" + Twine(i));
    if (failed(status))
      break;
  }
  if (succeeded(status))
    for (Operation &op : block) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        status = collectYield(op, results);
        break;
      }
      if (failed(status = runOp(op)))
        break;
    }
  // The region's values are dead once it has yielded.
  for (BlockArgument arg : block.getArguments())
    env.erase(arg);
  region.walk([&](Operation *op) {
    if (!isa<top::WeightOp>(op)) // weights are bound once for the whole run
      for (Value r : op->getResults())
        env.erase(r);
  });
  restoreTypes(mark);
  if (failed(status))
    return failure();
  return results;
}

LogicalResult Executor::runEntryBlock(Block &block,
                                      std::vector<Tensor> &results) {
  // Remaining uses of each value (uses inside an op's regions count for the
  // op), so that dead intermediates are freed.
  llvm::DenseMap<Value, unsigned> usesLeft;
  llvm::DenseMap<Operation *, SmallVector<Value>> usesOf;
  for (Operation &op : block) {
    SmallVector<Value> &uses = usesOf[&op];
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *owner = operand.getParentRegion()->getParentOp();
        if (nested == &op || !op.isAncestor(owner))
          uses.push_back(operand);
      }
    });
    for (Value v : uses)
      ++usesLeft[v];
  }
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return collectYield(op, results);
    if (failed(runOp(op)))
      return failure();
    if (options.dumpAll) {
      for (Value r : op.getResults())
        if (!isa<NoneType>(r.getType()) && !isa<top::WeightOp>(op))
          dump.set(valueName(r, dumpCounter++), env.get(r));
      continue;
    }
    for (Value operand : usesOf[&op])
      if (--usesLeft[operand] == 0)
        env.erase(operand);
  }
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
  if (failed(inferStaticShapes(func)))
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

  // Weights, in every function (called functions and regions included).
  WalkResult loaded = module.walk([&](top::WeightOp w) {
    if (auto value = w.getValueAttr()) {
      FailureOr<Tensor> inline_ = top::tensorFromElements(value, w.getLoc());
      if (failed(inline_))
        return WalkResult::interrupt();
      env.set(w.getOutput(), *inline_);
      return WalkResult::advance();
    }
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

  TensorMap result;
  std::vector<Tensor> outputs;
  {
    Executor executor(env, options, result);
    if (failed(executor.runEntryBlock(func.getBody().front(), outputs)))
      return failure();
  }
  for (auto [i, t] : llvm::enumerate(outputs))
    result.set(outputName(func, i), std::move(t));
  return result;
}

} // namespace strata
