//===- WorkloadFromOp.h - reading an op into a workload ---------*- C++ -*-===//
//
// The one place the strategy reads MLIR: an op's operand and result types
// and its inherent attributes (defaults filled in) become a plain Workload.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_STRATEGYMLIR_WORKLOADFROMOP_H
#define STRATA_STRATEGYMLIR_WORKLOADFROMOP_H

#include "strata/Strategy/Workload.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace strata::strategy {

/// The dtype spelling of an element type (`f32`, `i8`, `ui8`, `qi8`, ...);
/// `none` for NoneType.
std::string dtypeSpelling(mlir::Type type);

/// An attribute as a plain value: bool, integer, float, string, dense
/// i64/i32/f64/f32 arrays, arrays of ints/floats/strings, and enum
/// attributes as their case's string (through the printed form
/// `#dialect.kind<value>`). nullopt for anything else (dense elements,
/// types, dictionaries), which the workload leaves out.
std::optional<AttrValue> attrValueOf(mlir::Attribute attr);

/// The workload of `op`: operands and results (tensor types; `none` for a
/// NoneType operand), inherent attributes with the op's ODS defaults
/// filled in, then completeWorkloadDefaults. Discardable attributes
/// (`strata.impl`, ...) are not part of it. Errors name the operand or
/// result whose type is not a tensor.
ShapeOr<Workload> workloadFromOp(mlir::Operation *op);

} // namespace strata::strategy

#endif // STRATA_STRATEGYMLIR_WORKLOADFROMOP_H
