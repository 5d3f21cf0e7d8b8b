//===- SignalShapes.h - shape functions of the Signal ops -------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/SignalOps.cpp; see
// strata/Support/ShapeFunction.h for the conventions. Complex tensors are
// real tensors whose last dim holds (real, imaginary): 1 means real only.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_SIGNALSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_SIGNALSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

/// Window: [size], with attribute `size` >= 0.
ShapeOr<Shape> inferWindow(int64_t size);

/// The attributes of MelWeightMatrix.
struct MelWeightMatrixAttrs {
  int64_t numMelBins = 0;
  int64_t dftLength = 0;
  int64_t sampleRate = 0;
};

/// MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins]. The three
/// attributes must be in [1, 2^24]; the band-edge operands (their shapes
/// `lowerEdgeHertz`, `upperEdgeHertz`) must hold one element each.
ShapeOr<Shape> inferMelWeightMatrix(const MelWeightMatrixAttrs &attrs,
                                    Ints lowerEdgeHertz, Ints upperEdgeHertz);

/// The attributes of DFT.
struct DFTAttrs {
  int64_t axis = 1;
  int64_t dftLength = 0;
  bool inverse = false;
  bool onesided = false;
};

/// DFT: `input` is [*, C] with rank >= 3 and C 1 or 2; the signal dim
/// `axis` (in [0, rank - 2]) becomes the number of bins (dft_length, or
/// dft_length / 2 + 1 for a onesided forward transform) and the last dim 2
/// (1 for a onesided inverse transform, which is real).
ShapeOr<Shape> inferDFT(Ints input, const DFTAttrs &attrs);

/// The attributes of STFT.
struct STFTAttrs {
  int64_t frameStep = 0;
  int64_t frameLength = 0;
  bool onesided = false;
};

/// STFT: `signal` is [batch, length, 1 or 2], `window` (when given) is
/// [frame_length]; the result is [batch, frames, bins, 2] with frames =
/// (length - frame_length) / frame_step + 1 and bins = frame_length (or
/// frame_length / 2 + 1 when onesided).
ShapeOr<Shape> inferSTFT(Ints signal, std::optional<Ints> window,
                         const STFTAttrs &attrs);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_SIGNALSHAPES_H
