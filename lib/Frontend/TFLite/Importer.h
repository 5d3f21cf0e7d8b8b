//===- Importer.h - the TFLite importer's state ------------------*- C++
//-*-===//

#ifndef STRATA_LIB_FRONTEND_TFLITE_IMPORTER_H
#define STRATA_LIB_FRONTEND_TFLITE_IMPORTER_H

#include "OpContext.h"

#include <deque>
#include <functional>
#include <map>

namespace strata::tflite_import {

class Importer {
public:
  Importer(MLIRContext &ctx, ArrayRef<uint8_t> bytes,
           const tflite::Model *model)
      : ctx(ctx), builder(&ctx), bytes(bytes), model(model) {}

  MLIRContext &ctx;
  OpBuilder builder;
  ArrayRef<uint8_t> bytes;
  const tflite::Model *model;
  const tflite::SubGraph *graph = nullptr;
  std::vector<TensorInfo> tensors;
  /// The Top value of each tensor (null until defined).
  std::vector<Value> values;
  std::deque<Tensor> constData;
  TensorMap weights;
  llvm::StringSet<> weightNames;
  int64_t weightCounter = 0;
  Value noneValue;
  /// Resource variables: their current value (VAR_HANDLE's shared_name).
  std::map<std::string, Value> variables;
  /// Converts the operators of subgraph `index` (CALL_ONCE's initializer).
  std::function<LogicalResult(int64_t)> runSubgraph;
  /// Converts subgraph `index` at the builder's insertion point with its
  /// inputs bound to `inputs` (IF branches, WHILE condition and body);
  /// returns the values of its outputs. `what` names the caller in errors.
  std::function<FailureOr<SmallVector<Value>>(int64_t, ValueRange,
                                              llvm::StringRef)>
      callSubgraph;
  /// Fixed shapes of subgraph inputs (--input-shapes).
  std::map<std::string, std::vector<int64_t>> inputShapes;

  Value createWeight(const Tensor &data, llvm::StringRef name, Location loc,
                     Type elem = {});
  const Tensor *constantData(Value v) const;
};

} // namespace strata::tflite_import

#endif // STRATA_LIB_FRONTEND_TFLITE_IMPORTER_H
