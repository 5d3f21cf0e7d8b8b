//===- ConvertNNConv.cpp - ONNX Conv and ConvTranspose to Top -------------===//
//
// Part of the NN family (TopNNOps.td): Conv becomes top.Conv and
// ConvTranspose top.Deconv, with kernel_shape, strides, dilations, pads
// and auto_pad resolved to explicit values. readKernelWindow also serves
// the pools (ConvertNNPool.cpp) and ConvInteger (ConvertQuantInteger.cpp).
//
//===----------------------------------------------------------------------===//

#include "ConverterSupport.h"

namespace strata::onnx_import {

FailureOr<KernelWindow>
readKernelWindow(NodeContext &c, int64_t spatialRank,
                 ArrayRef<int64_t> inSpatial,
                 std::optional<std::vector<int64_t>> kernel) {
  KernelWindow w;
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

namespace {

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

LogicalResult convertConv(NodeContext &c) {
  auto x = c.requireShape(0);
  auto wShape = c.requireShape(1);
  if (failed(x) || failed(wShape))
    return failure();
  if (x->size() < 3 || wShape->size() != x->size())
    return c.error() << "input shape " << formatArray(*x) << " and weight shape "
                     << formatArray(*wShape) << " must have equal rank >= 3";
  int64_t r = x->size() - 2;
  auto win = readKernelWindow(
      c, r, ArrayRef<int64_t>(*x).drop_front(2),
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

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

struct DeconvAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads, outputPadding;
};

/// Splits a total padding between begin and end (SAME_UPPER: the odd one at
/// the end).
void splitPad(DeconvAttrs &a, int64_t i, int64_t r, int64_t total,
              bool upper) {
  a.pads[i] = upper ? total / 2 : total - total / 2;
  a.pads[i + r] = total - a.pads[i];
}

FailureOr<DeconvAttrs> readDeconvAttrs(NodeContext &c, ArrayRef<int64_t> in,
                                       ArrayRef<int64_t> w) {
  int64_t r = in.size() - 2;
  auto k = c.attrInts("kernel_shape");
  auto s = c.attrInts("strides");
  auto d = c.attrInts("dilations");
  auto p = c.attrInts("pads");
  auto op = c.attrInts("output_padding");
  auto os = c.attrInts("output_shape");
  auto autoPad = c.attrString("auto_pad", "NOTSET");
  if (failed(k) || failed(s) || failed(d) || failed(p) || failed(op) ||
      failed(os) || failed(autoPad))
    return failure();
  DeconvAttrs a;
  a.kernel = k->value_or(std::vector<int64_t>(w.begin() + 2, w.end()));
  a.strides = s->value_or(std::vector<int64_t>(r, 1));
  a.dilations = d->value_or(std::vector<int64_t>(r, 1));
  a.pads = p->value_or(std::vector<int64_t>(2 * r, 0));
  a.outputPadding = op->value_or(std::vector<int64_t>(r, 0));
  if ((int64_t)a.kernel.size() != r || (int64_t)a.strides.size() != r ||
      (int64_t)a.dilations.size() != r || (int64_t)a.pads.size() != 2 * r ||
      (int64_t)a.outputPadding.size() != r)
    return c.error() << "kernel_shape/strides/dilations/output_padding must "
                        "have "
                     << r << " values and pads " << 2 * r << " for a " << r
                     << "-d input";
  bool upper = *autoPad == "SAME_UPPER";
  if (*autoPad != "NOTSET" && *autoPad != "VALID" && !upper &&
      *autoPad != "SAME_LOWER")
    return c.error() << "attribute 'auto_pad' has invalid value '" << *autoPad
                     << "'";
  std::vector<int64_t> outShape;
  if (*os) {
    if ((int64_t)(*os)->size() < r)
      return c.error() << "attribute 'output_shape' "
                       << formatArray(**os) << " needs " << r
                       << " spatial values";
    outShape.assign((*os)->end() - r, (*os)->end());
  } else if (*autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < r; ++i)
      outShape.push_back(in[i + 2] * a.strides[i]);
  }
  if (*autoPad == "VALID")
    std::fill(a.pads.begin(), a.pads.end(), 0);
  if (outShape.empty())
    return a;
  for (int64_t i = 0; i < r; ++i) {
    // In 128 bits: the attributes are not range-checked yet (the Top op's
    // verifier does that), so the int64 sum could overflow.
    __int128 wide = static_cast<__int128>(a.strides[i]) * (in[i + 2] - 1) +
                    a.outputPadding[i] +
                    static_cast<__int128>(a.kernel[i] - 1) * a.dilations[i] +
                    1 - outShape[i];
    if (outShape[i] < 0 || wide < INT32_MIN || wide > INT32_MAX)
      return c.error() << "attribute 'output_shape' value " << outShape[i]
                       << " is out of range for the input, kernel, strides "
                          "and dilations";
    int64_t total = static_cast<int64_t>(wide);
    // A larger output_shape extends the end, like output_padding.
    if (total < 0)
      a.outputPadding[i] -= total;
    splitPad(a, i, r, std::max<int64_t>(total, 0), upper);
  }
  return a;
}

LogicalResult convertConvTranspose(NodeContext &c) {
  auto x = c.requireShape(0);
  auto w = c.requireShape(1);
  auto group = c.attrInt("group", 1);
  if (failed(x) || failed(w) || failed(group))
    return failure();
  if (x->size() < 3 || w->size() != x->size())
    return c.error() << "input shape " << formatArray(*x)
                     << " and weight shape " << formatArray(*w)
                     << " must have equal rank >= 3";
  auto a = readDeconvAttrs(c, *x, *w);
  if (failed(a))
    return failure();
  OpBuilder &b = c.builder();
  return emit<DeconvOp>(
      c, elemOf(c, 0), c.input(0), c.input(1), c.input(2),
      b.getDenseI64ArrayAttr(a->kernel), b.getDenseI64ArrayAttr(a->strides),
      b.getDenseI64ArrayAttr(a->pads), b.getDenseI64ArrayAttr(a->dilations),
      b.getDenseI64ArrayAttr(a->outputPadding), b.getI64IntegerAttr(*group),
      b.getBoolAttr(false), b.getF64FloatAttr(-1.0));
}

const ConverterEntry kNNConv[] = {
    {"Conv", convertConv},
    {"ConvTranspose", convertConvTranspose},
};
} // namespace

ArrayRef<ConverterEntry> nnConvConverters() { return kNNConv; }

} // namespace strata::onnx_import
