//===- ConvertSelect.cpp - ONNX index and selection ops to Top ------------===//
//
// The Select family (TopSelectOps.td): Trilu, CumSum/CumProd,
// ScatterElements/Scatter, ScatterND, TensorScatter, GatherND,
// GatherElements, TopK, OneHot, ReverseSequence and MaxUnpool map to its Top
// ops (GatherElements with constant indices becomes a Gather of the flat
// positions). EyeLike becomes a constant, CenterCropPad a Slice and a Pad.
// The ops whose result dims depend on input values are in
// ConvertSelectDataDependent.cpp.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace strata::onnx_import {
namespace {

/// Checks that input `i` (named `what`) has an integer element type.
LogicalResult requireIntegerInput(NodeContext &c, size_t i, StringRef what) {
  Type t = elemOf(c, i);
  if (!t || !isa<IntegerType>(t) || t.isInteger(1))
    return c.error() << "'" << what << "' must be an integer tensor, got "
                     << t;
  return success();
}

/// Input `i` as one constant integer (a scalar or a 1-element tensor).
FailureOr<int64_t> constantScalarInt(NodeContext &c, size_t i,
                                     StringRef what) {
  const Tensor *t = c.constantInput(i);
  if (!t)
    return c.error() << "the '" << what << "' input must be a constant";
  if (t->numElements() != 1)
    return c.error() << "'" << what << "' must have one element, has "
                     << t->numElements();
  return t->getAsInt(0);
}

LogicalResult convertTrilu(NodeContext &c) {
  auto upper = c.attrInt("upper", 1);
  if (failed(upper))
    return failure();
  int64_t k = 0;
  Value kValue;
  if (c.hasInput(1) && !c.constantInput(1)) {
    kValue = c.input(1); // known at run time only
  } else if (c.hasInput(1)) {
    auto v = constantScalarInt(c, 1, "k");
    if (failed(v))
      return failure();
    k = *v;
  }
  return c.setResult(c.create<TriluOp>(elemOf(c, 0), c.input(0),
                                       c.builder().getBoolAttr(*upper != 0),
                                       i64(c, k), kValue));
}

LogicalResult convertCumulative(NodeContext &c, CumulativeMode mode) {
  // A runtime axis stays an operand; the attribute is then 0.
  Value axisValue = c.hasInput(1) && !c.constantInput(1) ? c.input(1)
                                                         : Value();
  auto axis = axisValue ? FailureOr<int64_t>(0)
                        : constantScalarInt(c, 1, "axis");
  auto exclusive = c.attrInt("exclusive", 0);
  auto reverse = c.attrInt("reverse", 0);
  if (failed(axis) || failed(exclusive) || failed(reverse))
    return failure();
  OpBuilder &b = c.builder();
  return c.setResult(c.create<CumulativeOp>(
      elemOf(c, 0), c.input(0), i64(c, *axis),
      CumulativeModeAttr::get(b.getContext(), mode),
      b.getBoolAttr(*exclusive != 0), b.getBoolAttr(*reverse != 0), axisValue));
}
LogicalResult convertCumSum(NodeContext &c) {
  return convertCumulative(c, CumulativeMode::Sum);
}
LogicalResult convertCumProd(NodeContext &c) {
  return convertCumulative(c, CumulativeMode::Prod);
}

/// ScatterElements, and Scatter (its deprecated alias without reduction).
LogicalResult convertScatterElements(NodeContext &c) {
  auto axis = c.attrInt("axis", 0);
  auto reduction = c.attrEnum<ScatterReduction>("reduction", "none");
  if (failed(axis) || failed(reduction) ||
      failed(requireIntegerInput(c, 1, "indices")))
    return failure();
  return c.setResult(c.create<ScatterElementsOp>(
      elemOf(c, 0), c.input(0), c.input(1), c.input(2), i64(c, *axis),
      ScatterReductionAttr::get(c.context(), *reduction)));
}

LogicalResult convertScatterND(NodeContext &c) {
  auto reduction = c.attrEnum<ScatterReduction>("reduction", "none");
  if (failed(reduction) || failed(requireIntegerInput(c, 1, "indices")))
    return failure();
  return c.setResult(
      c.create<ScatterNDOp>(elemOf(c, 0), c.input(0), c.input(1), c.input(2),
                            ScatterReductionAttr::get(c.context(),
                                                      *reduction)));
}

/// TensorScatter (KV-cache update): a ScatterND whose indices address every
/// updated position, built from the constant write_indices.
LogicalResult convertTensorScatter(NodeContext &c) {
  auto cache = c.requireShape(0);
  auto update = c.requireShape(1);
  auto axisAttr = c.attrInt("axis", -2);
  auto mode = c.attrString("mode", "linear");
  if (failed(cache) || failed(update) || failed(axisAttr) || failed(mode))
    return failure();
  if (*mode != "linear" && *mode != "circular")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' must be 'linear' or 'circular'";
  int64_t rank = cache->size();
  if (rank < 2 || static_cast<int64_t>(update->size()) != rank)
    return c.error() << "'past_cache' shape " << formatArray(*cache)
                     << " and 'update' shape " << formatArray(*update)
                     << " must have the same rank >= 2";
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, rank);
  if (failed(axis))
    return failure();
  if (*axis == 0)
    return c.error() << "attribute 'axis' must not be the batch dim 0";
  for (int64_t d = 0; d < rank; ++d)
    if (d == *axis ? (*update)[d] > (*cache)[d] : (*update)[d] != (*cache)[d])
      return c.error() << "'update' shape " << formatArray(*update)
                       << " does not fit 'past_cache' shape "
                       << formatArray(*cache) << " at dim " << d;
  int64_t batch = (*cache)[0], maxSeq = (*cache)[*axis];
  std::vector<int64_t> writeAt(batch, 0);
  if (c.hasInput(2)) {
    auto w = c.constantInts(2);
    if (!w)
      return c.error() << "the 'write_indices' input must be a constant";
    if (static_cast<int64_t>(w->size()) != batch)
      return c.error() << "'write_indices' has " << w->size()
                       << " values, expected " << batch;
    writeAt = *w;
  }
  // indices[p_0 .. p_(axis-1), s] = (p_0, .., p_(axis-1), position of s).
  std::vector<int64_t> idxShape(update->begin(), update->begin() + *axis + 1);
  int64_t rows = 1;
  for (int64_t d : idxShape)
    rows *= d;
  idxShape.push_back(*axis + 1);
  Tensor indices(DType::I64, idxShape);
  int64_t *p = indices.data<int64_t>();
  std::vector<int64_t> pos(*axis + 1, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t at = writeAt[pos[0]] + pos[*axis];
    if (*mode == "circular")
      at = ((at % maxSeq) + maxSeq) % maxSeq;
    if (at < 0 || at >= maxSeq)
      return c.error() << "write position " << at << " of batch " << pos[0]
                       << " is out of range [0, " << maxSeq << ")";
    for (int64_t d = 0; d < *axis; ++d)
      *p++ = pos[d];
    *p++ = at;
    for (int64_t d = *axis; d >= 0 && ++pos[d] == idxShape[d]; --d)
      pos[d] = 0;
  }
  return c.setResult(c.create<ScatterNDOp>(
      elemOf(c, 0), c.input(0), c.constant(indices, "positions"), c.input(1),
      ScatterReductionAttr::get(c.builder().getContext(), ScatterReduction::None)));
}

