//===- Geometry.cpp ---------------------------------------------------------===//

#include "Utils.h"

using namespace mlir;

namespace strata::conversion {

void populateTopToLinalgGeometryPatterns(const TopTypeConverter &,
                                      RewritePatternSet &) {}

} // namespace strata::conversion
