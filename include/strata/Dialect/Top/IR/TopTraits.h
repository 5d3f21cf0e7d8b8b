//===- TopTraits.h - properties of Top ops passes ask about -----*- C++ -*-===//
//
// The C++ side of the traits declared in TopBase.td. Passes ask
// `op->hasTrait<top::OpTrait::Elementwise>()` instead of keeping lists of ops.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_IR_TOPTRAITS_H
#define STRATA_DIALECT_TOP_IR_TOPTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace strata::top::OpTrait {

/// Each result element depends only on the operand elements at the same
/// index after numpy broadcasting.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};

/// The op only moves, copies or reinterprets elements.
template <typename ConcreteType>
class ShapeOnly : public mlir::OpTrait::TraitBase<ConcreteType, ShapeOnly> {};

} // namespace strata::top::OpTrait

#endif // STRATA_DIALECT_TOP_IR_TOPTRAITS_H
