//===- OpContext.h - TFLite importer state and the converter API -*- C++
//-*-===//
//
// The importer's state (tensor values, weights) and what a converter sees of
// one operator: its inputs as Top values or host constants, its options, its
// outputs' declared types, op creation with shape inference, verification
// and constant folding, and errors naming the operator index and op.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_FRONTEND_TFLITE_OPCONTEXT_H
#define STRATA_LIB_FRONTEND_TFLITE_OPCONTEXT_H

#include "schema_generated.h"

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Support/Npz.h"
#include "strata/Support/Tensor.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <vector>

namespace strata::tflite_import {

using namespace mlir;
using namespace strata::top;

/// Quantization parameters of a tensor: one scale and zero point per
/// tensor, or one per index of `axis` (per-channel).
struct QParams {
  std::vector<double> scales;
  std::vector<int64_t> zps;
  int64_t axis = -1;
  bool perAxis() const { return axis >= 0; }
};

/// What the importer knows of one tensor of the subgraph.
struct TensorInfo {
  const tflite::Tensor *t = nullptr;
  std::string name;
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  std::optional<QParams> quant; ///< for int8/uint8/int16 with parameters
  const Tensor *data = nullptr; ///< host data of a constant (buffer) tensor
  /// The model gives this shape for one size of a dynamic (-1) dim of its
  /// shape_signature: operators compute the shape instead.
  bool dynamic = false;
  bool resource = false; ///< a RESOURCE tensor (a variable handle)
  std::string variable;  ///< the variable a resource tensor refers to
};

class Importer;

/// One operator being converted.
class OpContext {
public:
  OpContext(Importer &imp, const tflite::Operator *op, int64_t index,
            tflite::BuiltinOperator code);

  const tflite::Operator *op() const { return oper; }
  tflite::BuiltinOperator code() const { return opCode; }
  const char *opName() const { return tflite::EnumNameBuiltinOperator(opCode); }
  OpBuilder &builder();
  MLIRContext *context();
  Location loc() const { return location; }

  /// An error prefixed with "operator <index> (<OP>): ".
  InFlightDiagnostic error();
  /// "operator <index> (<OP>)": how errors name this operator.
  std::string describe() const;

  size_t numInputs() const;
  size_t numOutputs() const;
  /// Whether input `i` is given (tensor index >= 0).
  bool hasInput(size_t i) const;
  /// The tensor behind input / output `i` (checked by the importer).
  const TensorInfo &in(size_t i) const;
  const TensorInfo &out(size_t i) const;
  /// Input `i` as a Top value (its quantized type when quantized).
  FailureOr<Value> input(size_t i);
  /// Input `i` as f32: quantized values are dequantized (constants on the
  /// host), float16 constants widened.
  FailureOr<Value> floatInput(size_t i);
  /// Input `i` as data: f32 for float and quantized tensors (floatInput),
  /// else (integers, bools) as stored.
  FailureOr<Value> dataInput(size_t i);
  /// Host data of a constant input `i`, or nullptr.
  const Tensor *constant(size_t i) const;
  /// A constant integer input (shape, axes, paddings) as int64 values.
  FailureOr<std::vector<int64_t>> constantInts(size_t i, llvm::StringRef what);

  /// A new weight holding `data` (named after the output).
  Value weight(const Tensor &data, llvm::StringRef hint);
  Value none();
  Value scalarF32(double v);

  /// Creates OpTy with results of element type `elem`, infers and sets
  /// their shapes, verifies it and folds it to a weight when every operand
  /// is a constant.
  template <typename OpTy, typename... Args>
  FailureOr<Value> create(Type elem, Args &&...args) {
    auto t = UnrankedTensorType::get(elem);
    auto o = OpTy::create(builder(), location, TypeRange{t},
                          std::forward<Args>(args)...);
    auto r = finishOp(o.getOperation());
    if (failed(r))
      return failure();
    return (*r)[0];
  }
  FailureOr<SmallVector<Value>> finishOp(Operation *op);

  /// Binds output `i` to `v` after checking its shape against the declared
  /// one (element types are the converter's business).
  LogicalResult setOutput(size_t i, Value v);
  /// Binds output `i` to the f32 value `v`, quantizing it to the output's
  /// quantized type first when the output is quantized.
  LogicalResult setFloatOutput(size_t i, FailureOr<Value> v);
  /// Applies a fused activation function to the f32 value `v`.
  FailureOr<Value> fusedActivation(FailureOr<Value> v,
                                   tflite::ActivationFunctionType act);

  /// The `!quant.uniform` element type of a quantized tensor.
  Type quantType(const TensorInfo &t);
  /// The element type values of tensor `t` have (quantized, or plain).
  Type valueType(const TensorInfo &t);

  Importer &imp;

private:
  const tflite::Operator *oper;
  int64_t index;
  tflite::BuiltinOperator opCode;
  Location location;
};

using Converter = LogicalResult (*)(OpContext &);
struct ConverterEntry {
  tflite::BuiltinOperator code;
  Converter fn;
};

/// Converter tables, one per file.
ArrayRef<ConverterEntry> nnConverters();
ArrayRef<ConverterEntry> elementwiseConverters();
ArrayRef<ConverterEntry> shapeConverters();
ArrayRef<ConverterEntry> quantConverters();
ArrayRef<ConverterEntry> variableConverters();
ArrayRef<ConverterEntry> controlFlowConverters();

/// Host helpers.
Tensor permuteTensor(const Tensor &t, ArrayRef<int64_t> order);
std::vector<int64_t> toVec(ArrayRef<int64_t> a);

/// Explicit SAME/VALID padding of one spatial dim (begin, end), as TFLite
/// computes it (the odd pixel at the end).
std::pair<int64_t, int64_t> samePadding(tflite::Padding p, int64_t in,
                                        int64_t k, int64_t stride,
                                        int64_t dilation);

} // namespace strata::tflite_import

#endif // STRATA_LIB_FRONTEND_TFLITE_OPCONTEXT_H
