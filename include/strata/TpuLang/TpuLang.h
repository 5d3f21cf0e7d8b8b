//===- TpuLang.h - TpuLang-compatible graph API -----------------*- C++ -*-===//
//
// A C++ version of TPU-MLIR's TpuLang: build a network op by op, then write it
// as a Top model (`<name>_origin.mlir` plus `<name>_TOP_F32_all_weight.npz`).
//
//   strata::tpulang::init("CPU");
//   Tensor x({1, 3, 8, 8}, "float32", "x");
//   Tensor w({4, 3, 3, 3}, "float32", "w", weights, "coeff");
//   Tensor y = relu(conv_v2(x, w, std::nullopt, IntList{1, 1},
//                           std::nullopt, IntList{1, 1, 1, 1}));
//   compile("net", {x}, {y});
//   deinit();
//
// Conventions, following TpuLang:
//  - Ops are free functions with TpuLang's names, parameter order and
//    defaults. Where TpuLang takes `None`, the C++ parameter is a
//    `std::optional` and `std::nullopt` means None. Lists are `IntList` /
//    `FloatList`; "an int or a list" is `IntOrList` (a plain number or an
//    `IntList{...}`), "a float or a list" is `FloatOrList`.
//  - dtypes are numpy-style strings: "float32", "float16", "bfloat16",
//    "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
//    "int64", "uint64", "bool".
//  - Each op infers its output shape when it is called, so `shape()` of every
//    result is known immediately.
//  - Every invalid call throws `strata::tpulang::Error`, whose message names
//    the op, the parameter and the offending value. A failing call adds no
//    op to the graph (graph inputs and weights it used stay registered).
//  - There is one global graph (as in TpuLang), created by `init` and freed by
//    `deinit`; the API is not thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TPULANG_TPULANG_H
#define STRATA_TPULANG_TPULANG_H

#include "strata/Support/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace strata::tpulang {

/// The exception every TpuLang function throws on invalid input. The message
/// has the form "<op>: <what is wrong, naming the parameter and its value>".
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A list of integers (shapes, strides, pads, axes, ...).
using IntList = std::vector<int64_t>;
/// A list of floats (scales, ...).
using FloatList = std::vector<double>;
/// One integer for all channels, or one per channel (TpuLang
/// `Union[int, List[int]]`).
using IntOrList = std::variant<int64_t, IntList>;
/// One float for all channels, or one per channel (TpuLang
/// `Union[float, List[float]]`).
using FloatOrList = std::variant<double, FloatList>;

/// Creates the global graph for `platform`. Strata's only platform is the
/// host reference interpreter, "CPU" (case-insensitive); any other name throws
/// Error. Calling init again discards the current graph.
void init(const std::string &platform);

/// Frees the global graph. Tensors created before stay valid as objects but
/// can no longer be used in ops.
void deinit();

/// Host data for a Tensor: a flat row-major vector of any supported element
/// type, or a strata::Tensor. It is converted to the Tensor's dtype.
class TensorData {
public:
  /// Data from a flat vector; the element type is the vector's.
  TensorData(const std::vector<float> &values);
  TensorData(const std::vector<double> &values);
  TensorData(const std::vector<int8_t> &values);
  TensorData(const std::vector<uint8_t> &values);
  TensorData(const std::vector<int16_t> &values);
  TensorData(const std::vector<uint16_t> &values);
  TensorData(const std::vector<int32_t> &values);
  TensorData(const std::vector<uint32_t> &values);
  TensorData(const std::vector<int64_t> &values);
  /// Data from a host tensor (its shape is ignored except for the element
  /// count, which must match).
  TensorData(strata::Tensor tensor);

  /// The data as a host tensor (1-d for vectors).
  const strata::Tensor &tensor() const { return value; }

private:
  strata::Tensor value;
};

namespace detail {
struct TensorImpl;
struct Access;
} // namespace detail

/// A tensor of the graph: a network input ("neuron" without a producer), a
/// constant ("coeff", stored as a top.Weight), or the output of an op.
/// Copies are handles to the same tensor.
class Tensor {
public:
  /// Mirrors TpuLang's `Tensor(shape, name, ttype, data, dtype, scale,
  /// zero_point)`, with the parameters ordered for C++ use.
  ///  - shape: the dims; every dim must be >= 0.
  ///  - dtype: numpy-style element type (see the file comment).
  ///  - name: unique tensor name; std::nullopt generates one.
  ///  - data: the values (converted to dtype). For "coeff" tensors they
  ///    become the weight; std::nullopt means all zeros. For "neuron"
  ///    tensors they are kept as reference input data (`data()`).
  ///  - ttype: "neuron" (a graph input) or "coeff" (a constant).
  ///  - scale, zero_point: quantization parameters; a scale makes the tensor
  ///    quantized (`!quant.uniform<storage:f32, scale:zero_point>`). Lists
  ///    are per channel along the dim of the tensor's role: dim 0 (output
  ///    channels) for a convolution weight, else dim 1. A negative scale is
  ///    taken by its magnitude (as TPU-MLIR's TpuLang). Needs an integer
  ///    dtype.
  explicit Tensor(IntList shape, std::string dtype = "float32",
                  std::optional<std::string> name = std::nullopt,
                  std::optional<TensorData> data = std::nullopt,
                  std::string ttype = "neuron",
                  std::optional<FloatOrList> scale = std::nullopt,
                  std::optional<IntOrList> zero_point = std::nullopt);

