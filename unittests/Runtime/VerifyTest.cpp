//===- VerifyTest.cpp - Every verification error of the artifact loader ---===//
//
// Broken artifacts (truncated, bit-flipped, wrong magic or version, regions
// out of range, bad memory plans and dispatches, missing symbols, unknown
// kernels) must each give their specific message, and nothing may crash.
//
//===----------------------------------------------------------------------===//

#include "TestModels.h"
#include "strata/Artifact/Format.h"
#include "strata/Artifact/artifact_generated.h"
#include "strata/Runtime/strata_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace strata;
using namespace strata::test;
using artifact::BufferKind;
using artifact::DispatchKind;

namespace {

/// Loads `bytes`; returns the error message ("" on success) and its code.
std::string loadError(const std::string &bytes,
                      strata_status_code *code = nullptr) {
  strata_model *m = nullptr;
  strata_status *st = strata_model_load_memory(bytes.data(), bytes.size(), &m);
  if (!st) {
    strata_model_release(m);
    if (code)
      *code = STRATA_OK;
    return "";
  }
  EXPECT_EQ(m, nullptr);
  std::string message = strata_status_message(st);
  if (code)
    *code = strata_status_get_code(st);
  strata_status_free(st);
  return message;
}

#define EXPECT_LOAD_ERROR(bytes, text)                                         \
  do {                                                                         \
    strata_status_code code_;                                                  \
    std::string message_ = loadError(bytes, &code_);                           \
    EXPECT_EQ(code_, STRATA_INVALID_ARTIFACT) << message_;                     \
    EXPECT_NE(message_.find(text), std::string::npos)                          \
        << "message: " << message_ << "\nexpected: " << (text);                \
  } while (0)

/// Rewrites the header's checksums (and file size) after an edit, so the
/// edit reaches the checks behind them.
std::string fixHeader(std::string bytes) {
  auto *p = reinterpret_cast<uint8_t *>(bytes.data());
  artifact::Header h = artifact::decodeHeader(p);
  h.fileSize = bytes.size();
  if (artifact::alignUp(0) == 0 && h.tableOffset + h.tableSize <= bytes.size())
    h.tableCrc = artifact::crc32c(p + h.tableOffset, h.tableSize);
  if (h.dataOffset + h.dataSize <= bytes.size())
    h.dataCrc = artifact::crc32c(p + h.dataOffset, h.dataSize);
  artifact::encodeHeader(h, p);
  return bytes;
}

std::string withHeader(std::string bytes, void (*edit)(artifact::Header &h)) {
  auto *p = reinterpret_cast<uint8_t *>(bytes.data());
  artifact::Header h = artifact::decodeHeader(p);
  edit(h);
  artifact::encodeHeader(h, p);
  return bytes;
}

TEST(Verify, Crc32c) {
  const char *check = "123456789";
  EXPECT_EQ(artifact::crc32c(reinterpret_cast<const uint8_t *>(check), 9),
            0xE3069283u);
  // Against the bitwise definition, at every length and alignment up to 40.
  std::vector<uint8_t> bytes(48);
  std::mt19937 rng(3);
  for (uint8_t &b : bytes)
    b = uint8_t(rng());
  for (size_t start = 0; start < 8; ++start)
    for (size_t len = 0; start + len <= 40; ++len) {
      uint32_t c = ~0u;
      for (size_t i = 0; i < len; ++i) {
        c ^= bytes[start + i];
        for (int k = 0; k < 8; ++k)
          c = (c & 1) ? 0x82F63B78u ^ (c >> 1) : c >> 1;
      }
      ASSERT_EQ(artifact::crc32c(bytes.data() + start, len), ~c)
          << "start " << start << " length " << len;
      ASSERT_EQ(
          ~artifact::detail::crc32cSoftware(bytes.data() + start, len, ~0u), ~c)
          << "software, start " << start << " length " << len;
    }
}

TEST(Verify, TheGoodModelLoads) {
  EXPECT_EQ(loadError(axpyModel().serialize()), "");
}

/// The narrow dtypes of format 1.1: each is known, one byte per element,
/// named as the runtime names it, and a model copying one loads and runs.
/// A float8 comes back unchanged; a 4/2-bit value is masked to its bits on
/// the way in (the artifact's layout) and comes back in ml_dtypes' (i4/i2
/// sign-extended, the others zero-extended), whatever the other bits were.
TEST(Verify, NarrowDTypesLoadAndRun) {
  struct Case {
    artifact::DType dtype;
    strata_dtype c;
    const char *name;
    unsigned bits = 8; // value bits
    bool isSigned = false;
  };
  const Case cases[] = {
      {artifact::DType::I4, STRATA_DTYPE_I4, "i4", 4, true},
      {artifact::DType::U4, STRATA_DTYPE_U4, "u4", 4},
      {artifact::DType::I2, STRATA_DTYPE_I2, "i2", 2, true},
      {artifact::DType::U2, STRATA_DTYPE_U2, "u2", 2},
      {artifact::DType::F8E4M3FN, STRATA_DTYPE_F8E4M3FN, "f8e4m3fn"},
      {artifact::DType::F8E4M3FNUZ, STRATA_DTYPE_F8E4M3FNUZ, "f8e4m3fnuz"},
      {artifact::DType::F8E5M2, STRATA_DTYPE_F8E5M2, "f8e5m2"},
      {artifact::DType::F8E5M2FNUZ, STRATA_DTYPE_F8E5M2FNUZ, "f8e5m2fnuz"},
      {artifact::DType::F4E2M1FN, STRATA_DTYPE_F4E2M1FN, "f4e2m1fn", 4},
      {artifact::DType::F8E8M0FNU, STRATA_DTYPE_F8E8M0FNU, "f8e8m0fnu"}};
  // The schema, the writer and the C API number them alike.
  static_assert(uint8_t(artifact::fb::DType::F8E8M0FNU) ==
                uint8_t(artifact::DType::F8E8M0FNU));
  static_assert(uint8_t(artifact::fb::DType::MAX) ==
                uint8_t(STRATA_DTYPE_F8E8M0FNU));
  static_assert(uint8_t(artifact::fb::DType::I4) == STRATA_DTYPE_BOOL + 1);
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(uint8_t(c.dtype), uint8_t(c.c));
    EXPECT_EQ(strata_dtype_size(c.c), 1u);
    EXPECT_STREQ(strata_dtype_name(c.c), c.name);
    Spec s;
    s.name = "narrow";
    s.inputs.push_back({"x", c.dtype, {5}, std::nullopt});
    s.outputs.push_back({"y", c.dtype, {5}, std::nullopt});
    artifact::VariantSpec v;
    v.inputShapes = {{5}};
    v.outputShapes = {{5}};
    v.buffers = {{BufferKind::Input, 0, 0, 5, c.dtype, {5}},
                 {BufferKind::Output, 0, 0, 5, c.dtype, {5}}};
    artifact::DispatchSpec d;
    d.kind = DispatchKind::Kernel;
    d.symbol = "copy";
    d.bindings = {0, 1};
    d.params = {5};
    v.dispatches = {d};
    s.variants.push_back(v);
    std::string bytes = s.serialize();
    ASSERT_EQ(loadError(bytes), "");
    strata_model *m = nullptr;
    ASSERT_EQ(strata_model_load_memory(bytes.data(), bytes.size(), &m),
              nullptr);
    strata_session *session = nullptr;
    ASSERT_EQ(strata_session_create(m, 1, &session), nullptr);
    const uint8_t x[5] = {0x00, 0x0F, 0xF8, 0x7F, 0xFF};
    int64_t dims[] = {5};
    // The input's own dtype binds; a one-byte dtype of another name does not.
    strata_status *st = strata_session_set_input(session, 0, STRATA_DTYPE_U8,
                                                 dims, 1, x, sizeof(x));
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(strata_status_message(st),
              std::string("input 'x' is ") + c.name + ", not u8");
    strata_status_free(st);
    ASSERT_EQ(strata_session_set_input(session, 0, c.c, dims, 1, x, sizeof(x)),
              nullptr);
    ASSERT_EQ(strata_session_run(session), nullptr);
    strata_tensor_view view;
    ASSERT_EQ(strata_session_output(session, 0, &view), nullptr);
    EXPECT_EQ(view.dtype, c.c);
    ASSERT_EQ(view.size_bytes, sizeof(x));
    const auto *y = static_cast<const uint8_t *>(view.data);
    for (size_t i = 0; i < sizeof(x); ++i) {
      // The low `bits` bits, then the sign bit repeated (signed) or zeros.
      int v = x[i] & ((1 << c.bits) - 1);
      if (c.isSigned && (v >> (c.bits - 1)))
        v -= 1 << c.bits;
      EXPECT_EQ(y[i], uint8_t(v)) << "byte " << i << " = " << int(x[i]);
    }
    strata_session_release(session);
    strata_model_release(m);
  }
}

