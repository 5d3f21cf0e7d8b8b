//===- Executor.cpp - the dialect-neutral reference interpreter -----------===//

#include "strata/Interpreter/Executor.h"
#include "strata/Interfaces/HostTypes.h"
#include "strata/Interfaces/NodeOrigin.h"
#include "strata/Interfaces/ShapeInferenceOpInterface.h"
#include "strata/Support/Limits.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace strata {

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

//===----------------------------------------------------------------------===//
// One op
//===----------------------------------------------------------------------===//

namespace {
/// Operands from a run: the shapes and elements of their tensors.
class TensorShapeContext final : public ShapeContext {
public:
  explicit TensorShapeContext(const InterpreterEnv &env) : env(env) {}
  SmallVector<int64_t> shape(Value value) const override {
    const std::vector<int64_t> &s = env.get(value).shape();
    return SmallVector<int64_t>(s.begin(), s.end());
  }
  const Tensor *tensor(Value value) const override { return env.find(value); }

private:
  const InterpreterEnv &env;
};
} // namespace

/// The shape of every result of `op` for the operand tensors in `env`: the
/// op's shape rule when it has one, else its declared types (dims they leave
/// open stay dynamic). A rule that disagrees with a declared static dim is
/// an error: the model is inconsistent with these inputs.
static LogicalResult computeResultShapes(Operation *op,
                                         const InterpreterEnv &env,
                                         SmallVectorImpl<SmallVector<int64_t>> &shapes) {
  if (auto iface = dyn_cast<ShapeInferenceOpInterface>(op)) {
    if (failed(iface.inferShapes(TensorShapeContext(env), shapes)) ||
        failed(checkInferredDims(op, shapes)))
      return failure();
    if (shapes.size() != op->getNumResults())
      return op->emitOpError() << "shape inference produced " << shapes.size()
                               << " shapes for " << op->getNumResults()
                               << " results";
  } else {
    for (Type t : op->getResultTypes()) {
      auto ranked = dyn_cast<RankedTensorType>(t);
      shapes.emplace_back(ranked ? SmallVector<int64_t>(ranked.getShape())
                                 : SmallVector<int64_t>());
    }
  }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    auto declared = dyn_cast<RankedTensorType>(result.getType());
    if (!declared || !isa<ShapedType>(result.getType()))
      continue;
    ArrayRef<int64_t> want = declared.getShape();
    bool ok = want.size() == shapes[i].size();
    for (size_t d = 0; ok && d < want.size(); ++d) {
      if (ShapedType::isDynamic(shapes[i][d]))
        shapes[i][d] = want[d]; // the type may know what the rule cannot
      ok = ShapedType::isDynamic(want[d]) || want[d] == shapes[i][d];
    }
    if (!ok)
      return op->emitOpError()
             << "result #" << i << " would have shape "
             << formatInts(shapes[i]) << " for these inputs, but its type is "
             << result.getType();
  }
  return success();
}

/// Runs `iface.interpret`, turning a failed tensor allocation (over the
/// element limit or out of memory) into an error naming the op and its value:
/// no allocation failure leaves the interpreter as an exception.
static LogicalResult
interpretCatchingAllocationFailure(Operation *op,
                                   InterpretableOpInterface iface,
                                   InterpreterEnv &env) {
  std::string problem, detail;
  try {
    return iface.interpret(env);
  } catch (const TensorAllocationError &e) {
    problem = describe(e);
  } catch (const std::bad_alloc &) {
    // A container of the op's own: its size is unknown, its results' is.
    problem = "out of memory";
    uint64_t bytes = 0;
    for (Value r : op->getResults())
      if (std::optional<DType> t = dtypeOfValue(r);
          t && env.hasResultShape(r))
        bytes += static_cast<uint64_t>(
                     checkedNumElements(env.resultShape(r)).value_or(0)) *
                 dtypeSize(*t);
    if (bytes)
      detail = "; its results take " + formatBytes(bytes);
  }
  return op->emitError() << problem << " for op '" << op->getName() << "'"
                         << originSuffix(op->getLoc()) << detail;
}

