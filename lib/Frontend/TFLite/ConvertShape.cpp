//===- ConvertShape.cpp - TFLite data movement and reductions -------------===//
//
// The Shape family (TopShapeOps.td): RESHAPE, SQUEEZE, EXPAND_DIMS,
// TRANSPOSE, CONCATENATION, PAD, PADV2, MIRROR_PAD, STRIDED_SLICE, SLICE,
// GATHER, PACK, UNPACK, SPLIT, SPLIT_V, TILE, BROADCAST_TO, SHAPE, CAST,
// ARG_MAX, ARG_MIN, CUMSUM and the reductions
// (MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD). Float and quantized data
// go through f32 (moving quantized values through dequantize and quantize
// with the same parameters is exact); integer data stays integer.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <climits>

namespace strata::tflite_import {
namespace {

Type elemOf(Value v) { return cast<ShapedType>(v.getType()).getElementType(); }

LogicalResult setData(OpContext &c, size_t i, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  if (isa<FloatType>(elemOf(*v)))
    return c.setFloatOutput(i, v);
  return c.setOutput(i, *v);
}

FailureOr<Value> reshapeTo(OpContext &c, Value v, ArrayRef<int64_t> shape) {
  return c.create<ReshapeOp>(elemOf(v), v,
                             c.builder().getDenseI64ArrayAttr(shape));
}

FailureOr<int64_t> normAxis(OpContext &c, int64_t axis, int64_t rank,
                            StringRef what) {
  // A scalar (rank 0) has no axis: callers index the shape with the result.
  if (axis < -rank || axis >= rank)
    return c.error() << what << " " << axis << " is out of range for rank "
                     << rank
                     << (rank == 0 ? " (the input is a scalar, it has no axis)"
                                   : "");
  return axis < 0 ? axis + rank : axis;
}

/// A constant one-value axis input `i` normalized for `rank`.
FailureOr<int64_t> constantAxis(OpContext &c, size_t i, int64_t rank) {
  auto axis = c.constantInts(i, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return c.error() << "input " << i << " (axis) must be one value, got "
                     << formatArray(*axis);
  return normAxis(c, (*axis)[0], rank, "axis");
}

int64_t numel(ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// RESHAPE (new shape from a constant input 1, the options, or, for a
/// shape computed at run time, the output's declared static shape; one -1
/// resolved),
/// SQUEEZE (squeeze_dims, or every 1), EXPAND_DIMS (axis from input 1).
/// The shape is computed, not read from the output tensor, so that models
/// with dynamic dims (fixed with --input-shapes) import.
LogicalResult convertReshape(OpContext &c) {
  auto x = c.dataInput(0);
  if (failed(x))
    return failure();
  const TensorInfo &in = c.in(0);
  std::vector<int64_t> inShape = toVec(shapeOf(*x)), shape;
  int64_t rank = inShape.size();
  if (c.code() == tflite::BuiltinOperator_SQUEEZE) {
    auto *o = c.op()->builtin_options_as_SqueezeOptions();
    std::vector<int64_t> dims;
    if (o && o->squeeze_dims())
      for (int32_t d : *o->squeeze_dims()) {
        auto n = normAxis(c, d, rank, "squeeze dim");
        if (failed(n))
          return failure();
        if (inShape[*n] != 1)
          return c.error() << "squeeze dim " << d << " has size "
                           << inShape[*n];
        dims.push_back(*n);
      }
    for (int64_t d = 0; d < rank; ++d)
      if (dims.empty() ? inShape[d] != 1 : !llvm::is_contained(dims, d))
        shape.push_back(inShape[d]);
  } else if (c.code() == tflite::BuiltinOperator_EXPAND_DIMS) {
    auto n = constantAxis(c, 1, rank + 1);
    if (failed(n))
      return failure();
    shape = inShape;
    shape.insert(shape.begin() + *n, 1);
  } else {
    std::vector<int64_t> ns;
    auto *o = c.op()->builtin_options_as_ReshapeOptions();
    if (c.hasInput(1) && c.constant(1)) {
      auto s = c.constantInts(1, "shape");
      if (failed(s))
        return failure();
      ns = *s;
    } else if (o && o->new_shape()) {
      ns.assign(o->new_shape()->begin(), o->new_shape()->end());
    } else if (c.hasInput(1)) {
      // The shape is computed at run time (from the data): the output
      // tensor's declared static shape is what it is for this model's input
      // shapes, as the TFLite interpreter allocates it.
      if (c.out(0).dynamic)
        return c.error() << "input 1 (shape) is computed at run time and the "
                            "output's shape is dynamic (shape_signature "
                            "has -1): the result shape is unknown at import";
      ns = c.out(0).shape;
    } else {
      ns = c.out(0).shape;
    }
    int64_t known = 1, unknown = -1;
    for (auto [i, d] : llvm::enumerate(ns)) {
      if (d == -1 && unknown < 0)
        unknown = i;
      else if (d < 0)
        return c.error() << "new shape " << formatArray(ns)
                         << " has invalid dim " << d;
      else
        known *= d;
    }
    if (unknown >= 0) {
      if (known == 0 || numel(inShape) % known != 0)
        return c.error() << "cannot reshape " << formatArray(inShape) << " to "
                         << formatArray(ns);
      ns[unknown] = numel(inShape) / known;
    }
    shape = ns;
  }
  if (numel(shape) != numel(inShape))
    return c.error() << "cannot reshape " << formatArray(inShape) << " to "
                     << formatArray(shape);
  (void)in;
  return setData(c, 0, reshapeTo(c, *x, shape));
}

LogicalResult convertTranspose(OpContext &c) {
  auto x = c.dataInput(0);
  auto perm = c.constantInts(1, "perm");
  if (failed(x) || failed(perm))
    return failure();
  return setData(c, 0,
                 c.create<PermuteOp>(elemOf(*x), *x,
                                     c.builder().getDenseI64ArrayAttr(*perm)));
}

LogicalResult convertConcat(OpContext &c) {
  auto *o = c.op()->builtin_options_as_ConcatenationOptions();
  if (!o)
    return c.error() << "ConcatenationOptions are missing";
  SmallVector<Value> ins;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    auto v = c.dataInput(i);
    if (failed(v))
      return failure();
    ins.push_back(*v);
  }
  if (ins.empty())
    return c.error() << "has no inputs";
  auto axis = normAxis(c, o->axis(), c.in(0).shape.size(), "option 'axis' =");
  if (failed(axis))
    return failure();
  auto y = c.create<ConcatOp>(elemOf(ins[0]), ValueRange(ins),
                              c.builder().getI64IntegerAttr(*axis));
  if (isa<FloatType>(elemOf(ins[0])))
    return c.setFloatOutput(
        0, c.fusedActivation(y, o->fused_activation_function()));
  return setData(c, 0, y);
}

LogicalResult convertPad(OpContext &c) {
  auto x = c.dataInput(0);
  auto p = c.constantInts(1, "paddings");
  if (failed(x) || failed(p))
    return failure();
  size_t rank = c.in(0).shape.size();
  if (p->size() != 2 * rank)
    return c.error() << "paddings has " << p->size() << " values, expected "
                     << 2 * rank << " for rank " << rank;
  std::vector<int64_t> pads(2 * rank);
  for (size_t d = 0; d < rank; ++d) {
    pads[d] = (*p)[2 * d];
    pads[rank + d] = (*p)[2 * d + 1];
  }
  for (int64_t v : pads)
    if (v < 0)
      return c.error() << "negative padding " << v << " is not supported";
  OpBuilder &b = c.builder();
  PadMode mode = PadMode::Constant;
  double value = 0;
  if (c.code() == tflite::BuiltinOperator_MIRROR_PAD) {
    auto *o = c.op()->builtin_options_as_MirrorPadOptions();
    if (o && o->mode() != tflite::MirrorPadMode_REFLECT)
      return c.error() << "mirror pad mode "
                       << tflite::EnumNameMirrorPadMode(o->mode())
                       << " is not supported (REFLECT is)";
    mode = PadMode::Reflect;
  } else if (c.hasInput(2)) {
    const TensorInfo &vt = c.in(2);
    const Tensor *v = c.constant(2);
    if (!v || v->numElements() != 1)
      return c.error() << "the constant value must be a one-element constant";
    value = v->getAsDouble(0);
    if (vt.quant)
      value = (value - vt.quant->zps[0]) * vt.quant->scales[0];
  }
  return setData(c, 0,
                 c.create<PadOp>(elemOf(*x), *x, b.getDenseI64ArrayAttr(pads),
                                 PadModeAttr::get(c.context(), mode),
                                 b.getF64FloatAttr(value), Value()));
}

LogicalResult convertReduce(OpContext &c) {
  ReduceMode mode;
  switch (c.code()) {
  case tflite::BuiltinOperator_MEAN:
    mode = ReduceMode::Mean;
    break;
  case tflite::BuiltinOperator_SUM:
    mode = ReduceMode::Sum;
    break;
  case tflite::BuiltinOperator_REDUCE_MAX:
    mode = ReduceMode::Max;
    break;
  case tflite::BuiltinOperator_REDUCE_MIN:
    mode = ReduceMode::Min;
    break;
  default:
    mode = ReduceMode::Prod;
    break;
  }
  auto *o = c.op()->builtin_options_as_ReducerOptions();
  auto x = c.dataInput(0);
  auto axes = c.constantInts(1, "axes");
  if (failed(x) || failed(axes))
    return failure();
  int64_t rank = c.in(0).shape.size();
  std::vector<int64_t> norm;
  for (int64_t a : *axes) {
    auto n = normAxis(c, a, rank, "axis");
    if (failed(n))
      return failure();
    if (!llvm::is_contained(norm, *n))
      norm.push_back(*n);
  }
  llvm::sort(norm);
  OpBuilder &b = c.builder();
  return setData(
      c, 0,
      c.create<ReduceOp>(elemOf(*x), *x, b.getDenseI64ArrayAttr(norm),
                         b.getBoolAttr(o && o->keep_dims()),
                         ReduceModeAttr::get(c.context(), mode), Value()));
}

/// STRIDED_SLICE as TensorFlow defines its masks: the `n` (begin, end,
/// stride) entries are a sparse spec; an entry with its ellipsis_mask bit
/// stands for every dim no other entry names (at most one; without one, the
/// trailing dims are implicitly full), an entry with its new_axis_mask bit
/// inserts a dim of size 1 in the result and reads no input dim, an entry
/// with its shrink_axis_mask bit reads one index and drops the dim. One
/// top.Slice over the input dims, then a Reshape to the result's dims.
LogicalResult convertStridedSlice(OpContext &c) {
  auto *o = c.op()->builtin_options_as_StridedSliceOptions();
  if (!o)
    return c.error() << "StridedSliceOptions are missing";
  if (o->offset())
    return c.error() << "offset = true is not supported";
  auto x = c.dataInput(0);
  auto begin = c.constantInts(1, "begin"), end = c.constantInts(2, "end"),
       strides = c.constantInts(3, "strides");
  if (failed(x) || failed(begin) || failed(end) || failed(strides))
    return failure();
  const std::vector<int64_t> &shape = c.in(0).shape;
  int64_t rank = shape.size();
  int64_t n = begin->size();
  if ((int64_t)end->size() != n || (int64_t)strides->size() != n || n > 32)
    return c.error() << "begin, end and strides have " << n << ", "
                     << end->size() << " and " << strides->size()
                     << " values (at most 32)";
  auto bit = [](int32_t mask, int64_t i) { return (mask >> i) & 1; };
  int64_t ellipsis = -1, named = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (bit(o->ellipsis_mask(), i)) {
      if (ellipsis >= 0)
        return c.error() << "ellipsis_mask " << o->ellipsis_mask()
                         << " has more than one bit set";
      ellipsis = i;
    } else if (!bit(o->new_axis_mask(), i)) {
      ++named;
    }
  }
  if (named > rank)
    return c.error() << n << " slice entries name " << named
                     << " dims of a rank-" << rank << " input";
  std::vector<int64_t> starts, ends, axes, steps;
  // The result's dims: an input dim (its sliced size) or -1 (a new axis).
  std::vector<int64_t> result;
  int64_t dim = 0; // the next input dim
  // A full slice of input dim `d`.
  auto full = [&](int64_t d) {
    starts.push_back(0), ends.push_back(INT64_MAX), steps.push_back(1);
    axes.push_back(d);
    result.push_back(d);
  };
  for (int64_t i = 0; i < n; ++i) {
    if (i == ellipsis) {
      for (int64_t k = 0, m = rank - named; k < m; ++k)
        full(dim++);
      continue;
    }
    if (bit(o->new_axis_mask(), i)) {
      result.push_back(-1);
      continue;
    }
    int64_t d = dim++;
    int64_t st = (*strides)[i], b = (*begin)[i], e = (*end)[i];
    if (st == 0)
      return c.error() << "stride 0 on dim " << d;
    if (bit(o->shrink_axis_mask(), i)) {
      if (b < 0)
        b += shape[d];
      if (b < 0 || b >= shape[d])
        return c.error() << "shrink index " << (*begin)[i]
                         << " is out of range for dim " << shape[d];
      starts.push_back(b), ends.push_back(b + 1), steps.push_back(1);
      axes.push_back(d);
      continue;
    }
    if (bit(o->begin_mask(), i))
      b = st > 0 ? 0 : INT64_MAX;
    if (bit(o->end_mask(), i))
      e = st > 0 ? INT64_MAX : INT64_MIN;
    starts.push_back(b), ends.push_back(e), steps.push_back(st);
    axes.push_back(d);
    result.push_back(d);
  }
  while (dim < rank) // the implicit ellipsis at the end
    full(dim++);
  OpBuilder &bld = c.builder();
  auto y = c.create<SliceOp>(elemOf(*x), *x, bld.getDenseI64ArrayAttr(starts),
                             bld.getDenseI64ArrayAttr(ends),
                             bld.getDenseI64ArrayAttr(axes),
                             bld.getDenseI64ArrayAttr(steps), Value());
  if (failed(y))
    return failure();
  std::vector<int64_t> sliced = toVec(shapeOf(*y)), dims;
  for (int64_t d : result)
    dims.push_back(d < 0 ? 1 : sliced[d]);
  if (dims != sliced)
    y = reshapeTo(c, *y, dims);
  return setData(c, 0, y);
}

LogicalResult convertSlice(OpContext &c) {
  auto x = c.dataInput(0);
  auto begin = c.constantInts(1, "begin"), size = c.constantInts(2, "size");
  if (failed(x) || failed(begin) || failed(size))
    return failure();
  const std::vector<int64_t> &shape = c.in(0).shape;
  if (begin->size() != shape.size() || size->size() != shape.size())
    return c.error() << "begin and size must have " << shape.size()
                     << " values";
  std::vector<int64_t> ends;
  for (size_t d = 0; d < shape.size(); ++d)
    ends.push_back((*size)[d] < 0 ? INT64_MAX : (*begin)[d] + (*size)[d]);
  OpBuilder &b = c.builder();
  return setData(
      c, 0,
      c.create<SliceOp>(elemOf(*x), *x, b.getDenseI64ArrayAttr(*begin),
                        b.getDenseI64ArrayAttr(ends), DenseI64ArrayAttr(),
                        DenseI64ArrayAttr(), Value()));
}

LogicalResult convertGather(OpContext &c) {
  auto *o = c.op()->builtin_options_as_GatherOptions();
  if (o && o->batch_dims() != 0)
    return c.error() << "batch_dims " << o->batch_dims()
                     << " is not supported (0 is)";
  auto x = c.dataInput(0);
  auto idx = c.input(1);
  if (failed(x) || failed(idx))
    return failure();
  auto axis =
      normAxis(c, o ? o->axis() : 0, c.in(0).shape.size(), "option 'axis' =");
  if (failed(axis))
    return failure();
  return setData(c, 0,
                 c.create<GatherOp>(elemOf(*x), *x, *idx,
                                    c.builder().getI64IntegerAttr(*axis)));
}

LogicalResult convertPack(OpContext &c) {
  auto *o = c.op()->builtin_options_as_PackOptions();
  if (!o || c.numInputs() == 0)
    return c.error() << "PackOptions or inputs are missing";
  std::vector<int64_t> shape = c.in(0).shape;
  auto axis = normAxis(c, o->axis(), shape.size() + 1, "option 'axis' =");
  if (failed(axis))
    return failure();
  shape.insert(shape.begin() + *axis, 1);
  SmallVector<Value> parts;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    auto v = c.dataInput(i);
    if (failed(v))
      return failure();
    auto r = reshapeTo(c, *v, shape);
    if (failed(r))
      return failure();
    parts.push_back(*r);
  }
  return setData(c, 0,
                 c.create<ConcatOp>(elemOf(parts[0]), ValueRange(parts),
                                    c.builder().getI64IntegerAttr(*axis)));
}

/// Splits `x` along `axis` into pieces of `sizes`.
FailureOr<SmallVector<Value>> split(OpContext &c, Value x, int64_t axis,
                                    ArrayRef<int64_t> sizes) {
  SmallVector<Type> types(sizes.size(), UnrankedTensorType::get(elemOf(x)));
  OpBuilder &b = c.builder();
  auto op = SplitOp::create(b, c.loc(), TypeRange(types), x,
                            b.getI64IntegerAttr(axis),
                            b.getDenseI64ArrayAttr(sizes), Value());
  return c.finishOp(op.getOperation());
}

LogicalResult convertUnpack(OpContext &c) {
  auto *o = c.op()->builtin_options_as_UnpackOptions();
  const std::vector<int64_t> &shape = c.in(0).shape;
  auto axis = normAxis(c, o ? o->axis() : 0, shape.size(), "option 'axis' =");
  auto x = c.dataInput(0);
  if (failed(axis) || failed(x))
    return failure();
  int64_t n = shape[*axis];
  if ((int64_t)c.numOutputs() != n)
    return c.error() << "has " << c.numOutputs() << " outputs for dim " << n;
  auto parts = split(c, *x, *axis, std::vector<int64_t>(n, 1));
  if (failed(parts))
    return failure();
  std::vector<int64_t> outShape = shape;
  outShape.erase(outShape.begin() + *axis);
  for (int64_t i = 0; i < n; ++i)
    if (failed(setData(c, i, reshapeTo(c, (*parts)[i], outShape))))
      return failure();
  return success();
}

LogicalResult convertSplit(OpContext &c) {
  bool isV = c.code() == tflite::BuiltinOperator_SPLIT_V;
  size_t dataIdx = isV ? 0 : 1, axisIdx = isV ? 2 : 0;
  const std::vector<int64_t> &shape = c.in(dataIdx).shape;
  auto x = c.dataInput(dataIdx);
  auto axis = constantAxis(c, axisIdx, shape.size());
  if (failed(x) || failed(axis))
    return failure();
  int64_t dim = shape[*axis], n = c.numOutputs();
  std::vector<int64_t> sizes;
  if (isV) {
    auto s = c.constantInts(1, "size_splits");
    if (failed(s))
      return failure();
    sizes = *s;
    int64_t known = 0, unknown = -1;
    for (auto [i, v] : llvm::enumerate(sizes)) {
      if (v == -1 && unknown < 0)
        unknown = i;
      else if (v < 0)
        return c.error() << "size_splits " << formatArray(sizes)
                         << " has invalid size " << v;
      else
        known += v;
    }
    if (unknown >= 0)
      sizes[unknown] = dim - known;
  } else {
    if (n == 0 || dim % n != 0)
      return c.error() << "dim " << dim << " does not split into " << n
                       << " equal parts";
    sizes.assign(n, dim / n);
  }
  if ((int64_t)sizes.size() != n)
    return c.error() << "has " << n << " outputs for " << sizes.size()
                     << " splits";
  auto parts = split(c, *x, *axis, sizes);
  if (failed(parts))
    return failure();
  for (int64_t i = 0; i < n; ++i)
    if (failed(setData(c, i, (*parts)[i])))
      return failure();
  return success();
}

LogicalResult convertTile(OpContext &c) {
  auto x = c.dataInput(0);
  auto m = c.constantInts(1, "multiples");
  if (failed(x) || failed(m))
    return failure();
  return setData(c, 0,
                 c.create<TileOp>(elemOf(*x), *x,
                                  c.builder().getDenseI64ArrayAttr(*m),
                                  Value()));
}

LogicalResult convertShape(OpContext &c) {
  const TensorInfo &in = c.in(0), &out = c.out(0);
  if (out.dtype != DType::I32 && out.dtype != DType::I64)
    return c.error() << "output type " << dtypeName(out.dtype)
                     << " is not supported (int32 or int64)";
  Tensor t(out.dtype, {(int64_t)in.shape.size()});
  for (size_t i = 0; i < in.shape.size(); ++i)
    t.setFromDouble(i, in.shape[i]);
  return c.setOutput(0, c.weight(t, "shape"));
}

LogicalResult convertCast(OpContext &c) {
  const TensorInfo &out = c.out(0);
  if (out.quant || c.in(0).quant)
    return c.error() << "quantized operands are not supported";
  auto x = c.input(0);
  if (failed(x))
    return failure();
  auto y = c.create<CastOp>(elementTypeOf(out.dtype, c.context()), *x);
  if (failed(y))
    return failure();
  return c.setOutput(0, *y);
}

/// ARG_MAX (ARG_MIN: ARG_MAX of the negation; both take the first index of
/// a tie), as int64, cast to the output's int32 when it is.
LogicalResult convertArgMax(OpContext &c) {
  bool isMin = c.code() == tflite::BuiltinOperator_ARG_MIN;
  auto x = c.dataInput(0);
  auto a = constantAxis(c, 1, c.in(0).shape.size());
  if (failed(x) || failed(a))
    return failure();
  OpBuilder &b = c.builder();
  // Integers are negated in int64 (the negation of INT8_MIN wraps in int8).
  if (isMin && !isa<FloatType>(elemOf(*x)))
    x = c.create<CastOp>(b.getI64Type(), *x);
  if (isMin && succeeded(x))
    x = c.create<NegOp>(elemOf(*x), *x);
  if (failed(x))
    return failure();
  auto r = c.create<ArgMaxOp>(b.getI64Type(), *x, b.getI64IntegerAttr(*a),
                              b.getBoolAttr(false), b.getBoolAttr(false));
  if (failed(r))
    return failure();
  Type want = elementTypeOf(c.out(0).dtype, c.context());
  if (want != b.getI64Type())
    r = c.create<CastOp>(want, *r);
  if (failed(r))
    return failure();
  return c.setOutput(0, *r);
}

LogicalResult convertBroadcastTo(OpContext &c) {
  auto x = c.dataInput(0);
  auto shape = c.constantInts(1, "shape");
  if (failed(x) || failed(shape))
    return failure();
  return setData(c, 0,
                 c.create<ExpandOp>(elemOf(*x), *x,
                                    c.builder().getDenseI64ArrayAttr(*shape),
                                    Value()));
}

LogicalResult convertCumsum(OpContext &c) {
  auto *o = c.op()->builtin_options_as_CumsumOptions();
  auto x = c.dataInput(0);
  auto a = constantAxis(c, 1, c.in(0).shape.size());
  if (failed(x) || failed(a))
    return failure();
  OpBuilder &b = c.builder();
  return setData(c, 0,
                 c.create<CumulativeOp>(
                     elemOf(*x), *x, b.getI64IntegerAttr(*a),
                     CumulativeModeAttr::get(c.context(), CumulativeMode::Sum),
                     b.getBoolAttr(o && o->exclusive()),
                     b.getBoolAttr(o && o->reverse()), Value()));
}

const ConverterEntry kShape[] = {
    {tflite::BuiltinOperator_ARG_MAX, convertArgMax},
    {tflite::BuiltinOperator_ARG_MIN, convertArgMax},
    {tflite::BuiltinOperator_BROADCAST_TO, convertBroadcastTo},
    {tflite::BuiltinOperator_CUMSUM, convertCumsum},
    {tflite::BuiltinOperator_RESHAPE, convertReshape},
    {tflite::BuiltinOperator_SQUEEZE, convertReshape},
    {tflite::BuiltinOperator_EXPAND_DIMS, convertReshape},
    {tflite::BuiltinOperator_TRANSPOSE, convertTranspose},
    {tflite::BuiltinOperator_CONCATENATION, convertConcat},
    {tflite::BuiltinOperator_PAD, convertPad},
    {tflite::BuiltinOperator_PADV2, convertPad},
    {tflite::BuiltinOperator_MIRROR_PAD, convertPad},
    {tflite::BuiltinOperator_MEAN, convertReduce},
    {tflite::BuiltinOperator_SUM, convertReduce},
    {tflite::BuiltinOperator_REDUCE_MAX, convertReduce},
    {tflite::BuiltinOperator_REDUCE_MIN, convertReduce},
    {tflite::BuiltinOperator_REDUCE_PROD, convertReduce},
    {tflite::BuiltinOperator_STRIDED_SLICE, convertStridedSlice},
    {tflite::BuiltinOperator_SLICE, convertSlice},
    {tflite::BuiltinOperator_GATHER, convertGather},
    {tflite::BuiltinOperator_PACK, convertPack},
    {tflite::BuiltinOperator_UNPACK, convertUnpack},
    {tflite::BuiltinOperator_SPLIT, convertSplit},
    {tflite::BuiltinOperator_SPLIT_V, convertSplit},
    {tflite::BuiltinOperator_TILE, convertTile},
    {tflite::BuiltinOperator_SHAPE, convertShape},
    {tflite::BuiltinOperator_CAST, convertCast},
};

} // namespace

ArrayRef<ConverterEntry> shapeConverters() { return kShape; }

} // namespace strata::tflite_import
