//===- RuntimeTest.cpp - Loading and running artifacts --------------------===//
//
// Artifacts written with ArtifactWriter, whose native code is the test
// kernels' shared object, run through the C API and the C++ wrapper; the
// expected values are computed here.
//
//===----------------------------------------------------------------------===//

#include "strata/Runtime/Runtime.hpp"
#include "TestModels.h"
#include "strata/Runtime/strata_runtime.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <random>
#include <unistd.h>

using namespace strata;
using namespace strata::test;

namespace {

/// A fresh private folder, removed (with its files) at the end.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    path = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-rt-test-XXXXXX";
    if (!mkdtemp(path.data()))
      path.clear();
  }
  ~TempDir() {
    for (const std::string &f : files())
      std::remove((path + "/" + f).c_str());
    rmdir(path.c_str());
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    if (DIR *d = opendir(path.c_str())) {
      while (dirent *e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
          names.push_back(e->d_name);
      closedir(d);
    }
    return names;
  }
  std::string path;
};

std::vector<float> runAxpy(rt::Model &model, int64_t batch, size_t threads,
                           const std::vector<float> &x) {
  rt::Session s(model, threads);
  s.setInput(0, STRATA_DTYPE_F32, {batch, 4}, x.data(), x.size() * 4);
  s.run();
  strata_tensor_view out = s.output(0);
  EXPECT_EQ(out.dtype, STRATA_DTYPE_F32);
  EXPECT_EQ(out.rank, 2u);
  EXPECT_EQ(out.dims[0], batch);
  EXPECT_EQ(out.dims[1], 4);
  EXPECT_EQ(out.size_bytes, x.size() * 4);
  const float *y = static_cast<const float *>(out.data);
  return std::vector<float>(y, y + x.size());
}

TEST(Runtime, SignatureAndVariants) {
  std::string bytes = axpyModel({1, 3}).serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  EXPECT_EQ(m.name(), "axpy");
  ASSERT_EQ(m.inputCount(), 1u);
  ASSERT_EQ(m.outputCount(), 1u);
  EXPECT_EQ(m.variantCount(), 2u);
  strata_tensor_info in = m.input(0);
  EXPECT_STREQ(in.name, "x");
  EXPECT_EQ(in.dtype, STRATA_DTYPE_F32);
  ASSERT_EQ(in.rank, 2u);
  EXPECT_EQ(in.dims[0], -1);
  EXPECT_EQ(in.dims[1], 4);
  EXPECT_EQ(in.has_quant, 0);
  EXPECT_STREQ(m.output(0).name, "y");
  size_t rank = 0;
  const int64_t *dims = nullptr;
  ASSERT_EQ(strata_model_variant_shape(m.get(), 1, 1, 0, &rank, &dims),
            nullptr);
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(dims[0], 3);
  EXPECT_EQ(dims[1], 4);
  strata_status *st =
      strata_model_variant_shape(m.get(), 2, 0, 0, &rank, &dims);
  ASSERT_NE(st, nullptr);
  EXPECT_STREQ(strata_status_message(st),
               "variant 2 is out of range (model 'axpy' has 2 variants)");
  strata_status_free(st);
  try {
    m.input(1);
    FAIL() << "no error for input 1";
  } catch (const rt::Error &e) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "input index 1 is out of range (model 'axpy' has 1 "
                           "inputs)");
  }
}

TEST(Runtime, QuantizationParamsRoundTrip) {
  Spec s = axpyModel({1});
  s.inputs[0].quant = artifact::Quantization{0.25, -3};
  std::string bytes = s.serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  strata_tensor_info in = m.input(0);
  EXPECT_EQ(in.has_quant, 1);
  EXPECT_EQ(in.scale, 0.25);
  EXPECT_EQ(in.zero_point, -3);
}