LogicalResult interpretOp(Operation *op, InterpreterEnv &env) {
  auto iface = dyn_cast<InterpretableOpInterface>(op);
  if (!iface)
    return op->emitOpError("has no reference semantics");
  // Every error below, and those of the op's own semantics, names the
  // model node the op comes from.
  OriginDiagnostics origin(op);
  SmallVector<SmallVector<int64_t>> shapes;
  if (failed(computeResultShapes(op, env, shapes)))
    return failure();
  for (auto [i, result, shape] :
       llvm::enumerate(op->getResults(), shapes)) {
    if (!isa<TensorType>(result.getType()) ||
        llvm::any_of(shape, ShapedType::isDynamic))
      continue;
    std::vector<int64_t> dims(shape.begin(), shape.end());
    if (!checkedNumElements(dims, limits().maxElements))
      return op->emitOpError()
             << "result #" << i << " would have shape " << shapeToString(dims)
             << ", more than " << formatElementLimit()
             << " elements, the element limit (--max-elements raises it)";
    env.setResultShape(result, std::move(dims));
  }
  if (failed(interpretCatchingAllocationFailure(op, iface, env)))
    return failure();
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (isa<NoneType>(result.getType()))
      continue;
    const Tensor *t = env.find(result);
    if (!t)
      return op->emitOpError("produced no value for result #") << i;
    if (failed(checkTensorFitsType(op->getLoc(), "result #" + Twine(i), *t,
                                   result.getType())))
      return failure();
    if (!env.hasResultShape(result))
      continue;
    if (env.resultShape(result) != t->shape())
      return op->emitOpError()
             << "produced result #" << i << " of shape "
             << shapeToString(t->shape()) << " but its shape rule gives "
             << shapeToString(env.resultShape(result));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Executor
//===----------------------------------------------------------------------===//

Executor::Executor(InterpreterEnv &env, TensorMap *dump)
    : env(env), dump(dump) {
  env.setRegionRunner([this](Region &region, ArrayRef<Tensor> args) {
    return runRegion(region, args);
  });
}

Executor::~Executor() { env.setRegionRunner(nullptr); }

void Executor::bindConstant(Value value, Tensor tensor) {
  constants.insert(value);
  env.set(value, std::move(tensor));
}

bool Executor::isConstant(Operation &op) const {
  return op.getNumResults() > 0 &&
         llvm::all_of(op.getResults(),
                      [&](Value r) { return constants.contains(r); });
}

LogicalResult Executor::bindArguments(Block &block, ArrayRef<Tensor> args) {
  Operation *parent = block.getParentOp();
  if (block.getNumArguments() != args.size())
    return parent->emitOpError()
           << "region takes " << block.getNumArguments() << " arguments but "
           << args.size() << " were given";
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    if (failed(checkTensorFitsType(parent->getLoc(),
                                   "region argument #" + Twine(i), args[i],
                                   arg.getType())))
      return failure();
    env.set(arg, args[i]);
  }
  return success();
}

LogicalResult Executor::runCall(Operation &op) {
  auto call = cast<CallOpInterface>(op);
  auto callable = dyn_cast_or_null<CallableOpInterface>(call.resolveCallable());
  Region *body = callable ? callable.getCallableRegion() : nullptr;
  if (!body || body->empty())
  {
    auto callee = dyn_cast<SymbolRefAttr>(call.getCallableForCallee());
    return op.emitOpError()
           << "calls '" << (callee ? callee.getLeafReference().str() : "a value") << "'"
           << ", which is not a function with a body";
  }
  if (!body->hasOneBlock())
    return callable->emitError("a called function must have a single block");
  // Calls nest on the C++ stack; a recursive model would never end.
  if (callDepth >= 64)
    return op.emitOpError("nests calls more than 64 deep (recursion?)");
  std::vector<Tensor> args;
  for (Value v : call.getArgOperands())
    args.push_back(env.get(v));
  ++callDepth;
  auto results = runRegion(*body, args);
  --callDepth;
  if (failed(results))
    return failure();
  if (results->size() != op.getNumResults())
    return op.emitOpError() << "the callee returns " << results->size()
                            << " values for " << op.getNumResults()
                            << " results";
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    if (failed(checkTensorFitsType(op.getLoc(),
                                   "result #" + Twine(i) + " of the call",
                                   (*results)[i], r.getType())))
      return failure();
    env.set(r, std::move((*results)[i]));
  }
  return success();
}

LogicalResult Executor::runOp(Operation &op) {
  if (isConstant(op))
    return success(); // bound before the run
  if (isa<CallOpInterface>(op))
    return runCall(op);
  return interpretOp(&op, env);
}

LogicalResult Executor::collectYield(Operation &terminator,
                                     std::vector<Tensor> &results) {
  for (Value v : terminator.getOperands()) {
    const Tensor *t = env.find(v);
    if (!t)
      return terminator.emitOpError("returns a value that was never computed");
    results.push_back(*t);
  }
  return success();
}

FailureOr<std::vector<Tensor>> Executor::runRegion(Region &region,
                                                   ArrayRef<Tensor> args) {
  if (!region.hasOneBlock())
    return region.getParentOp()->emitOpError("region must have one block");
  Block &block = region.front();
  std::vector<Tensor> results;
  LogicalResult status = bindArguments(block, args);
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
    for (Value r : op->getResults())
      if (!constants.contains(r)) // bound once for the whole run
        env.erase(r);
  });
  if (failed(status))
    return failure();
  return results;
}

FailureOr<std::vector<Tensor>> Executor::runFunction(Region &body,
                                                     ArrayRef<Tensor> args) {
  if (!body.hasOneBlock())
    return body.getParentOp()->emitOpError("must have a single block");
  Block &block = body.front();
  if (failed(bindArguments(block, args)))
    return failure();
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
  std::vector<Tensor> results;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (failed(collectYield(op, results)))
        return failure();
      return results;
    }
    bool constant = isConstant(op);
    if (failed(runOp(op)))
      return failure();
    if (dump) {
      if (!constant)
        for (Value r : op.getResults())
          if (const Tensor *t = env.find(r))
            dump->set(valueName(r, dumpCounter++), *t);
      continue;
    }
    for (Value operand : usesOf[&op])
      if (--usesLeft[operand] == 0 && !constants.contains(operand))
        env.erase(operand);
  }
  return body.getParentOp()->emitOpError("has a body without a terminator");
}

} // namespace strata
