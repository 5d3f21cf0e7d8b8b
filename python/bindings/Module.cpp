//===- Module.cpp - strata._core ------------------------------------------===//
//
// The native module of the Python package: array conversions, strata.Error,
// and the submodules' registration (Compiler.cpp, Runtime.cpp, TpuLang.cpp).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "strata/TpuLang/TpuLang.h"

namespace strata::python {

static std::optional<DType> fromDlpack(nb::dlpack::dtype t) {
  using Code = nb::dlpack::dtype_code;
  if (t.lanes != 1)
    return std::nullopt;
  switch (static_cast<Code>(t.code)) {
  case Code::Bool:
    return t.bits == 8 ? std::optional(DType::Bool) : std::nullopt;
  case Code::Float:
    if (t.bits == 16)
      return DType::F16;
    if (t.bits == 32)
      return DType::F32;
    if (t.bits == 64)
      return DType::F64;
    return std::nullopt;
  case Code::Bfloat:
    return t.bits == 16 ? std::optional(DType::BF16) : std::nullopt;
  case Code::Int:
    if (t.bits == 8)
      return DType::I8;
    if (t.bits == 16)
      return DType::I16;
    if (t.bits == 32)
      return DType::I32;
    if (t.bits == 64)
      return DType::I64;
    return std::nullopt;
  case Code::UInt:
    if (t.bits == 8)
      return DType::U8;
    if (t.bits == 16)
      return DType::U16;
    if (t.bits == 32)
      return DType::U32;
    if (t.bits == 64)
      return DType::U64;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

static nb::dlpack::dtype toDlpack(DType type) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code c, unsigned bits) {
    nb::dlpack::dtype d;
    d.code = static_cast<uint8_t>(c);
    d.bits = static_cast<uint8_t>(bits);
    d.lanes = 1;
    return d;
  };
  switch (type) {
  case DType::Bool:
    return make(Code::Bool, 8);
  case DType::F16:
    return make(Code::Float, 16);
  case DType::F32:
    return make(Code::Float, 32);
  case DType::F64:
    return make(Code::Float, 64);
  case DType::BF16:
    return make(Code::Bfloat, 16);
  case DType::I8:
    return make(Code::Int, 8);
  case DType::I16:
    return make(Code::Int, 16);
  case DType::I32:
    return make(Code::Int, 32);
  case DType::I64:
    return make(Code::Int, 64);
  case DType::U8:
    return make(Code::UInt, 8);
  case DType::U16:
    return make(Code::UInt, 16);
  case DType::U32:
    return make(Code::UInt, 32);
  case DType::U64:
    return make(Code::UInt, 64);
  default:
    throw Error(std::string("a tensor of dtype ") + dtypeName(type) +
                " cannot be returned as a numpy array yet (Strata's Python "
                "package supports bool, int8-64, uint8-64, float16/32/64, "
                "bfloat16)");
  }
}

DType dtypeOf(const InArray &a, const std::string &what) {
  std::optional<DType> type = fromDlpack(a.dtype());
  if (!type)
    throw Error(what + " has a dtype Strata does not take (code " +
                std::to_string(a.dtype().code) + ", " +
                std::to_string(a.dtype().bits) +
                " bits); use bool, int8-64, uint8-64, float16/32/64");
  return *type;
}

std::vector<int64_t> shapeOf(const InArray &a) {
  std::vector<int64_t> shape(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i)
    shape[i] = static_cast<int64_t>(a.shape(i));
  return shape;
}

void requireContiguous(const InArray &a, const std::string &what) {
  int64_t expected = 1;
  for (size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected)
      throw Error(what + " is not C-contiguous (strides in elements: " + [&] {
        std::string s = "[";
        for (size_t j = 0; j < a.ndim(); ++j)
          s += (j ? ", " : "") + std::to_string(a.stride(j));
        return s + "]";
      }() + "); pass numpy.ascontiguousarray(...)");
    expected *= static_cast<int64_t>(a.shape(i));
  }
}

