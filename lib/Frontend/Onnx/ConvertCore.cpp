//===- ConvertCore.cpp - ONNX conv, pool, gemm, basic ops to Top ----------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {
namespace {

/// Output element type = input 0's element type.
template <typename OpTy> LogicalResult convertUnary(NodeContext &c) {
  auto r = c.create<OpTy>(elemOf(c, 0), c.input(0));
  if (failed(r))
    return failure();
  c.setOutput(0, *r);
  return success();
}

template <typename OpTy> LogicalResult convertBinary(NodeContext &c) {
  if (elemOf(c, 0) != elemOf(c, 1))
    return c.error() << "operand element types differ: " << elemOf(c, 0)
                     << " and " << elemOf(c, 1);
  auto r = c.create<OpTy>(elemOf(c, 0), c.input(0), c.input(1));
  if (failed(r))
    return failure();
  c.setOutput(0, *r);
  return success();
}

LogicalResult convertIdentity(NodeContext &c) {
  c.setOutput(0, c.input(0));
  return success();
}

LogicalResult convertConstant(NodeContext &c) {
  if (c.node().attribute_size() != 1)
    return c.error() << "expected exactly one value attribute, got "
                     << c.node().attribute_size();
  const onnx::AttributeProto &a = c.node().attribute(0);
  using AP = onnx::AttributeProto;
  static const std::pair<const char *, AP::AttributeType> kTypes[] = {
      {"value", AP::TENSOR},       {"value_float", AP::FLOAT},
      {"value_floats", AP::FLOATS}, {"value_int", AP::INT},
      {"value_ints", AP::INTS}};
  for (const auto &[name, type] : kTypes)
    if (a.name() == name && a.type() != type)
      return c.error() << "attribute '" << name << "' must be of type "
                       << AP::AttributeType_Name(type) << ", not "
                       << (AP::AttributeType_IsValid(a.type())
                               ? AP::AttributeType_Name(a.type())
                               : std::string("INVALID"));
  Tensor t;
  if (a.name() == "value") {
    std::string err;
    if (!readTensorProto(a.t(), c.modelDir(), t, err))
      return c.error() << "attribute 'value': " << err;
  } else if (a.name() == "value_float") {
    t = Tensor(DType::F32, {});
    t.data<float>()[0] = a.f();
  } else if (a.name() == "value_floats") {
    t = Tensor(DType::F32, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i)
      t.data<float>()[i] = a.floats(i);
  } else if (a.name() == "value_int") {
    t = Tensor(DType::I64, {});
    t.data<int64_t>()[0] = a.i();
  } else if (a.name() == "value_ints") {
    t = Tensor(DType::I64, {a.ints_size()});
    for (int i = 0; i < a.ints_size(); ++i)
      t.data<int64_t>()[i] = a.ints(i);
  } else {
    return c.error() << "attribute '" << a.name() << "' is not supported";
  }
  c.setOutput(0, c.constant(t, "value"));
  return success();
}

/// Kernel window attributes shared by Conv and the pools, with auto_pad
/// resolved to explicit pads.
using Window = KernelWindow;

FailureOr<Window> readWindow(NodeContext &c, int64_t spatialRank,
                             ArrayRef<int64_t> inSpatial,
                             std::optional<std::vector<int64_t>> kernel) {
  Window w;
  auto k = c.attrInts("kernel_shape");
  auto s = c.attrInts("strides");
  auto d = c.attrInts("dilations");
  auto p = c.attrInts("pads");
  auto autoPad = c.attrString("auto_pad", "NOTSET");
  if (failed(k) || failed(s) || failed(d) || failed(p) || failed(autoPad))
    return failure();
  if (*k)
    w.kernel = **k;
  else if (kernel)
    w.kernel = *kernel;
  else
    return c.error() << "attribute 'kernel_shape' is required";
  w.strides = s->value_or(std::vector<int64_t>(spatialRank, 1));
  w.dilations = d->value_or(std::vector<int64_t>(spatialRank, 1));
  w.pads = p->value_or(std::vector<int64_t>(2 * spatialRank, 0));
  if (static_cast<int64_t>(w.kernel.size()) != spatialRank ||
      static_cast<int64_t>(w.strides.size()) != spatialRank ||
      static_cast<int64_t>(w.dilations.size()) != spatialRank ||
      static_cast<int64_t>(w.pads.size()) != 2 * spatialRank)
    return c.error() << "kernel_shape/strides/dilations must have "
                     << spatialRank << " values and pads "
                     << 2 * spatialRank << " for a " << spatialRank
                     << "-d input";
  for (int64_t i = 0; i < spatialRank; ++i)
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] < 1)
      return c.error() << "kernel_shape, strides and dilations must be "
                          "positive, got kernel_shape "
                       << formatArray(w.kernel) << ", strides "
                       << formatArray(w.strides) << ", dilations "
                       << formatArray(w.dilations);
  if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < spatialRank; ++i) {
      int64_t out = (inSpatial[i] + w.strides[i] - 1) / w.strides[i];
      int64_t ext = (w.kernel[i] - 1) * w.dilations[i] + 1;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * w.strides[i] + ext - inSpatial[i]);
      int64_t small = total / 2, big = total - small;
      w.pads[i] = *autoPad == "SAME_UPPER" ? small : big;
      w.pads[i + spatialRank] = *autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (*autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (*autoPad != "NOTSET") {
    return c.error() << "attribute 'auto_pad' has invalid value '" << *autoPad
                     << "'";
  }
  return w;
}

