//===- Tabulate.h - a chain of ops on every int8 value ----------*- C++ -*-===//
//
// The int8 -> int8 table of a Dequant -> one-operand float ops -> Quant
// chain: its entries are what the reference interpreter computes for each
// of the `entries` input values, so a table lookup (the NPU's hl.table,
// the CPU's table_i8 kernel) gives the Top model's bytes.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_INTERPRETER_TABULATE_H
#define STRATA_INTERPRETER_TABULATE_H

#include "strata/Support/Tensor.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <vector>

namespace strata {

/// Runs `ops` (each reading the previous one's result as operand 0; the
/// first reads every int8 value -entries/2 .. entries/2 - 1) through their
/// interpreter semantics: the table `t[q + entries/2] = ops(q)`. Fails
/// when an op has no interpreter semantics or fails.
mlir::FailureOr<Tensor> tabulateChain(llvm::ArrayRef<mlir::Operation *> ops,
                                      int64_t entries);

/// The per-channel tables of a chain whose first op reads a per-axis value
/// on dim 1 (a Dequant with `!quant.uniform<i8:f32:1, {...}>`): `ops` run
/// on a [1, channels, entries] tensor whose every row holds -entries/2 ..
/// entries/2 - 1; the result's row c is channel c's table.
mlir::FailureOr<Tensor>
tabulateChainPerChannel(llvm::ArrayRef<mlir::Operation *> ops, int64_t channels,
                        int64_t entries);

/// The 513 entries of an int16 -> int8 interpolated table
/// (strata/Support/IntegerTable16.h, top.Table16) of the float ops `ops`
/// (in block order) that compute `output` from `input` (a float value, the
/// Dequant of the int16 pre-activation with `inScale` / `inZp`): entry i
/// is intq::table16Entry of the interpreter's `output` at the real input
/// `(table16EntryInput(i) - inZp) * inScale` (rounded once to f32, as
/// top.Dequant does), in the int8 output's `outScale`, `outZp`, `qmin`,
/// `qmax`. Fails when an op reads a value other than `input` and the
/// results of earlier ops of `ops`, has no interpreter semantics, or fails.
mlir::FailureOr<std::vector<int16_t>>
tabulateTable16(llvm::ArrayRef<mlir::Operation *> ops, mlir::Value input,
                mlir::Value output, double inScale, int64_t inZp,
                double outScale, int64_t outZp, int64_t qmin, int64_t qmax);

} // namespace strata

#endif // STRATA_INTERPRETER_TABULATE_H
