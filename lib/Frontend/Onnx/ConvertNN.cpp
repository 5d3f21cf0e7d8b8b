//===- ConvertNN.cpp - ONNX MatMul, Gemm, Softmax, DepthToSpace to Top ----===//
//
// The NN family (TopNNOps.td): MatMul and Gemm, Softmax, LogSoftmax and
// Hardmax, DepthToSpace and SpaceToDepth. The rest of the family is in
// ConvertNNConv.cpp (Conv, ConvTranspose), ConvertNNPool.cpp (pooling),
// ConvertNNNorm.cpp (normalizations) and ConvertNNResize.cpp (Resize,
// Upsample).
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

#include <cmath>

namespace strata::onnx_import {
namespace {

//===----------------------------------------------------------------------===//
// MatMul, Gemm
//===----------------------------------------------------------------------===//

LogicalResult convertMatMul(NodeContext &c) {
  auto out = c.create<MatMulOp>(elemOf(c, 0), c.input(0), c.input(1), c.none(),
                                false, false, llvm::APFloat(-1.0));
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

/// Y = alpha * A' @ B' + beta * C, with A' = A^T if transA (a Permute) and
/// B' = B^T if transB (MatMul's right_transpose).
LogicalResult convertGemm(NodeContext &c) {
  auto alpha = c.attrFloat("alpha", 1.0f);
  auto beta = c.attrFloat("beta", 1.0f);
  auto transA = c.attrInt("transA", 0);
  auto transB = c.attrInt("transB", 0);
  auto aShape = c.requireShape(0);
  auto bShape = c.requireShape(1);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB) ||
      failed(aShape) || failed(bShape))
    return failure();
  if (aShape->size() != 2 || bShape->size() != 2)
    return c.error() << "A " << formatArray(*aShape) << " and B "
                     << formatArray(*bShape) << " must be 2-d";
  Type elem = elemOf(c, 0);
  Value a = c.input(0);
  if (*transA) {
    auto t = c.create<PermuteOp>(elem, a,
                                 c.builder().getDenseI64ArrayAttr({1, 0}));
    if (failed(t))
      return failure();
    a = *t;
  }
  int64_t n = (*bShape)[*transB ? 0 : 1];
  bool hasC = c.hasInput(2) && *beta != 0.0f;
  Value cv;
  if (hasC) {
    cv = c.input(2);
    if (*beta != 1.0f) {
      auto m = c.create<MulOp>(elem, cv, scalar(c, elem, *beta));
      if (failed(m))
        return failure();
      cv = *m;
    }
  }
  // C folds into MatMul's bias when it is one row of N values and no alpha
  // scales the product.
  auto cShape = hasC ? c.inputShape(2) : std::nullopt;
  bool asBias = hasC && *alpha == 1.0f && cShape && cShape->size() == 1 &&
                (*cShape)[0] == n;
  auto y = c.create<MatMulOp>(elem, a, c.input(1), asBias ? cv : c.none(),
                              *transB != 0, false, llvm::APFloat(-1.0));
  if (failed(y))
    return failure();
  Value out = *y;
  if (*alpha != 1.0f) {
    auto m = c.create<MulOp>(elem, out, scalar(c, elem, *alpha));
    if (failed(m))
      return failure();
    out = *m;
  }
  if (hasC && !asBias) {
    auto s = c.create<AddOp>(elem, out, cv);
    if (failed(s))
      return failure();
    out = *s;
  }
  c.setOutput(0, out);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax, Hardmax
//===----------------------------------------------------------------------===//

using AxisFn = FailureOr<Value> (*)(NodeContext &, Value, int64_t);

/// Applies `fn` along `axis`; before opset 13 the input is first coerced to
/// 2-d at `axis` (the op then works on dim 1) and reshaped back.
LogicalResult convertAxisOp(NodeContext &c, AxisFn fn) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  bool legacy = c.version() < 13;
  auto axisAttr = c.attrInt("axis", legacy ? 1 : -1);
  if (failed(axisAttr))
    return failure();
  if (rank == 0)
    return c.error() << "input must have rank >= 1";
  auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, rank);
  if (failed(axis))
    return failure();
  if (!legacy) {
    auto r = fn(c, c.input(0), *axis);
    if (failed(r))
      return failure();
    c.setOutput(0, *r);
    return success();
  }
  ArrayRef<int64_t> dims(*shape);
  auto flat = reshape(c, c.input(0),
                      {product(dims.take_front(*axis)),
                       product(dims.drop_front(*axis))});
  if (failed(flat))
    return failure();
  auto r = fn(c, *flat, 1);
  if (failed(r))
    return failure();
  auto back = reshape(c, *r, dims);
  if (failed(back))
    return failure();
  c.setOutput(0, *back);
  return success();
}

