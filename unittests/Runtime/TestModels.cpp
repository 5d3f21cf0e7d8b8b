//===- TestModels.cpp - Artifacts for the runtime tests -------------------===//

#include "TestModels.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace strata::test {

using namespace strata::artifact;

std::string Spec::serialize() const {
  ArtifactWriter w(name);
  for (const TensorSpec &t : inputs)
    w.addInput(t);
  for (const TensorSpec &t : outputs)
    w.addOutput(t);
  for (const ExecutableBlob &e : executables)
    w.addExecutable(e.name, e.device, e.format, e.code, e.symbols);
  std::vector<uint64_t> offsets;
  for (const std::string &c : constants)
    offsets.push_back(w.addData(c.data(), c.size()));
  for (VariantSpec v : variants) {
    if (!rawConstantOffsets)
      for (BufferSpec &b : v.buffers)
        if (b.kind == BufferKind::Constant)
          b.offset = offsets.at(b.offset);
    w.addVariant(std::move(v));
  }
  return w.serialize();
}

const std::string &testKernelsSo() {
  static const std::string bytes = [] {
    std::ifstream is(STRATA_TEST_KERNELS_SO, std::ios::binary);
    if (!is)
      throw std::runtime_error("cannot read " STRATA_TEST_KERNELS_SO);
    std::ostringstream os;
    os << is.rdbuf();
    return os.str();
  }();
  return bytes;
}

namespace {
BufferSpec buffer(BufferKind kind, uint32_t index, uint64_t offset,
                  std::vector<int64_t> shape, DType dtype = DType::F32) {
  uint64_t size = dtype == DType::F32 ? 4 : 1;
  for (int64_t d : shape)
    size *= uint64_t(d);
  return {kind, index, offset, size, dtype, std::move(shape)};
}

std::string floatBytes(const std::vector<float> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()),
                     v.size() * sizeof(float));
}
} // namespace

Spec axpyModel(const std::vector<int64_t> &batches) {
  Spec s;
  s.name = "axpy";
  s.inputs.push_back({"x", DType::F32, {-1, 4}, std::nullopt});
  s.outputs.push_back({"y", DType::F32, {-1, 4}, std::nullopt});
  s.executables.push_back({"test_kernels", "cpu", "elf-x86_64",
                           testKernelsSo(),
                           {"axpy_f32", "tag_workgroup", "fail_in"}});
  for (size_t vi = 0; vi < batches.size(); ++vi) {
    int64_t n = batches[vi], count = n * 4;
    std::vector<float> c(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      c[size_t(i)] = 0.5f * float(i);
    s.constants.push_back(floatBytes(c));
    VariantSpec v;
    v.inputShapes = {{n, 4}};
    v.outputShapes = {{n, 4}};
    v.arenaSize = uint64_t(count) * 4 + 64;
    v.buffers = {buffer(BufferKind::Input, 0, 0, {n, 4}),
                 buffer(BufferKind::Constant, 0, vi, {count}),
                 buffer(BufferKind::Arena, 0, 64, {n, 4}),
                 buffer(BufferKind::Output, 0, 0, {n, 4})};
    DispatchSpec axpy;
    axpy.symbol = "axpy_f32";
    axpy.bindings = {0, 1, 2};
    axpy.params = {count};
    axpy.workgroupCount = 2;
    DispatchSpec add;
    add.kind = DispatchKind::Kernel;
    add.symbol = "add_f32";
    add.bindings = {2, 0, 3};
    add.params = {count};
    add.workgroupCount = 3;
    v.dispatches = {axpy, add};
    s.variants.push_back(std::move(v));
  }
  return s;
}

Spec matmulModel(int64_t m, int64_t n, int64_t k,
                 const std::vector<float> &weights) {
  Spec s;
  s.name = "matmul";
  s.inputs.push_back({"a", DType::F32, {m, k}, std::nullopt});
  s.outputs.push_back({"c", DType::F32, {m, n}, std::nullopt});
  s.constants.push_back(floatBytes(weights));
  VariantSpec v;
  v.inputShapes = {{m, k}};
  v.outputShapes = {{m, n}};
  v.buffers = {buffer(BufferKind::Input, 0, 0, {m, k}),
               buffer(BufferKind::Constant, 0, 0, {k, n}),
               buffer(BufferKind::Output, 0, 0, {m, n})};
  DispatchSpec mm;
  mm.kind = DispatchKind::Kernel;
  mm.symbol = "matmul_f32";
  mm.bindings = {0, 1, 2};
  mm.params = {m, n, k};
  mm.workgroupCount = 4;
  v.dispatches = {mm};
  s.variants.push_back(std::move(v));
  return s;
}

} // namespace strata::test
