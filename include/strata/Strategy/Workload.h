//===- Workload.h - an op as plain data for the strategy --------*- C++ -*-===//
//
// A workload is what the operator strategy decides on: the op's name, its
// operands' and results' shapes and dtypes, and its attributes as plain
// values. It knows nothing of MLIR, so the compiler (which reads it from a
// Top op, StrategyMLIR/WorkloadFromOp.h), the runtime's dynamic-shape guards
// and the NPU target evaluate the same conditions on it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_WORKLOAD_H
#define STRATA_STRATEGY_WORKLOAD_H

#include "strata/Support/ShapeFunction.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::strategy {

/// An attribute value: a bool, an int, a float, a string (also an enum
/// attribute's name), or a list of ints, floats or strings.
class AttrValue {
public:
  enum class Kind { Bool, Int, Float, String, IntList, FloatList, StringList };

  static AttrValue boolean(bool v);
  static AttrValue integer(int64_t v);
  static AttrValue floating(double v);
  static AttrValue string(std::string v);
  static AttrValue intList(std::vector<int64_t> v);
  static AttrValue floatList(std::vector<double> v);
  static AttrValue stringList(std::vector<std::string> v);

  Kind kind() const { return k; }
  bool getBool() const { return ints.at(0) != 0; }
  int64_t getInt() const { return ints.at(0); }
  double getFloat() const { return floats.at(0); }
  const std::string &getString() const { return strings.at(0); }
  const std::vector<int64_t> &getInts() const { return ints; }
  const std::vector<double> &getFloats() const { return floats; }
  const std::vector<std::string> &getStrings() const { return strings; }

  /// `true`, `3`, `1.000000e-05` (floats as diagnostics print them, or
  /// the shortest exact spelling when that would lose bits, so a key tells
  /// values apart), `"NCHW"`, `[1, 1]`, `["a", "b"]`.
  std::string str() const;

  bool operator==(const AttrValue &o) const {
    return k == o.k && ints == o.ints && floats == o.floats &&
           strings == o.strings;
  }
  bool operator!=(const AttrValue &o) const { return !(*this == o); }

private:
  Kind k = Kind::Int;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
};

/// One operand or result: its dtype and shape. The dtype is the MLIR
/// element type's spelling (`f32`, `bf16`, `i8`, `ui8`, `i1`, ...), a
/// quantized type as `q` + its storage type (`qi8`, `qui8`), `none` for an
/// absent optional operand (then the shape is empty). An unranked tensor has
/// `ranked == false` and no dims.
struct TensorDesc {
  std::string dtype;
  Shape shape;
  bool ranked = true;

  bool isNone() const { return dtype == "none"; }
  bool allStatic() const;
  /// `f32[1, 3, ?, 224]`, `f32[*]` (unranked), `none`.
  std::string str() const;
};

/// Which tensor of a workload a clause reads.
struct TensorRef {
  enum class Side { Operand, Result };
  Side side = Side::Operand;
  unsigned index = 0;

  static TensorRef operand(unsigned i) { return {Side::Operand, i}; }
  static TensorRef result(unsigned i) { return {Side::Result, i}; }
  /// `operand 0`, `result 1`.
  std::string str() const;
  bool operator==(const TensorRef &o) const {
    return side == o.side && index == o.index;
  }
};

/// An op as plain data.
struct Workload {
  /// The op's full name, `top.Conv`.
  std::string op;
  std::vector<TensorDesc> operands;
  std::vector<TensorDesc> results;
  /// Inherent attributes by name (sorted, so keys are stable).
  std::map<std::string, AttrValue> attrs;

  /// The tensor `ref` names; nullptr if the op has no such operand/result.
  const TensorDesc *tensor(TensorRef ref) const;
  /// The attribute `name`; nullptr if absent.
  const AttrValue *attr(const std::string &name) const;

  /// The canonical key tuning logs record:
  /// `top.Conv(f32[1, 3, 8, 8], f32[4, 3, 3, 3], none) -> (f32[1, 4, 6, 6])
  /// {dilations = [1, 1], group = 1, ...}`. Attributes sorted by name;
  /// defaults are filled in first (completeWorkloadDefaults), so writing a
  /// default value or leaving it out gives the same key.
  std::string key() const;
};

/// The shortest %g spelling of `v` that reads back as `v` ("0.00125").
std::string formatShortestDouble(double v);

/// Fills in the attributes a Top op leaves implicit, so conditions and keys
/// see one spelling: for ops with window attributes (Conv, Deconv, MaxPool,
/// AvgPool, MaxPoolIndices) absent `strides`/`dilations` become ones and
/// absent `pads` zeros of the spatial rank; for ops whose `axis` counts dims
/// of operand 0 from the end in the kernels' view (Softmax, LogSoftmax,
/// LayerNorm, RMSNorm) a non-negative axis becomes negative (`3` of a rank-4
/// input is `-1`), so "the last axis" is one condition at every rank.
/// Unranked operands leave the workload unchanged.
void completeWorkloadDefaults(Workload &w);

} // namespace strata::strategy

#endif // STRATA_STRATEGY_WORKLOAD_H
