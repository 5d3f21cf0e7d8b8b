//===- Linear.cpp - Top MatMul, Conv, Deconv and the pools to linalg ===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

using namespace mlir;

namespace strata::conversion {

void populateTopToLinalgLinearPatterns(const TopTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace strata::conversion
