//===- StaticSizeLimit.h - static tensor types within the limit -*- C++ -*-===//
//
// A model whose static types declare tensors larger than the element limit
// (limits().maxElements) cannot run: it is refused when it is imported or
// read, with an error that names the op, its node and the shape, instead of
// failing later in an allocation.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERFACES_STATICSIZELIMIT_H
#define STRATA_INTERFACES_STATICSIZELIMIT_H

#include "mlir/IR/Operation.h"

namespace strata {

/// Checks every static tensor type of a result or block argument under
/// `root` against the element limit; emits an error for the first one over
/// it ("result #0 of 'top.Expand' (ONNX node 'e' (Expand), value 'y') has
/// static shape [..] with N elements, more than the element limit ...") and
/// fails.
mlir::LogicalResult checkStaticSizeLimit(mlir::Operation *root);

} // namespace strata

#endif // STRATA_INTERFACES_STATICSIZELIMIT_H
