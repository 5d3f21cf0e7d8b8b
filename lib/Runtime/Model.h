//===- Model.h - A loaded, verified artifact --------------------*- C++ -*-===//
//
// verifyArtifact() checks a .strata file (header, FlatBuffers structure, then
// meaning; docs/artifact.md lists every rule) and copies what the runtime
// needs into the plain structs below, so nothing after it reads the
// FlatBuffers table again. Model::load then creates the devices, loads the
// executables and prepares the dispatches.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_RUNTIME_MODEL_H
#define STRATA_LIB_RUNTIME_MODEL_H

#include "strata/Runtime/HAL.h"
#include "strata/Runtime/strata_runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::runtime {

/// An error with the C API's code.
struct Error {
  strata_status_code code = STRATA_OK;
  std::string message;
  explicit operator bool() const { return code != STRATA_OK; }
};

struct TensorInfo {
  std::string name;
  uint8_t dtype = 0;
  std::vector<int64_t> shape;
  bool hasQuant = false;
  double scale = 1.0;
  int64_t zeroPoint = 0;
};

enum class BufferKind : uint8_t { Arena = 0, Input, Output, Constant };

struct BufferPlan {
  BufferKind kind = BufferKind::Arena;
  uint32_t index = 0;
  uint64_t offset = 0, size = 0;
  uint8_t dtype = 0;
  std::vector<int64_t> shape;
};

struct DispatchPlan {
  std::string device;
  bool native = true;
  uint32_t executable = 0;
  std::string symbol;
  std::vector<uint32_t> bindings;
  std::vector<int64_t> params;
  int64_t workgroupCount = 1;
  hal::Device *deviceHandle = nullptr;     ///< set by Model::load
  std::unique_ptr<hal::Function> function; ///< set by Model::load
};

/// Format 1.2: buffer `buffer`'s dims are decided by dispatch `dispatch`,
/// which writes them into the I64 arena buffer `shapeBuffer`; the buffer's
/// own shape is their upper bound.
struct RuntimeShapePlan {
  uint32_t buffer = 0, shapeBuffer = 0, dispatch = 0;
  std::string origin; ///< the op and value, for error messages
};

struct VariantPlan {
  /// An output dim -1: decided at run time (outputRuntimeShape).
  std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  uint64_t arenaSize = 0;
  std::vector<BufferPlan> buffers;
  std::vector<DispatchPlan> dispatches;
  std::vector<RuntimeShapePlan> runtimeShapes;
  /// Per dispatch: the runtime shapes to check after it.
  std::vector<std::vector<uint32_t>> runtimeShapesAfter;
  /// Per output: its runtime shape, or -1 when its shape is static.
  std::vector<int> outputRuntimeShape;
  /// Per output: the bytes to allocate (the bound of a run-time shape).
  std::vector<uint64_t> outputCapacity;
};

struct ExecutablePlan {
  std::string name, device, format;
  uint64_t codeOffset = 0, codeSize = 0;
  std::vector<std::string> symbols;
};

/// The file's bytes: mapped read-only, or an owned 64-byte aligned copy.
class Storage {
public:
  Storage() = default;
  ~Storage();
  Storage(const Storage &) = delete;
  Storage &operator=(const Storage &) = delete;
  static Error mapFile(const char *path, std::unique_ptr<Storage> &out);
  static Error copy(const void *data, size_t size,
                    std::unique_ptr<Storage> &out);
  const uint8_t *data() const { return bytes; }
  uint64_t size() const { return length; }

private:
  uint8_t *bytes = nullptr;
  uint64_t length = 0;
  bool mapped = false;
};

class Model {
public:
  /// Verifies and loads the artifact in `storage`.
  static Error load(std::unique_ptr<Storage> storage,
                    std::unique_ptr<Model> &out);

  std::string name, producer;
  std::vector<TensorInfo> inputs, outputs;
  uint16_t versionMajor = 0, versionMinor = 0;
  /// The data segment (constants, code) inside the storage.
  const uint8_t *data = nullptr;
  uint64_t dataSize = 0;
  std::vector<ExecutablePlan> executablePlans;

  // Destroyed in reverse order: dispatches (in the variants), then
  // executables, then devices, then the storage.
  std::unique_ptr<Storage> storage;
  std::vector<std::pair<std::string, std::unique_ptr<hal::Device>>> devices;
  std::vector<std::unique_ptr<hal::Executable>> executables;
  std::vector<VariantPlan> variants;
};

/// Checks the file (header, structure, meaning) and fills `model` (all but
/// devices, executables and prepared functions).
Error verifyArtifact(const uint8_t *file, uint64_t size, Model &model);

/// strata_dtype size in bytes, 0 for an unknown value.
uint64_t dtypeSize(uint8_t dtype);
const char *dtypeName(uint8_t dtype);

/// The sub-byte dtypes' two layouts of their one byte per element. Inside an
/// artifact (constants, arena, the buffers compiled code reads and writes) a
/// 4- or 2-bit value's byte holds it zero-extended, as LLVM stores i4/i2 (its
/// loads assume the other bits are zero). At the API, ml_dtypes' layout: the
/// signed types (i4, i2) sign-extended. `toArtifactLayout` masks a caller's
/// input; `toApiLayout` rewrites an output (whatever the code left in the
/// other bits). Both do nothing for other dtypes.
void toArtifactLayout(uint8_t dtype, uint8_t *bytes, uint64_t size);
void toApiLayout(uint8_t dtype, uint8_t *bytes, uint64_t size);
/// "[1, 3, 224, 224]"
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace strata::runtime

#endif // STRATA_LIB_RUNTIME_MODEL_H
