//===- ModelIO.h - reading and writing Top models ---------------*- C++ -*-===//
//
// A Top model is a pair of files: `<name>_origin.mlir` (or `<name>.mlir`) and
// the weight npz its module attribute `top.weight_file` names, resolved
// relative to the .mlir's folder.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_PIPELINES_MODELIO_H
#define STRATA_PIPELINES_MODELIO_H

#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace strata {

/// A context with every dialect Strata's IR uses loaded.
void registerAndLoadDialects(mlir::MLIRContext &context);

/// Parses and verifies a module; errors go to the context's diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleFile(const std::string &path,
                                                  mlir::MLIRContext &context);

/// The weight file of `module` loaded from `mlirPath`: the `top.weight_file`
/// attribute resolved against the .mlir's folder, or "" if there is none.
std::string weightFileFor(mlir::ModuleOp module, const std::string &mlirPath);

/// Prints `module` (with locations, so tensor names survive) to `path`,
/// writing a temporary file and renaming it so no partial file is left.
mlir::LogicalResult writeModuleFile(mlir::ModuleOp module,
                                    const std::string &path,
                                    std::string &error);

/// Writes `module` as `DIR/<mlirFile>` with its weights in
/// `DIR/<weightFile>`, first setting the module attributes top.name (`name`)
/// and top.weight_file. The npz is written first; both appear whole or not
/// at all.
mlir::LogicalResult writeModelPair(mlir::ModuleOp module,
                                   const TensorMap &weights,
                                   const std::string &dir,
                                   const std::string &name,
                                   const std::string &mlirFile,
                                   const std::string &weightFile,
                                   std::string &error);

/// Writes a Top model as the pair `DIR/<name>_origin.mlir` and
/// `DIR/<name>_TOP_F32_all_weight.npz`, first setting the module attributes
/// top.name and top.weight_file. The npz is written first; both appear whole
/// or not at all.
mlir::LogicalResult writeTopModel(mlir::ModuleOp module,
                                  const TensorMap &weights,
                                  const std::string &dir,
                                  const std::string &name, std::string &error);

} // namespace strata

#endif // STRATA_PIPELINES_MODELIO_H