TEST(Verify, EmptyInt64VectorsMayBeMisaligned) {
  // FlatBuffers (2.0.8) does not align an empty vector to its element size,
  // so the shape [] of a scalar may sit 4 bytes off an 8-byte boundary. It
  // has no element to read: the model must load. Model names of several
  // lengths move the vectors; at least one must land misaligned.
  namespace fb = strata::artifact::fb;
  int misplaced = 0;
  for (std::string name = "s"; name.size() <= 8; name += "s") {
    Spec s;
    s.name = name;
    s.inputs.push_back({"x", artifact::DType::F32, {}, std::nullopt});
    s.outputs.push_back({"y", artifact::DType::F32, {}, std::nullopt});
    artifact::VariantSpec v;
    v.inputShapes = {{}};
    v.outputShapes = {{}};
    v.buffers = {{BufferKind::Input, 0, 0, 4, artifact::DType::F32, {}},
                 {BufferKind::Output, 0, 0, 4, artifact::DType::F32, {}}};
    artifact::DispatchSpec d;
    d.kind = DispatchKind::Kernel;
    d.symbol = "copy";
    d.bindings = {0, 1};
    d.params = {4};
    v.dispatches = {d};
    s.variants.push_back(v);
    std::string bytes = s.serialize();
    const auto *table =
        reinterpret_cast<const uint8_t *>(bytes.data()) + artifact::kHeaderSize;
    const fb::Model *m = fb::GetModel(table);
    auto off = [&](const flatbuffers::Vector<int64_t> *vec) {
      if (vec && vec->size() == 0 &&
          (reinterpret_cast<const uint8_t *>(vec->Data()) - table) % 8 != 0)
        ++misplaced;
    };
    off(m->signature()->inputs()->Get(0)->shape());
    off(m->signature()->outputs()->Get(0)->shape());
    for (const fb::Buffer *b : *m->variants()->Get(0)->buffers())
      off(b->shape());
    for (const fb::Shape *sh : *m->variants()->Get(0)->input_shapes())
      off(sh->dims());
    EXPECT_EQ(loadError(bytes), "") << "name " << name;
  }
  EXPECT_GT(misplaced, 0);
}

