//===- ConvertNN.cpp - TFLite convolutions, matmuls, pools, softmax -------===//
//
// The NN family (TopNNOps.td): CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV,
// FULLY_CONNECTED, BATCH_MATMUL, AVERAGE_POOL_2D, MAX_POOL_2D, SOFTMAX,
// LOG_SOFTMAX, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR, DEPTH_TO_SPACE,
// SPACE_TO_DEPTH. Convolutions and pools keep
// TFLite's NHWC through Top's `layout` attribute (filters OHWI). int8/uint8
// convolutions and fully connected layers take the integer path: int32
// accumulation (Conv `input_zp`/`weight_zp`), then `top.Requant` to the
// output's quantized type and the fused activation as a clamp of the
// quantized values; everything else quantized is dequantized, computed in
// f32 and quantized again.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>
#include <limits>

namespace strata::tflite_import {
namespace {

NamedAttribute attr(OpContext &c, StringRef name, ArrayRef<int64_t> v) {
  return c.builder().getNamedAttr(name, c.builder().getDenseI64ArrayAttr(v));
}

template <typename OpTy>
FailureOr<Value> createWith(OpContext &c, Type elem, ValueRange operands,
                            ArrayRef<NamedAttribute> attrs) {
  auto t = UnrankedTensorType::get(elem);
  auto o = OpTy::create(c.builder(), c.loc(), TypeRange{t}, operands, attrs);
  auto r = c.finishOp(o.getOperation());
  if (failed(r))
    return failure();
  return (*r)[0];
}

Type f32(OpContext &c) { return Float32Type::get(c.context()); }

LogicalResult requireRank(OpContext &c, const TensorInfo &t, size_t rank,
                          StringRef what) {
  if (t.shape.size() != rank)
    return c.error() << what << " '" << t.name << "' has shape "
                     << formatArray(t.shape) << ", expected rank " << rank;
  return success();
}

bool is8Bit(const TensorInfo &t) {
  return t.quant && (t.dtype == DType::I8 || t.dtype == DType::U8);
}

/// TFLite's rounding of activation bounds (TfLiteRound: half away from 0).
int64_t quantizeBound(double v, const QParams &p) {
  return p.zps[0] + static_cast<int64_t>(std::round(v / p.scales[0]));
}

/// The fused activation of a quantized result as TFLite applies it: a clamp
/// of the quantized values to the activation's range.
FailureOr<Value> quantizedActivation(OpContext &c, Value v,
                                     tflite::ActivationFunctionType act) {
  const TensorInfo &o = c.out(0);
  if (act == tflite::ActivationFunctionType_NONE)
    return v;
  int64_t qmin = o.dtype == DType::U8 ? 0 : -128;
  int64_t qmax = o.dtype == DType::U8 ? 255 : 127;
  int64_t lo = qmin, hi = qmax;
  switch (act) {
  case tflite::ActivationFunctionType_RELU:
    lo = std::max(qmin, quantizeBound(0, *o.quant));
    break;
  case tflite::ActivationFunctionType_RELU6:
    lo = std::max(qmin, quantizeBound(0, *o.quant));
    hi = std::min(qmax, quantizeBound(6, *o.quant));
    break;
  case tflite::ActivationFunctionType_RELU_N1_TO_1:
    lo = std::max(qmin, quantizeBound(-1, *o.quant));
    hi = std::min(qmax, quantizeBound(1, *o.quant));
    break;
  default:
    return c.error() << "fused activation function "
                     << tflite::EnumNameActivationFunctionType(act)
                     << " is not supported on a quantized output";
  }
  Type storage = elementTypeOf(o.dtype, c.context());
  auto s = c.create<CastOp>(storage, v);
  if (failed(s))
    return failure();
  auto bound = [&](int64_t v) {
    Tensor t(o.dtype, {});
    t.setFromDouble(0, v);
    return c.weight(t, "act_bound");
  };
  FailureOr<Value> clipped = *s;
  if (lo > qmin)
    clipped = c.create<MaxOp>(storage, *clipped, bound(lo));
  if (succeeded(clipped) && hi < qmax)
    clipped = c.create<MinOp>(storage, *clipped, bound(hi));
  if (failed(clipped))
    return failure();
  return c.create<CastOp>(c.quantType(o), *clipped);
}

/// TFLite's QuantizeMultiplier: `scale` = multiplier * 2^(shift - 31) with
/// multiplier in [2^30, 2^31); returns (multiplier, right shift), or nullopt
/// when the scale needs a left shift (>= 1) or underflows.
std::optional<std::pair<int64_t, int64_t>> quantizeMultiplier(double scale) {
  int exp = 0;
  double frac = std::frexp(scale, &exp);
  auto q = static_cast<int64_t>(std::round(frac * double(int64_t(1) << 31)));
  if (q == (int64_t(1) << 31)) {
    q /= 2;
    ++exp;
  }
  if (exp > 0 || exp < -31 || q <= 0)
    return std::nullopt;
  return std::pair{q, int64_t(-exp)};
}

/// int32 accumulator `acc` (channels on its last dim) to the output's
/// quantized type, then the activation. As TFLite when Top's Requant can
/// take the parameters (effective scales below 1): `top.Requant` in `mode`,
/// one Q31 multiplier and right shift, or one per channel on the last dim
/// (`axis`), computed as TFLite's QuantizeMultiplier: bit-exact. `mode` is
/// what the interpreter's kernel rounds as (docs/tflite.md, "Rounding"):
/// TFLiteHalfUp for CONV_2D and FULLY_CONNECTED (ruy) and for int8
/// DEPTHWISE_CONV_2D with multiplier 1 and a multiple of 8 channels, TFLite
/// (gemmlowp) for the other DEPTHWISE_CONV_2D.
/// Otherwise (a scale >= 1, which TFLite applies with a left shift Requant
/// does not have) the accumulator is given the per-channel type
/// `!quant.uniform<i32:f32:C, {s_in*s_w[c]}>` and requantized in Float mode
/// (f64, rounded once; TFLite's double rounding differs by 1 LSB at times).
LogicalResult requantize(OpContext &c, Value acc, const TensorInfo &x,
                         const TensorInfo &w,
                         tflite::ActivationFunctionType act,
                         RequantMode mode) {
  const TensorInfo &o = c.out(0);
  auto shape = shapeOf(acc);
  int64_t channels = shape.back();
  bool perChannel = w.quant->perAxis();
  std::vector<double> scales;
  for (int64_t i = 0; i < (perChannel ? channels : 1); ++i)
    scales.push_back(double(float(x.quant->scales[0])) *
                     double(float(w.quant->scales[perChannel ? i : 0])));
  OpBuilder &b = c.builder();
  SmallVector<int64_t> mults, shifts;
  for (double s : scales)
    if (auto m = quantizeMultiplier(s / double(float(o.quant->scales[0])))) {
      mults.push_back(m->first);
      shifts.push_back(m->second);
    }
  FailureOr<Value> r = failure();
  if (!mults.empty() && mults.size() == scales.size()) {
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("multiplier", b.getDenseI64ArrayAttr(mults)),
        b.getNamedAttr("rshift", b.getDenseI64ArrayAttr(shifts)),
        b.getNamedAttr("quant_mode",
                       RequantModeAttr::get(c.context(), mode))};
    if (perChannel)
      attrs.push_back(b.getNamedAttr(
          "axis", b.getI64IntegerAttr(static_cast<int64_t>(shape.size()) - 1)));
    r = createWith<RequantOp>(c, c.quantType(o), ValueRange{acc}, attrs);
  } else {
    scales.resize(channels, scales.back());
    // The accumulator's type holds s_in * s_w[c] as f32: a product outside
    // f32's range (two tiny or two huge scales) has no such type.
    for (auto [i, s] : llvm::enumerate(scales))
      if (!(s >= std::numeric_limits<float>::denorm_min() &&
            s <= std::numeric_limits<float>::max()))
        return c.error() << "the accumulator scale of channel " << i
                         << " (input scale x filter scale = " << s
                         << ") is outside the f32 range";
    auto i32 = IntegerType::get(c.context(), 32);
    Type accQ = quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, i32, f32(c), scales,
        std::vector<int64_t>(channels, 0), shape.size() - 1, INT32_MIN,
        INT32_MAX);
    auto q = c.create<CastOp>(accQ, acc);
    if (failed(q))
      return failure();
    r = createWith<RequantOp>(
        c, c.quantType(o), ValueRange{*q},
        {b.getNamedAttr("quant_mode", RequantModeAttr::get(
                                          c.context(), RequantMode::Float))});
  }
  if (failed(r))
    return failure();
  auto a = quantizedActivation(c, *r, act);
  if (failed(a))
    return failure();
  return c.setOutput(0, *a);
}

