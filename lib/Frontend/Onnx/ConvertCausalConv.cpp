//===- ConvertCausalConv.cpp - ONNX CausalConvWithState -------------------===//
//
// CausalConvWithState (opset 27; Mamba, Gated DeltaNet) is the three-op
// pattern it replaces, exactly: the past state (zeros when absent) joined in
// front of the input along the length, a depthwise Conv without padding,
// SiLU when `activation` asks for it, and the last k - 1 positions of the
// joined input as the present state.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

LogicalResult convertCausalConvWithState(NodeContext &c) {
  auto x = c.requireShape(0);
  auto w = c.requireShape(1);
  auto activation = c.attrString("activation", "none");
  if (failed(x) || failed(w) || failed(activation))
    return failure();
  if (*activation != "none" && *activation != "silu" &&
      *activation != "swish")
    return c.error() << "attribute 'activation' = '" << *activation
                     << "' must be 'none', 'silu' or 'swish'";
  if (x->size() != 3)
    return c.error() << "input 'input' must have rank 3 (batch, channels, "
                        "length), got shape "
                     << formatArray(*x);
  int64_t batch = (*x)[0], channels = (*x)[1], length = (*x)[2];
  if (w->size() != 3 || (*w)[0] != channels || (*w)[1] != 1 || (*w)[2] < 1)
    return c.error() << "input 'weight' must have shape [" << channels
                     << ", 1, k] with k >= 1, got " << formatArray(*w);
  int64_t k = (*w)[2];
  Type elem = c.inputElementType(0);
  if (c.inputElementType(1) != elem)
    return c.error() << "input 'weight' has element type "
                     << c.inputElementType(1) << ", input 'input' " << elem;
  if (c.hasInput(2)) {
    auto b = c.requireShape(2);
    if (failed(b))
      return failure();
    if (*b != std::vector<int64_t>{channels})
      return c.error() << "input 'bias' must have shape [" << channels
                       << "], got " << formatArray(*b);
  }
  std::vector<int64_t> stateShape{batch, channels, k - 1};
  Value past;
  if (c.hasInput(3)) {
    auto p = c.requireShape(3);
    if (failed(p))
      return failure();
    if (*p != stateShape)
      return c.error() << "input 'past_state' must have shape "
                       << formatArray(stateShape) << ", got "
                       << formatArray(*p);
    past = c.input(3);
  } else {
    auto dt = dtypeOf(elem);
    if (!dt)
      return c.error() << "element type " << elem << " is not supported";
    Tensor zeros(*dt, stateShape); // zero-initialized
    past = c.constant(zeros, "past_state");
  }
  OpBuilder &b = c.builder();
  auto padded = c.create<ConcatOp>(elem, ValueRange{past, c.input(0)},
                                   b.getI64IntegerAttr(2));
  if (failed(padded))
    return failure();
  NamedAttribute attrs[] = {
      b.getNamedAttr("kernel_shape", b.getDenseI64ArrayAttr({k})),
      b.getNamedAttr("group", b.getI64IntegerAttr(channels))};
  auto conv = c.create<ConvOp>(
      elem, ValueRange{*padded, c.input(1), c.hasInput(2) ? c.input(2) : c.none()},
      ArrayRef<NamedAttribute>(attrs));
  if (failed(conv))
    return failure();
  Value y = *conv;
  if (*activation != "none") {
    auto s = c.create<SiLUOp>(elem, y);
    if (failed(s))
      return failure();
    y = *s;
  }
  c.setOutput(0, y);
  if (c.hasOutput(1)) {
    int64_t end = length + k - 1;
    auto state = c.create<SliceOp>(
        elem, *padded, b.getDenseI64ArrayAttr({length}),
        b.getDenseI64ArrayAttr({end}), b.getDenseI64ArrayAttr({2}),
        DenseI64ArrayAttr());
    if (failed(state))
      return failure();
    c.setOutput(1, *state);
  }
  return success();
}

} // namespace

llvm::ArrayRef<ConverterEntry> causalConvConverters() {
  static const ConverterEntry table[] = {
      {"CausalConvWithState", convertCausalConvWithState},
  };
  return table;
}

} // namespace strata::onnx_import