LogicalResult convertGatherND(NodeContext &c) {
  auto batchDims = c.attrInt("batch_dims", 0);
  if (failed(batchDims) || failed(requireIntegerInput(c, 1, "indices")))
    return failure();
  return c.setResult(c.create<GatherNDOp>(elemOf(c, 0), c.input(0), c.input(1),
                                          i64(c, *batchDims)));
}

/// The flat (row-major) position in `dataShape` that each entry of
/// GatherElements' `indices` selects, or an error naming a bad index.
FailureOr<Tensor> flatPositions(NodeContext &c, ArrayRef<int64_t> dataShape,
                                ArrayRef<int64_t> idxShape,
                                ArrayRef<int64_t> indices, int64_t axis) {
  int64_t rank = dataShape.size();
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * dataShape[d + 1];
  Tensor out(DType::I64, std::vector<int64_t>(idxShape));
  std::vector<int64_t> pos(rank, 0);
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t i = indices[k], dim = dataShape[axis];
    if (i < -dim || i >= dim)
      return c.error() << "index " << i << " is out of range for dim " << dim
                       << " of axis " << axis;
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += (d == axis ? (i < 0 ? i + dim : i) : pos[d]) * strides[d];
    out.data<int64_t>()[k] = flat;
    for (int64_t d = rank - 1; d >= 0 && ++pos[d] == idxShape[d]; --d)
      pos[d] = 0;
  }
  return out;
}

