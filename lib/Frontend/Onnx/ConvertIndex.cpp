//===- ConvertIndex.cpp - ONNX gather/scatter, top-k, cumsum, one-hot, range ops to Top ===//

#include "ConverterSupport.h"

#include <cmath>

namespace strata::onnx_import {
namespace {

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

/// Reads a one-element constant input as a double and as an int.
struct Scalar {
  double f;
  int64_t i;
};

FailureOr<Scalar> scalarInput(NodeContext &c, size_t i, StringRef what) {
  const Tensor *t = c.constantInput(i);
  if (!t)
    return c.error() << "the '" << what
                     << "' input must be a constant (the output shape "
                        "depends on it)";
  if (t->numElements() != 1)
    return c.error() << "'" << what << "' must be a scalar, has "
                     << t->numElements() << " elements";
  return Scalar{t->getAsDouble(0), t->getAsInt(0)};
}

/// Range of constant inputs is a constant; otherwise its length depends on
/// run-time values and it becomes a top.Loop (convertRangeAsLoop).
LogicalResult convertRange(NodeContext &c) {
  if (!c.constantInput(0) || !c.constantInput(1) || !c.constantInput(2))
    return convertRangeAsLoop(c);
  auto start = scalarInput(c, 0, "start");
  auto limit = scalarInput(c, 1, "limit");
  auto delta = scalarInput(c, 2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  DType dt = c.constantInput(0)->dtype();
  bool fp = isFloat(dt);
  if (fp ? delta->f == 0.0 : delta->i == 0)
    return c.error() << "'delta' must not be 0";
  int64_t n;
  if (fp) {
    double count = std::ceil((limit->f - start->f) / delta->f);
    if (!(count < double(int64_t(1) << 28)))
      return c.error() << "range of " << count << " elements is too large";
    n = count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    // Ceiling division in integers (no float rounding).
    int64_t span, d = delta->i;
    if (__builtin_sub_overflow(limit->i, start->i, &span))
      return c.error() << "range from " << start->i << " to " << limit->i
                       << " overflows int64";
    int64_t q = span / d;
    if (q * d != span && ((span < 0) == (d < 0)))
      ++q;
    n = std::max<int64_t>(0, q);
    if (n > (int64_t(1) << 28))
      return c.error() << "range of " << n << " elements is too large";
  }
  Tensor t(dt, {n});
  for (int64_t k = 0; k < n; ++k) {
    if (fp)
      t.setFromDouble(k, start->f + static_cast<double>(k) * delta->f);
    else if (dt == DType::I64)
      t.data<int64_t>()[k] = start->i + k * delta->i;
    else
      t.setFromDouble(k, static_cast<double>(start->i + k * delta->i));
  }
  c.setOutput(0, c.constant(t, "range"));
  return success();
}

const ConverterEntry kIndex[] = {
    {"GatherElements", convertGatherElements},
    {"Range", convertRange},
};
} // namespace

ArrayRef<ConverterEntry> indexConverters() { return kIndex; }

} // namespace strata::onnx_import
