//===- ArtifactWriter.h - Writes .strata artifacts --------------*- C++ -*-===//
//
// The one way Strata writes a .strata file: the compiler describes the model
// (signature, variants with their memory plan and dispatches, executables,
// constants) and the writer lays out header, FlatBuffers table and the 64-byte
// aligned data segment. The writer checks only what it needs to lay the file
// out; the runtime verifies everything on load (docs/artifact.md), so a
// compiler test should load what it wrote.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_ARTIFACT_ARTIFACTWRITER_H
#define STRATA_ARTIFACT_ARTIFACTWRITER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::artifact {

/// Element types; the numbering is the schema's DType and strata_dtype.
enum class DType : uint8_t {
  Unknown = 0,
  F32,
  F16,
  BF16,
  F64,
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  Bool,
  // Format 1.1: the narrow types, one byte per element (docs/artifact.md).
  I4,
  U4,
  I2,
  U2,
  F8E4M3FN,
  F8E4M3FNUZ,
  F8E5M2,
  F8E5M2FNUZ,
  F4E2M1FN,
  F8E8M0FNU
};
enum class BufferKind : uint8_t { Arena = 0, Input, Output, Constant };
enum class DispatchKind : uint8_t { Native = 0, Kernel };

struct Quantization {
  double scale = 1.0;
  int64_t zeroPoint = 0;
};

/// An input or output of the signature; -1 marks a dim decided per variant.
struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::optional<Quantization> quant;
};

/// A buffer of a variant's memory plan.
struct BufferSpec {
  BufferKind kind = BufferKind::Arena;
  uint32_t index = 0;  ///< input/output number
  uint64_t offset = 0; ///< arena offset, or data-segment offset (constants)
  uint64_t size = 0;   ///< bytes
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

/// One step of a variant: a native function of an executable or a built-in
/// kernel of the runtime, with its buffers (indices into the variant's
/// buffers), integer parameters and the number of workgroups it splits into.
struct DispatchSpec {
  std::string device = "cpu";
  DispatchKind kind = DispatchKind::Native;
  uint32_t executable = 0;
  std::string symbol; ///< exported function, or kernel name
  std::vector<uint32_t> bindings;
  std::vector<int64_t> params;
  int64_t workgroupCount = 1;
};

/// Format 1.2: buffer `buffer`'s dims are decided at run time by dispatch
/// `dispatch`, which writes them into the I64 arena buffer `shapeBuffer`
/// (the buffer's own shape is an upper bound; docs/artifact.md).
struct RuntimeShapeSpec {
  uint32_t buffer = 0;
  uint32_t shapeBuffer = 0;
  uint32_t dispatch = 0;
  std::string origin; ///< the op and value, for error messages
};

/// One compiled version of the model for one set of static input shapes.
/// An output shape's -1 is a dim decided at run time (a RuntimeShapeSpec).
struct VariantSpec {
  std::vector<std::vector<int64_t>> inputShapes, outputShapes;
  uint64_t arenaSize = 0;
  std::vector<BufferSpec> buffers;
  std::vector<DispatchSpec> dispatches;
  std::vector<RuntimeShapeSpec> runtimeShapes;
};

class ArtifactWriter {
public:
  explicit ArtifactWriter(std::string modelName,
                          std::string producer = "strata");

  void addInput(TensorSpec spec) { inputs.push_back(std::move(spec)); }
  void addOutput(TensorSpec spec) { outputs.push_back(std::move(spec)); }

  /// Appends `size` bytes to the data segment, 64-byte aligned; returns their
  /// offset inside the segment (what a Constant buffer's offset names).
  uint64_t addData(const void *bytes, uint64_t size);

  /// Adds an executable whose code (e.g. the bytes of an x86-64 shared
  /// object) goes to the data segment; returns its index.
  uint32_t addExecutable(std::string name, std::string device,
                         std::string format, const std::string &code,
                         std::vector<std::string> symbols);

  /// Adds a variant; returns its index.
  uint32_t addVariant(VariantSpec variant);

  /// The whole file.
  std::string serialize() const;

  /// Writes the file atomically: a temporary file beside `path`, then a
  /// rename. Returns false with `error` set on failure.
  bool writeFile(const std::string &path, std::string &error) const;

private:
  struct ExecutableSpec {
    std::string name, device, format;
    uint64_t offset, size;
    std::vector<std::string> symbols;
  };
  std::string name, producer;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<VariantSpec> variants;
  std::vector<ExecutableSpec> executables;
  std::string data;
};

} // namespace strata::artifact

#endif // STRATA_ARTIFACT_ARTIFACTWRITER_H