TEST(Runtime, RunsTheVariantOfTheInputShape) {
  std::string bytes = axpyModel({1, 3}).serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  for (int64_t batch : {3, 1}) {
    std::vector<float> x(size_t(batch * 4));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i) - 2.5f;
    std::vector<float> y = runAxpy(m, batch, 2, x);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_FLOAT_EQ(y[i], 3.0f * x[i] + 0.5f * float(i))
          << "batch " << batch << " element " << i;
  }
  // A shape no variant was compiled for.
  rt::Session s(m, 1);
  std::vector<float> x(8);
  s.setInput(0, STRATA_DTYPE_F32, {2, 4}, x.data(), 32);
  try {
    s.run();
    FAIL() << "no error for batch 2";
  } catch (const rt::Error &e) {
    EXPECT_EQ(e.code(), STRATA_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "model 'axpy' was not compiled for input shapes "
                           "[2, 4] (its variants take: [1, 4]; [3, 4])");
  }
}

TEST(Runtime, LoadsFromAFileWrittenAtomically) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::string path = dir.path + "/axpy.strata", error;
  Spec s = axpyModel({3});
  // Write through the Spec's own writer path by serializing, then compare
  // with what writeFile produces for an identical writer.
  std::string expected = s.serialize();
  {
    artifact::ArtifactWriter writer(s.name);
    for (const auto &t : s.inputs)
      writer.addInput(t);
    for (const auto &t : s.outputs)
      writer.addOutput(t);
    const ExecutableBlob &e = s.executables[0];
    writer.addExecutable(e.name, e.device, e.format, e.code, e.symbols);
    uint64_t off = writer.addData(s.constants[0].data(), s.constants[0].size());
    artifact::VariantSpec v = s.variants[0];
    v.buffers[1].offset = off;
    writer.addVariant(v);
    ASSERT_TRUE(writer.writeFile(path, error)) << error;
  }
  EXPECT_EQ(dir.files(), std::vector<std::string>{"axpy.strata"})
      << "the temporary file is left behind";
  rt::Model m = rt::Model::loadFile(path);
  std::vector<float> x(12, 1.0f);
  std::vector<float> y = runAxpy(m, 3, 1, x);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_FLOAT_EQ(y[i], 3.0f + 0.5f * float(i));

  artifact::ArtifactWriter bad("x");
  EXPECT_FALSE(bad.writeFile(dir.path + "/no/such/dir/a.strata", error));
  EXPECT_NE(error.find("cannot create a temporary file beside"),
            std::string::npos)
      << error;
}

TEST(Runtime, ThreadCountsGiveEqualResults) {
  const int64_t m = 37, n = 29, k = 53;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(size_t(m * k)), b(size_t(k * n));
  for (float &v : a)
    v = dist(rng);
  for (float &v : b)
    v = dist(rng);
  std::string bytes = matmulModel(m, n, k, b).serialize();
  rt::Model model = rt::Model::loadMemory(bytes.data(), bytes.size());
  std::vector<std::vector<float>> results;
  for (size_t threads : {1, 2}) {
    rt::Session s(model, threads);
    EXPECT_EQ(s.threadCount(), threads);
    s.setInput("a", STRATA_DTYPE_F32, {m, k}, a.data(), a.size() * 4);
    s.run();
    strata_tensor_view out = s.output(0);
    const float *c = static_cast<const float *>(out.data);
    results.emplace_back(c, c + m * n);
  }
  ASSERT_EQ(results[0], results[1]);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p)
        want += double(a[size_t(i * k + p)]) * double(b[size_t(p * n + j)]);
      EXPECT_NEAR(results[0][size_t(i * n + j)], want, 1e-4)
          << "c[" << i << ", " << j << "]";
    }
}

TEST(Runtime, DispatchProfileHasALinePerDispatch) {
  // STRATA_DISPATCH_PROFILE: each dispatch function appends its times when
  // the model is unloaded.
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::string file = dir.path + "/profile.csv";
  ASSERT_EQ(setenv("STRATA_DISPATCH_PROFILE", file.c_str(), 1), 0);
  const int64_t m = 8, n = 8, k = 8;
  std::vector<float> a(size_t(m * k), 1.0f), b(size_t(k * n), 0.5f);
  {
    std::string bytes = matmulModel(m, n, k, b).serialize();
    rt::Model model = rt::Model::loadMemory(bytes.data(), bytes.size());
    rt::Session s(model, 2);
    for (int run = 0; run < 3; ++run) {
      s.setInput("a", STRATA_DTYPE_F32, {m, k}, a.data(), a.size() * 4);
      s.run();
    }
  }
  unsetenv("STRATA_DISPATCH_PROFILE");
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 2u) << "a header and the matmul's line";
  EXPECT_EQ(lines[0], "dispatch,params,calls,workgroups,wall_us,cpu_us,"
                      "slowest_workgroup_cpu_us");
  // The kernel, its params (M N K), 3 calls, 2 workgroups (its compiled 4
  // capped at the 2 threads), then times.
  EXPECT_EQ(lines[1].rfind("kernel 'matmul_f32',8 8 8,3,2,", 0), 0u)
      << lines[1];
}

