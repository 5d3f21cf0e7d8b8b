//===- BytecodeCheck.cpp - reading MLIR bytecode in a child process -------===//
//
// The child reads the bytes with parseSourceFile (as the tool will), then
// reports over a pipe: one record per diagnostic ('e' error, 'w' warning,
// 'n' note, 'r' remark; the message; a NUL) and a last record 'K' (read and
// verified) or 'F' (refused with diagnostics). No last record means the child
// died: its exit status says how.
//
//===----------------------------------------------------------------------===//

#include "strata/Pipelines/BytecodeCheck.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>

#if defined(__unix__)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#define STRATA_BYTECODE_CHILD 1
#endif

#if defined(__SANITIZE_ADDRESS__)
#define STRATA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_ASAN 1
#endif
#endif

using namespace mlir;

namespace strata {

namespace {
constexpr uint64_t kMiB = uint64_t(1) << 20;
constexpr uint64_t kMaxU64 = ~uint64_t(0);

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > kMaxU64 - b ? kMaxU64 : a + b;
}
uint64_t saturatingMul(uint64_t a, uint64_t b) {
  return b != 0 && a > kMaxU64 / b ? kMaxU64 : a * b;
}
} // namespace

BytecodeCheckLimits bytecodeCheckLimits(uint64_t fileBytes) {
  // 5 s plus 1 s per 16 MiB (valid files read at > 100 MB/s); 4 GiB plus 16
  // bytes per file byte on top of what the process has mapped already (a
  // module in memory is a few times its bytecode).
  return {5 + fileBytes / (16 * kMiB),
          saturatingAdd(uint64_t(4) << 30, saturatingMul(fileBytes, 16))};
}

#ifdef STRATA_BYTECODE_CHILD
namespace {

void writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      ::_exit(5);
    data += n;
    size -= size_t(n);
  }
}

void writeRecord(int fd, char kind, const std::string &message) {
  std::string record(1, kind);
  for (char c : message)
    // A record ends at a NUL; control bytes from a corrupted file's strings
    // are not for a terminal either.
    record += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
                  ? '?'
                  : c;
  record += '\0';
  writeAll(fd, record.data(), record.size());
}

char kindOf(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return 'e';
  case DiagnosticSeverity::Warning:
    return 'w';
  case DiagnosticSeverity::Note:
    return 'n';
  case DiagnosticSeverity::Remark:
    return 'r';
  }
  return 'e';
}

uint64_t mappedBytes() {
  // /proc/self/statm: total program size in pages first.
  FILE *f = std::fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (f) {
    if (std::fscanf(f, "%llu", &pages) != 1)
      pages = 0;
    std::fclose(f);
  }
  return saturatingMul(pages, uint64_t(::sysconf(_SC_PAGESIZE)));
}

void setLimit(int resource, uint64_t soft, uint64_t hard) {
  struct rlimit old;
  if (::getrlimit(resource, &old) != 0)
    return;
  struct rlimit limit = old;
  // Never above an existing hard limit (raising it is not allowed).
  auto clamp = [&](uint64_t v) -> rlim_t {
    if (old.rlim_max != RLIM_INFINITY && v > uint64_t(old.rlim_max))
      return old.rlim_max;
    return rlim_t(v);
  };
  limit.rlim_cur = clamp(soft);
  limit.rlim_max = clamp(hard);
  ::setrlimit(resource, &limit);
}

[[noreturn]] void runChild(int fd, std::string_view bytes,
                           const std::string &name, MLIRContext &parent,
                           const BytecodeCheckLimits &limits) {
  // Die quietly on a crash: the parent reports it. The default actions also
  // keep the inherited LLVM handlers from removing the parent's output files.
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS,
                  SIGXCPU, SIGXFSZ, SIGPIPE})
    ::signal(sig, SIG_DFL);
  llvm::remove_fatal_error_handler();
  llvm::install_fatal_error_handler(
      [](void *, const char *, bool) { ::_exit(3); });
  int devNull = ::open("/dev/null", O_WRONLY);
  if (devNull >= 0) {
    ::dup2(devNull, 1);
    ::dup2(devNull, 2);
  }
  setLimit(RLIMIT_CORE, 0, 0);
  setLimit(RLIMIT_CPU, limits.cpuSeconds, limits.cpuSeconds + 1);
#ifndef STRATA_ASAN
  // AddressSanitizer reserves terabytes of shadow address space up front.
  uint64_t addressSpace =
      saturatingAdd(mappedBytes(), limits.addressSpaceBytes);
  setLimit(RLIMIT_AS, addressSpace, addressSpace);
