//===- ControlFlowShapes.h - shape functions of ControlFlow ops -*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ControlFlowOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions.
//
// A region op's result shapes follow from its operands and from the shapes
// its body declares it yields (the types of the yielded values, which may
// have dynamic dims). What only running the body tells (the trip count of a
// Loop, a dim the body's types leave open) is kDynamicDim; the interpreter
// takes it from the tensors the body produces.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_CONTROLFLOWSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_CONTROLFLOWSHAPES_H

#include "strata/Support/ShapeFunction.h"
#include "strata/Support/Tensor.h"

#include <vector>

namespace strata::top::shapes {

/// The shape two sources give one value (equal ranks): dims on which they
/// agree stay, the others are kDynamicDim.
Shape joinShapes(Ints a, Ints b);

/// The value of a one-element integer tensor (a trip count); the error
/// reads "<what> must have one element at run time, got shape [..]".
ShapeOr<int64_t> readScalar(const char *what, const Tensor &t);
/// The truth value of a one-element condition tensor (see readScalar).
ShapeOr<bool> readCondition(const char *what, const Tensor &cond);

/// If: result i is the shape branch `then` or `else` yields for it
/// (`thenYields[i]`, `elseYields[i]`, of equal ranks: "the branches yield
/// value #i with different ranks (.. and ..)"). With the condition's
/// value (`cond`, else nullptr) the taken branch's; without it, the join of
/// both: static only where both branches agree.
ShapeOr<Shapes> inferIf(const std::vector<Ints> &thenYields,
                        const std::vector<Ints> &elseYields,
                        const Tensor *cond);

/// The operands and body of a Loop, as far as its result shapes go.
struct LoopShapeInputs {
  std::vector<Ints> initial;       ///< the carried values' initial shapes
  std::vector<Ints> carriedYields; ///< the shapes the body yields for them
  std::vector<Ints> scanYields;    ///< the shapes of one scan output slice
  /// The values of `max_trip_count` and `cond` when known and given (else
  /// nullptr).
  const Tensor *maxTripCount = nullptr;
  const Tensor *cond = nullptr;
};

/// Loop: carried value k has the join of its initial shape and the shape the
/// body yields for it (of the same rank: "the body yields carried value #k
/// with rank .. but its initial value has rank .."); scan output s is its
/// slices stacked on a new leading dim, the trip count. That count is 0 when
/// the operands' values say no iteration runs (`max_trip_count` <= 0 or `cond`
/// false) and otherwise kDynamicDim: the body's condition decides. Checks that
/// the given `max_trip_count` and `cond` have one element ("operand '<name>'
/// must have one element at run time, got shape [..]").
ShapeOr<Shapes> inferLoop(const LoopShapeInputs &in);

/// The number of iterations of a Scan: the common length of the scan inputs
/// (`scanInputs`) along their axes (`axes`, one per input, may be negative;
/// kDynamicDim when no input's length is known). Errors name the axis out of
/// range or the first input whose length disagrees.
ShapeOr<int64_t> scanLength(const std::vector<Ints> &scanInputs, Ints axes);

/// The operands, attributes and body of a Scan, as far as its result shapes
/// go.
struct ScanShapeInputs {
  std::vector<Ints> states;       ///< the states' initial shapes
  std::vector<Ints> stateYields;  ///< the shapes the body yields for them
  std::vector<Ints> scanInputs;   ///< the scanned operands' shapes
  Ints scanInputAxes;             ///< one per scan input
  std::vector<Ints> outputYields; ///< the shape of one scan output slice
  Ints scanOutputAxes;            ///< one per scan output
};

/// Scan: state k has the join of its initial shape and the shape the body
/// yields for it (of the same rank, as for Loop); scan output s is its slice
/// shape with the scan length (scanLength) inserted at `scanOutputAxes[s]`,
/// which counts on the output rank ("attribute 'scan_output_axes' = <a> is out
/// of range for rank <r>").
ShapeOr<Shapes> inferScan(const ScanShapeInputs &in);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_CONTROLFLOWSHAPES_H
