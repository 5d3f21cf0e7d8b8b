//===- NpuConfigJson.h - reading an NpuConfig from JSON ---------*- C++ -*-===//
//
// The compiler-side reader of `--npu-config FILE` (docs/npu.md has the
// schema). Every field is optional and defaults to defaultNpuConfig(); an
// unknown field, a value of the wrong JSON type or an impossible value is an
// error naming the file, the field and the value.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_NPU_NPUCONFIGJSON_H
#define STRATA_NPU_NPUCONFIGJSON_H

#include "strata/Npu/NpuConfig.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace strata::npu {

/// Parses `text` (the contents of `fileName`, used in messages).
llvm::Expected<NpuConfig> parseNpuConfigJson(llvm::StringRef text,
                                             llvm::StringRef fileName);

/// Writes `config` as the JSON that parseNpuConfigJson reads back.
std::string printNpuConfigJson(const NpuConfig &config);

} // namespace strata::npu

#endif // STRATA_NPU_NPUCONFIGJSON_H