template <typename OpTy>
FailureOr<Value> softmaxAlong(NodeContext &c, Value x, int64_t axis) {
  return c.create<OpTy>(cast<ShapedType>(x.getType()).getElementType(), x,
                        c.builder().getI64IntegerAttr(axis));
}

/// One-hot of the first maximum: ArgMax, compared with an iota, cast back.
FailureOr<Value> hardmaxAlong(NodeContext &c, Value x, int64_t axis) {
  OpBuilder &b = c.builder();
  Type elem = cast<ShapedType>(x.getType()).getElementType();
  SmallVector<int64_t> shape = shapeOf(x);
  // Along an empty axis there is no maximum, and nothing to mark: the result
  // is the (empty) input.
  if (shape[axis] == 0)
    return x;
  auto idx = c.create<ArgMaxOp>(b.getI64Type(), x, b.getI64IntegerAttr(axis),
                                b.getBoolAttr(true), b.getBoolAttr(false));
  if (failed(idx))
    return failure();
  std::vector<int64_t> iotaShape(shape.size(), 1);
  iotaShape[axis] = shape[axis];
  Tensor iota(DType::I64, iotaShape);
  for (int64_t i = 0; i < shape[axis]; ++i)
    iota.data<int64_t>()[i] = i;
  auto eq = c.create<CompareOp>(b.getI1Type(), *idx, c.constant(iota, "iota"),
                                CompareModeAttr::get(b.getContext(), CompareMode::Equal));
  if (failed(eq))
    return failure();
  return c.create<CastOp>(elem, *eq);
}

LogicalResult convertSoftmax(NodeContext &c) {
  return convertAxisOp(c, softmaxAlong<SoftmaxOp>);
}
LogicalResult convertLogSoftmax(NodeContext &c) {
  return convertAxisOp(c, softmaxAlong<LogSoftmaxOp>);
}
LogicalResult convertHardmax(NodeContext &c) {
  return convertAxisOp(c, hardmaxAlong);
}

//===----------------------------------------------------------------------===//
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

LogicalResult convertDepthToSpace(NodeContext &c) {
  auto bs = c.attrIntOpt("blocksize");
  auto mode = c.attrEnum<DepthToSpaceMode>("mode", "DCR");
  if (failed(bs) || failed(mode))
    return failure();
  if (!*bs)
    return c.error() << "attribute 'blocksize' is required";
  OpBuilder &b = c.builder();
  return emit<DepthToSpaceOp>(c, elemOf(c, 0), c.input(0),
                              b.getI64IntegerAttr(**bs),
                              DepthToSpaceModeAttr::get(b.getContext(), *mode));
}

LogicalResult convertSpaceToDepth(NodeContext &c) {
  auto bs = c.attrIntOpt("blocksize");
  if (failed(bs))
    return failure();
  if (!*bs)
    return c.error() << "attribute 'blocksize' is required";
  return emit<SpaceToDepthOp>(c, elemOf(c, 0), c.input(0),
                              c.builder().getI64IntegerAttr(**bs));
}

const ConverterEntry kNN[] = {
    {"MatMul", convertMatMul},
    {"Gemm", convertGemm},
    {"Softmax", convertSoftmax},
    {"LogSoftmax", convertLogSoftmax},
    {"Hardmax", convertHardmax},
    {"DepthToSpace", convertDepthToSpace},
    {"SpaceToDepth", convertSpaceToDepth},
};
} // namespace

ArrayRef<ConverterEntry> nnConverters() { return kNN; }

} // namespace strata::onnx_import
