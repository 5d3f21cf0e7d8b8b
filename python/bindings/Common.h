//===- Common.h - Shared helpers of the strata._core bindings ---*- C++ -*-===//
//
// numpy arrays <-> strata::Tensor, the exception that becomes strata.Error,
// and the registration functions of the binding files.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_PYTHON_COMMON_H
#define STRATA_PYTHON_COMMON_H

#include "strata/Support/Npz.h"
#include "strata/Support/Tensor.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
// Every type caster the bindings use, in every file (one definition each).
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>

namespace strata::python {
namespace nb = nanobind;

/// Thrown by the bindings; Python sees strata.Error (a ValueError) with the
/// message.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Any CPU array, read only; dtype, shape and strides are checked by hand so
/// that errors name the input.
using InArray = nb::ndarray<nb::ro, nb::device::cpu>;
/// A numpy array returned to Python.
using OutArray = nb::ndarray<nb::numpy>;

/// The Strata dtype of `a`; throws naming `what` for a dtype Strata lacks.
DType dtypeOf(const InArray &a, const std::string &what);

/// A Python object read as a CPU array: numpy arrays of every dtype Strata
/// has, and ml_dtypes' bfloat16 arrays (which neither DLPack nor the buffer
/// protocol describe) through a uint16 view of the same memory.
struct HostArray {
  InArray array;
  DType dtype = DType::F32;
  nb::object view; ///< keeps the bfloat16 array's uint16 view alive
};

/// Reads `value` into `out` without a copy; false if it is not an array on
/// the CPU. Throws naming `what` for a dtype Strata lacks.
bool castArray(nb::handle value, HostArray &out, const std::string &what);
/// Throws naming `what` unless `a` is C-contiguous.
void requireContiguous(const InArray &a, const std::string &what);
/// The shape of `a`.
std::vector<int64_t> shapeOf(const InArray &a);
/// A copy of `a` as a Tensor (C-contiguous arrays only).
Tensor toTensor(const HostArray &a, const std::string &what);
/// A copy of the array `value` as a Tensor; throws naming `what` if it is
/// not a CPU array.
Tensor toTensor(nb::handle value, const std::string &what);
/// A numpy array that owns `t`'s storage (no copy); bfloat16 as ml_dtypes'
/// bfloat16 when ml_dtypes is installed, else as its uint16 bits.
nb::object toNumpy(Tensor t);
/// `{name: array}` of a TensorMap, and back.
nb::dict toDict(const TensorMap &map);
TensorMap fromDict(const nb::dict &arrays, const std::string &what);

void registerCompiler(nb::module_ &m);
void registerRuntime(nb::module_ &m);
void registerTpuLang(nb::module_ &m);

} // namespace strata::python

#endif // STRATA_PYTHON_COMMON_H
