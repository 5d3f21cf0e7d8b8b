//===- ConvertSelectDataDependent.cpp - NonZero, Unique, NMS, Compress ----===//
//
// Part of the Select family (TopSelectOps.td): the ops whose result dims
// depend on input values. NonZero, Unique and NonMaxSuppression have Top
// ops that infer `?` there and the reference interpreter computes the size;
// such a result may only be a graph output (or the op folds when its inputs
// are constants). Compress needs a constant condition (its result feeds a
// Gather, which needs static indices).
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <algorithm>

namespace strata::onnx_import {
namespace {

/// Compress: a Gather of the positions where the constant condition holds
/// (the result length depends on the condition's values).
LogicalResult convertCompress(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto axisAttr = c.attrIntOpt("axis");
  if (failed(shape) || failed(axisAttr))
    return failure();
  const Tensor *cond = c.constantInput(1);
  if (!cond)
    return c.error() << "the 'condition' input must be a constant (the "
                        "output shape depends on its values)";
  if (cond->rank() != 1)
    return c.error() << "'condition' must be 1-D, has shape "
                     << shapeToString(cond->shape());
  Value data = c.input(0);
  Type elem = elemOf(c, 0);
  int64_t axis = 0, dim;
  if (*axisAttr) {
    auto a = c.normalizeAxis("attribute 'axis'", **axisAttr, shape->size());
    if (failed(a))
      return failure();
    axis = *a;
    dim = (*shape)[axis];
  } else {
    auto count = checkedNumElements(*shape);
    if (!count)
      return c.error() << "input shape " << formatArray(*shape)
                       << " overflows int64";
    dim = *count;
    auto flat = c.create<ReshapeOp>(elem, data,
                                    c.builder().getDenseI64ArrayAttr({dim}));
    if (failed(flat))
      return failure();
    data = *flat;
  }
  if (cond->numElements() > dim)
    return c.error() << "'condition' has " << cond->numElements()
                     << " values, more than the " << dim
                     << " entries along the compressed axis";
  std::vector<int64_t> picked;
  for (int64_t i = 0; i < cond->numElements(); ++i)
    if (cond->getAsDouble(i) != 0.0)
      picked.push_back(i);
  Tensor positions(DType::I64, {static_cast<int64_t>(picked.size())});
  std::copy(picked.begin(), picked.end(), positions.data<int64_t>());
  return c.setResult(c.create<GatherOp>(
      elem, data, c.constant(positions, "positions"), i64(c, axis)));
}

/// NonZero, Unique and NonMaxSuppression: Top ops with data-dependent
/// (`?`) result dims; with constant inputs they fold to constants here.
LogicalResult convertNonZero(NodeContext &c) {
  return c.setResult(c.create<NonZeroOp>(c.builder().getI64Type(), c.input(0)));
}

LogicalResult convertUnique(NodeContext &c) {
  auto sorted = c.attrInt("sorted", 1);
  auto axis = c.attrIntOpt("axis");
  if (failed(sorted) || failed(axis))
    return failure();
  OpBuilder &b = c.builder();
  Type i64Type = b.getI64Type();
  auto out = c.createMulti<UniqueOp>(
      {elemOf(c, 0), i64Type, i64Type, i64Type}, c.input(0),
      b.getBoolAttr(*sorted != 0), b.getBoolAttr(axis->has_value()),
      i64(c, axis->value_or(0)));
  if (failed(out))
    return failure();
  for (size_t i = 0; i < 4; ++i)
    c.setOutput(i, (*out)[i]);
  return success();
}

LogicalResult convertNonMaxSuppression(NodeContext &c) {
  auto centerPointBox = c.attrInt("center_point_box", 0);
  if (failed(centerPointBox))
    return failure();
  Value optional[3];
  for (size_t i = 0; i < 3; ++i)
    optional[i] = c.hasInput(i + 2) ? c.input(i + 2) : c.none();
  return c.setResult(c.create<NonMaxSuppressionOp>(
      c.builder().getI64Type(), c.input(0), c.input(1), optional[0],
      optional[1], optional[2], i64(c, *centerPointBox)));
}

const ConverterEntry kSelectDataDependent[] = {
    {"Compress", convertCompress},
    {"NonZero", convertNonZero},
    {"Unique", convertUnique},
    {"NonMaxSuppression", convertNonMaxSuppression},
};
} // namespace

ArrayRef<ConverterEntry> selectDataDependentConverters() {
  return kSelectDataDependent;
}

} // namespace strata::onnx_import
