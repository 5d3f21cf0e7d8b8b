//===- Signal.cpp ---------------------------------------------------------===//

#include "Utils.h"

using namespace mlir;

namespace strata::conversion {

void populateTopToLinalgSignalPatterns(const TopTypeConverter &,
                                      RewritePatternSet &) {}

} // namespace strata::conversion
