//===- CoreOps.cpp - top.Input, top.Weight, top.None ----------------------===//

#include "OpImpl.h"
#include "strata/Dialect/Top/Shapes/CoreShapes.h"
#include "strata/Dialect/Top/Shapes/ElementwiseShapes.h"

using namespace mlir;
using namespace strata;
using namespace strata::top;

//===----------------------------------------------------------------------===//
// InputOp
//===----------------------------------------------------------------------===//

LogicalResult InputOp::inferShapes(const ShapeContext &ctx,
                                   SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferUnary(ctx.shape(getInput())), s);
}
int64_t InputOp::getFlops() { return 0; }
LogicalResult InputOp::interpret(InterpreterEnv &env) {
  env.set(getOutput(), env.get(getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (getName().empty())
    return emitOpError("attribute 'name' must not be empty");
  if (!dtypeOfValue(getOutput()))
    return emitOpError() << "unsupported element type "
                         << getOutput().getType().getElementType();
  ShapeOr<Shape> declared =
      shapes::inferWeight(getOutput().getType().getShape());
  if (!declared)
    return emitOpError() << declared.error();
  if (auto value = getValueAttr())
    if (value.getShapedType() != getOutput().getType())
      return emitOpError() << "attribute 'value' has type "
                           << value.getShapedType() << ", the result is "
                           << getOutput().getType();
  return success();
}
/// The result's declared type is the weight's shape (the weight file holds
/// a tensor of that shape).
LogicalResult WeightOp::inferShapes(const ShapeContext &,
                                    SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this,
                     shapes::inferWeight(getOutput().getType().getShape()), s);
}
int64_t WeightOp::getFlops() { return 0; }
LogicalResult WeightOp::interpret(InterpreterEnv &env) {
  // The interpreter loads weights from the weight file before running.
  if (!env.has(getOutput()))
    return emitOpError() << "weight '" << getName() << "' was not loaded";
  return success();
}

//===----------------------------------------------------------------------===//
// NoneOp
//===----------------------------------------------------------------------===//

LogicalResult NoneOp::inferShapes(const ShapeContext &,
                                  SmallVectorImpl<SmallVector<int64_t>> &s) {
  return appendShape(*this, shapes::inferNone(), s);
}
int64_t NoneOp::getFlops() { return 0; }
LogicalResult NoneOp::interpret(InterpreterEnv &) { return success(); }
