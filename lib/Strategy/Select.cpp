//===- Select.cpp - choosing an implementation, and why -------------------===//

#include "strata/Strategy/Select.h"

#include <algorithm>
#include <sstream>

namespace strata::strategy {

namespace {

/// One candidate with its condition's value on the workload.
struct Candidate {
  Implementation impl;
  ConditionResult result;
};

/// A tuning record for this workload and whether it can decide.
struct RecordVerdict {
  const TuningRecord *record;
  /// Empty if usable, else why not.
  std::string rejection;
};

/// Everything selection and explain share.
struct Evaluation {
  Strategy strategy;
  std::vector<Candidate> candidates; // highest priority first
  std::vector<RecordVerdict> records;
  /// Index into records of the record that decides; -1 if none.
  int best = -1;
  const RecordVerdict *bestRecord() const {
    return best < 0 ? nullptr : &records[best];
  }
};

} // namespace

static Evaluation evaluate(const StrategyRegistry &registry, const Workload &w,
                           const SelectOptions &options) {
  Evaluation ev;
  ev.strategy = registry.lookup(w.op, options.target);
  for (Implementation &impl : ev.strategy.implementations()) {
    ConditionResult r = impl.condition.evaluate(w);
    ev.candidates.push_back({std::move(impl), std::move(r)});
  }
  std::stable_sort(ev.candidates.begin(), ev.candidates.end(),
                   [](const Candidate &a, const Candidate &b) {
                     if (a.impl.priority != b.impl.priority)
                       return a.impl.priority > b.impl.priority;
                     return a.impl.name < b.impl.name;
                   });
  if (!options.log)
    return ev;
  std::string key = w.key();
  for (const TuningRecord &rec : options.log->records) {
    if (rec.workload != key || rec.target != options.target)
      continue;
    RecordVerdict v{&rec, ""};
    auto cand = std::find_if(
        ev.candidates.begin(), ev.candidates.end(),
        [&](const Candidate &c) { return c.impl.name == rec.implementation; });
    if (rec.machine != options.machine)
      v.rejection = "measured on machine '" + rec.machine + "', not '" +
                    options.machine + "'";
    else if (cand == ev.candidates.end())
      v.rejection = "implementation '" + rec.implementation +
                    "' is not registered for this op and target";
    else if (cand->result.truth != Truth::True)
      v.rejection =
          std::string("its condition is ") +
          (cand->result.truth == Truth::False ? "false"
                                              : "unknown at compile time") +
          " for this workload";
    else
      for (const auto &[name, value] : rec.config)
        if (!cand->impl.schedule.count(name)) {
          v.rejection = "config parameter '" + name +
                        "' is not a schedule parameter of '" +
                        rec.implementation + "'";
          break;
        }
    ev.records.push_back(v);
  }
  for (size_t i = 0; i < ev.records.size(); ++i)
    if (ev.records[i].rejection.empty() &&
        (ev.best < 0 ||
         ev.records[i].record->cost < ev.bestRecord()->record->cost))
      ev.best = static_cast<int>(i);
  return ev;
}

static ScheduleParams mergedSchedule(const Implementation &impl,
                                     const TuningRecord *record) {
  ScheduleParams s = impl.schedule;
  if (record)
    for (const auto &[name, value] : record->config)
      s[name] = value;
  return s;
}

ShapeOr<Selection> select(const StrategyRegistry &registry, const Workload &w,
                          const SelectOptions &options) {
  Evaluation ev = evaluate(registry, w, options);
  Selection sel;
  if (ev.bestRecord()) {
    const TuningRecord &rec = *ev.bestRecord()->record;
    for (const Candidate &c : ev.candidates)
      if (c.impl.name == rec.implementation)
        sel.alternatives.push_back(
            {{}, c.impl.name, mergedSchedule(c.impl, &rec)});
    sel.record = rec;
    return sel;
  }
  for (const Candidate &c : ev.candidates) {
    if (c.result.truth == Truth::False)
      continue;
    GuardAlternative alt{{}, c.impl.name, mergedSchedule(c.impl, nullptr)};
    if (c.result.truth == Truth::Unknown) {
      // Only the unknown clauses remain to be checked at run time.
      const auto &clauses = c.impl.condition.clauses();
      for (size_t i = 0; i < clauses.size(); ++i)
        if (c.result.clauses[i].truth == Truth::Unknown)
          alt.when.push_back(clauses[i]);
      sel.alternatives.push_back(std::move(alt));
      continue;
    }
    sel.alternatives.push_back(std::move(alt));
    return sel;
  }
  if (ev.candidates.empty())
    return ShapeError() << "has no implementation on target '" << options.target
                        << "'";
  return ShapeError() << "has no implementation on target '" << options.target
                      << "' that applies unconditionally to " << w.key();
}

const GuardAlternative *resolveGuard(const Selection &chain,
                                     const Workload &w) {
  for (const GuardAlternative &alt : chain.alternatives) {
    bool all = true;
    for (const Clause &c : alt.when)
      all &= c.evaluate(w).truth == Truth::True;
    if (all)
      return &alt;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Explain
//===----------------------------------------------------------------------===//

static std::string formatSchedule(const ScheduleParams &s) {
  std::string out = "{";
  bool first = true;
  for (const auto &[name, value] : s) {
    out += (first ? "" : ", ") + name + " = " + std::to_string(value);
    first = false;
  }
  return out + "}";
}

/// `name(N = 1 [operand 0 dim 0], ...)`; `?` for a value known only at run
/// time.
static std::string formatKernelCall(const Lowering &l, const Workload &w) {
  std::string s = l.kernel + "(";
  for (size_t i = 0; i < l.params.size(); ++i) {
    ShapeOr<int64_t> v = l.params[i].source.evaluate(w);
    s += (i ? ", " : "") + l.params[i].name + " = ";
    if (!v)
      s += "error: " + v.error();
    else if (isDynamicDim(*v))
      s += "?";
    else
      s += std::to_string(*v);
  }
  return s + ")";
}

static std::string formatCost(double cost) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g s", cost);
  return buf;
}

std::string explain(const StrategyRegistry &registry, const Workload &w,
                    const SelectOptions &options) {
  Evaluation ev = evaluate(registry, w, options);
  std::ostringstream os;
  os << w.op << " on target '" << options.target << "'\n";
  os << "  workload: " << w.key() << "\n";
  os << "  candidates (highest priority first):\n";
  for (const Candidate &c : ev.candidates) {
    os << "    [" << c.impl.priority << "] " << c.impl.name << ": "
       << truthName(c.result.truth) << " -> "
       << (c.impl.lowering.kind == Lowering::Kind::Kernel
               ? "kernel " + c.impl.lowering.kernel
               : std::string("codegen"));
    if (!c.impl.library.empty())
      os << " (library " << c.impl.library << ")";
    os << "\n";
    const auto &clauses = c.impl.condition.clauses();
    if (clauses.empty())
      os << "        always\n";
    for (size_t i = 0; i < clauses.size(); ++i)
      os << "        " << truthName(c.result.clauses[i].truth) << ": "
         << clauses[i].str() << " (" << c.result.clauses[i].why << ")\n";
  }
  for (const std::string &lib : registry.missingLibraries())
    os << "  not built: implementations needing library '" << lib << "'\n";
  if (!options.log)
    os << "  tuning log: none\n";
  else if (ev.records.empty())
    os << "  tuning log: no record for this workload in '"
       << options.log->source << "'\n";
  for (const RecordVerdict &v : ev.records) {
    os << "  tuning record line " << v.record->line << ": "
       << v.record->implementation << " " << formatSchedule(v.record->config)
       << " " << formatCost(v.record->cost) << ": ";
    if (&v == ev.bestRecord())
      os << "used (lowest cost)";
    else if (v.rejection.empty())
      os << "usable, not the lowest cost";
    else
      os << "ignored, " << v.rejection;
    os << "\n";
  }
  ShapeOr<Selection> sel = select(registry, w, options);
  if (!sel) {
    os << "  no winner: '" << w.op << "' op " << sel.error() << "\n";
    return os.str();
  }
  if (sel->decided()) {
    const GuardAlternative &alt = sel->alternatives.front();
    os << "  winner: " << alt.implementation;
    if (sel->record)
      os << " (tuning record, line " << sel->record->line << ")";
    else
      os << " (highest priority whose condition holds)";
    if (!alt.schedule.empty())
      os << " schedule " << formatSchedule(alt.schedule);
    os << "\n";
    for (const Candidate &c : ev.candidates)
      if (c.impl.name == alt.implementation &&
          c.impl.lowering.kind == Lowering::Kind::Kernel)
        os << "  kernel call: " << formatKernelCall(c.impl.lowering, w) << "\n";
    return os.str();
  }
  os << "  winner decided at run time (guard chain):\n";
  for (const GuardAlternative &alt : sel->alternatives) {
    if (alt.when.empty()) {
      os << "    otherwise -> " << alt.implementation << "\n";
      continue;
    }
    os << "    if " << Condition(alt.when).str() << " -> " << alt.implementation
       << "\n";
  }
  return os.str();
}

//===----------------------------------------------------------------------===//
// Tuning records
//===----------------------------------------------------------------------===//

static std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string formatTuningRecord(const TuningRecord &r) {
  std::ostringstream os;
  os << "{\"workload\": " << jsonString(r.workload)
     << ", \"target\": " << jsonString(r.target)
     << ", \"machine\": " << jsonString(r.machine)
     << ", \"implementation\": " << jsonString(r.implementation)
     << ", \"config\": {";
  bool first = true;
  for (const auto &[name, value] : r.config) {
    os << (first ? "" : ", ") << jsonString(name) << ": " << value;
    first = false;
  }
  os << "}, \"cost\": " << formatShortestDouble(r.cost) << "}";
  return os.str();
}

} // namespace strata::strategy
