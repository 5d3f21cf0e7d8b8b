//===- ConvertMl.cpp - ai.onnx.ml ops -------------------------------------===//
//
// The ai.onnx.ml ops that are plain tensor arithmetic: Binarizer (a
// threshold) and ArrayFeatureExtractor (a Gather on the last axis). The
// string-keyed and tree ops of the domain are not imported.
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// Binarizer: 1 where x > threshold, else 0, in x's type.
LogicalResult convertBinarizer(NodeContext &c) {
  auto threshold = c.attrFloat("threshold", 0.0f);
  if (failed(threshold))
    return failure();
  Type elem = c.inputElementType(0);
  auto dt = dtypeOf(elem);
  if (!dt || dt == DType::Bool)
    return c.error() << "input 'X' has unsupported element type " << elem;
  auto constant = [&](double v, StringRef name) {
    Tensor t(*dt, {});
    t.setFromDouble(0, v);
    return c.constant(t, name);
  };
  OpBuilder &b = c.builder();
  auto above = c.create<CompareOp>(b.getI1Type(), c.input(0),
                                   constant(*threshold, "threshold"),
                                   CompareModeAttr::get(b.getContext(), CompareMode::Greater));
  if (failed(above))
    return failure();
  return c.setResult(c.create<WhereOp>(elem, *above, constant(1.0, "one"),
                                       constant(0.0, "zero")));
}

/// ArrayFeatureExtractor: x[..., indices] with the indices flattened; a
/// 1-d x gives one row (ONNX Runtime's and the reference's shape).
LogicalResult convertArrayFeatureExtractor(NodeContext &c) {
  auto x = c.requireShape(0);
  auto idx = c.requireShape(1);
  if (failed(x) || failed(idx))
    return failure();
  if (x->empty())
    return c.error() << "input 'X' must have rank >= 1";
  Type indexType = c.inputElementType(1);
  if (!indexType || !indexType.isInteger(64))
    return c.error() << "input 'Y' must be int64, got " << indexType;
  int64_t count = 1;
  for (int64_t d : *idx)
    count *= d;
  OpBuilder &b = c.builder();
  Type elem = c.inputElementType(0);
  auto flat = c.create<ReshapeOp>(indexType, c.input(1),
                                  b.getDenseI64ArrayAttr({count}));
  if (failed(flat))
    return failure();
  auto picked = c.create<GatherOp>(elem, c.input(0), *flat,
                                   b.getI64IntegerAttr(x->size() - 1));
  if (failed(picked))
    return failure();
  std::vector<int64_t> shape(x->begin(), x->end() - 1);
  if (shape.empty())
    shape.push_back(1);
  shape.push_back(count);
  return c.setResult(
      c.create<ReshapeOp>(elem, *picked, b.getDenseI64ArrayAttr(shape)));
}

} // namespace

llvm::ArrayRef<ConverterEntry> mlConverters() {
  static const ConverterEntry table[] = {
      {"Binarizer", convertBinarizer},
      {"ArrayFeatureExtractor", convertArrayFeatureExtractor},
  };
  return table;
}

} // namespace strata::onnx_import