/// A constant quantized filter as integers: int8/uint8 as stored when every
/// zero point is 0 (Conv's `weight_zp` takes one per-tensor value), else
/// int32 with the zero points subtracted.
FailureOr<Tensor> integerFilter(OpContext &c, const TensorInfo &w,
                                int64_t &weightZp) {
  weightZp = 0;
  const QParams &p = *w.quant;
  bool allZero = llvm::all_of(p.zps, [](int64_t z) { return z == 0; });
  if (allZero)
    return w.data->clone();
  if (!p.perAxis()) {
    weightZp = p.zps[0];
    return w.data->clone();
  }
  Tensor r(DType::I32, w.data->shape());
  int64_t inner = 1;
  for (int64_t i = p.axis + 1; i < w.data->rank(); ++i)
    inner *= w.data->dim(i);
  int64_t dim = w.data->dim(p.axis);
  for (int64_t i = 0; i < r.numElements(); ++i)
    r.setFromDouble(i, w.data->getAsInt(i) - p.zps[(i / inner) % dim]);
  return r;
}

/// Bias input `i` for the integer path: int32 as stored (its scale is
/// input_scale * filter_scale by TFLite's rules), or none.
FailureOr<Value> integerBias(OpContext &c, size_t i) {
  if (!c.hasInput(i))
    return c.none();
  const TensorInfo &b = c.in(i);
  if (b.dtype != DType::I32 || !b.data)
    return c.error() << "bias '" << b.name << "' must be a constant int32 "
                     << "tensor on a quantized operator, got "
                     << dtypeName(b.dtype);
  return c.weight(*b.data, "bias");
}