TEST(Verify, TruncatedAtManyLengths) {
  std::string bytes = axpyModel().serialize();
  int checked = 0;
  for (size_t len = 0; len < bytes.size();
       len += len < 256 ? 1 : 1 + len / 64) {
    std::string cut = bytes.substr(0, len);
    if (len < artifact::kHeaderSize)
      EXPECT_LOAD_ERROR(cut, "the file has " + std::to_string(len) +
                                 " bytes, too short for the 64-byte header");
    else
      EXPECT_LOAD_ERROR(
          cut, "the header says the file has " + std::to_string(bytes.size()) +
                   " bytes, it has " + std::to_string(len) + " (truncated)");
    ++checked;
  }
  EXPECT_GT(checked, 300);
  EXPECT_LOAD_ERROR(bytes + "xx", "the header says the file has " +
                                      std::to_string(bytes.size()) +
                                      " bytes, it has " +
                                      std::to_string(bytes.size() + 2));
}

TEST(Verify, EveryBitFlipOfHeaderAndTableIsCaught) {
  std::string bytes = axpyModel().serialize();
  artifact::Header h =
      artifact::decodeHeader(reinterpret_cast<const uint8_t *>(bytes.data()));
  for (uint64_t i = 0; i < h.tableOffset + h.tableSize; ++i) {
    if (i == 10 || i == 11)
      continue; // the minor version: any minor of major 1 loads
    std::string flipped = bytes;
    flipped[i] = char(flipped[i] ^ (1 << (i % 8)));
    strata_status_code code;
    std::string message = loadError(flipped, &code);
    ASSERT_EQ(code, STRATA_INVALID_ARTIFACT)
        << "byte " << i << ": " << (message.empty() ? "loaded" : message);
  }
  // Data segment: the checksum catches a flipped constant or code byte.
  for (uint64_t i = h.dataOffset; i < h.fileSize; i += 97) {
    std::string flipped = bytes;
    flipped[i] = char(flipped[i] ^ 0x10);
    EXPECT_LOAD_ERROR(flipped, "the data segment's checksum does not match");
  }
}

