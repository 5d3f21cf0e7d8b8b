//===- npz_fuzzer.cpp - libFuzzer target for the npz/npy reader -----------===//
//
// Each input is an .npz file (a zip of .npy members) or, when it starts with
// the npy magic, one .npy array. It is read as `strata run-ref --input` and
// the weight loader read it (readNpz / parseNpy). Besides crashes and
// sanitizer reports, the target aborts when
//   - a read fails without an error message, or
//   - what was read does not survive a write and a read back unchanged
//     (dtype, shape and bytes of every array).
//
//===----------------------------------------------------------------------===//

#include "strata/Support/Npz.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {
std::string inputPath, roundTripPath;

[[noreturn]] void fail(const char *what, const std::string &detail) {
  std::fprintf(stderr, "npz_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

std::string scratchFile(const char *prefix) {
  const char *tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix +
                     "-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0)
    fail("cannot create a scratch file", path);
  close(fd);
  return path;
}

bool sameTensor(const strata::Tensor &a, const strata::Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.byteSize() == b.byteSize() &&
         (a.byteSize() == 0 || std::memcmp(a.raw(), b.raw(), a.byteSize()) == 0);
}

/// Writes `arrays`, reads them back and checks nothing changed.
void checkRoundTrip(const strata::TensorMap &arrays) {
  std::string error;
  if (!strata::writeNpz(roundTripPath, arrays, error)) {
    if (error.empty())
      fail("writeNpz failed without an error message", "");
    return; // e.g. a member name that cannot be written back
  }
  strata::TensorMap back;
  if (!strata::readNpz(roundTripPath, back, error))
    fail("an npz that was just written does not read back", error);
  for (const auto &[name, tensor] : arrays) {
    const strata::Tensor *t = back.find(name);
    if (!t || !sameTensor(tensor, *t))
      fail("an array changed in a write and read back", name);
  }
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  inputPath = scratchFile("strata-npz-fuzz-in");
  roundTripPath = scratchFile("strata-npz-fuzz-out");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string error;
  static const char kNpyMagic[] = "\x93NUMPY";
  if (size >= 6 && std::memcmp(data, kNpyMagic, 6) == 0) {
    strata::Tensor t;
    if (!strata::parseNpy(data, size, t, error)) {
      if (error.empty())
        fail("parseNpy failed without an error message", "");
      return 0;
    }
    std::string bytes = strata::serializeNpy(t);
    strata::Tensor back;
    if (!strata::parseNpy(reinterpret_cast<const uint8_t *>(bytes.data()),
                          bytes.size(), back, error))
      fail("a serialized npy does not parse back", error);
    if (!sameTensor(t, back))
      fail("an npy array changed in a serialize and parse back", "");
    return 0;
  }

  {
    std::ofstream os(inputPath, std::ios::binary | std::ios::trunc);
    os.write(reinterpret_cast<const char *>(data),
             static_cast<std::streamsize>(size));
    if (!os)
      fail("cannot write the scratch input", inputPath);
  }
  strata::TensorMap arrays;
  if (!strata::readNpz(inputPath, arrays, error)) {
    if (error.empty())
      fail("readNpz failed without an error message", "");
    return 0;
  }
  checkRoundTrip(arrays);
  return 0;
}