  /// The tensor's shape (for op outputs: the inferred shape).
  const IntList &shape() const;
  /// The element type name, e.g. "float32".
  const std::string &dtype() const;
  /// The tensor's name (its location name in the generated .mlir).
  const std::string &name() const;
  /// "neuron" or "coeff".
  const std::string &ttype() const;
  /// The data given at construction, if any (converted to dtype).
  const std::optional<strata::Tensor> &data() const;
  /// True once a scale was set (by the constructor or quantization()).
  bool is_quantized() const;
  /// The quantization scale, if quantized.
  const std::optional<FloatOrList> &scale() const;
  /// The quantization zero point, if set.
  const std::optional<IntOrList> &zero_point() const;

  /// Sets the quantization parameters (TpuLang `Tensor.quantization`). Each
  /// may be set once: setting a different value again throws. Only tensors
  /// not yet used by an op may change their type.
  void quantization(std::optional<FloatOrList> scale = std::nullopt,
                    std::optional<IntOrList> zero_point = std::nullopt);

  /// True if both handles refer to the same tensor.
  bool operator==(const Tensor &other) const { return impl == other.impl; }
  bool operator!=(const Tensor &other) const { return impl != other.impl; }

private:
  explicit Tensor(std::shared_ptr<detail::TensorImpl> impl);
  std::shared_ptr<detail::TensorImpl> impl;
  friend struct detail::Access;
};

//===----------------------------------------------------------------------===//
// Model output
//===----------------------------------------------------------------------===//

/// Writes the graph as a Top model: `<dir>/<name>_origin.mlir` (module
/// attributes `top.name = name` and `top.weight_file =
/// "<name>_TOP_F32_all_weight.npz"`) and that weight file in the same folder.
/// `name` may contain a folder ("out/net"). `inputs` become the function
/// arguments in that order (arg attribute `top.name`), `outputs` the results
/// (result attribute `top.name`). Every graph input the outputs depend on
/// must be listed in `inputs`. The module is verified before writing.
/// The remaining parameters mirror TpuLang's `compile` and are accepted for
/// compatibility: Strata only writes the Top model (`cmp`, `refs`, `mode`,
/// `dynamic`, `asymmetric`, `no_save`, `opt` have no effect except that
/// `mode` must be one of "f32", "f16", "bf16", "int8", "all", "none").
void compile(const std::string &name, const std::vector<Tensor> &inputs,
             const std::vector<Tensor> &outputs, bool cmp = true,
             const std::optional<std::string> &refs = std::nullopt,
             const std::string &mode = "f32", bool dynamic = false,
             bool asymmetric = false, bool no_save = false, int opt = 2);

/// The current graph as Top IR text (the module compile() would write, with
/// the given inputs and outputs), for inspection and tests.
std::string module_text(const std::vector<Tensor> &inputs,
                        const std::vector<Tensor> &outputs);

//===----------------------------------------------------------------------===//
// Convolution and matmul
//===----------------------------------------------------------------------===//

/// 2-D convolution, TpuLang `conv_v2` (top.Conv).
///  - tensor_i: 4-D NCHW input.
///  - weight: 4-D [oc, ic/group, kh, kw] filter.
///  - bias: std::nullopt for none, else shape [1, oc, 1, 1] (or [oc]).
///  - stride: [h, w], default [1, 1]; values >= 1.
///  - dilation: [h, w], default [1, 1]; values >= 1.
///  - pad: [up, down, left, right], default no padding; reordered to
///    top.Conv's [top, left, bottom, right].
///  - group: >= 1, dividing ic and oc; ic == oc == group is depthwise.
///  - input_zp, weight_zp: integer inputs only; one value or a list of
///    length ic; default 0.
///  - out_dtype: std::nullopt gives the input dtype for float16/float32
///    inputs and "int32" for integer inputs; else one of "int32", "uint32",
///    "float32", "float16".
///  - out_name: the output's name; std::nullopt generates one.
Tensor conv_v2(const Tensor &tensor_i, const Tensor &weight,
               const std::optional<Tensor> &bias = std::nullopt,
               const std::optional<IntList> &stride = std::nullopt,
               const std::optional<IntList> &dilation = std::nullopt,
               const std::optional<IntList> &pad = std::nullopt,
               int64_t group = 1,
               const std::optional<IntOrList> &input_zp = std::nullopt,
               const std::optional<IntOrList> &weight_zp = std::nullopt,
               const std::optional<std::string> &out_dtype = std::nullopt,
               const std::optional<std::string> &out_name = std::nullopt);

