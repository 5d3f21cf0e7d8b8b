//===- InputFile.cpp - reading the files a tool is given ------------------===//

#include "strata/Support/InputFile.h"
#include "strata/Support/Limits.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace strata {

InputFile::~InputFile() {
  if (base && length)
    munmap(base, length);
}

/// Why `st` is not a file Strata reads, or "" if it is one.
static std::string fileTypeProblem(const struct stat &st) {
  if (S_ISDIR(st.st_mode))
    return "is a directory, not a regular file";
  if (S_ISREG(st.st_mode)) {
    uint64_t limit = limits().maxFileBytes;
    if (static_cast<uint64_t>(st.st_size) > limit)
      return "is " + formatBytes(st.st_size) + ", over the limit of " +
             formatBytes(limit) + " (--max-file-size raises it)";
    return "";
  }
  const char *kind = S_ISCHR(st.st_mode)    ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISFIFO(st.st_mode) ? "a pipe"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "a special file";
  return std::string("is ") + kind + ", not a regular file";
}

/// strerror(err), with a hint for a symlink loop.
static std::string errnoText(int err) {
  std::string s = std::strerror(err);
  if (err == ELOOP)
    s += " (a symlink loop?)";
  return s;
}

bool InputFile::open(const std::string &path, const char *what,
                     std::string &error) {
  std::string prefix = std::string("cannot read ") + what + " '" + path + "': ";
  // stat before open: opening a pipe for reading would block.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = prefix + errnoText(errno);
    return false;
  }
  if (std::string problem = fileTypeProblem(st); !problem.empty()) {
    error = prefix + problem;
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = prefix + errnoText(errno);
    return false;
  }
  // Check again what was opened: the path may have changed in between.
  if (::fstat(fd, &st) != 0) {
    error = prefix + errnoText(errno);
    ::close(fd);
    return false;
  }
  if (std::string problem = fileTypeProblem(st); !problem.empty()) {
    error = prefix + problem;
    ::close(fd);
    return false;
  }
  length = static_cast<size_t>(st.st_size);
  if (length) {
    base = mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
      base = nullptr;
      length = 0;
      error = prefix + errnoText(errno);
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

bool resolveInsideFolder(const std::string &folder, const std::string &relative,
                         const char *what, std::string &resolved,
                         std::string &error) {
  std::string quoted = std::string(what) + " '" + relative + "'";
  if (relative.empty() || relative[0] == '/') {
    error = quoted + " must be a relative path (inside the model's folder)";
    return false;
  }
  for (size_t start = 0; start <= relative.size();) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos)
      end = relative.size();
    if (relative.compare(start, end - start, "..") == 0 && end - start == 2) {
      error = quoted + " must not contain '..'";
      return false;
    }
    start = end + 1;
  }
  std::string dir = folder.empty() ? "." : folder;
  std::string joined = dir + "/" + relative;
  char realDir[PATH_MAX], realFile[PATH_MAX];
  if (!::realpath(dir.c_str(), realDir)) {
    error = "cannot resolve the model's folder '" + dir +
            "': " + errnoText(errno);
    return false;
  }
  if (!::realpath(joined.c_str(), realFile)) {
    error = quoted + ": file '" + joined + "' " +
            (errno == ENOENT ? std::string("does not exist")
                             : "cannot be resolved: " + errnoText(errno));
    return false;
  }
  std::string prefix = std::string(realDir);
  if (prefix.empty() || prefix.back() != '/')
    prefix += "/";
  if (std::string(realFile).rfind(prefix, 0) != 0) {
    error = quoted + " resolves outside the model's folder ('" + realFile +
            "' is not in '" + realDir + "')";
    return false;
  }
  resolved = realFile;
  return true;
}

} // namespace strata