/// GatherElements: with constant indices a Gather from the flattened data
/// at precomputed flat positions, else top.GatherElements.
LogicalResult convertGatherElements(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto idxShape = c.requireShape(1);
  auto axisAttr = c.attrInt("axis", 0);
  if (failed(shape) || failed(idxShape) || failed(axisAttr))
    return failure();
  int64_t rank = shape->size();
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, rank);
  if (failed(axis))
    return failure();
  bool fits = static_cast<int64_t>(idxShape->size()) == rank;
  for (int64_t d = 0; fits && d < rank; ++d)
    fits = d == *axis || (*idxShape)[d] <= (*shape)[d];
  if (!fits)
    return c.error() << "indices shape " << formatArray(*idxShape)
                     << " does not fit data shape " << formatArray(*shape);
  auto indices = c.constantInts(1);
  if (!indices) // read at run time
    return c.setResult(c.create<GatherElementsOp>(
        elemOf(c, 0), c.input(0), c.input(1),
        c.builder().getI64IntegerAttr(*axis)));
  auto flat = flatPositions(c, *shape, *idxShape, *indices, *axis);
  if (failed(flat))
    return failure();
  Type elem = elemOf(c, 0);
  if (flat->numElements() == 0) {
    auto dt = dtypeOf(elem);
    if (!dt)
      return c.error() << "element type " << elem << " is not supported";
    c.setOutput(0, c.constant(Tensor(*dt, *idxShape), "empty"));
    return success();
  }
  int64_t count = 1;
  for (int64_t d : *shape)
    count *= d;
  auto data = c.create<ReshapeOp>(elem, c.input(0),
                                  c.builder().getDenseI64ArrayAttr({count}));
  if (failed(data))
    return failure();
  auto out = c.create<GatherOp>(elem, *data, c.constant(*flat, "positions"),
                                c.builder().getI64IntegerAttr(0));
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

LogicalResult convertTopK(NodeContext &c) {
  auto axis = c.attrInt("axis", -1);
  auto largest = c.attrInt("largest", 1);
  auto sorted = c.attrInt("sorted", 1);
  if (failed(axis) || failed(largest) || failed(sorted))
    return failure();
  // A runtime K stays an operand (the attribute is then 0).
  Value kValue = c.version() >= 10 && !c.constantInput(1) ? c.input(1)
                                                          : Value();
  FailureOr<int64_t> k = c.version() < 10 ? c.attrInt("k", -1)
                         : kValue         ? FailureOr<int64_t>(0)
                                          : constantScalarInt(c, 1, "K");
  if (failed(k))
    return failure();
  OpBuilder &b = c.builder();
  auto out = c.createMulti<TopKOp>(
      {elemOf(c, 0), b.getI64Type()}, c.input(0), i64(c, *k), i64(c, *axis),
      b.getBoolAttr(*largest != 0), b.getBoolAttr(*sorted != 0), kValue);
  if (failed(out))
    return failure();
  c.setOutput(0, (*out)[0]);
  c.setOutput(1, (*out)[1]);
  return success();
}

/// OneHot: a constant depth becomes the op's attribute (static result
/// shape); a runtime depth stays an operand and the new dim is `?`.
LogicalResult convertOneHot(NodeContext &c) {
  auto axis = c.attrInt("axis", -1);
  if (failed(axis))
    return failure();
  Value depthValue = c.input(1);
  IntegerAttr depthAttr;
  if (const Tensor *depth = c.constantInput(1)) {
    if (depth->numElements() != 1)
      return c.error() << "'depth' must have one element, has "
                       << depth->numElements();
    double d = depth->getAsDouble(0);
    if (!(d >= 1 && d < double(int64_t(1) << 31)))
      return c.error() << "'depth' = " << d << " must be in [1, 2^31)";
    depthAttr = i64(c, static_cast<int64_t>(d));
    depthValue = c.none();
  }
  return c.setResult(c.create<OneHotOp>(elemOf(c, 2), c.input(0), c.input(2),
                                        depthValue, depthAttr, i64(c, *axis)));
}

