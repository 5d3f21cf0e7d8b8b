//===- ConvertNNPool.cpp - ONNX pooling to Top ----------------------------===//
//
// Part of the NN family (TopNNOps.td): MaxPool (with its Indices output as
// top.MaxPoolIndices) and AveragePool over a kernel window, GlobalAveragePool
// and GlobalMaxPool, and LpPool decomposed into existing Top ops.
//
//===----------------------------------------------------------------------===//

#include "ValueChain.h"

namespace strata::onnx_import {
using namespace chain;
namespace {

//===----------------------------------------------------------------------===//
// MaxPool, AveragePool
//===----------------------------------------------------------------------===//

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
  auto win = readKernelWindow(c, r, ArrayRef<int64_t>(*x).drop_front(2),
                              std::nullopt);
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

//===----------------------------------------------------------------------===//
// GlobalAveragePool, GlobalMaxPool
//===----------------------------------------------------------------------===//

LogicalResult convertGlobalAveragePool(NodeContext &c) {
  return emit<GlobalAvgPoolOp>(c, elemOf(c, 0), c.input(0));
}

LogicalResult convertGlobalMaxPool(NodeContext &c) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  if (shape->size() < 3)
    return c.error() << "input shape " << formatArray(*shape)
                     << " must have rank >= 3";
  int64_t r = shape->size() - 2;
  OpBuilder &b = c.builder();
  std::vector<int64_t> kernel(shape->begin() + 2, shape->end());
  return emit<MaxPoolOp>(
      c, elemOf(c, 0), c.input(0), b.getDenseI64ArrayAttr(kernel),
      b.getDenseI64ArrayAttr(std::vector<int64_t>(r, 1)),
      b.getDenseI64ArrayAttr(std::vector<int64_t>(2 * r, 0)),
      b.getDenseI64ArrayAttr(std::vector<int64_t>(r, 1)), b.getBoolAttr(false),
      b.getBoolAttr(false), b.getBoolAttr(false), b.getF64FloatAttr(-1.0));
}

//===----------------------------------------------------------------------===//
// LpPool (null-chained building blocks: ValueChain.h)
//===----------------------------------------------------------------------===//

/// LpPool: (sum over the window of |x|^p)^(1/p), with the window sum taken
/// as an AvgPool that counts the padding times the kernel size.
LogicalResult convertLpPool(NodeContext &c) {
  auto x = c.requireShape(0);
  auto p = c.attrInt("p", 2);
  auto ceil = c.attrInt("ceil_mode", 0);
  if (failed(x) || failed(p) || failed(ceil))
    return failure();
  if (x->size() < 3)
    return c.error() << "input shape " << formatArray(*x)
                     << " must have rank >= 3";
  if (*p < 1)
    return c.error() << "attribute 'p' = " << *p << " must be >= 1";
  if (*ceil != 0)
    return c.error() << "attribute 'ceil_mode' = " << *ceil
                     << " is not supported (only 0)";
  int64_t r = x->size() - 2;
  auto win = readKernelWindow(c, r, ArrayRef<int64_t>(*x).drop_front(2),
                            std::nullopt);
  if (failed(win))
    return failure();
  Value in = c.input(0);
  Type t = elemType(in);
  if (!isa_and_nonnull<FloatType>(t))
    return c.error() << "input 0 has element type " << t
                     << "; only float types are supported";
  double taps = 1;
  for (int64_t k : win->kernel)
    taps *= static_cast<double>(k);
  Value absX = make<AbsOp>(c, t, in);
  Value powered = *p == 1   ? absX
                  : *p == 2 ? binary<MulOp>(c, absX, absX)
                            : binary<PowOp>(c, absX,
                                            scalarLike(c, in, *p, "p"));
  OpBuilder &b = c.builder();
  Value mean = make<AvgPoolOp>(
      c, t, powered, b.getDenseI64ArrayAttr(win->kernel),
      b.getDenseI64ArrayAttr(win->strides), b.getDenseI64ArrayAttr(win->pads),
      b.getDenseI64ArrayAttr(win->dilations), b.getBoolAttr(false),
      b.getBoolAttr(true), b.getBoolAttr(false), b.getF64FloatAttr(-1.0));
  Value sum = binary<MulOp>(c, mean, scalarLike(c, in, taps, "taps"));
  if (*p == 1)
    return finish(c, sum);
  if (*p == 2)
    return finish(c, make<SqrtOp>(c, t, sum));
  return finish(c, binary<PowOp>(c, sum,
                                 scalarLike(c, in, 1.0 / *p, "inv_p")));
}

const ConverterEntry kNNPool[] = {
    {"MaxPool", convertMaxPool},
    {"AveragePool", convertAveragePool},
    {"GlobalAveragePool", convertGlobalAveragePool},
    {"GlobalMaxPool", convertGlobalMaxPool},
    {"LpPool", convertLpPool},
};
} // namespace

ArrayRef<ConverterEntry> nnPoolConverters() { return kNNPool; }

} // namespace strata::onnx_import
