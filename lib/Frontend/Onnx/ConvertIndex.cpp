//===- ConvertIndex.cpp - ONNX gather/scatter, top-k, cumsum, one-hot, range ops to Top ===//

#include "ImportContext.h"

#include <cmath>

using namespace mlir;
using namespace strata;
using namespace strata::top;

namespace strata::onnx_import {
namespace {

Type elemOf(NodeContext &c, size_t i) { return c.inputElementType(i); }

LogicalResult convertGather(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto axisAttr = c.attrInt("axis", 0);
  if (failed(rank) || failed(axisAttr))
    return failure();
  auto axis = c.normalizeAxis("attribute 'axis'", *axisAttr, *rank);
  if (failed(axis))
    return failure();
  Type idx = elemOf(c, 1);
  if (!idx || !isa<IntegerType>(idx) || idx.isInteger(1))
    return c.error() << "'indices' must be int32 or int64, got " << idx;
  auto out = c.create<GatherOp>(elemOf(c, 0), c.input(0), c.input(1),
                                c.builder().getI64IntegerAttr(*axis));
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

/// Range is a constant: its length depends on the input values.
LogicalResult convertRange(NodeContext &c) {
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
    n = std::max<int64_t>(0, static_cast<int64_t>(count));
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
    {"Gather", convertGather},
    {"Range", convertRange},
    {nullptr, nullptr},
};
} // namespace

ArrayRef<ConverterEntry> indexConverters() {
  return ArrayRef<ConverterEntry>(kIndex).drop_back();
}

} // namespace strata::onnx_import