TEST(Verify, FlippedTableBytesBehindAFixedChecksumDoNotCrash) {
  std::string bytes = axpyModel().serialize();
  artifact::Header h =
      artifact::decodeHeader(reinterpret_cast<const uint8_t *>(bytes.data()));
  std::mt19937 rng(1);
  int rejected = 0;
  for (int n = 0; n < 3000; ++n) {
    std::string flipped = bytes;
    uint64_t i = h.tableOffset + rng() % h.tableSize;
    flipped[i] = char(flipped[i] ^ (1 << (rng() % 8)));
    strata_status_code code;
    std::string message = loadError(fixHeader(flipped), &code);
    if (code != STRATA_OK) {
      ++rejected;
      EXPECT_FALSE(message.empty());
    }
  }
  EXPECT_GT(rejected, 100);
}

TEST(Verify, MagicAndVersion) {
  std::string bytes = axpyModel().serialize();
  std::string bad = bytes;
  bad[0] = 'X';
  EXPECT_LOAD_ERROR(bad, "not a Strata artifact");
  EXPECT_LOAD_ERROR(
      withHeader(bytes,
                 [](artifact::Header &h) {
                   h.versionMajor = 2;
                   h.versionMinor = 0;
                 }),
      "format version 2.0 is not supported (this runtime reads 1.x)");
  EXPECT_LOAD_ERROR(withHeader(bytes,
                               [](artifact::Header &h) {
                                 h.versionMajor = 0;
                                 h.versionMinor = 0;
                               }),
                    "format version 0.0 is not supported");
  // A newer minor version of the same major loads.
  EXPECT_EQ(loadError(withHeader(
                bytes, [](artifact::Header &h) { h.versionMinor = 7; })),
            "");
}

TEST(Verify, RegionsOutOfRange) {
  std::string bytes = axpyModel().serialize();
  EXPECT_LOAD_ERROR(
      withHeader(bytes,
                 [](artifact::Header &h) { h.tableOffset = UINT64_MAX - 7; }),
      "FlatBuffers table [18446744073709551608, +");
  EXPECT_LOAD_ERROR(
      withHeader(bytes, [](artifact::Header &h) { h.tableSize = 1u << 30; }),
      "is not an 8-byte aligned region after the header and inside the file");
  EXPECT_LOAD_ERROR(
      withHeader(bytes, [](artifact::Header &h) { h.tableOffset = 32; }),
      "FlatBuffers table [32, +");
  EXPECT_LOAD_ERROR(
      withHeader(bytes, [](artifact::Header &h) { h.dataOffset += 1; }),
      "-byte aligned region after the table and inside the file");
  EXPECT_LOAD_ERROR(
      withHeader(bytes, [](artifact::Header &h) { h.dataSize = UINT64_MAX; }),
      "data segment [");
  EXPECT_LOAD_ERROR(
      withHeader(bytes, [](artifact::Header &h) { h.headerSize = 16; }),
      "header size 16 is out of range");
  EXPECT_LOAD_ERROR(
      withHeader(bytes, [](artifact::Header &h) { h.tableCrc ^= 1; }),
      "the FlatBuffers table's checksum does not match");
  // Garbage with a correct checksum: the FlatBuffers verifier.
  std::string garbage = bytes;
  artifact::Header h =
      artifact::decodeHeader(reinterpret_cast<const uint8_t *>(bytes.data()));
  for (uint64_t i = 0; i < h.tableSize; ++i)
    garbage[h.tableOffset + i] = char(0xA5 ^ i);
  EXPECT_LOAD_ERROR(fixHeader(garbage),
                    "the FlatBuffers table fails structural verification");
}

