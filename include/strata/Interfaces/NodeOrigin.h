//===- NodeOrigin.h - the model node an op was imported from ----*- C++ -*-===//
//
// An imported op's location names where it came from: the model's name of
// its value (a NameLoc, as before) whose child location names the ONNX node
// it was imported from, with its op type:
//
//   loc("y"("ONNX node 'mod1' (Mod)"))
//
// so that an error of any op, including the several Top ops one ONNX node
// becomes (Mod is Div, Mul and Sub), names the node a user knows; the
// location also reads well where a tool prints it before a message.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERFACES_NODEORIGIN_H
#define STRATA_INTERFACES_NODEORIGIN_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace strata {

/// What a location says about where an op came from; empty fields are
/// unknown.
struct NodeOrigin {
  /// The model's name of the op's (first) value.
  std::string value;
  /// The node it was imported from: "ONNX node 'mod1' (Mod)", or "unnamed
  /// ONNX node (Mod)" (node names are optional).
  std::string node;
};

/// The location of the ops imported from ONNX node `node` (op type
/// `opType`) whose first output is `value`.
mlir::Location nodeLocation(mlir::MLIRContext *ctx, llvm::StringRef value,
                            llvm::StringRef node, llvm::StringRef opType);

/// The origin carried by `loc`: its first name location and that one's
/// child name, if any (fused locations, as passes make them when they merge
/// ops, are searched).
NodeOrigin nodeOrigin(mlir::Location loc);

/// `origin` for a message: "ONNX node 'mod1' (Mod), value 'y'", "value 'y'"
/// or "" when nothing is known.
std::string describeOrigin(const NodeOrigin &origin);

/// " (ONNX node 'mod1' (Mod), value 'y')" for `loc`, or "".
std::string originSuffix(mlir::Location loc);

/// For the lifetime of this object, appends `op`'s origin suffix to every
/// error located at `op` (its own, or one of the ops of the same node) that
/// does not name it yet, then lets the other handlers print it. The
/// interpreter runs each op under one: every run-time error, the limits'
/// included, names the node it comes from.
class OriginDiagnostics {
public:
  explicit OriginDiagnostics(mlir::Operation *op);
  ~OriginDiagnostics();
  OriginDiagnostics(const OriginDiagnostics &) = delete;
  OriginDiagnostics &operator=(const OriginDiagnostics &) = delete;

private:
  mlir::MLIRContext *ctx;
  uint64_t id = 0;
};

} // namespace strata

#endif // STRATA_INTERFACES_NODEORIGIN_H
