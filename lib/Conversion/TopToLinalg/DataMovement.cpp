//===- DataMovement.cpp - Top reshapes, transposes, concatenation, slices, pads, gathers and scatters to linalg ===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

using namespace mlir;

namespace strata::conversion {

void populateTopToLinalgDataMovementPatterns(const TopTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace strata::conversion
