//===- TpuLang.cpp - strata._core.tpulang: the C++ TpuLang graph API ------===//
//
// Binds include/strata/TpuLang/TpuLang.h positionally; strata/tpulang.py
// gives the functions TPU-MLIR's Python names, parameter names, order and
// defaults. strata::tpulang::Error becomes strata.Error (Module.cpp).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "strata/Dialect/Top/Transforms/QuantUtils.h"
#include "strata/TpuLang/TpuLang.h"

namespace strata::python {
namespace tl = strata::tpulang;

using OptS = std::optional<std::string>;
using OptF = std::optional<tl::FloatList>;
using OptI = std::optional<tl::IntList>;
using T = tl::Tensor;

static std::optional<tl::TensorData> tensorData(const nb::object &data) {
  if (data.is_none())
    return std::nullopt;
  // Any array-like, as numpy.asarray reads it (the data is copied anyway).
  nb::object array = data;
  if (!nb::isinstance<nb::str>(data) && !nb::isinstance<nb::bytes>(data)) {
    try {
      array = nb::module_::import_("numpy").attr("ascontiguousarray")(data);
    } catch (const nb::python_error &) {
      array = data;
    }
  }
  HostArray a;
  if (!castArray(array, a, "Tensor: parameter 'data'"))
    throw Error("Tensor: parameter 'data' must be a numpy array, not " +
                nb::cast<std::string>(nb::str(data.type())));
  return tl::TensorData(toTensor(a, "Tensor: parameter 'data'"));
}

void registerTpuLang(nb::module_ &m) {
  m.def("init", &tl::init, nb::arg("platform"));
  m.def("deinit", &tl::deinit);

  nb::class_<T>(m, "Tensor", "A tensor of the TpuLang graph.")
      .def(
          "__init__",
          [](T *self, tl::IntList shape, OptS name, std::string ttype,
             nb::object data, std::string dtype,
             std::optional<tl::FloatOrList> scale,
             std::optional<tl::IntOrList> zero_point) {
            new (self) T(std::move(shape), std::move(dtype), std::move(name),
                         tensorData(data), std::move(ttype), std::move(scale),
                         std::move(zero_point));
          },
          nb::arg("shape") = tl::IntList{}, nb::arg("name").none() = nb::none(),
          nb::arg("ttype") = "neuron", nb::arg("data").none() = nb::none(),
          nb::arg("dtype") = "float32", nb::arg("scale").none() = nb::none(),
          nb::arg("zero_point").none() = nb::none(),
          "A graph input (ttype \"neuron\") or a constant (\"coeff\", with "
          "data), in TPU-MLIR's parameter order. A list scale / zero_point "
          "is per channel along the dim of the tensor's role: dim 0 (output "
          "channels) for a convolution weight, else dim 1; a negative scale "
          "is taken by its magnitude, as TPU-MLIR does.")
      .def_prop_ro("shape", &T::shape, "The shape (inferred for op results).")
      .def_prop_ro("dtype", &T::dtype)
      .def_prop_ro("name", &T::name)
      .def_prop_ro("ttype", &T::ttype, "\"neuron\" or \"coeff\".")
      .def_prop_ro(
          "buffer",
          [](const T &t) -> nb::object {
            if (!t.data())
              return nb::none();
            return toNumpy(t.data()->clone());
          },
          "A copy of the tensor's data (None without data).")
      .def_prop_ro("is_quantized", &T::is_quantized)
      .def_prop_ro("scale", &T::scale)
      .def_prop_ro("zero_point", &T::zero_point)
      .def("quantization", &T::quantization,
           nb::arg("scale").none() = nb::none(),
           nb::arg("zero_point").none() = nb::none(),
           "Sets the tensor's scale and zero point.")
      .def("__eq__", [](const T &a, const T &b) { return a == b; })
      .def("__hash__",
           [](const T &t) { return std::hash<std::string>()(t.name()); })
      .def("__repr__", [](const T &t) {
        std::string s = "Tensor(name='" + t.name() + "', shape=[";
        for (size_t i = 0; i < t.shape().size(); ++i)
          s += (i ? ", " : "") + std::to_string(t.shape()[i]);
        return s + "], dtype='" + t.dtype() + "', ttype='" + t.ttype() + "')";
      });

  m.def("compile", &tl::compile);
  m.def("module_text", &tl::module_text);

  m.def("conv_v2", &tl::conv_v2);
  m.def("conv", &tl::conv);
  m.def("deconv", &tl::deconv);
  m.def("matmul", &tl::matmul);
  m.def("maxpool2d", &tl::maxpool2d);
  m.def("maxpool", &tl::maxpool);
  m.def("avgpool2d", &tl::avgpool2d);
  m.def("avgpool", &tl::avgpool);

#define BINARY(NAME)                                                           \
  m.def(#NAME,                                                                 \
        static_cast<T (*)(const T &, const T &, const OptF &, const OptI &,    \
                          const OptS &, const OptS &)>(&tl::NAME));            \
  m.def(#NAME,                                                                 \
        static_cast<T (*)(const T &, double, const OptF &, const OptI &,       \
                          const OptS &, const OptS &)>(&tl::NAME));            \
  m.def(#NAME,                                                                 \
        static_cast<T (*)(double, const T &, const OptF &, const OptI &,       \
                          const OptS &, const OptS &)>(&tl::NAME));
  BINARY(add)
  BINARY(sub)
  BINARY(mul)
  BINARY(max)
  BINARY(min)
#undef BINARY
  m.def("div",
        static_cast<T (*)(const T &, const T &, const OptS &)>(&tl::div));
  m.def("div", static_cast<T (*)(const T &, double, const OptS &)>(&tl::div));
  m.def("div", static_cast<T (*)(double, const T &, const OptS &)>(&tl::div));
  m.def("pow", &tl::pow);
#define COMPARE(NAME)                                                          \
  m.def(#NAME, &tl::NAME);                                                     \
  m.def(#NAME "s", &tl::NAME##s);
  COMPARE(gt)
  COMPARE(lt)
  COMPARE(ge)
  COMPARE(le)
  COMPARE(eq)
  COMPARE(ne)
#undef COMPARE
  m.def("cond_select",
        static_cast<T (*)(const T &, const T &, const T &, const OptS &)>(
            &tl::cond_select));
  m.def("cond_select",
        static_cast<T (*)(const T &, double, double, const OptS &)>(
            &tl::cond_select));
  m.def("where", &tl::where);
  m.def("cast", &tl::cast);

  m.def("relu", &tl::relu);
  m.def("prelu", &tl::prelu);
  m.def("leaky_relu", &tl::leaky_relu);
  m.def("clamp", &tl::clamp);
  m.def("clip", &tl::clip);
  m.def("exp", &tl::exp);
  m.def("ln", &tl::ln);
  m.def("log", &tl::log);
  m.def("sqrt", &tl::sqrt);
  m.def("rsqrt", &tl::rsqrt);
  m.def("silu", &tl::silu);
  m.def("erf", &tl::erf);
  m.def("hswish", &tl::hswish);
  m.def("tanh", &tl::tanh);
  m.def("sigmoid", &tl::sigmoid);
  m.def("gelu", &tl::gelu);
  m.def("hsigmoid", &tl::hsigmoid);
  m.def("square", &tl::square);
  m.def("abs", &tl::abs);
  m.def("neg", &tl::neg);

  m.def("softmax", &tl::softmax);
  m.def("log_softmax", &tl::log_softmax);
  m.def("batch_norm", &tl::batch_norm);
  m.def("layer_norm", &tl::layer_norm);
  m.def("group_norm", &tl::group_norm);

  m.def("reshape", &tl::reshape);
  m.def("permute", &tl::permute);
  m.def("concat", &tl::concat);
  m.def("split", &tl::split);
  m.def("slice", &tl::slice);
  m.def("pad", &tl::pad);
  m.def("index_select", &tl::index_select);
  m.def("tile", &tl::tile);
  m.def("broadcast", &tl::broadcast);
  m.def("upsample", &tl::upsample);
  m.def("expand", &tl::expand);
  m.def("reduce", &tl::reduce);
  m.def("arg", &tl::arg);
  m.def("squeeze", &tl::squeeze);
  m.def("unsqueeze", &tl::unsqueeze);
  m.def("interpolate", &tl::interpolate);
  m.def("depth2space", &tl::depth2space);

  m.def("requant_fp_to_int", &tl::requant_fp_to_int);
  m.def("dequant_int_to_fp", &tl::dequant_int_to_fp);
  m.def("requant_int", &tl::requant_int);
  m.def("multiplier_shift", &calib::multiplierShift, nb::arg("real"),
        "top-quantize's (multiplier, right shift) for a real rescale factor: "
        "multiplier / 2^shift nearest to it, multiplier in [2^30, 2^31).");
}

} // namespace strata::python