LogicalResult convertReverseSequence(NodeContext &c) {
  auto batchAxis = c.attrInt("batch_axis", 1);
  auto timeAxis = c.attrInt("time_axis", 0);
  if (failed(batchAxis) || failed(timeAxis) ||
      failed(requireIntegerInput(c, 1, "sequence_lens")))
    return failure();
  return c.setResult(c.create<ReverseSequenceOp>(elemOf(c, 0), c.input(0),
                                                 c.input(1), i64(c, *batchAxis),
                                                 i64(c, *timeAxis)));
}

LogicalResult convertMaxUnpool(NodeContext &c) {
  auto x = c.requireShape(0);
  auto kernelAttr = c.attrInts("kernel_shape");
  auto stridesAttr = c.attrInts("strides");
  auto padsAttr = c.attrInts("pads");
  if (failed(x) || failed(kernelAttr) || failed(stridesAttr) ||
      failed(padsAttr) || failed(requireIntegerInput(c, 1, "I")))
    return failure();
  if (x->size() < 3)
    return c.error() << "input shape " << formatArray(*x)
                     << " must have rank >= 3";
  size_t r = x->size() - 2;
  if (!*kernelAttr || (*kernelAttr)->size() != r)
    return c.error() << "attribute 'kernel_shape' must have " << r
                     << " values";
  std::vector<int64_t> kernel = **kernelAttr;
  std::vector<int64_t> strides =
      *stridesAttr ? **stridesAttr : std::vector<int64_t>(r, 1);
  std::vector<int64_t> pads =
      *padsAttr ? **padsAttr : std::vector<int64_t>(2 * r, 0);
  if (strides.size() != r || pads.size() != 2 * r)
    return c.error() << "attributes 'strides' " << formatArray(strides)
                     << " and 'pads' " << formatArray(pads) << " must have "
                     << r << " and " << 2 * r << " values";
  // The indices address the shape inferred from the pooling window; a given
  // output_shape pads that result with zeros at the end of each dim (as the
  // ONNX reference does).
  std::vector<int64_t> inferred = {(*x)[0], (*x)[1]};
  for (size_t d = 0; d < r; ++d) {
    int64_t o;
    if (__builtin_mul_overflow((*x)[d + 2] - 1, strides[d], &o) ||
        __builtin_add_overflow(o, kernel[d] - pads[d] - pads[d + r], &o))
      return c.error() << "output size of spatial dim " << d
                       << " overflows int64";
    inferred.push_back(o);
  }
  OpBuilder &b = c.builder();
  auto out = c.create<MaxUnpoolOp>(elemOf(c, 0), c.input(0), c.input(1),
                                   b.getDenseI64ArrayAttr(inferred));
  if (failed(out) || !c.hasInput(2))
    return c.setResult(out);
  auto outShape = c.constantInts(2);
  if (!outShape)
    return c.error() << "the 'output_shape' input must be a constant";
  if (outShape->size() != inferred.size())
    return c.error() << "'output_shape' " << formatArray(*outShape)
                     << " must have " << inferred.size() << " values";
  std::vector<int64_t> padding(2 * inferred.size(), 0);
  for (size_t d = 0; d < inferred.size(); ++d) {
    if ((*outShape)[d] < inferred[d])
      return c.error() << "'output_shape' " << formatArray(*outShape)
                       << " is smaller than the unpooled shape "
                       << formatArray(inferred) << " at dim " << d;
    padding[inferred.size() + d] = (*outShape)[d] - inferred[d];
  }
  if (*outShape == inferred)
    return c.setResult(out);
  return c.setResult(
      c.create<PadOp>(elemOf(c, 0), *out, b.getDenseI64ArrayAttr(padding),
                      PadModeAttr::get(b.getContext(), PadMode::Constant), b.getF64FloatAttr(0.0)));
}

