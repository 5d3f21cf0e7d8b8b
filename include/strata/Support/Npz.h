//===- Npz.h - numpy .npy / .npz reading and writing ------------*- C++ -*-===//
//
// npz files are zip archives of .npy arrays (numpy's savez format). Strata
// reads and writes them with libzip; the .npy header is parsed and validated
// here (every field checked, sizes overflow-checked against the data present).
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_NPZ_H
#define STRATA_SUPPORT_NPZ_H

#include "strata/Support/Tensor.h"

#include <string>
#include <utility>
#include <vector>

namespace strata {

/// Named tensors in insertion order (the order of an npz archive).
class TensorMap {
public:
  void set(const std::string &name, Tensor t);
  const Tensor *find(const std::string &name) const;
  bool contains(const std::string &name) const { return find(name) != nullptr; }
  size_t size() const { return entries.size(); }
  auto begin() const { return entries.begin(); }
  auto end() const { return entries.end(); }

private:
  std::vector<std::pair<std::string, Tensor>> entries;
};

/// Parses one .npy blob. On failure returns false and sets `error`.
bool parseNpy(const uint8_t *data, size_t size, Tensor &out, std::string &error);
/// Serializes a tensor as a .npy (version 1.0) blob.
std::string serializeNpy(const Tensor &t);

/// Reads every array of an npz archive. Keys are the member names without
/// ".npy". Fails on a missing or corrupt file, or any malformed member.
bool readNpz(const std::string &path, TensorMap &out, std::string &error);
/// Writes an npz archive (stored, uncompressed, like numpy.savez). The file
/// appears complete or not at all: libzip writes a temporary and renames it.
bool writeNpz(const std::string &path, const TensorMap &arrays,
              std::string &error);

} // namespace strata

#endif // STRATA_SUPPORT_NPZ_H
