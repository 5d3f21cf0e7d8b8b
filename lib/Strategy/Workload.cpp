//===- Workload.cpp - an op as plain data ---------------------------------===//

#include "strata/Strategy/Workload.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace strata::strategy {

//===----------------------------------------------------------------------===//
// AttrValue
//===----------------------------------------------------------------------===//

AttrValue AttrValue::boolean(bool v) {
  AttrValue a;
  a.k = Kind::Bool;
  a.ints = {v ? 1 : 0};
  return a;
}
AttrValue AttrValue::integer(int64_t v) {
  AttrValue a;
  a.k = Kind::Int;
  a.ints = {v};
  return a;
}
AttrValue AttrValue::floating(double v) {
  AttrValue a;
  a.k = Kind::Float;
  a.floats = {v};
  return a;
}
AttrValue AttrValue::string(std::string v) {
  AttrValue a;
  a.k = Kind::String;
  a.strings = {std::move(v)};
  return a;
}
AttrValue AttrValue::intList(std::vector<int64_t> v) {
  AttrValue a;
  a.k = Kind::IntList;
  a.ints = std::move(v);
  return a;
}
AttrValue AttrValue::floatList(std::vector<double> v) {
  AttrValue a;
  a.k = Kind::FloatList;
  a.floats = std::move(v);
  return a;
}
AttrValue AttrValue::stringList(std::vector<std::string> v) {
  AttrValue a;
  a.k = Kind::StringList;
  a.strings = std::move(v);
  return a;
}

std::string formatShortestDouble(double v) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

/// A float exactly: the diagnostic spelling if it reads back the same, else
/// the shortest spelling that does.
static std::string formatExactDouble(double v) {
  std::string s = formatDouble(v);
  char *end = nullptr;
  double back = std::strtod(s.c_str(), &end);
  if (end && *end == '\0' && back == v)
    return s;
  return formatShortestDouble(v);
}

static std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string AttrValue::str() const {
  std::ostringstream os;
  switch (k) {
  case Kind::Bool:
    return getBool() ? "true" : "false";
  case Kind::Int:
    return std::to_string(getInt());
  case Kind::Float:
    return formatExactDouble(getFloat());
  case Kind::String:
    return quote(getString());
  case Kind::IntList:
    return formatInts(ints);
  case Kind::FloatList:
  case Kind::StringList: {
    os << "[";
    size_t n = k == Kind::FloatList ? floats.size() : strings.size();
    for (size_t i = 0; i < n; ++i)
      os << (i ? ", " : "")
         << (k == Kind::FloatList ? formatExactDouble(floats[i])
                                  : quote(strings[i]));
    os << "]";
    return os.str();
  }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// TensorDesc, TensorRef, Workload
//===----------------------------------------------------------------------===//

bool TensorDesc::allStatic() const {
  if (!ranked)
    return false;
  for (int64_t d : shape)
    if (isDynamicDim(d))
      return false;
  return true;
}

std::string TensorDesc::str() const {
  if (isNone())
    return "none";
  if (!ranked)
    return dtype + "[*]";
  return dtype + formatInts(shape);
}

std::string TensorRef::str() const {
  return (side == Side::Operand ? "operand " : "result ") +
         std::to_string(index);
}

const TensorDesc *Workload::tensor(TensorRef ref) const {
  const auto &list = ref.side == TensorRef::Side::Operand ? operands : results;
  return ref.index < list.size() ? &list[ref.index] : nullptr;
}

const AttrValue *Workload::attr(const std::string &name) const {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : &it->second;
}

static void appendTensors(std::ostringstream &os,
                          const std::vector<TensorDesc> &list) {
  os << "(";
  for (size_t i = 0; i < list.size(); ++i)
    os << (i ? ", " : "") << list[i].str();
  os << ")";
}

std::string Workload::key() const {
  std::ostringstream os;
  os << op;
  appendTensors(os, operands);
  os << " -> ";
  appendTensors(os, results);
  os << " {";
  bool first = true;
  for (const auto &[name, value] : attrs) {
    os << (first ? "" : ", ") << name << " = " << value.str();
    first = false;
  }
  os << "}";
  return os.str();
}

//===----------------------------------------------------------------------===//
// Defaults
//===----------------------------------------------------------------------===//

static bool isOneOf(const std::string &op,
                    std::initializer_list<const char *> names) {
  for (const char *n : names)
    if (op == n)
      return true;
  return false;
}

void completeWorkloadDefaults(Workload &w) {
  if (w.operands.empty() || !w.operands[0].ranked)
    return;
  int64_t rank = w.operands[0].shape.size();
  if (isOneOf(w.op, {"top.Conv", "top.Deconv", "top.MaxPool", "top.AvgPool",
                     "top.MaxPoolIndices"})) {
    int64_t spatial = rank - 2;
    if (spatial < 1)
      return;
    if (!w.attr("strides"))
      w.attrs.emplace("strides", AttrValue::intList(Shape(spatial, 1)));
    if (!w.attr("dilations"))
      w.attrs.emplace("dilations", AttrValue::intList(Shape(spatial, 1)));
    if (!w.attr("pads"))
      w.attrs.emplace("pads", AttrValue::intList(Shape(2 * spatial, 0)));
    return;
  }
  if (isOneOf(w.op, {"top.Softmax", "top.LogSoftmax", "top.LayerNorm",
                     "top.RMSNorm"})) {
    auto it = w.attrs.find("axis");
    if (it != w.attrs.end() && it->second.kind() == AttrValue::Kind::Int &&
        it->second.getInt() >= 0 && it->second.getInt() < rank)
      it->second = AttrValue::integer(it->second.getInt() - rank);
  }
}

} // namespace strata::strategy
