//===- ConvShapes.h - shape functions of the Conv ops ----------*- C++ -*-===//
//
// Free shape functions of the ops in lib/Dialect/Top/IR/ConvOps.cpp, and the
// sliding-window geometry that convolution and pooling share; see
// strata/Support/ShapeFunction.h for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_DIALECT_TOP_SHAPES_CONVSHAPES_H
#define STRATA_DIALECT_TOP_SHAPES_CONVSHAPES_H

#include "strata/Support/ShapeFunction.h"

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Sliding windows (Conv, Deconv, MaxPool, AvgPool)
//===----------------------------------------------------------------------===//

/// A window over r spatial dims, defaults filled in: `kernel`, `strides`,
/// `dilations` (r values each) and `pads` (r begins, then r ends).
struct WindowAttrs {
  Ints kernel, strides, dilations, pads;
};

/// Checks that `input` (channels first) has rank 3 to 5: N, C and 1-3
/// spatial dims.
ShapeCheck checkWindowInputRank(Ints input);

/// Checks the window attributes for `rank` spatial dims: 'kernel_shape',
/// 'strides' and 'dilations' have `rank` values >= 1, 'pads' 2 * `rank`
/// values >= 0.
ShapeCheck checkWindowAttrs(const WindowAttrs &w, size_t rank);

/// One spatial dim of a window over a padded input.
struct WindowExtent {
  int64_t extent; ///< dilation * (kernel - 1) + 1
  int64_t padded; ///< in + padBegin + padEnd
};

/// The extent of a window and the padded input size of spatial dim `dim`;
/// the error reads "window or padded input size overflows int64 in spatial
/// dim <dim>".
ShapeOr<WindowExtent> windowExtent(size_t dim, int64_t in, int64_t kernel,
                                   int64_t dilation, int64_t padBegin,
                                   int64_t padEnd);

/// How the window positions along a dim are counted.
enum class WindowCount {
  /// floor((padded - extent) / stride) + 1 (convolution).
  Floor,
  /// As Floor; every pad must be smaller than the extent (pooling).
  Pool,
  /// As Pool but rounded up, as long as the last window starts inside the
  /// input or its begin padding (pooling with ceil_mode).
  PoolCeil,
};

/// The output spatial dims of window `w` (checked by checkWindowAttrs)
/// sliding over the spatial dims `in`. Errors: windowExtent's, "effective
/// kernel size <e> exceeds padded input size <p> in spatial dim <d>" and, for
/// pooling, "pads [..] must be smaller than the effective kernel <e> in
/// spatial dim <d>".
ShapeOr<Shape> windowOutputDims(Ints in, const WindowAttrs &w,
                                WindowCount count);

//===----------------------------------------------------------------------===//
// Conv, Deconv
//===----------------------------------------------------------------------===//

/// Attributes of top.Conv.
struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;
  /// 'input_zp' and 'weight_zp' when given (1 or C values each).
  std::optional<Ints> inputZp, weightZp;
  /// NHWC input with an OHWI filter (attribute 'layout').
  bool channelsLast = false;
};

/// Conv: `[N, O, out spatial..]` for input `[N, C, D..]` and filter
/// `[O, C / group, K..]` (both channels last when `attrs.channelsLast`);
/// `bias`, when given, has O elements.
ShapeOr<Shape> inferConv(Ints input, Ints filter, std::optional<Ints> bias,
                         const ConvAttrs &attrs);

/// Attributes of top.Deconv.
struct DeconvAttrs {
  WindowAttrs window;
  /// r values >= 0, each smaller than its stride or dilation.
  Ints outputPadding;
  int64_t group = 1;
  /// NHWC input with a `C x K.. x O/group` filter (attribute 'layout').
  bool channelsLast = false;
};

/// Deconv (transposed convolution): `[N, O, out spatial..]` for input
/// `[N, C, D..]` and filter `[C, O / group, K..]`, out = (in - 1) * stride +
/// (kernel - 1) * dilation + 1 + output_padding - pads; `bias`, when given,
/// has O elements.
ShapeOr<Shape> inferDeconv(Ints input, Ints filter, std::optional<Ints> bias,
                           const DeconvAttrs &attrs);

} // namespace strata::top::shapes

#endif // STRATA_DIALECT_TOP_SHAPES_CONVSHAPES_H
