//===- TopEnums.h - Top dialect enum attributes -----------------*- C++ -*-===//
//
// The closed sets of names Top op attributes take (TopEnums.td): the C++
// enums with `stringify*` / `symbolize*`, and their dialect attributes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_IR_TOPENUMS_H
#define STRATA_DIALECT_TOP_IR_TOPENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "strata/Dialect/Top/IR/TopEnums.h.inc"

#include <string>

namespace strata::top {
/// The names of Top enum `E` for diagnostics, quoted and comma separated
/// (`"constant", "reflect", ...`). TopEnums.td numbers the cases of every
/// enum 0, 1, ...
template <typename E> std::string enumNames() {
  std::string names;
  for (uint32_t i = 0;; ++i) {
    llvm::StringRef name = stringifyEnum(static_cast<E>(i));
    if (name.empty())
      return names;
    names += (i ? ", \"" : "\"") + name.str() + "\"";
  }
}
} // namespace strata::top

#define GET_ATTRDEF_CLASSES
#include "strata/Dialect/Top/IR/TopAttrs.h.inc"

#endif // STRATA_DIALECT_TOP_IR_TOPENUMS_H
