//===- Attention.cpp ---------------------------------------------------------===//

#include "Utils.h"

using namespace mlir;

namespace strata::conversion {

void populateTopToLinalgAttentionPatterns(const TopTypeConverter &,
                                      RewritePatternSet &) {}

} // namespace strata::conversion