/// Bias input `i` of the float path as f32, or none: an int32 bias of
/// quantized operands is dequantized with scale input_scale *
/// filter_scale[c] (TFLite's bias quantization).
FailureOr<Value> floatBias(OpContext &c, size_t i, const TensorInfo &x,
                           const TensorInfo &w) {
  if (!c.hasInput(i))
    return c.none();
  const TensorInfo &bt = c.in(i);
  if (bt.dtype != DType::I32 && bt.dtype != DType::I64)
    return c.floatInput(i);
  if (!bt.data || !x.quant || !w.quant || x.quant->perAxis())
    return c.error() << "integer bias '" << bt.name << "' needs a constant "
                     << "and per-tensor quantized input and quantized filter";
  Tensor fb(DType::F32, bt.data->shape());
  for (int64_t k = 0; k < fb.numElements(); ++k)
    fb.setFromDouble(k, double(bt.data->getAsInt(k)) * x.quant->scales[0] *
                            w.quant->scales[w.quant->perAxis() ? k : 0]);
  return c.weight(fb, "bias");
}

/// Shared by CONV_2D and DEPTHWISE_CONV_2D.
LogicalResult convertConvLike(OpContext &c, bool depthwise) {
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, multiplier = 1;
  tflite::Padding padding = tflite::Padding_SAME;
  tflite::ActivationFunctionType act = tflite::ActivationFunctionType_NONE;
  if (depthwise) {
    auto *o = c.op()->builtin_options_as_DepthwiseConv2DOptions();
    if (!o)
      return c.error() << "DepthwiseConv2DOptions are missing";
    sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(),
    dw = o->dilation_w_factor(), padding = o->padding(),
    act = o->fused_activation_function();
    multiplier = o->depth_multiplier();
  } else {
    auto *o = c.op()->builtin_options_as_Conv2DOptions();
    if (!o)
      return c.error() << "Conv2DOptions are missing";
    sh = o->stride_h(), sw = o->stride_w(), dh = o->dilation_h_factor(),
    dw = o->dilation_w_factor(), padding = o->padding(),
    act = o->fused_activation_function();
  }
  for (auto [name, v] : {std::pair{"stride_h", sh},
                         {"stride_w", sw},
                         {"dilation_h_factor", dh},
                         {"dilation_w_factor", dw}})
    if (v < 1)
      return c.error() << "option '" << name << "' = " << v
                       << " must be positive";
  if (c.numInputs() < 2)
    return c.error() << "has " << c.numInputs() << " inputs, expected 2 or 3";
  const TensorInfo &x = c.in(0), &w = c.in(1);
  if (failed(requireRank(c, x, 4, "input")) ||
      failed(requireRank(c, w, 4, "filter")))
    return failure();
  int64_t cin = x.shape[3], kh = w.shape[1], kw = w.shape[2];
  int64_t group = 1;
  std::vector<int64_t> order;
  if (depthwise) {
    // [1, KH, KW, C*M] -> [C*M, KH, KW, 1] (OHWI with one input channel).
    if (w.shape[0] != 1 || cin == 0 || w.shape[3] % cin != 0)
      return c.error() << "filter shape " << formatArray(w.shape)
                       << " does not fit depthwise input channels " << cin;
    (void)multiplier; // TFLite derives it from the shapes too
    group = cin;
    order = {3, 1, 2, 0};
  } else {
    if (w.shape[3] == 0 || cin % w.shape[3] != 0)
      return c.error() << "filter shape " << formatArray(w.shape)
                       << " does not divide input channels " << cin;
    group = cin / w.shape[3];
  }
  auto [pt, pb] = samePadding(padding, x.shape[1], kh, sh, dh);
  auto [pl, pr] = samePadding(padding, x.shape[2], kw, sw, dw);
  OpBuilder &b = c.builder();
  SmallVector<NamedAttribute> attrs = {
      attr(c, "kernel_shape", {kh, kw}),
      attr(c, "strides", {sh, sw}),
      attr(c, "pads", {pt, pl, pb, pr}),
      attr(c, "dilations", {dh, dw}),
      b.getNamedAttr("group", b.getI64IntegerAttr(group)),
      b.getNamedAttr("layout", LayoutAttr::get(c.context(), Layout::NHWC))};

  const TensorInfo &o = c.out(0);
  if (is8Bit(x) && is8Bit(o) && is8Bit(w) && w.data && !x.quant->perAxis() &&
      !o.quant->perAxis()) {
    int64_t wzp;
    auto filter = integerFilter(c, w, wzp);
    if (failed(filter))
      return failure();
    Tensor f =
        order.empty() ? std::move(*filter) : permuteTensor(*filter, order);
    auto bias = integerBias(c, 2);
    auto in = c.input(0);
    if (failed(bias) || failed(in))
      return failure();
    auto storage = c.create<CastOp>(elementTypeOf(x.dtype, c.context()), *in);
    if (failed(storage))
      return failure();
    attrs.push_back(attr(c, "input_zp", {x.quant->zps[0]}));
    if (wzp != 0)
      attrs.push_back(attr(c, "weight_zp", {wzp}));
    auto acc = createWith<ConvOp>(
        c, b.getI32Type(), ValueRange{*storage, c.weight(f, "filter"), *bias},
        attrs);
    if (failed(acc))
      return failure();
    // The interpreter's DEPTHWISE_CONV_2D rounds ties up in its vector
    // path (groups of 8 channels) and away from zero for the channels left
    // over (measured, docs/tflite.md): ties up only when int8 with depth
    // multiplier 1 and channels a multiple of 8.
    bool depthwiseUp =
        depthwise && x.dtype == DType::I8 && w.shape[3] == cin && cin % 8 == 0;
    return requantize(c, *acc, x, w, act,
                      depthwise && !depthwiseUp ? RequantMode::TFLite
                                                : RequantMode::TFLiteHalfUp);
  }
  // Float path (quantized operands dequantized).
  auto in = c.floatInput(0);
  if (failed(in))
    return failure();
  Value filter;
  const TensorInfo &wt = c.in(1);
  if (wt.data) {
    auto fw = c.floatInput(1);
    if (failed(fw))
      return failure();
    if (!order.empty()) {
      const Tensor *h = c.imp.constantData(*fw);
      filter = c.weight(permuteTensor(*h, order), "filter");
    } else {
      filter = *fw;
    }
  } else {
    auto fw = c.floatInput(1);
    if (failed(fw))
      return failure();
    filter = *fw;
    if (!order.empty()) {
      auto p =
          c.create<PermuteOp>(f32(c), filter, b.getDenseI64ArrayAttr(order));
      if (failed(p))
        return failure();
      filter = *p;
    }
  }
  auto bias = floatBias(c, 2, x, w);
  if (failed(bias))
    return failure();
  auto conv =
      createWith<ConvOp>(c, f32(c), ValueRange{*in, filter, *bias}, attrs);
  return c.setFloatOutput(0, c.fusedActivation(conv, act));
}

