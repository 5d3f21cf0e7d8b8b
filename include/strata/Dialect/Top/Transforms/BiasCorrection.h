//===- BiasCorrection.h - bias correction for int8 weights ------*- C++ -*-===//
//
// Bias correction (Nagel et al., "Data-Free Quantization Through Weight
// Equalization and Bias Correction", 2019, section 4.2): rounding the
// weights to int8 shifts each output channel's expected value by
// E[(W_q - W) x] = (W_q - W) E[x]. With the per-channel means E[x] of the
// layer's input (measured on the calibration samples, the `@mean` rows of
// the calibration table) that shift is subtracted from the float bias
// before it is quantized. docs/quantization.md, "Bias correction".
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_TRANSFORMS_BIASCORRECTION_H
#define STRATA_DIALECT_TOP_TRANSFORMS_BIASCORRECTION_H

#include "strata/Support/Tensor.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace strata::calib {

/// The expected output shift per output channel c caused by quantizing the
/// weights, `sum (w_q[c] * scales[c] - w[c]) * mean[input channel]`:
/// - an ungrouped Conv filter `[O, I, kh, kw]` (axis 0, `conv`): input
///   channel i, summed over the window (grouped convs are not corrected);
/// - a MatMul weight `[K, N]` (axis 1) or `[N, K]` (axis 0, the transposed
///   right operand): input channel k.
/// `wq` holds the integers, `scales` one scale per output channel.
/// Returns false and sets `error` when `inputMeans` has the wrong length.
bool weightRoundingShift(const Tensor &w, const Tensor &wq,
                         llvm::ArrayRef<double> scales, int64_t axis, bool conv,
                         llvm::ArrayRef<double> inputMeans,
                         std::vector<double> &shift, std::string &error);

} // namespace strata::calib

#endif // STRATA_DIALECT_TOP_TRANSFORMS_BIASCORRECTION_H
