//===- NpuProgram.h - the NPU program (ISA) in memory -----------*- C++ -*-===//
//
// The C++ mirror of lib/NpuSim/npu_program.fbs: what one NPU dispatch runs.
// encodeProgram/decodeProgram convert to and from the binary form (the bytes
// in an artifact's NPU section); verifyProgram checks everything that can be
// checked without running (kinds, dims, field ranges, LRAM ranges, DRAM
// ranges against the declared bindings). The simulator and the HW dialect's
// serializer/disassembler share these; docs/npu-sim.md is the reference.
//
// MLIR/LLVM-free: the runtime's npu-sim driver links it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_NPUSIM_NPUPROGRAM_H
#define STRATA_NPUSIM_NPUPROGRAM_H

#include "strata/Npu/NpuConfig.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace strata::npusim {

/// The ISA major version this simulator runs.
constexpr uint32_t kIsaVersion = 1;
/// Dims of an LRAM address generator / a DMA descriptor, at most.
constexpr size_t kMaxOperandDims = 6;
constexpr size_t kMaxDmaDims = 4;

enum class Format : uint8_t { Int8 = 0, Int16 = 1, BF16 = 2, Int32 = 3 };
enum class TaskKind : uint8_t {
  DmaLoad = 0,
  DmaStore = 1,
  Slice = 2,
  Wait = 3
};
enum class KernelKind : uint8_t {
  Conv2D = 0,
  DepthwiseConv2D = 1,
  FullyConnected = 2,
  MatMul = 3,
  Add = 4,
  Sub = 5,
  Mul = 6,
  Min = 7,
  Max = 8,
  Rescale = 9,
  Table = 10,
  MaxPool = 11,
  AvgPool = 12,
  ReduceMean = 13,
  Transpose = 14,
  ResizeNearest = 15,
  DepthToSpace = 16,
  Convert = 17,
};
constexpr int kNumKernelKinds = 18;
enum class Rounding : uint8_t { MultiplierShift = 0, TFLite = 1 };
struct SliceTask;

/// Whether a task's `lut` operand is the activation unit's interpolated
/// int16-input table (NpuConfig::lut16Entries): 1-d, 513 int16 entries,
/// looked up as strata/Support/IntegerTable16.h defines; otherwise a `lut`
/// holds 256 int8 entries (per row).
bool isLut16(const SliceTask &s);
/// Bytes of one `lut` element: 2 for the interpolated int16 table, else 1.
int64_t lutElementBytes(const SliceTask &s);

/// Bytes of one element of `f`.
int64_t formatBytes(Format f);
const char *formatName(Format f);
std::optional<Format> parseFormat(const std::string &name);
const char *kernelName(KernelKind k);
std::optional<KernelKind> parseKernel(const std::string &name);
const char *taskKindName(TaskKind k);
const char *roundingName(Rounding r);
std::optional<Rounding> parseRounding(const std::string &name);

/// An LRAM address generator: element (i0..ik) is at byte
/// `address + sum(i_j * strides[j])`. Absent when `dims` is empty.
struct Operand {
  uint64_t address = 0;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  bool present() const { return !dims.empty(); }
};

/// A strided DRAM <-> LRAM copy.
struct Dma {
  uint32_t binding = 0;
  uint64_t dramOffset = 0;
  uint64_t lramAddress = 0;
  uint8_t elementBytes = 1;
  std::vector<int64_t> counts;
  std::vector<int64_t> dramStrides;
  std::vector<int64_t> lramStrides;
};

/// One kernel on one slice; docs/npu-sim.md lists the operands and fields
/// each kernel reads.
struct SliceTask {
  uint32_t slice = 0;
  KernelKind kernel = KernelKind::Conv2D;
  Format format = Format::Int8;
  Format outputFormat = Format::Int8;
  uint32_t vectorMode = 0;
  Operand input, input2, weights, scaleBias, partial, lut, output;
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> dilation = {1, 1};
  std::vector<int64_t> pad = {0, 0, 0, 0};
  std::vector<int64_t> kernelSize = {1, 1};
  int64_t groups = 1;
  int64_t inputZp = 0, input2Zp = 0, weightZp = 0, outputZp = 0;
  int64_t clipMin = -128, clipMax = 127;
  Rounding rounding = Rounding::MultiplierShift;
  int64_t multiplier = 0, shift = 0;
  int64_t inputMultiplier = 0, inputShift = 0;
  int64_t input2Multiplier = 0, input2Shift = 0;
  int64_t leftShift = 0;
  float floatScale = 1.0f;
  float clipMinF = -std::numeric_limits<float>::infinity();
  float clipMaxF = std::numeric_limits<float>::infinity();
  std::vector<int64_t> perm;
  uint32_t reduceAxes = 0;
  int64_t block = 1;
  bool crd = false;
  bool halfPixel = false;
  bool countIncludePad = false;
  /// Convert: the f64 scale (HL's and Top's); 0 uses `floatScale`.
  double scale = 0.0;
  /// The Convert scale in effect.
  double convertScale() const {
    return scale != 0.0 ? scale : static_cast<double>(floatScale);
  }
};

struct Task {
  TaskKind kind = TaskKind::Wait;
  Dma dma;         ///< DmaLoad / DmaStore
  SliceTask slice; ///< Slice
  std::string name;
};

struct Segment {
  std::vector<Task> tasks;
};

/// A DRAM buffer the program reads or writes: dispatch binding `index`.
struct Binding {
  std::string name;
  uint64_t size = 0;
  bool writable = false;
};

struct Program {
  uint32_t version = kIsaVersion;
  std::string name;
  npu::NpuConfig config;
  std::vector<Binding> bindings;
  std::vector<Segment> segments;
};

/// The binary form (FlatBuffers, file identifier "SNPU").
std::vector<uint8_t> encodeProgram(const Program &program);
/// Reads and structurally verifies the binary form (FlatBuffers verifier,
/// version, enum values); does not run verifyProgram.
std::optional<std::string> decodeProgram(const uint8_t *data, uint64_t size,
                                         Program &program);

/// Checks one task against `config` and the program's bindings; the error
/// names the task ("task 3 (slice conv2d): field 'stride' ...").
std::optional<std::string> verifyTask(const Task &task,
                                      const npu::NpuConfig &config,
                                      const std::vector<Binding> &bindings,
                                      int64_t index);
/// validateNpuConfig, verifyTask on every task (numbered across segments)
/// and findRace.
std::optional<std::string> verifyProgram(const Program &program);

/// The inclusive-exclusive LRAM byte range [begin, end) an operand touches
/// (its bounding box), with `elementBytes` per element; nullopt when the
/// arithmetic overflows.
struct ByteRange {
  uint64_t begin = 0, end = 0;
};
std::optional<ByteRange> operandRange(const Operand &op, int64_t elementBytes);

/// The LRAM byte ranges a task reads and writes (each operand's bounding
/// box; a dma_load writes its LRAM range, a dma_store reads it).
struct LramAccess {
  std::vector<ByteRange> reads, writes;
};
LramAccess lramAccess(const Task &task);

/// The first race of a program whose tasks verify: a task of one queue that
/// touches LRAM bytes a task of another queue touched since the last wait,
/// one of them writing. `index` is the later task's (numbered across
/// segments).
struct Race {
  int64_t index = 0;
  std::string message;
};
std::optional<Race> findRace(const Program &program);

} // namespace strata::npusim

#endif // STRATA_NPUSIM_NPUPROGRAM_H
