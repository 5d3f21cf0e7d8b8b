//===- OutlineDispatches.cpp - one dispatch function per Top op -----------===//
//
// Turns the entry function into the model's dispatch list: each op that
// computes moves into a private function and is replaced by a call.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "strata/Target/Cpu/KernelDispatch.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace strata::cpu {

#define GEN_PASS_DEF_CPUOUTLINEDISPATCHES
#include "strata/Target/Cpu/Passes.h.inc"

using namespace mlir;

namespace {

/// Ops that only reinterpret their operand's bytes with another static
/// shape.
static bool isViewOp(Operation *op) {
  if (!isa<top::ReshapeOp, top::SqueezeOp, top::UnsqueezeOp>(op) ||
      op->getNumResults() != 1)
    return false;
  auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return in && out && in.hasStaticShape() && out.hasStaticShape() &&
         in.getElementType() == out.getElementType();
}

/// Whether `v` is a weight or a dispatch result, or a view of one, that is
/// not returned: a view of it can share its bytes (a returned value lives in
/// the caller's output buffer, whose shape is the output's).
static bool isViewableRoot(Value v, Operation *terminator) {
  auto returned = [&](Value x) {
    return llvm::is_contained(x.getUsers(), terminator);
  };
  Operation *def = v.getDefiningOp();
  while (def && isViewOp(def)) {
    if (returned(v))
      return false;
    v = def->getOperand(0);
    def = v.getDefiningOp();
  }
  return def && isa<top::WeightOp, func::CallOp>(def) && !returned(v);
}

/// Whether `v` is a tensor with no elements (it carries no bytes; the
/// lowering to bare pointers cannot take one as an argument either).
static bool isEmptyTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() && t.getNumElements() == 0;
}

/// The name suffix for an op: `top.Conv` -> `Conv`.
static std::string opSuffix(Operation *op) {
  return op->getName().stripDialect().str();
}

