//===- WorkloadFromOp.cpp - reading an op into a workload -----------------===//

#include "strata/StrategyMLIR/WorkloadFromOp.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

namespace strata::strategy {

std::string dtypeSpelling(mlir::Type type) {
  if (llvm::isa<mlir::NoneType>(type))
    return "none";
  if (auto q = llvm::dyn_cast<mlir::quant::QuantizedType>(type))
    return (q.isSigned() ? "q" : "qu") + dtypeSpelling(q.getStorageType());
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// The value of an enum attribute from its printed form
/// `#dialect.kind<value>` (or `#dialect<kind value>`), unquoted.
static std::optional<std::string> enumCaseName(mlir::Attribute attr) {
  std::string s;
  llvm::raw_string_ostream os(s);
  attr.print(os);
  llvm::StringRef text(s);
  if (!text.starts_with("#") || !text.ends_with(">"))
    return std::nullopt;
  size_t open = text.find('<');
  if (open == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef inner = text.slice(open + 1, text.size() - 1).trim();
  // `#dialect<kind value>`: the value is the last word.
  if (!text.substr(0, open).contains('.') && inner.contains(' '))
    inner = inner.rsplit(' ').second;
  if (inner.size() >= 2 && inner.front() == '"' && inner.back() == '"')
    inner = inner.drop_front().drop_back();
  if (inner.empty() || inner.contains('<') || inner.contains(','))
    return std::nullopt;
  return inner.str();
}

std::optional<AttrValue> attrValueOf(mlir::Attribute attr) {
  if (auto b = llvm::dyn_cast<mlir::BoolAttr>(attr))
    return AttrValue::boolean(b.getValue());
  if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(attr))
    return AttrValue::integer(i.getValue().getSExtValue());
  if (auto f = llvm::dyn_cast<mlir::FloatAttr>(attr))
    return AttrValue::floating(f.getValueAsDouble());
  if (auto s = llvm::dyn_cast<mlir::StringAttr>(attr))
    return AttrValue::string(s.str());
  if (auto a = llvm::dyn_cast<mlir::DenseI64ArrayAttr>(attr))
    return AttrValue::intList(
        Shape(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseI32ArrayAttr>(attr))
    return AttrValue::intList(
        Shape(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseF64ArrayAttr>(attr))
    return AttrValue::floatList(
        std::vector<double>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::DenseF32ArrayAttr>(attr))
    return AttrValue::floatList(
        std::vector<double>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto a = llvm::dyn_cast<mlir::ArrayAttr>(attr)) {
    std::vector<int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    for (mlir::Attribute e : a) {
      if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(e))
        ints.push_back(i.getValue().getSExtValue());
      else if (auto f = llvm::dyn_cast<mlir::FloatAttr>(e))
        floats.push_back(f.getValueAsDouble());
      else if (auto s = llvm::dyn_cast<mlir::StringAttr>(e))
        strings.push_back(s.str());
      else
        return std::nullopt;
    }
    size_t n = a.size();
    if (ints.size() == n)
      return AttrValue::intList(ints);
    if (floats.size() == n)
      return AttrValue::floatList(floats);
    if (strings.size() == n)
      return AttrValue::stringList(strings);
    return std::nullopt;
  }
  if (llvm::isa<mlir::ElementsAttr, mlir::TypeAttr, mlir::DictionaryAttr,
                mlir::UnitAttr, mlir::SymbolRefAttr>(attr))
    return std::nullopt;
  if (std::optional<std::string> name = enumCaseName(attr))
    return AttrValue::string(*name);
  return std::nullopt;
}

static ShapeOr<TensorDesc> tensorDesc(mlir::Type type, const char *what,
                                      unsigned index) {
  TensorDesc t;
  if (llvm::isa<mlir::NoneType>(type)) {
    t.dtype = "none";
    return t;
  }
  auto shaped = llvm::dyn_cast<mlir::TensorType>(type);
  if (!shaped) {
    std::string s;
    llvm::raw_string_ostream os(s);
    type.print(os);
    return ShapeError() << what << " " << index << " has type " << s
                        << ", not a tensor";
  }
  t.dtype = dtypeSpelling(shaped.getElementType());
  t.ranked = shaped.hasRank();
  if (t.ranked)
    t.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
  return t;
}

ShapeOr<Workload> workloadFromOp(mlir::Operation *op) {
  Workload w;
  w.op = op->getName().getStringRef().str();
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    ShapeOr<TensorDesc> t = tensorDesc(v.getType(), "operand", i);
    if (!t)
      return ShapeOr<Workload>::errorOf(t);
    w.operands.push_back(*t);
  }
  for (auto [i, v] : llvm::enumerate(op->getResults())) {
    ShapeOr<TensorDesc> t = tensorDesc(v.getType(), "result", i);
    if (!t)
      return ShapeOr<Workload>::errorOf(t);
    w.results.push_back(*t);
  }

  mlir::NamedAttrList attrs;
  if (std::optional<mlir::RegisteredOperationName> reg =
          op->getRegisteredInfo()) {
    for (mlir::StringAttr name : reg->getAttributeNames())
      if (std::optional<mlir::Attribute> a = op->getInherentAttr(name))
        if (*a)
          attrs.set(name, *a);
    reg->populateDefaultAttrs(attrs);
  } else {
    // An unregistered op: its attributes without a dialect prefix.
    for (mlir::NamedAttribute a : op->getAttrs())
      if (!a.getName().strref().contains('.'))
        attrs.set(a.getName(), a.getValue());
  }
  for (mlir::NamedAttribute a : attrs)
    if (std::optional<AttrValue> v = attrValueOf(a.getValue()))
      w.attrs.emplace(a.getName().str(), *v);
  completeWorkloadDefaults(w);
  return w;
}

} // namespace strata::strategy
