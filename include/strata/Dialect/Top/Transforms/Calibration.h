//===- Calibration.h - activation statistics and calibration tables -*- C++
//-*-===//
//
// `strata calibrate` runs a model over sample inputs and records, per float
// tensor, its range and a histogram of magnitudes; from those it chooses a
// threshold (min/max, percentile or the KL-divergence search of TensorRT /
// TPU-MLIR) and writes a calibration table, which `top-quantize` reads. The
// table format is in docs/quantization.md.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_TRANSFORMS_CALIBRATION_H
#define STRATA_DIALECT_TOP_TRANSFORMS_CALIBRATION_H

#include "strata/Support/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace strata::calib {

/// One row of a calibration table: the quantization threshold (the
/// magnitude mapped to the largest integer of a symmetric type) and the
/// observed range.
struct CalibrationEntry {
  double threshold = 0, min = 0, max = 0;
};

/// A calibration table: tensor name -> entry, plus the header fields and,
/// optionally (`strata calibrate --bias-correction`), the per-channel means
/// of the float inputs of Conv / MatMul ops (`@mean` rows), from which
/// `top-quantize` corrects the bias for the weights' rounding
/// (BiasCorrection.h), and the per-channel ranges of the pre-activation
/// tensors (`@range` rows), from which `top-quantize` gives each channel of
/// an int8 activation table's input its own scale.
struct CalibrationTable {
  std::string method;
  int64_t samples = 0;
  std::map<std::string, CalibrationEntry> entries;
  std::map<std::string, std::vector<double>> channelMeans;
  /// Per channel (dim 1): {min, max}.
  std::map<std::string, std::vector<std::pair<double, double>>> channelRanges;
  /// Pre-activation tensors whose activation table reads an int16 input
  /// (`@table16 name` rows: `table-input=int16` for these layers only).
  std::set<std::string> table16;
};

/// Writes `table` in the text format of docs/quantization.md. Returns false
/// and sets `error` when the file cannot be written.
bool writeCalibrationTable(const std::string &path,
                           const CalibrationTable &table, std::string &error);

/// Reads a table; any malformed line, a duplicate name, a non-finite or
/// negative threshold or min > max is an error naming the line and tensor.
bool readCalibrationTable(const std::string &path, CalibrationTable &table,
                          std::string &error);

/// The statistics of one tensor over all samples: the range (first pass)
/// and a 2048-bin histogram of |x| over [0, absmax] (second pass).
class TensorStatistics {
public:
  static constexpr int kBins = 2048;
  /// Pass 1: widens the range by the float elements of `t`.
  void addRange(const Tensor &t);
  /// Pass 2: adds |x| of every element to the histogram (after addRange
  /// has seen every sample).
  void addHistogram(const Tensor &t);
  double min() const { return lo; }
  double max() const { return hi; }
  double absMax() const;
  /// The threshold for `method`: "minmax" (absmax), "percentile" (the
  /// `percentile`-th percentile of |x|) or "kl".
  double threshold(llvm::StringRef method, double percentile) const;

private:
  double lo = 0, hi = 0;
  bool seen = false;
  std::vector<double> histogram;
};

/// The per-channel mean of a tensor over all samples: channel dim 1 of an
/// NCHW tensor of rank >= 3, the last dim of a rank-2 one.
class ChannelMeans {
public:
  /// Adds the float elements of `t` (whose shape must agree with earlier
  /// calls; a tensor of another rank is ignored).
  void add(const Tensor &t);
  /// The means, empty when nothing was added.
  std::vector<double> means() const;

private:
  std::vector<double> sums;
  double count = 0;
};

/// The per-channel range of a tensor over all samples: channel dim 1 of a
/// tensor of rank >= 2 (NCHW, or a rank-2 matmul's columns).
class ChannelRanges {
public:
  /// Widens the ranges by the finite float elements of `t` (a tensor of
  /// rank < 2 or with another channel count than earlier calls is
  /// ignored).
  void add(const Tensor &t);
  /// {min, max} per channel (0, 0 for a channel without a finite value);
  /// empty when nothing was added.
  std::vector<std::pair<double, double>> ranges() const;

private:
  std::vector<double> lo, hi;
  std::vector<bool> seen;
};

/// The KL-divergence threshold (TensorRT's entropy calibration, as
/// TPU-MLIR computes it): for each candidate i in [128, 2048] the first i
/// bins (the tail added into the last) are compared with their quantization
/// into 128 levels; the i with the least KL divergence gives the threshold
/// (i + 0.5) * bin width.
double klThreshold(llvm::ArrayRef<double> histogram, double binWidth);

/// Gives every result of the ops in `func`'s body a stable name: ops whose
/// location is not a NameLoc get `<op name>_<k>` (k counting the body's
/// ops). `strata calibrate` and `top-quantize` both call this on the same
/// optimized model, so the table's names match the pass's.
void nameTensors(mlir::func::FuncOp func);

/// The name of `value` in a calibration table (the interpreter's dump name).
std::string tensorName(mlir::Value value);

} // namespace strata::calib

#endif // STRATA_DIALECT_TOP_TRANSFORMS_CALIBRATION_H