struct OutlineDispatchesPass
    : impl::CpuOutlineDispatchesBase<OutlineDispatchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> entry = findEntryFunction(module);
    if (failed(entry)) {
      module.emitError("strata-cpu-outline-dispatches: no entry function");
      return signalPassFailure();
    }
    func::FuncOp main = *entry;
    if (!main.getBody().hasOneBlock()) {
      main.emitError("the entry function must have a single block");
      return signalPassFailure();
    }

    // Every value must have a static shape. The ops whose output shape
    // depends on the input values never get one: say so instead of
    // suggesting --input-shapes.
    bool dynamic = false;
    main.walk([&](Operation *op) {
      if (isa<top::NonZeroOp, top::UniqueOp, top::NonMaxSuppressionOp,
              top::RangeOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "' has no CPU code-generation lowering yet: its "
                           "output shape depends on the input values and the "
                           "CPU target compiles static shapes only (run the "
                           "model with strata run-ref)";
        dynamic = true;
        return;
      }
      for (Value r : op->getResults()) {
        auto t = dyn_cast<TensorType>(r.getType());
        if (t && !t.hasStaticShape()) {
          op->emitError() << "result " << cast<OpResult>(r).getResultNumber()
                          << " has type " << t
                          << ", not a static shape; compile with "
                             "--input-shapes to fix the inputs' shapes";
          dynamic = true;
        }
      }
    });
    if (dynamic)
      return signalPassFailure();

    Block &body = main.getBody().front();
    // Weights inside the regions of a control-flow op (an If branch's
    // constant) move to the entry block, before that op: its dispatch then
    // takes them as bindings like any other value from above.
    SmallVector<top::WeightOp> nestedWeights;
    main.walk([&](top::WeightOp w) {
      if (w->getBlock() != &body)
        nestedWeights.push_back(w);
    });
    for (top::WeightOp w : nestedWeights) {
      Operation *anchor = w;
      while (anchor->getBlock() != &body)
        anchor = anchor->getParentOp();
      w->moveBefore(anchor);
    }
    Operation *terminator = body.getTerminator();
    OpBuilder moduleBuilder(module.getContext());
    moduleBuilder.setInsertionPoint(main);
    unsigned count = 0;
    // An int8 Conv / MatMul and the Requant of its accumulator share one
    // dispatch (the kernel fuses the Requant; fusableInt8Requant).
    SmallVector<Operation *> ops;
    for (Operation &opRef : body)
      ops.push_back(&opRef);
    llvm::SmallPtrSet<Operation *, 8> fused;
    // An int8 Add or GlobalAvgPool written as Requant / i32 op / Requant
    // chains (docs/quantization.md) is one dispatch, outlined at its last
    // op: its tile loop computes the chain without int32 buffers.
    llvm::DenseMap<Operation *, SmallVector<Operation *>> chains;
    for (Operation *op : ops) {
      SmallVector<Operation *> chain = fusableInt8Chain(op);
      if (chain.size() < 2)
        continue;
      for (Operation *member : chain)
        if (member != op)
          fused.insert(member);
      chains[op] = std::move(chain);
    }
    for (Operation *op : ops) {
      if (auto it = chains.find(op); it != chains.end()) {
        outlineGroup(it->second, moduleBuilder, count++)
            ->setAttr(kFuseElementwiseAttr, moduleBuilder.getUnitAttr());
        continue;
      }
      if (fused.contains(op))
        continue;
      if (op == terminator || isa<top::InputOp, top::WeightOp, top::NoneOp>(op))
        continue;
      if (isViewOp(op) && isViewableRoot(op->getOperand(0), terminator) &&
          llvm::none_of(op->getUsers(),
                        [&](Operation *u) { return u == terminator; }))
        continue;
      Operation *requant = fusableInt8Requant(op);
      if (requant)
        fused.insert(requant);
      outline(op, requant, moduleBuilder, count++);
    }
  }

  /// Moves `op` (and `tail`, when given: the only user of op's only
  /// result) into a new function and calls it in op's place.
  void outline(Operation *op, Operation *tail, OpBuilder &moduleBuilder,
               unsigned number) {
    SmallVector<Operation *> group = {op};
    if (tail)
      group.push_back(tail);
    outlineGroup(group, moduleBuilder, number);
  }

  /// Moves `group` (ops in block order whose results, but the last op's,
  /// are used only inside the group) into a new function and calls it in
  /// the last op's place. The dispatch is named after the first op.
  func::FuncOp outlineGroup(ArrayRef<Operation *> group,
                            OpBuilder &moduleBuilder, unsigned number) {
    Operation *op = group.front();
    llvm::SmallPtrSet<Operation *, 4> inGroup(group.begin(), group.end());
    // Arguments: the operands and the values the regions use from above,
    // except absent optionals and empty tensors (made inside instead).
    llvm::SetVector<Value> args, madeInside;
    auto classify = [&](Value v) {
      if (isa<NoneType>(v.getType()) || isEmptyTensor(v))
        madeInside.insert(v);
      else
        args.insert(v);
    };
    for (Operation *member : group) {
      for (Value v : member->getOperands())
        if (!inGroup.contains(v.getDefiningOp()))
          classify(v);
      for (Region &r : member->getRegions()) {
        llvm::SetVector<Value> above;
        getUsedValuesDefinedAbove(r, above);
        for (Value v : above)
          classify(v);
      }
    }
    // Results: the empty ones are not returned; the entry function gets a
    // tensor.empty for each.
    Operation *last = group.back();
    SmallVector<Type> argTypes, resultTypes;
    SmallVector<unsigned> returned;
    for (OpResult r : last->getResults())
      if (!isEmptyTensor(r)) {
        returned.push_back(r.getResultNumber());
        resultTypes.push_back(r.getType());
      }
    for (Value v : args)
      argTypes.push_back(v.getType());
    Location loc = op->getLoc();
    std::string name =
        "dispatch_" + std::to_string(number) + "_" + opSuffix(op);
    auto fn = func::FuncOp::create(
        moduleBuilder, loc, name,
        moduleBuilder.getFunctionType(argTypes, resultTypes));
    fn.setPrivate();
    fn->setAttr(kDispatchAttr, moduleBuilder.getUnitAttr());
    Block *entry = fn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    IRMapping map;
    for (auto [v, a] : llvm::zip(args, entry->getArguments()))
      map.map(v, a);
    Value none;
    for (Value v : madeInside) {
      if (isa<NoneType>(v.getType())) {
        if (!none)
          none = top::NoneOp::create(b, loc, b.getNoneType());
        map.map(v, none);
      } else {
        auto t = cast<RankedTensorType>(v.getType());
        map.map(v,
                tensor::EmptyOp::create(b, loc, t.getShape(),
                                        t.getElementType(), t.getEncoding()));
      }
    }
    Operation *clone = nullptr;
    for (Operation *member : group)
      clone = b.clone(*member, map);
    SmallVector<Value> results;
    for (unsigned i : returned)
      results.push_back(clone->getResult(i));
    func::ReturnOp::create(b, loc, results);

    OpBuilder callBuilder(last);
    auto call = func::CallOp::create(callBuilder, loc, fn, args.getArrayRef());
    for (auto [i, v] : llvm::enumerate(returned))
      last->getResult(v).replaceAllUsesWith(call.getResult(i));
    for (OpResult r : last->getResults())
      if (isEmptyTensor(r)) {
        auto t = cast<RankedTensorType>(r.getType());
        r.replaceAllUsesWith(
            tensor::EmptyOp::create(callBuilder, loc, t.getShape(),
                                    t.getElementType(), t.getEncoding()));
      }
    for (Operation *member : llvm::reverse(group))
      member->erase();
    return fn;
  }
};

} // namespace
} // namespace strata::cpu
