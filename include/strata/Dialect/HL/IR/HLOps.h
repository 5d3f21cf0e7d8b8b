//===- HLOps.h - the NPU's kernel-level dialect -----------------*- C++ -*-===//
//
// HL (docs/npu.md): one op per hand kernel of the NPU, NCHW, with operands
// and attributes as the hardware takes them.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_HL_IR_HLOPS_H
#define STRATA_DIALECT_HL_IR_HLOPS_H

#include "strata/Interpreter/InterpretableOpInterface.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "strata/Dialect/HL/IR/HLOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "strata/Dialect/HL/IR/HLOps.h.inc"

namespace strata::hl {

/// The number format an HL op computes in, read from an element type:
/// int8 (`i8`, `ui8` or `!quant.uniform` with 8-bit storage), bf16, or
/// neither.
enum class Format { Int8, BF16, Other };
Format formatOf(mlir::Type type);

/// Whether an element type is signed 16-bit integer storage (`i16`, `si16`
/// or a signed `!quant.uniform` with 16-bit storage): an int16
/// pre-activation for hl.table16.
bool isSignedInt16(mlir::Type type);

/// The integer range of an int8 element type's storage (`!quant.uniform`
/// with a narrowed range gives that range).
std::pair<int64_t, int64_t> storageRange(mlir::Type type);

/// The output extent of a window: `(in + padBegin + padEnd - dil*(k-1) - 1)
/// / stride + 1`, or 0 if the window does not fit.
int64_t windowOutputSize(int64_t in, int64_t padBegin, int64_t padEnd,
                         int64_t kernel, int64_t stride, int64_t dilation);

/// The phase extent `hl.segmentation` gives a dim of size `in` padded by
/// `padBegin + padEnd` for stride `s`: `ceil((in + padBegin + padEnd) / s)`.
int64_t segmentedSize(int64_t in, int64_t padBegin, int64_t padEnd, int64_t s);

} // namespace strata::hl

#endif // STRATA_DIALECT_HL_IR_HLOPS_H
