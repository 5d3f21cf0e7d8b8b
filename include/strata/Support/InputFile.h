//===- InputFile.h - reading the files a tool is given ----------*- C++ -*-===//
//
// Every file Strata reads (ONNX model, .mlir, npz, ONNX external data) goes
// through InputFile: it must be a regular file (not a directory, device, pipe
// or socket) no larger than limits().maxFileBytes, and it is mapped whole, so
// nothing is allocated from a size the file merely declares. Files a model
// names (external data, top.weight_file) are resolved with
// resolveInsideFolder, which keeps them inside the model's folder.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_INPUTFILE_H
#define STRATA_SUPPORT_INPUTFILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata {

/// A whole input file, mapped read-only.
class InputFile {
public:
  InputFile() = default;
  ~InputFile();
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;

  /// Checks and maps `path`. `what` names the file's role in messages
  /// ("model", "npz"). On failure returns false and sets `error` to
  /// "cannot read <what> '<path>': <reason>", the reason naming a missing
  /// file, a directory, a non-regular file, a symlink loop or a size over
  /// the limit (and the option that raises it).
  bool open(const std::string &path, const char *what, std::string &error);

  const uint8_t *data() const { return static_cast<const uint8_t *>(base); }
  size_t size() const { return length; }
  std::string_view text() const {
    return std::string_view(static_cast<const char *>(base), length);
  }

private:
  void *base = nullptr;
  size_t length = 0;
};

/// Resolves `relative`, a path a model names (its `what`: "external data
/// location", "top.weight_file"), against `folder` and checks that the
/// result, after following symlinks, is an existing file inside `folder`.
/// Absolute paths and ".." components are refused. On failure returns false
/// and sets `error`.
bool resolveInsideFolder(const std::string &folder, const std::string &relative,
                         const char *what, std::string &resolved,
                         std::string &error);

} // namespace strata

#endif // STRATA_SUPPORT_INPUTFILE_H
