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
#include <string_view>

namespace strata {

/// A context with every dialect Strata's IR uses loaded.
void registerAndLoadDialects(mlir::MLIRContext &context);

/// Deepest bracket nesting ('(', '[', '{', '<') a .mlir file may have; deeper
/// files are refused before parsing (the parser recurses per level).
constexpr unsigned kMaxMlirNesting = 256;

/// Reads (as an InputFile: a regular file within the size limit), parses and
/// verifies a module, and checks its static types against the element limit.
/// A NUL byte or nesting deeper than kMaxMlirNesting is refused before
/// parsing. Errors go to the context's diagnostics.
/// Refuses .mlir text the parser must not see: a NUL byte, a zip archive,
/// or brackets nested deeper than kMaxMlirNesting (the parser recurses per
/// level and would overflow the stack). Strings and comments are skipped;
/// "->" is not a bracket. MLIR bytecode (magic "ML\xefR") skips these text
/// checks; it is read and verified first in a child process
/// (checkBytecodeInChild, with `context`'s dialects), and parseModuleText
/// refuses its regions nested deeper than kMaxMlirNesting after reading.
/// Errors go to `context`'s diagnostics, located at `path`.
mlir::LogicalResult checkMlirText(std::string_view text,
                                  const std::string &path,
                                  mlir::MLIRContext &context);

mlir::OwningOpRef<mlir::ModuleOp> parseModuleFile(const std::string &path,
                                                  mlir::MLIRContext &context);
/// parseModuleFile's checks, parse and verification on text in memory;
/// `name` names it in diagnostics.
mlir::OwningOpRef<mlir::ModuleOp> parseModuleText(std::string_view text,
                                                  const std::string &name,
                                                  mlir::MLIRContext &context);

/// The weight file of `module` loaded from `mlirPath`: its `top.weight_file`
/// attribute resolved inside the .mlir's folder (absolute paths, '..' and
/// symlinks leading out of the folder are refused: a model may only name
/// files beside it; others are given with --weights), or "" if it has none.
/// On a refused path returns failure and sets `error`.
mlir::FailureOr<std::string> weightFileFor(mlir::ModuleOp module,
                                           const std::string &mlirPath,
                                           std::string &error);

/// Reads a Top model for a tool: parses `mlirPath` (parseModuleFile) and
/// loads its weights from `weightsPath` when given, else from the file its
/// top.weight_file names (weightFileFor). A module with a top.Weight whose
/// data is not inline and no weight file is an error that says so. On failure
/// returns failure and sets `error` (parse errors also go to the context's
/// diagnostics).
mlir::LogicalResult loadTopModel(const std::string &mlirPath,
                                 const std::string &weightsPath,
                                 mlir::MLIRContext &context,
                                 mlir::OwningOpRef<mlir::ModuleOp> &module,
                                 TensorMap &weights, std::string &error);

/// Prints `module` (with locations, so tensor names survive) to `path`,
/// writing a temporary file and renaming it so no partial file is left.
mlir::LogicalResult writeModuleFile(mlir::ModuleOp module,
                                    const std::string &path,
                                    std::string &error);

/// Writes `module` as `DIR/<mlirFile>` with its weights in
/// `DIR/<weightFile>`, first setting the module attributes top.name (`name`)
/// and top.weight_file. The npz is written first; both appear whole or not
/// at all.
mlir::LogicalResult
writeModelPair(mlir::ModuleOp module, const TensorMap &weights,
               const std::string &dir, const std::string &name,
               const std::string &mlirFile, const std::string &weightFile,
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