/// Each case breaks one thing of the good model.
struct MeaningCase {
  const char *name;
  void (*edit)(Spec &s);
  const char *message;
  strata_status_code code = STRATA_INVALID_ARTIFACT;
};

const MeaningCase kMeaningCases[] = {
    {"arena buffer past the arena",
     [](Spec &s) { s.variants[0].buffers[2].offset = 72; },
     "variant 0: buffer 2 [72, +16) is outside the arena (80 bytes)"},
    {"arena offset that overflows",
     [](Spec &s) { s.variants[0].buffers[2].offset = UINT64_MAX - 4; },
     "variant 0: buffer 2 [18446744073709551611, +16) is outside the arena"},
    {"size that disagrees with dtype and shape",
     [](Spec &s) { s.variants[0].buffers[2].size = 12; },
     "variant 0: buffer 2 has size 12 bytes, but f32 [1, 4] is 16"},
    {"shape whose size overflows",
     [](Spec &s) {
       s.variants[0].buffers[2].shape = {INT64_MAX / 2, INT64_MAX / 2};
     },
     "variant 0: buffer 2 has shape [4611686018427387903, "
     "4611686018427387903], which is not static or overflows"},
    {"partially overlapping bindings",
     [](Spec &s) {
       auto &v = s.variants[0];
       v.buffers.push_back(
           {BufferKind::Arena, 0, 56, 16, artifact::DType::F32, {1, 4}});
       v.dispatches[1].bindings = {2, 4, 3};
     },
     "variant 0: dispatch 1: bindings 0 [64, +16) and 1 [56, +16) partially "
     "overlap in the arena"},
    {"binding out of range",
     [](Spec &s) { s.variants[0].dispatches[0].bindings = {0, 1, 9}; },
     "variant 0: dispatch 0: binding 2 names buffer 9, the variant has 4"},
    {"executable without a listed symbol",
     [](Spec &s) { s.executables[0].symbols.push_back("nope"); },
     "executable 'test_kernels' does not export symbol 'nope'"},
    {"dispatch of a symbol the executable does not list",
     [](Spec &s) { s.variants[0].dispatches[0].symbol = "nope"; },
     "variant 0: dispatch 0 calls 'nope', which executable 'test_kernels' "
     "does not list"},
    {"executable index out of range",
     [](Spec &s) { s.variants[0].dispatches[0].executable = 3; },
     "variant 0: dispatch 0 names executable 3, the model has 1"},
    {"unknown kernel",
     [](Spec &s) { s.variants[0].dispatches[1].symbol = "mul_f32"; },
     // The list goes on with the kernels added since (Winograd, oneDNN in
     // a build with it, ...).
     "variant 0: dispatch 1: unknown kernel 'mul_f32' (the cpu driver has: "
     "copy, add_f32, matmul_f32, matmul_gemm_f32, matmul_gemv_f32, "
     "matmul_batched_gemm_f32, conv2d_1x1_gemm_f32, conv2d_im2col_gemm_f32, "
     "conv2d_depthwise_f32, "},
    {"kernel with the wrong number of bindings",
     [](Spec &s) { s.variants[0].dispatches[1].bindings = {2, 0}; },
     "kernel 'add_f32' takes 3 bindings and 1 params, the dispatch has 2 "
     "and 1"},
    {"kernel params beyond its buffers",
     [](Spec &s) { s.variants[0].dispatches[1].params = {1000}; },
     "kernel 'add_f32': binding 0 (a) has 16 bytes, the params need 1000 x "
     "4"},
    {"kernel writing a constant",
     [](Spec &s) { s.variants[0].dispatches[1].bindings = {2, 0, 1}; },
     "kernel 'add_f32' writes binding 2, which is a constant"},
    {"input buffer of another shape than the variant's input",
     [](Spec &s) { s.variants[0].buffers[0].shape = {2, 2}; },
     "variant 0: buffer 0 is f32 [2, 2], but input 'x' is f32 [1, 4] in "
     "this variant"},
    {"input buffer naming a missing input",
     [](Spec &s) { s.variants[0].buffers[0].index = 2; },
     "variant 0: buffer 0 names input 2, the model has 1"},
    {"variant shape that does not fit the signature",
     [](Spec &s) { s.variants[0].inputShapes = {{1, 5}}; },
     "variant 0: input 'x' has shape [1, 5], which is not a static instance "
     "of the signature's [-1, 4]"},
    {"variant with a dynamic input dim",
     [](Spec &s) { s.variants[0].inputShapes = {{-1, 4}}; },
     "variant 0: input 'x' has shape [-1, 4], which is not a static "
     "instance"},
    // (An output's -1 is a dim decided at run time since format 1.2.)
    {"variant with a dynamic output dim and no runtime shape",
     [](Spec &s) { s.variants[0].outputShapes = {{-1, 4}}; },
     "variant 0: output 'y' has shape [-1, 4] but no runtime shape"},
    {"variant with too few input shapes",
     [](Spec &s) { s.variants[0].inputShapes.clear(); },
     "variant 0 has 0 input shapes, the signature has 1 inputs"},
    {"two variants for the same shapes", [](Spec &s) { s = axpyModel({3, 3}); },
     "variant 1 has the same input shapes as variant 0"},
    {"no variants", [](Spec &s) { s.variants.clear(); },
     "the model has no variants"},
    {"output without a buffer",
     [](Spec &s) {
       auto &v = s.variants[0];
       v.buffers[3].kind = BufferKind::Arena;
     },
     "variant 0: output 'y' has no buffer"},
    {"two inputs of one name", [](Spec &s) { s.inputs.push_back(s.inputs[0]); },
     "two inputs are named 'x'"},
    {"unknown dtype", [](Spec &s) { s.inputs[0].dtype = artifact::DType(99); },
     "input 0 'x' has unknown dtype 99"},
    {"dtype one past the last (format 1.1: F8E8M0FNU = 23)",
     [](Spec &s) { s.outputs[0].dtype = artifact::DType(24); },
     "output 0 'y' has unknown dtype 24"},
    {"buffer of a narrow dtype whose size is not one byte per element",
     [](Spec &s) {
       s.variants[0].buffers[2].dtype = artifact::DType::I4;
       s.variants[0].buffers[2].size = 2; // 4 x i4 takes 4 bytes, not 2
     },
     "variant 0: buffer 2 has size 2 bytes, but i4 [1, 4] is 4"},
    {"dim below -1", [](Spec &s) { s.outputs[0].shape = {-2, 4}; },
     "output 0 'y' has dim -2 in shape [-2, 4]"},
    {"bad quantization scale",
     [](Spec &s) { s.inputs[0].quant = artifact::Quantization{0.0, 0}; },
     "input 0 'x' has quantization scale 0.000000 (must be finite and > 0)"},
    {"no outputs", [](Spec &s) { s.outputs.clear(); },
     "the signature has no outputs"},
    {"zero workgroups",
     [](Spec &s) { s.variants[0].dispatches[0].workgroupCount = 0; },
     "variant 0: dispatch 0 has workgroup count 0 (1 to 16777216)"},
    {"dispatch device without a driver",
     [](Spec &s) { s.variants[0].dispatches[1].device = "npu-hw"; },
     "device 'npu-hw' has no driver in this runtime (it has: cpu, npu-sim)",
     STRATA_UNSUPPORTED},
    {"built-in kernel on the npu-sim device",
     [](Spec &s) { s.variants[0].dispatches[1].device = "npu-sim"; },
     "the npu-sim device has no built-in kernels"},
    {"native dispatch on another device than its executable",
     [](Spec &s) { s.variants[0].dispatches[0].device = "npu-sim"; },
     "variant 0: dispatch 0 runs on device 'npu-sim' but executable "
     "'test_kernels' is for 'cpu'"},
    {"executable that is not ELF",
     [](Spec &s) { s.executables[0].code = std::string(100, 'z'); },
     "executable 'test_kernels' is not an ELF file"},
    {"executable for another machine",
     [](Spec &s) {
       s.executables[0].code[18] = 40; /* EM_ARM */
     },
     "executable 'test_kernels' is not a 64-bit little-endian x86-64 shared "
     "object (class 2, data 1, machine 40, type 3)"},
    {"executable that is an ELF header only",
     [](Spec &s) { s.executables[0].code.resize(64); },
     "executable 'test_kernels' cannot be loaded: "},
    {"executable format the cpu driver does not load",
     [](Spec &s) { s.executables[0].format = "wasm"; },
     "executable 'test_kernels': format 'wasm' is not one the cpu driver "
     "loads (elf-x86_64)"},
    {"repeated symbol",
     [](Spec &s) { s.executables[0].symbols.push_back("axpy_f32"); },
     "executable 0 'test_kernels' lists an empty or repeated symbol"},
    {"constant outside the data segment",
     [](Spec &s) {
       s.rawConstantOffsets = true;
       s.variants[0].buffers[1].offset = uint64_t(1) << 40;
     },
     "variant 0: buffer 1: constant [1099511627776, +16) is outside the data "
     "segment"},
    {"misaligned constant",
     [](Spec &s) {
       s.rawConstantOffsets = true;
       s.variants[0].buffers[1].offset = 4;
     },
     "variant 0: buffer 1: constant offset 4 is not 64-byte aligned"},
};

