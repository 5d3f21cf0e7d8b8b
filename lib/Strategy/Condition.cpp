//===- Condition.cpp - clauses and conjunctions ---------------------------===//

#include "strata/Strategy/Condition.h"

#include <algorithm>
#include <sstream>

namespace strata::strategy {

const char *truthName(Truth t) {
  switch (t) {
  case Truth::True:
    return "held";
  case Truth::False:
    return "failed";
  case Truth::Unknown:
    return "unknown";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Construction and printing
//===----------------------------------------------------------------------===//

Clause Clause::dim(TensorRef t, int64_t d, Cmp cmp, int64_t k) {
  Clause c;
  c.k = Kind::Dim;
  c.ref = t;
  c.dimIdx = d;
  c.op = cmp;
  c.value = k;
  assert((cmp != Cmp::DivisibleBy || k > 0) && "divisor must be positive");
  return c;
}

Clause Clause::rank(TensorRef t, int64_t r) {
  Clause c;
  c.k = Kind::Rank;
  c.ref = t;
  c.value = r;
  return c;
}

Clause Clause::dtypeIn(TensorRef t, std::vector<std::string> dtypes) {
  Clause c;
  c.k = Kind::DType;
  c.ref = t;
  c.names = std::move(dtypes);
  return c;
}

Clause Clause::attrIn(std::string name, std::vector<AttrValue> values) {
  Clause c;
  c.k = Kind::Attr;
  c.attr = std::move(name);
  c.values = std::move(values);
  return c;
}

Clause Clause::attrAllEqual(std::string name, int64_t k) {
  Clause c;
  c.k = Kind::AttrAllEqual;
  c.attr = std::move(name);
  c.value = k;
  return c;
}

Clause Clause::allStatic() { return Clause(); }

static const char *cmpSpelling(Clause::Cmp cmp) {
  switch (cmp) {
  case Clause::Cmp::Eq:
    return "==";
  case Clause::Cmp::Ne:
    return "!=";
  case Clause::Cmp::Le:
    return "<=";
  case Clause::Cmp::Ge:
    return ">=";
  case Clause::Cmp::DivisibleBy:
    return "%";
  }
  return "";
}

std::string Clause::str() const {
  std::ostringstream os;
  switch (k) {
  case Kind::Dim:
    os << ref.str() << " dim " << dimIdx << " " << cmpSpelling(op) << " "
       << value;
    if (op == Cmp::DivisibleBy)
      os << " == 0";
    break;
  case Kind::Rank:
    os << "rank(" << ref.str() << ") == " << value;
    break;
  case Kind::DType:
    os << "dtype(" << ref.str() << ") in {";
    for (size_t i = 0; i < names.size(); ++i)
      os << (i ? ", " : "") << names[i];
    os << "}";
    break;
  case Kind::Attr:
    os << "attr " << attr << " in {";
    for (size_t i = 0; i < values.size(); ++i)
      os << (i ? ", " : "") << values[i].str();
    os << "}";
    break;
  case Kind::AttrAllEqual:
    os << "attr " << attr << " all == " << value;
    break;
  case Kind::AllStatic:
    os << "all dims static";
    break;
  }
  return os.str();
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

static ClauseResult result(Truth t, std::string why) {
  return {t, std::move(why)};
}

static bool compare(Clause::Cmp cmp, int64_t v, int64_t k) {
  switch (cmp) {
  case Clause::Cmp::Eq:
    return v == k;
  case Clause::Cmp::Ne:
    return v != k;
  case Clause::Cmp::Le:
    return v <= k;
  case Clause::Cmp::Ge:
    return v >= k;
  case Clause::Cmp::DivisibleBy:
    return v % k == 0;
  }
  return false;
}

/// The tensor a clause reads, or the reason it cannot (missing, none).
static const TensorDesc *tensorFor(const Workload &w, TensorRef ref,
                                   std::string &why) {
  const TensorDesc *t = w.tensor(ref);
  if (!t)
    why = "no " + ref.str();
  else if (t->isNone())
    why = ref.str() + " is none";
  else
    return t;
  return nullptr;
}

ClauseResult Clause::evaluate(const Workload &w) const {
  std::string why;
  switch (k) {
  case Kind::Dim:
  case Kind::Rank: {
    const TensorDesc *t = tensorFor(w, ref, why);
    if (!t)
      return result(Truth::False, why);
    if (!t->ranked)
      return result(Truth::Unknown, "rank unknown");
    int64_t rank = t->shape.size();
    if (k == Kind::Rank)
      return result(value == rank ? Truth::True : Truth::False,
                    "rank " + std::to_string(rank));
    int64_t d = dimIdx < 0 ? dimIdx + rank : dimIdx;
    if (d < 0 || d >= rank)
      return result(Truth::False, "rank " + std::to_string(rank) +
                                      " has no dim " + std::to_string(dimIdx));
    int64_t v = t->shape[d];
    std::string dimName = "dim " + std::to_string(dimIdx);
    if (isDynamicDim(v))
      return result(Truth::Unknown, dimName + " is dynamic");
    return result(compare(op, v, value) ? Truth::True : Truth::False,
                  dimName + " = " + std::to_string(v));
  }
  case Kind::DType: {
    const TensorDesc *t = w.tensor(ref);
    if (!t)
      return result(Truth::False, "no " + ref.str());
    bool in = std::find(names.begin(), names.end(), t->dtype) != names.end();
    return result(in ? Truth::True : Truth::False, "dtype " + t->dtype);
  }
  case Kind::Attr: {
    const AttrValue *a = w.attr(attr);
    if (!a)
      return result(Truth::False, attr + " absent");
    bool in = std::find(values.begin(), values.end(), *a) != values.end();
    return result(in ? Truth::True : Truth::False, attr + " = " + a->str());
  }
  case Kind::AttrAllEqual: {
    const AttrValue *a = w.attr(attr);
    if (!a)
      return result(Truth::False, attr + " absent");
    if (a->kind() != AttrValue::Kind::IntList)
      return result(Truth::False, attr + " = " + a->str() + " is no int list");
    const auto &v = a->getInts();
    bool all = !v.empty() && std::all_of(v.begin(), v.end(),
                                         [&](int64_t x) { return x == value; });
    return result(all ? Truth::True : Truth::False, attr + " = " + a->str());
  }
  case Kind::AllStatic: {
    for (int side = 0; side < 2; ++side) {
      const auto &list = side == 0 ? w.operands : w.results;
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].isNone() || list[i].allStatic())
          continue;
        TensorRef r = side == 0 ? TensorRef::operand(i) : TensorRef::result(i);
        return result(Truth::False, r.str() + " is " + list[i].str());
      }
    }
    return result(Truth::True, "every dim known");
  }
  }
  return result(Truth::False, "");
}

//===----------------------------------------------------------------------===//
// Contradiction
//===----------------------------------------------------------------------===//

/// Whether dim predicates `a` (cmp ca, constant ka) and `b` can never both
/// hold of one value.
static bool dimPredicatesContradict(Clause::Cmp ca, int64_t ka, Clause::Cmp cb,
                                    int64_t kb) {
  using Cmp = Clause::Cmp;
  if (ca != Cmp::Eq && cb == Cmp::Eq)
    return dimPredicatesContradict(cb, kb, ca, ka);
  if (ca == Cmp::Eq)
    return !compare(cb, ka, kb);
  if (ca == Cmp::Le && cb == Cmp::Ge)
    return ka < kb;
  if (ca == Cmp::Ge && cb == Cmp::Le)
    return kb < ka;
  return false;
}

static bool intListAllEqual(const AttrValue &v, int64_t k) {
  if (v.kind() != AttrValue::Kind::IntList || v.getInts().empty())
    return false;
  for (int64_t x : v.getInts())
    if (x != k)
      return false;
  return true;
}

bool Clause::contradicts(const Clause &o) const {
  if (k == Kind::AttrAllEqual && o.k == Kind::Attr)
    return o.contradicts(*this);
  switch (k) {
  case Kind::Dim:
    return o.k == Kind::Dim && ref == o.ref && dimIdx == o.dimIdx &&
           dimPredicatesContradict(op, value, o.op, o.value);
  case Kind::Rank:
    return o.k == Kind::Rank && ref == o.ref && value != o.value;
  case Kind::DType:
    if (o.k != Kind::DType || !(ref == o.ref))
      return false;
    for (const std::string &n : names)
      if (std::find(o.names.begin(), o.names.end(), n) != o.names.end())
        return false;
    return true;
  case Kind::Attr:
    if (o.attr != attr)
      return false;
    if (o.k == Kind::Attr) {
      for (const AttrValue &v : values)
        if (std::find(o.values.begin(), o.values.end(), v) != o.values.end())
          return false;
      return true;
    }
    if (o.k == Kind::AttrAllEqual) {
      for (const AttrValue &v : values)
        if (intListAllEqual(v, o.value))
          return false;
      return true;
    }
    return false;
  case Kind::AttrAllEqual:
    return o.k == Kind::AttrAllEqual && o.attr == attr && o.value != value;
  case Kind::AllStatic:
    return false;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Condition
//===----------------------------------------------------------------------===//

Condition Condition::operator&&(const Condition &other) const {
  std::vector<Clause> all = list;
  all.insert(all.end(), other.list.begin(), other.list.end());
  return Condition(std::move(all));
}

ConditionResult Condition::evaluate(const Workload &w) const {
  ConditionResult r;
  bool unknown = false, failed = false;
  for (const Clause &c : list) {
    r.clauses.push_back(c.evaluate(w));
    failed |= r.clauses.back().truth == Truth::False;
    unknown |= r.clauses.back().truth == Truth::Unknown;
  }
  r.truth = failed ? Truth::False : unknown ? Truth::Unknown : Truth::True;
  return r;
}

std::string Condition::str() const {
  if (list.empty())
    return "always";
  std::string s;
  for (size_t i = 0; i < list.size(); ++i)
    s += (i ? " && " : "") + list[i].str();
  return s;
}

bool Condition::disjointFrom(const Condition &other) const {
  for (const Clause &a : list)
    for (const Clause &b : other.list)
      if (a.contradicts(b))
        return true;
  return false;
}

} // namespace strata::strategy