LogicalResult convertConv(OpContext &c) { return convertConvLike(c, false); }
LogicalResult convertDepthwise(OpContext &c) {
  return convertConvLike(c, true);
}

LogicalResult convertTransposeConv(OpContext &c) {
  auto *o = c.op()->builtin_options_as_TransposeConvOptions();
  if (!o)
    return c.error() << "TransposeConvOptions are missing";
  if (c.numInputs() < 3)
    return c.error() << "has " << c.numInputs() << " inputs, expected 3 or 4";
  int64_t sh = o->stride_h(), sw = o->stride_w();
  if (sh < 1 || sw < 1)
    return c.error() << "strides " << sh << "x" << sw << " must be positive";
  const TensorInfo &w = c.in(1), &x = c.in(2);
  if (failed(requireRank(c, w, 4, "filter")) ||
      failed(requireRank(c, x, 4, "input")))
    return failure();
  auto outShape = c.constantInts(0, "output_shape");
  if (failed(outShape))
    return failure();
  if (outShape->size() != 4)
    return c.error() << "output_shape " << formatArray(*outShape)
                     << " must have 4 values";
  int64_t kh = w.shape[1], kw = w.shape[2];
  if (w.shape[3] != x.shape[3])
    return c.error() << "filter shape " << formatArray(w.shape)
                     << " does not match input channels " << x.shape[3];
  OpBuilder &b = c.builder();
  SmallVector<int64_t> pads(4, 0), outPad(2, 0);
  int64_t ks[2] = {kh, kw}, ss[2] = {sh, sw};
  for (int d = 0; d < 2; ++d) {
    int64_t full = (x.shape[1 + d] - 1) * ss[d] + ks[d];
    int64_t total = full - (*outShape)[1 + d];
    if (o->padding() == tflite::Padding_VALID && total != 0) {
      if (total > 0)
        return c.error() << "output_shape " << formatArray(*outShape)
                         << " does not fit VALID padding";
    }
    if (total >= 0) {
      pads[d] = total / 2;
      pads[2 + d] = total - total / 2;
    } else {
      outPad[d] = -total;
    }
  }
  auto in = c.floatInput(2);
  auto fw = c.floatInput(1);
  if (failed(in) || failed(fw))
    return failure();
  Value filter;
  if (const Tensor *h = c.imp.constantData(*fw)) {
    filter = c.weight(permuteTensor(*h, {3, 1, 2, 0}), "filter");
  } else {
    auto p =
        c.create<PermuteOp>(f32(c), *fw, b.getDenseI64ArrayAttr({3, 1, 2, 0}));
    if (failed(p))
      return failure();
    filter = *p;
  }
  auto bias = floatBias(c, 3, x, w);
  if (failed(bias))
    return failure();
  SmallVector<NamedAttribute> attrs = {
      attr(c, "kernel_shape", {kh, kw}), attr(c, "strides", {sh, sw}),
      attr(c, "pads", pads),
      b.getNamedAttr("layout", LayoutAttr::get(c.context(), Layout::NHWC))};
  if (outPad[0] || outPad[1])
    attrs.push_back(attr(c, "output_padding", outPad));
  auto y =
      createWith<DeconvOp>(c, f32(c), ValueRange{*in, filter, *bias}, attrs);
  return c.setFloatOutput(0,
                          c.fusedActivation(y, o->fused_activation_function()));
}

