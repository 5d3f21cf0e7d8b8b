//===- Commands.h - the strata CLI's subcommands ----------------*- C++ -*-===//

#ifndef STRATA_TOOLS_STRATA_COMMANDS_H
#define STRATA_TOOLS_STRATA_COMMANDS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"

#include <map>
#include <string>
#include <vector>

namespace strata::cli {

extern llvm::cl::SubCommand RunRefCommand;
int runRef();

extern llvm::cl::SubCommand CompareCommand;
int compare();

extern llvm::cl::SubCommand CheckEquivCommand;
int checkEquiv();

extern llvm::cl::SubCommand ImportCommand;
int import();

extern llvm::cl::SubCommand CompileCommand;
int compile();

extern llvm::cl::SubCommand TuneCommand;
int tune();

extern llvm::cl::SubCommand RunCommand;
int run();

extern llvm::cl::SubCommand InspectCommand;
int inspect();

extern llvm::cl::SubCommand CalibrateCommand;
int calibrate();

extern llvm::cl::SubCommand QuantizeCommand;
int quantize();

/// Hides the options LLVM and MLIR register from `strata --help`, which then
/// lists the commands and the limits every command takes.
/// Gives the entry function's inputs named in `shapes` those static shapes
/// (each must refine the declared type) and infers the shapes that follow;
/// errors start with `tool` (Compile.cpp).
mlir::LogicalResult
applyInputShapes(llvm::StringRef tool, mlir::ModuleOp module,
                 const std::map<std::string, std::vector<int64_t>> &shapes);

void hideForeignOptions();

/// After parsing: refuses a single-valued option of `command` given more
/// than once, and sets limits() from --max-file-size, --max-elements and
/// --max-loop-iterations. On an error prints "<tool>: ..." and returns false.
bool applyCommonOptions(llvm::StringRef tool, llvm::cl::SubCommand &command);

/// Checks a --name value: a file-name stem, so no path separator, no NUL and
/// not "." or ".."; on a bad one prints "<tool>: ..." and returns false.
bool checkModelName(llvm::StringRef tool, llvm::StringRef name);

/// Creates the -o folder `dir` if missing; refuses an existing file that is
/// not a folder. On failure prints "<tool>: ..." and returns false.
bool prepareOutputDir(llvm::StringRef tool, llvm::StringRef dir);

/// Parses an --input-shapes value "name:1x3x224x224" into `shapes`; on a
/// malformed value prints "<tool>: ..." to stderr and returns false.
bool parseInputShape(llvm::StringRef tool, llvm::StringRef spec,
                     std::map<std::string, std::vector<int64_t>> &shapes);

/// Parses a --tolerance value "cos,euclid" (each at most 1); on a malformed
/// value prints "<tool>: ..." to stderr and returns false.
bool parseTolerance(llvm::StringRef tool, llvm::StringRef spec, double &cosTol,
                    double &eucTol);

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_COMMANDS_H
