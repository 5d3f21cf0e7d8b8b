//===- RecurrentShapes.h - shape functions of Recurrent ops -----*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/RecurrentOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions. LSTM, GRU and RNN
// share one rule; they differ in their number of gates and results.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_RECURRENTSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_RECURRENTSHAPES_H

#include "strata/Support/ShapeFunction.h"

#include <string>

namespace strata::top::shapes {

/// The attributes of an LSTM, GRU or RNN that its shapes depend on.
struct RecurrentAttrs {
  int64_t gates = 1;       ///< G: 4 for LSTM, 3 for GRU, 1 for RNN
  int64_t hiddenSize = 0;  ///< attribute 'hidden_size'
  std::string direction;   ///< "forward", "reverse" or "bidirectional"
  int64_t layout = 0;      ///< 0: [seq, batch, ..]; 1: [batch, seq, ..]
  unsigned numResults = 2; ///< Y, Y_h (and Y_c for LSTM)
};

/// The operand shapes of an LSTM, GRU or RNN; an absent optional operand is
/// nullopt (GRU and RNN have no initial_c or peepholes).
struct RecurrentOperands {
  Ints input, weight, recurrence;
  std::optional<Ints> bias, sequenceLens, initialH, initialC, peepholes;
};

/// The sizes of one recurrent op.
struct RecurrentDims {
  int64_t seq, batch, inputSize, hidden, gates, dirs;
};

/// Checks 'hidden_size' (in [1, 2^32]), 'layout' (0 or 1) and 'direction';
/// returns the number of directions (2 for "bidirectional", else 1).
ShapeOr<int64_t> checkRecurrentAttrs(const RecurrentAttrs &attrs);

/// Checks the attributes and every operand's shape against the input's
/// ("operand '<name>' must have shape [..], got [..]"); returns the sizes.
/// A dynamic dim matches any size.
ShapeOr<RecurrentDims> recurrentDims(const RecurrentOperands &operands,
                                     const RecurrentAttrs &attrs);

/// LSTM, GRU, RNN: Y [seq, dirs, batch, hidden], then `numResults - 1`
/// final states [dirs, batch, hidden]; with layout 1, [batch, seq, dirs,
/// hidden] and [batch, dirs, hidden].
ShapeOr<Shapes> inferRecurrent(const RecurrentOperands &operands,
                               const RecurrentAttrs &attrs);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_RECURRENTSHAPES_H
