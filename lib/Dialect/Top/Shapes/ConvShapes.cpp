//===- ConvShapes.cpp - shape functions of the Conv ops ------------------===//

#include "strata/Dialect/Top/Shapes/ConvShapes.h"
#include "strata/Dialect/Top/Shapes/ChannelLayout.h"

#include <algorithm>

namespace strata::top::shapes {

//===----------------------------------------------------------------------===//
// Sliding windows
//===----------------------------------------------------------------------===//

ShapeCheck checkWindowInputRank(Ints input) {
  if (input.size() < 3 || input.size() > 5)
    return ShapeError() << "input must have rank 3 to 5 (N, C, 1-3 spatial "
                           "dims), got shape "
                        << input;
  return std::nullopt;
}

ShapeCheck checkWindowAttrs(const WindowAttrs &w, size_t rank) {
  if (ShapeCheck c = checkIntsAttr("kernel_shape", w.kernel, rank, 1))
    return c;
  if (ShapeCheck c = checkIntsAttr("strides", w.strides, rank, 1))
    return c;
  if (ShapeCheck c = checkIntsAttr("dilations", w.dilations, rank, 1))
    return c;
  return checkIntsAttr("pads", w.pads, 2 * rank, 0);
}

ShapeOr<WindowExtent> windowExtent(size_t dim, int64_t in, int64_t kernel,
                                   int64_t dilation, int64_t padBegin,
                                   int64_t padEnd) {
  WindowExtent e;
  if (__builtin_mul_overflow(dilation, kernel - 1, &e.extent) ||
      __builtin_add_overflow(e.extent, int64_t(1), &e.extent) ||
      __builtin_add_overflow(in, padBegin, &e.padded) ||
      __builtin_add_overflow(e.padded, padEnd, &e.padded))
    return ShapeError() << "window or padded input size overflows int64 in "
                           "spatial dim "
                        << dim;
  return e;
}

ShapeOr<Shape> windowOutputDims(Ints in, const WindowAttrs &w,
                                WindowCount count) {
  size_t r = in.size();
  Shape out;
  for (size_t d = 0; d < r; ++d) {
    int64_t padBegin = w.pads[d], padEnd = w.pads[d + r];
    ShapeOr<WindowExtent> e =
        windowExtent(d, in[d], w.kernel[d], w.dilations[d], padBegin, padEnd);
    if (!e)
      return ShapeOr<Shape>::errorOf(e);
    auto [ext, padded] = *e;
    if (count != WindowCount::Floor && (padBegin >= ext || padEnd >= ext))
      return ShapeError() << "pads " << w.pads
                          << " must be smaller than the effective kernel "
                          << ext << " in spatial dim " << d;
    if (padded < ext)
      return ShapeError() << "effective kernel size " << ext
                          << " exceeds padded input size " << padded
                          << " in spatial dim " << d;
    int64_t span = padded - ext, stride = w.strides[d];
    if (count != WindowCount::PoolCeil) {
      out.push_back(span / stride + 1);
      continue;
    }
    int64_t o = span / stride + (span % stride != 0 ? 1 : 0) + 1;
    // A window must start inside the input or its begin padding.
    int64_t lastStart;
    if (__builtin_mul_overflow(o - 1, stride, &lastStart) ||
        lastStart >= in[d] + padBegin)
      --o;
    out.push_back(o);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Conv, Deconv
//===----------------------------------------------------------------------===//

namespace {
/// Checks that 'kernel_shape' equals the spatial dims of the channels-first
/// filter `w`.
ShapeCheck checkKernelMatchesFilter(Ints kernel, Ints w) {
  if (kernel != w.slice(2))
    return ShapeError() << "attribute 'kernel_shape' " << kernel
                        << " does not match the filter's spatial dims "
                        << w.slice(2);
  return std::nullopt;
}

/// Checks that `bias` has one element per output channel (`o`).
ShapeCheck checkBias(Ints bias, int64_t o) {
  if (shapeElementCount(bias) != o)
    return ShapeError() << "bias must have " << o
                        << " elements (one per output channel), got shape "
                        << bias;
  return std::nullopt;
}

/// Conv's and Deconv's input and filter shapes channels first (`in`, `w`),
/// checked for the input's rank and the filter having it too.
ShapeCheck channelsFirstOperands(Ints input, Ints filter, bool channelsLast,
                                 Shape &in, Shape &w) {
  in = toChannelsFirst(input, channelsLast);
  w = toChannelsFirst(filter, channelsLast);
  if (ShapeCheck c = checkWindowInputRank(in))
    return c;
  if (w.size() != in.size())
    return ShapeError() << "filter must have rank " << in.size()
                        << " like the input, got shape " << w;
  return std::nullopt;
}
} // namespace

ShapeOr<Shape> inferConv(Ints input, Ints filter, std::optional<Ints> bias,
                         const ConvAttrs &attrs) {
  // NHWC with an OHWI filter is checked in the NCHW / OIHW order.
  Shape in, w;
  if (ShapeCheck c =
          channelsFirstOperands(input, filter, attrs.channelsLast, in, w))
    return *c;
  if (ShapeCheck c = checkWindowAttrs(attrs.window, in.size() - 2))
    return *c;
  if (ShapeCheck c = checkKernelMatchesFilter(attrs.window.kernel, w))
    return *c;
  int64_t group = attrs.group, c = in[1], o = w[0];
  if (group < 1 || c % group != 0 || o % group != 0)
    return ShapeError() << "attribute 'group' = " << group
                        << " must be >= 1 and divide input channels (" << c
                        << ") and output channels (" << o << ")";
  if (w[1] != c / group)
    return ShapeError() << "filter has " << w[1]
                        << " input channels per group, expected " << c
                        << " / group " << group << " = " << c / group;
  if (bias)
    if (ShapeCheck e = checkBias(*bias, o))
      return *e;
  for (auto [name, zp] : {std::pair{"input_zp", attrs.inputZp},
                          std::pair{"weight_zp", attrs.weightZp}})
    if (zp && zp->rank() != 1 && zp->rank() != c)
      return ShapeError() << "attribute '" << name << "' must have 1 or " << c
                          << " (input channels) values, got " << zp->size();
  ShapeOr<Shape> spatial =
      windowOutputDims(Ints(in).slice(2), attrs.window, WindowCount::Floor);
  if (!spatial)
    return spatial;
  Shape out{in[0], o};
  out.insert(out.end(), spatial->begin(), spatial->end());
  return fromChannelsFirst(out, attrs.channelsLast);
}

namespace {
/// Checks Deconv's window attributes against `r` spatial dims and the
/// channels-first filter `w`.
ShapeCheck checkDeconvAttrs(const DeconvAttrs &attrs, size_t r, Ints w) {
  const WindowAttrs &win = attrs.window;
  if (ShapeCheck c = checkWindowAttrs(win, r))
    return c;
  if (ShapeCheck c = checkIntsAttr("output_padding", attrs.outputPadding, r, 0))
    return c;
  for (size_t d = 0; d < r; ++d)
    if (attrs.outputPadding[d] >= std::max(win.strides[d], win.dilations[d]))
      return ShapeError() << "attribute 'output_padding' value "
                          << attrs.outputPadding[d] << " at index " << d
                          << " must be smaller than the stride ("
                          << win.strides[d] << ") or the dilation ("
                          << win.dilations[d] << ")";
  return checkKernelMatchesFilter(win.kernel, w);
}

/// The output size of spatial dim `d` for input size `in` and kernel `k`, or
/// an error if it overflows or is negative.
ShapeOr<int64_t> deconvOutDim(const DeconvAttrs &attrs, size_t d, int64_t in,
                              int64_t k) {
  if (in == 0)
    return 0;
  const WindowAttrs &win = attrs.window;
  size_t r = win.kernel.size();
  int64_t s = win.strides[d], dil = win.dilations[d];
  // (in - 1) * s + (k - 1) * dil + 1 + output_padding; all terms >= 0.
  int64_t span, ext, full, trim;
  if (__builtin_mul_overflow(in - 1, s, &span) ||
      __builtin_mul_overflow(k - 1, dil, &ext) ||
      __builtin_add_overflow(span, ext, &full) ||
      __builtin_add_overflow(full, 1 + attrs.outputPadding[d], &full))
    return ShapeError() << "output size overflows int64 in spatial dim " << d;
  if (__builtin_add_overflow(win.pads[d], win.pads[d + r], &trim) ||
      trim > full)
    return ShapeError() << "pads " << win.pads
                        << " remove more than the full output size " << full
                        << " in spatial dim " << d;
  return full - trim;
}
} // namespace

ShapeOr<Shape> inferDeconv(Ints input, Ints filter, std::optional<Ints> bias,
                           const DeconvAttrs &attrs) {
  // NHWC with a `C x K.. x O/group` filter is checked in NCHW / IOHW order.
  Shape in, w;
  if (ShapeCheck c =
          channelsFirstOperands(input, filter, attrs.channelsLast, in, w))
    return *c;
  size_t r = in.size() - 2;
  if (ShapeCheck c = checkDeconvAttrs(attrs, r, w))
    return *c;
  int64_t group = attrs.group, c = in[1];
  if (group < 1 || c % group != 0)
    return ShapeError() << "attribute 'group' = " << group
                        << " must be >= 1 and divide input channels (" << c
                        << ")";
  if (w[0] != c)
    return ShapeError() << "filter must have " << c
                        << " input channels in dim 0, got shape " << w;
  int64_t o;
  if (__builtin_mul_overflow(w[1], group, &o))
    return ShapeError() << "output channels " << w[1] << " * group " << group
                        << " overflow int64";
  if (bias)
    if (ShapeCheck e = checkBias(*bias, o))
      return *e;
  Shape out{in[0], o};
  for (size_t d = 0; d < r; ++d) {
    ShapeOr<int64_t> size = deconvOutDim(attrs, d, in[d + 2], w[d + 2]);
    if (!size)
      return ShapeOr<Shape>::errorOf(size);
    out.push_back(*size);
  }
  if (ShapeOr<int64_t> n = countElements(out); !n)
    return ShapeOr<Shape>::errorOf(n);
  return fromChannelsFirst(out, attrs.channelsLast);
}

} // namespace strata::top::shapes
