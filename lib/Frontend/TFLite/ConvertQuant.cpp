//===- ConvertQuant.cpp - TFLite QUANTIZE, DEQUANTIZE ---------------------===//
//
// The Quant family (TopQuantOps.td). QUANTIZE of a float tensor is
// top.Quant to the output's `!quant.uniform` type; QUANTIZE of a quantized
// tensor (a requantization) is top.Requant in Float mode. DEQUANTIZE of a
// quantized tensor is top.Dequant; of float16 weights (how TFLite stores
// fp16-quantized models) a widening to f32, folded at import. DENSIFY of a
// sparse constant (expanded when the model is read).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

namespace strata::tflite_import {
namespace {

LogicalResult convertQuantize(OpContext &c) {
  const TensorInfo &in = c.in(0), &out = c.out(0);
  if (!out.quant)
    return c.error() << "output '" << out.name << "' has no quantization "
                     << "parameters";
  if (in.quant) {
    auto x = c.input(0);
    if (failed(x))
      return failure();
    auto t = UnrankedTensorType::get(c.quantType(out));
    auto op = RequantOp::create(
        c.builder(), c.loc(), TypeRange{t}, ValueRange{*x},
        {c.builder().getNamedAttr(
            "quant_mode",
            RequantModeAttr::get(c.context(), RequantMode::Float))});
    auto r = c.finishOp(op.getOperation());
    if (failed(r))
      return failure();
    return c.setOutput(0, (*r)[0]);
  }
  return c.setFloatOutput(0, c.floatInput(0));
}

LogicalResult convertDequantize(OpContext &c) {
  const TensorInfo &in = c.in(0);
  if (!in.quant && in.dtype != DType::F16)
    return c.error() << "input '" << in.name << "' of type "
                     << dtypeName(in.dtype)
                     << " is neither quantized nor float16";
  return c.setFloatOutput(0, c.floatInput(0));
}

/// DENSIFY: sparse constants are expanded when the model is read
/// (Sparse.cpp), so the op passes its constant input on.
LogicalResult convertDensify(OpContext &c) {
  const Tensor *t = c.constant(0);
  if (!t || !c.in(0).t->sparsity())
    return c.error() << "input 0 must be a sparse constant";
  auto v = c.input(0);
  if (failed(v))
    return failure();
  return c.setOutput(0, *v);
}

const ConverterEntry kQuant[] = {
    {tflite::BuiltinOperator_DENSIFY, convertDensify},
    {tflite::BuiltinOperator_QUANTIZE, convertQuantize},
    {tflite::BuiltinOperator_DEQUANTIZE, convertDequantize},
};

} // namespace

ArrayRef<ConverterEntry> quantConverters() { return kQuant; }

} // namespace strata::tflite_import