LogicalResult convertFullyConnected(OpContext &c) {
  auto *o = c.op()->builtin_options_as_FullyConnectedOptions();
  if (!o)
    return c.error() << "FullyConnectedOptions are missing";
  if (o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT)
    return c.error() << "weights format "
                     << tflite::EnumNameFullyConnectedOptionsWeightsFormat(
                            o->weights_format())
                     << " is not supported";
  if (c.numInputs() < 2)
    return c.error() << "has " << c.numInputs() << " inputs, expected 2 or 3";
  const TensorInfo &x = c.in(0), &w = c.in(1), &out = c.out(0);
  if (failed(requireRank(c, w, 2, "weights")))
    return failure();
  int64_t k = w.shape[1], n = w.shape[0];
  int64_t total = 1;
  for (int64_t d : x.shape)
    total *= d;
  if (k == 0 || total % k != 0)
    return c.error() << "input shape " << formatArray(x.shape)
                     << " does not divide into rows of " << k;
  std::vector<int64_t> rows = {total / k, k};
  OpBuilder &b = c.builder();
  auto act = o->fused_activation_function();
  // The result shape: keep_num_dims keeps the input's leading dims.
  std::vector<int64_t> outShape = {total / k, n};
  if (o->keep_num_dims()) {
    outShape = x.shape;
    outShape.back() = n;
  }
  if (is8Bit(x) && is8Bit(out) && is8Bit(w) && w.data && !x.quant->perAxis() &&
      !out.quant->perAxis()) {
    auto in = c.input(0);
    if (failed(in))
      return failure();
    Type i32 = b.getI32Type();
    auto storage = c.create<CastOp>(elementTypeOf(x.dtype, c.context()), *in);
    if (failed(storage))
      return failure();
    auto wide = c.create<CastOp>(i32, *storage);
    Tensor zp(DType::I32, {});
    zp.setFromDouble(0, x.quant->zps[0]);
    if (failed(wide))
      return failure();
    auto shifted = c.create<SubOp>(i32, *wide, c.weight(zp, "input_zp"));
    if (failed(shifted))
      return failure();
    auto flat =
        c.create<ReshapeOp>(i32, *shifted, b.getDenseI64ArrayAttr(rows));
    // Weights minus their zero points, as int32.
    Tensor wi(DType::I32, w.shape);
    const QParams &wq = *w.quant;
    for (int64_t i = 0; i < wi.numElements(); ++i)
      wi.setFromDouble(i,
                       w.data->getAsInt(i) - wq.zps[wq.perAxis() ? i / k : 0]);
    auto bias = integerBias(c, 2);
    if (failed(flat) || failed(bias))
      return failure();
    auto acc = createWith<MatMulOp>(
        c, i32, ValueRange{*flat, c.weight(wi, "weights"), *bias},
        {b.getNamedAttr("right_transpose", b.getBoolAttr(true))});
    if (failed(acc))
      return failure();
    auto shaped =
        c.create<ReshapeOp>(i32, *acc, b.getDenseI64ArrayAttr(outShape));
    if (failed(shaped))
      return failure();
    return requantize(c, *shaped, x, w, act, RequantMode::TFLiteHalfUp);
  }
  auto in = c.floatInput(0);
  auto wv = c.floatInput(1);
  if (failed(in) || failed(wv))
    return failure();
  auto flat = c.create<ReshapeOp>(f32(c), *in, b.getDenseI64ArrayAttr(rows));
  if (failed(flat))
    return failure();
  auto bias = floatBias(c, 2, x, w);
  if (failed(bias))
    return failure();
  auto mm = createWith<MatMulOp>(
      c, f32(c), ValueRange{*flat, *wv, *bias},
      {b.getNamedAttr("right_transpose", b.getBoolAttr(true))});
  if (failed(mm))
    return failure();
  auto shaped =
      c.create<ReshapeOp>(f32(c), *mm, b.getDenseI64ArrayAttr(outShape));
  return c.setFloatOutput(0, c.fusedActivation(shaped, act));
}

