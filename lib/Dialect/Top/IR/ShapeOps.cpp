//===- ShapeOps.cpp - reshape, permute, concat, ... -----------------------===//

#include "OpImpl.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;
using namespace strata::top::impl;

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferShapes(SmallVectorImpl<SmallVector<int64_t>> &s) {
  SmallVector<int64_t> in = shapeOf(getInput());
  auto inCount = checkedElementCount(*this, in);
  if (failed(inCount))
    return failure();
  SmallVector<int64_t> out(getShape());
  int64_t inferAt = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferAt >= 0)
        return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                             << " has more than one -1";
      inferAt = i;
      continue;
    }
    if (d == 0) {
      if (i >= in.size())
        return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                             << " copies dim " << i << " (0) but the input "
                             << "has rank " << in.size();
      d = in[i];
    }
    if (d < 0)
      return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                           << " has invalid dim " << d << " at index " << i;
    if (d != 0 && known > INT64_MAX / d)
      return emitOpError() << "attribute 'shape' " << formatArray(getShape())
                           << " overflows int64";
    known *= d;
  }
  if (inferAt >= 0) {
    if (known == 0 || *inCount % known != 0)
      return emitOpError() << "cannot reshape " << formatArray(in) << " to "
                           << formatArray(getShape())
                           << ": element count does not divide";
    out[inferAt] = *inCount / known;
  } else if (known != *inCount) {
    return emitOpError() << "cannot reshape " << formatArray(in) << " ("
                         << *inCount << " elements) to "
                         << formatArray(getShape()) << " (" << known
                         << " elements)";
  }
  s.push_back(out);
  return success();
}

int64_t ReshapeOp::getFlops() { return 0; }

LogicalResult ReshapeOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(), env.get(getInput()).reshaped(resultShape(getOutput())));
  return success();
}