#endif

  MLIRContext context(parent.getDialectRegistry(),
                      MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(parent.allowsUnregisteredDialects());
  context.loadAllAvailableDialects();
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    writeRecord(fd, kindOf(diag.getSeverity()), diag.str());
    for (Diagnostic &note : diag.getNotes())
      writeRecord(fd, 'n', note.str());
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(
                                   llvm::StringRef(bytes.data(), bytes.size()),
                                   name,
                                   /*RequiresNullTerminator=*/false),
                               llvm::SMLoc());
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  writeRecord(fd, module ? 'K' : 'F', "");
  ::_exit(0);
}

/// Waits for the child's report until `deadline`; kills the child after it.
/// Returns false on a timeout.
bool readReport(int fd, pid_t child, std::string &report,
                std::chrono::steady_clock::time_point deadline) {
  constexpr size_t kMaxReport = 1 << 20;
  char buffer[4096];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      ::kill(child, SIGKILL);
      return false;
    }
    struct pollfd p = {fd, POLLIN, 0};
    int ready = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR)
      return true;
    if (ready <= 0)
      continue;
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return true; // end of file: the child exited (or closed the pipe)
    if (report.size() < kMaxReport)
      report.append(buffer, size_t(n));
  }
}

std::string signalName(int sig) {
  const char *text = ::strsignal(sig);
  return "signal " + std::to_string(sig) +
         (text ? std::string(", ") + text : std::string());
}

} // namespace

LogicalResult checkBytecodeInChild(std::string_view bytes,
                                   const std::string &name,
                                   MLIRContext &context) {
  Location loc = FileLineColLoc::get(&context, name, 0, 0);
  BytecodeCheckLimits limits = bytecodeCheckLimits(bytes.size());
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return emitError(loc) << "cannot read MLIR bytecode: no pipe for the "
                             "child process that checks it ("
                          << std::strerror(errno) << ")";
  pid_t child = ::fork();
  if (child < 0) {
    int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return emitError(loc) << "cannot read MLIR bytecode: no child process to "
                             "check it in ("
                          << std::strerror(err) << ")";
  }
  if (child == 0) {
    ::close(fds[0]);
    runChild(fds[1], bytes, name, context, limits);
  }
  ::close(fds[1]);
  // Wall clock: the CPU limit four times over (a loaded machine) plus 10 s.
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(4 * limits.cpuSeconds + 10);
  std::string report;
  bool finished = readReport(fds[0], child, report, deadline);
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }

  // Replay the child's diagnostics; notes attach to the error before them.
  std::optional<InFlightDiagnostic> current;
  char last = 0;
  for (size_t pos = 0; pos < report.size();) {
    size_t end = report.find('\0', pos);
    if (end == std::string::npos)
      break; // a record cut short by the child's death
    char kind = report[pos];
    std::string message = report.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    last = kind;
    if (kind == 'n') {
      if (current)
        current->attachNote() << message;
      continue;
    }
    if (kind == 'K' || kind == 'F')
      break;
    current.reset();
    if (kind == 'e')
      current.emplace(emitError(loc) << message);
    else if (kind == 'w')
      current.emplace(emitWarning(loc) << message);
    else
      current.emplace(emitRemark(loc) << message);
  }
  current.reset();
  bool exitedCleanly = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (finished && exitedCleanly && last == 'K')
    return success();
  if (finished && exitedCleanly && last == 'F')
    return failure(); // the reader's own errors, replayed above

  std::string what;
  if (!finished)
    what = "did not finish within " +
           std::to_string(4 * limits.cpuSeconds + 10) + " s";
  else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
    what =
        "used up its " + std::to_string(limits.cpuSeconds) + " s of CPU time";
  else if (WIFSIGNALED(status))
    what = "crashed (" + signalName(WTERMSIG(status)) + ")";
  else if (WIFEXITED(status))
    what = "stopped with exit code " + std::to_string(WEXITSTATUS(status));
  else
    what = "stopped";
  return emitError(loc)
         << "is corrupted MLIR bytecode: MLIR's bytecode reader " << what
         << " on it (Strata reads bytecode first in a separate process "
            "limited to "
         << limits.cpuSeconds << " s of CPU time and "
         << limits.addressSpaceBytes / kMiB
         << " MiB of memory, so that such files are refused)";
}

#else // !STRATA_BYTECODE_CHILD

LogicalResult checkBytecodeInChild(std::string_view, const std::string &,
                                   MLIRContext &) {
  return success(); // no fork(): the reader runs in the tool's process
}

#endif

} // namespace strata
