//===- CompositeRegistry.cpp - converters of composite functions ----------===//

#include "strata/Dialect/Top/Transforms/CompositeRegistry.h"

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/IR/WeightValues.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cctype>

using namespace mlir;

namespace strata::top {

CompositeConverter::~CompositeConverter() = default;

CompositeRegistry &CompositeRegistry::global() {
  static CompositeRegistry *registry = [] {
    auto *r = new CompositeRegistry();
    registerBuiltinCompositeConverters(*r);
    registerRecurrentCompositeConverters(*r);
    return r;
  }();
  return *registry;
}

std::string CompositeRegistry::normalize(llvm::StringRef name) {
  size_t dot = name.rfind('.');
  if (dot != llvm::StringRef::npos)
    name = name.drop_front(dot + 1);
  std::string out;
  for (char c : name)
    if (c != '_' && c != '-')
      out.push_back(
          static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

void CompositeRegistry::add(llvm::StringRef name,
                            std::shared_ptr<CompositeConverter> converter) {
  converters[normalize(name)] = Entry{name.str(), std::move(converter)};
}

const CompositeConverter *
CompositeRegistry::lookup(llvm::StringRef name) const {
  auto it = converters.find(normalize(name));
  return it == converters.end() ? nullptr : it->second.converter.get();
}

std::vector<std::string> CompositeRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &entry : converters)
    out.push_back(entry.second.name);
  std::sort(out.begin(), out.end());
  return out;
}

RankedTensorType rankedFloatTensor(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !isa<FloatType>(ranked.getElementType()))
    return {};
  return ranked;
}

std::optional<std::string>
checkAttributeKinds(DictionaryAttr attrs, llvm::ArrayRef<ConverterAttr> known) {
  if (!attrs)
    return std::nullopt;
  for (const ConverterAttr &k : known) {
    Attribute a = attrs.get(k.name);
    if (!a)
      continue;
    bool ok = k.kind == AttrKind::String
                  ? isa<StringAttr>(a)
                  : isa<FloatAttr, IntegerAttr, BoolAttr>(a);
    if (ok)
      continue;
    std::string problem;
    llvm::raw_string_ostream os(problem);
    os << "attribute '" << k.name << "' must be "
       << (k.kind == AttrKind::String ? "a string" : "a number") << ", got "
       << a;
    return problem;
  }
  return std::nullopt;
}

std::optional<double> numberAttr(DictionaryAttr attrs, llvm::StringRef name) {
  if (!attrs)
    return std::nullopt;
  Attribute a = attrs.get(name);
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto b = dyn_cast_or_null<BoolAttr>(a))
    return b.getValue() ? 1.0 : 0.0;
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return static_cast<double>(i.getValue().getSExtValue());
  return std::nullopt;
}

std::optional<std::string> stringAttr(DictionaryAttr attrs,
                                      llvm::StringRef name) {
  if (!attrs)
    return std::nullopt;
  if (auto s = dyn_cast_or_null<StringAttr>(attrs.get(name)))
    return s.str();
  return std::nullopt;
}

LogicalResult finishFusedOp(Operation *op) {
  if (failed(inferAndSetResultTypes(op)))
    return failure();
  return mlir::verify(op);
}

Value createFusedConstant(OpBuilder &builder, Location loc,
                          llvm::StringRef base, const Tensor &t,
                          RankedTensorType type) {
  Operation *parent = builder.getInsertionBlock()->getParentOp();
  auto module = isa<ModuleOp>(parent) ? cast<ModuleOp>(parent)
                                      : parent->getParentOfType<ModuleOp>();
  WeightNamer namer(module);
  return createWeight(builder, loc, namer, base, t, type);
}

Value createNone(OpBuilder &builder, Location loc) {
  return NoneOp::create(builder, loc, builder.getNoneType());
}

} // namespace strata::top
