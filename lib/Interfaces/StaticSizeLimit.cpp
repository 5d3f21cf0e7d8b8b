//===- StaticSizeLimit.cpp - static tensor types within the limit ---------===//

#include "strata/Interfaces/StaticSizeLimit.h"
#include "strata/Interfaces/NodeOrigin.h"
#include "strata/Support/Limits.h"
#include "strata/Support/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

using namespace mlir;

namespace strata {

/// The element count of `type` if it is a static tensor type over the
/// element limit (-1 when it overflows int64), else 0.
static int64_t overLimit(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.hasStaticShape())
    return 0;
  std::vector<int64_t> shape(ranked.getShape().begin(),
                             ranked.getShape().end());
  if (checkedNumElements(shape, limits().maxElements))
    return 0;
  return checkedNumElements(shape).value_or(-1);
}

static LogicalResult report(Location loc, const std::string &what, Type type,
                            int64_t count) {
  auto ranked = cast<RankedTensorType>(type);
  std::vector<int64_t> shape(ranked.getShape().begin(),
                             ranked.getShape().end());
  return emitError(loc) << what << originSuffix(loc) << " has static shape "
                        << shapeToString(shape) << " with "
                        << (count < 0 ? std::string("more than 2^63")
                                      : std::to_string(count))
                        << " elements, more than the element limit of "
                        << formatElementLimit()
                        << " (--max-elements raises it)";
}

LogicalResult checkStaticSizeLimit(Operation *root) {
  WalkResult walk = root->walk([&](Operation *op) {
    std::string opName = "'" + op->getName().getStringRef().str() + "'";
    for (OpResult r : op->getResults())
      if (int64_t n = overLimit(r.getType())) {
        (void)report(op->getLoc(),
                     "result #" + std::to_string(r.getResultNumber()) +
                         " of " + opName,
                     r.getType(), n);
        return WalkResult::interrupt();
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          if (int64_t n = overLimit(a.getType())) {
            (void)report(op->getLoc(),
                         "argument #" + std::to_string(a.getArgNumber()) +
                             " of " + opName,
                         a.getType(), n);
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace strata
