//===- BiasCorrection.cpp - bias correction for int8 weights --------------===//
//
// The expected output shift of int8 weight rounding (BiasCorrection.h),
// which top-quantize subtracts from the float bias.
//
//===----------------------------------------------------------------------===//

#include "strata/Dialect/Top/Transforms/BiasCorrection.h"

namespace strata::calib {

bool weightRoundingShift(const Tensor &w, const Tensor &wq,
                         llvm::ArrayRef<double> scales, int64_t axis, bool conv,
                         llvm::ArrayRef<double> inputMeans,
                         std::vector<double> &shift, std::string &error) {
  int64_t outChannels = w.dim(axis);
  shift.assign(outChannels, 0.0);
  if (conv) {
    // [O, I, window...].
    int64_t inChannels = w.dim(1);
    int64_t window = w.numElements() / (outChannels * inChannels);
    if (static_cast<int64_t>(inputMeans.size()) != inChannels) {
      error = "has " + std::to_string(inputMeans.size()) +
              " channel means, the input has " + std::to_string(inChannels) +
              " channels";
      return false;
    }
    for (int64_t o = 0; o < outChannels; ++o)
      for (int64_t i = 0; i < inChannels; ++i) {
        double dw = 0;
        for (int64_t k = 0; k < window; ++k) {
          int64_t at = (o * inChannels + i) * window + k;
          dw += wq.getAsDouble(at) * scales[o] - w.getAsDouble(at);
        }
        shift[o] += dw * inputMeans[i];
      }
    return true;
  }
  // A 2-D weight: K x N (axis 1) or N x K (axis 0).
  int64_t depth = w.dim(1 - axis);
  if (static_cast<int64_t>(inputMeans.size()) != depth) {
    error = "has " + std::to_string(inputMeans.size()) +
            " channel means, the input has " + std::to_string(depth) +
            " columns";
    return false;
  }
  for (int64_t k = 0; k < depth; ++k)
    for (int64_t n = 0; n < outChannels; ++n) {
      int64_t at = axis == 1 ? k * outChannels + n : n * depth + k;
      shift[n] +=
          (wq.getAsDouble(at) * scales[n] - w.getAsDouble(at)) * inputMeans[k];
    }
  return true;
}

} // namespace strata::calib
