//===- Implementation.cpp - kernel parameters and lowerings ---------------===//

#include "strata/Strategy/Implementation.h"

#include <sstream>

namespace strata::strategy {

ParamSource ParamSource::constant(int64_t v) {
  ParamSource p;
  p.k = Kind::Const;
  p.a = v;
  return p;
}

ParamSource ParamSource::dim(TensorRef t, int64_t d) {
  ParamSource p;
  p.k = Kind::Dim;
  p.ref = t;
  p.a = d;
  return p;
}

ParamSource ParamSource::dimProduct(TensorRef t, int64_t from, int64_t to) {
  ParamSource p;
  p.k = Kind::DimProduct;
  p.ref = t;
  p.a = from;
  p.b = to;
  return p;
}

ParamSource ParamSource::attrInt(std::string name) {
  ParamSource p;
  p.k = Kind::AttrInt;
  p.name = std::move(name);
  return p;
}

ParamSource ParamSource::attrElement(std::string name, int64_t i) {
  ParamSource p;
  p.k = Kind::AttrElement;
  p.name = std::move(name);
  p.a = i;
  return p;
}

std::string ParamSource::str() const {
  std::ostringstream os;
  switch (k) {
  case Kind::Const:
    os << a;
    break;
  case Kind::Dim:
    os << ref.str() << " dim " << a;
    break;
  case Kind::DimProduct:
    os << "product(" << ref.str() << " dims [" << a << ", ";
    if (b == kEnd)
      os << "end)";
    else
      os << b << "))";
    os << (b == kEnd ? ")" : "");
    break;
  case Kind::AttrInt:
    os << "attr " << name;
    break;
  case Kind::AttrElement:
    os << "attr " << name << "[" << a << "]";
    break;
  }
  return os.str();
}

/// A tensor's ranked shape for a parameter, or the error.
static ShapeOr<Shape> shapeFor(const Workload &w, TensorRef ref) {
  const TensorDesc *t = w.tensor(ref);
  if (!t || t->isNone())
    return ShapeError() << "parameter reads " << ref.str()
                        << ", which the op does not have";
  if (!t->ranked)
    return ShapeError() << "parameter reads the dims of unranked " << ref.str();
  return t->shape;
}

ShapeOr<int64_t> ParamSource::evaluate(const Workload &w) const {
  switch (k) {
  case Kind::Const:
    return a;
  case Kind::Dim: {
    ShapeOr<Shape> s = shapeFor(w, ref);
    if (!s)
      return ShapeOr<int64_t>::errorOf(s);
    int64_t rank = s->size(), d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank)
      return ShapeError() << "parameter reads dim " << a << " of " << ref.str()
                          << " of rank " << rank;
    return (*s)[d];
  }
  case Kind::DimProduct: {
    ShapeOr<Shape> s = shapeFor(w, ref);
    if (!s)
      return ShapeOr<int64_t>::errorOf(s);
    int64_t rank = s->size();
    int64_t from = a < 0 ? a + rank : a;
    int64_t to = b == kEnd ? rank : b < 0 ? b + rank : b;
    if (from < 0 || to > rank || from > to)
      return ShapeError() << "parameter reads dims [" << a << ", " << b
                          << ") of " << ref.str() << " of rank " << rank;
    std::optional<int64_t> n =
        shapeElementCount(Ints(s->data() + from, to - from));
    for (int64_t i = from; i < to; ++i)
      if (isDynamicDim((*s)[i]))
        return kDynamicDim;
    if (!n)
      return ShapeError() << "parameter's product of dims " << *s
                          << " overflows int64";
    return *n;
  }
  case Kind::AttrInt:
  case Kind::AttrElement: {
    const AttrValue *v = w.attr(name);
    if (!v)
      return ShapeError() << "parameter reads attribute '" << name
                          << "', which is absent";
    if (k == Kind::AttrInt) {
      if (v->kind() == AttrValue::Kind::Int ||
          v->kind() == AttrValue::Kind::Bool)
        return v->getInt();
      return ShapeError() << "parameter reads attribute '" << name
                          << "' = " << v->str() << " as an int";
    }
    if (v->kind() != AttrValue::Kind::IntList || a < 0 ||
        a >= static_cast<int64_t>(v->getInts().size()))
      return ShapeError() << "parameter reads element " << a
                          << " of attribute '" << name << "' = " << v->str();
    return v->getInts()[a];
  }
  }
  return ShapeError() << "unknown parameter source";
}

std::string Lowering::str() const {
  if (kind == Kind::Codegen)
    return "codegen";
  std::string s = "kernel " + kernel + "(";
  for (size_t i = 0; i < params.size(); ++i)
    s += (i ? ", " : "") + params[i].name + " = " + params[i].source.str();
  return s + ")";
}

} // namespace strata::strategy
