//===- CompositeRegistry.h - converters of composite functions --*- C++ -*-===//
//
// A composite is a `func.func` marked as implementing a named interface
// (`strata.implements = "layer_norm"`, or TensorFlow's `tf._implements`).
// `top-fuse-composites` looks the name up here; the converter registered for
// it checks the function's signature and builds the fused op(s) that replace
// the body. The registry is open: code linked into a tool can add its own
// converters (see docs/optimize.md, "Composite functions").
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_TRANSFORMS_COMPOSITEREGISTRY_H
#define STRATA_DIALECT_TOP_TRANSFORMS_COMPOSITEREGISTRY_H

#include "strata/Dialect/Top/IR/TopOps.h"
#include "strata/Support/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>

namespace strata::top {

/// What a converter attribute must hold.
enum class AttrKind { Number, String };

/// A converter attribute the converter reads, and what it must hold.
struct ConverterAttr {
  const char *name;
  AttrKind kind;
};

/// Turns one kind of composite function into fused ops.
class CompositeConverter {
public:
  virtual ~CompositeConverter();

  /// The converter attributes this interface reads. `top-fuse-composites`
  /// fails with an error when one is present with another kind of value
  /// (`epsilon = "abc"`), instead of fusing with the default.
  virtual llvm::ArrayRef<ConverterAttr> attributes() const { return {}; }

  /// Checks that `fn`'s signature (argument and result types) and the
  /// converter attributes `attrs` fit this interface. Returns nullopt if
  /// they do, else what is wrong ("input 0 must be a ranked float tensor").
  virtual std::optional<std::string>
  verify(mlir::func::FuncOp fn, mlir::DictionaryAttr attrs) const = 0;

  /// Builds the fused computation of `operands` (the function's arguments)
  /// at the builder's insertion point and returns one value per function
  /// result (it may return more: the leading ones are used). Called only
  /// after verify() succeeded; a failure must have emitted a diagnostic
  /// (the pass turns it into a warning).
  virtual mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  build(mlir::OpBuilder &builder, mlir::Location loc, mlir::ValueRange operands,
        mlir::DictionaryAttr attrs) const = 0;
};

/// Composite names to converters. Names match ignoring case, '_' and '-';
/// a dotted name ("<domain>.<name>", as ONNX model-local functions are
/// named) matches by its last part.
class CompositeRegistry {
public:
  /// The process-wide registry, holding the built-in converters.
  static CompositeRegistry &global();

  /// Registers `converter` for `name`; replaces an earlier registration of
  /// the same (normalized) name.
  void add(llvm::StringRef name, std::shared_ptr<CompositeConverter> converter);
  /// The converter for `name`, or null.
  const CompositeConverter *lookup(llvm::StringRef name) const;
  /// The registered names (as first registered), sorted.
  std::vector<std::string> names() const;

  /// "Layer-Norm", "custom.layer_norm" -> "layernorm".
  static std::string normalize(llvm::StringRef name);

private:
  struct Entry {
    std::string name;
    std::shared_ptr<CompositeConverter> converter;
  };
  llvm::StringMap<Entry> converters;
};

/// Registers the built-in converters (CompositeConverters.cpp,
/// CompositeRecurrent.cpp).
void registerBuiltinCompositeConverters(CompositeRegistry &registry);
void registerRecurrentCompositeConverters(CompositeRegistry &registry);

//===----------------------------------------------------------------------===//
// Helpers for converters
//===----------------------------------------------------------------------===//

/// `type` as a ranked tensor with a float element type, else null.
mlir::RankedTensorType rankedFloatTensor(mlir::Type type);

/// Why an attribute of `attrs` named in `known` holds another kind of value
/// than it must (naming the attribute and the value); nullopt if none does.
std::optional<std::string>
checkAttributeKinds(mlir::DictionaryAttr attrs,
                    llvm::ArrayRef<ConverterAttr> known);

/// Runs `body` and `fused` (a function of the same signature holding the
/// fused op) through the reference interpreter on seeded inputs (floats in
/// [-1, 1), integers in {0, 1}); returns how they differ beyond rounding, or
/// why the check could not be made; nullopt when they agree. Weights in the
/// bodies need their values attached. (CompositeEquivalence.cpp)
std::optional<std::string> checkFusedMatchesBody(mlir::func::FuncOp body,
                                                 mlir::func::FuncOp fused);

/// Converter attribute `name` as a number (float, integer or bool attr).
std::optional<double> numberAttr(mlir::DictionaryAttr attrs,
                                 llvm::StringRef name);
/// Converter attribute `name` as a string.
std::optional<std::string> stringAttr(mlir::DictionaryAttr attrs,
                                      llvm::StringRef name);

/// Infers the result shapes of `op` (created with unranked results) and
/// verifies it; emits the op's diagnostic on failure.
mlir::LogicalResult finishFusedOp(mlir::Operation *op);

/// Creates `OpTy` with `numResults` unranked results of `elementType`,
/// then infers their shapes and verifies it (finishFusedOp).
template <typename OpTy>
mlir::FailureOr<OpTy> createFused(mlir::OpBuilder &builder, mlir::Location loc,
                                  unsigned numResults, mlir::Type elementType,
                                  mlir::ValueRange operands,
                                  llvm::ArrayRef<mlir::NamedAttribute> attrs) {
  llvm::SmallVector<mlir::Type> types(
      numResults, mlir::UnrankedTensorType::get(elementType));
  OpTy op = OpTy::create(builder, loc, mlir::TypeRange(types), operands, attrs);
  if (mlir::failed(finishFusedOp(op.getOperation())))
    return mlir::failure();
  return op;
}

/// A constant `top.Weight` of `type` holding `t`, named uniquely after
/// `base` in the enclosing module.
mlir::Value createFusedConstant(mlir::OpBuilder &builder, mlir::Location loc,
                                llvm::StringRef base, const Tensor &t,
                                mlir::RankedTensorType type);

/// A `top.None` (absent optional operand).
mlir::Value createNone(mlir::OpBuilder &builder, mlir::Location loc);

} // namespace strata::top

#endif // STRATA_DIALECT_TOP_TRANSFORMS_COMPOSITEREGISTRY_H
