//===- HostDType.h - runtime dtypes <-> host tensor dtypes ------*- C++ -*-===//
//
// The one mapping between the runtime's C dtypes (strata_runtime.h) and
// Strata's host tensor dtypes (strata/Support/Tensor.h), for the code that
// moves host tensors in and out of runtime sessions: the strata tool's
// run/inspect/check-equiv commands and the Python package's Session.
// Header-only; needs no library beyond the runtime's.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_RUNTIME_HOSTDTYPE_H
#define STRATA_RUNTIME_HOSTDTYPE_H

#include "strata/Runtime/strata_runtime.h"
#include "strata/Support/Tensor.h"

#include <optional>

namespace strata::rt {

/// The runtime's dtype for a host tensor's. Both store the narrow types
/// (int4, float8, ...) one byte per element, in the same layout.
inline std::optional<strata_dtype> toRuntimeDType(DType t) {
  switch (t) {
  case DType::F32:
    return STRATA_DTYPE_F32;
  case DType::F16:
    return STRATA_DTYPE_F16;
  case DType::BF16:
    return STRATA_DTYPE_BF16;
  case DType::F64:
    return STRATA_DTYPE_F64;
  case DType::I8:
    return STRATA_DTYPE_I8;
  case DType::U8:
    return STRATA_DTYPE_U8;
  case DType::I16:
    return STRATA_DTYPE_I16;
  case DType::U16:
    return STRATA_DTYPE_U16;
  case DType::I32:
    return STRATA_DTYPE_I32;
  case DType::U32:
    return STRATA_DTYPE_U32;
  case DType::I64:
    return STRATA_DTYPE_I64;
  case DType::U64:
    return STRATA_DTYPE_U64;
  case DType::Bool:
    return STRATA_DTYPE_BOOL;
  case DType::I4:
    return STRATA_DTYPE_I4;
  case DType::U4:
    return STRATA_DTYPE_U4;
  case DType::I2:
    return STRATA_DTYPE_I2;
  case DType::U2:
    return STRATA_DTYPE_U2;
  case DType::F8E4M3FN:
    return STRATA_DTYPE_F8E4M3FN;
  case DType::F8E4M3FNUZ:
    return STRATA_DTYPE_F8E4M3FNUZ;
  case DType::F8E5M2:
    return STRATA_DTYPE_F8E5M2;
  case DType::F8E5M2FNUZ:
    return STRATA_DTYPE_F8E5M2FNUZ;
  case DType::F4E2M1FN:
    return STRATA_DTYPE_F4E2M1FN;
  case DType::F8E8M0FNU:
    return STRATA_DTYPE_F8E8M0FNU;
  }
  return std::nullopt;
}

/// The host tensor dtype for a runtime dtype; nullopt for an unknown one.
inline std::optional<DType> fromRuntimeDType(strata_dtype t) {
  switch (t) {
  case STRATA_DTYPE_F32:
    return DType::F32;
  case STRATA_DTYPE_F16:
    return DType::F16;
  case STRATA_DTYPE_BF16:
    return DType::BF16;
  case STRATA_DTYPE_F64:
    return DType::F64;
  case STRATA_DTYPE_I8:
    return DType::I8;
  case STRATA_DTYPE_U8:
    return DType::U8;
  case STRATA_DTYPE_I16:
    return DType::I16;
  case STRATA_DTYPE_U16:
    return DType::U16;
  case STRATA_DTYPE_I32:
    return DType::I32;
  case STRATA_DTYPE_U32:
    return DType::U32;
  case STRATA_DTYPE_I64:
    return DType::I64;
  case STRATA_DTYPE_U64:
    return DType::U64;
  case STRATA_DTYPE_BOOL:
    return DType::Bool;
  case STRATA_DTYPE_I4:
    return DType::I4;
  case STRATA_DTYPE_U4:
    return DType::U4;
  case STRATA_DTYPE_I2:
    return DType::I2;
  case STRATA_DTYPE_U2:
    return DType::U2;
  case STRATA_DTYPE_F8E4M3FN:
    return DType::F8E4M3FN;
  case STRATA_DTYPE_F8E4M3FNUZ:
    return DType::F8E4M3FNUZ;
  case STRATA_DTYPE_F8E5M2:
    return DType::F8E5M2;
  case STRATA_DTYPE_F8E5M2FNUZ:
    return DType::F8E5M2FNUZ;
  case STRATA_DTYPE_F4E2M1FN:
    return DType::F4E2M1FN;
  case STRATA_DTYPE_F8E8M0FNU:
    return DType::F8E8M0FNU;
  default:
    return std::nullopt;
  }
}

} // namespace strata::rt

#endif // STRATA_RUNTIME_HOSTDTYPE_H