LogicalResult convertEyeLike(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto k = c.attrInt("k", 0);
  auto dtypeAttr = c.attrIntOpt("dtype");
  if (failed(shape) || failed(k) || failed(dtypeAttr))
    return failure();
  if (shape->size() != 2)
    return c.error() << "input shape " << formatArray(*shape)
                     << " must have rank 2";
  Type elem = *dtypeAttr ? elementTypeFromOnnx(**dtypeAttr, c.context())
                         : elemOf(c, 0);
  std::optional<DType> dt = elem ? dtypeOf(elem) : std::nullopt;
  if (!dt)
    return c.error() << "attribute 'dtype' = "
                     << (*dtypeAttr ? onnxTypeName(**dtypeAttr) : "input's")
                     << " is not a supported element type";
  Tensor eye(*dt, *shape);
  int64_t rows = (*shape)[0], cols = (*shape)[1];
  for (int64_t i = 0; i < rows; ++i)
    if (*k > -cols && *k < cols && i + *k >= 0 && i + *k < cols)
      eye.setFromDouble(i * cols + i + *k, 1.0);
  c.setOutput(0, c.constant(eye, "eye"));
  return success();
}

/// CenterCropPad whose target 'shape' is known at run time only, over the
/// normalized `axes` of an input of static `shape`: with `diff = dim -
/// want` per axis, a top.Slice keeps `[max(diff, 0) / 2, + min(want,
/// dim))` (runtime `bounds_value`) and a top.Pad adds `max(-diff, 0)`
/// split as begin `/ 2` and the rest (runtime `pads_value`).
LogicalResult convertRuntimeCenterCropPad(NodeContext &c,
                                          ArrayRef<int64_t> shape,
                                          ArrayRef<int64_t> axes) {
  int64_t rank = shape.size(), n = axes.size();
  auto wantShape = c.inputShape(1);
  if (!wantShape || wantShape->size() != 1 || (*wantShape)[0] != n)
    return c.error() << "a runtime 'shape' input must be 1-D with " << n
                     << " values (one per cropped axis)";
  Type i64 = c.builder().getI64Type();
  ValueBuilder vb(c);
  auto ints = [&](ArrayRef<int64_t> v, StringRef hint) {
    Tensor t(DType::I64, {static_cast<int64_t>(v.size())});
    for (auto [i, x] : llvm::enumerate(v))
      t.data<int64_t>()[i] = x;
    return c.constant(t, hint);
  };
  SmallVector<int64_t> dims, ones(n, 1), zero{0};
  for (int64_t a : axes)
    dims.push_back(shape[a]);
  Value dimsV = ints(dims, "crop_dims"), zeroV = ints(zero, "zero");
  Value two = ints({2}, "two");
  auto want = vb.convert(c.input(1), i64);
  auto diff = vb.op<SubOp>(dimsV, want);
  auto start = vb.op<DivOp>(vb.op<MaxOp>(diff, zeroV), two);
  auto end = vb.op<AddOp>(start, vb.op<MinOp>(want, dimsV));
  auto grow = vb.op<MaxOp>(vb.op<SubOp>(want, dimsV), zeroV);
  auto padBegin = vb.op<DivOp>(grow, two);
  auto padEnd = vb.op<SubOp>(grow, padBegin);
  SmallVector<Value> rows;
  for (FailureOr<Value> row :
       {start, end, FailureOr<Value>(ints(axes, "crop_axes")),
        FailureOr<Value>(ints(ones, "crop_steps"))}) {
    auto r = vb.reshape(row, {1, n});
    if (failed(r))
      return failure();
    rows.push_back(*r);
  }
  OpBuilder &b = c.builder();
  auto bounds = c.create<ConcatOp>(i64, ValueRange(rows), b.getI64IntegerAttr(0));
  if (failed(bounds) || failed(padBegin) || failed(padEnd))
    return failure();
  // Full pads [begins, ends] over all dims, 0 on dims that are not cropped.
  Tensor index(DType::I64, {2 * rank});
  for (int64_t d = 0; d < 2 * rank; ++d) {
    auto at = llvm::find(axes, d % rank);
    index.data<int64_t>()[d] =
        at == axes.end() ? 2 * n : (at - axes.begin()) + (d < rank ? 0 : n);
  }
  auto cat = c.create<ConcatOp>(i64, ValueRange{*padBegin, *padEnd, zeroV},
                                b.getI64IntegerAttr(0));
  if (failed(cat))
    return failure();
  auto pads = c.create<GatherOp>(i64, *cat, c.constant(index, "crop_pad_index"),
                                 b.getI64IntegerAttr(0));
  if (failed(pads))
    return failure();
  Type elem = elemOf(c, 0);
  auto sliced = c.create<SliceOp>(elem, c.input(0), b.getDenseI64ArrayAttr({}),
                                  b.getDenseI64ArrayAttr({}),
                                  DenseI64ArrayAttr(), DenseI64ArrayAttr(),
                                  *bounds);
  if (failed(sliced))
    return failure();
  return c.setResult(c.create<PadOp>(elem, *sliced, b.getDenseI64ArrayAttr({}),
                                     PadModeAttr::get(b.getContext(), PadMode::Constant),
                                     b.getF64FloatAttr(0.0), *pads));
}