TEST(Runtime, EveryWorkgroupRuns) {
  // tag_workgroup writes x * (workgroup id + 1): with 5 workgroups over 10
  // elements, each pair of elements shows its own workgroup's id.
  Spec s = axpyModel({1});
  s.inputs[0].shape = {1, 10};
  s.outputs[0].shape = {1, 10};
  auto &v = s.variants[0];
  v.inputShapes = {{1, 10}};
  v.outputShapes = {{1, 10}};
  v.buffers = {
      {artifact::BufferKind::Input, 0, 0, 40, artifact::DType::F32, {1, 10}},
      {artifact::BufferKind::Output, 0, 0, 40, artifact::DType::F32, {1, 10}}};
  artifact::DispatchSpec d;
  d.symbol = "tag_workgroup";
  d.bindings = {0, 1};
  d.params = {10};
  d.workgroupCount = 5;
  v.dispatches = {d};
  std::string bytes = s.serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  for (size_t threads : {1, 2, 3}) {
    rt::Session session(m, threads);
    std::vector<float> x(10, 1.0f);
    session.setInput(0, STRATA_DTYPE_F32, {1, 10}, x.data(), 40);
    session.run();
    const float *y = static_cast<const float *>(session.output(0).data);
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(y[i], float(i / 2 + 1)) << "threads " << threads;
  }
}

TEST(Runtime, AFailingDispatchIsAnError) {
  Spec s = axpyModel({1});
  artifact::DispatchSpec d;
  d.symbol = "fail_in";
  d.params = {1};
  d.workgroupCount = 3;
  s.variants[0].dispatches.push_back(d);
  std::string bytes = s.serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  rt::Session session(m, 2);
  std::vector<float> x(4, 1.0f);
  session.setInput(0, STRATA_DTYPE_F32, {1, 4}, x.data(), 16);
  try {
    session.run();
    FAIL() << "no error";
  } catch (const rt::Error &e) {
    EXPECT_EQ(e.code(), STRATA_RUN_FAILED);
    EXPECT_STREQ(e.what(), "dispatch 2 failed: function 'fail_in' returned 7 "
                           "in workgroup 1 of 3");
  }
  try {
    session.output(0);
    FAIL() << "outputs of a failed run";
  } catch (const rt::Error &e) {
    EXPECT_STREQ(e.what(), "the outputs are read after a successful run");
  }
}

