//===- artifact_seeds.cpp - Seeds for the artifact fuzzer -----------------===//
//
// usage: strata-artifact-seeds OUT_DIR
// Writes small .strata files covering the format: kernel-only models (copy,
// add_f32, matmul_f32 with constants), two variants over a dynamic dim,
// quantization params, several outputs, no inputs, and a model whose
// executable is not ELF (the fuzzer never gets real code to load), and a
// model whose one dispatch runs an NPU program on npu-sim (docs/npu-sim.md).
//
//===----------------------------------------------------------------------===//

#include "strata/Artifact/ArtifactWriter.h"
#include "strata/NpuSim/NpuProgram.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace strata::artifact;

namespace {
BufferSpec buf(BufferKind kind, uint32_t index, uint64_t offset,
               std::vector<int64_t> shape) {
  uint64_t size = 4;
  for (int64_t d : shape)
    size *= uint64_t(d);
  return {kind, index, offset, size, DType::F32, std::move(shape)};
}

DispatchSpec kernel(const char *name, std::vector<uint32_t> bindings,
                    std::vector<int64_t> params, int64_t groups) {
  DispatchSpec d;
  d.kind = DispatchKind::Kernel;
  d.symbol = name;
  d.bindings = std::move(bindings);
  d.params = std::move(params);
  d.workgroupCount = groups;
  return d;
}

bool write(const std::string &dir, const char *name, const ArtifactWriter &w) {
  std::string error;
  if (!w.writeFile(dir + "/" + name + ".strata", error)) {
    std::fprintf(stderr, "strata-artifact-seeds: %s\n", error.c_str());
    return false;
  }
  return true;
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: strata-artifact-seeds OUT_DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = true;
  std::vector<float> weights(12);
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] = float(i) * 0.25f - 1.0f;

  { // y = x + x, then copied: two variants over the batch dim.
    ArtifactWriter w("add", "seed");
    w.addInput({"x", DType::F32, {-1, 3}, std::nullopt});
    w.addOutput({"y", DType::F32, {-1, 3}, std::nullopt});
    for (int64_t n : {1, 4}) {
      VariantSpec v;
      v.inputShapes = {{n, 3}};
      v.outputShapes = {{n, 3}};
      v.arenaSize = uint64_t(n) * 12;
      v.buffers = {buf(BufferKind::Input, 0, 0, {n, 3}),
                   buf(BufferKind::Arena, 0, 0, {n, 3}),
                   buf(BufferKind::Output, 0, 0, {n, 3})};
      v.dispatches = {kernel("add_f32", {0, 0, 1}, {n * 3}, 2),
                      kernel("copy", {1, 2}, {n * 12}, 3)};
      w.addVariant(v);
    }
    ok &= write(dir, "add", w);
  }
  { // c = a @ W, W a constant [4, 3]; quantization params on the input.
    ArtifactWriter w("matmul", "seed");
    w.addInput({"a", DType::F32, {2, 4}, Quantization{0.5, 3}});
    w.addOutput({"c", DType::F32, {2, 3}, std::nullopt});
    uint64_t off = w.addData(weights.data(), weights.size() * 4);
    VariantSpec v;
    v.inputShapes = {{2, 4}};
    v.outputShapes = {{2, 3}};
    v.buffers = {buf(BufferKind::Input, 0, 0, {2, 4}),
                 buf(BufferKind::Constant, 0, off, {4, 3}),
                 buf(BufferKind::Output, 0, 0, {2, 3})};
    v.dispatches = {kernel("matmul_f32", {0, 1, 2}, {2, 3, 4}, 2)};
    w.addVariant(v);
    ok &= write(dir, "matmul", w);
  }
  { // No inputs, two outputs copied from constants.
    ArtifactWriter w("constants", "seed");
    w.addOutput({"a", DType::F32, {12}, std::nullopt});
    w.addOutput({"b", DType::F32, {2, 2}, std::nullopt});
    uint64_t a = w.addData(weights.data(), 48);
    uint64_t b = w.addData(weights.data() + 4, 16);
    VariantSpec v;
    v.outputShapes = {{12}, {2, 2}};
    v.buffers = {buf(BufferKind::Constant, 0, a, {12}),
                 buf(BufferKind::Constant, 0, b, {2, 2}),
                 buf(BufferKind::Output, 0, 0, {12}),
                 buf(BufferKind::Output, 1, 0, {2, 2})};
    v.dispatches = {kernel("copy", {0, 2}, {48}, 1),
                    kernel("copy", {1, 3}, {16}, 1)};
    w.addVariant(v);
    ok &= write(dir, "constants", w);
  }
  { // A native dispatch of an executable that is not ELF: rejected on load.
    ArtifactWriter w("native", "seed");
    w.addInput({"x", DType::F32, {4}, std::nullopt});
    w.addOutput({"y", DType::F32, {4}, std::nullopt});
    w.addExecutable("kernels", "cpu", "elf-x86_64",
                    std::string("\x7f"
                                "ELF not really",
                                14),
                    {"f"});
    VariantSpec v;
    v.inputShapes = {{4}};
    v.outputShapes = {{4}};
    v.buffers = {buf(BufferKind::Input, 0, 0, {4}),
                 buf(BufferKind::Output, 0, 0, {4})};
    DispatchSpec d;
    d.symbol = "f";
    d.bindings = {0, 1};
    d.params = {4};
    v.dispatches = {d};
    w.addVariant(v);
    ok &= write(dir, "native", w);
  }
  { // An NPU program on npu-sim: y = requant(x + x), int8 [16].
    namespace sim = strata::npusim;
    sim::Program p;
    p.name = "add";
    p.bindings = {{"x", 16, false}, {"y", 16, true}};
    sim::Task load, add, wait, store;
    load.kind = sim::TaskKind::DmaLoad;
    load.dma = {0, 0, 0, 1, {16}, {1}, {1}};
    add.kind = sim::TaskKind::Slice;
    add.slice.kernel = sim::KernelKind::Add;
    add.slice.input = {0, {16}, {1}};
    add.slice.input2 = {0, {16}, {1}};
    add.slice.output = {64, {16}, {1}};
    add.slice.inputMultiplier = add.slice.input2Multiplier = 1 << 30;
    add.slice.inputShift = add.slice.input2Shift = 30;
    add.slice.multiplier = 1 << 30;
    add.slice.shift = 30;
    store.kind = sim::TaskKind::DmaStore;
    store.dma = {1, 0, 64, 1, {16}, {1}, {1}};
    p.segments = {{{load, wait, add, wait, store}}};
    std::vector<uint8_t> code = sim::encodeProgram(p);
    ArtifactWriter w("npu", "seed");
    w.addInput({"x", DType::I8, {16}, std::nullopt});
    w.addOutput({"y", DType::I8, {16}, std::nullopt});
    w.addExecutable("add", "npu-sim", "strata-npu-program",
                    std::string(code.begin(), code.end()), {"add"});
    VariantSpec v;
    v.inputShapes = {{16}};
    v.outputShapes = {{16}};
    v.buffers = {{BufferKind::Input, 0, 0, 16, DType::I8, {16}},
                 {BufferKind::Output, 0, 0, 16, DType::I8, {16}}};
    DispatchSpec d;
    d.device = "npu-sim";
    d.symbol = "add";
    d.bindings = {0, 1};
    v.dispatches = {d};
    w.addVariant(v);
    ok &= write(dir, "npu", w);
  }
  return ok ? 0 : 1;
}
