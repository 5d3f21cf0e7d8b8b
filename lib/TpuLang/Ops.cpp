//===- Ops.cpp - TpuLang op wrappers --------------------------------------===//
//
// Each wrapper checks its TpuLang-level parameters, builds the Top op with
// unranked results and lets the op's shape inference and verifier do the
// rest (see finishOp).
//
//===----------------------------------------------------------------------===//

#include "Graph.h"

#include "strata/Dialect/Top/IR/TopUtils.h"
#include "strata/Dialect/Top/Transforms/QuantUtils.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>
#include <tuple>

using namespace mlir;

namespace strata::tpulang {
using namespace detail;

namespace {

NamedAttribute named(Graph &g, StringRef name, Attribute value) {
  return NamedAttribute(StringAttr::get(&g.context, name), value);
}
Attribute i64Array(Graph &g, ArrayRef<int64_t> v) {
  return DenseI64ArrayAttr::get(&g.context, v);
}
Attribute i64(Graph &g, int64_t v) {
  return IntegerAttr::get(IntegerType::get(&g.context, 64), v);
}
Attribute f64(Graph &g, double v) {
  return FloatAttr::get(Float64Type::get(&g.context), v);
}
/// TpuLang string parameter `param` = `value` of `op` as the Top enum
/// attribute `A` (TpuLang keeps TPU-MLIR's string parameters); raises naming
/// the op, the parameter, the value and the allowed names if unknown.
template <typename A>
Attribute enumAttr(Graph &g, const std::string &op, StringRef param,
                   StringRef value) {
  using E = decltype(std::declval<A>().getValue());
  std::optional<E> e = top::symbolizeEnum<E>(value);
  if (!e)
    (Msg() << op << ": parameter '" << param.str() << "' = '" << value.str()
           << "' must be one of " << top::enumNames<E>())
        .raise();
  return A::get(&g.context, *e);
}
Attribute boolean(Graph &g, bool v) { return BoolAttr::get(&g.context, v); }

/// The element type of a tensor's IR value.
Type elementOf(Value v) { return getElementTypeOrSelf(v.getType()); }

bool isFloatDType(const Tensor &t) {
  return isFloat(*dtypeFromName(t.dtype()));
}
bool isIntDType(const Tensor &t) {
  DType d = *dtypeFromName(t.dtype());
  return isSignedInt(d) || (isUnsignedInt(d) && d != DType::Bool);
}

/// Throws unless `v` has `size` values, each >= minValue.
void checkList(const std::string &op, const std::string &param,
               const IntList &v, size_t size, int64_t minValue,
               const std::string &what = "") {
  if (v.size() != size)
    (Msg() << op << ": parameter '" << param << "' must have " << size
           << " values" << what << ", got " << v.size() << " " << v)
        .raise();
  for (int64_t x : v)
    if (x < minValue)
      (Msg() << op << ": parameter '" << param << "' values must be >= "
             << minValue << ", got " << v)
          .raise();
}

void requireRank(const std::string &op, const std::string &param,
                 const Tensor &t, size_t rank, const std::string &layout) {
  if (t.shape().size() != rank)
    (Msg() << op << ": parameter '" << param << "' must be a " << rank
           << "-D " << layout << " tensor, got shape " << t.shape())
        .raise();
}

void requireFloat(const std::string &op, const std::string &param,
                  const Tensor &t) {
  if (!isFloatDType(t))
    (Msg() << op << ": parameter '" << param
           << "' must have a float dtype, got " << t.dtype() << " (tensor '"
           << t.name() << "')")
        .raise();
}

void requireSameDType(const std::string &op, const std::string &param,
                      const Tensor &t, const Tensor &ref,
                      const std::string &refParam) {
  if (t.dtype() != ref.dtype())
    (Msg() << op << ": parameter '" << param << "' has dtype " << t.dtype()
           << " but '" << refParam << "' has " << ref.dtype())
        .raise();
}

/// Throws if an out_dtype is given and differs from `dtype`.
void requireOutDType(const std::string &op,
                     const std::optional<std::string> &outDtype,
                     const std::string &dtype) {
  if (outDtype && *outDtype != dtype)
    (Msg() << op << ": parameter 'out_dtype' = '" << *outDtype
           << "' is not supported; the result has the input dtype " << dtype)
        .raise();
}

void requireNoQuant(const std::string &op, const std::string &param,
                    bool given) {
  if (given)
    (Msg() << op << ": parameter '" << param
           << "' (quantized variant) is not supported; quantize tensors with "
              "Tensor::quantization or requant_fp_to_int instead")
        .raise();
}

void checkRoundMode(const std::string &op, const std::string &param,
                    const std::string &mode) {
  static const char *modes[] = {"half_away_from_zero", "half_up", "half_down",
                                "half_to_even",        "towards_zero", "up",
                                "down"};
  for (const char *m : modes)
    if (mode == m)
      return;
  (Msg() << op << ": parameter '" << param << "' = '" << mode
         << "' is not a round mode (half_away_from_zero, half_up, half_down, "
            "half_to_even, towards_zero, up, down)")
      .raise();
}

/// [up, down, left, right] -> ONNX [top, left, bottom, right].
IntList onnxPads2d(const IntList &p) { return {p[0], p[2], p[1], p[3]}; }

/// A one-element coeff tensor holding `value` in `like`'s dtype (TpuLang
/// turns scalar operands into such constants).
/// With `quantized` (TpuLang's quantized add/sub/mul, `scale` given) the
/// number is a stored integer value and must fit `like`'s dtype.
Tensor scalarTensor(const std::string &op, double value, const Tensor &like,
                    bool quantized = false) {
  Graph &g = graph(op);
  std::vector<double> data{value};
  if (quantized) {
    DType d = *dtypeFromName(like.dtype());
    bool fits = value == std::floor(value) &&
                ((d == DType::I8 && value >= -128 && value <= 127) ||
                 (d == DType::U8 && value >= 0 && value <= 255));
    if (!fits)
      (Msg() << op << ": the scalar operand " << value << " of a quantized "
             << op << " must be an integer value of " << like.dtype())
          .raise();
  } else if (like.is_quantized()) {
    (Msg() << op << ": scalar operands of quantized tensors are not supported")
        .raise();
  }
  return Tensor({1}, like.dtype(), g.freshName(op + "_const"), data, "coeff");
}

Tensor unaryOp(const std::string &op, const Tensor &input,
               const std::optional<std::string> &outName, bool floatOnly,
               const std::function<Tensor(Graph &, Value, Type,
                                          const std::string &)> &build) {
  Graph &g = graph(op);
  if (floatOnly)
    requireFloat(op, "input", input);
  std::string name = outputName(g, op, outName);
  Value in = valueOf(op, input);
  return build(g, in, elementOf(in), name);
}

template <typename OpTy>
Tensor simpleUnary(const std::string &op, const Tensor &input,
                   const std::optional<std::string> &outName, bool floatOnly,
                   llvm::ArrayRef<std::pair<StringRef, Attribute>> attrs = {}) {
  return unaryOp(op, input, outName, floatOnly,
                 [&](Graph &g, Value in, Type et, const std::string &name) {
                   SmallVector<NamedAttribute> named_;
                   for (auto &[k, v] : attrs)
                     named_.push_back(named(g, k, v));
                   return buildOne<OpTy>(op, {in}, named_, et, input.dtype(),
                                         name);
                 });
}

template <typename OpTy>
Tensor binary(const std::string &op, const Tensor &a, const Tensor &b,
              const std::optional<FloatList> &scale,
              const std::optional<IntList> &zeroPoint,
              const std::optional<std::string> &outDtype,
              const std::optional<std::string> &outName) {
  Graph &g = graph(op);
  requireNoQuant(op, "scale", scale.has_value());
  requireNoQuant(op, "zero_point", zeroPoint.has_value());
  requireSameDType(op, "tensor_i1", b, a, "tensor_i0");
  requireOutDType(op, outDtype, a.dtype());
  std::string name = outputName(g, op, outName);
  Value lhs = valueOf(op, a), rhs = valueOf(op, b);
  return buildOne<OpTy>(op, {lhs, rhs}, {}, elementOf(lhs), a.dtype(), name);
}

/// Compare, then cast the i1 result to the input dtype (TpuLang's compare
/// results have the input dtype).
Tensor compareOp(const std::string &op, const std::string &mode,
                 const Tensor &a, const Tensor &b,
                 const std::optional<FloatList> &scale,
                 const std::optional<IntList> &zeroPoint,
                 const std::optional<std::string> &outName) {
  Graph &g = graph(op);
  requireNoQuant(op, "scale", scale.has_value());
  requireNoQuant(op, "zero_point", zeroPoint.has_value());
  requireSameDType(op, "tensor_i1", b, a, "tensor_i0");
  std::string name = outputName(g, op, outName);
  Value lhs = valueOf(op, a), rhs = valueOf(op, b);
  Type i1 = IntegerType::get(&g.context, 1);
  if (a.dtype() == "bool")
    return buildOne<top::CompareOp>(op, {lhs, rhs},
                                    {named(g, "mode", enumAttr<top::CompareModeAttr>(
                                                       g, op, "mode", mode))},
                                    i1, "bool", name);
  Tensor cmp = buildOne<top::CompareOp>(op, {lhs, rhs},
                                        {named(g, "mode", enumAttr<top::CompareModeAttr>(
                                                           g, op, "mode", mode))},
                                        i1, "bool", g.freshName(name + "_bool"));
  return buildOne<top::CastOp>(op, {valueOf(op, cmp)}, {}, elementOf(lhs),
                               a.dtype(), name);
}

/// Common checks of the 2-D pooling wrappers; returns the attributes.
SmallVector<NamedAttribute>
poolAttrs(const std::string &op, Graph &g, const Tensor &input,
          const std::optional<IntList> &kernel,
          const std::optional<IntList> &stride,
          const std::optional<IntList> &pad, bool ceilMode,
          bool countIncludePad) {
  requireRank(op, "input", input, 4, "NCHW");
  IntList k = kernel ? *kernel : IntList{input.shape()[2], input.shape()[3]};
  IntList s = stride.value_or(IntList{1, 1});
  IntList p = pad.value_or(IntList{0, 0, 0, 0});
  checkList(op, "kernel", k, 2, 1, " [kh, kw]");
  checkList(op, "stride", s, 2, 1, " [h, w]");
  checkList(op, "pad", p, 4, 0, " [up, down, left, right]");
  return {named(g, "kernel_shape", i64Array(g, k)),
          named(g, "strides", i64Array(g, s)),
          named(g, "pads", i64Array(g, onnxPads2d(p))),
          named(g, "ceil_mode", boolean(g, ceilMode)),
          named(g, "count_include_pad", boolean(g, countIncludePad))};
}

IntList toList(const IntOrList &v) {
  if (auto *i = std::get_if<int64_t>(&v))
    return {*i};
  return std::get<IntList>(v);
}

/// The quantized element type for `dtype` storage with the given
/// parameters (per channel along dim 1 when lists are given).
Type quantType(const std::string &op, Graph &g, const std::string &dtype,
               const FloatOrList &scale, const IntOrList &offset,
               const IntList &shape) {
  DType d = parseDType(op, "out_dtype", dtype);
  if (!isSignedInt(d) && !(isUnsignedInt(d) && d != DType::Bool))
    (Msg() << op << ": parameter 'out_dtype' = '" << dtype
           << "' must be an integer dtype")
        .raise();
  // Reuse the Tensor machinery: a throwaway impl with these parameters.
  TensorImpl t;
  t.shape = shape;
  t.dtype = dtype;
  t.hostType = d;
  t.name = "<" + op + " output>";
  t.scale = scale;
  t.zeroPoint = offset;
  if (auto *l = std::get_if<IntList>(&offset); l && l->size() == 1)
    t.zeroPoint = (*l)[0];
  if (auto *s = std::get_if<double>(&scale); s && !(*s > 0))
    (Msg() << op << ": parameter 'scale' value " << *s << " must be > 0")
        .raise();
  if (auto *l = std::get_if<FloatList>(&scale)) {
    for (double s : *l)
      if (!(s > 0))
        (Msg() << op << ": parameter 'scale' value " << s << " must be > 0")
            .raise();
    if (l->size() == 1)
      t.scale = (*l)[0];
  }
  return getElementTypeOrSelf(mlirTypeOf(g, t, op));
}

//===----------------------------------------------------------------------===//
// Integer requantization pieces (requant_int, quantized add/sub/mul)
//===----------------------------------------------------------------------===//

/// TPU-MLIR's QuantizeMultiplier (TFLite's): `real` ~ m * 2^shift / 2^31
/// with m in [2^30, 2^31) and `shift` TFLite's exponent (positive: a left
/// shift), clamped as TPU-MLIR clamps it to [-31, 30].
std::pair<int64_t, int64_t> tfliteMultiplier(double real) {
  auto [m, rshift] = calib::multiplierShift(real);
  int64_t shift = 31 - rshift;
  if (m == 0 || shift < -31)
    return {0, 0};
  if (shift > 30)
    return {(int64_t(1) << 31) - 1, 30};
  return {m, shift};
}

Tensor requantOp(const std::string &op, Graph &g, Value v, const IntList &mul,
                 const IntList &rshift, top::RequantMode mode, Type elem,
                 const std::string &dtype, const std::string &name) {
  return buildOne<top::RequantOp>(
      op, {v},
      {named(g, "multiplier", i64Array(g, mul)),
       named(g, "rshift", i64Array(g, rshift)),
       named(g, "quant_mode", top::RequantModeAttr::get(&g.context, mode))},
      elem, dtype, name);
}

/// An int32 elementwise op on two int32 values (top.Add/Sub/Mul wrap).
template <typename OpTy>
Value int32Binary(const std::string &op, Graph &g, Value a, Value b,
                  const std::string &name) {
  return valueOf(op,
                 buildOne<OpTy>(op, {a, b}, {}, plainElementType(g, "int32"),
                                "int32", name));
}

/// An int32 coeff holding one value, or one per channel shaped
/// [1, C, 1, ...] for a tensor of rank `rank`.
Value int32Const(const std::string &op, Graph &g, const IntList &values,
                 size_t rank, const std::string &name) {
  IntList shape = {1};
  if (values.size() > 1) {
    shape.assign(std::max<size_t>(rank, 2), 1);
    shape[1] = static_cast<int64_t>(values.size());
  }
  std::vector<int32_t> data(values.begin(), values.end());
  return valueOf(op, Tensor(shape, "int32", name, data, "coeff"));
}

/// `v` as int32 less its type's zero point: a quantized type through
/// top.Requant (multiplier 1, shift 0, exact), a plain integer through
/// top.Cast.
Value int32Of(const std::string &op, Graph &g, Value v,
              const std::string &base) {
  Type et = elementOf(v), i32 = plainElementType(g, "int32");
  if (isa<quant::QuantizedType>(et))
    return valueOf(op, requantOp(op, g, v, {1}, {0},
                                 top::RequantMode::MultiplierShift, i32,
                                 "int32", g.freshName(base + "_i32")));
  if (et == i32)
    return v;
  return valueOf(op, buildOne<top::CastOp>(op, {v}, {}, i32, "int32",
                                           g.freshName(base + "_i32")));
}

/// TPU-MLIR's TFLite / TFLite_LShift requantization of `v` to `elem`:
/// `zp_out + MultiplyByQuantizedMultiplier(x, mul, shift)` per channel
/// (dim 1 for lists). A positive shift first multiplies the int32 value by
/// 2^shift in int32 (top.Mul, wrapping as TPU-MLIR's int32 `x << shift`);
/// the rest is top.Requant "TFLite" with rshift = -shift.
Tensor tfliteRequant(const std::string &op, Graph &g, Value v, IntList mul,
                     const IntList &shift, size_t rank, Type elem,
                     const std::string &dtype, const std::string &name) {
  IntList factor, rshift;
  bool left = false;
  for (int64_t s : shift) {
    if (s > 30 || s < -63)
      (Msg() << op << ": shift " << s
             << " is out of range (a left shift of at most 30, a right "
                "shift of at most 63)")
          .raise();
    left |= s > 0;
    factor.push_back(s > 0 ? int64_t(1) << s : 1);
    rshift.push_back(s > 0 ? 0 : -s);
  }
  if (left) {
    Value x = int32Of(op, g, v, name);
    v = int32Binary<top::MulOp>(
        op, g, x, int32Const(op, g, factor, rank, g.freshName(name + "_pow2")),
        g.freshName(name + "_lshift"));
  }
  return requantOp(op, g, v, mul, rshift, top::RequantMode::TFLite, elem, dtype,
                   name);
}

/// TpuLang's quantized add / sub / mul (`scale` = [s0, s1, s_out],
/// `zero_point` = [z0, z1, z_out]), with the integer arithmetic of TPU-MLIR's
/// LoweringQuantized (BM1684X): add/sub dequantize each input as
/// `MultiplyByQuantizedMultiplier((x - z) << 20, QuantizeMultiplier(s_i /
/// (2 * max(s0, s1))))`, add or subtract in int32 and requantize by
/// `QuantizeMultiplier(2 * max(s0, s1) / (2^20 * s_out))` (TFLite); mul
/// multiplies `(x0 - z0) * (x1 - z1)` in int32 and requantizes by
/// `QuantizeMultiplier(s0 * s1 / s_out)`. The output gets z_out and
/// saturates to out_dtype.
Tensor quantizedBinary(const std::string &op, const Tensor &a, const Tensor &b,
                       const FloatList &scale,
                       const std::optional<IntList> &zeroPoint,
                       const std::optional<std::string> &outDtype,
                       const std::optional<std::string> &outName) {
  Graph &g = graph(op);
  if (op != "add" && op != "sub" && op != "mul")
    requireNoQuant(op, "scale", true);
  IntList zp = zeroPoint.value_or(IntList{0, 0, 0});
  for (auto [param, size, values] :
       {std::tuple{"scale", scale.size(), (Msg() << scale).str()},
        std::tuple{"zero_point", zp.size(), fmt(zp)}})
    if (size != 3)
      (Msg() << op << ": parameter '" << param
             << "' must have 3 values [tensor_i0, tensor_i1, output], got "
             << size << " " << values)
          .raise();
  for (double s : scale)
    if (!(s > 0))
      (Msg() << op << ": parameter 'scale' = " << scale
             << " must have values > 0")
          .raise();
  const Tensor *in[2] = {&a, &b};
  const char *param[2] = {"tensor_i0", "tensor_i1"};
  for (int i = 0; i < 2; ++i) {
    const Tensor &t = *in[i];
    if (t.dtype() != "int8" && t.dtype() != "uint8")
      (Msg() << op << ": parameter '" << param[i] << "' has dtype " << t.dtype()
             << "; the quantized " << op << " takes int8 or uint8")
          .raise();
    if (t.scale() && *t.scale() != FloatOrList(scale[i]))
      (Msg() << op << ": parameter '" << param[i] << "' ('" << t.name()
             << "') has a scale other than scale[" << i << "] = " << scale[i])
          .raise();
    if (t.zero_point() && toList(*t.zero_point()) != IntList{zp[i]})
      (Msg() << op << ": parameter '" << param[i] << "' ('" << t.name()
             << "') has zero_point " << fmt(*t.zero_point())
             << " other than zero_point[" << i << "] = " << zp[i])
          .raise();
  }
  std::string odt = outDtype.value_or(a.dtype());
  Type outElem = quantType(op, g, odt, scale[2], zp[2], {});
  std::string name = outputName(g, op, outName);
  size_t rank = std::max(a.shape().size(), b.shape().size());
  // (x - z) * 2^lshift in int32; a quantized tensor's type carries z.
  auto centered = [&](int i, int lshift) {
    const Tensor &t = *in[i];
    std::string base = name + "_" + param[i];
    Value x = int32Of(op, g, valueOf(op, t), base);
    if (!t.is_quantized() && zp[i] != 0)
      x = int32Binary<top::SubOp>(
          op, g, x, int32Const(op, g, {zp[i]}, rank, g.freshName(base + "_zp")),
          g.freshName(base + "_sub_zp"));
    if (lshift)
      x = int32Binary<top::MulOp>(op, g, x,
                                  int32Const(op, g, {int64_t(1) << lshift},
                                             rank, g.freshName(base + "_pow2")),
                                  g.freshName(base + "_lshift"));
    return x;
  };
  Type i32 = plainElementType(g, "int32");
  Value acc;
  double real;
  if (op == "mul") {
    acc = int32Binary<top::MulOp>(op, g, centered(0, 0), centered(1, 0),
                                  g.freshName(name + "_i32"));
    real = scale[0] * scale[1] / scale[2];
  } else {
    const int lshift = 20;
    double smax = std::max(scale[0], scale[1]);
    Value d[2];
    for (int i = 0; i < 2; ++i) {
      auto [m, s] = tfliteMultiplier(scale[i] / (2 * smax));
      d[i] = valueOf(
          op, tfliteRequant(op, g, centered(i, lshift), {m}, {s}, rank, i32,
                            "int32",
                            g.freshName(name + "_" + param[i] + "_dequant")));
    }
    std::string sumName = g.freshName(name + "_i32");
    acc = op == "add" ? int32Binary<top::AddOp>(op, g, d[0], d[1], sumName)
                      : int32Binary<top::SubOp>(op, g, d[0], d[1], sumName);
    real = 2 * smax / (double(int64_t(1) << lshift) * scale[2]);
  }
  auto [m, s] = tfliteMultiplier(real);
  return tfliteRequant(op, g, acc, {m}, {s}, rank, outElem, odt, name);
}

} // namespace

//===----------------------------------------------------------------------===//
// Convolution and matmul
//===----------------------------------------------------------------------===//

Tensor conv_v2(const Tensor &tensor_i, const Tensor &weight,
               const std::optional<Tensor> &bias,
               const std::optional<IntList> &stride,
               const std::optional<IntList> &dilation,
               const std::optional<IntList> &pad, int64_t group,
               const std::optional<IntOrList> &input_zp,
               const std::optional<IntOrList> &weight_zp,
               const std::optional<std::string> &out_dtype,
               const std::optional<std::string> &out_name) {
  const std::string op = "conv_v2";
  Graph &g = graph(op);
  requireRank(op, "tensor_i", tensor_i, 4, "NCHW");
  requireRank(op, "weight", weight, 4, "[oc, ic, kh, kw]");
  IntList s = stride.value_or(IntList{1, 1});
  IntList d = dilation.value_or(IntList{1, 1});
  IntList p = pad.value_or(IntList{0, 0, 0, 0});
  checkList(op, "stride", s, 2, 1, " [h, w]");
  checkList(op, "dilation", d, 2, 1, " [h, w]");
  checkList(op, "pad", p, 4, 0, " [up, down, left, right]");
  int64_t ic = tensor_i.shape()[1], oc = weight.shape()[0];
  if (group < 1 || ic % group != 0 || oc % group != 0)
    (Msg() << op << ": parameter 'group' = " << group
           << " must be >= 1 and divide the input channels (" << ic
           << ") and the output channels (" << oc << ")")
        .raise();
  if (weight.shape()[1] * group != ic)
    (Msg() << op << ": parameter 'weight' shape " << weight.shape()
           << " has " << weight.shape()[1]
           << " input channels per group, expected ic / group = " << ic
           << " / " << group << " = " << ic / group)
        .raise();
  if (bias) {
    const IntList &b = bias->shape();
    if (b != IntList{1, oc, 1, 1} && b != IntList{oc})
      (Msg() << op << ": parameter 'bias' must have shape [1, oc, 1, 1] = "
             << IntList{1, oc, 1, 1} << ", got " << b)
          .raise();
  }
  bool floatIn = isFloatDType(tensor_i);
  if (!floatIn && !isIntDType(tensor_i))
    (Msg() << op << ": parameter 'tensor_i' has unsupported dtype "
           << tensor_i.dtype())
        .raise();
  if (floatIn != isFloatDType(weight))
    (Msg() << op << ": parameter 'weight' has dtype " << weight.dtype()
           << " but 'tensor_i' has " << tensor_i.dtype()
           << " (both float or both integer)")
        .raise();
  if (bias && floatIn != isFloatDType(*bias))
    (Msg() << op << ": parameter 'bias' has dtype " << bias->dtype()
           << " but 'tensor_i' has " << tensor_i.dtype()
           << " (both float or both integer)")
        .raise();
  // Zero points: an int, or one per input channel.
  auto zpList = [&](const std::string &param,
                    const std::optional<IntOrList> &zp,
                    const std::optional<IntOrList> &fromTensor)
      -> std::optional<IntList> {
    std::optional<IntOrList> v = zp ? zp : fromTensor;
    if (!v)
      return std::nullopt;
    if (auto *l = std::get_if<IntList>(&*v);
        l && static_cast<int64_t>(l->size()) != ic)
      (Msg() << op << ": parameter '" << param
             << "' must be an int or a list of ic = " << ic
             << " values, got " << l->size() << " " << *l)
          .raise();
    IntList list = toList(*v);
    bool allZero = std::all_of(list.begin(), list.end(),
                               [](int64_t x) { return x == 0; });
    if (floatIn && !allZero)
      (Msg() << op << ": parameter '" << param << "' = " << fmt(*v)
             << " applies to integer inputs only, 'tensor_i' is "
             << tensor_i.dtype())
          .raise();
    if (allZero)
      return std::nullopt;
    return list;
  };
  std::optional<IntList> izp = zpList("input_zp", input_zp,
                                      tensor_i.zero_point());
  // The weight's own zero points run along its output channels (dim 0, as
  // its scales); top.Conv's weight_zp is one value or one per input channel.
  std::optional<IntOrList> weightOwnZp = weight.zero_point();
  if (!weight_zp && weightOwnZp)
    if (auto *l = std::get_if<IntList>(&*weightOwnZp)) {
      if (!l->empty() && std::any_of(l->begin(), l->end(), [&](int64_t z) {
            return z != l->front();
          }))
        (Msg() << op << ": parameter 'weight' ('" << weight.name()
               << "') has per-output-channel zero points " << *l
               << "; give 'weight_zp' (an int or one per input channel)")
            .raise();
      weightOwnZp = l->empty() ? int64_t(0) : l->front();
    }
  std::optional<IntList> wzp = zpList("weight_zp", weight_zp, weightOwnZp);
  std::string odt;
  if (out_dtype) {
    static const char *allowed[] = {"int32", "uint32", "float32", "float16"};
    if (std::find(std::begin(allowed), std::end(allowed), *out_dtype) ==
        std::end(allowed))
      (Msg() << op << ": parameter 'out_dtype' = '" << *out_dtype
             << "' must be one of int32, uint32, float32, float16")
          .raise();
    odt = *out_dtype;
  } else {
    odt = floatIn ? tensor_i.dtype() : "int32";
  }
  if (floatIn && tensor_i.dtype() != "float32" && tensor_i.dtype() != "float16"
      && !out_dtype)
    odt = tensor_i.dtype();
  std::string name = outputName(g, op, out_name);

  SmallVector<NamedAttribute> attrs = {
      named(g, "kernel_shape",
            i64Array(g, {weight.shape()[2], weight.shape()[3]})),
      named(g, "strides", i64Array(g, s)),
      named(g, "pads", i64Array(g, onnxPads2d(p))),
      named(g, "dilations", i64Array(g, d)),
      named(g, "group", i64(g, group))};
  if (izp)
    attrs.push_back(named(g, "input_zp", i64Array(g, *izp)));
  if (wzp)
    attrs.push_back(named(g, "weight_zp", i64Array(g, *wzp)));
  setQuantAxis(op, "weight", weight, 0);
  Value in = valueOf(op, tensor_i), w = valueOf(op, weight);
  Value b = valueOrNone(op, bias);
  return buildOne<top::ConvOp>(op, {in, w, b}, attrs, plainElementType(g, odt),
                               odt, name);
}

Tensor conv(const Tensor &input, const Tensor &weight,
            const std::optional<Tensor> &bias,
            const std::optional<IntList> &stride,
            const std::optional<IntList> &dilation,
            const std::optional<IntList> &pad, int64_t group,
            const std::optional<std::string> &out_dtype,
            const std::optional<std::string> &out_name) {
  requireFloat("conv", "input", input);
  requireOutDType("conv", out_dtype, input.dtype());
  return conv_v2(input, weight, bias, stride, dilation, pad, group,
                 std::nullopt, std::nullopt, out_dtype, out_name);
}

Tensor deconv(const Tensor &input, const Tensor &weight,
              const std::optional<Tensor> &bias,
              const std::optional<IntList> &stride,
              const std::optional<IntList> &dilation,
              const std::optional<IntList> &pad,
              const std::optional<IntList> &output_padding, int64_t group,
              const std::optional<std::string> &out_dtype,
              const std::optional<std::string> &out_name) {
  const std::string op = "deconv";
  Graph &g = graph(op);
  requireRank(op, "input", input, 4, "NCHW");
  requireRank(op, "weight", weight, 4, "[ic, oc/group, kh, kw]");
  requireFloat(op, "input", input);
  requireSameDType(op, "weight", weight, input, "input");
  requireOutDType(op, out_dtype, input.dtype());
  IntList s = stride.value_or(IntList{1, 1});
  IntList d = dilation.value_or(IntList{1, 1});
  IntList p = pad.value_or(IntList{0, 0, 0, 0});
  IntList op_ = output_padding.value_or(IntList{0, 0});
  checkList(op, "stride", s, 2, 1, " [h, w]");
  checkList(op, "dilation", d, 2, 1, " [h, w]");
  checkList(op, "pad", p, 4, 0, " [up, down, left, right]");
  checkList(op, "output_padding", op_, 2, 0, " [h, w]");
  if (group < 1)
    (Msg() << op << ": parameter 'group' = " << group << " must be >= 1")
        .raise();
  std::string name = outputName(g, op, out_name);
  SmallVector<NamedAttribute> attrs = {
      named(g, "kernel_shape",
            i64Array(g, {weight.shape()[2], weight.shape()[3]})),
      named(g, "strides", i64Array(g, s)),
      named(g, "pads", i64Array(g, onnxPads2d(p))),
      named(g, "dilations", i64Array(g, d)),
      named(g, "output_padding", i64Array(g, op_)),
      named(g, "group", i64(g, group))};
  Value in = valueOf(op, input), w = valueOf(op, weight);
  Value b = valueOrNone(op, bias);
  return buildOne<top::DeconvOp>(op, {in, w, b}, attrs, elementOf(in),
                                 input.dtype(), name);
}

Tensor matmul(const Tensor &input, const Tensor &right,
              const std::optional<Tensor> &bias, bool input_transpose,
              bool right_transpose, bool output_transpose, bool keep_dims,
              const std::optional<std::string> &out_dtype,
              const std::optional<std::string> &out_name) {
  const std::string op = "matmul";
  Graph &g = graph(op);
  if (input_transpose)
    (Msg() << op << ": parameter 'input_transpose' = true is not supported")
        .raise();
  if (output_transpose)
    (Msg() << op << ": parameter 'output_transpose' = true is not supported")
        .raise();
  if (!keep_dims)
    (Msg() << op << ": parameter 'keep_dims' = false is not supported")
        .raise();
  requireFloat(op, "input", input);
  requireSameDType(op, "right", right, input, "input");
  if (bias)
    requireSameDType(op, "bias", *bias, input, "input");
  requireOutDType(op, out_dtype, input.dtype());
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input), r = valueOf(op, right);
  Value b = valueOrNone(op, bias);
  return buildOne<top::MatMulOp>(
      op, {in, r, b},
      {named(g, "right_transpose", boolean(g, right_transpose))},
      elementOf(in), input.dtype(), name);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

Tensor maxpool2d(const Tensor &input, const std::optional<IntList> &kernel,
                 const std::optional<IntList> &stride,
                 const std::optional<IntList> &pad, bool ceil_mode,
                 const std::optional<FloatList> &scale,
                 const std::optional<IntList> &zero_point,
                 const std::optional<std::string> &out_name,
                 const std::string &round_mode) {
  const std::string op = "maxpool2d";
  Graph &g = graph(op);
  requireNoQuant(op, "scale", scale.has_value());
  requireNoQuant(op, "zero_point", zero_point.has_value());
  checkRoundMode(op, "round_mode", round_mode);
  auto attrs = poolAttrs(op, g, input, kernel, stride, pad, ceil_mode, false);
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input);
  return buildOne<top::MaxPoolOp>(op, {in}, attrs, elementOf(in),
                                  input.dtype(), name);
}