/// Float 2-D convolution, TpuLang `conv` (conv_v2 without zero points; input
/// must be float32/float16). pad is [up, down, left, right].
Tensor conv(const Tensor &input, const Tensor &weight,
            const std::optional<Tensor> &bias = std::nullopt,
            const std::optional<IntList> &stride = std::nullopt,
            const std::optional<IntList> &dilation = std::nullopt,
            const std::optional<IntList> &pad = std::nullopt, int64_t group = 1,
            const std::optional<std::string> &out_dtype = std::nullopt,
            const std::optional<std::string> &out_name = std::nullopt);

/// 2-D transposed convolution, TpuLang `deconv` (top.Deconv). weight is
/// [ic, oc/group, kh, kw]; pad is [up, down, left, right]; output_padding
/// [h, w] defaults to [0, 0]. Float inputs only.
Tensor deconv(const Tensor &input, const Tensor &weight,
              const std::optional<Tensor> &bias = std::nullopt,
              const std::optional<IntList> &stride = std::nullopt,
              const std::optional<IntList> &dilation = std::nullopt,
              const std::optional<IntList> &pad = std::nullopt,
              const std::optional<IntList> &output_padding = std::nullopt,
              int64_t group = 1,
              const std::optional<std::string> &out_dtype = std::nullopt,
              const std::optional<std::string> &out_name = std::nullopt);

/// Matrix multiply with numpy semantics, TpuLang `matmul` (top.MatMul):
/// `input @ right + bias`. right_transpose swaps right's last two dims.
/// input_transpose and output_transpose must be false and keep_dims true
/// (Strata's MatMul has no such modes; other values throw). Float inputs;
/// out_dtype, if given, must equal the input dtype.
Tensor matmul(const Tensor &input, const Tensor &right,
              const std::optional<Tensor> &bias = std::nullopt,
              bool input_transpose = false, bool right_transpose = false,
              bool output_transpose = false, bool keep_dims = true,
              const std::optional<std::string> &out_dtype = std::nullopt,
              const std::optional<std::string> &out_name = std::nullopt);

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// 2-D max pooling, TpuLang `maxpool2d` (top.MaxPool). input is NCHW;
/// kernel [kh, kw] (std::nullopt: the whole spatial extent), stride default
/// [1, 1], pad [up, down, left, right] default 0. scale and zero_point
/// (quantized inputs) are not supported and must be std::nullopt.
Tensor maxpool2d(const Tensor &input,
                 const std::optional<IntList> &kernel = std::nullopt,
                 const std::optional<IntList> &stride = std::nullopt,
                 const std::optional<IntList> &pad = std::nullopt,
                 bool ceil_mode = false,
                 const std::optional<FloatList> &scale = std::nullopt,
                 const std::optional<IntList> &zero_point = std::nullopt,
                 const std::optional<std::string> &out_name = std::nullopt,
                 const std::string &round_mode = "half_away_from_zero");

/// Alias of maxpool2d (older TpuLang name).
Tensor maxpool(const Tensor &input,
               const std::optional<IntList> &kernel = std::nullopt,
               const std::optional<IntList> &stride = std::nullopt,
               const std::optional<IntList> &pad = std::nullopt,
               bool ceil_mode = false,
               const std::optional<std::string> &out_name = std::nullopt);

/// 2-D average pooling, TpuLang `avgpool2d` (top.AvgPool); parameters as for
/// maxpool2d, plus count_include_pad (padding counts in the divisor).
Tensor avgpool2d(const Tensor &input,
                 const std::optional<IntList> &kernel = std::nullopt,
                 const std::optional<IntList> &stride = std::nullopt,
                 const std::optional<IntList> &pad = std::nullopt,
                 bool ceil_mode = false,
                 const std::optional<FloatList> &scale = std::nullopt,
                 const std::optional<IntList> &zero_point = std::nullopt,
                 const std::optional<std::string> &out_name = std::nullopt,
                 bool count_include_pad = false,
                 const std::string &round_mode = "half_away_from_zero",
                 const std::string &first_round_mode = "half_away_from_zero");

