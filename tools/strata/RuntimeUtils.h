//===- RuntimeUtils.h - strata run/inspect helpers --------------*- C++ -*-===//
//
// Moving Strata's host tensors (strata/Support/Tensor.h) in and out of
// runtime sessions for the commands that use the runtime; the dtype mapping
// is strata/Runtime/HostDType.h.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOOLS_STRATA_RUNTIMEUTILS_H
#define STRATA_TOOLS_STRATA_RUNTIMEUTILS_H

#include "strata/Runtime/HostDType.h"
#include "strata/Runtime/Runtime.hpp"
#include "strata/Runtime/strata_runtime.h"
#include "strata/Support/Npz.h"
#include "strata/Support/Tensor.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace strata::cli {

using rt::fromRuntimeDType;
using rt::toRuntimeDType;

/// "[1, -1, 4]" (the runtime's spelling; -1 is a dim decided per variant).
inline std::string shapeString(size_t rank, const int64_t *dims) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

/// Binds every array of `inputs` to the model input of its name (errors
/// start with `tool` and name the file `from`); fails on an array no input
/// has, a dtype the runtime has no type for, the runtime's checks (dtype,
/// shape), and on inputs `inputs` lacks.
bool bindInputs(llvm::StringRef tool, const rt::Model &m, rt::Session &session,
                const TensorMap &inputs, const std::string &from);

/// The outputs of the session's last run as named host tensors.
bool collectOutputs(llvm::StringRef tool, const rt::Model &m,
                    const rt::Session &session, TensorMap &out);

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_RUNTIMEUTILS_H