LogicalResult convertBatchMatMul(OpContext &c) {
  auto *o = c.op()->builtin_options_as_BatchMatMulOptions();
  bool adjX = o && o->adj_x(), adjY = o && o->adj_y();
  auto x = c.floatInput(0), y = c.floatInput(1);
  if (failed(x) || failed(y))
    return failure();
  auto transposeLast = [&](Value v) -> FailureOr<Value> {
    int64_t r = shapeOf(v).size();
    if (r < 2)
      return c.error() << "adjoint of a rank-" << r << " operand";
    SmallVector<int64_t> order;
    for (int64_t i = 0; i < r; ++i)
      order.push_back(i);
    std::swap(order[r - 1], order[r - 2]);
    return c.create<PermuteOp>(f32(c), v,
                               c.builder().getDenseI64ArrayAttr(order));
  };
  if (adjX)
    x = transposeLast(*x);
  if (adjY)
    y = transposeLast(*y);
  if (failed(x) || failed(y))
    return failure();
  return c.setFloatOutput(
      0, createWith<MatMulOp>(c, f32(c), ValueRange{*x, *y, c.none()}, {}));
}

template <bool isMax> LogicalResult convertPool(OpContext &c) {
  auto *o = c.op()->builtin_options_as_Pool2DOptions();
  if (!o)
    return c.error() << "Pool2DOptions are missing";
  const TensorInfo &x = c.in(0);
  if (failed(requireRank(c, x, 4, "input")))
    return failure();
  int64_t kh = o->filter_height(), kw = o->filter_width(), sh = o->stride_h(),
          sw = o->stride_w();
  if (kh < 1 || kw < 1 || sh < 1 || sw < 1)
    return c.error() << "filter " << kh << "x" << kw << " and strides " << sh
                     << "x" << sw << " must be positive";
  if (kh > x.shape[1] || kw > x.shape[2])
    return c.error() << "filter " << kh << "x" << kw
                     << " is larger than the input's " << x.shape[1] << "x"
                     << x.shape[2];
  auto [pt, pb] = samePadding(o->padding(), x.shape[1], kh, sh, 1);
  auto [pl, pr] = samePadding(o->padding(), x.shape[2], kw, sw, 1);
  auto in = c.floatInput(0);
  if (failed(in))
    return failure();
  OpBuilder &b = c.builder();
  SmallVector<NamedAttribute> attrs = {
      attr(c, "kernel_shape", {kh, kw}), attr(c, "strides", {sh, sw}),
      attr(c, "pads", {pt, pl, pb, pr}),
      b.getNamedAttr("layout", LayoutAttr::get(c.context(), Layout::NHWC))};
  FailureOr<Value> y =
      isMax ? createWith<MaxPoolOp>(c, f32(c), ValueRange{*in}, attrs)
            : createWith<AvgPoolOp>(c, f32(c), ValueRange{*in}, attrs);
  return c.setFloatOutput(0,
                          c.fusedActivation(y, o->fused_activation_function()));
}