/// ml_dtypes.bfloat16 (a numpy dtype), or None without ml_dtypes. Looked up
/// once; the reference is kept for the process's life.
static nb::handle bfloat16Dtype() {
  static PyObject *dtype = [] {
    try {
      nb::object t = nb::module_::import_("numpy").attr("dtype")(
          nb::module_::import_("ml_dtypes").attr("bfloat16"));
      return t.release().ptr();
    } catch (const nb::python_error &) {
      Py_INCREF(Py_None);
      return Py_None;
    }
  }();
  return dtype;
}

bool castArray(nb::handle value, HostArray &out, const std::string &what) {
  if (nb::try_cast(value, out.array)) {
    out.dtype = dtypeOf(out.array, what);
    return true;
  }
  // ml_dtypes' bfloat16: the same memory seen as uint16.
  nb::handle bf16 = bfloat16Dtype();
  if (bf16.is_none() || !nb::hasattr(value, "dtype") ||
      !value.attr("dtype").equal(bf16))
    return false;
  out.view = value.attr("view")("uint16");
  if (!nb::try_cast(out.view, out.array))
    return false;
  out.dtype = DType::BF16;
  return true;
}

Tensor toTensor(const HostArray &a, const std::string &what) {
  requireContiguous(a.array, what);
  Tensor t(a.dtype, shapeOf(a.array));
  if (t.byteSize())
    std::memcpy(t.raw(), a.array.data(), t.byteSize());
  return t;
}

Tensor toTensor(nb::handle value, const std::string &what) {
  HostArray a;
  if (!castArray(value, a, what))
    throw Error(what + " is not an array on the CPU (" +
                nb::cast<std::string>(nb::str(value.type())) + ")");
  return toTensor(a, what);
}

nb::object toNumpy(Tensor t) {
  // numpy has no bfloat16: its bits as uint16, viewed as ml_dtypes' bfloat16
  // below when that is installed (no copy either way).
  bool bf16 = t.dtype() == DType::BF16;
  nb::dlpack::dtype dtype = toDlpack(bf16 ? DType::U16 : t.dtype());
  if (!t.raw()) // an empty tensor: give numpy a valid pointer
    t = Tensor(t.dtype(), t.shape());
  auto *owner = new Tensor(std::move(t));
  nb::capsule capsule(
      owner, [](void *p) noexcept { delete static_cast<Tensor *>(p); });
  std::vector<size_t> shape(owner->shape().begin(), owner->shape().end());
  static char emptyStorage;
  void *data = owner->raw() ? owner->raw() : &emptyStorage;
  // The capsule owns the storage: the array refers to it without a copy.
  nb::object array = nb::cast(
      OutArray(data, shape.size(), shape.data(), capsule, nullptr, dtype),
      nb::rv_policy::reference);
  if (bf16 && !bfloat16Dtype().is_none())
    return array.attr("view")(bfloat16Dtype());
  return array;
}

nb::dict toDict(const TensorMap &map) {
  nb::dict d;
  for (const auto &[name, tensor] : map)
    d[nb::str(name.c_str())] = toNumpy(tensor);
  return d;
}

TensorMap fromDict(const nb::dict &arrays, const std::string &what) {
  TensorMap map;
  for (auto [key, value] : arrays) {
    if (!nb::isinstance<nb::str>(key))
      throw Error(what + ": keys must be input names (str)");
    std::string name = nb::cast<std::string>(key);
    map.set(name, toTensor(value, what + " '" + name + "'"));
  }
  return map;
}

} // namespace strata::python

using namespace strata::python;

NB_MODULE(_core, m) {
  m.doc() = "Strata's native module (strata._core); use the strata package.";
  static nb::exception<Error> error(m, "Error", PyExc_ValueError);
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const strata::tpulang::Error &e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  registerCompiler(m);
  registerRuntime(m);
  nb::module_ tl = m.def_submodule("tpulang", "The C++ TpuLang graph API.");
  registerTpuLang(tl);
}
