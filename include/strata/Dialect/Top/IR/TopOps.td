//===- TopOps.td - Top dialect ops -------------------------*- tablegen -*-===//
//
// Ops are grouped by family; each family's C++ (verifier, shape inference,
// FLOPs, reference semantics) is in lib/Dialect/Top/IR/<Family>Ops.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_OPS
#define STRATA_TOP_OPS

include "strata/Dialect/Top/IR/TopBase.td"
include "strata/Dialect/Top/IR/TopEnums.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

include "strata/Dialect/Top/IR/TopCoreOps.td"
include "strata/Dialect/Top/IR/TopNNOps.td"
include "strata/Dialect/Top/IR/TopElementwiseOps.td"
include "strata/Dialect/Top/IR/TopShapeOps.td"
include "strata/Dialect/Top/IR/TopQuantOps.td"
include "strata/Dialect/Top/IR/TopMathOps.td"
include "strata/Dialect/Top/IR/TopRecurrentOps.td"
include "strata/Dialect/Top/IR/TopControlFlowOps.td"
include "strata/Dialect/Top/IR/TopTypeOps.td"
include "strata/Dialect/Top/IR/TopGeometryOps.td"
include "strata/Dialect/Top/IR/TopTransformerOps.td"
include "strata/Dialect/Top/IR/TopSelectOps.td"

#endif // STRATA_TOP_OPS
