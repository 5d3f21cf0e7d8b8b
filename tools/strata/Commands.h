//===- Commands.h - the strata CLI's subcommands ----------------*- C++ -*-===//

#ifndef STRATA_TOOLS_STRATA_COMMANDS_H
#define STRATA_TOOLS_STRATA_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace strata::cli {

extern llvm::cl::SubCommand RunRefCommand;
int runRef();

extern llvm::cl::SubCommand CompareCommand;
int compare();

extern llvm::cl::SubCommand ImportCommand;
int import();

} // namespace strata::cli

#endif // STRATA_TOOLS_STRATA_COMMANDS_H