/// Alias of avgpool2d (older TpuLang name).
Tensor avgpool(const Tensor &input,
               const std::optional<IntList> &kernel = std::nullopt,
               const std::optional<IntList> &stride = std::nullopt,
               const std::optional<IntList> &pad = std::nullopt,
               bool ceil_mode = false,
               const std::optional<std::string> &out_name = std::nullopt,
               bool count_include_pad = false);

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Declares TpuLang's binary op NAME in three forms: tensor-tensor, and with
/// a scalar on either side (the scalar becomes a one-element coeff tensor of
/// the tensor's dtype). Both tensors need the same dtype; out_dtype, if
/// given, must equal it. With scale = [s0, s1, s_out] (and zero_point =
/// [z0, z1, z_out], default all 0), add, sub and mul of two int8/uint8
/// tensors are TpuLang's quantized variant, computed with the integer
/// arithmetic of TPU-MLIR's quantized lowering (docs/python.md); the result
/// is quantized (s_out, z_out) of out_dtype (default tensor_i0's). max and
/// min take no scale/zero_point, nor do the forms with a scalar.
#define STRATA_TPULANG_DECLARE_BINARY(NAME)                                    \
  Tensor NAME(const Tensor &tensor_i0, const Tensor &tensor_i1,                \
              const std::optional<FloatList> &scale = std::nullopt,            \
              const std::optional<IntList> &zero_point = std::nullopt,         \
              const std::optional<std::string> &out_dtype = std::nullopt,      \
              const std::optional<std::string> &out_name = std::nullopt);      \
  Tensor NAME(const Tensor &tensor_i0, double scalar_i1,                       \
              const std::optional<FloatList> &scale = std::nullopt,            \
              const std::optional<IntList> &zero_point = std::nullopt,         \
              const std::optional<std::string> &out_dtype = std::nullopt,      \
              const std::optional<std::string> &out_name = std::nullopt);      \
  Tensor NAME(double scalar_i0, const Tensor &tensor_i1,                       \
              const std::optional<FloatList> &scale = std::nullopt,            \
              const std::optional<IntList> &zero_point = std::nullopt,         \
              const std::optional<std::string> &out_dtype = std::nullopt,      \
              const std::optional<std::string> &out_name = std::nullopt);

/// `tensor_i0 + tensor_i1` with numpy broadcasting, TpuLang `add` (top.Add).
STRATA_TPULANG_DECLARE_BINARY(add)
/// `tensor_i0 - tensor_i1`, TpuLang `sub` (top.Sub).
STRATA_TPULANG_DECLARE_BINARY(sub)
/// `tensor_i0 * tensor_i1`, TpuLang `mul` (top.Mul).
STRATA_TPULANG_DECLARE_BINARY(mul)
/// Elementwise maximum, TpuLang `max` (top.Max).
STRATA_TPULANG_DECLARE_BINARY(max)
/// Elementwise minimum, TpuLang `min` (top.Min).
STRATA_TPULANG_DECLARE_BINARY(min)
#undef STRATA_TPULANG_DECLARE_BINARY

/// `tensor_i0 / tensor_i1` (integers truncate toward zero), TpuLang `div`
/// (top.Div).
Tensor div(const Tensor &tensor_i0, const Tensor &tensor_i1,
           const std::optional<std::string> &out_name = std::nullopt);
/// `tensor_i0 / scalar_i1`.
Tensor div(const Tensor &tensor_i0, double scalar_i1,
           const std::optional<std::string> &out_name = std::nullopt);
/// `scalar_i0 / tensor_i1`.
Tensor div(double scalar_i0, const Tensor &tensor_i1,
           const std::optional<std::string> &out_name = std::nullopt);

/// `tensor_i ^ exponent` (top.Pow). Float inputs.
Tensor pow(const Tensor &tensor_i, double exponent,
           const std::optional<std::string> &out_name = std::nullopt);

/// Declares TpuLang's comparison NAME (tensor-tensor) and NAMEs (tensor with
/// a scalar) (top.Compare). The result has the inputs' dtype holding 0 or 1,
/// as in TpuLang (bool inputs give bool). scale/zero_point must be
/// std::nullopt.
#define STRATA_TPULANG_DECLARE_COMPARE(NAME)                                   \
  Tensor NAME(const Tensor &tensor_i0, const Tensor &tensor_i1,                \
              const std::optional<FloatList> &scale = std::nullopt,            \
              const std::optional<IntList> &zero_point = std::nullopt,         \
              const std::optional<std::string> &out_name = std::nullopt);      \
  Tensor NAME##s(const Tensor &tensor_i0, double scalar_i1,                    \
                 const std::optional<FloatList> &scale = std::nullopt,         \
                 const std::optional<IntList> &zero_point = std::nullopt,      \
                 const std::optional<std::string> &out_name = std::nullopt);

/// `tensor_i0 > tensor_i1` (gt) and `tensor_i0 > scalar` (gts).
STRATA_TPULANG_DECLARE_COMPARE(gt)
/// `<` (lt, lts).
STRATA_TPULANG_DECLARE_COMPARE(lt)
/// `>=` (ge, ges).
STRATA_TPULANG_DECLARE_COMPARE(ge)
/// `<=` (le, les).
STRATA_TPULANG_DECLARE_COMPARE(le)
/// `==` (eq, eqs).
STRATA_TPULANG_DECLARE_COMPARE(eq)
/// `!=` (ne, nes).
STRATA_TPULANG_DECLARE_COMPARE(ne)
#undef STRATA_TPULANG_DECLARE_COMPARE