/// The C API with wrong inputs: each gives its message and no crash.
TEST(Runtime, WrongInputs) {
  std::string bytes = axpyModel({1}).serialize();
  strata_model *m = nullptr;
  ASSERT_EQ(strata_model_load_memory(bytes.data(), bytes.size(), &m), nullptr);
  strata_session *s = nullptr;
  ASSERT_EQ(strata_session_create(m, 1, &s), nullptr);
  float x[8] = {0};
  int64_t good[] = {1, 4}, wide[] = {1, 5}, neg[] = {-1, 4};
  auto expect = [](strata_status *st, strata_status_code code,
                   const char *message) {
    ASSERT_NE(st, nullptr) << "no error, expected: " << message;
    EXPECT_EQ(strata_status_get_code(st), code);
    EXPECT_STREQ(strata_status_message(st), message);
    strata_status_free(st);
  };
  expect(strata_session_run(s), STRATA_INVALID_ARGUMENT,
         "input 'x' is not set");
  expect(strata_session_set_input(s, 0, STRATA_DTYPE_I32, good, 2, x, 16),
         STRATA_INVALID_ARGUMENT, "input 'x' is f32, not i32");
  expect(strata_session_set_input(s, 0, STRATA_DTYPE_F32, wide, 2, x, 20),
         STRATA_INVALID_ARGUMENT, "input 'x' has shape [-1, 4], not [1, 5]");
  expect(strata_session_set_input(s, 0, STRATA_DTYPE_F32, neg, 2, x, 16),
         STRATA_INVALID_ARGUMENT, "input 'x' has shape [-1, 4], not [-1, 4]");
  expect(strata_session_set_input(s, 0, STRATA_DTYPE_F32, good, 1, x, 4),
         STRATA_INVALID_ARGUMENT, "input 'x' has shape [-1, 4], not [1]");
  expect(strata_session_set_input(s, 0, STRATA_DTYPE_F32, good, 2, x, 12),
         STRATA_INVALID_ARGUMENT, "input 'x' f32 [1, 4] is 16 bytes, not 12");
  expect(strata_session_set_input(s, 0, STRATA_DTYPE_F32, good, 2, nullptr, 16),
         STRATA_INVALID_ARGUMENT, "input 'x': data is null");
  expect(strata_session_set_input(s, 1, STRATA_DTYPE_F32, good, 2, x, 16),
         STRATA_INVALID_ARGUMENT,
         "input index 1 is out of range (model 'axpy' has 1 inputs)");
  expect(strata_session_set_input_by_name(s, "z", STRATA_DTYPE_F32, good, 2, x,
                                          16),
         STRATA_INVALID_ARGUMENT,
         "model 'axpy' has no input named 'z' (its inputs: 'x')");
  strata_tensor_view view;
  expect(strata_session_output(s, 0, &view), STRATA_INVALID_ARGUMENT,
         "the outputs are read after a successful run");
  expect(strata_session_output(s, 1, &view), STRATA_INVALID_ARGUMENT,
         "output index 1 is out of range (model 'axpy' has 1 outputs)");
  expect(strata_session_run(nullptr), STRATA_INVALID_ARGUMENT,
         "session is null");
  strata_session *s2 = nullptr;
  expect(strata_session_create(m, 5000, &s2), STRATA_INVALID_ARGUMENT,
         "thread count 5000 is above 1024");
  strata_session_release(s);
  strata_model_release(m);
}

TEST(Runtime, ReloadsObjectsTheLoaderNeverUnloads) {
  std::ifstream is(STRATA_TEST_KERNELS_NODELETE_SO, std::ios::binary);
  std::string code((std::istreambuf_iterator<char>(is)),
                   std::istreambuf_iterator<char>());
  ASSERT_FALSE(code.empty());
  // Each round changes the constant, so running a stale copy would not
  // matter, but loading one would leave its fd path or inode pointing at
  // another model's object; two models stay loaded side by side.
  for (int round = 0; round < 6; ++round) {
    Spec s = axpyModel({1});
    s.executables[0].code = code;
    std::string bytes = s.serialize();
    rt::Model a = rt::Model::loadMemory(bytes.data(), bytes.size());
    rt::Model b = rt::Model::loadMemory(bytes.data(), bytes.size());
    for (rt::Model *m : {&a, &b}) {
      std::vector<float> x = {1, 2, 3, float(round)};
      std::vector<float> y = runAxpy(*m, 1, 2, x);
      for (size_t i = 0; i < 4; ++i)
        EXPECT_FLOAT_EQ(y[i], 3.0f * x[i] + 0.5f * float(i));
    }
  }
}