Tensor maxpool(const Tensor &input, const std::optional<IntList> &kernel,
               const std::optional<IntList> &stride,
               const std::optional<IntList> &pad, bool ceil_mode,
               const std::optional<std::string> &out_name) {
  return maxpool2d(input, kernel, stride, pad, ceil_mode, std::nullopt,
                   std::nullopt, out_name);
}

Tensor avgpool2d(const Tensor &input, const std::optional<IntList> &kernel,
                 const std::optional<IntList> &stride,
                 const std::optional<IntList> &pad, bool ceil_mode,
                 const std::optional<FloatList> &scale,
                 const std::optional<IntList> &zero_point,
                 const std::optional<std::string> &out_name,
                 bool count_include_pad, const std::string &round_mode,
                 const std::string &first_round_mode) {
  const std::string op = "avgpool2d";
  Graph &g = graph(op);
  requireNoQuant(op, "scale", scale.has_value());
  requireNoQuant(op, "zero_point", zero_point.has_value());
  checkRoundMode(op, "round_mode", round_mode);
  checkRoundMode(op, "first_round_mode", first_round_mode);
  auto attrs = poolAttrs(op, g, input, kernel, stride, pad, ceil_mode,
                         count_include_pad);
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input);
  return buildOne<top::AvgPoolOp>(op, {in}, attrs, elementOf(in),
                                  input.dtype(), name);
}