/// `cond ? tbrn : fbrn` with numpy broadcasting, TpuLang `cond_select`
/// (top.Where). A non-bool cond is compared with 0 first (top.Cast to bool).
Tensor cond_select(const Tensor &cond, const Tensor &tbrn, const Tensor &fbrn,
                   const std::optional<std::string> &out_name = std::nullopt);
/// cond_select with scalar branches (float32, or cond's dtype if not bool).
Tensor cond_select(const Tensor &cond, double tbrn, double fbrn,
                   const std::optional<std::string> &out_name = std::nullopt);
/// Alias of cond_select (numpy/ONNX name).
Tensor where(const Tensor &cond, const Tensor &x, const Tensor &y,
             const std::optional<std::string> &out_name = std::nullopt);

/// Element type conversion, TpuLang `cast` (top.Cast): floats to integers
/// truncate toward zero and saturate. round_mode is checked but Strata's
/// cast always truncates; "half_up"/"half_down" are rejected as in TpuLang.
Tensor cast(const Tensor &tensor_i, const std::string &out_dtype = "float32",
            const std::optional<std::string> &out_name = std::nullopt,
            const std::string &round_mode = "half_away_from_zero");

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// `max(x, 0)`, TpuLang `relu` (top.Relu). Any dtype.
Tensor relu(const Tensor &input,
            const std::optional<std::string> &out_name = std::nullopt);

/// `x >= 0 ? x : slope * x`, TpuLang `prelu` (top.PRelu); slope broadcasts
/// to input (per channel of NCHW: shape [C, 1, 1]).
Tensor prelu(const Tensor &input, const Tensor &slope,
             const std::optional<std::string> &out_name = std::nullopt);

/// `x >= 0 ? x : negative_slope * x`, TpuLang `leaky_relu`
/// (top.LeakyRelu). Float inputs.
Tensor leaky_relu(const Tensor &input, double negative_slope = 0.01,
                  const std::optional<std::string> &out_name = std::nullopt,
                  const std::string &round_mode = "half_away_from_zero");

/// `min(max(x, min), max)`, TpuLang `clamp` (top.Clip); min <= max.
Tensor clamp(const Tensor &input, double min, double max,
             const std::optional<std::string> &out_name = std::nullopt);
/// Alias of clamp (ONNX name).
Tensor clip(const Tensor &input, double min, double max,
            const std::optional<std::string> &out_name = std::nullopt);

/// Declares a float-only unary TpuLang activation NAME(input, scale,
/// zero_point, out_name); scale/zero_point must be std::nullopt.
#define STRATA_TPULANG_DECLARE_ACTIVATION(NAME)                                \
  Tensor NAME(const Tensor &input,                                             \
              const std::optional<FloatList> &scale = std::nullopt,            \
              const std::optional<IntList> &zero_point = std::nullopt,         \
              const std::optional<std::string> &out_name = std::nullopt);

/// `exp(x)` (top.Exp).
STRATA_TPULANG_DECLARE_ACTIVATION(exp)
/// Natural logarithm, TpuLang `ln` (top.Log).
STRATA_TPULANG_DECLARE_ACTIVATION(ln)
/// `sqrt(x)` (top.Sqrt).
STRATA_TPULANG_DECLARE_ACTIVATION(sqrt)
/// `1 / sqrt(x)` (top.Rsqrt).
STRATA_TPULANG_DECLARE_ACTIVATION(rsqrt)
/// `x * sigmoid(x)` (top.SiLU).
STRATA_TPULANG_DECLARE_ACTIVATION(silu)
/// Gauss error function (top.Erf).
STRATA_TPULANG_DECLARE_ACTIVATION(erf)
/// `x * clamp(x / 6 + 0.5, 0, 1)` (top.HardSwish).
STRATA_TPULANG_DECLARE_ACTIVATION(hswish)
#undef STRATA_TPULANG_DECLARE_ACTIVATION

/// Natural logarithm (alias of ln).
Tensor log(const Tensor &input,
           const std::optional<std::string> &out_name = std::nullopt);

/// `tanh(x)`, TpuLang `tanh` (top.Tanh). Float inputs.
Tensor tanh(const Tensor &input,
            const std::optional<FloatList> &scale = std::nullopt,
            const std::optional<IntList> &zero_point = std::nullopt,
            const std::optional<std::string> &out_name = std::nullopt,
            const std::string &round_mode = "half_away_from_zero");

/// `1 / (1 + exp(-x))`, TpuLang `sigmoid` (top.Sigmoid). Float inputs.
Tensor sigmoid(const Tensor &input,
               const std::optional<FloatList> &scale = std::nullopt,
               const std::optional<IntList> &zero_point = std::nullopt,
               const std::optional<std::string> &out_name = std::nullopt,
               const std::string &round_mode = "half_away_from_zero");

