//===- ControlFlowShapes.cpp - shape functions of ControlFlow ops ---------===//

#include "strata/Dialect/Top/Shapes/ControlFlowShapes.h"

namespace strata::top::shapes {

Shape joinShapes(Ints a, Ints b) {
  assert(a.size() == b.size() && "joined shapes must have equal ranks");
  Shape out = a.vec();
  for (size_t d = 0; d < out.size(); ++d)
    if (a[d] != b[d])
      out[d] = kDynamicDim;
  return out;
}

ShapeOr<int64_t> readScalar(const char *what, const Tensor &t) {
  if (t.numElements() != 1)
    return ShapeError() << what << " must have one element at run time, "
                        << "got shape " << t.shape();
  return t.getAsInt(0);
}

ShapeOr<bool> readCondition(const char *what, const Tensor &cond) {
  ShapeOr<int64_t> v = readScalar(what, cond);
  if (!v)
    return ShapeOr<bool>::errorOf(v);
  return *v != 0;
}

ShapeOr<Shapes> inferIf(const std::vector<Ints> &thenYields,
                        const std::vector<Ints> &elseYields,
                        const Tensor *cond) {
  assert(thenYields.size() == elseYields.size() && "both branches yield");
  std::optional<bool> taken;
  if (cond) {
    ShapeOr<bool> c = readCondition("operand 'cond'", *cond);
    if (!c)
      return ShapeOr<Shapes>::errorOf(c);
    taken = *c;
  }
  Shapes out;
  for (size_t i = 0; i < thenYields.size(); ++i) {
    if (thenYields[i].size() != elseYields[i].size())
      return ShapeError() << "the branches yield value #" << i
                          << " with different ranks (" << thenYields[i].size()
                          << " and " << elseYields[i].size() << ")";
    if (taken)
      out.push_back(*taken ? thenYields[i].vec() : elseYields[i].vec());
    else
      out.push_back(joinShapes(thenYields[i], elseYields[i]));
  }
  return out;
}

namespace {
/// The iteration count of a Loop as its operands' values give it: 0 when
/// they prove that no iteration runs, else kDynamicDim.
ShapeOr<int64_t> loopTripCount(const Tensor *maxTripCount, const Tensor *cond) {
  bool none = false;
  if (maxTripCount) {
    ShapeOr<int64_t> m = readScalar("operand 'max_trip_count'", *maxTripCount);
    if (!m)
      return m;
    none = *m <= 0;
  }
  if (cond) {
    ShapeOr<bool> c = readCondition("operand 'cond'", *cond);
    if (!c)
      return ShapeOr<int64_t>::errorOf(c);
    none = none || !*c;
  }
  return none ? 0 : kDynamicDim;
}

/// The join of a carried value's (or state's) initial shape and the shape
/// the body yields for it; an error names `what` (#`index`) if their ranks
/// differ.
ShapeOr<Shape> joinCarried(const char *what, size_t index, Ints initial,
                           Ints yielded) {
  if (initial.size() != yielded.size())
    return ShapeError() << "the body yields " << what << " #" << index
                        << " with rank " << yielded.size()
                        << " but its initial value has rank " << initial.size();
  return joinShapes(initial, yielded);
}
} // namespace

ShapeOr<Shapes> inferLoop(const LoopShapeInputs &in) {
  assert(in.initial.size() == in.carriedYields.size() &&
         "one yield per carried value");
  ShapeOr<int64_t> trips = loopTripCount(in.maxTripCount, in.cond);
  if (!trips)
    return ShapeOr<Shapes>::errorOf(trips);
  Shapes out;
  for (size_t k = 0; k < in.initial.size(); ++k) {
    ShapeOr<Shape> carried =
        joinCarried("carried value", k, in.initial[k], in.carriedYields[k]);
    if (!carried)
      return ShapeOr<Shapes>::errorOf(carried);
    out.push_back(*carried);
  }
  for (Ints slice : in.scanYields) {
    Shape shape{*trips};
    shape.insert(shape.end(), slice.begin(), slice.end());
    out.push_back(shape);
  }
  return out;
}

ShapeOr<int64_t> scanLength(const std::vector<Ints> &scanInputs, Ints axes) {
  assert(axes.size() == scanInputs.size() && "one axis per scan input");
  int64_t length = kDynamicDim;
  size_t from = 0; // the input `length` was read from
  for (size_t j = 0; j < scanInputs.size(); ++j) {
    int64_t rank = scanInputs[j].rank();
    int64_t a = axes[j] < 0 ? axes[j] + rank : axes[j];
    if (a < 0 || a >= rank)
      return ShapeError() << "attribute 'scan_input_axes' entry " << axes[j]
                          << " is out of range for scan input #" << j
                          << " of rank " << rank;
    int64_t len = scanInputs[j][a];
    if (isDynamicDim(len))
      continue;
    if (isDynamicDim(length)) {
      length = len;
      from = j;
    } else if (len != length) {
      return ShapeError() << "scan input #" << j << " has " << len
                          << " slices along axis " << a << " but scan input #"
                          << from << " has " << length;
    }
  }
  return length;
}

ShapeOr<Shapes> inferScan(const ScanShapeInputs &in) {
  assert(in.states.size() == in.stateYields.size() &&
         in.outputYields.size() == in.scanOutputAxes.size() &&
         "one yield per state, one axis per scan output");
  ShapeOr<int64_t> length = scanLength(in.scanInputs, in.scanInputAxes);
  if (!length)
    return ShapeOr<Shapes>::errorOf(length);
  Shapes out;
  for (size_t k = 0; k < in.states.size(); ++k) {
    ShapeOr<Shape> state =
        joinCarried("state", k, in.states[k], in.stateYields[k]);
    if (!state)
      return ShapeOr<Shapes>::errorOf(state);
    out.push_back(*state);
  }
  for (size_t s = 0; s < in.outputYields.size(); ++s) {
    Shape shape = in.outputYields[s].vec();
    ShapeOr<int64_t> axis =
        normalizeAxisAttr("scan_output_axes", in.scanOutputAxes[s],
                          static_cast<int64_t>(shape.size()) + 1);
    if (!axis)
      return ShapeOr<Shapes>::errorOf(axis);
    shape.insert(shape.begin() + *axis, *length);
    out.push_back(shape);
  }
  return out;
}

} // namespace strata::top::shapes