LogicalResult convertConv(NodeContext &c) {
  auto x = c.requireShape(0);
  auto wShape = c.requireShape(1);
  if (failed(x) || failed(wShape))
    return failure();
  if (x->size() < 3 || wShape->size() != x->size())
    return c.error() << "input shape " << formatArray(*x) << " and weight shape "
                     << formatArray(*wShape) << " must have equal rank >= 3";
  int64_t r = x->size() - 2;
  auto win = readWindow(c, r, ArrayRef<int64_t>(*x).drop_front(2),
                        std::vector<int64_t>(wShape->begin() + 2, wShape->end()));
  auto group = c.attrInt("group", 1);
  if (failed(win) || failed(group))
    return failure();
  OpBuilder &b = c.builder();
  auto out = c.create<ConvOp>(
      elemOf(c, 0), c.input(0), c.input(1), c.input(2),
      b.getDenseI64ArrayAttr(win->kernel), b.getDenseI64ArrayAttr(win->strides),
      b.getDenseI64ArrayAttr(win->pads), b.getDenseI64ArrayAttr(win->dilations),
      b.getI64IntegerAttr(*group), b.getBoolAttr(false), b.getF64FloatAttr(-1.0),
      DenseI64ArrayAttr(), DenseI64ArrayAttr());
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  return success();
}

template <typename PoolOp>
LogicalResult convertPool(NodeContext &c, bool isMax) {
  auto x = c.requireShape(0);
  if (failed(x))
    return failure();
  if (x->size() < 3)
    return c.error() << "input shape " << formatArray(*x)
                     << " must have rank >= 3";
  bool withIndices = isMax && c.numOutputs() > 1 && c.hasOutput(1);
  auto storage = c.attrInt("storage_order", 0);
  if (failed(storage))
    return failure();
  // storage_order only changes the Indices output.
  if (*storage != 0 && *storage != 1)
    return c.error() << "attribute 'storage_order' = " << *storage
                     << " must be 0 or 1";
  int64_t r = x->size() - 2;
  if (withIndices && r != 2)
    return c.error() << "the Indices output of MaxPool is supported for 2-D "
                        "pooling only, the input has "
                     << r << " spatial dims";
  auto win = readWindow(c, r, ArrayRef<int64_t>(*x).drop_front(2), std::nullopt);
  auto ceil = c.attrInt("ceil_mode", 0);
  auto incl = c.attrInt("count_include_pad", 0);
  if (failed(win) || failed(ceil) || failed(incl))
    return failure();
  OpBuilder &b = c.builder();
  auto out = c.create<PoolOp>(
      elemOf(c, 0), c.input(0), b.getDenseI64ArrayAttr(win->kernel),
      b.getDenseI64ArrayAttr(win->strides), b.getDenseI64ArrayAttr(win->pads),
      b.getDenseI64ArrayAttr(win->dilations), b.getBoolAttr(*ceil != 0),
      b.getBoolAttr(*incl != 0), b.getBoolAttr(false), b.getF64FloatAttr(-1.0));
  if (failed(out))
    return failure();
  c.setOutput(0, *out);
  if (withIndices) {
    auto indices = c.create<MaxPoolIndicesOp>(
        b.getI64Type(), c.input(0), b.getDenseI64ArrayAttr(win->kernel),
        b.getDenseI64ArrayAttr(win->strides), b.getDenseI64ArrayAttr(win->pads),
        b.getDenseI64ArrayAttr(win->dilations), b.getBoolAttr(*ceil != 0),
        b.getI64IntegerAttr(*storage));
    if (failed(indices))
      return failure();
    c.setOutput(1, *indices);
  }
  return success();
}

LogicalResult convertMaxPool(NodeContext &c) {
  return convertPool<MaxPoolOp>(c, true);
}
LogicalResult convertAveragePool(NodeContext &c) {
  return convertPool<AvgPoolOp>(c, false);
}

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

const ConverterEntry kCore[] = {
    {"Identity", convertIdentity},
    {"Constant", convertConstant},
    {"Conv", convertConv},
    {"MaxPool", convertMaxPool},
    {"AveragePool", convertAveragePool},
    {"GlobalAveragePool", convertUnary<GlobalAvgPoolOp>},
    {"MatMul", convertMatMul},
    {"Gemm", convertGemm},
};
} // namespace

ArrayRef<ConverterEntry> coreConverters() { return kCore; }

FailureOr<KernelWindow>
readKernelWindow(NodeContext &c, int64_t spatialRank,
                 ArrayRef<int64_t> inSpatial,
                 std::optional<std::vector<int64_t>> kernel) {
  return readWindow(c, spatialRank, inSpatial, std::move(kernel));
}

} // namespace strata::onnx_import
