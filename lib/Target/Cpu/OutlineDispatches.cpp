//===- OutlineDispatches.cpp - one dispatch function per Top op -----------===//
//
// Turns the entry function into the model's dispatch list: each op that
// computes moves into a private function and is replaced by a call.
//
//===----------------------------------------------------------------------===//

#include "strata/Target/Cpu/Passes.h"

#include "strata/Conversion/TopToLinalg/TopToLinalg.h"
#include "strata/Target/Cpu/KernelDispatch.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopTable16Op.h"
#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Interpreter/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// Whether the runtime's `range` kernel computes this element type: the
/// integers of 8 to 64 bits, f32 and f64.
static bool isRangeKernelType(Type t) {
  Type e = getElementTypeOrSelf(t);
  if (auto i = dyn_cast<IntegerType>(e))
    return i.getWidth() >= 8 && i.getWidth() <= 64;
  return e.isF32() || e.isF64();
}

/// Ops whose result shape depends on input values: the runtime decides it
/// (a dispatch with `strata.result_bounds`).
static bool isRuntimeShapeOp(Operation *op) {
  if (auto range = dyn_cast<top::RangeOp>(op))
    if (!isRangeKernelType(range.getStart().getType()))
      return false;
  return isa<top::NonZeroOp, top::UniqueOp, top::NonMaxSuppressionOp,
             top::RangeOp>(op) &&
         llvm::any_of(op->getResultTypes(), [](Type t) {
           auto r = dyn_cast<RankedTensorType>(t);
           return !r || !r.hasStaticShape();
         });
}

/// A Loop whose scan outputs' length is its run-time trip count: scan
/// results of type `[?, static...]` yielded as static slices with elements,
/// static carried values. Its dispatch gives each scan output a buffer of
/// `maxScanLength` rows and its length (strata.runtime_shape_results).
static bool isRuntimeTripLoop(Operation *op) {
  auto loop = dyn_cast<top::LoopOp>(op);
  if (!loop || loop.getNumScanOutputs() == 0)
    return false;
  size_t numCarried = loop.getInitial().size();
  Operation *yield = loop.getBody().front().getTerminator();
  bool dynamicScan = false;
  for (auto [k, r] : llvm::enumerate(loop->getResults())) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    if (!t)
      return false;
    if (k < numCarried) {
      if (!t.hasStaticShape() || t.getNumElements() == 0)
        return false;
      continue;
    }
    auto slice = dyn_cast<RankedTensorType>(yield->getOperand(1 + k).getType());
    if (!slice || !slice.hasStaticShape() || slice.getNumElements() == 0 ||
        t.getRank() != slice.getRank() + 1 ||
        t.getShape().drop_front() != slice.getShape())
      return false;
    dynamicScan |= ShapedType::isDynamic(t.getDimSize(0));
  }
  return dynamicScan;
}

static bool isRuntimeConsumer(Operation *op);

/// The dims decided at run time of `v`, a result of an outlined dispatch
/// listed in its strata.runtime_shape_results; empty otherwise.
static SmallVector<int64_t> runtimeDimsOf(Value v) {
  auto call = v.getDefiningOp<func::CallOp>();
  if (!call)
    return {};
  auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  auto marks =
      fn ? fn->getAttrOfType<ArrayAttr>(kRuntimeShapeResultsAttr) : nullptr;
  for (Attribute a : marks ? marks.getValue() : ArrayRef<Attribute>()) {
    ArrayRef<int64_t> m = cast<DenseI64ArrayAttr>(a).asArrayRef();
    if (m[0] == cast<OpResult>(v).getResultNumber())
      return SmallVector<int64_t>(m.drop_front(2));
  }
  return {};
}

/// Whether `v` is an outlined dispatch's result with a run-time shape.
static bool isBoundedRuntimeValue(Value v) { return !runtimeDimsOf(v).empty(); }