Tensor avgpool(const Tensor &input, const std::optional<IntList> &kernel,
               const std::optional<IntList> &stride,
               const std::optional<IntList> &pad, bool ceil_mode,
               const std::optional<std::string> &out_name,
               bool count_include_pad) {
  return avgpool2d(input, kernel, stride, pad, ceil_mode, std::nullopt,
                   std::nullopt, out_name, count_include_pad);
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

#define STRATA_TPULANG_BINARY(NAME, OPTY)                                      \
  Tensor NAME(const Tensor &tensor_i0, const Tensor &tensor_i1,                \
              const std::optional<FloatList> &scale,                           \
              const std::optional<IntList> &zero_point,                        \
              const std::optional<std::string> &out_dtype,                     \
              const std::optional<std::string> &out_name) {                    \
    if (scale)                                                                 \
      return quantizedBinary(#NAME, tensor_i0, tensor_i1, *scale, zero_point,  \
                             out_dtype, out_name);                             \
    return binary<OPTY>(#NAME, tensor_i0, tensor_i1, scale, zero_point,        \
                        out_dtype, out_name);                                  \
  }                                                                            \
  Tensor NAME(const Tensor &tensor_i0, double scalar_i1,                       \
              const std::optional<FloatList> &scale,                           \
              const std::optional<IntList> &zero_point,                        \
              const std::optional<std::string> &out_dtype,                     \
              const std::optional<std::string> &out_name) {                    \
    Tensor c = scalarTensor(#NAME, scalar_i1, tensor_i0, scale.has_value());   \
    return NAME(tensor_i0, c, scale, zero_point, out_dtype, out_name);         \
  }                                                                            \
  Tensor NAME(double scalar_i0, const Tensor &tensor_i1,                       \
              const std::optional<FloatList> &scale,                           \
              const std::optional<IntList> &zero_point,                        \
              const std::optional<std::string> &out_dtype,                     \
              const std::optional<std::string> &out_name) {                    \
    Tensor c = scalarTensor(#NAME, scalar_i0, tensor_i1, scale.has_value());   \
    return NAME(c, tensor_i1, scale, zero_point, out_dtype, out_name);         \
  }

STRATA_TPULANG_BINARY(add, top::AddOp)
STRATA_TPULANG_BINARY(sub, top::SubOp)
STRATA_TPULANG_BINARY(mul, top::MulOp)
STRATA_TPULANG_BINARY(max, top::MaxOp)
STRATA_TPULANG_BINARY(min, top::MinOp)
#undef STRATA_TPULANG_BINARY

Tensor div(const Tensor &tensor_i0, const Tensor &tensor_i1,
           const std::optional<std::string> &out_name) {
  return binary<top::DivOp>("div", tensor_i0, tensor_i1, std::nullopt,
                            std::nullopt, std::nullopt, out_name);
}
Tensor div(const Tensor &tensor_i0, double scalar_i1,
           const std::optional<std::string> &out_name) {
  return div(tensor_i0, scalarTensor("div", scalar_i1, tensor_i0), out_name);
}
Tensor div(double scalar_i0, const Tensor &tensor_i1,
           const std::optional<std::string> &out_name) {
  return div(scalarTensor("div", scalar_i0, tensor_i1), tensor_i1, out_name);
}

Tensor pow(const Tensor &tensor_i, double exponent,
           const std::optional<std::string> &out_name) {
  requireFloat("pow", "tensor_i", tensor_i);
  return binary<top::PowOp>("pow", tensor_i,
                            scalarTensor("pow", exponent, tensor_i),
                            std::nullopt, std::nullopt, std::nullopt, out_name);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

Tensor relu(const Tensor &input, const std::optional<std::string> &out_name) {
  return simpleUnary<top::ReluOp>("relu", input, out_name, false);
}

Tensor prelu(const Tensor &input, const Tensor &slope,
             const std::optional<std::string> &out_name) {
  const std::string op = "prelu";
  Graph &g = graph(op);
  requireFloat(op, "input", input);
  requireSameDType(op, "slope", slope, input, "input");
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input), s = valueOf(op, slope);
  return buildOne<top::PReluOp>(op, {in, s}, {}, elementOf(in), input.dtype(),
                                name);
}

Tensor leaky_relu(const Tensor &input, double negative_slope,
                  const std::optional<std::string> &out_name,
                  const std::string &round_mode) {
  checkRoundMode("leaky_relu", "round_mode", round_mode);
  Graph &g = graph("leaky_relu");
  return simpleUnary<top::LeakyReluOp>("leaky_relu", input, out_name, true,
                                       {{"alpha", f64(g, negative_slope)}});
}

Tensor clamp(const Tensor &input, double min, double max,
             const std::optional<std::string> &out_name) {
  const std::string op = "clamp";
  Graph &g = graph(op);
  if (!(min <= max))
    (Msg() << op << ": parameter 'min' = " << min
           << " must be <= parameter 'max' = " << max)
        .raise();
  return simpleUnary<top::ClipOp>(op, input, out_name, true,
                                  {{"min", f64(g, min)}, {"max", f64(g, max)}});
}

Tensor clip(const Tensor &input, double min, double max,
            const std::optional<std::string> &out_name) {
  return clamp(input, min, max, out_name);
}

#define STRATA_TPULANG_ACTIVATION(NAME, OPTY)                                  \
  Tensor NAME(const Tensor &input, const std::optional<FloatList> &scale,     \
              const std::optional<IntList> &zero_point,                        \
              const std::optional<std::string> &out_name) {                    \
    requireNoQuant(#NAME, "scale", scale.has_value());                         \
    requireNoQuant(#NAME, "zero_point", zero_point.has_value());               \
    return simpleUnary<OPTY>(#NAME, input, out_name, true);                    \
  }

STRATA_TPULANG_ACTIVATION(exp, top::ExpOp)
STRATA_TPULANG_ACTIVATION(ln, top::LogOp)
STRATA_TPULANG_ACTIVATION(sqrt, top::SqrtOp)
STRATA_TPULANG_ACTIVATION(rsqrt, top::RsqrtOp)
STRATA_TPULANG_ACTIVATION(silu, top::SiLUOp)
STRATA_TPULANG_ACTIVATION(erf, top::ErfOp)
STRATA_TPULANG_ACTIVATION(hswish, top::HardSwishOp)
#undef STRATA_TPULANG_ACTIVATION

Tensor log(const Tensor &input, const std::optional<std::string> &out_name) {
  return simpleUnary<top::LogOp>("log", input, out_name, true);
}

Tensor tanh(const Tensor &input, const std::optional<FloatList> &scale,
            const std::optional<IntList> &zero_point,
            const std::optional<std::string> &out_name,
            const std::string &round_mode) {
  requireNoQuant("tanh", "scale", scale.has_value());
  requireNoQuant("tanh", "zero_point", zero_point.has_value());
  checkRoundMode("tanh", "round_mode", round_mode);
  return simpleUnary<top::TanhOp>("tanh", input, out_name, true);
}

Tensor sigmoid(const Tensor &input, const std::optional<FloatList> &scale,
               const std::optional<IntList> &zero_point,
               const std::optional<std::string> &out_name,
               const std::string &round_mode) {
  requireNoQuant("sigmoid", "scale", scale.has_value());
  requireNoQuant("sigmoid", "zero_point", zero_point.has_value());
  checkRoundMode("sigmoid", "round_mode", round_mode);
  return simpleUnary<top::SigmoidOp>("sigmoid", input, out_name, true);
}

Tensor gelu(const Tensor &input, const std::optional<FloatList> &scale,
            const std::optional<IntList> &zero_point,
            const std::optional<std::string> &out_name,
            const std::string &round_mode) {
  requireNoQuant("gelu", "scale", scale.has_value());
  requireNoQuant("gelu", "zero_point", zero_point.has_value());
  checkRoundMode("gelu", "round_mode", round_mode);
  return simpleUnary<top::GeluOp>("gelu", input, out_name, true);
}

Tensor hsigmoid(const Tensor &input, const std::optional<FloatList> &scale,
                const std::optional<IntList> &zero_point,
                const std::optional<std::string> &out_name) {
  requireNoQuant("hsigmoid", "scale", scale.has_value());
  requireNoQuant("hsigmoid", "zero_point", zero_point.has_value());
  Graph &g = graph("hsigmoid");
  return simpleUnary<top::HardSigmoidOp>(
      "hsigmoid", input, out_name, true,
      {{"alpha", f64(g, 1.0 / 6.0)}, {"beta", f64(g, 0.5)}});
}

Tensor square(const Tensor &input, const std::optional<FloatList> &scale,
              const std::optional<IntList> &zero_point,
              const std::optional<std::string> &out_name) {
  return binary<top::MulOp>("square", input, input, scale, zero_point,
                            std::nullopt, out_name);
}

Tensor abs(const Tensor &input, const std::optional<std::string> &out_name) {
  return simpleUnary<top::AbsOp>("abs", input, out_name, false);
}

Tensor neg(const Tensor &input, const std::optional<std::string> &out_name) {
  return simpleUnary<top::NegOp>("neg", input, out_name, false);
}

Tensor softmax(const Tensor &input, int64_t axis,
               const std::optional<std::string> &out_name) {
  Graph &g = graph("softmax");
  return simpleUnary<top::SoftmaxOp>("softmax", input, out_name, true,
                                     {{"axis", i64(g, axis)}});
}

Tensor log_softmax(const Tensor &input, int64_t axis,
                   const std::optional<std::string> &out_name) {
  Graph &g = graph("log_softmax");
  return simpleUnary<top::LogSoftmaxOp>("log_softmax", input, out_name, true,
                                        {{"axis", i64(g, axis)}});
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

Tensor batch_norm(const Tensor &input, const Tensor &mean,
                  const Tensor &variance, const std::optional<Tensor> &gamma,
                  const std::optional<Tensor> &beta, double epsilon,
                  const std::optional<std::string> &out_name) {
  const std::string op = "batch_norm";
  Graph &g = graph(op);
  requireFloat(op, "input", input);
  if (!(epsilon >= 0))
    (Msg() << op << ": parameter 'epsilon' = " << epsilon << " must be >= 0")
        .raise();
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input);
  Value m = valueOf(op, mean), v = valueOf(op, variance);
  Value s = valueOrNone(op, gamma), b = valueOrNone(op, beta);
  return buildOne<top::BatchNormOp>(op, {in, m, v, s, b},
                                    {named(g, "epsilon", f64(g, epsilon))},
                                    elementOf(in), input.dtype(), name);
}

Tensor layer_norm(const Tensor &input, const std::optional<Tensor> &gamma,
                  const std::optional<Tensor> &beta, double epsilon,
                  int64_t axis, const std::optional<std::string> &out_name) {
  const std::string op = "layer_norm";
  Graph &g = graph(op);
  requireFloat(op, "input", input);
  if (!(epsilon >= 0))
    (Msg() << op << ": parameter 'epsilon' = " << epsilon << " must be >= 0")
        .raise();
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input);
  Value s = valueOrNone(op, gamma), b = valueOrNone(op, beta);
  return buildOne<top::LayerNormOp>(
      op, {in, s, b},
      {named(g, "axis", i64(g, axis)), named(g, "epsilon", f64(g, epsilon))},
      elementOf(in), input.dtype(), name);
}

Tensor group_norm(const Tensor &input, const std::optional<Tensor> &gamma,
                  const std::optional<Tensor> &beta, double epsilon,
                  int64_t num_groups,
                  const std::optional<std::string> &out_name) {
  const std::string op = "group_norm";
  Graph &g = graph(op);
  requireFloat(op, "input", input);
  if (!(epsilon >= 0))
    (Msg() << op << ": parameter 'epsilon' = " << epsilon << " must be >= 0")
        .raise();
  if (num_groups < 1)
    (Msg() << op << ": parameter 'num_groups' = " << num_groups
           << " must be >= 1")
        .raise();
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input);
  Value s = valueOrNone(op, gamma), b = valueOrNone(op, beta);
  return buildOne<top::GroupNormOp>(
      op, {in, s, b},
      {named(g, "num_groups", i64(g, num_groups)),
       named(g, "epsilon", f64(g, epsilon))},
      elementOf(in), input.dtype(), name);
}

//===----------------------------------------------------------------------===//
// Shape, selection, conversion
//===----------------------------------------------------------------------===//

Tensor reshape(const Tensor &tensor, const IntList &new_shape,
               const std::optional<std::string> &out_name) {
  Graph &g = graph("reshape");
  return simpleUnary<top::ReshapeOp>("reshape", tensor, out_name, false,
                                     {{"shape", i64Array(g, new_shape)}});
}

Tensor permute(const Tensor &input, const IntList &order,
               const std::optional<std::string> &out_name) {
  Graph &g = graph("permute");
  return simpleUnary<top::PermuteOp>("permute", input, out_name, false,
                                     {{"order", i64Array(g, order)}});
}

Tensor concat(const std::vector<Tensor> &inputs,
              const std::optional<FloatList> &scales,
              const std::optional<IntList> &zero_points, int64_t axis,
              const std::optional<std::string> &out_name,
              const std::string &dtype, const std::string &round_mode) {
  const std::string op = "concat";
  Graph &g = graph(op);
  requireNoQuant(op, "scales", scales.has_value());
  requireNoQuant(op, "zero_points", zero_points.has_value());
  checkRoundMode(op, "round_mode", round_mode);
  parseDType(op, "dtype", dtype);
  if (inputs.size() < 2)
    (Msg() << op << ": parameter 'inputs' must hold at least 2 tensors, got "
           << inputs.size())
        .raise();
  for (size_t i = 1; i < inputs.size(); ++i)
    requireSameDType(op, "inputs[" + std::to_string(i) + "]", inputs[i],
                     inputs[0], "inputs[0]");
  std::string name = outputName(g, op, out_name);
  SmallVector<Value> values;
  for (const Tensor &t : inputs)
    values.push_back(valueOf(op, t));
  return buildOne<top::ConcatOp>(op, values, {named(g, "axis", i64(g, axis))},
                                 elementOf(values[0]), inputs[0].dtype(), name);
}

std::vector<Tensor> split(const Tensor &input, int64_t axis, int64_t num,
                          const IntList &size,
                          const std::optional<std::string> &out_name) {
  const std::string op = "split";
  Graph &g = graph(op);
  int64_t rank = static_cast<int64_t>(input.shape().size());
  if (num < 2)
    (Msg() << op << ": parameter 'num' = " << num << " must be > 1").raise();
  if (axis < -rank || axis >= rank)
    (Msg() << op << ": parameter 'axis' = " << axis << " is out of range for "
           << "shape " << input.shape())
        .raise();
  int64_t dim = input.shape()[axis < 0 ? axis + rank : axis];
  IntList sizes = size;
  if (sizes.empty()) {
    if (dim % num != 0)
      (Msg() << op << ": parameter 'num' = " << num
             << " does not divide dim " << dim << " of shape "
             << input.shape())
          .raise();
    sizes.assign(num, dim / num);
  } else if (static_cast<int64_t>(sizes.size()) != num) {
    (Msg() << op << ": parameter 'size' " << sizes << " must have num = "
           << num << " values")
        .raise();
  }
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input);
  SmallVector<Type> types(num, elementOf(in));
  std::vector<std::string> dtypes(num, input.dtype());
  return buildOp<top::SplitOp>(
      op, {in},
      {named(g, "axis", i64(g, axis)), named(g, "split", i64Array(g, sizes))},
      types, dtypes, name);
}

Tensor slice(const Tensor &input, const IntList &starts, const IntList &ends,
             const std::optional<IntList> &steps,
             const std::optional<IntList> &axes,
             const std::optional<std::string> &out_name) {
  const std::string op = "slice";
  Graph &g = graph(op);
  if (ends.size() != starts.size())
    (Msg() << op << ": parameter 'ends' " << ends << " must have as many "
           << "values as 'starts' " << starts)
        .raise();
  if (steps && steps->size() != starts.size())
    (Msg() << op << ": parameter 'steps' " << *steps
           << " must have as many values as 'starts' " << starts)
        .raise();
  if (axes && axes->size() != starts.size())
    (Msg() << op << ": parameter 'axes' " << *axes
           << " must have as many values as 'starts' " << starts)
        .raise();
  std::vector<std::pair<StringRef, Attribute>> attrs = {
      {"starts", i64Array(g, starts)}, {"ends", i64Array(g, ends)}};
  if (steps)
    attrs.push_back({"steps", i64Array(g, *steps)});
  if (axes)
    attrs.push_back({"axes", i64Array(g, *axes)});
  return simpleUnary<top::SliceOp>(op, input, out_name, false, attrs);
}

Tensor pad(const Tensor &input, const std::string &method,
           const std::optional<double> &value,
           const std::optional<IntList> &padding,
           const std::optional<std::string> &out_name) {
  const std::string op = "pad";
  Graph &g = graph(op);
  if (method != "constant" && method != "reflect" && method != "edge")
    (Msg() << op << ": parameter 'method' = '" << method
           << "' is not supported (constant, reflect, edge)")
        .raise();
  size_t rank = input.shape().size();
  IntList p = padding.value_or(IntList(2 * rank, 0));
  if (p.size() != 2 * rank)
    (Msg() << op << ": parameter 'padding' must have 2 * rank = " << 2 * rank
           << " values, got " << p.size() << " " << p)
        .raise();
  return simpleUnary<top::PadOp>(op, input, out_name, false,
                                 {{"pads", i64Array(g, p)},
                                  {"mode", enumAttr<top::PadModeAttr>(g, op, "method",
                                                                      method)},
                                  {"value", f64(g, value.value_or(0.0))}});
}

Tensor index_select(const Tensor &input, const Tensor &index, int64_t axis,
                    const std::optional<std::string> &out_name,
                    bool keep_dims) {
  const std::string op = "index_select";
  Graph &g = graph(op);
  if (!keep_dims)
    (Msg() << op << ": parameter 'keep_dims' = false is not supported")
        .raise();
  if (!isIntDType(index))
    (Msg() << op << ": parameter 'index' must have an integer dtype, got "
           << index.dtype())
        .raise();
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, input), idx = valueOf(op, index);
  return buildOne<top::GatherOp>(op, {in, idx},
                                 {named(g, "axis", i64(g, axis))},
                                 elementOf(in), input.dtype(), name);
}

Tensor tile(const Tensor &input, const IntList &reps,
            const std::optional<std::string> &out_name) {
  Graph &g = graph("tile");
  return simpleUnary<top::TileOp>("tile", input, out_name, false,
                                  {{"repeats", i64Array(g, reps)}});
}

Tensor broadcast(const Tensor &input, const IntList &reps,
                 const std::optional<std::string> &out_name) {
  Graph &g = graph("broadcast");
  return simpleUnary<top::ExpandOp>("broadcast", input, out_name, false,
                                    {{"shape", i64Array(g, reps)}});
}

Tensor upsample(const Tensor &input, int64_t scale,
                const std::optional<std::string> &out_name) {
  const std::string op = "upsample";
  Graph &g = graph(op);
  if (scale < 1)
    (Msg() << op << ": parameter 'scale' = " << scale << " must be >= 1")
        .raise();
  if (input.shape().size() < 2)
    (Msg() << op << ": parameter 'input' must have rank >= 2, got shape "
           << input.shape())
        .raise();
  std::vector<double> scales(input.shape().size(), 1.0);
  scales[scales.size() - 2] = scales[scales.size() - 1] =
      static_cast<double>(scale);
  return simpleUnary<top::ResizeOp>(
      op, input, out_name, false,
      {{"mode",
        top::InterpolationAttr::get(&g.context, top::Interpolation::Nearest)},
       {"coordinate_transformation_mode",
        top::CoordinateModeAttr::get(&g.context,
                                     top::CoordinateMode::Asymmetric)},
       {"nearest_mode",
        top::NearestModeAttr::get(&g.context, top::NearestMode::Floor)},
       {"scales", DenseF64ArrayAttr::get(&g.context, scales)}});
}

Tensor expand(const Tensor &input, const IntList &shape,
              const std::optional<std::string> &out_name) {
  return broadcast(input, shape, out_name);
}

Tensor reduce(const Tensor &input, const std::string &method,
              const IntList &axes, bool keep_dims,
              const std::optional<std::string> &out_name) {
  const std::string op = "reduce";
  Graph &g = graph(op);
  static const char *methods[] = {"ReduceSum", "ReduceMean", "ReduceMax",
                                  "ReduceMin", "ReduceProd"};
  if (std::find(std::begin(methods), std::end(methods), method) ==
      std::end(methods))
    (Msg() << op << ": parameter 'method' = '" << method
           << "' is not supported (ReduceSum, ReduceMean, ReduceMax, "
              "ReduceMin, ReduceProd)")
        .raise();
  return simpleUnary<top::ReduceOp>(op, input, out_name, false,
                                    {{"axes", i64Array(g, axes)},
                                     {"keepdims", boolean(g, keep_dims)},
                                     {"mode", enumAttr<top::ReduceModeAttr>(
                                                 g, op, "method", method)}});
}

std::pair<Tensor, Tensor> arg(const Tensor &input, const std::string &method,
                              int64_t axis, bool keep_dims,
                              const std::optional<std::string> &out_name) {
  const std::string op = "arg";
  Graph &g = graph(op);
  if (method != "max" && method != "min")
    (Msg() << op << ": parameter 'method' = '" << method
           << "' must be \"max\" or \"min\"")
        .raise();
  int64_t rank = static_cast<int64_t>(input.shape().size());
  if (axis < -rank || axis >= rank)
    (Msg() << op << ": parameter 'axis' = " << axis << " is out of range for "
           << "shape " << input.shape())
        .raise();
  std::string base = out_name ? *out_name : g.freshName(op);
  std::string indName = outputName(g, op, base + "_ind");
  std::string valName = outputName(g, op, base + "_val");
  Tensor keyed =
      method == "max" ? input : neg(input, g.freshName(base + "_neg"));
  Value in = valueOf(op, keyed);
  Tensor index = buildOne<top::ArgMaxOp>(
      op, {in},
      {named(g, "axis", i64(g, axis)),
       named(g, "keepdims", boolean(g, keep_dims))},
      IntegerType::get(&g.context, 64), "int64", g.freshName(base + "_i64"));
  std::string indDType = input.dtype() == "float32" ? "float32" : "int32";
  Tensor ind = buildOne<top::CastOp>(op, {valueOf(op, index)}, {},
                                     plainElementType(g, indDType), indDType,
                                     indName);
  Tensor val = reduce(input, method == "max" ? "ReduceMax" : "ReduceMin",
                      {axis}, keep_dims, valName);
  return {ind, val};
}

Tensor squeeze(const Tensor &tensor_i, const IntList &axis,
               const std::optional<std::string> &out_name) {
  const std::string op = "squeeze";
  int64_t rank = static_cast<int64_t>(tensor_i.shape().size());
  std::vector<bool> drop(rank, false);
  for (int64_t a : axis) {
    if (a < -rank || a >= rank)
      (Msg() << op << ": parameter 'axis' " << axis << " has " << a
             << ", out of range for shape " << tensor_i.shape())
          .raise();
    int64_t d = a < 0 ? a + rank : a;
    if (tensor_i.shape()[d] != 1)
      (Msg() << op << ": parameter 'axis' " << axis << " names dim " << d
             << " of size " << tensor_i.shape()[d] << " (must be 1)")
          .raise();
    drop[d] = true;
  }
  IntList shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop[d])
      shape.push_back(tensor_i.shape()[d]);
  Graph &g = graph(op);
  return simpleUnary<top::ReshapeOp>(op, tensor_i, out_name, false,
                                     {{"shape", i64Array(g, shape)}});
}

Tensor unsqueeze(const Tensor &input, const IntList &axes,
                 const std::optional<std::string> &out_name) {
  const std::string op = "unsqueeze";
  int64_t outRank = static_cast<int64_t>(input.shape().size() + axes.size());
  std::vector<bool> inserted(outRank, false);
  for (int64_t a : axes) {
    int64_t d = a < 0 ? a + outRank : a;
    if (d < 0 || d >= outRank || inserted[d])
      (Msg() << op << ": parameter 'axes' " << axes
             << " is invalid for an output of rank " << outRank)
          .raise();
    inserted[d] = true;
  }
  IntList shape;
  size_t next = 0;
  for (int64_t d = 0; d < outRank; ++d)
    shape.push_back(inserted[d] ? 1 : input.shape()[next++]);
  Graph &g = graph(op);
  return simpleUnary<top::ReshapeOp>(op, input, out_name, false,
                                     {{"shape", i64Array(g, shape)}});
}

Tensor interpolate(const Tensor &input, double scale_h, double scale_w,
                   const std::string &method, const std::string &coord_mode,
                   const std::optional<std::string> &out_name) {
  const std::string op = "interpolate";
  Graph &g = graph(op);
  if (input.shape().size() < 2)
    (Msg() << op << ": parameter 'input' must have rank >= 2, got shape "
           << input.shape())
        .raise();
  if (!(scale_h > 0))
    (Msg() << op << ": parameter 'scale_h' = " << scale_h << " must be > 0")
        .raise();
  if (!(scale_w > 0))
    (Msg() << op << ": parameter 'scale_w' = " << scale_w << " must be > 0")
        .raise();
  if (method != "nearest" && method != "linear")
    (Msg() << op << ": parameter 'method' = '" << method
           << "' must be \"nearest\" or \"linear\"")
        .raise();
  if (coord_mode != "align_corners" && coord_mode != "pytorch_half_pixel" &&
      coord_mode != "half_pixel" && coord_mode != "asymmetric")
    (Msg() << op << ": parameter 'coord_mode' = '" << coord_mode
           << "' must be align_corners, pytorch_half_pixel, half_pixel or "
              "asymmetric")
        .raise();
  std::vector<double> scales(input.shape().size(), 1.0);
  scales[scales.size() - 2] = scale_h;
  scales[scales.size() - 1] = scale_w;
  return simpleUnary<top::ResizeOp>(
      op, input, out_name, false,
      {{"mode", enumAttr<top::InterpolationAttr>(g, op, "method", method)},
       {"coordinate_transformation_mode",
        enumAttr<top::CoordinateModeAttr>(g, op, "coord_mode", coord_mode)},
       {"scales", DenseF64ArrayAttr::get(&g.context, scales)}});
}

Tensor depth2space(const Tensor &input, int64_t block_h, int64_t block_w,
                   bool is_CRD, bool is_inversed, bool in_is_NCHW,
                   bool out_is_NCHW, bool swap_cr,
                   const std::optional<std::string> &out_name) {
  const std::string op = "depth2space";
  Graph &g = graph(op);
  requireRank(op, "input", input, 4, "NCHW");
  if (block_h != block_w)
    (Msg() << op << ": parameters 'block_h' = " << block_h
           << " and 'block_w' = " << block_w << " must be equal")
        .raise();
  if (block_h < 1)
    (Msg() << op << ": parameter 'block_h' = " << block_h << " must be >= 1")
        .raise();
  if (!in_is_NCHW || !out_is_NCHW)
    (Msg() << op << ": parameters 'in_is_NCHW'/'out_is_NCHW' must be true "
                    "(only NCHW is supported)")
        .raise();
  if (swap_cr)
    (Msg() << op << ": parameter 'swap_cr' = true is not supported").raise();
  if (is_inversed) {
    if (is_CRD)
      (Msg() << op << ": parameter 'is_CRD' = true is not supported with "
                      "is_inversed (space to depth is DCR only)")
          .raise();
    return simpleUnary<top::SpaceToDepthOp>(op, input, out_name, false,
                                            {{"blocksize", i64(g, block_h)}});
  }
  return simpleUnary<top::DepthToSpaceOp>(
      op, input, out_name, false,
      {{"blocksize", i64(g, block_h)},
       {"mode", top::DepthToSpaceModeAttr::get(
                   &g.context, is_CRD ? top::DepthToSpaceMode::CRD
                                      : top::DepthToSpaceMode::DCR)}});
}

#define STRATA_TPULANG_COMPARE(NAME, MODE)                                     \
  Tensor NAME(const Tensor &tensor_i0, const Tensor &tensor_i1,                \
              const std::optional<FloatList> &scale,                           \
              const std::optional<IntList> &zero_point,                        \
              const std::optional<std::string> &out_name) {                    \
    return compareOp(#NAME, MODE, tensor_i0, tensor_i1, scale, zero_point,     \
                     out_name);                                                \
  }                                                                            \
  Tensor NAME##s(const Tensor &tensor_i0, double scalar_i1,                    \
                 const std::optional<FloatList> &scale,                        \
                 const std::optional<IntList> &zero_point,                     \
                 const std::optional<std::string> &out_name) {                 \
    return compareOp(#NAME "s", MODE, tensor_i0,                               \
                     scalarTensor(#NAME "s", scalar_i1, tensor_i0), scale,     \
                     zero_point, out_name);                                    \
  }

STRATA_TPULANG_COMPARE(gt, "Greater")
STRATA_TPULANG_COMPARE(lt, "Less")
STRATA_TPULANG_COMPARE(ge, "GreaterOrEqual")
STRATA_TPULANG_COMPARE(le, "LessOrEqual")
STRATA_TPULANG_COMPARE(eq, "Equal")
STRATA_TPULANG_COMPARE(ne, "NotEqual")
#undef STRATA_TPULANG_COMPARE

Tensor cond_select(const Tensor &cond, const Tensor &tbrn, const Tensor &fbrn,
                   const std::optional<std::string> &out_name) {
  const std::string op = "cond_select";
  Graph &g = graph(op);
  requireSameDType(op, "fbrn", fbrn, tbrn, "tbrn");
  std::string name = outputName(g, op, out_name);
  Value c = valueOf(op, cond);
  if (cond.dtype() != "bool") {
    Tensor asBool = buildOne<top::CastOp>(op, {c}, {},
                                          IntegerType::get(&g.context, 1),
                                          "bool", g.freshName(name + "_cond"));
    c = valueOf(op, asBool);
  }
  Value x = valueOf(op, tbrn), y = valueOf(op, fbrn);
  return buildOne<top::WhereOp>(op, {c, x, y}, {}, elementOf(x), tbrn.dtype(),
                                name);
}

Tensor cond_select(const Tensor &cond, double tbrn, double fbrn,
                   const std::optional<std::string> &out_name) {
  std::string dtype = cond.dtype() == "bool" ? "float32" : cond.dtype();
  Tensor like({1}, dtype);
  return cond_select(cond, scalarTensor("cond_select", tbrn, like),
                     scalarTensor("cond_select", fbrn, like), out_name);
}

Tensor where(const Tensor &cond, const Tensor &x, const Tensor &y,
             const std::optional<std::string> &out_name) {
  return cond_select(cond, x, y, out_name);
}

Tensor cast(const Tensor &tensor_i, const std::string &out_dtype,
            const std::optional<std::string> &out_name,
            const std::string &round_mode) {
  const std::string op = "cast";
  Graph &g = graph(op);
  parseDType(op, "out_dtype", out_dtype);
  checkRoundMode(op, "round_mode", round_mode);
  if (round_mode == "half_up" || round_mode == "half_down")
    (Msg() << op << ": parameter 'round_mode' = '" << round_mode
           << "' is not supported by cast")
        .raise();
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, tensor_i);
  return buildOne<top::CastOp>(op, {in}, {}, plainElementType(g, out_dtype),
                               out_dtype, name);
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

Tensor requant_fp_to_int(const Tensor &tensor_i, const FloatOrList &scale,
                         const IntOrList &offset, int64_t requant_mode,
                         const std::string &out_dtype,
                         const std::optional<std::string> &out_name,
                         const std::string &round_mode) {
  const std::string op = "requant_fp_to_int";
  Graph &g = graph(op);
  requireFloat(op, "tensor_i", tensor_i);
  checkRoundMode(op, "round_mode", round_mode);
  if (requant_mode < 0 || requant_mode > 2)
    (Msg() << op << ": parameter 'requant_mode' = " << requant_mode
           << " must be 0, 1 or 2")
        .raise();
  Type qt = quantType(op, g, out_dtype, scale, offset, tensor_i.shape());
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, tensor_i);
  if (!elementOf(in).isF32())
    (Msg() << op << ": parameter 'tensor_i' must be float32 (the quantized "
                    "type's expressed type), got "
           << tensor_i.dtype())
        .raise();
  return buildOne<top::QuantOp>(op, {in}, {}, qt, out_dtype, name);
}

