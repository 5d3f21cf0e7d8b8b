//===- ConvertElementwise.cpp - TFLite arithmetic and activations ---------===//
//
// The Elementwise family (TopElementwiseOps.td): ADD, SUB, MUL, DIV (with
// their fused activations), MAXIMUM, MINIMUM, POW, SQUARED_DIFFERENCE,
// SQUARE, the comparisons, SELECT/SELECT_V2, and the unary ops and
// activations. Computed in f32; quantized operands are
// dequantized and the result quantized to the output's type.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

namespace strata::tflite_import {
namespace {

Type f32(OpContext &c) { return Float32Type::get(c.context()); }

tflite::ActivationFunctionType binaryActivation(OpContext &c) {
  switch (c.code()) {
  case tflite::BuiltinOperator_ADD:
    if (auto *o = c.op()->builtin_options_as_AddOptions())
      return o->fused_activation_function();
    break;
  case tflite::BuiltinOperator_SUB:
    if (auto *o = c.op()->builtin_options_as_SubOptions())
      return o->fused_activation_function();
    break;
  case tflite::BuiltinOperator_MUL:
    if (auto *o = c.op()->builtin_options_as_MulOptions())
      return o->fused_activation_function();
    break;
  case tflite::BuiltinOperator_DIV:
    if (auto *o = c.op()->builtin_options_as_DivOptions())
      return o->fused_activation_function();
    break;
  default:
    break;
  }
  return tflite::ActivationFunctionType_NONE;
}

LogicalResult requireInputs(OpContext &c, size_t n) {
  if (c.numInputs() < n)
    return c.error() << "has " << c.numInputs() << " inputs, expected " << n;
  return success();
}

template <typename OpTy> LogicalResult convertBinary(OpContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  auto a = c.floatInput(0), b = c.floatInput(1);
  if (failed(a) || failed(b))
    return failure();
  auto y = c.create<OpTy>(f32(c), *a, *b);
  return c.setFloatOutput(0, c.fusedActivation(y, binaryActivation(c)));
}

LogicalResult convertSquaredDifference(OpContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  auto a = c.floatInput(0), b = c.floatInput(1);
  if (failed(a) || failed(b))
    return failure();
  auto d = c.create<SubOp>(f32(c), *a, *b);
  if (failed(d))
    return failure();
  return c.setFloatOutput(0, c.create<MulOp>(f32(c), *d, *d));
}

template <typename OpTy> LogicalResult convertUnary(OpContext &c) {
  if (failed(requireInputs(c, 1)))
    return failure();
  auto x = c.floatInput(0);
  if (failed(x))
    return failure();
  return c.setFloatOutput(0, c.create<OpTy>(f32(c), *x));
}

template <int lo, int hi> LogicalResult convertClip(OpContext &c) {
  if (failed(requireInputs(c, 1)))
    return failure();
  auto x = c.floatInput(0);
  if (failed(x))
    return failure();
  OpBuilder &b = c.builder();
  return c.setFloatOutput(0, c.create<ClipOp>(f32(c), *x, b.getF64FloatAttr(lo),
                                              b.getF64FloatAttr(hi)));
}

LogicalResult convertLeakyRelu(OpContext &c) {
  auto *o = c.op()->builtin_options_as_LeakyReluOptions();
  auto x = c.floatInput(0);
  if (failed(x))
    return failure();
  return c.setFloatOutput(
      0, c.create<LeakyReluOp>(
             f32(c), *x, c.builder().getF64FloatAttr(o ? o->alpha() : 0.2)));
}

LogicalResult convertPRelu(OpContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  auto x = c.floatInput(0), s = c.floatInput(1);
  if (failed(x) || failed(s))
    return failure();
  return c.setFloatOutput(0, c.create<PReluOp>(f32(c), *x, *s));
}

LogicalResult convertGelu(OpContext &c) {
  auto *o = c.op()->builtin_options_as_GeluOptions();
  auto x = c.floatInput(0);
  if (failed(x))
    return failure();
  auto mode = GeluApproximationAttr::get(
      c.context(), o && o->approximate() ? GeluApproximation::Tanh
                                         : GeluApproximation::None);
  return c.setFloatOutput(0, c.create<GeluOp>(f32(c), *x, mode));
}

template <CompareMode mode> LogicalResult convertCompare(OpContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  auto a = c.dataInput(0), b = c.dataInput(1);
  if (failed(a) || failed(b))
    return failure();
  auto y = c.create<CompareOp>(c.builder().getI1Type(), *a, *b,
                               CompareModeAttr::get(c.context(), mode));
  if (failed(y))
    return failure();
  return c.setOutput(0, *y);
}

LogicalResult convertSelect(OpContext &c) {
  if (failed(requireInputs(c, 3)))
    return failure();
  auto cond = c.input(0), x = c.dataInput(1), y = c.dataInput(2);
  if (failed(cond) || failed(x) || failed(y))
    return failure();
  Type e = cast<ShapedType>(x->getType()).getElementType();
  auto r = c.create<WhereOp>(e, *cond, *x, *y);
  if (failed(r))
    return failure();
  if (isa<FloatType>(e))
    return c.setFloatOutput(0, r);
  return c.setOutput(0, *r);
}

LogicalResult convertSquare(OpContext &c) {
  auto x = c.floatInput(0);
  if (failed(x))
    return failure();
  return c.setFloatOutput(0, c.create<MulOp>(f32(c), *x, *x));
}

const ConverterEntry kElementwise[] = {
    {tflite::BuiltinOperator_LESS, convertCompare<CompareMode::Less>},
    {tflite::BuiltinOperator_LESS_EQUAL,
     convertCompare<CompareMode::LessOrEqual>},
    {tflite::BuiltinOperator_GREATER, convertCompare<CompareMode::Greater>},
    {tflite::BuiltinOperator_GREATER_EQUAL,
     convertCompare<CompareMode::GreaterOrEqual>},
    {tflite::BuiltinOperator_EQUAL, convertCompare<CompareMode::Equal>},
    {tflite::BuiltinOperator_NOT_EQUAL, convertCompare<CompareMode::NotEqual>},
    {tflite::BuiltinOperator_SELECT, convertSelect},
    {tflite::BuiltinOperator_SELECT_V2, convertSelect},
    {tflite::BuiltinOperator_SQUARE, convertSquare},
    {tflite::BuiltinOperator_ADD, convertBinary<AddOp>},
    {tflite::BuiltinOperator_SUB, convertBinary<SubOp>},
    {tflite::BuiltinOperator_MUL, convertBinary<MulOp>},
    {tflite::BuiltinOperator_DIV, convertBinary<DivOp>},
    {tflite::BuiltinOperator_MAXIMUM, convertBinary<MaxOp>},
    {tflite::BuiltinOperator_MINIMUM, convertBinary<MinOp>},
    {tflite::BuiltinOperator_POW, convertBinary<PowOp>},
    {tflite::BuiltinOperator_SQUARED_DIFFERENCE, convertSquaredDifference},
    {tflite::BuiltinOperator_LOGISTIC, convertUnary<SigmoidOp>},
    {tflite::BuiltinOperator_TANH, convertUnary<TanhOp>},
    {tflite::BuiltinOperator_RELU, convertUnary<ReluOp>},
    {tflite::BuiltinOperator_RELU6, convertClip<0, 6>},
    {tflite::BuiltinOperator_RELU_N1_TO_1, convertClip<-1, 1>},
    {tflite::BuiltinOperator_RELU_0_TO_1, convertClip<0, 1>},
    {tflite::BuiltinOperator_HARD_SWISH, convertUnary<HardSwishOp>},
    {tflite::BuiltinOperator_LEAKY_RELU, convertLeakyRelu},
    {tflite::BuiltinOperator_PRELU, convertPRelu},
    {tflite::BuiltinOperator_GELU, convertGelu},
    {tflite::BuiltinOperator_EXP, convertUnary<ExpOp>},
    {tflite::BuiltinOperator_LOG, convertUnary<LogOp>},
    {tflite::BuiltinOperator_SQRT, convertUnary<SqrtOp>},
    {tflite::BuiltinOperator_RSQRT, convertUnary<RsqrtOp>},
    {tflite::BuiltinOperator_ABS, convertUnary<AbsOp>},
    {tflite::BuiltinOperator_NEG, convertUnary<NegOp>},
};

} // namespace

ArrayRef<ConverterEntry> elementwiseConverters() { return kElementwise; }

} // namespace strata::tflite_import
