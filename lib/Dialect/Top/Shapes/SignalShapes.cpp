//===- SignalShapes.cpp - shape functions of the Signal ops ---------------===//

#include "strata/Dialect/Top/Shapes/SignalShapes.h"

#include <utility>

namespace strata::top::shapes {

namespace {
/// Checks a "[*, C]" operand `what` whose last dim is 1 (real) or 2
/// (complex).
std::optional<ShapeError> checkComplexLastDim(const char *what, Ints shape,
                                              size_t minRank) {
  if (shape.size() < minRank || (shape.back() != 1 && shape.back() != 2))
    return ShapeError() << what << " shape " << shape
                        << " must have rank >= " << minRank
                        << " and a last dim of 1 (real) or 2 (complex)";
  return std::nullopt;
}

/// `shape` if its element count is countable, else the error.
ShapeOr<Shape> checkedShape(Shape shape) {
  ShapeOr<int64_t> count = checkedShapeElementCount(shape);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return shape;
}
} // namespace

ShapeOr<Shape> inferWindow(int64_t size) {
  if (size < 0)
    return ShapeError() << "attribute 'size' = " << size << " must be >= 0";
  return Shape{size};
}

ShapeOr<Shape> inferMelWeightMatrix(const MelWeightMatrixAttrs &attrs,
                                    Ints lowerEdgeHertz, Ints upperEdgeHertz) {
  // Bounds keep the corner-bin arithmetic exact and the matrix addressable.
  constexpr int64_t kMax = int64_t(1) << 24;
  for (auto [name, value] :
       {std::pair<const char *, int64_t>{"num_mel_bins", attrs.numMelBins},
        {"dft_length", attrs.dftLength},
        {"sample_rate", attrs.sampleRate}})
    if (value < 1 || value > kMax)
      return ShapeError() << "attribute '" << name << "' = " << value
                          << " must be in [1, 2^24]";
  for (auto [name, shape] :
       {std::pair<const char *, Ints>{"lower_edge_hertz", lowerEdgeHertz},
        {"upper_edge_hertz", upperEdgeHertz}}) {
    ShapeOr<int64_t> count = checkedShapeElementCount(shape);
    if (!count)
      return ShapeOr<Shape>::errorOf(count);
    if (*count != 1)
      return ShapeError() << "operand '" << name << "' shape " << shape
                          << " must have one element";
  }
  return Shape{attrs.dftLength / 2 + 1, attrs.numMelBins};
}

ShapeOr<Shape> inferDFT(Ints input, const DFTAttrs &attrs) {
  if (auto error = checkComplexLastDim("operand 'input'", input, 3))
    return *error;
  int64_t rank = input.rank(), axis = attrs.axis, len = attrs.dftLength;
  if (len < 1)
    return ShapeError() << "attribute 'dft_length' = " << len
                        << " must be >= 1";
  if (axis < 0 || axis > rank - 2)
    return ShapeError() << "attribute 'axis' = " << axis
                        << " must be a signal dim in [0, " << rank - 2 << "]";
  bool realInverse = attrs.inverse && attrs.onesided;
  Shape out = input.vec();
  out[axis] = attrs.onesided && !attrs.inverse ? len / 2 + 1 : len;
  out.back() = realInverse ? 1 : 2;
  return checkedShape(std::move(out));
}

ShapeOr<Shape> inferSTFT(Ints signal, std::optional<Ints> window,
                         const STFTAttrs &attrs) {
  int64_t step = attrs.frameStep, frameLength = attrs.frameLength;
  if (step < 1)
    return ShapeError() << "attribute 'frame_step' = " << step
                        << " must be >= 1";
  if (frameLength < 1)
    return ShapeError() << "attribute 'frame_length' = " << frameLength
                        << " must be >= 1";
  if (auto error = checkComplexLastDim("operand 'signal'", signal, 3))
    return *error;
  if (signal.size() != 3)
    return ShapeError() << "operand 'signal' shape " << signal
                        << " must be [batch, length, 1 or 2]";
  if (frameLength > signal[1])
    return ShapeError() << "attribute 'frame_length' = " << frameLength
                        << " exceeds the signal length " << signal[1];
  if (window && (window->size() != 1 || (*window)[0] != frameLength))
    return ShapeError() << "operand 'window' shape " << *window
                        << " must be [frame_length] = [" << frameLength << "]";
  int64_t frames = (signal[1] - frameLength) / step + 1;
  int64_t bins = attrs.onesided ? frameLength / 2 + 1 : frameLength;
  return checkedShape(Shape{signal[0], frames, bins, 2});
}

} // namespace strata::top::shapes