Tensor dequant_int_to_fp(const Tensor &tensor_i, const FloatOrList &scale,
                         const IntOrList &offset, const std::string &out_dtype,
                         const std::optional<std::string> &out_name,
                         const std::string &round_mode) {
  const std::string op = "dequant_int_to_fp";
  Graph &g = graph(op);
  checkRoundMode(op, "round_mode", round_mode);
  if (out_dtype != "float32")
    (Msg() << op << ": parameter 'out_dtype' = '" << out_dtype
           << "' is not supported (float32 only)")
        .raise();
  Tensor in = tensor_i;
  IntOrList zp = offset;
  if (auto *l = std::get_if<IntList>(&zp); l && l->size() == 1)
    zp = (*l)[0];
  FloatOrList sc = scale;
  if (auto *l = std::get_if<FloatList>(&sc); l && l->size() == 1)
    sc = (*l)[0];
  const auto &impl = Access::impl(tensor_i);
  if (!tensor_i.is_quantized() && (impl->produced || impl->graphId != 0)) {
    // A plain integer tensor already in the graph keeps its type: x - offset
    // in int32, then exactly that value as int32 quantized with `scale`.
    if (!isIntDType(tensor_i))
      (Msg() << op << ": parameter 'tensor_i' has dtype " << tensor_i.dtype()
             << "; dequant_int_to_fp takes an integer tensor")
          .raise();
    std::string name = outputName(g, op, out_name);
    size_t rank = tensor_i.shape().size();
    Value v = int32Of(op, g, valueOf(op, tensor_i), name);
    IntList zps = toList(zp);
    if (std::any_of(zps.begin(), zps.end(), [](int64_t z) { return z; }))
      v = int32Binary<top::SubOp>(
          op, g, v, int32Const(op, g, zps, rank, g.freshName(name + "_zp")),
          g.freshName(name + "_sub_zp"));
    Type qt = quantType(op, g, "int32", sc, int64_t(0), tensor_i.shape());
    v = valueOf(op,
                requantOp(op, g, v, {1}, {0}, top::RequantMode::MultiplierShift,
                          qt, "int32", g.freshName(name + "_q")));
    return buildOne<top::DequantOp>(op, {v}, {}, Float32Type::get(&g.context),
                                    out_dtype, name);
  }
  try {
    in.quantization(sc, zp);
  } catch (const Error &e) {
    throw Error(op + ": parameter 'tensor_i': " + e.what());
  }
  std::string name = outputName(g, op, out_name);
  Value v = valueOf(op, in);
  return buildOne<top::DequantOp>(op, {v}, {}, Float32Type::get(&g.context),
                                  out_dtype, name);
}

