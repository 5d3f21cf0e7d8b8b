//===- Reduction.cpp - Top Reduce, ArgMax, Softmax, LogSoftmax, the norms and Cumulative to linalg ===//

#include "Utils.h"

#include "strata/Dialect/Top/IR/TopOps.h"

using namespace mlir;

namespace strata::conversion {

void populateTopToLinalgReductionPatterns(const TopTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  (void)converter;
  (void)patterns;
}

} // namespace strata::conversion
