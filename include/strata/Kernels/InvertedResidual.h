//===- InvertedResidual.h - fused MobileNetV2 block -------------*- C++ -*-===//
//
// The inverted-residual block of MobileNetV2-style models as one kernel:
//   t = act1(W1 * x + b1)             1x1 expansion, C -> E channels
//   u = act2(depthwise3x3(t) + b2)    stride 1 or 2, any pads
//   y = act3(W3 * u + b3 + residual)  1x1 projection, E -> P channels
// computed over strips of output rows, so the expanded tensors of a strip
// (E x strip rows) stay in the L2 cache instead of going to memory and back
// (MobileNetV2's first block expands 16 -> 96 channels at 112x112: 4.8 MB
// written by the expansion, read back by the depthwise). The expansion rows
// a strip shares with the previous one (its 3x3 window's halo) are kept, not
// recomputed, when one call computes both strips.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_KERNELS_INVERTEDRESIDUAL_H
#define STRATA_KERNELS_INVERTEDRESIDUAL_H

#include "strata/Kernels/Conv.h"

#include <string>

namespace strata::kernels {

struct InvertedResidualShape {
  int64_t n = 1, c = 1, h = 1, w = 1;     ///< input N x C x H x W
  int64_t e = 1;                          ///< expanded channels
  int64_t p = 1;                          ///< output channels
  int64_t stride = 1;                     ///< the depthwise stride (1 or 2)
  int64_t pt = 1, pl = 1, pb = 1, pr = 1; ///< the depthwise pads
  int64_t oh = 1, ow = 1;                 ///< output spatial dims

  /// The depthwise convolution over the whole image.
  Conv2dShape depthwiseShape() const;
};

/// Empty when the shape holds (positive sizes, stride 1 or 2, OH/OW follow
/// from the pads, every size fits), else what is wrong.
std::string checkInvertedResidualShape(const InvertedResidualShape &s);

/// Output rows per strip: the largest count whose expanded input rows and
/// depthwise output rows (E channels each) fit in `cacheBytes`, at least
/// one and at most OH.
int64_t invertedResidualStripRows(const InvertedResidualShape &s,
                                  int64_t cacheBytes);
/// Half the L2 cache this CPU reports (512 KiB when it reports none): the
/// strip budget the runtime uses.
int64_t invertedResidualCacheBytes();

/// Units of work: (image, strip of `stripRows` output rows).
int64_t invertedResidualUnits(const InvertedResidualShape &s,
                              int64_t stripRows);

/// The three stages' weights. `w1` (E x C) and `w3` (P x E) are packed as
/// GEMM A operands (packA); `dw` is the E x 3 x 3 depthwise filter. Biases
/// may be null; `e1`..`e3` give the activations (their bias fields are
/// ignored); `residual` (N x P x OH x OW, not overlapping y) may be null.
struct InvertedResidualWeights {
  const float *w1 = nullptr, *b1 = nullptr;
  const float *dw = nullptr, *b2 = nullptr;
  const float *w3 = nullptr, *b3 = nullptr;
  Epilogue e1, e2, e3;
  const float *residual = nullptr;
};

/// How a strip is computed:
///   - Rows: the expansion GEMM runs per input row and writes it into a ring
///     of zero-padded rows per channel (rows shared with the previous strip
///     stay in place; stride 2: the row's columns reordered even/odd as the
///     depthwise reads them), the depthwise writes the projection's packed
///     B operand directly (no packing, no padded copies);
///   - Buffered: the expansion GEMM over the strip's rows at once into a
///     plain buffer, the library's depthwise (padded copies) into a second
///     one, which the projection GEMM packs. Better for narrow rows, where a
///     GEMM per row leaves most of the microkernel's 16-column vectors empty.
enum class InvertedResidualPath { Auto, Rows, Buffered };
/// Rows wide enough for the Rows path (Auto): measured on MobileNetV2's
/// blocks, the row GEMMs lose at 7 columns and break even at 14.
inline constexpr int64_t kInvertedResidualMinRowWidth = 14;
/// Whether Auto takes the Rows path for this shape.
bool invertedResidualUsesRows(const InvertedResidualShape &s);

/// Computes units [begin, end) of invertedResidualUnits(s, stripRows).
/// False when scratch memory cannot be allocated.
bool invertedResidual(const InvertedResidualShape &s,
                      const InvertedResidualWeights &wt, const float *x,
                      float *y, int64_t stripRows, int64_t begin, int64_t end,
                      Isa isa = activeIsa(),
                      InvertedResidualPath path = InvertedResidualPath::Auto);

} // namespace strata::kernels

#endif // STRATA_KERNELS_INVERTEDRESIDUAL_H
