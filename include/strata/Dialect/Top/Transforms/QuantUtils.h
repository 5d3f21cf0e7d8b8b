//===- QuantUtils.h - integer requantization helpers ------------*- C++ -*-===//
//
// Shared by top-quantize and top-fold-qdq (docs/quantization.md).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_TRANSFORMS_QUANTUTILS_H
#define STRATA_DIALECT_TOP_TRANSFORMS_QUANTUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "strata/Support/Tensor.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace strata::calib {

/// The multiplier m (in [2^30, 2^31)) and right shift s (in [0, 63]) with
/// m / 2^s nearest to `real` (m rounded half away from zero from the
/// mantissa). `real` >= 2^31 saturates to (2^31 - 1, 0); 0 gives (0, 0).
std::pair<int64_t, int64_t> multiplierShift(double real);

/// The int32 bias round_half_even(values[c] / accScale[c]) - correction[c]
/// (an empty `values` is all zeros, an empty `correction` none); an error on
/// `op` when a value does not fit int32.
mlir::FailureOr<std::vector<int32_t>>
int32Bias(mlir::Operation *op, const std::vector<double> &values,
          const std::vector<double> &accScale,
          const std::vector<int64_t> &correction);

/// For a matmul with int8 weights `w` (2-D, output channels on `axis`) and
/// input zero point `zp`: `zp * sum_k w[k, c]` per channel c, which
/// subtracted from the int32 bias makes `x @ W` equal `(x - zp) @ W`.
std::vector<int64_t> zeroPointCorrection(const strata::Tensor &w, int64_t axis,
                                         int64_t zp);

/// `!quant.uniform<i32:f32:axis, {scales}>`: an int32 accumulator whose
/// channel `c` (on `axis`) has scale `scales[c]` and zero point 0.
mlir::Type accumulatorType(mlir::MLIRContext *ctx,
                           const std::vector<double> &scales, int32_t axis);

/// The calibration-table name of the tensor before `y`'s producer applies
/// its epilogue activation (`<name of y>_preact`): top-quantize int8
/// requantizes the accumulator to int8 at this tensor's range and computes
/// the activation as a 256-entry table (docs/quantization.md, "Activations
/// after int8 layers").
std::string preActivationName(mlir::Value y);

/// Whether `op` carries an epilogue activation (top.Conv / top.MatMul
/// `activation`, ReLU aside) whose input top-quantize int8 calibrates as
/// preActivationName(result).
bool hasEpilogueActivation(mlir::Operation *op);

/// Splits each epilogue activation in `func`'s body into the op without it
/// (named preActivationName) and the float activation op (keeping the
/// op's name), so that the interpreter dumps the pre-activation tensor.
/// `strata calibrate` runs the model split this way.
void splitEpilogueActivations(mlir::func::FuncOp func);

} // namespace strata::calib

#endif // STRATA_DIALECT_TOP_TRANSFORMS_QUANTUTILS_H
