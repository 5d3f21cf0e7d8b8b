//===- SelectShapes.cpp - shape functions of the Select ops ---------------===//

#include "strata/Dialect/Top/Shapes/SelectShapes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace strata::top::shapes {

ShapeOr<Shape> inferTrilu(Ints input) {
  if (input.size() < 2)
    return ShapeError() << "input must have rank >= 2, got shape " << input;
  return input.vec();
}

ShapeOr<Shape> inferCumulative(Ints input, std::optional<int64_t> axis) {
  if (axis) {
    ShapeOr<int64_t> a = normalizeAxisAttr("axis", *axis, input.rank());
    if (!a)
      return ShapeOr<Shape>::errorOf(a);
  }
  return input.vec();
}

//===----------------------------------------------------------------------===//
// Scatters and gathers
//===----------------------------------------------------------------------===//

/// The error of an `indices` shape that does not fit `data` along the dims
/// other than `axis`.
static ShapeError indicesDoNotFit(Ints indices, Ints data, int64_t axis) {
  return ShapeError() << "'indices' shape " << indices
                      << " must have the rank of 'data' shape " << data
                      << " and be no larger in the dims other than axis "
                      << axis;
}

ShapeOr<Shape> inferScatterElements(Ints data, Ints indices, Ints updates,
                                    int64_t axisAttr) {
  ShapeOr<int64_t> axis = normalizeAxisAttr("axis", axisAttr, data.rank());
  if (!axis)
    return ShapeOr<Shape>::errorOf(axis);
  if (indices != updates)
    return ShapeError() << "'indices' shape " << indices
                        << " must equal 'updates' shape " << updates;
  bool fits = indices.size() == data.size();
  for (size_t d = 0; fits && d < data.size(); ++d)
    fits = static_cast<int64_t>(d) == *axis || indices[d] <= data[d];
  if (!fits)
    return indicesDoNotFit(indices, data, *axis);
  return data.vec();
}

ShapeOr<Shape> inferGatherElements(Ints data, Ints indices, int64_t axisAttr) {
  ShapeOr<int64_t> axis = normalizeAxisAttr("axis", axisAttr, data.rank());
  if (!axis)
    return ShapeOr<Shape>::errorOf(axis);
  bool fits = indices.size() == data.size();
  for (size_t d = 0; fits && d < data.size(); ++d)
    fits = static_cast<int64_t>(d) == *axis || isDynamicDim(indices[d]) ||
           isDynamicDim(data[d]) || indices[d] <= data[d];
  if (!fits)
    return indicesDoNotFit(indices, data, *axis);
  return indices.vec();
}

ShapeOr<Shape> inferScatterND(Ints data, Ints indices, Ints updates) {
  if (indices.empty())
    return ShapeError() << "'indices' must have rank >= 1";
  int64_t k = indices.back();
  if (k < 1 || k > data.rank())
    return ShapeError() << "the last dim of 'indices' (" << k
                        << ") must be in [1, " << data.size()
                        << "] (the rank of 'data')";
  Shape want(indices.begin(), indices.end() - 1);
  want.insert(want.end(), data.begin() + k, data.end());
  if (updates != Ints(want))
    return ShapeError() << "'updates' shape " << updates << " must be " << want
                        << " (indices.shape[:-1] + data.shape[" << k << ":])";
  return data.vec();
}

ShapeOr<Shape> inferGatherND(Ints data, Ints indices, int64_t b) {
  int64_t dataRank = data.rank(), idxRank = indices.rank();
  if (idxRank < 1)
    return ShapeError() << "'indices' must have rank >= 1";
  if (b < 0 || b >= std::min(dataRank, idxRank))
    return ShapeError() << "attribute 'batch_dims' = " << b
                        << " must be in [0, " << std::min(dataRank, idxRank)
                        << ") for 'data' shape " << data
                        << " and 'indices' shape " << indices;
  for (int64_t d = 0; d < b; ++d)
    if (data[d] != indices[d])
      return ShapeError() << "batch dim " << d << " differs: 'data' shape "
                          << data << ", 'indices' shape " << indices;
  int64_t k = indices.back();
  if (k < 1 || k > dataRank - b)
    return ShapeError() << "the last dim of 'indices' (" << k
                        << ") must be in [1, " << dataRank - b
                        << "] (rank of 'data' minus batch_dims)";
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + b + k, data.end());
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

