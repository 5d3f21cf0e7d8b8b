#include "Utils.h"
namespace strata::conversion {
void populateTopToLinalgRecurrentPatterns(const TopTypeConverter &,
                                          mlir::RewritePatternSet &) {}
}
