//===- ConvertNN.cpp - ONNX normalization, softmax, resize, deconvolution, quantization ops to Top ===//

#include "ConverterSupport.h"

#include <cmath>

namespace strata::onnx_import {
namespace {

/// Errors if any output past the first is requested.
LogicalResult onlyFirstOutput(NodeContext &c, StringRef what) {
  for (size_t i = 1; i < c.numOutputs(); ++i)
    if (c.hasOutput(i))
      return c.error() << "output " << i << " ('" << c.node().output(i)
                       << "') is not supported: " << what;
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
                                b.getStringAttr("Equal"));
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
// Normalizations
//===----------------------------------------------------------------------===//

LogicalResult convertBatchNorm(NodeContext &c) {
  auto eps = c.attrFloat("epsilon", 1e-5f);
  auto training = c.attrInt("training_mode", 0);
  auto spatial = c.attrInt("spatial", 1);
  if (failed(eps) || failed(training) || failed(spatial))
    return failure();
  if (*training != 0)
    return convertBatchNormTraining(c, *eps);
  if (c.version() < 9 && *spatial != 1)
    return c.error() << "attribute 'spatial' = " << *spatial
                     << " is not supported (only 1)";
  if (failed(onlyFirstOutput(c, "running/saved statistics are only produced "
                                "in training mode")))
    return failure();
  OpBuilder &b = c.builder();
  return emit<BatchNormOp>(c, elemOf(c, 0), c.input(0), c.input(3), c.input(4),
                           c.input(1), c.input(2), b.getF64FloatAttr(*eps),
                           StringAttr()); // layout: the default, NCHW
}

/// `v` (scale or bias) brought to `shape` if it has fewer elements.
FailureOr<Value> expandTo(NodeContext &c, size_t i, ArrayRef<int64_t> shape) {
  if (!c.hasInput(i))
    return c.none();
  auto s = c.requireShape(i);
  if (failed(s))
    return failure();
  if (product(*s) == product(shape))
    return c.input(i);
  return c.create<ExpandOp>(elemOf(c, i), c.input(i),
                            c.builder().getDenseI64ArrayAttr(shape));
}

FailureOr<Value> reduce(NodeContext &c, FailureOr<Value> x,
                        ArrayRef<int64_t> axes, StringRef mode) {
  if (failed(x))
    return failure();
  OpBuilder &b = c.builder();
  return c.create<ReduceOp>(cast<ShapedType>(x->getType()).getElementType(), *x,
                            b.getDenseI64ArrayAttr(axes), b.getBoolAttr(true),
                            b.getStringAttr(mode));
}

/// LayerNormalization's optional Mean and InvStdDev outputs (outputs 1, 2),
/// as the ONNX function body computes them: mean and 1 / sqrt(var + eps)
/// over dims axis..rank-1, kept as size 1.
LogicalResult layerNormStats(NodeContext &c, int64_t axis, int64_t rank,
                             float eps) {
  if (!c.hasOutput(1) && !c.hasOutput(2))
    return success();
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  Value x = c.input(0);
  Type elem = elemOf(c, 0);
  auto mean = reduce(c, x, axes, "ReduceMean");
  auto d = binary<SubOp>(c, x, mean);
  auto var = reduce(c, binary<MulOp>(c, d, d), axes, "ReduceMean");
  auto shifted = binary<AddOp>(c, var, scalar(c, elem, eps));
  if (failed(shifted))
    return failure();
  auto inv = c.create<RsqrtOp>(elem, *shifted);
  if (failed(inv))
    return failure();
  c.setOutput(1, *mean);
  c.setOutput(2, *inv);
  return success();
}

LogicalResult convertLayerNorm(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto axisAttr = c.attrInt("axis", -1);
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(shape) || failed(axisAttr) || failed(eps))
    return failure();
  int64_t rank = shape->size();
  auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = ArrayRef<int64_t>(*shape).drop_front(*axis);
  auto scale = expandTo(c, 1, normalized);
  auto bias = expandTo(c, 2, normalized);
  if (failed(scale) || failed(bias))
    return failure();
  OpBuilder &b = c.builder();
  if (failed(emit<LayerNormOp>(c, elemOf(c, 0), c.input(0), *scale, *bias,
                               b.getI64IntegerAttr(*axis),
                               b.getF64FloatAttr(*eps))))
    return failure();
  return layerNormStats(c, *axis, rank, *eps);
}

/// Opset 18 GroupNormalization: one scale/bias per group, repeated for each
/// channel of the group.
FailureOr<Value> perGroupToPerChannel(NodeContext &c, size_t i, int64_t groups,
                                      int64_t channels) {
  auto s = c.requireShape(i);
  if (failed(s))
    return failure();
  if (product(*s) != groups)
    return c.error() << "input " << i << " must have num_groups = " << groups
                     << " elements (opset 18 semantics), got shape "
                     << formatArray(*s);
  auto col = reshape(c, c.input(i), {groups, 1});
  if (failed(col))
    return failure();
  auto wide = c.create<ExpandOp>(elemOf(c, i), *col,
                                 c.builder().getDenseI64ArrayAttr(
                                     {groups, channels / groups}));
  if (failed(wide))
    return failure();
  return reshape(c, *wide, {channels});
}

LogicalResult convertGroupNorm(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto groups = c.attrIntOpt("num_groups");
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(shape) || failed(groups) || failed(eps))
    return failure();
  if (!*groups)
    return c.error() << "attribute 'num_groups' is required";
  int64_t g = **groups;
  if (shape->size() < 2)
    return c.error() << "input shape " << formatArray(*shape)
                     << " must have rank >= 2";
  int64_t ch = (*shape)[1];
  if (g < 1 || ch % g != 0)
    return c.error() << "attribute 'num_groups' = " << g
                     << " must be >= 1 and divide the " << ch << " channels";
  Value scale = c.input(1), bias = c.input(2);
  if (c.version() < 21) {
    auto s = perGroupToPerChannel(c, 1, g, ch);
    auto b = perGroupToPerChannel(c, 2, g, ch);
    if (failed(s) || failed(b))
      return failure();
    scale = *s;
    bias = *b;
  }
  OpBuilder &b = c.builder();
  return emit<GroupNormOp>(c, elemOf(c, 0), c.input(0), scale, bias,
                           b.getI64IntegerAttr(g), b.getF64FloatAttr(*eps));
}