TEST(Runtime, LoadsExecutablesWithoutMemfd) {
  TempDir dir; // TMPDIR for the driver's private folder
  ASSERT_FALSE(dir.path.empty());
  const char *oldTmp = std::getenv("TMPDIR");
  std::string savedTmp = oldTmp ? oldTmp : "";
  setenv("TMPDIR", dir.path.c_str(), 1);
  setenv("STRATA_RUNTIME_NO_MEMFD", "1", 1);
  std::string bytes = axpyModel({1}).serialize();
  strata_model *m = nullptr;
  strata_status *st = strata_model_load_memory(bytes.data(), bytes.size(), &m);
  unsetenv("STRATA_RUNTIME_NO_MEMFD");
  if (oldTmp)
    setenv("TMPDIR", savedTmp.c_str(), 1);
  else
    unsetenv("TMPDIR");
  ASSERT_EQ(st, nullptr) << strata_status_message(st);
  EXPECT_EQ(dir.files(), std::vector<std::string>{})
      << "the driver's temporary folder is left behind";
  strata_session *s = nullptr;
  ASSERT_EQ(strata_session_create(m, 1, &s), nullptr);
  float x[4] = {1, 2, 3, 4};
  int64_t shape[] = {1, 4};
  ASSERT_EQ(strata_session_set_input(s, 0, STRATA_DTYPE_F32, shape, 2, x, 16),
            nullptr);
  ASSERT_EQ(strata_session_run(s), nullptr);
  strata_tensor_view y;
  ASSERT_EQ(strata_session_output(s, 0, &y), nullptr);
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(static_cast<const float *>(y.data)[i],
                    3.0f * x[i] + 0.5f * float(i));
  strata_session_release(s);
  strata_model_release(m);
}

TEST(Runtime, ArtifactContents) {
  Spec spec = axpyModel({1, 3});
  std::string bytes = spec.serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  strata_artifact_info a = m.artifactInfo();
  EXPECT_STREQ(a.producer, "strata");
  EXPECT_EQ(a.version_major, 1u);
  EXPECT_EQ(a.version_minor, 2u); // 1.2: run-time shapes
  EXPECT_EQ(a.file_size, bytes.size());
  // The two constants: 4 and 12 floats; the code is not a constant.
  EXPECT_EQ(a.constants_size, (4u + 12u) * 4u);
  EXPECT_GE(a.data_size, a.constants_size + testKernelsSo().size());
  ASSERT_EQ(a.executable_count, 1u);

  strata_executable_info e = m.executableInfo(0);
  EXPECT_STREQ(e.name, "test_kernels");
  EXPECT_STREQ(e.device, "cpu");
  EXPECT_STREQ(e.format, "elf-x86_64");
  EXPECT_EQ(e.code_size, testKernelsSo().size());
  EXPECT_EQ(e.code_offset % 64, 0u);
  ASSERT_EQ(e.symbol_count, 3u);
  EXPECT_EQ(m.executableSymbol(0, 0), "axpy_f32");
  EXPECT_EQ(m.executableSymbol(0, 2), "fail_in");

  strata_variant_info v = m.variantInfo(1);
  EXPECT_EQ(v.arena_size, 12u * 4u + 64u);
  ASSERT_EQ(v.buffer_count, 4u);
  ASSERT_EQ(v.dispatch_count, 2u);
  EXPECT_EQ(m.variantShape(1, false, 0), (std::vector<int64_t>{3, 4}));

  strata_buffer_info in = m.bufferInfo(1, 0);
  EXPECT_EQ(in.kind, STRATA_BUFFER_INPUT);
  EXPECT_EQ(in.index, 0u);
  EXPECT_EQ(in.size_bytes, 48u);
  ASSERT_EQ(in.rank, 2u);
  EXPECT_EQ(in.dims[0], 3);
  strata_buffer_info c = m.bufferInfo(1, 1);
  EXPECT_EQ(c.kind, STRATA_BUFFER_CONSTANT);
  EXPECT_EQ(c.offset % 64, 0u);
  EXPECT_EQ(c.size_bytes, 48u);
  strata_buffer_info arena = m.bufferInfo(1, 2);
  EXPECT_EQ(arena.kind, STRATA_BUFFER_ARENA);
  EXPECT_EQ(arena.offset, 64u);
  EXPECT_EQ(arena.dtype, STRATA_DTYPE_F32);
  EXPECT_EQ(m.bufferInfo(1, 3).kind, STRATA_BUFFER_OUTPUT);

  strata_dispatch_info d0 = m.dispatchInfo(1, 0);
  EXPECT_STREQ(d0.device, "cpu");
  EXPECT_EQ(d0.kind, STRATA_DISPATCH_NATIVE);
  EXPECT_EQ(d0.executable, 0u);
  EXPECT_STREQ(d0.symbol, "axpy_f32");
  ASSERT_EQ(d0.binding_count, 3u);
  EXPECT_EQ(d0.bindings[2], 2u);
  ASSERT_EQ(d0.param_count, 1u);
  EXPECT_EQ(d0.params[0], 12);
  EXPECT_EQ(d0.workgroup_count, 2);
  strata_dispatch_info d1 = m.dispatchInfo(1, 1);
  EXPECT_EQ(d1.kind, STRATA_DISPATCH_KERNEL);
  EXPECT_STREQ(d1.symbol, "add_f32");
  EXPECT_EQ(d1.workgroup_count, 3);

  // Indices out of range and null arguments are errors, not crashes.
  auto message = [](strata_status *st) {
    std::string text = st ? strata_status_message(st) : "no error";
    if (st)
      EXPECT_EQ(strata_status_get_code(st), STRATA_INVALID_ARGUMENT);
    strata_status_free(st);
    return text;
  };
  strata_variant_info vi;
  strata_buffer_info bi;
  strata_dispatch_info di;
  strata_executable_info ei;
  const char *name = nullptr;
  EXPECT_EQ(message(strata_model_variant_info(m.get(), 2, &vi)),
            "variant 2 is out of range (model 'axpy' has 2 variants)");
  EXPECT_EQ(message(strata_model_buffer_info(m.get(), 0, 4, &bi)),
            "buffer 4 is out of range (variant 0 has 4 buffers)");
  EXPECT_EQ(message(strata_model_dispatch_info(m.get(), 0, 2, &di)),
            "dispatch 2 is out of range (variant 0 has 2 dispatches)");
  EXPECT_EQ(message(strata_model_executable_info(m.get(), 1, &ei)),
            "executable 1 is out of range (model 'axpy' has 1 executables)");
  EXPECT_EQ(message(strata_model_executable_symbol(m.get(), 0, 3, &name)),
            "symbol 3 is out of range (executable 'test_kernels' has 3 "
            "symbols)");
  EXPECT_EQ(message(strata_model_artifact_info(nullptr, nullptr)),
            "model is null");
  EXPECT_EQ(message(strata_model_dispatch_info(m.get(), 0, 0, nullptr)),
            "out is null");
}