TEST(Verify, MeaningErrors) {
  for (const MeaningCase &c : kMeaningCases) {
    SCOPED_TRACE(c.name);
    Spec s = axpyModel({1});
    c.edit(s);
    strata_status_code code;
    std::string message = loadError(s.serialize(), &code);
    EXPECT_EQ(code, c.code) << message;
    EXPECT_NE(message.find(c.message), std::string::npos)
        << "message: " << message << "\nexpected: " << c.message;
  }
}

/// Format 1.2: s, l, d i64 [] -> y = range(s, l, d) i64 [-1], bound 8,
/// its dims in arena buffer 4.
Spec rangeModel() {
  Spec s;
  for (const char *n : {"s", "l", "d"})
    s.inputs.push_back({n, artifact::DType::I64, {}, std::nullopt});
  s.outputs.push_back({"y", artifact::DType::I64, {-1}, std::nullopt});
  artifact::VariantSpec v;
  v.inputShapes = {{}, {}, {}};
  v.outputShapes = {{-1}};
  v.arenaSize = 64;
  for (uint32_t i = 0; i < 3; ++i)
    v.buffers.push_back({BufferKind::Input, i, 0, 8, artifact::DType::I64, {}});
  v.buffers.push_back(
      {BufferKind::Output, 0, 0, 64, artifact::DType::I64, {8}});
  v.buffers.push_back({BufferKind::Arena, 0, 0, 8, artifact::DType::I64, {1}});
  artifact::DispatchSpec d;
  d.kind = DispatchKind::Kernel;
  d.symbol = "range";
  d.bindings = {0, 1, 2, 3, 4};
  d.params = {11, 8};
  v.dispatches = {d};
  v.runtimeShapes = {{3, 4, 0, "Range 'y'"}};
  s.variants = {v};
  return s;
}