LogicalResult convertSoftmax(OpContext &c) {
  auto *o = c.op()->builtin_options_as_SoftmaxOptions();
  double beta = o ? o->beta() : 1.0;
  auto in = c.floatInput(0);
  if (failed(in))
    return failure();
  if (beta != 1.0)
    in = c.create<MulOp>(f32(c), *in, c.scalarF32(beta));
  if (failed(in))
    return failure();
  return c.setFloatOutput(
      0, c.create<SoftmaxOp>(f32(c), *in, c.builder().getI64IntegerAttr(-1)));
}

template <bool bilinear> LogicalResult convertResize(OpContext &c) {
  bool alignCorners = false, halfPixel = false;
  if (bilinear) {
    auto *o = c.op()->builtin_options_as_ResizeBilinearOptions();
    alignCorners = o && o->align_corners();
    halfPixel = o && o->half_pixel_centers();
  } else {
    auto *o = c.op()->builtin_options_as_ResizeNearestNeighborOptions();
    alignCorners = o && o->align_corners();
    halfPixel = o && o->half_pixel_centers();
  }
  const TensorInfo &x = c.in(0);
  if (failed(requireRank(c, x, 4, "input")))
    return failure();
  auto size = c.constantInts(1, "size");
  if (failed(size))
    return failure();
  if (size->size() != 2 || (*size)[0] < 1 || (*size)[1] < 1)
    return c.error() << "size " << formatArray(*size)
                     << " must be two positive values";
  auto in = c.floatInput(0);
  if (failed(in))
    return failure();
  CoordinateMode coord = alignCorners ? CoordinateMode::AlignCorners
                         : halfPixel  ? CoordinateMode::HalfPixel
                                      : CoordinateMode::Asymmetric;
  // TFLite's nearest: floor(x * scale) (asymmetric), floor((x + 0.5) *
  // scale) (half pixel: round_prefer_ceil of the half-pixel coordinate),
  // round half up with align_corners.
  NearestMode nearest = (alignCorners || halfPixel)
                            ? NearestMode::RoundPreferCeil
                            : NearestMode::Floor;
  MLIRContext *ctx = c.context();
  OpBuilder &b = c.builder();
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("mode", InterpolationAttr::get(
                                 ctx, bilinear ? Interpolation::Linear
                                               : Interpolation::Nearest)),
      b.getNamedAttr("coordinate_transformation_mode",
                     CoordinateModeAttr::get(ctx, coord)),
      b.getNamedAttr("nearest_mode", NearestModeAttr::get(ctx, nearest)),
      attr(c, "sizes", {x.shape[0], (*size)[0], (*size)[1], x.shape[3]})};
  return c.setFloatOutput(
      0, createWith<ResizeOp>(c, f32(c), ValueRange{*in}, attrs));
}

