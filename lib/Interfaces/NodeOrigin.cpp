//===- NodeOrigin.cpp - the model node an op was imported from ------------===//

#include "strata/Interfaces/NodeOrigin.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

using namespace mlir;

namespace strata {

Location nodeLocation(MLIRContext *ctx, StringRef value, StringRef node,
                      StringRef opType) {
  std::string who = node.empty() ? std::string("unnamed ONNX node")
                                 : "ONNX node '" + node.str() + "'";
  Location origin =
      NameLoc::get(StringAttr::get(ctx, who + " (" + opType.str() + ")"));
  return NameLoc::get(StringAttr::get(ctx, value), origin);
}

NodeOrigin nodeOrigin(Location loc) {
  NodeOrigin origin;
  loc->walk([&](Location l) {
    auto name = dyn_cast<NameLoc>(l);
    if (!name)
      return WalkResult::advance();
    origin.value = name.getName().str();
    if (auto node = dyn_cast<NameLoc>(name.getChildLoc()))
      origin.node = node.getName().str();
    return WalkResult::interrupt();
  });
  return origin;
}

std::string describeOrigin(const NodeOrigin &origin) {
  std::string s = origin.node;
  if (!origin.value.empty())
    s += (s.empty() ? "" : ", ") + ("value '" + origin.value + "'");
  return s;
}

std::string originSuffix(Location loc) {
  std::string s = describeOrigin(nodeOrigin(loc));
  return s.empty() ? s : " (" + s + ")";
}

OriginDiagnostics::OriginDiagnostics(Operation *op) : ctx(op->getContext()) {
  Location loc = op->getLoc();
  if (isa<UnknownLoc>(loc))
    return;
  id = ctx->getDiagEngine().registerHandler(
      [loc](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Error ||
            diag.getLocation() != loc)
          return failure();
        std::string suffix = describeOrigin(nodeOrigin(loc));
        if (suffix.empty())
          return failure();
        std::string message = diag.str();
        // Already named: by the op's own message, or by the handler of an
        // op of the same node around this one (a Loop and its body).
        if (message.find(suffix) == std::string::npos)
          diag << " (" << suffix << ")";
        return failure();
      });
}

OriginDiagnostics::~OriginDiagnostics() {
  if (id)
    ctx->getDiagEngine().eraseHandler(id);
}

} // namespace strata