/// Runs `bytes` on (s, l, d); the output's dims, or the run's error.
std::string runRange(const std::string &bytes, int64_t s, int64_t l, int64_t d,
                     std::vector<int64_t> &values) {
  strata_model *m = nullptr;
  strata_session *ses = nullptr;
  std::string error;
  auto take = [&](strata_status *st) {
    if (st && error.empty())
      error = strata_status_message(st);
    strata_status_free(st);
    return st == nullptr;
  };
  int64_t in[3] = {s, l, d};
  if (take(strata_model_load_memory(bytes.data(), bytes.size(), &m)) &&
      take(strata_session_create(m, 1, &ses))) {
    bool ok = true;
    for (size_t i = 0; ok && i < 3; ++i)
      ok = take(strata_session_set_input(ses, i, STRATA_DTYPE_I64, nullptr, 0,
                                         &in[i], 8));
    strata_tensor_view out;
    if (ok && take(strata_session_run(ses)) &&
        take(strata_session_output(ses, 0, &out))) {
      EXPECT_EQ(out.rank, 1u);
      EXPECT_EQ(out.size_bytes, uint64_t(out.dims[0]) * 8);
      const int64_t *p = static_cast<const int64_t *>(out.data);
      values.assign(p, p + out.dims[0]);
    }
  }
  strata_session_release(ses);
  strata_model_release(m);
  return error;
}