LogicalResult convertLogSoftmax(OpContext &c) {
  auto in = c.floatInput(0);
  if (failed(in))
    return failure();
  return c.setFloatOutput(
      0,
      c.create<LogSoftmaxOp>(f32(c), *in, c.builder().getI64IntegerAttr(-1)));
}

/// DEPTH_TO_SPACE (TensorFlow's order is ONNX's DCR) and SPACE_TO_DEPTH,
/// NHWC.
template <bool toSpace> LogicalResult convertDepthSpace(OpContext &c) {
  int64_t block = 0;
  if (toSpace) {
    if (auto *o = c.op()->builtin_options_as_DepthToSpaceOptions())
      block = o->block_size();
  } else if (auto *o = c.op()->builtin_options_as_SpaceToDepthOptions()) {
    block = o->block_size();
  }
  if (block < 1)
    return c.error() << "block size " << block << " must be positive";
  if (failed(requireRank(c, c.in(0), 4, "input")))
    return failure();
  auto in = c.floatInput(0);
  if (failed(in))
    return failure();
  OpBuilder &b = c.builder();
  auto layout = LayoutAttr::get(c.context(), Layout::NHWC);
  if (toSpace)
    return c.setFloatOutput(
        0, c.create<DepthToSpaceOp>(
               f32(c), *in, b.getI64IntegerAttr(block),
               DepthToSpaceModeAttr::get(c.context(), DepthToSpaceMode::DCR),
               layout));
  return c.setFloatOutput(
      0, c.create<SpaceToDepthOp>(f32(c), *in, b.getI64IntegerAttr(block),
                                  layout));
}

const ConverterEntry kNN[] = {
    {tflite::BuiltinOperator_LOG_SOFTMAX, convertLogSoftmax},
    {tflite::BuiltinOperator_DEPTH_TO_SPACE, convertDepthSpace<true>},
    {tflite::BuiltinOperator_SPACE_TO_DEPTH, convertDepthSpace<false>},
    {tflite::BuiltinOperator_CONV_2D, convertConv},
    {tflite::BuiltinOperator_DEPTHWISE_CONV_2D, convertDepthwise},
    {tflite::BuiltinOperator_TRANSPOSE_CONV, convertTransposeConv},
    {tflite::BuiltinOperator_FULLY_CONNECTED, convertFullyConnected},
    {tflite::BuiltinOperator_BATCH_MATMUL, convertBatchMatMul},
    {tflite::BuiltinOperator_MAX_POOL_2D, convertPool<true>},
    {tflite::BuiltinOperator_AVERAGE_POOL_2D, convertPool<false>},
    {tflite::BuiltinOperator_SOFTMAX, convertSoftmax},
    {tflite::BuiltinOperator_RESIZE_BILINEAR, convertResize<true>},
    {tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, convertResize<false>},
};

} // namespace

ArrayRef<ConverterEntry> nnConverters() { return kNN; }

} // namespace strata::tflite_import
