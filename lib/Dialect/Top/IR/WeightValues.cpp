//===- WeightValues.cpp - weight data carried inside the IR ---------------===//

#include "strata/Dialect/Top/IR/WeightValues.h"
#include "strata/Dialect/Top/IR/TopUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace strata::top {

FailureOr<Tensor> tensorFromElements(ElementsAttr value, Location loc) {
  auto type = dyn_cast<RankedTensorType>(value.getShapedType());
  std::optional<DType> dtype = type ? dtypeOf(type.getElementType())
                                    : std::nullopt;
  if (!dtype)
    return emitError(loc) << "weight value of unsupported type "
                          << value.getShapedType();
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  if (!checkedNumElements(shape))
    return emitError(loc) << "weight value shape " << shapeToString(shape)
                          << " is too large";
  Tensor t(*dtype, shape);

  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return emitError(loc) << "weight value blob '"
                            << res.getRawHandle().getKey() << "' is missing";
    ArrayRef<char> data = blob->getData();
    if (data.size() != t.byteSize())
      return emitError(loc) << "weight value blob holds " << data.size()
                            << " bytes, " << type << " needs " << t.byteSize();
    std::memcpy(t.raw(), data.data(), data.size());
    return t;
  }

  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return emitError(loc) << "weight value must be dense or a dense resource";
  Type elem = dense.getElementType();
  int64_t i = 0;
  if (isa<FloatType>(elem)) {
    // The 8- and 4-bit floats (float8*, float4_e2m1fn) are stored as their
    // bit pattern: the double round trip would not keep every value (an
    // f8E8M0FNU 2^-127 is an f32 subnormal, which its rounding moves).
    bool bits = isSmallFloat(*dtype) || *dtype == DType::F8E8M0FNU;
    for (const APFloat &f : dense.getValues<APFloat>()) {
      if (bits)
        t.data<uint8_t>()[i++] =
            static_cast<uint8_t>(f.bitcastToAPInt().getZExtValue());
      else
        t.setFromDouble(i++, f.convertToDouble());
    }
    return t;
  }
  if (!elem.isIntOrIndex())
    return emitError(loc) << "weight value element type " << elem
                          << " is not supported";
  bool isUnsigned = elem.isUnsignedInteger();
  for (const APInt &v : dense.getValues<APInt>()) {
    switch (*dtype) {
    case DType::I64:
      t.data<int64_t>()[i] = v.getSExtValue();
      break;
    case DType::U64:
      t.data<uint64_t>()[i] = v.getZExtValue();
      break;
    default:
      t.setFromDouble(i, isUnsigned || v.getBitWidth() == 1
                             ? static_cast<double>(v.getZExtValue())
                             : static_cast<double>(v.getSExtValue()));
    }
    ++i;
  }
  return t;
}

ElementsAttr elementsFromTensor(const Tensor &t, RankedTensorType type) {
  ArrayRef<char> bytes(static_cast<const char *>(t.raw()), t.byteSize());
  // 64-byte alignment serves every element type and vector loads.
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, 64);
  return DenseResourceElementsAttr::get(type, "strata_weight",
                                        std::move(blob));
}

std::optional<Tensor> weightValue(WeightOp weight) {
  auto value = weight->getAttrOfType<ElementsAttr>("value");
  if (!value)
    return std::nullopt;
  FailureOr<Tensor> t = tensorFromElements(value, weight.getLoc());
  if (failed(t))
    return std::nullopt;
  return *t;
}

std::optional<Tensor> constantValue(Value v) {
  auto w = v.getDefiningOp<WeightOp>();
  if (!w)
    return std::nullopt;
  return weightValue(w);
}

WeightNamer::WeightNamer(ModuleOp module) {
  module.walk([&](WeightOp w) { used.insert(w.getName()); });
}

std::string WeightNamer::unique(llvm::StringRef base) {
  std::string name = base.str();
  for (unsigned n = 1; used.contains(name); ++n)
    name = (base + "_" + llvm::Twine(n)).str();
  used.insert(name);
  return name;
}

WeightOp createWeight(OpBuilder &builder, Location loc, WeightNamer &namer,
                      llvm::StringRef base, const Tensor &t,
                      RankedTensorType type) {
  return WeightOp::create(builder, loc, type,
                          builder.getStringAttr(namer.unique(base)),
                          elementsFromTensor(t, type));
}

void emitMissingWeight(WeightOp w, const TensorMap &weights) {
  auto module = w->getParentOfType<ModuleOp>();
  if (weights.size() == 0 && module && !module->hasAttr(kWeightFileAttr)) {
    w.emitOpError() << "weight '" << w.getName()
                    << "' has no value: the module names no weight file ('"
                    << kWeightFileAttr
                    << "' attribute) and none was given (--weights)";
    return;
  }
  w.emitOpError() << "weight '" << w.getName()
                  << "' is missing from the weight file";
}

LogicalResult attachWeightValues(ModuleOp module, const TensorMap &weights) {
  WalkResult r = module.walk([&](WeightOp w) {
    if (w->hasAttr("value"))
      return WalkResult::advance();
    const Tensor *t = weights.find(w.getName().str());
    if (!t) {
      emitMissingWeight(w, weights);
      return WalkResult::interrupt();
    }
    auto type = cast<RankedTensorType>(w.getType());
    std::optional<DType> dtype = dtypeOf(type.getElementType());
    if (!dtype || *dtype != t->dtype() ||
        llvm::ArrayRef<int64_t>(t->shape()) != type.getShape()) {
      w.emitOpError() << "weight '" << w.getName() << "' in the weight file is "
                      << dtypeName(t->dtype()) << shapeToString(t->shape())
                      << ", the IR declares " << type;
      return WalkResult::interrupt();
    }
    w->setAttr("value", elementsFromTensor(*t, type));
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

LogicalResult detachWeightValues(ModuleOp module, TensorMap &out) {
  WalkResult r = module.walk([&](WeightOp w) {
    auto value = w->getAttrOfType<ElementsAttr>("value");
    if (!value) {
      if (!out.contains(w.getName().str())) {
        w.emitOpError() << "weight '" << w.getName() << "' has no data";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    FailureOr<Tensor> t = tensorFromElements(value, w.getLoc());
    if (failed(t))
      return WalkResult::interrupt();
    out.set(w.getName().str(), *t);
    w->removeAttr("value");
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

} // namespace strata::top