/// The position of `v` among a dispatch's arguments.
static size_t argIndexOf(const llvm::SetVector<Value> &args, Value v) {
  return std::distance(args.begin(), llvm::find(args, v));
}

/// Whether `v`'s shape is decided at run time: a dynamic result of a
/// run-time-shape op, of a run-time-trip Loop or of an elementwise op on
/// such a value.
static bool isRuntimeShapedValue(Value v) {
  Operation *def = v.getDefiningOp();
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return def && t && !t.hasStaticShape() &&
         (isRuntimeShapeOp(def) || isRuntimeTripLoop(def) ||
          isRuntimeConsumer(def));
}

/// An elementwise op with one result of the same rank as its one operand
/// with a run-time shape, every other operand a one-element tensor of no
/// higher rank: it maps a compact row-major prefix to the same prefix, so it
/// is compiled over the operand's bound and its result shares its dims.
static bool isRuntimeConsumer(Operation *op) {
  if (!op->hasTrait<top::OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return false;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  int runtimeOperands = 0;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !result)
      return false;
    if (isRuntimeShapedValue(v) || isBoundedRuntimeValue(v)) {
      ++runtimeOperands;
      if (t.getRank() != result.getRank())
        return false;
    } else if (!t.hasStaticShape() || t.getNumElements() != 1 ||
               t.getRank() > result.getRank()) {
      return false;
    }
  }
  return runtimeOperands == 1;
}

/// The element count of a static shape, or nullopt.
static std::optional<int64_t> staticNumel(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  return t.getNumElements();
}

/// A static upper bound of each result shape of a run-time-shape op, or
/// failure with an error on `op`. A result with a static shape is its own
/// bound.
static FailureOr<SmallVector<SmallVector<int64_t>>>
resultBounds(Operation *op, int64_t maxRangeElements) {
  SmallVector<SmallVector<int64_t>> bounds;
  for (Type t : op->getResultTypes()) {
    auto r = dyn_cast<RankedTensorType>(t);
    if (!r) {
      op->emitError() << "has a result of unranked type " << t;
      return failure();
    }
    bounds.push_back(SmallVector<int64_t>(r.getShape()));
  }
  auto needStatic = [&](Value v, StringRef what) -> std::optional<int64_t> {
    std::optional<int64_t> n = staticNumel(v);
    if (!n)
      op->emitError() << "operand '" << what << "' has type " << v.getType()
                      << ", not a static shape; compile with --input-shapes";
    return n;
  };
  auto fill = [&](unsigned result, ArrayRef<int64_t> bound) {
    for (auto [i, d] : llvm::enumerate(bounds[result]))
      if (ShapedType::isDynamic(d))
        d = bound[i];
  };
  if (auto nz = dyn_cast<top::NonZeroOp>(op)) {
    std::optional<int64_t> n = needStatic(nz.getInput(), "input");
    if (!n)
      return failure();
    int64_t rank = cast<RankedTensorType>(nz.getInput().getType()).getRank();
    fill(0, {rank, *n});
  } else if (auto u = dyn_cast<top::UniqueOp>(op)) {
    std::optional<int64_t> n = needStatic(u.getInput(), "input");
    if (!n)
      return failure();
    auto in = cast<RankedTensorType>(u.getInput().getType());
    int64_t dim = *n;
    SmallVector<int64_t> y{*n};
    if (u.getHasAxis()) {
      int64_t axis = u.getAxis() < 0 ? u.getAxis() + in.getRank() : u.getAxis();
      if (axis < 0 || axis >= in.getRank()) {
        op->emitError() << "attribute 'axis' = " << u.getAxis()
                        << " is out of range for rank " << in.getRank();
        return failure();
      }
      dim = in.getDimSize(axis);
      y.assign(in.getShape().begin(), in.getShape().end());
    }
    fill(0, y);
    fill(1, {dim});
    fill(2, {dim});
    fill(3, {dim});
  } else if (auto nms = dyn_cast<top::NonMaxSuppressionOp>(op)) {
    auto boxes = dyn_cast<RankedTensorType>(nms.getBoxes().getType());
    auto scores = dyn_cast<RankedTensorType>(nms.getScores().getType());
    if (!boxes || !scores || !boxes.hasStaticShape() ||
        !scores.hasStaticShape() || boxes.getRank() != 3 ||
        scores.getRank() != 3) {
      op->emitError() << "needs static 3-D boxes and scores";
      return failure();
    }
    int64_t perClass = boxes.getDimSize(1);
    if (auto w = nms.getMaxOutputBoxesPerClass().getDefiningOp<top::WeightOp>())
      if (std::optional<Tensor> m = top::weightValue(w);
          m && m->numElements() == 1)
        perClass = std::min(perClass, std::max<int64_t>(m->getAsInt(0), 0));
    int64_t rows;
    if (__builtin_mul_overflow(boxes.getDimSize(0), scores.getDimSize(1),
                               &rows) ||
        __builtin_mul_overflow(rows, perClass, &rows)) {
      op->emitError() << "the bound of its result overflows";
      return failure();
    }
    fill(0, {rows, 3});
  } else if (isa<top::RangeOp>(op)) {
    fill(0, {maxRangeElements});
  }
  return bounds;
}