//===----------------------------------------------------------------------===//
// TopK, OneHot
//===----------------------------------------------------------------------===//

ShapeOr<Shapes> inferTopK(Ints input, int64_t axisAttr, int64_t k,
                          const std::optional<RuntimeValue> &kValue) {
  ShapeOr<int64_t> axis = normalizeAxisAttr("axis", axisAttr, input.rank());
  if (!axis)
    return ShapeOr<Shapes>::errorOf(axis);
  Shape out = input.vec();
  int64_t dim = out[*axis];
  if (!kValue) {
    if (k < 0 || k > dim)
      return ShapeError() << "attribute 'k' = " << k << " must be in [0, "
                          << dim << "] (the size of dim " << *axis << ")";
    out[*axis] = k;
    return Shapes{out, out};
  }
  if (k != 0)
    return ShapeError() << "takes k from attribute 'k' = " << k
                        << " or from operand 'k_value', not both";
  out[*axis] = kDynamicDim;
  if (kValue->tensor) {
    ShapeOr<int64_t> v = tensorScalarInt("k_value", *kValue->tensor);
    if (!v)
      return ShapeOr<Shapes>::errorOf(v);
    if (*v < 0 || *v > dim)
      return ShapeError() << "operand 'k_value' = " << *v << " must be in [0, "
                          << dim << "] (the size of dim " << *axis << ")";
    out[*axis] = *v;
  }
  return Shapes{out, out};
}

/// `v` as MLIR diagnostics print a double ("1.500000e+00", "nan", "INF").
static std::string formatDiagnosticDouble(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-INF" : "INF";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.6e", v);
  return buf;
}

/// The depth a OneHot reads from its runtime operand: a value in [1, 2^31),
/// so that the result's element count cannot overflow.
static ShapeOr<int64_t> runtimeDepth(const Tensor &depthValue) {
  double d = depthValue.getAsDouble(0);
  if (!(d >= 1 && d < double(int64_t(1) << 31)))
    return ShapeError() << "depth " << formatDiagnosticDouble(d)
                        << " must be in [1, 2^31)";
  return static_cast<int64_t>(d);
}

ShapeOr<Shape> inferOneHot(Ints indices, Ints values,
                           std::optional<int64_t> depth,
                           const std::optional<RuntimeValue> &depthValue,
                           int64_t axisAttr) {
  std::optional<int64_t> valueCount = shapeElementCount(values);
  if (valueCount != 2)
    return ShapeError() << "'values' must have 2 elements (off, on), got "
                        << "shape " << values;
  if (depth.has_value() == depthValue.has_value())
    return ShapeError() << "needs exactly one of attribute 'depth' and "
                           "operand 'depth_value'";
  if (depth && *depth < 1)
    return ShapeError() << "attribute 'depth' = " << *depth << " must be >= 1";
  if (depthValue && shapeElementCount(depthValue->shape) != 1)
    return ShapeError() << "operand 'depth_value' must hold one value, has "
                        << "shape " << depthValue->shape;
  ShapeOr<int64_t> axis =
      normalizeAxisAttr("axis", axisAttr, indices.rank() + 1);
  if (!axis)
    return ShapeOr<Shape>::errorOf(axis);
  Shape out = indices.vec();
  if (depthValue) {
    int64_t d = kDynamicDim;
    if (depthValue->tensor) {
      ShapeOr<int64_t> r = runtimeDepth(*depthValue->tensor);
      if (!r)
        return ShapeOr<Shape>::errorOf(r);
      d = *r;
    }
    out.insert(out.begin() + *axis, d);
    return out;
  }
  out.insert(out.begin() + *axis, *depth);
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out;
}

//===----------------------------------------------------------------------===//
// ReverseSequence, MaxUnpool, MaxPoolIndices
//===----------------------------------------------------------------------===//