TEST(Verify, RuntimeShapesLoadAndRun) {
  std::string bytes = rangeModel().serialize();
  std::vector<int64_t> y;
  EXPECT_EQ(runRange(bytes, 1, 8, 2, y), "");
  EXPECT_EQ(y, (std::vector<int64_t>{1, 3, 5, 7}));
  EXPECT_EQ(runRange(bytes, 3, 3, 1, y), "");
  EXPECT_TRUE(y.empty());
  EXPECT_EQ(runRange(bytes, 0, 8, 1, y), "");
  EXPECT_EQ(y.size(), 8u);
  // One past the bound: the kernel writes only the dims, the session says.
  std::string error = runRange(bytes, 0, 9, 1, y);
  EXPECT_NE(error.find("dispatch 0 (Range 'y'): the result's run-time shape "
                       "[9] exceeds its compiled bound [8]"),
            std::string::npos)
      << error;
  error = runRange(bytes, 0, 9, 0, y);
  EXPECT_NE(error.find("Range's delta is 0"), std::string::npos) << error;
}

TEST(Verify, RuntimeShapeErrors) {
  struct Case {
    const char *name;
    void (*edit)(artifact::VariantSpec &v);
    const char *message;
  };
  const Case cases[] = {
      {"buffer out of range",
       [](artifact::VariantSpec &v) { v.runtimeShapes[0].buffer = 9; },
       "runtime shape 0 names buffer 9"},
      {"dispatch out of range",
       [](artifact::VariantSpec &v) { v.runtimeShapes[0].dispatch = 1; },
       "the variant has 5 buffers and 1 dispatches"},
      {"shape buffer not i64",
       [](artifact::VariantSpec &v) {
         v.buffers[4].dtype = artifact::DType::F64;
       },
       "shape buffer 4 is not an i64 arena buffer of shape [1]"},
      {"shape buffer of the wrong rank",
       [](artifact::VariantSpec &v) {
         v.buffers[4].shape = {2};
         v.buffers[4].size = 16;
       },
       "shape buffer 4 is not an i64 arena buffer of shape [1]"},
      {"shape buffer an input",
       [](artifact::VariantSpec &v) { v.runtimeShapes[0].shapeBuffer = 0; },
       "shape buffer 0 is not an i64 arena buffer"},
      {"data buffer an input",
       [](artifact::VariantSpec &v) { v.runtimeShapes[0].buffer = 0; },
       "buffer 0 is not an arena or output buffer"},
      {"dispatch does not bind it",
       [](artifact::VariantSpec &v) { v.dispatches[0].bindings[3] = 4; },
       "dispatch 0 does not bind buffer 3"},
      {"two runtime shapes for one buffer",
       [](artifact::VariantSpec &v) {
         v.runtimeShapes.push_back(v.runtimeShapes[0]);
       },
       "buffer 3 has two runtime shapes"},
      {"an output with -1 and no runtime shape",
       [](artifact::VariantSpec &v) { v.runtimeShapes.clear(); },
       "output 'y' has shape [-1] but no runtime shape"},
      {"an output with a runtime shape and a static shape",
       [](artifact::VariantSpec &v) { v.outputShapes = {{8}}; },
       "output 'y' has shape [8] and a runtime shape"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Spec s = rangeModel();
    c.edit(s.variants[0]);
    EXPECT_LOAD_ERROR(s.serialize(), c.message);
  }
}

} // namespace
