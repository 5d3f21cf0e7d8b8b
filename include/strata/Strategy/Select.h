//===- Select.h - choosing an implementation, and why -----------*- C++ -*-===//
//
// Selection for one workload on one target:
//  1. a tuning record for this workload key, target and machine whose
//     implementation is registered, whose condition holds and whose config
//     names only that implementation's schedule parameters wins; among
//     several, the lowest measured cost (then the earliest line);
//  2. otherwise the highest priority whose condition holds;
//  3. a condition that is Unknown (a dim not known at compile time) does not
//     stop the search: it becomes a guard. The result is then a guard chain,
//     ordered alternatives (condition, implementation) ending with an
//     unconditional one, which the runtime evaluates on the actual shapes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGY_SELECT_H
#define STRATA_STRATEGY_SELECT_H

#include "strata/Strategy/Registry.h"
#include "strata/Strategy/TuningLog.h"

#include <string>
#include <vector>

namespace strata::strategy {

/// What selection needs besides the workload.
struct SelectOptions {
  std::string target = "cpu";
  /// The machine tuning records must name (hostMachine() by default in the
  /// pass).
  std::string machine;
  /// Records to consult; may be null.
  const TuningLog *log = nullptr;
};

/// One alternative of a guard chain: taken when every clause of `when`
/// holds (empty: always).
struct GuardAlternative {
  std::vector<Clause> when;
  std::string implementation;
  ScheduleParams schedule;
};

/// The outcome: a single unconditional alternative when decided at compile
/// time, else a guard chain.
struct Selection {
  std::vector<GuardAlternative> alternatives;
  /// Set when a tuning record decided (its line in the log).
  std::optional<TuningRecord> record;

  bool decided() const {
    return alternatives.size() == 1 && alternatives[0].when.empty();
  }
  /// The chosen implementation when decided().
  const std::string &winner() const {
    return alternatives.front().implementation;
  }
};

/// Chooses the implementation(s) for `w`. Errors: no strategy or no
/// implementation applies (a target without a fallback).
ShapeOr<Selection> select(const StrategyRegistry &registry, const Workload &w,
                          const SelectOptions &options);

/// Picks the alternative of `chain` that applies to `w` at run time (every
/// dim known): the first whose clauses all hold. nullptr if none does
/// (impossible for a chain ending with an unconditional alternative).
const GuardAlternative *resolveGuard(const Selection &chain, const Workload &w);

/// A readable account of the choice for `w`: the workload key, every
/// candidate by priority with each clause held/failed/unknown and the value
/// it read, the tuning records for this workload and why each was used or
/// not, missing optional libraries, and the winner (or the guard chain).
std::string explain(const StrategyRegistry &registry, const Workload &w,
                    const SelectOptions &options);

} // namespace strata::strategy

#endif // STRATA_STRATEGY_SELECT_H