LogicalResult convertCenterCropPad(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto axesAttr = c.attrInts("axes");
  if (failed(shape) || failed(axesAttr))
    return failure();
  int64_t rank = shape->size();
  const Tensor *target = c.constantInput(1);
  if (!target) {
    std::vector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    if (*axesAttr) {
      axes.clear();
      for (int64_t a : **axesAttr) {
        auto axis = c.normalizeAxis("attribute 'axes'", a, rank);
        if (failed(axis))
          return failure();
        if (llvm::is_contained(axes, *axis))
          return c.error() << "attribute 'axes' repeats dim " << *axis;
        axes.push_back(*axis);
      }
    }
    return convertRuntimeCenterCropPad(c, *shape, axes);
  }
  if (isFloat(target->dtype()))
    return c.error() << "'shape' must hold integers, got "
                     << dtypeName(target->dtype());
  std::vector<int64_t> axes;
  if (*axesAttr)
    axes = **axesAttr;
  else
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (static_cast<int64_t>(axes.size()) != target->numElements())
    return c.error() << "'shape' has " << target->numElements()
                     << " values but " << axes.size() << " axes are cropped";
  std::vector<int64_t> starts, ends, sliceAxes, pads(2 * rank, 0);
  std::vector<bool> seen(rank, false);
  for (auto [i, a] : llvm::enumerate(axes)) {
    auto axis = c.normalizeAxis("attribute 'axes'", a, rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return c.error() << "attribute 'axes' repeats dim " << *axis;
    seen[*axis] = true;
    int64_t want = target->getAsInt(i), dim = (*shape)[*axis];
    if (want < 0)
      return c.error() << "'shape' value " << want << " for axis " << *axis
                       << " must be >= 0";
    if (want < dim) {
      // Crop: the extra element of an odd difference is cut at the end.
      int64_t begin = (dim - want) / 2;
      starts.push_back(begin);
      ends.push_back(begin + want);
      sliceAxes.push_back(*axis);
    } else if (want > dim) {
      pads[*axis] = (want - dim) / 2;
      pads[*axis + rank] = want - dim - pads[*axis];
    }
  }
  Value v = c.input(0);
  Type elem = elemOf(c, 0);
  OpBuilder &b = c.builder();
  if (!starts.empty()) {
    auto s = c.create<SliceOp>(elem, v, b.getDenseI64ArrayAttr(starts),
                               b.getDenseI64ArrayAttr(ends),
                               b.getDenseI64ArrayAttr(sliceAxes),
                               DenseI64ArrayAttr());
    if (failed(s))
      return failure();
    v = *s;
  }
  if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
    auto p = c.create<PadOp>(elem, v, b.getDenseI64ArrayAttr(pads),
                             PadModeAttr::get(b.getContext(), PadMode::Constant),
                             b.getF64FloatAttr(0.0));
    if (failed(p))
      return failure();
    v = *p;
  }
  c.setOutput(0, v);
  return success();
}

const ConverterEntry kSelect[] = {
    {"Trilu", convertTrilu},
    {"CumSum", convertCumSum},
    {"CumProd", convertCumProd},
    {"ScatterElements", convertScatterElements},
    {"Scatter", convertScatterElements},
    {"ScatterND", convertScatterND},
    {"TensorScatter", convertTensorScatter},
    {"GatherND", convertGatherND},
    {"GatherElements", convertGatherElements},
    {"TopK", convertTopK},
    {"OneHot", convertOneHot},
    {"ReverseSequence", convertReverseSequence},
    {"MaxUnpool", convertMaxUnpool},
    {"EyeLike", convertEyeLike},
    {"CenterCropPad", convertCenterCropPad},
};
} // namespace

ArrayRef<ConverterEntry> selectConverters() { return kSelect; }

} // namespace strata::onnx_import
