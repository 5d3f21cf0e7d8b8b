//===- ConvertMath.cpp - ONNX math, bitwise and signal ops to Top ---------===//
//
// Trigonometric/hyperbolic functions, bitwise ops, Det, LRN map to Top ops
// of the same name. Window functions, MelWeightMatrix, DFT and STFT map to
// Top ops whose size attributes come from constant inputs (TopMathOps.td).
//
//===----------------------------------------------------------------------===//

#include "ValueChain.h"

#include <cmath>

namespace strata::onnx_import {
using namespace chain;
namespace {

// Building blocks (null-chained): ValueChain.h.

/// Input `i` as one integer: it must be a constant with one element.
FailureOr<int64_t> constantScalarInt(NodeContext &c, size_t i,
                                     StringRef what) {
  auto v = c.constantInts(i);
  if (!v || v->size() != 1)
    return c.error() << "input " << i << " ('" << what
                     << "') must be a constant integer scalar";
  return (*v)[0];
}

/// The element type named by attribute `output_datatype` (default FLOAT).
FailureOr<Type> outputDatatype(NodeContext &c) {
  auto dt = c.attrInt("output_datatype", 1);
  if (failed(dt))
    return failure();
  Type t = elementTypeFromOnnx(static_cast<int32_t>(*dt), c.context());
  if (!t || !(isa<FloatType>(t) || (t.isInteger() && !t.isInteger(1))))
    return c.error() << "attribute 'output_datatype' = " << *dt << " ("
                     << onnxTypeName(static_cast<int32_t>(*dt))
                     << ") is not a supported numeric type";
  return t;
}

//===----------------------------------------------------------------------===//
// Direct mappings
//===----------------------------------------------------------------------===//

template <typename OpTy> LogicalResult convertBitwise(NodeContext &c) {
  if (failed(requireInputs(c, 2)))
    return failure();
  if (c.inputElementType(0) != c.inputElementType(1))
    return c.error() << "operand element types differ: "
                     << c.inputElementType(0) << " and "
                     << c.inputElementType(1);
  return finish(c, binary<OpTy>(c, c.input(0), c.input(1)));
}

LogicalResult convertBitShift(NodeContext &c) {
  auto direction = c.attrString("direction", "");
  if (failed(direction) || failed(requireInputs(c, 2)))
    return failure();
  if (*direction != "LEFT" && *direction != "RIGHT")
    return c.error() << "attribute 'direction' = \"" << *direction
                     << "\" must be \"LEFT\" or \"RIGHT\"";
  if (c.inputElementType(0) != c.inputElementType(1))
    return c.error() << "operand element types differ: "
                     << c.inputElementType(0) << " and "
                     << c.inputElementType(1);
  Value x = c.input(0);
  return finish(c, make<BitShiftOp>(c, elemType(x), x, c.input(1),
                                    ShiftDirectionAttr::get(
                                        c.context(),
                                        *symbolizeShiftDirection(*direction))));
}

LogicalResult convertLRN(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1e-4f);
  auto beta = c.attrFloat("beta", 0.75f);
  auto bias = c.attrFloat("bias", 1.0f);
  auto size = c.attrIntOpt("size");
  if (failed(alpha) || failed(beta) || failed(bias) || failed(size) ||
      failed(requireInputs(c, 1)))
    return failure();
  if (!*size)
    return c.error() << "attribute 'size' is required";
  OpBuilder &b = c.builder();
  Value x = c.input(0);
  return finish(c, make<LRNOp>(c, elemType(x), x, b.getI64IntegerAttr(**size),
                               b.getF64FloatAttr(*alpha),
                               b.getF64FloatAttr(*beta),
                               b.getF64FloatAttr(*bias)));
}

//===----------------------------------------------------------------------===//
// Signal ops
//===----------------------------------------------------------------------===//

template <WindowKind Kind> LogicalResult convertWindow(NodeContext &c) {
  auto periodic = c.attrInt("periodic", 1);
  auto elem = outputDatatype(c);
  if (failed(periodic) || failed(elem) || failed(requireInputs(c, 1)))
    return failure();
  auto size = constantScalarInt(c, 0, "size");
  if (failed(size))
    return failure();
  if (*periodic != 0 && *periodic != 1)
    return c.error() << "attribute 'periodic' = " << *periodic
                     << " must be 0 or 1";
  OpBuilder &b = c.builder();
  return finish(c, make<WindowOp>(c, *elem, WindowKindAttr::get(b.getContext(), Kind),
                                  b.getI64IntegerAttr(*size),
                                  b.getBoolAttr(*periodic != 0)));
}

LogicalResult convertMelWeightMatrix(NodeContext &c) {
  auto elem = outputDatatype(c);
  if (failed(elem) || failed(requireInputs(c, 5)))
    return failure();
  auto mels = constantScalarInt(c, 0, "num_mel_bins");
  auto length = constantScalarInt(c, 1, "dft_length");
  auto rate = constantScalarInt(c, 2, "sample_rate");
  if (failed(mels) || failed(length) || failed(rate))
    return failure();
  OpBuilder &b = c.builder();
  return finish(c, make<MelWeightMatrixOp>(
                       c, *elem, c.input(3), c.input(4),
                       b.getI64IntegerAttr(*mels), b.getI64IntegerAttr(*length),
                       b.getI64IntegerAttr(*rate)));
}

/// DFT-17 (axis attribute, default 1) and DFT-20 (axis input, default -2).
LogicalResult convertDFT(NodeContext &c) {
  auto inverse = c.attrInt("inverse", 0);
  auto onesided = c.attrInt("onesided", 0);
  auto shape = c.requireShape(0);
  if (failed(inverse) || failed(onesided) || failed(shape))
    return failure();
  int64_t rank = shape->size();
  int64_t axis;
  if (c.version() >= 20) {
    axis = -2;
    if (c.numInputs() > 2 && c.hasInput(2)) {
      auto a = constantScalarInt(c, 2, "axis");
      if (failed(a))
        return failure();
      axis = *a;
    }
  } else {
    auto a = c.attrInt("axis", 1);
    if (failed(a))
      return failure();
    axis = *a;
  }
  if (axis < -rank || axis > rank - 2 || axis == -1)
    return c.error() << "axis = " << axis << " is out of range for rank "
                     << rank << " (must be in [" << -rank << ", -2] or [0, "
                     << rank - 2 << "])";
  if (axis < 0)
    axis += rank;
  bool realInverse = *inverse && *onesided;
  if (*onesided && !*inverse && shape->back() != 1)
    return c.error() << "attribute 'onesided' = 1: a onesided DFT needs a "
                        "real input (last dim 1), got shape "
                     << formatArray(*shape);
  int64_t length = realInverse ? 2 * ((*shape)[axis] - 1) : (*shape)[axis];
  if (c.numInputs() > 1 && c.hasInput(1)) {
    auto l = constantScalarInt(c, 1, "dft_length");
    if (failed(l))
      return failure();
    length = *l;
  }
  if (length < 1)
    return c.error() << "dft_length = " << length << " must be >= 1";
  OpBuilder &b = c.builder();
  Value x = c.input(0);
  return finish(c, make<DFTOp>(c, elemType(x), x, b.getI64IntegerAttr(axis),
                               b.getI64IntegerAttr(length),
                               b.getBoolAttr(*inverse != 0),
                               b.getBoolAttr(*onesided != 0)));
}

LogicalResult convertSTFT(NodeContext &c) {
  auto onesided = c.attrInt("onesided", 1);
  auto shape = c.requireShape(0);
  if (failed(onesided) || failed(shape) || failed(requireInputs(c, 2)))
    return failure();
  auto step = constantScalarInt(c, 1, "frame_step");
  if (failed(step))
    return failure();
  bool hasWindow = c.numInputs() > 2 && c.hasInput(2);
  int64_t frameLength = shape->size() >= 2 ? (*shape)[1] : 0;
  if (hasWindow) {
    auto w = c.requireShape(2);
    if (failed(w))
      return failure();
    if (w->size() != 1)
      return c.error() << "input 2 ('window') shape " << formatArray(*w)
                       << " must be 1-d";
    frameLength = (*w)[0];
  }
  if (c.numInputs() > 3 && c.hasInput(3)) {
    auto l = constantScalarInt(c, 3, "frame_length");
    if (failed(l))
      return failure();
    frameLength = *l;
  }
  OpBuilder &b = c.builder();
  Value x = c.input(0);
  return finish(c, make<STFTOp>(c, elemType(x), x,
                                hasWindow ? c.input(2) : c.none(),
                                b.getI64IntegerAttr(*step),
                                b.getI64IntegerAttr(frameLength),
                                b.getBoolAttr(*onesided != 0)));
}

const ConverterEntry kMath[] = {
    {"Sin", convertUnary<SinOp>},
    {"Cos", convertUnary<CosOp>},
    {"Tan", convertUnary<TanOp>},
    {"Asin", convertUnary<AsinOp>},
    {"Acos", convertUnary<AcosOp>},
    {"Atan", convertUnary<AtanOp>},
    {"Sinh", convertUnary<SinhOp>},
    {"Cosh", convertUnary<CoshOp>},
    {"Asinh", convertUnary<AsinhOp>},
    {"Acosh", convertUnary<AcoshOp>},
    {"Atanh", convertUnary<AtanhOp>},
    {"BitwiseAnd", convertBitwise<BitwiseAndOp>},
    {"BitwiseOr", convertBitwise<BitwiseOrOp>},
    {"BitwiseXor", convertBitwise<BitwiseXorOp>},
    {"BitwiseNot", convertUnary<BitwiseNotOp>},
    {"BitShift", convertBitShift},
    {"Det", convertUnary<DetOp>},
    {"LRN", convertLRN},
    {"HannWindow", convertWindow<WindowKind::Hann>},
    {"HammingWindow", convertWindow<WindowKind::Hamming>},
    {"BlackmanWindow", convertWindow<WindowKind::Blackman>},
    {"MelWeightMatrix", convertMelWeightMatrix},
    {"DFT", convertDFT},
    {"STFT", convertSTFT},
};
} // namespace

ArrayRef<ConverterEntry> mathConverters() { return kMath; }

} // namespace strata::onnx_import
