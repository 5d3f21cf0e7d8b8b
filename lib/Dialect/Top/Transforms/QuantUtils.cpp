//===- QuantUtils.cpp - integer requantization helpers --------------------===//

#include "strata/Dialect/Top/Transforms/QuantUtils.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace strata::calib {

std::pair<int64_t, int64_t> multiplierShift(double real) {
  if (!(real > 0))
    return {0, 0};
  int exp = 0;
  double frac = std::frexp(real, &exp); // real = frac * 2^exp, frac in [.5, 1)
  int64_t m = std::llround(frac * 2147483648.0);
  if (m == (int64_t(1) << 31)) {
    m >>= 1;
    ++exp;
  }
  int64_t s = 31 - exp;
  if (s < 0) // real >= 2^31: saturate
    return {std::numeric_limits<int32_t>::max(), 0};
  if (s > 63) {
    m >>= std::min<int64_t>(s - 63, 62);
    s = 63;
  }
  return {m, s};
}

FailureOr<std::vector<int32_t>>
int32Bias(Operation *op, const std::vector<double> &values,
          const std::vector<double> &accScale,
          const std::vector<int64_t> &correction) {
  std::vector<int32_t> out(accScale.size());
  for (size_t c = 0; c < accScale.size(); ++c) {
    double v = values.empty() ? 0.0 : std::nearbyint(values[c] / accScale[c]);
    v -= static_cast<double>(correction.empty() ? 0 : correction[c]);
    if (!(std::fabs(v) < 2147483647.0))
      return op->emitOpError() << "int8 bias of channel " << c << " (" << v
                               << ") does not fit int32";
    out[c] = static_cast<int32_t>(v);
  }
  return out;
}

std::vector<int64_t> zeroPointCorrection(const Tensor &w, int64_t axis,
                                         int64_t zp) {
  int64_t channels = w.dim(axis), k = w.dim(1 - axis);
  std::vector<int64_t> out(channels, 0);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < k; ++i)
      out[c] += zp * w.getAsInt(axis == 0 ? c * k + i : i * channels + c);
  return out;
}

Type accumulatorType(MLIRContext *ctx, const std::vector<double> &scales,
                     int32_t axis) {
  SmallVector<int64_t> zps(scales.size(), 0);
  return quant::UniformQuantizedPerAxisType::get(
      quant::QuantizationFlags::Signed, IntegerType::get(ctx, 32),
      Float32Type::get(ctx), scales, zps, axis,
      std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
}

} // namespace strata::calib
