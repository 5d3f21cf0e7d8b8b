//===- RuntimeShapes.cpp - plan the kernels of run-time-shape dispatches --===//

#include "strata/Target/Cpu/RuntimeShapes.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Target/Cpu/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace strata::cpu {

using namespace mlir;
using Binding = RuntimeShapeKernelPlan::Binding;

namespace {
/// The rank limit of the kernels' shape params (lib/Runtime/CpuShapeKernels).
constexpr int64_t kMaxKernelRank = 8;

std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "' at " << op->getLoc();
  return s;
}
} // namespace

FailureOr<RuntimeShapeKernelPlan> planRuntimeShapeKernel(
    func::FuncOp fn,
    llvm::function_ref<std::optional<int64_t>(Type)> dtypeNumber,
    std::string &error) {
  Operation *op = nullptr;
  for (Operation &o : fn.getBody().front())
    if (isa<top::NonZeroOp, top::UniqueOp, top::NonMaxSuppressionOp,
            top::RangeOp>(o))
      op = &o;
  auto boundsAttr = fn->getAttrOfType<ArrayAttr>(kResultBoundsAttr);
  if (!op || !boundsAttr || boundsAttr.size() != fn.getNumResults() ||
      fn.getNumResults() != op->getNumResults()) {
    error = "internal: dispatch '" + fn.getSymName().str() +
            "' has no run-time-shape op or its bounds do not match its "
            "results";
    return failure();
  }
  std::string what = describe(op);
  RuntimeShapeKernelPlan plan;
  for (auto [i, a] : llvm::enumerate(boundsAttr)) {
    auto b = dyn_cast<DenseI64ArrayAttr>(a);
    auto t = cast<RankedTensorType>(fn.getResultTypes()[i]);
    if (!b || b.size() != t.getRank()) {
      error = "internal: bad result bound of " + what;
      return failure();
    }
    plan.bounds.emplace_back(b.asArrayRef().begin(), b.asArrayRef().end());
    plan.runtime.push_back(false);
  }
  // The results the kernel decides the shape of (strata.runtime_shape_results
  // entries whose dims come from the kernel itself, -1).
  if (auto marks = fn->getAttrOfType<ArrayAttr>(kRuntimeShapeResultsAttr))
    for (Attribute a : marks) {
      auto m = dyn_cast<DenseI64ArrayAttr>(a);
      if (m && m.size() >= 2 && m[1] == -1 && m[0] >= 0 &&
          m[0] < int64_t(plan.runtime.size()))
        plan.runtime[m[0]] = true;
    }
  // The function argument an operand is; -1 for an absent optional.
  auto argOf = [&](Value v, int &arg) -> LogicalResult {
    if (auto ba = dyn_cast<BlockArgument>(v);
        ba && ba.getOwner() == &fn.getBody().front()) {
      arg = ba.getArgNumber();
      return success();
    }
    if (isa<NoneType>(v.getType())) {
      arg = -1;
      return success();
    }
    error = what + ": an operand with no elements is not compiled";
    return failure();
  };
  auto dtypeOfValue = [&](Value v, int64_t &d) -> LogicalResult {
    Type elem = cast<ShapedType>(v.getType()).getElementType();
    std::optional<int64_t> n = dtypeNumber(elem);
    if (!n) {
      std::string ty;
      llvm::raw_string_ostream os(ty);
      os << elem;
      error = what + ": element type " + ty + " is not computed";
      return failure();
    }
    d = *n;
    // The kernels read the byte-sized types and the 4/2-bit integers, not
    // the float8/float4 encodings (artifact dtypes above U2 = 17).
    if (d > 17) {
      error = what + ": element type is not computed by its kernel";
      return failure();
    }
    return success();
  };
  // (rank, d0..d7) of a static shape.
  auto shapeParams = [&](ArrayRef<int64_t> shape) -> LogicalResult {
    if (int64_t(shape.size()) > kMaxKernelRank) {
      error = what + ": rank " + std::to_string(shape.size()) +
              " is above the kernel's " + std::to_string(kMaxKernelRank);
      return failure();
    }
    plan.params.push_back(shape.size());
    for (int64_t i = 0; i < kMaxKernelRank; ++i)
      plan.params.push_back(i < int64_t(shape.size()) ? shape[i] : 0);
    return success();
  };
  auto needRuntime = [&](unsigned r) -> LogicalResult {
    if (plan.runtime[r])
      return success();
    error = "internal: result " + std::to_string(r) + " of " + what +
            " has a static shape";
    return failure();
  };

  int64_t dtype;
  if (auto nz = dyn_cast<top::NonZeroOp>(op)) {
    int x;
    auto in = cast<RankedTensorType>(nz.getInput().getType());
    if (failed(argOf(nz.getInput(), x)) ||
        failed(dtypeOfValue(nz.getInput(), dtype)) || failed(needRuntime(0)))
      return failure();
    plan.kernel = "nonzero";
    plan.params.push_back(dtype);
    if (failed(shapeParams(in.getShape())))
      return failure();
    plan.bindings = {{Binding::Operand, unsigned(x)},
                     {Binding::Result, 0},
                     {Binding::Dims, 0}};
  } else if (auto u = dyn_cast<top::UniqueOp>(op)) {
    int x;
    auto in = cast<RankedTensorType>(u.getInput().getType());
    if (failed(argOf(u.getInput(), x)) ||
        failed(dtypeOfValue(u.getInput(), dtype)) || failed(needRuntime(0)) ||
        failed(needRuntime(1)) || failed(needRuntime(3)))
      return failure();
    SmallVector<int64_t> shape{in.getNumElements()};
    int64_t axis = 0;
    if (u.getHasAxis()) {
      shape.assign(in.getShape().begin(), in.getShape().end());
      axis = u.getAxis() < 0 ? u.getAxis() + in.getRank() : u.getAxis();
    }
    plan.kernel = "unique";
    plan.params = {dtype, u.getSorted() ? 1 : 0, axis};
    if (failed(shapeParams(shape)))
      return failure();
    plan.bindings = {{Binding::Operand, unsigned(x)},
                     {Binding::Result, 0},
                     {Binding::Result, 1},
                     {Binding::Result, 2},
                     {Binding::Result, 3},
                     {Binding::Dims, 0},
                     {Binding::Dims, 1},
                     {Binding::Dims, 3}};
  } else if (auto nms = dyn_cast<top::NonMaxSuppressionOp>(op)) {
    if (failed(needRuntime(0)))
      return failure();
    plan.kernel = "nms";
    Value operands[] = {nms.getBoxes(), nms.getScores(),
                        nms.getMaxOutputBoxesPerClass(), nms.getIouThreshold(),
                        nms.getScoreThreshold()};
    int args[5];
    int64_t dtypes[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k < 5; ++k) {
      if (failed(argOf(operands[k], args[k])))
        return failure();
      if (args[k] >= 0 && failed(dtypeOfValue(operands[k], dtypes[k])))
        return failure();
      // An absent optional: bind the boxes, unread.
      plan.bindings.push_back(
          {Binding::Operand, unsigned(args[k] >= 0 ? args[k] : args[0])});
    }
    if (args[0] < 0 || args[1] < 0) {
      error = what + ": boxes and scores are required";
      return failure();
    }
    auto boxes = cast<RankedTensorType>(nms.getBoxes().getType());
    auto scores = cast<RankedTensorType>(nms.getScores().getType());
    plan.params = {dtypes[0],
                   dtypes[1],
                   dtypes[2],
                   dtypes[3],
                   dtypes[4],
                   boxes.getDimSize(0),
                   boxes.getDimSize(1),
                   scores.getDimSize(1),
                   int64_t(nms.getCenterPointBox()),
                   args[2] >= 0,
                   args[3] >= 0,
                   args[4] >= 0,
                   plan.bounds[0][0]};
    plan.bindings.push_back({Binding::Result, 0});
    plan.bindings.push_back({Binding::Dims, 0});
  } else {
    auto range = cast<top::RangeOp>(op);
    int s, l, d;
    if (failed(argOf(range.getStart(), s)) ||
        failed(argOf(range.getLimit(), l)) ||
        failed(argOf(range.getDelta(), d)) ||
        failed(dtypeOfValue(range.getStart(), dtype)) || failed(needRuntime(0)))
      return failure();
    if (dtype == 2 || dtype == 3 || dtype >= 13) { // f16, bf16, bool, narrow
      error = what + ": Range of this element type is not computed";
      return failure();
    }
    plan.kernel = "range";
    plan.params = {dtype, plan.bounds[0][0]};
    plan.bindings = {{Binding::Operand, unsigned(s)},
                     {Binding::Operand, unsigned(l)},
                     {Binding::Operand, unsigned(d)},
                     {Binding::Result, 0},
                     {Binding::Dims, 0}};
  }
  return plan;
}

} // namespace strata::cpu
