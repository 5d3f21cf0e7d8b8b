//===- CommonOptions.cpp - options every strata command takes -------------===//
//
// The limits (--max-file-size, --max-elements, --max-loop-iterations; see
// strata/Support/Limits.h and docs/cli.md "Limits"), the check that no
// single-valued option is given twice, and the help that shows Strata's
// options instead of the ones LLVM and MLIR register.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "strata/Support/Limits.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata::cli {

static cl::OptionCategory &limitCategory() {
  static cl::OptionCategory category("Limits (every command)");
  return category;
}

static cl::opt<std::string> maxFileSize(
    "max-file-size",
    cl::desc("largest file read (model, .mlir, npz, external data), in bytes "
             "or with a K/M/G/T suffix (default 8G)"),
    cl::value_desc("SIZE"), cl::sub(cl::SubCommand::getAll()),
    cl::cat(limitCategory()));
static cl::opt<int64_t> maxElements(
    "max-elements",
    cl::desc("most elements of one tensor, in a static type or at run time "
             "(default 2^31 = 2147483648)"),
    cl::value_desc("N"), cl::init(Limits().maxElements),
    cl::sub(cl::SubCommand::getAll()), cl::cat(limitCategory()));
static cl::opt<int64_t> maxLoopIterations(
    "max-loop-iterations",
    cl::desc("most iterations of one Loop in the reference interpreter "
             "(default 2^24 = 16777216)"),
    cl::value_desc("N"), cl::init(Limits().maxLoopIterations),
    cl::sub(cl::SubCommand::getAll()), cl::cat(limitCategory()));

void hideForeignOptions() {
  cl::HideUnrelatedOptions(limitCategory(), cl::SubCommand::getTopLevel());
}

bool applyCommonOptions(StringRef tool, cl::SubCommand &command) {
  for (auto &entry : cl::getRegisteredOptions(command)) {
    StringRef name = entry.first;
    cl::Option *option = entry.second;
    bool singleValued =
        option->getNumOccurrencesFlag() == cl::Optional ||
        option->getNumOccurrencesFlag() == cl::Required;
    if (singleValued && option->getNumOccurrences() > 1 &&
        !option->isPositional()) {
      errs() << tool << ": --" << name << " is given "
             << option->getNumOccurrences() << " times; give it once\n";
      return false;
    }
  }
  Limits &l = limits();
  if (!maxFileSize.empty() && !parseByteSize(maxFileSize, l.maxFileBytes)) {
    errs() << tool << ": --max-file-size '" << maxFileSize
           << "' must be a byte count, optionally with a K, M, G or T "
              "suffix\n";
    return false;
  }
  if (maxElements < 1 || maxLoopIterations < 0) {
    errs() << tool << ": --max-elements must be at least 1 and "
           << "--max-loop-iterations at least 0\n";
    return false;
  }
  l.maxElements = maxElements;
  l.maxLoopIterations = maxLoopIterations;
  return true;
}

bool checkModelName(StringRef tool, StringRef name) {
  if (name == "." || name == ".." ||
      name.find_first_of(StringRef("/\\\0", 3)) != StringRef::npos) {
    errs() << tool << ": --name '" << name
           << "' must be a plain file name (no '/' or '\\', not '.' or '..'): "
              "the files are written inside -o\n";
    return false;
  }
  return true;
}

bool prepareOutputDir(StringRef tool, StringRef dir) {
  sys::fs::file_status status;
  if (!sys::fs::status(dir, status) && sys::fs::exists(status) &&
      !sys::fs::is_directory(status)) {
    errs() << tool << ": -o '" << dir
           << "' is a file; -o names the folder to write the model into\n";
    return false;
  }
  if (std::error_code ec = sys::fs::create_directories(dir)) {
    errs() << tool << ": cannot create the folder '" << dir
           << "': " << ec.message() << "\n";
    return false;
  }
  return true;
}

} // namespace strata::cli