TEST(Runtime, ConstantsSharedByVariantsCountOnce) {
  // Both variants bind the same constant: its bytes count once.
  Spec spec = axpyModel({1, 3});
  spec.variants[1].buffers[1].offset = 0; // constant 0 (4 floats)...
  spec.variants[1].buffers[1].size = 16;  // ...bound as [4]
  spec.variants[1].buffers[1].shape = {4};
  spec.variants[1].dispatches[0].bindings = {0, 1, 2};
  // A [4] constant does not fit axpy over [3, 4]; bind it to nothing that
  // reads past it: drop the native dispatch of variant 1.
  spec.variants[1].dispatches.erase(spec.variants[1].dispatches.begin());
  std::string bytes = spec.serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  EXPECT_EQ(m.artifactInfo().constants_size, 16u);
}

TEST(Runtime, MissingFile) {
  strata_model *m = nullptr;
  strata_status *st = strata_model_load_file("/nonexistent/a.strata", &m);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(strata_status_get_code(st), STRATA_IO_ERROR);
  EXPECT_STREQ(strata_status_message(st),
               "cannot open '/nonexistent/a.strata': No such file or "
               "directory");
  strata_status_free(st);
  EXPECT_EQ(m, nullptr);
}

} // namespace

/// bind_input / bind_output: the runs read and write the caller's memory.
TEST(Runtime, BoundMemoryIsUsedInPlace) {
  std::string bytes = axpyModel({3}).serialize();
  rt::Model m = rt::Model::loadMemory(bytes.data(), bytes.size());
  rt::Session s(m, 2);
  // Aligned to 4 bytes but not to 64: element alignment is enough.
  alignas(64) float xMem[12 + 1], yMem[12 + 1 + 1];
  float *x = xMem + 1, *y = yMem + 1;
  ASSERT_NE(reinterpret_cast<uintptr_t>(x) % 64, 0u);
  for (int i = 0; i < 12; ++i)
    x[i] = float(i) - 4.0f;
  y[12] = -7.0f; // past the output: untouched
  s.bindInput(0, STRATA_DTYPE_F32, {3, 4}, x, 48);
  s.bindOutput(0, y, 52); // larger than needed is fine
  s.run();
  strata_tensor_view out = s.output(0);
  EXPECT_EQ(out.data, static_cast<const void *>(y));
  EXPECT_EQ(out.size_bytes, 48u);
  for (int i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(y[i], 3.0f * x[i] + 0.5f * float(i)) << i;
  EXPECT_EQ(y[12], -7.0f);
  // The input is borrowed, not copied: a change shows in the next run.
  for (int i = 0; i < 12; ++i)
    x[i] = 10.0f * float(i);
  s.run();
  for (int i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(y[i], 30.0f * float(i) + 0.5f * float(i)) << i;
  // set_input copies and ends the binding: a later change is not seen.
  s.setInput(0, STRATA_DTYPE_F32, {3, 4}, x, 48);
  x[0] = 1000.0f;
  s.run();
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  // Unbinding the output: session memory again, the caller's is left alone.
  s.bindOutput(0, nullptr, 0);
  y[0] = -1.0f;
  s.run();
  out = s.output(0);
  EXPECT_NE(out.data, static_cast<const void *>(y));
  EXPECT_FLOAT_EQ(static_cast<const float *>(out.data)[1], 30.5f);
  EXPECT_EQ(y[0], -1.0f);
}

TEST(Runtime, BoundMemoryErrors) {
  std::string bytes = axpyModel({1}).serialize();
  strata_model *m = nullptr;
  ASSERT_EQ(strata_model_load_memory(bytes.data(), bytes.size(), &m), nullptr);
  strata_session *s = nullptr;
  ASSERT_EQ(strata_session_create(m, 1, &s), nullptr);
  auto expect = [](strata_status *st, const char *message) {
    ASSERT_NE(st, nullptr) << "no error, expected: " << message;
    EXPECT_EQ(strata_status_get_code(st), STRATA_INVALID_ARGUMENT);
    EXPECT_STREQ(strata_status_message(st), message);
    strata_status_free(st);
  };
  alignas(64) float buf[16] = {0};
  int64_t dims[] = {1, 4};
  char *odd = reinterpret_cast<char *>(buf) + 1;
  auto addr = [](const void *p) {
    return std::to_string(reinterpret_cast<uintptr_t>(p));
  };
  // The checks of set_input, then alignment.
  expect(strata_session_bind_input(s, 0, STRATA_DTYPE_I32, dims, 2, buf, 16),
         "input 'x' is f32, not i32");
  expect(strata_session_bind_input(s, 0, STRATA_DTYPE_F32, dims, 2, odd, 16),
         ("input 'x': the pointer " + addr(odd) +
          " is not aligned to its element size (4 bytes for f32)")
             .c_str());
  expect(strata_session_bind_output(s, 0, odd, 16),
         ("output 'y': the pointer " + addr(odd) +
          " is not aligned to its element size (4 bytes for f32)")
             .c_str());
  expect(strata_session_bind_output(s, 1, buf, 16),
         "output index 1 is out of range (model 'axpy' has 1 outputs)");
  expect(strata_session_bind_output(s, 0, nullptr, 16),
         "output 'y': data is null");
  // Too small for the variant's output: an error at run.
  ASSERT_EQ(strata_session_bind_input(s, 0, STRATA_DTYPE_F32, dims, 2, buf, 16),
            nullptr);
  ASSERT_EQ(strata_session_bind_output(s, 0, buf + 8, 12), nullptr);
  expect(strata_session_run(s), "output 'y' is bound to 12 bytes; the variant "
                                "run needs 16 (f32 [1, 4])");
  // Overlapping the bound input.
  ASSERT_EQ(strata_session_bind_output(s, 0, buf + 2, 16), nullptr);
  expect(strata_session_run(s),
         "output 'y' is bound to memory that overlaps input 'x'");
  ASSERT_EQ(strata_session_bind_output(s, 0, buf + 4, 16), nullptr);
  EXPECT_EQ(strata_session_run(s), nullptr);
  strata_session_release(s);
  strata_model_release(m);
}
