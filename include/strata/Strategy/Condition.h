//===- Condition.h - specialized conditions over workloads ------*- C++ -*-===//
//
// A condition says when an implementation applies: a conjunction of clauses
// over a workload's dims, ranks, dtypes and attributes (the seed's
// SpecializedCondition; a disjunction over one field is a set clause, e.g.
// `dtype(operand 0) in {i8, qi8}`). A clause evaluates to True, False or
// Unknown; Unknown arises only where a dim (or a rank) is not known at
// compile time, and is then decided at run time by a guard (Select.h).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_CONDITION_H
#define STRATA_STRATEGY_CONDITION_H

#include "strata/Strategy/Workload.h"

#include <string>
#include <vector>

namespace strata::strategy {

/// Three-valued truth.
enum class Truth { True, False, Unknown };
const char *truthName(Truth t); // "held", "failed", "unknown"

/// A clause's value on a workload and why: the value it read (`dim 1 = 64`,
/// `dtype f32`, `kernel_shape = [3, 3]`, `dim 0 is dynamic`).
struct ClauseResult {
  Truth truth = Truth::False;
  std::string why;
};

/// One clause of a condition. The kinds are a small closed set; each prints
/// itself (`str`) and knows which other clauses it contradicts.
class Clause {
public:
  enum class Kind {
    Dim,          ///< tensor dim `d` compared with a constant
    Rank,         ///< tensor rank == r
    DType,        ///< tensor dtype in a set
    Attr,         ///< attribute value in a set
    AttrAllEqual, ///< int-list attribute non-empty, every value == k
    AllStatic,    ///< every dim of every operand and result known
  };
  enum class Cmp { Eq, Ne, Le, Ge, DivisibleBy };

  /// Dim `dim` of `t` (negative counts from the end) `cmp` `k`; for
  /// DivisibleBy, `dim % k == 0` (k > 0).
  static Clause dim(TensorRef t, int64_t dim, Cmp cmp, int64_t k);
  static Clause rank(TensorRef t, int64_t r);
  static Clause dtypeIn(TensorRef t, std::vector<std::string> dtypes);
  static Clause attrIn(std::string name, std::vector<AttrValue> values);
  static Clause attrEq(std::string name, AttrValue value) {
    return attrIn(std::move(name), {std::move(value)});
  }
  static Clause attrAllEqual(std::string name, int64_t k);
  static Clause allStatic();

  Kind kind() const { return k; }
  TensorRef tensor() const { return ref; }
  int64_t dimIndex() const { return dimIdx; }
  Cmp cmp() const { return op; }
  int64_t constant() const { return value; }
  const std::vector<std::string> &dtypes() const { return names; }
  const std::string &attrName() const { return attr; }
  const std::vector<AttrValue> &attrValues() const { return values; }

  ClauseResult evaluate(const Workload &w) const;
  /// `operand 1 dim 1 == 1`, `rank(operand 0) == 4`,
  /// `dtype(operand 0) in {f32}`, `attr group in {1}`,
  /// `attr strides all == 1`, `all dims static`.
  std::string str() const;
  /// True if this clause and `other` can never both hold on one workload:
  /// the same field with contradicting values (dim == 1 vs dim != 1 or
  /// dim >= 2, dtype sets without a common member, attribute sets without a
  /// common value, all == 1 vs all == 3, different ranks). Conservative:
  /// false when unsure.
  bool contradicts(const Clause &other) const;

private:
  Kind k = Kind::AllStatic;
  TensorRef ref;
  int64_t dimIdx = 0;
  Cmp op = Cmp::Eq;
  int64_t value = 0;
  std::vector<std::string> names;
  std::string attr;
  std::vector<AttrValue> values;
};

/// A condition's value and each clause's result, in clause order.
struct ConditionResult {
  Truth truth = Truth::True;
  std::vector<ClauseResult> clauses;
};

/// A conjunction of clauses; empty means "always".
class Condition {
public:
  Condition() = default;
  Condition(std::initializer_list<Clause> c) : list(c) {}
  explicit Condition(std::vector<Clause> c) : list(std::move(c)) {}

  const std::vector<Clause> &clauses() const { return list; }
  bool always() const { return list.empty(); }
  /// This condition and `other` together.
  Condition operator&&(const Condition &other) const;

  /// False if any clause fails, else Unknown if any is unknown, else True.
  ConditionResult evaluate(const Workload &w) const;
  /// `a && b && c`, or `always`.
  std::string str() const;
  /// True if some clause of this condition contradicts one of `other`, so no
  /// workload satisfies both.
  bool disjointFrom(const Condition &other) const;

private:
  std::vector<Clause> list;
};

} // namespace strata::strategy

#endif // STRATA_STRATEGY_CONDITION_H