/// InstanceNormalization = GroupNorm with one group per channel.
LogicalResult convertInstanceNorm(NodeContext &c) {
  auto shape = c.requireShape(0);
  auto eps = c.attrFloat("epsilon", 1e-5f);
  if (failed(shape) || failed(eps))
    return failure();
  if (shape->size() < 3)
    return c.error() << "input shape " << formatArray(*shape)
                     << " must have rank >= 3";
  OpBuilder &b = c.builder();
  return emit<GroupNormOp>(c, elemOf(c, 0), c.input(0), c.input(1), c.input(2),
                           b.getI64IntegerAttr((*shape)[1]),
                           b.getF64FloatAttr(*eps));
}

/// The ONNX function body: (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9).
LogicalResult convertMVN(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto axesAttr = c.attrInts("axes");
  if (failed(rank) || failed(axesAttr))
    return failure();
  std::vector<int64_t> axes = axesAttr->value_or(std::vector<int64_t>{0, 2, 3});
  for (int64_t &a : axes) {
    auto n = c.normalizeAxis("attribute 'axes' value", a, *rank);
    if (failed(n))
      return failure();
    a = *n;
  }
  Value x = c.input(0);
  Type elem = elemOf(c, 0);
  auto mean = reduce(c, x, axes, "ReduceMean");
  auto meanSq = binary<MulOp>(c, mean, mean);
  auto sqMean = reduce(c, binary<MulOp>(c, x, x), axes, "ReduceMean");
  auto var = binary<SubOp>(c, sqMean, meanSq);
  if (failed(var))
    return failure();
  auto stdDev = c.create<SqrtOp>(elem, *var);
  auto denom = binary<AddOp>(c, stdDev, scalar(c, elem, 1e-9));
  auto y = binary<DivOp>(c, binary<SubOp>(c, x, mean), denom);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
}

