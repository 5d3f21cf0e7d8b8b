//===- Limits.h - process-wide limits on inputs and runs --------*- C++ -*-===//
//
// The bounds that keep a hostile or broken model from exhausting memory or
// running forever: the size of a file any tool reads, the element count of a
// tensor a model declares or a run allocates, and the iterations of one
// interpreted loop. The strata CLI sets them from --max-file-size,
// --max-elements and --max-loop-iterations; docs/cli.md "Limits" lists them.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_SUPPORT_LIMITS_H
#define STRATA_SUPPORT_LIMITS_H

#include <cstdint>
#include <new>
#include <string>

namespace strata {

struct Limits {
  /// Largest file a tool reads (ONNX model, .mlir, npz, external data);
  /// default 8 GiB.
  uint64_t maxFileBytes = uint64_t(8) << 30;
  /// Most elements of one tensor: a static type at import, a result shape
  /// or an allocation at run time; default 2^31.
  int64_t maxElements = int64_t(1) << 31;
  /// Most iterations one top.Loop runs in the interpreter; default 2^24.
  int64_t maxLoopIterations = int64_t(1) << 24;
};

/// The limits of this process (one set; the CLI changes them before any
/// work starts).
Limits &limits();

/// What the Tensor constructor throws when a tensor is over
/// limits().maxElements or its memory cannot be allocated. The interpreter
/// turns it into an error naming the op; the CLI's top level catches any that
/// escape.
class TensorAllocationError : public std::bad_alloc {
public:
  TensorAllocationError(uint64_t bytes, int64_t elements, bool overLimit)
      : bytes(bytes), elements(elements), overLimit(overLimit) {}
  const char *what() const noexcept override {
    return "tensor allocation failed";
  }
  /// The bytes asked for (0 when the shape overflows).
  uint64_t bytes;
  /// The element count asked for (-1 when the shape overflows int64).
  int64_t elements;
  /// True when refused by the element limit, false when out of memory.
  bool overLimit;
};

/// The message for `e`: "out of memory allocating N bytes" or "a tensor of
/// N elements is over the element limit of M (--max-elements raises it)".
std::string describe(const TensorAllocationError &e);

/// limits().maxElements for messages: "2^31" for a power of two, else the
/// number.
std::string formatElementLimit();

/// Formats a byte count for messages: "8589934592 bytes (8 GiB)".
std::string formatBytes(uint64_t bytes);

/// Parses a size such as "1048576", "512K", "64M" or "16G" (binary units).
/// Returns false on anything else, or on overflow.
bool parseByteSize(const std::string &text, uint64_t &bytes);

} // namespace strata

#endif // STRATA_SUPPORT_LIMITS_H
