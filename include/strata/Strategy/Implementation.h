//===- Implementation.h - one way to lower an op ----------------*- C++ -*-===//
//
// An implementation (the seed's OpImplementation): a name, a priority level,
// the condition under which it applies, what it lowers to (a kernel call,
// with each int64 parameter derived from the workload, or the codegen
// fallback through MLIR's lower-level dialects) and its default schedule
// parameters (tile sizes, ...), which a tuning record may replace.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_IMPLEMENTATION_H
#define STRATA_STRATEGY_IMPLEMENTATION_H

#include "strata/Strategy/Condition.h"

#include <map>
#include <string>
#include <vector>

namespace strata::strategy {

/// Where a kernel parameter's value comes from. Evaluable on plain data, so
/// a runtime computes the parameters of a dynamic-shape dispatch from the
/// actual shapes.
class ParamSource {
public:
  enum class Kind { Const, Dim, DimProduct, AttrInt, AttrElement };
  /// The `to` of dimProduct meaning "through the last dim".
  static constexpr int64_t kEnd = INT64_MAX;

  static ParamSource constant(int64_t v);
  /// Dim `d` of `t` (negative counts from the end).
  static ParamSource dim(TensorRef t, int64_t d);
  /// Product of dims [from, to) of `t`; negative bounds count from the end
  /// (`0, -1` is every dim but the last), `to == kEnd` is through the last
  /// dim; an empty range is 1.
  static ParamSource dimProduct(TensorRef t, int64_t from, int64_t to);
  /// An int (or bool) attribute.
  static ParamSource attrInt(std::string name);
  /// Element `i` of an int-list attribute.
  static ParamSource attrElement(std::string name, int64_t i);

  /// The value; kDynamicDim if it depends on a dim not known yet; an error
  /// if the tensor, dim or attribute does not exist.
  ShapeOr<int64_t> evaluate(const Workload &w) const;
  /// `operand 0 dim 1`, `product(operand 0 dims [0, -1))`, `attr group`,
  /// `attr strides[0]`, `1`.
  std::string str() const;
  Kind kind() const { return k; }
  /// The attribute read (AttrInt, AttrElement); empty otherwise.
  const std::string &attrName() const { return name; }

private:
  Kind k = Kind::Const;
  TensorRef ref;
  int64_t a = 0, b = 0;
  std::string name;
};

/// One int64 parameter of a kernel call.
struct KernelParam {
  std::string name;
  ParamSource source;
};

/// What an implementation lowers to.
struct Lowering {
  enum class Kind { Kernel, Codegen };
  Kind kind = Kind::Codegen;
  /// The kernel's symbol-like name (`strata_cpu_conv2d_im2col_gemm_f32`).
  std::string kernel;
  std::vector<KernelParam> params;

  static Lowering codegen() { return {}; }
  static Lowering kernelCall(std::string name, std::vector<KernelParam> ps) {
    return {Kind::Kernel, std::move(name), std::move(ps)};
  }
  /// `codegen` or `kernel NAME(M = operand 0 dim 0, ...)`.
  std::string str() const;
};

/// Schedule parameters by name.
using ScheduleParams = std::map<std::string, int64_t>;

/// One implementation of an op on a target.
struct Implementation {
  /// Unique per (op, target), e.g. `conv2d.im2col_gemm`.
  std::string name;
  /// Higher wins when no tuning record decides.
  int priority = 0;
  Condition condition;
  Lowering lowering;
  ScheduleParams schedule;
  /// The optional library this implementation needs (empty: none).
  std::string library;
};

/// The name of the generic fallback every op has on every target.
inline constexpr const char *kCodegenImplName = "codegen";

} // namespace strata::strategy

#endif // STRATA_STRATEGY_IMPLEMENTATION_H