LogicalResult convertLpNorm(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto axisAttr = c.attrInt("axis", -1);
  auto p = c.attrInt("p", 2);
  if (failed(rank) || failed(axisAttr) || failed(p))
    return failure();
  auto axis = c.normalizeAxis("attribute 'axis' =", *axisAttr, *rank);
  if (failed(axis))
    return failure();
  Value x = c.input(0);
  Type elem = elemOf(c, 0);
  FailureOr<Value> norm;
  if (*p == 1) {
    auto abs = c.create<AbsOp>(elem, x);
    if (failed(abs))
      return failure();
    norm = reduce(c, *abs, {*axis}, "ReduceSum");
  } else if (*p == 2) {
    auto sum = reduce(c, binary<MulOp>(c, x, x), {*axis}, "ReduceSum");
    if (failed(sum))
      return failure();
    norm = c.create<SqrtOp>(elem, *sum);
  } else {
    return c.error() << "attribute 'p' = " << *p << " is invalid (1 or 2)";
  }
  if (failed(norm))
    return failure();
  // A zero norm means the whole slice is zero; ONNX (reference and Runtime)
  // then gives 0, not 0/0 = NaN: divide by 1 there instead.
  auto dt = dtypeOf(elem);
  if (!dt)
    return c.error() << "input 'input' has unsupported element type " << elem;
  auto scalar = [&](double v, StringRef name) {
    Tensor t(*dt, {});
    t.setFromDouble(0, v);
    return c.constant(t, name);
  };
  OpBuilder &b = c.builder();
  auto isZero = c.create<CompareOp>(b.getI1Type(), *norm, scalar(0.0, "zero"),
                                    b.getStringAttr("Equal"));
  if (failed(isZero))
    return failure();
  auto divisor = c.create<WhereOp>(elem, *isZero, scalar(1.0, "one"), *norm);
  if (failed(divisor))
    return failure();
  auto y = binary<DivOp>(c, x, *divisor);
  if (failed(y))
    return failure();
  c.setOutput(0, *y);
  return success();
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
// DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

LogicalResult convertDepthToSpace(NodeContext &c) {
  auto bs = c.attrIntOpt("blocksize");
  auto mode = c.attrString("mode", "DCR");
  if (failed(bs) || failed(mode))
    return failure();
  if (!*bs)
    return c.error() << "attribute 'blocksize' is required";
  if (*mode != "DCR" && *mode != "CRD")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' is invalid (DCR or CRD)";
  OpBuilder &b = c.builder();
  return emit<DepthToSpaceOp>(c, elemOf(c, 0), c.input(0),
                              b.getI64IntegerAttr(**bs),
                              b.getStringAttr(*mode));
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

//===----------------------------------------------------------------------===//
// Resize, Upsample
//===----------------------------------------------------------------------===//

struct ResizeSpec {
  std::string mode = "nearest", ctm = "half_pixel",
              nearest = "round_prefer_floor";
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  double cubicA = -0.75, extrapolation = 0.0;
  bool excludeOutside = false, antialias = false;
  std::vector<double> roi;
  std::vector<double> coordinateScales; // keep_aspect_ratio_policy's scale
};

/// The error for a shape-determining input that is not a constant: it
/// names the graph value so that it can be frozen (`--freeze-inputs`).
InFlightDiagnostic notConstantError(NodeContext &c, size_t i, StringRef what) {
  return c.error() << "the '" << what << "' input (value '"
                   << c.node().input(i)
                   << "') must be a constant: it determines the output "
                      "shape or sampling grid (freeze it with "
                      "--freeze-inputs)";
}

/// Constant float input `i` as doubles; nullopt if absent or empty.
FailureOr<std::optional<std::vector<double>>> constantFloats(NodeContext &c,
                                                             size_t i,
                                                             StringRef what) {
  if (!c.hasInput(i))
    return std::optional<std::vector<double>>();
  const Tensor *t = c.constantInput(i);
  if (!t)
    return notConstantError(c, i, what);
  if (t->numElements() == 0)
    return std::optional<std::vector<double>>();
  std::vector<double> v(t->numElements());
  for (int64_t k = 0; k < t->numElements(); ++k)
    v[k] = t->getAsDouble(k);
  return std::optional<std::vector<double>>(v);
}

LogicalResult emitResize(NodeContext &c, const ResizeSpec &s) {
  OpBuilder &b = c.builder();
  return emit<ResizeOp>(
      c, elemOf(c, 0), c.input(0), b.getStringAttr(s.mode),
      b.getStringAttr(s.ctm), b.getStringAttr(s.nearest),
      s.scales.empty() ? DenseF64ArrayAttr() : b.getDenseF64ArrayAttr(s.scales),
      s.sizes.empty() ? DenseI64ArrayAttr() : b.getDenseI64ArrayAttr(s.sizes),
      b.getF64FloatAttr(s.cubicA), b.getBoolAttr(s.excludeOutside),
      b.getBoolAttr(s.antialias),
      s.roi.empty() ? DenseF64ArrayAttr() : b.getDenseF64ArrayAttr(s.roi),
      b.getF64FloatAttr(s.extrapolation),
      s.coordinateScales.empty()
          ? DenseF64ArrayAttr()
          : b.getDenseF64ArrayAttr(s.coordinateScales));
}

LogicalResult checkMode(NodeContext &c, StringRef mode) {
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return c.error() << "attribute 'mode' = '" << mode
                     << "' is invalid (nearest, linear or cubic)";
  return success();
}

/// Opset < 11 (Upsample, Resize-10): asymmetric coordinates, nearest rounds
/// down when upsampling and up when downsampling.
LogicalResult legacyNearest(NodeContext &c, ResizeSpec &s) {
  s.ctm = "asymmetric";
  bool up = llvm::all_of(s.scales, [](double v) { return v >= 1.0; });
  bool down = llvm::all_of(s.scales, [](double v) { return v <= 1.0; });
  if (!up && !down)
    return c.error() << "scales mixing up- and downsampling are not supported "
                        "before opset 11";
  s.nearest = up ? "floor" : "ceil";
  return success();
}

LogicalResult convertUpsample(NodeContext &c) {
  auto rank = c.requireRank(0);
  auto mode = c.attrString("mode", "nearest");
  if (failed(rank) || failed(mode))
    return failure();
  ResizeSpec s;
  s.mode = *mode == "bilinear" ? "linear" : *mode;
  if (s.mode != "nearest" && s.mode != "linear")
    return c.error() << "attribute 'mode' = '" << *mode
                     << "' is invalid (nearest or linear)";
  if (c.version() < 9) {
    auto sc = c.attrFloats("scales");
    if (failed(sc))
      return failure();
    if (!*sc)
      return c.error() << "attribute 'scales' is required";
    s.scales.assign((*sc)->begin(), (*sc)->end());
  } else {
    auto sc = constantFloats(c, 1, "scales");
    if (failed(sc))
      return failure();
    if (!*sc)
      return c.error() << "input 'scales' is required";
    s.scales = **sc;
  }
  if ((int64_t)s.scales.size() != *rank)
    return c.error() << "'scales' has " << s.scales.size()
                     << " values for a rank-" << *rank << " input";
  for (double v : s.scales)
    if (!(v > 0) || !std::isfinite(v))
      return c.error() << "'scales' value " << v
                       << " must be finite and positive";
  if (failed(legacyNearest(c, s)))
    return failure();
  return emitResize(c, s);
}

LogicalResult readResizeAttrs(NodeContext &c, ResizeSpec &s) {
  auto mode = c.attrString("mode", "nearest");
  auto ctm = c.attrString("coordinate_transformation_mode", "half_pixel");
  auto nearest = c.attrString("nearest_mode", "round_prefer_floor");
  auto antialias = c.attrInt("antialias", 0);
  auto cubicA = c.attrFloat("cubic_coeff_a", -0.75f);
  auto exclude = c.attrInt("exclude_outside", 0);
  auto extrapolation = c.attrFloat("extrapolation_value", 0.0f);
  if (failed(mode) || failed(ctm) || failed(nearest) || failed(antialias) ||
      failed(cubicA) || failed(exclude) || failed(extrapolation))
    return failure();
  if (failed(checkMode(c, *mode)))
    return failure();
  if (*antialias != 0 && *antialias != 1)
    return c.error() << "attribute 'antialias' = " << *antialias
                     << " is invalid (0 or 1)";
  if (*antialias && *mode == "nearest")
    return c.error() << "attribute 'antialias' = 1 requires mode 'linear' or "
                        "'cubic', got 'nearest'";
  if (*exclude != 0 && *exclude != 1)
    return c.error() << "attribute 'exclude_outside' = " << *exclude
                     << " is invalid (0 or 1)";
  static const char *const kCtm[] = {
      "half_pixel",    "half_pixel_symmetric", "pytorch_half_pixel",
      "align_corners", "asymmetric",           "tf_crop_and_resize"};
  if (*ctm == "tf_half_pixel_for_nn" && c.version() < 13)
    return c.error() << "attribute 'coordinate_transformation_mode' = "
                        "'tf_half_pixel_for_nn' is not supported";
  if (!llvm::is_contained(kCtm, *ctm))
    return c.error() << "attribute 'coordinate_transformation_mode' = '"
                     << *ctm
                     << "' is invalid (half_pixel, half_pixel_symmetric, "
                        "pytorch_half_pixel, align_corners, asymmetric or "
                        "tf_crop_and_resize)";
  static const char *const kNearest[] = {"round_prefer_floor",
                                         "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(kNearest, *nearest))
    return c.error() << "attribute 'nearest_mode' = '" << *nearest
                     << "' is invalid";
  s.mode = *mode;
  s.ctm = *ctm;
  s.nearest = *nearest;
  s.antialias = *antialias;
  s.excludeOutside = *exclude;
  s.cubicA = *cubicA;
  s.extrapolation = *extrapolation;
  return success();
}

/// Opset 18 `axes` and `keep_aspect_ratio_policy` applied to scales, sizes
/// and roi (which then cover every dim).
/// Resize's attribute 'axes' normalized (all dims if absent).
FailureOr<std::vector<int64_t>>
resizeAxes(NodeContext &c, const std::optional<std::vector<int64_t>> &attr,
           int64_t rank) {
  std::vector<int64_t> axes;
  if (!attr) {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  for (int64_t a : *attr) {
    auto n = c.normalizeAxis("attribute 'axes' value", a, rank);
    if (failed(n))
      return failure();
    if (llvm::is_contained(axes, *n))
      return c.error() << "attribute 'axes' repeats axis " << a;
    axes.push_back(*n);
  }
  return axes;
}

LogicalResult applyAxes(NodeContext &c, ResizeSpec &s,
                        ArrayRef<int64_t> shape) {
  int64_t rank = shape.size();
  auto axesAttr = c.attrInts("axes");
  auto policy = c.attrString("keep_aspect_ratio_policy", "stretch");
  if (failed(axesAttr) || failed(policy))
    return failure();
  auto axesOr = resizeAxes(c, *axesAttr, rank);
  if (failed(axesOr))
    return failure();
  std::vector<int64_t> axes = *axesOr;
  size_t given = s.sizes.empty() ? s.scales.size() : s.sizes.size();
  if (given != axes.size())
    return c.error() << "'" << (s.sizes.empty() ? "scales" : "sizes")
                     << "' has " << given << " values, expected "
                     << axes.size();
  if (!s.roi.empty()) {
    if (s.roi.size() != 2 * axes.size())
      return c.error() << "'roi' has " << s.roi.size() << " values, expected "
                       << 2 * axes.size();
    std::vector<double> full(2 * rank, 0.0);
    std::fill(full.begin() + rank, full.end(), 1.0);
    for (size_t i = 0; i < axes.size(); ++i) {
      full[axes[i]] = s.roi[i];
      full[rank + axes[i]] = s.roi[axes.size() + i];
    }
    s.roi = full;
  }
  if (!s.scales.empty()) {
    std::vector<double> full(rank, 1.0);
    for (size_t i = 0; i < axes.size(); ++i)
      full[axes[i]] = s.scales[i];
    s.scales = full;
    return success();
  }
  std::vector<int64_t> full(shape.begin(), shape.end());
  for (size_t i = 0; i < axes.size(); ++i)
    full[axes[i]] = s.sizes[i];
  s.sizes = full;
  if (*policy == "stretch")
    return success();
  if (*policy != "not_larger" && *policy != "not_smaller")
    return c.error() << "attribute 'keep_aspect_ratio_policy' = '" << *policy
                     << "' is invalid (stretch, not_larger or not_smaller)";
  double scale = *policy == "not_larger" ? INFINITY : 0.0;
  for (int64_t a : axes) {
    if (shape[a] == 0)
      return c.error() << "keep_aspect_ratio_policy '" << *policy
                       << "' needs a non-empty dim " << a;
    double r = double(full[a]) / double(shape[a]);
    scale = *policy == "not_larger" ? std::min(scale, r) : std::max(scale, r);
  }
  if (!(scale > 0))
    return c.error() << "keep_aspect_ratio_policy '" << *policy
                     << "' gives scale " << scale << " (must be positive)";
  // One scale drives the coordinate mapping of every resized dim; the sizes
  // are rounded half up from it.
  s.coordinateScales.assign(rank, 1.0);
  for (int64_t a : axes) {
    s.sizes[a] = static_cast<int64_t>(scale * shape[a] + 0.5);
    s.coordinateScales[a] = scale;
  }
  return success();
}

/// True if input `i` is given, not a constant and not statically empty.
bool isRuntimeInput(NodeContext &c, size_t i) {
  if (!c.hasInput(i) || c.constantInput(i))
    return false;
  auto shape = c.inputShape(i);
  return !shape || shape->size() != 1 || (*shape)[0] != 0;
}

/// Resize-11+ whose 'scales' (input 2) or 'sizes' (input 3) is known at run
/// time only: top.Resize with the full-rank `target_value` operand. With
/// attribute 'axes', the runtime values are concatenated with the values of
/// the other dims (scale 1, or the input dim) and gathered into dim order.
LogicalResult convertRuntimeResize(NodeContext &c, ResizeSpec &s,
                                   ArrayRef<int64_t> shape, size_t i) {
  bool isSizes = i == 3;
  int64_t rank = shape.size();
  auto axesAttr = c.attrInts("axes");
  auto policy = c.attrString("keep_aspect_ratio_policy", "stretch");
  if (failed(axesAttr) || failed(policy))
    return failure();
  // The policy rounds all sizes from one scale: not done at run time.
  if (isSizes && *policy != "stretch")
    return notConstantError(c, i, "sizes");
  if (s.ctm == "tf_crop_and_resize" && !c.constantInput(1))
    return notConstantError(c, 1, "roi");
  if (s.ctm == "tf_crop_and_resize") {
    return c.error() << "coordinate_transformation_mode 'tf_crop_and_resize' "
                        "with a runtime '"
                     << (isSizes ? "sizes" : "scales")
                     << "' input is not supported";
  }
  auto axesOr = resizeAxes(c, *axesAttr, rank);
  if (failed(axesOr))
    return failure();
  std::vector<int64_t> axes = *axesOr;
  auto len = c.inputShape(i);
  int64_t n = axes.size();
  if (!len || len->size() != 1 || (*len)[0] != n)
    return c.error() << "a runtime '" << (isSizes ? "sizes" : "scales")
                     << "' input must be 1-D with " << n << " values";
  Value target = c.input(i);
  bool identity = true;
  for (int64_t k = 0; k < n; ++k)
    identity &= axes[k] == k;
  if (!identity || n != rank) {
    Type elem = c.inputElementType(i);
    auto dt = dtypeOf(elem);
    if (!dt)
      return c.error() << "'" << (isSizes ? "sizes" : "scales")
                       << "' has unsupported element type " << elem;
    Tensor defaults(*dt, {rank}), index(DType::I64, {rank});
    for (int64_t d = 0; d < rank; ++d) {
      defaults.setFromDouble(d, isSizes ? double(shape[d]) : 1.0);
      auto at = llvm::find(axes, d);
      index.data<int64_t>()[d] = at != axes.end() ? at - axes.begin() : n + d;
    }
    OpBuilder &b = c.builder();
    auto cat = c.create<ConcatOp>(
        elem, ValueRange{target, c.constant(defaults, "resize_defaults")},
        b.getI64IntegerAttr(0));
    if (failed(cat))
      return failure();
    auto full = c.create<GatherOp>(elem, *cat, c.constant(index, "resize_axes"),
                                   b.getI64IntegerAttr(0));
    if (failed(full))
      return failure();
    target = *full;
  }
  OpBuilder &b = c.builder();
  return emit<ResizeOp>(
      c, elemOf(c, 0), c.input(0), b.getStringAttr(s.mode),
      b.getStringAttr(s.ctm), b.getStringAttr(s.nearest), DenseF64ArrayAttr(),
      DenseI64ArrayAttr(), b.getF64FloatAttr(s.cubicA),
      b.getBoolAttr(s.excludeOutside), b.getBoolAttr(s.antialias),
      DenseF64ArrayAttr(), b.getF64FloatAttr(s.extrapolation),
      DenseF64ArrayAttr(), target);
}

LogicalResult convertResize(NodeContext &c) {
  auto shape = c.requireShape(0);
  if (failed(shape))
    return failure();
  ResizeSpec s;
  if (failed(readResizeAttrs(c, s)))
    return failure();
  if (c.version() >= 11) {
    bool scalesRuntime = isRuntimeInput(c, 2);
    bool sizesRuntime = isRuntimeInput(c, 3);
    if (scalesRuntime && c.hasInput(3) && c.constantInput(3) &&
        c.constantInput(3)->numElements() != 0)
      return c.error() << "only one of 'scales' and 'sizes' may be given";
    if (sizesRuntime && scalesRuntime)
      return c.error() << "only one of 'scales' and 'sizes' may be given";
    if (scalesRuntime || sizesRuntime)
      return convertRuntimeResize(c, s, *shape, sizesRuntime ? 3 : 2);
  }
  if (c.version() < 11) {
    auto sc = constantFloats(c, 1, "scales");
    if (failed(sc))
      return failure();
    if (!*sc)
      return c.error() << "input 'scales' is required";
    s.scales = **sc;
    if (s.scales.size() != shape->size())
      return c.error() << "'scales' has " << s.scales.size()
                       << " values for a rank-" << shape->size() << " input";
    if (failed(legacyNearest(c, s)))
      return failure();
    return emitResize(c, s);
  }
  if (s.ctm == "tf_crop_and_resize") {
    auto roi = constantFloats(c, 1, "roi");
    if (failed(roi))
      return failure();
    if (!*roi)
      return c.error() << "coordinate_transformation_mode "
                          "'tf_crop_and_resize' requires the 'roi' input";
    s.roi = **roi;
  }
  auto sc = constantFloats(c, 2, "scales");
  if (failed(sc))
    return failure();
  if (c.hasInput(3)) {
    if (!c.constantInput(3))
      return notConstantError(c, 3, "sizes");
    auto sz = c.constantInts(3);
    if (!sz)
      return c.error() << "the 'sizes' input must hold integers";
    s.sizes = *sz;
  }
  if (*sc && !s.sizes.empty())
    return c.error() << "only one of 'scales' and 'sizes' may be given";
  if (*sc)
    s.scales = **sc;
  else if (s.sizes.empty())
    return c.error() << "one of 'scales' and 'sizes' is required";
  for (double v : s.scales)
    if (!(v > 0) || !std::isfinite(v))
      return c.error() << "'scales' value " << v
                       << " must be finite and positive";
  if (failed(applyAxes(c, s, *shape)))
    return failure();
  return emitResize(c, s);
}

const ConverterEntry kNN[] = {
    {"BatchNormalization", convertBatchNorm},
    {"LayerNormalization", convertLayerNorm},
    {"GroupNormalization", convertGroupNorm},
    {"InstanceNormalization", convertInstanceNorm},
    {"MeanVarianceNormalization", convertMVN},
    {"LpNormalization", convertLpNorm},
    {"Softmax", convertSoftmax},
    {"LogSoftmax", convertLogSoftmax},
    {"Hardmax", convertHardmax},
    {"GlobalMaxPool", convertGlobalMaxPool},
    {"DepthToSpace", convertDepthToSpace},
    {"SpaceToDepth", convertSpaceToDepth},
    {"ConvTranspose", convertConvTranspose},
    {"Resize", convertResize},
    {"Upsample", convertUpsample},
};
} // namespace

ArrayRef<ConverterEntry> nnConverters() { return kNN; }

} // namespace strata::onnx_import
