//===- make_example_artifact.cpp - The artifact the C example runs --------===//
//
// usage: strata-example-artifact OUT.strata
// Until `strata compile` writes artifacts, this writes a small one with the
// runtime's built-in kernels: x f32 [-1, 4] -> y = (x + x) @ W with the
// constant W = 0.5 I, so y == x; variants for batch 1 and 2.
//
//===----------------------------------------------------------------------===//

#include "strata/Artifact/ArtifactWriter.h"

#include <cstdio>
#include <vector>

using namespace strata::artifact;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: strata-example-artifact OUT.strata\n");
    return 2;
  }
  ArtifactWriter w("double_then_halve", "strata-example-artifact");
  w.addInput({"x", DType::F32, {-1, 4}, std::nullopt});
  w.addOutput({"y", DType::F32, {-1, 4}, std::nullopt});
  std::vector<float> half(16, 0.0f);
  for (int i = 0; i < 4; ++i)
    half[i * 5] = 0.5f;
  uint64_t wOffset = w.addData(half.data(), half.size() * sizeof(float));
  for (int64_t n : {1, 2}) {
    uint64_t bytes = uint64_t(n) * 16;
    VariantSpec v;
    v.inputShapes = {{n, 4}};
    v.outputShapes = {{n, 4}};
    v.arenaSize = bytes;
    v.buffers = {{BufferKind::Input, 0, 0, bytes, DType::F32, {n, 4}},
                 {BufferKind::Arena, 0, 0, bytes, DType::F32, {n, 4}},
                 {BufferKind::Constant, 0, wOffset, 64, DType::F32, {4, 4}},
                 {BufferKind::Output, 0, 0, bytes, DType::F32, {n, 4}}};
    DispatchSpec add;
    add.kind = DispatchKind::Kernel;
    add.symbol = "add_f32";
    add.bindings = {0, 0, 1};
    add.params = {n * 4};
    DispatchSpec mm;
    mm.kind = DispatchKind::Kernel;
    mm.symbol = "matmul_f32";
    mm.bindings = {1, 2, 3};
    mm.params = {n, 4, 4};
    mm.workgroupCount = n;
    v.dispatches = {add, mm};
    w.addVariant(v);
  }
  std::string error;
  if (!w.writeFile(argv[1], error)) {
    std::fprintf(stderr, "strata-example-artifact: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