/// Exact (erf) GELU, TpuLang `gelu` (top.Gelu). Float inputs.
Tensor gelu(const Tensor &input,
            const std::optional<FloatList> &scale = std::nullopt,
            const std::optional<IntList> &zero_point = std::nullopt,
            const std::optional<std::string> &out_name = std::nullopt,
            const std::string &round_mode = "half_away_from_zero");

/// `clamp(x / 6 + 0.5, 0, 1)`, TpuLang `hsigmoid` (top.HardSigmoid with
/// alpha 1/6, beta 0.5).
Tensor hsigmoid(const Tensor &input,
                const std::optional<FloatList> &scale = std::nullopt,
                const std::optional<IntList> &zero_point = std::nullopt,
                const std::optional<std::string> &out_name = std::nullopt);

/// `x * x`, TpuLang `square` (top.Mul). scale/zero_point must be
/// std::nullopt.
Tensor square(const Tensor &input,
              const std::optional<FloatList> &scale = std::nullopt,
              const std::optional<IntList> &zero_point = std::nullopt,
              const std::optional<std::string> &out_name = std::nullopt);

/// `|x|`, TpuLang `abs` (top.Abs).
Tensor abs(const Tensor &input,
           const std::optional<std::string> &out_name = std::nullopt);

/// `-x` (top.Neg).
Tensor neg(const Tensor &input,
           const std::optional<std::string> &out_name = std::nullopt);

//===----------------------------------------------------------------------===//
// Softmax and normalization
//===----------------------------------------------------------------------===//

/// Softmax along `axis` (negative counts from the end), TpuLang `softmax`
/// (top.Softmax). Float inputs.
Tensor softmax(const Tensor &input, int64_t axis,
               const std::optional<std::string> &out_name = std::nullopt);

/// Log of softmax along `axis` (top.LogSoftmax). Float inputs.
Tensor log_softmax(const Tensor &input, int64_t axis,
                   const std::optional<std::string> &out_name = std::nullopt);

/// Inference batch normalization, TpuLang `batch_norm` (top.BatchNorm):
/// `(x - mean) / sqrt(variance + epsilon) * gamma + beta` per channel
/// (dim 1). gamma/beta default to 1/0. epsilon must be >= 0.
Tensor batch_norm(const Tensor &input, const Tensor &mean,
                  const Tensor &variance,
                  const std::optional<Tensor> &gamma = std::nullopt,
                  const std::optional<Tensor> &beta = std::nullopt,
                  double epsilon = 1e-5,
                  const std::optional<std::string> &out_name = std::nullopt);

/// Layer normalization over dims axis..rank-1, TpuLang `layer_norm`
/// (top.LayerNorm). TpuLang's default axis is 2.
Tensor layer_norm(const Tensor &input,
                  const std::optional<Tensor> &gamma = std::nullopt,
                  const std::optional<Tensor> &beta = std::nullopt,
                  double epsilon = 1e-5, int64_t axis = 2,
                  const std::optional<std::string> &out_name = std::nullopt);

/// Group normalization, TpuLang `group_norm` (top.GroupNorm): num_groups
/// (>= 1) must divide the channels (dim 1).
Tensor group_norm(const Tensor &input,
                  const std::optional<Tensor> &gamma = std::nullopt,
                  const std::optional<Tensor> &beta = std::nullopt,
                  double epsilon = 1e-5, int64_t num_groups = 1,
                  const std::optional<std::string> &out_name = std::nullopt);

//===----------------------------------------------------------------------===//
// Shape and data arrangement
//===----------------------------------------------------------------------===//

/// Reshape, TpuLang `reshape` (top.Reshape): one dim may be -1 (inferred),
/// 0 copies the input dim. The element count must be preserved.
Tensor reshape(const Tensor &tensor, const IntList &new_shape,
               const std::optional<std::string> &out_name = std::nullopt);

/// Transposes dims, TpuLang `permute` (top.Permute): output dim i is input
/// dim order[i].
Tensor permute(const Tensor &input, const IntList &order,
               const std::optional<std::string> &out_name = std::nullopt);

/// Joins tensors along axis (negative counts from the end), TpuLang
/// `concat` (top.Concat). All inputs need the same dtype. scales and
/// zero_points (quantized concat) must be std::nullopt; dtype and round_mode
/// are accepted for compatibility.
Tensor concat(const std::vector<Tensor> &inputs,
              const std::optional<FloatList> &scales = std::nullopt,
              const std::optional<IntList> &zero_points = std::nullopt,
              int64_t axis = 0,
              const std::optional<std::string> &out_name = std::nullopt,
              const std::string &dtype = "float32",
              const std::string &round_mode = "half_away_from_zero");

/// Cuts input into `num` (> 1) pieces along axis, TpuLang `split`
/// (top.Split): equal pieces when size is empty (num must divide the dim),
/// else pieces of the given sizes (num values summing to the dim). Results
/// are named "<out_name>_<i>".
std::vector<Tensor> split(const Tensor &input, int64_t axis = 0,
                          int64_t num = 1, const IntList &size = {},
                          const std::optional<std::string> &out_name =
                              std::nullopt);