/// `v`'s value when it is a top.Weight carrying a one-element integer or
/// i1 value, as a DenseElementsAttr of its type; null otherwise.
static DenseElementsAttr scalarIntConstant(Value v) {
  auto w = v ? v.getDefiningOp<top::WeightOp>() : top::WeightOp();
  auto type = w ? dyn_cast<RankedTensorType>(w.getType()) : nullptr;
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !type.getElementType().isSignlessInteger())
    return {};
  std::optional<Tensor> t = top::weightValue(w);
  if (!t || t->numElements() != 1)
    return {};
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  return DenseElementsAttr::get(type, APInt(width, uint64_t(t->getAsInt(0)),
                                            /*isSigned=*/true,
                                            /*implicitTrunc=*/true));
}

/// The name suffix for an op: `top.Conv` -> `Conv`.
static std::string opSuffix(Operation *op) {
  return op->getName().stripDialect().str();
}

struct OutlineDispatchesPass
    : impl::CpuOutlineDispatchesBase<OutlineDispatchesPass> {
  using Base::Base;
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

    // A run-time-shape op whose bounds have no elements (an empty input)
    // has static, empty results: nothing to decide at run time.
    for (Operation &op : main.getBody().front()) {
      if (!isRuntimeShapeOp(&op))
        continue;
      FailureOr<SmallVector<SmallVector<int64_t>>> bounds =
          resultBounds(&op, maxRangeElements);
      if (failed(bounds))
        return signalPassFailure();
      if (llvm::any_of(*bounds, [](ArrayRef<int64_t> b) {
            return !llvm::is_contained(b, 0);
          }))
        continue;
      for (auto [r, b] : llvm::zip(op.getResults(), *bounds))
        r.setType(RankedTensorType::get(
            b, cast<ShapedType>(r.getType()).getElementType()));
    }

    // Every value must have a static shape, but the results of the ops
    // whose output shape depends on the input values (entry block only):
    // the runtime decides those. Any op reading such a value is an error.
    Block &body = main.getBody().front();
    bool dynamic = false;
    main.walk([&](Operation *op) {
      bool runtimeShaped = isRuntimeShapeOp(op) ||
                           ((isRuntimeTripLoop(op) || isRuntimeConsumer(op)) &&
                            op->getBlock() == &body);
      if (auto range = dyn_cast<top::RangeOp>(op);
          range && !runtimeShaped &&
          !cast<TensorType>(range.getType()).hasStaticShape()) {
        op->emitError() << "'top.Range' has no CPU code-generation lowering "
                           "yet for element type "
                        << getElementTypeOrSelf(range.getType())
                        << " with run-time bounds (its kernel computes "
                           "integers, f32 and f64; run the model with "
                           "strata run-ref)";
        dynamic = true;
        return;
      }
      if (runtimeShaped && op->getBlock() != &body) {
        op->emitError() << "'" << op->getName()
                        << "' inside a control-flow region has no CPU "
                           "code-generation lowering yet: its output shape "
                           "depends on the input values (run the model with "
                           "strata run-ref)";
        dynamic = true;
        return;
      }
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && isRuntimeShapedValue(v) && !isa<func::ReturnOp>(op) &&
            !(isRuntimeConsumer(op) && op->getBlock() == &body)) {
          op->emitError() << "'" << op->getName()
                          << "' has no CPU code-generation lowering yet for "
                             "an operand whose shape is decided at run time "
                             "by '"
                          << def->getName() << "' at " << def->getLoc()
                          << " (such a value can be returned or read by an "
                             "elementwise op; run the model with strata "
                             "run-ref)";
          dynamic = true;
          return;
        }
      if (runtimeShaped)
        return;
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
      // (A top.Table16 alone is a chain too: its kernel is the only
      // lowering it has.)
      if (chain.empty() || (chain.size() < 2 && !isa<top::Table16Op>(op)))
        continue;
      for (Operation *member : chain)
        if (member != op)
          fused.insert(member);
      chains[op] = std::move(chain);
    }
    // An NPU multi-op dispatch (docs/npu.md, "Multi-op dispatches"): an op
    // marked npu.dispatch_group is outlined with its only user, at the
    // user's place; a user itself marked goes on with its own user (a
    // conv, its add and a table: one dispatch at the table's place).
    llvm::DenseMap<Operation *, SmallVector<Operation *>> npuGroups;
    for (Operation *op : ops) {
      if (!op->hasAttr("npu.dispatch_group") || op->getNumResults() != 1 ||
          !op->getResult(0).hasOneUse())
        continue;
      Operation *user = *op->getResult(0).getUsers().begin();
      if (user->getBlock() != &body || npuGroups.count(user) ||
          fused.contains(user) || chains.count(user))
        continue;
      fused.insert(op);
      SmallVector<Operation *> members{op};
      if (auto it = npuGroups.find(op); it != npuGroups.end()) {
        members = std::move(it->second);
        npuGroups.erase(it);
      }
      members.push_back(user);
      npuGroups[user] = std::move(members);
    }
    for (Operation *op : ops) {
      if (auto it = npuGroups.find(op); it != npuGroups.end()) {
        if (failed(outlineGroup(it->second, moduleBuilder, count++)))
          return signalPassFailure();
        continue;
      }
      if (auto it = chains.find(op); it != chains.end()) {
        func::FuncOp fn;
        if (failed(outlineGroup(it->second, moduleBuilder, count++, &fn)))
          return signalPassFailure();
        fn->setAttr(kFuseElementwiseAttr, moduleBuilder.getUnitAttr());
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
      if (failed(outline(op, requant, moduleBuilder, count++)))
        return signalPassFailure();
    }
    // A run-time-trip Loop's scan outputs are returned as their bounds.
    main.setType(FunctionType::get(&getContext(), main.getArgumentTypes(),
                                   terminator->getOperandTypes()));
  }

  /// Rebuilds `loop` (inside dispatch `fn`, built by `b`) with its scan
  /// outputs bounded to maxScanLength rows (kScanBoundAttr) and an i64
  /// counter carried last: the iterations run. Returns the dispatch's
  /// results: carried values, bounded scan outputs, and per scan output its
  /// dims `[count, slice...]` (i64); marks `fn` with
  /// strata.runtime_shape_results.
  SmallVector<Value> boundRuntimeTripLoop(top::LoopOp loop, OpBuilder &b,
                                          func::FuncOp fn) {
    Location loc = loop.getLoc();
    size_t numCarried = loop.getInitial().size();
    unsigned numScan = loop.getNumScanOutputs();
    auto i64 = RankedTensorType::get({}, b.getI64Type());
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i64, b.getI64IntegerAttr(0).getValue()));
    Value one = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i64, b.getI64IntegerAttr(1).getValue()));
    SmallVector<Value> operands(loop->getOperands());
    operands.push_back(zero);
    SmallVector<Type> types;
    for (size_t k = 0; k < numCarried; ++k)
      types.push_back(loop->getResult(k).getType());
    types.push_back(i64);
    for (unsigned s = 0; s < numScan; ++s) {
      auto t =
          cast<RankedTensorType>(loop->getResult(numCarried + s).getType());
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = maxScanLength;
      types.push_back(RankedTensorType::get(shape, t.getElementType()));
    }
    OperationState state(loc, loop->getName());
    state.addOperands(operands);
    state.addTypes(types);
    state.addAttributes(loop->getAttrs());
    state.addAttribute(conversion::kScanBoundAttr,
                       b.getI64IntegerAttr(maxScanLength));
    state.addRegion();
    Operation *bounded = b.create(state);
    bounded->getRegion(0).takeBody(loop.getBody());
    Block &body = bounded->getRegion(0).front();
    Value counter = body.insertArgument(2 + numCarried, i64, loc);
    Operation *yield = body.getTerminator();
    OpBuilder yb(yield);
    Value next = top::AddOp::create(yb, loc, i64, counter, one);
    yield->insertOperands(1 + numCarried, next);
    loop->erase();

    SmallVector<Value> results;
    for (size_t k = 0; k < numCarried; ++k)
      results.push_back(bounded->getResult(k));
    for (unsigned s = 0; s < numScan; ++s)
      results.push_back(bounded->getResult(numCarried + 1 + s));
    Value count = tensor::ExtractOp::create(
        b, loc, bounded->getResult(numCarried), ValueRange());
    SmallVector<Attribute> marks;
    for (unsigned s = 0; s < numScan; ++s) {
      auto t = cast<RankedTensorType>(results[numCarried + s].getType());
      SmallVector<Value> dims{count};
      for (int64_t d : t.getShape().drop_front())
        dims.push_back(arith::ConstantIntOp::create(b, loc, b.getI64Type(), d));
      marks.push_back(b.getDenseI64ArrayAttr(
          {int64_t(numCarried + s), int64_t(numCarried + numScan + s), 0}));
      results.push_back(tensor::FromElementsOp::create(
          b, loc, RankedTensorType::get({t.getRank()}, b.getI64Type()), dims));
    }
    fn->setAttr(kRuntimeShapeResultsAttr, b.getArrayAttr(marks));
    return results;
  }

  /// Moves `op` (and `tail`, when given: the only user of op's only
  /// result) into a new function and calls it in op's place.
  LogicalResult outline(Operation *op, Operation *tail,
                        OpBuilder &moduleBuilder, unsigned number) {
    SmallVector<Operation *> group = {op};
    if (tail)
      group.push_back(tail);
    return outlineGroup(group, moduleBuilder, number);
  }

  /// Moves `group` (ops in block order whose results, but the last op's,
  /// are used only inside the group) into a new function and calls it in
  /// the last op's place. The dispatch is named after the first op; the
  /// run-time shape cases apply to single-op groups only. `outlined`, when
  /// given, receives the new function.
  LogicalResult outlineGroup(ArrayRef<Operation *> group,
                             OpBuilder &moduleBuilder, unsigned number,
                             func::FuncOp *outlined = nullptr) {
    Operation *op = group.front();
    llvm::SmallPtrSet<Operation *, 4> inGroup(group.begin(), group.end());
    FailureOr<SmallVector<SmallVector<int64_t>>> bounds;
    if (isRuntimeShapeOp(op)) {
      bounds = resultBounds(op, maxRangeElements);
      if (failed(bounds))
        return failure();
    }
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
    // A Loop's one-element integer trip count and condition, when constant,
    // stay constants inside its dispatch (an arith.constant): the Loop
    // lowering needs a compile-time trip count for scan outputs.
    llvm::SmallDenseMap<Value, DenseElementsAttr> constantsInside;
    if (auto loop = dyn_cast<top::LoopOp>(op))
      for (Value v : {loop.getMaxTripCount(), loop.getCond()})
        if (DenseElementsAttr c = scalarIntConstant(v)) {
          args.remove(v);
          constantsInside[v] = c;
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
    if (isRuntimeShapeOp(op)) {
      SmallVector<Attribute> attrs;
      for (unsigned i : returned)
        attrs.push_back(moduleBuilder.getDenseI64ArrayAttr((*bounds)[i]));
      fn->setAttr(kResultBoundsAttr, moduleBuilder.getArrayAttr(attrs));
    }
    Block *entry = fn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    IRMapping map;
    for (auto [v, a] : llvm::zip(args, entry->getArguments()))
      map.map(v, a);
    for (auto [v, c] : constantsInside)
      map.map(v, arith::ConstantOp::create(b, loc, c).getResult());
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
    // Results whose shape is decided at run time leave the dispatch as their
    // bounds (static types), listed in strata.runtime_shape_results.
    SmallVector<Attribute> marks;
    if (isRuntimeTripLoop(op)) {
      results = boundRuntimeTripLoop(cast<top::LoopOp>(clone), b, fn);
    } else if (isRuntimeShapeOp(op)) {
      for (auto [j, r] : llvm::enumerate(results)) {
        auto t = cast<RankedTensorType>(r.getType());
        if (t.hasStaticShape())
          continue;
        SmallVector<int64_t> mark{int64_t(j), -1};
        for (auto [d, dim] : llvm::enumerate(t.getShape()))
          if (ShapedType::isDynamic(dim))
            mark.push_back(d);
        marks.push_back(b.getDenseI64ArrayAttr(mark));
        r = tensor::CastOp::create(
            b, loc,
            RankedTensorType::get((*bounds)[returned[j]], t.getElementType()),
            r);
      }
    } else if (isRuntimeConsumer(op)) {
      // Computed over the bound of its run-time operand k (already a
      // static bound in the entry function), sharing its dims.
      for (auto [k, v] : llvm::enumerate(op->getOperands())) {
        if (!isRuntimeShapedValue(v) && !isBoundedRuntimeValue(v))
          continue;
        auto arg = cast<RankedTensorType>(map.lookup(v).getType());
        auto t = cast<RankedTensorType>(clone->getResult(0).getType());
        clone->getResult(0).setType(
            RankedTensorType::get(arg.getShape(), t.getElementType()));
        SmallVector<int64_t> mark{0, -2 - int64_t(argIndexOf(args, v))};
        llvm::append_range(mark, runtimeDimsOf(v));
        marks.push_back(b.getDenseI64ArrayAttr(mark));
      }
    }
    if (!marks.empty())
      fn->setAttr(kRuntimeShapeResultsAttr, b.getArrayAttr(marks));
    {
      SmallVector<Type> types;
      for (Value r : results)
        types.push_back(r.getType());
      fn.setType(moduleBuilder.getFunctionType(argTypes, types));
    }
    func::ReturnOp::create(b, loc, results);

    OpBuilder callBuilder(last);
    auto call = func::CallOp::create(callBuilder, loc, fn, args.getArrayRef());
    if (isRuntimeTripLoop(op)) {
      // Carried values and scan outputs (as their bounds); the lengths are
      // the call's last results.
      for (OpResult r : op->getResults()) {
        r.replaceAllUsesWith(call.getResult(r.getResultNumber()));
      }
      op->erase();
      return success();
    }
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
    if (outlined)
      *outlined = fn;
    return success();
  }
};

} // namespace
} // namespace strata::cpu
