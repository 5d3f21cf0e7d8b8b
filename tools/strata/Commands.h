//===- Commands.h - the strata CLI's subcommands ----------------*- C++ -*-===//

#ifndef STRATA_TOOLS_STRATA_COMMANDS_H
#define STRATA_TOOLS_STRATA_COMMANDS_H

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

/// Parses an --input-shapes value "name:1x3x224x224" into `shapes`; on a
/// malformed value prints "<tool>: ..." to stderr and returns false.
bool parseInputShape(llvm::StringRef tool, llvm::StringRef spec,
                     std::map<std::string, std::vector<int64_t>> &shapes);

/// Parses a --tolerance value "cos,euclid" (each at most 1); on a malformed
/// value prints "<tool>: ..." to stderr and returns false.
bool parseTolerance(llvm::StringRef tool, llvm::StringRef spec,
                    double &cosTol, double &eucTol);

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_COMMANDS_H