ShapeOr<Shape> inferReverseSequence(Ints input, Ints sequenceLens, int64_t b,
                                    int64_t t) {
  if (input.size() < 2)
    return ShapeError() << "input must have rank >= 2, got shape " << input;
  if (b != 0 && b != 1)
    return ShapeError() << "attribute 'batch_axis' = " << b
                        << " must be 0 or 1";
  if (t != 0 && t != 1)
    return ShapeError() << "attribute 'time_axis' = " << t << " must be 0 or 1";
  if (b == t)
    return ShapeError() << "attributes 'batch_axis' and 'time_axis' must "
                           "differ, both are "
                        << b;
  if (sequenceLens.size() != 1 || sequenceLens[0] != input[b])
    return ShapeError() << "'sequence_lens' shape " << sequenceLens
                        << " must be [" << input[b] << "] (the batch dim)";
  return input.vec();
}

ShapeOr<Shape> inferMaxUnpool(Ints input, Ints indices, Ints out) {
  if (indices != input)
    return ShapeError() << "'indices' shape " << indices
                        << " must equal the input shape " << input;
  if (input.size() < 3)
    return ShapeError() << "input must have rank >= 3 (N, C, spatial), got "
                        << input;
  if (auto err = checkIntsAttr("output_shape", out, input.size(), 0))
    return *err;
  if (out[0] != input[0] || out[1] != input[1])
    return ShapeError() << "attribute 'output_shape' " << out
                        << " must keep the batch and channel dims of the "
                           "input shape "
                        << input;
  ShapeOr<int64_t> count = staticElementCount(out);
  if (!count)
    return ShapeOr<Shape>::errorOf(count);
  return out.vec();
}

/// The result size of spatial dim `d` of a 2-D max pooling window.
static ShapeOr<int64_t> pooledSize(const MaxPoolIndicesAttrs &a, size_t d,
                                   int64_t in) {
  int64_t kernel = a.kernelShape[d], dilation = a.dilations[d];
  int64_t padBegin = a.pads[d], padEnd = a.pads[d + 2], ext, padded;
  if (__builtin_mul_overflow(dilation, kernel - 1, &ext) ||
      __builtin_add_overflow(ext, int64_t(1), &ext) ||
      __builtin_add_overflow(in, padBegin, &padded) ||
      __builtin_add_overflow(padded, padEnd, &padded))
    return ShapeError() << "window or padded input size overflows int64 "
                           "in spatial dim "
                        << d;
  if (padBegin >= ext || padEnd >= ext)
    return ShapeError() << "pads " << a.pads
                        << " must be smaller than the effective kernel " << ext
                        << " in spatial dim " << d;
  if (padded < ext)
    return ShapeError() << "effective kernel size " << ext
                        << " exceeds padded input size " << padded
                        << " in spatial dim " << d;
  int64_t stride = a.strides[d], span = padded - ext;
  bool roundUp = a.ceilMode && span % stride != 0;
  int64_t o = span / stride + (roundUp ? 1 : 0) + 1;
  // In ceil mode a window must start inside the input or its begin padding.
  if (a.ceilMode && (o - 1) * stride >= in + padBegin)
    --o;
  return o;
}

ShapeOr<Shape> inferMaxPoolIndices(Ints input,
                                   const MaxPoolIndicesAttrs &attrs) {
  if (input.size() != 4)
    return ShapeError() << "input must have rank 4 (N, C, H, W), got shape "
                        << input;
  for (auto [name, values, size, min] :
       {std::tuple("kernel_shape", attrs.kernelShape, 2, 1),
        std::tuple("strides", attrs.strides, 2, 1),
        std::tuple("dilations", attrs.dilations, 2, 1),
        std::tuple("pads", attrs.pads, 4, 0)})
    if (auto err = checkIntsAttr(name, values, size, min))
      return *err;
  if (attrs.storageOrder != 0 && attrs.storageOrder != 1)
    return ShapeError() << "attribute 'storage_order' = " << attrs.storageOrder
                        << " must be 0 or 1";
  Shape out{input[0], input[1]};
  for (size_t d = 0; d < 2; ++d) {
    ShapeOr<int64_t> o = pooledSize(attrs, d, input[d + 2]);
    if (!o)
      return ShapeOr<Shape>::errorOf(o);
    out.push_back(*o);
  }
  return out;
}

} // namespace strata::top::shapes