Tensor requant_int(const Tensor &tensor_i, const IntOrList &mul,
                   const IntOrList &shift, const IntOrList &offset,
                   int64_t requant_mode, const std::string &out_dtype,
                   const std::optional<std::string> &out_name,
                   const std::string &round_mode,
                   const std::optional<FloatOrList> &out_scale) {
  const std::string op = "requant_int";
  Graph &g = graph(op);
  checkRoundMode(op, "round_mode", round_mode);
  if (requant_mode < 0 || requant_mode > 2)
    (Msg() << op << ": parameter 'requant_mode' = " << requant_mode
           << " must be 0 (TFLite_LShift), 1 (TFLite) or 2 (MultiplierShift)")
        .raise();
  IntList m = toList(mul), sh = toList(shift);
  IntList zp = toList(offset);
  bool anyZp = std::any_of(zp.begin(), zp.end(), [](int64_t z) { return z; });
  Type outType;
  if (anyZp || out_scale) {
    FloatOrList ones = zp.size() == 1 ? FloatOrList(1.0)
                                      : FloatOrList(FloatList(zp.size(), 1.0));
    outType = quantType(op, g, out_dtype, out_scale.value_or(ones), offset,
                        tensor_i.shape());
  } else {
    DType d = parseDType(op, "out_dtype", out_dtype);
    if (!isSignedInt(d) && !(isUnsignedInt(d) && d != DType::Bool))
      (Msg() << op << ": parameter 'out_dtype' = '" << out_dtype
             << "' must be an integer dtype")
          .raise();
    outType = plainElementType(g, out_dtype);
  }
  std::string name = outputName(g, op, out_name);
  Value in = valueOf(op, tensor_i);
  // Modes 0 and 1 are TPU-MLIR's MultiplyByQuantizedMultiplier (a positive
  // shift is a left shift before the multiply); 2 only shifts right.
  if (requant_mode != 2)
    return tfliteRequant(op, g, in, m, sh, tensor_i.shape().size(), outType,
                         out_dtype, name);
  for (int64_t &s : sh) {
    if (s > 0)
      (Msg() << op << ": parameter 'shift' = " << fmt(shift)
             << " has a left shift (> 0), which requant_mode 2 "
                "(MultiplierShift) does not take; use requant_mode 0")
          .raise();
    s = -s;
  }
  return requantOp(op, g, in, m, sh, top::RequantMode::MultiplierShift, outType,
                   out_dtype, name);
}

} // namespace strata::tpulang