/// Strided slice, TpuLang `slice` (top.Slice, ONNX semantics): starts,
/// ends, steps (default all 1, non-zero) and axes (default 0..n-1) have one
/// value each per sliced axis.
Tensor slice(const Tensor &input, const IntList &starts, const IntList &ends,
             const std::optional<IntList> &steps = std::nullopt,
             const std::optional<IntList> &axes = std::nullopt,
             const std::optional<std::string> &out_name = std::nullopt);

/// Pads every dim, TpuLang `pad` (top.Pad). padding has 2 * rank values,
/// all begins then all ends (ONNX order); default no padding. method is
/// "constant" (with value, default 0), "reflect" or "edge" ("symmetric" is
/// not supported).
Tensor pad(const Tensor &input, const std::string &method = "constant",
           const std::optional<double> &value = std::nullopt,
           const std::optional<IntList> &padding = std::nullopt,
           const std::optional<std::string> &out_name = std::nullopt);

/// Picks entries along axis by integer index, TpuLang `index_select`
/// (top.Gather, ONNX Gather semantics). keep_dims must be true.
Tensor index_select(const Tensor &input, const Tensor &index, int64_t axis = -1,
                    const std::optional<std::string> &out_name = std::nullopt,
                    bool keep_dims = true);

/// Repeats input reps[i] times along dim i, TpuLang `tile` (top.Tile).
Tensor tile(const Tensor &input, const IntList &reps,
            const std::optional<std::string> &out_name = std::nullopt);

/// Broadcasts input to the shape reps (numpy rules), TpuLang `broadcast`
/// (top.Expand).
Tensor broadcast(const Tensor &input, const IntList &reps,
                 const std::optional<std::string> &out_name = std::nullopt);
/// Nearest-neighbour upsampling of the last two dims by an integer scale,
/// TpuLang `upsample` (top.Resize, "asymmetric" coordinates).
Tensor upsample(const Tensor &input, int64_t scale = 2,
                const std::optional<std::string> &out_name = std::nullopt);

/// Alias of broadcast (ONNX name).
Tensor expand(const Tensor &input, const IntList &shape,
              const std::optional<std::string> &out_name = std::nullopt);

/// Reduction over axes, TpuLang `reduce` (top.Reduce). method is one of
/// "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"
/// (TpuLang's "ReduceL1"/"ReduceL2" are not supported).
Tensor reduce(const Tensor &input, const std::string &method = "ReduceSum",
              const IntList &axes = {1, 2}, bool keep_dims = true,
              const std::optional<std::string> &out_name = std::nullopt);

/// Index and value of the maximum ("max") or minimum ("min") along axis,
/// TpuLang `arg` (top.ArgMax, top.Reduce). Returns {indices, values}; as in
/// TpuLang the indices are float32 for float32 inputs, else int32; they are
/// named "<out_name>_ind" and "<out_name>_val".
std::pair<Tensor, Tensor>
arg(const Tensor &input, const std::string &method = "max", int64_t axis = 0,
    bool keep_dims = true,
    const std::optional<std::string> &out_name = std::nullopt);

/// Removes the given size-1 dims, TpuLang `squeeze` (as top.Reshape).
Tensor squeeze(const Tensor &tensor_i, const IntList &axis,
               const std::optional<std::string> &out_name = std::nullopt);

/// Inserts size-1 dims at axes (positions in the output), TpuLang
/// `unsqueeze` (as top.Reshape).
Tensor unsqueeze(const Tensor &input, const IntList &axes = {1, 2},
                 const std::optional<std::string> &out_name = std::nullopt);

/// Resize of the last two dims by scale_h / scale_w (> 0), TpuLang
/// `interpolate` (top.Resize). method is "nearest" or "linear"; coord_mode
/// one of "align_corners", "pytorch_half_pixel", "half_pixel",
/// "asymmetric".
Tensor interpolate(const Tensor &input, double scale_h, double scale_w,
                   const std::string &method = "nearest",
                   const std::string &coord_mode = "pytorch_half_pixel",
                   const std::optional<std::string> &out_name = std::nullopt);

/// Depth to space on NCHW input (top.DepthToSpace). block_h and block_w must
/// be equal (Strata's op has one blocksize); is_CRD picks "CRD" order, else
/// "DCR"; is_inversed gives space to depth (top.SpaceToDepth, DCR only).
/// in_is_NCHW and out_is_NCHW must be true.
Tensor depth2space(const Tensor &input, int64_t block_h, int64_t block_w,
                   bool is_CRD = false, bool is_inversed = false,
                   bool in_is_NCHW = true, bool out_is_NCHW = true,
                   bool swap_cr = false,
                   const std::optional<std::string> &out_name = std::nullopt);

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// Float to quantized integer, TpuLang `requant_fp_to_int` (top.Quant):
/// `q = clamp(round(x / scale) + offset)`, per tensor or per channel (dim 1).
/// out_dtype is the storage type ("int8", "uint8", "int16", ...). Strata
/// rounds half to even; requant_mode and round_mode are accepted for
/// compatibility.
Tensor requant_fp_to_int(const Tensor &tensor_i, const FloatOrList &scale,
                         const IntOrList &offset, int64_t requant_mode,
                         const std::string &out_dtype,
                         const std::optional<std::string> &out_name =
                             std::nullopt,
                         const std::string &round_mode = "half_away_from_zero");

