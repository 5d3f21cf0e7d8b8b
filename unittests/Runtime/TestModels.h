//===- TestModels.h - Artifacts for the runtime tests -----------*- C++ -*-===//
//
// A Spec is an artifact's content as plain data that a test can break in one
// place before serializing it through ArtifactWriter.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_UNITTESTS_RUNTIME_TESTMODELS_H
#define STRATA_UNITTESTS_RUNTIME_TESTMODELS_H

#include "strata/Artifact/ArtifactWriter.h"

#include <string>
#include <vector>

namespace strata::test {

struct ExecutableBlob {
  std::string name, device = "cpu", format = "elf-x86_64", code;
  std::vector<std::string> symbols;
};

struct Spec {
  std::string name = "model";
  std::vector<artifact::TensorSpec> inputs, outputs;
  std::vector<ExecutableBlob> executables;
  std::vector<std::string> constants;
  std::vector<artifact::VariantSpec> variants;
  /// When false, a Constant buffer's `offset` is the number of the constant
  /// in `constants` and is replaced by its data-segment offset.
  bool rawConstantOffsets = false;

  std::string serialize() const;
};

/// The bytes of the test kernels' shared object (test_kernels.c).
const std::string &testKernelsSo();

/// x f32 [-1, 4] -> y f32 [-1, 4], one variant per batch size N:
///   t = axpy_f32(x, c) = 2 x + c   (native, 2 workgroups; c a constant)
///   y = add_f32(t, x)              (built-in kernel, 3 workgroups)
/// so y = 3 x + c, with c[i] = 0.5 i.
Spec axpyModel(const std::vector<int64_t> &batches = {1, 3});

/// a f32 [M, K], constant b [K, N] -> c = matmul_f32(a, b), 4 workgroups.
Spec matmulModel(int64_t m, int64_t n, int64_t k,
                 const std::vector<float> &weights);

} // namespace strata::test

#endif // STRATA_UNITTESTS_RUNTIME_TESTMODELS_H