/// Quantized integer to float, TpuLang `dequant_int_to_fp` (top.Dequant):
/// `x = (q - offset) * scale`. tensor_i is given these quantization
/// parameters (it must not be used by an op yet, or already carry them).
/// out_dtype must be "float32".
Tensor dequant_int_to_fp(const Tensor &tensor_i, const FloatOrList &scale,
                         const IntOrList &offset,
                         const std::string &out_dtype = "float32",
                         const std::optional<std::string> &out_name =
                             std::nullopt,
                         const std::string &round_mode = "half_away_from_zero");

/// Integer requantization, TpuLang `requant_int` (top.Requant):
/// `y = clamp(f(x) + offset)` with multiplier `mul` and shift `shift`, one
/// value or one per channel (dim 1), TpuLang's convention: a negative shift
/// is a right shift. requant_mode 0 (TFLite_LShift) and 1 (TFLite) are
/// TPU-MLIR's MultiplyByQuantizedMultiplier: a positive shift multiplies the
/// int32 input by 2^shift first (in int32, wrapping; at most 30), then
/// top.Requant "TFLite" by `mul` with rshift = -shift. requant_mode 2 is
/// "MultiplierShift" (shifts <= 0 only). out_dtype is "int8", "uint8",
/// "int16", ... out_scale (a Strata extension, conv_quant's) is the result's
/// scale; with out_scale or a non-zero offset the result is quantized
/// (scale out_scale or 1.0, zero point offset).
Tensor requant_int(const Tensor &tensor_i, const IntOrList &mul,
                   const IntOrList &shift, const IntOrList &offset,
                   int64_t requant_mode, const std::string &out_dtype = "int8",
                   const std::optional<std::string> &out_name = std::nullopt,
                   const std::string &round_mode = "half_away_from_zero",
                   const std::optional<FloatOrList> &out_scale = std::nullopt);

//===----------------------------------------------------------------------===//
// Composite functions
//===----------------------------------------------------------------------===//

/// A converter attribute of a composite: a bool, an integer, a float or a
/// string (a class rather than a variant so that "tanh" stays a string).
class CompositeAttr {
public:
  CompositeAttr(bool v) : value(v) {}
  CompositeAttr(int v) : value(static_cast<int64_t>(v)) {}
  CompositeAttr(int64_t v) : value(v) {}
  CompositeAttr(double v) : value(v) {}
  CompositeAttr(const char *v) : value(std::string(v)) {}
  CompositeAttr(std::string v) : value(std::move(v)) {}
  const std::variant<bool, int64_t, double, std::string> &get() const {
    return value;
  }

private:
  std::variant<bool, int64_t, double, std::string> value;
};
/// Converter attributes by name.
using CompositeAttrs = std::map<std::string, CompositeAttr>;
/// Builds a composite's body from its arguments.
using CompositeBody =
    std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;

/// Declares a composite op (the graph-API form of TensorFlow's
/// `tf.function(experimental_implements=...)`): `body` is called once with
/// one argument tensor per entry of `inputs` (same shapes and dtypes) and
/// builds the computation op by op; it becomes a private function marked
/// `strata.implements = name` (with `attrs` as `strata.composite_attributes`)
/// and the graph gets a call of it on `inputs`. The optimizer
/// (`top-fuse-composites`) replaces a composite whose name has a registered
/// converter by the fused op (e.g. "layer_norm" -> top.LayerNorm, see
/// docs/optimize.md); other composites are inlined as built.
///  - name: the interface implemented, non-empty.
///  - inputs: at least one tensor; graph inputs, coeffs or op results.
///  - body: may use only its arguments and coeff tensors created inside it
///    (a tensor of the enclosing graph is rejected); returns at least one
///    tensor, each computed from the arguments.
///  - out_name: the result name (results "<name>_<i>" when there are
///    several); std::nullopt generates one.
/// Tensors created inside the body cannot be used outside it. Returns the
/// call's results.
std::vector<Tensor> composite(const std::string &name,
                              const std::vector<Tensor> &inputs,
                              const CompositeBody &body,
                              const CompositeAttrs &attrs = {},
                              const std::optional<std::string> &out_name =
                                  std::nullopt);

} // namespace strata::tpulang

#endif // STRATA_TPULANG_TPULANG_H
