//===- TpuLangTest.cpp - tests of the TpuLang graph API -------------------===//

#include "strata/TpuLang/TpuLang.h"

#include "strata/Dialect/Top/Transforms/CompositeRegistry.h"

#include "strata/Interpreter/Interpreter.h"
#include "strata/Pipelines/ModelIO.h"
#include "strata/Pipelines/Optimize.h"
#include "strata/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace strata::tpulang;
namespace fs = std::filesystem;

namespace {

/// Each test gets a fresh graph.
class TpuLangTest : public ::testing::Test {
protected:
  void SetUp() override { init("CPU"); }
  void TearDown() override { deinit(); }

  /// A fresh folder for output files.
  fs::path tempDir() {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    fs::path dir = fs::temp_directory_path() /
                   (std::string("strata-tpulang-") + info->name() + "-" +
                    std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }
};

/// Runs `fn`, expecting Error whose message contains every string in
/// `parts`.
template <typename Fn>
void expectError(Fn fn, std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const Error &e) {
    std::string msg = e.what();
    for (const std::string &p : parts)
      EXPECT_NE(msg.find(p), std::string::npos)
          << "message '" << msg << "' lacks '" << p << "'";
    return;
  }
  ADD_FAILURE() << "no strata::tpulang::Error thrown";
}

Tensor input(IntList shape, const std::string &dtype = "float32",
             const std::optional<std::string> &name = std::nullopt) {
  return Tensor(std::move(shape), dtype, name);
}

Tensor coeff(IntList shape, const std::string &dtype = "float32",
             const std::optional<std::string> &name = std::nullopt) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<float> data(n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  return Tensor(std::move(shape), dtype, name, data, "coeff");
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Compiles, reloads and interprets the graph.
strata::TensorMap runCompiled(const fs::path &dir, const std::string &name,
                              const std::vector<Tensor> &ins,
                              const std::vector<Tensor> &outs,
                              const strata::TensorMap &inputs) {
  compile((dir / name).string(), ins, outs);
  mlir::MLIRContext ctx;
  strata::registerAndLoadDialects(ctx);
  std::string path = (dir / (name + "_origin.mlir")).string();
  auto module = strata::parseModuleFile(path, ctx);
  EXPECT_TRUE(module);
  strata::TensorMap weights;
  std::string error;
  EXPECT_TRUE(strata::readNpz(*strata::weightFileFor(*module, path, error),
                              weights, error))
      << error;
  auto result = strata::interpretModule(*module, inputs, weights);
  EXPECT_TRUE(mlir::succeeded(result));
  return mlir::succeeded(result) ? *result : strata::TensorMap();
}

//===----------------------------------------------------------------------===//
// init / Tensor
//===----------------------------------------------------------------------===//

TEST_F(TpuLangTest, InitRejectsUnknownPlatform) {
  expectError([] { init("BM9999"); }, {"init", "platform", "BM9999"});
  init("cpu"); // case-insensitive
}

TEST(TpuLangNoGraph, OpsNeedInit) {
  deinit();
  Tensor x({1, 4}, "float32", "x");
  expectError([&] { relu(x); }, {"relu", "init"});
}

TEST_F(TpuLangTest, TensorRejectsBadParameters) {
  expectError([] { Tensor({1, -2}); }, {"Tensor", "shape", "[1, -2]"});
  expectError([] { Tensor({1}, "float31"); }, {"Tensor", "dtype", "float31"});
  expectError([] { Tensor({1}, "float32", "t", std::nullopt, "weights"); },
              {"Tensor", "ttype", "weights"});
  expectError(
      [] {
        Tensor({2, 2}, "float32", "t", std::vector<float>{1, 2, 3}, "coeff");
      },
      {"Tensor", "data", "3", "[2, 2]"});
  expectError([] { Tensor({4}, "float32", "q", std::nullopt, "neuron", 0.5); },
              {"scale", "float32"});
}

TEST_F(TpuLangTest, TensorDataIsConverted) {
  Tensor w({2}, "int8", "w", std::vector<float>{3.7f, -2.2f}, "coeff");
  ASSERT_TRUE(w.data().has_value());
  EXPECT_EQ(w.data()->dtype(), strata::DType::I8);
  EXPECT_EQ(w.data()->data<int8_t>()[0], 3);
  EXPECT_EQ(w.data()->data<int8_t>()[1], -2);
}

TEST_F(TpuLangTest, DuplicateNamesAreRejected) {
  Tensor a = input({1, 4}, "float32", "a");
  Tensor b = input({1, 4}, "float32", "a");
  relu(a);
  expectError([&] { relu(b); }, {"relu", "'a'", "already"});
  expectError([&] { relu(a, std::string("a")); }, {"relu", "out_name", "'a'"});
}

//===----------------------------------------------------------------------===//
// conv_v2 parameter checks
//===----------------------------------------------------------------------===//

TEST_F(TpuLangTest, ConvV2RejectsNon4DInput) {
  Tensor x = input({1, 3, 8});
  Tensor w = coeff({4, 3, 3, 3});
  expectError([&] { conv_v2(x, w); }, {"conv_v2", "tensor_i", "[1, 3, 8]"});
  Tensor x4 = input({1, 3, 8, 8});
  Tensor w3 = coeff({4, 3, 3});
  expectError([&] { conv_v2(x4, w3); }, {"conv_v2", "weight", "[4, 3, 3]"});
}

TEST_F(TpuLangTest, ConvV2RejectsChannelGroupMismatch) {
  Tensor x = input({1, 4, 8, 8});
  Tensor w = coeff({6, 2, 3, 3});
  // group 3 does not divide 4 input channels.
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, 3); },
              {"conv_v2", "group", "3", "4"});
  // group 1 but the filter has 2 input channels, the input 4.
  expectError([&] { conv_v2(x, w); }, {"conv_v2", "weight", "[6, 2, 3, 3]"});
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, 0); },
              {"conv_v2", "group", "0"});
}

TEST_F(TpuLangTest, ConvV2RejectsWrongPadLength) {
  Tensor x = input({1, 3, 8, 8});
  Tensor w = coeff({4, 3, 3, 3});
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            IntList{1, 1}); },
              {"conv_v2", "pad", "4", "[1, 1]"});
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            IntList{1, 1, -1, 0}); },
              {"conv_v2", "pad", "[1, 1, -1, 0]"});
}

TEST_F(TpuLangTest, ConvV2RejectsZeroStrideAndBadDilation) {
  Tensor x = input({1, 3, 8, 8});
  Tensor w = coeff({4, 3, 3, 3});
  expectError([&] { conv_v2(x, w, std::nullopt, IntList{0, 1}); },
              {"conv_v2", "stride", "[0, 1]"});
  expectError([&] { conv_v2(x, w, std::nullopt, IntList{1, 1, 1}); },
              {"conv_v2", "stride", "[1, 1, 1]"});
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, IntList{1, 0}); },
              {"conv_v2", "dilation", "[1, 0]"});
}

TEST_F(TpuLangTest, ConvV2RejectsBadBiasShape) {
  Tensor x = input({1, 3, 8, 8});
  Tensor w = coeff({4, 3, 3, 3});
  Tensor b = coeff({1, 3, 1, 1});
  expectError([&] { conv_v2(x, w, b); },
              {"conv_v2", "bias", "[1, 4, 1, 1]", "[1, 3, 1, 1]"});
  Tensor ok = coeff({1, 4, 1, 1});
  EXPECT_EQ(conv_v2(x, w, ok).shape(), (IntList{1, 4, 6, 6}));
}

TEST_F(TpuLangTest, ConvV2RejectsZeroPointListOfWrongLength) {
  Tensor x = input({1, 3, 8, 8}, "int8");
  Tensor w = coeff({4, 3, 3, 3}, "int8");
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, 1, IntList{1, 2}); },
              {"conv_v2", "input_zp", "3", "[1, 2]"});
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, 1, std::nullopt,
                            IntList{1, 2, 3, 4}); },
              {"conv_v2", "weight_zp", "3", "[1, 2, 3, 4]"});
  // An int, or a list of ic values, are fine.
  Tensor y = conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                     std::nullopt, 1, 5, IntList{1, 2, 3});
  EXPECT_EQ(y.shape(), (IntList{1, 4, 6, 6}));
  // Zero points are for integer inputs only.
  Tensor xf = input({1, 3, 8, 8});
  Tensor wf = coeff({4, 3, 3, 3});
  expectError([&] { conv_v2(xf, wf, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, 1, 3); },
              {"conv_v2", "input_zp", "3", "float32"});
}

TEST_F(TpuLangTest, ConvV2ReportsShapeInferenceErrors) {
  // The kernel is larger than the padded input: caught by top.Conv's shape
  // inference, reported through the diagnostic handler.
  Tensor x = input({1, 3, 2, 2});
  Tensor w = coeff({4, 3, 3, 3});
  expectError([&] { conv_v2(x, w); }, {"conv_v2", "kernel", "3"});
  // The failed op was not added: the graph still compiles.
  Tensor y = relu(x);
  EXPECT_NO_THROW(module_text({x}, {y}));
}

TEST_F(TpuLangTest, VerifierErrorsBecomeExceptions) {
  Tensor x = input({2, 3});
  expectError([&] { reshape(x, {4, 2}); }, {"reshape", "[4, 2]"});
  expectError([&] { softmax(x, 5); }, {"softmax", "5"});
  Tensor i = input({2, 3}, "int32");
  expectError([&] { add(x, i); }, {"add", "tensor_i1", "int32"});
}

TEST_F(TpuLangTest, ConvV2RejectsBadOutDType) {
  Tensor x = input({1, 3, 8, 8});
  Tensor w = coeff({4, 3, 3, 3});
  expectError([&] { conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                            std::nullopt, 1, std::nullopt, std::nullopt,
                            std::string("int8")); },
              {"conv_v2", "out_dtype", "int8"});
}

//===----------------------------------------------------------------------===//
// Shape inference and dtypes
//===----------------------------------------------------------------------===//

TEST_F(TpuLangTest, ConvV2InfersShapes) {
  Tensor x = input({2, 4, 10, 12});
  Tensor w = coeff({8, 2, 3, 5});
  // kh_ext = 2*(3-1)+1 = 5, kw_ext = 5; oh = (10+1+2-5)/2+1 = 5,
  // ow = (12+0+4-5)/1+1 = 12.
  Tensor y = conv_v2(x, w, std::nullopt, IntList{2, 1}, IntList{2, 1},
                     IntList{1, 2, 0, 4}, 2);
  EXPECT_EQ(y.shape(), (IntList{2, 8, 5, 12}));
  Tensor dw = conv_v2(x, coeff({4, 1, 3, 3}), std::nullopt, std::nullopt,
                      std::nullopt, IntList{1, 1, 1, 1}, 4);
  EXPECT_EQ(dw.shape(), (IntList{2, 4, 10, 12}));
}

TEST_F(TpuLangTest, OtherOpsInferShapes) {
  Tensor x = input({1, 4, 8, 8});
  EXPECT_EQ(maxpool2d(x, IntList{2, 2}, IntList{2, 2}).shape(),
            (IntList{1, 4, 4, 4}));
  EXPECT_EQ(avgpool2d(x, IntList{3, 3}, IntList{1, 1}, IntList{1, 1, 1, 1})
                .shape(),
            (IntList{1, 4, 8, 8}));
  EXPECT_EQ(maxpool2d(x).shape(), (IntList{1, 4, 1, 1}));
  EXPECT_EQ(reshape(x, {1, -1}).shape(), (IntList{1, 256}));
  Tensor m = input({3, 5});
  EXPECT_EQ(matmul(m, coeff({5, 7}), coeff({7})).shape(), (IntList{3, 7}));
  EXPECT_EQ(matmul(m, coeff({7, 5}), std::nullopt, false, true).shape(),
            (IntList{3, 7}));
  EXPECT_EQ(add(x, coeff({4, 1, 1})).shape(), (IntList{1, 4, 8, 8}));
  EXPECT_EQ(mul(x, 2.0).shape(), (IntList{1, 4, 8, 8}));
  EXPECT_EQ(softmax(x, 1).shape(), (IntList{1, 4, 8, 8}));
  EXPECT_EQ(interpolate(x, 2.0, 2.0).shape(), (IntList{1, 4, 16, 16}));
  EXPECT_EQ(upsample(x, 3).shape(), (IntList{1, 4, 24, 24}));
  EXPECT_EQ(square(x).shape(), (IntList{1, 4, 8, 8}));
  EXPECT_EQ(depth2space(x, 2, 2).shape(), (IntList{1, 1, 16, 16}));
  EXPECT_EQ(deconv(x, coeff({4, 2, 2, 2}), std::nullopt, IntList{2, 2})
                .shape(),
            (IntList{1, 2, 16, 16}));
  Tensor g = gts(x, 0.0);
  EXPECT_EQ(g.dtype(), "float32");
  EXPECT_EQ(cond_select(g, x, neg(x)).shape(), (IntList{1, 4, 8, 8}));
  EXPECT_EQ(cast(x, "int8").dtype(), "int8");
}

TEST_F(TpuLangTest, ShapeOpsInferShapes) {
  Tensor x = input({2, 3, 4});
  EXPECT_EQ(permute(x, {2, 0, 1}).shape(), (IntList{4, 2, 3}));
  EXPECT_EQ(concat({x, input({2, 5, 4})}, std::nullopt, std::nullopt, 1)
                .shape(),
            (IntList{2, 8, 4}));
  std::vector<Tensor> parts = split(x, -1, 2, {}, std::string("part"));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].shape(), (IntList{2, 3, 2}));
  EXPECT_EQ(parts[1].name(), "part_1");
  EXPECT_EQ(split(x, 1, 2, {1, 2})[1].shape(), (IntList{2, 2, 4}));
  EXPECT_EQ(slice(x, {1}, {4}, IntList{2}, IntList{2}).shape(),
            (IntList{2, 3, 2}));
  EXPECT_EQ(pad(x, "constant", 1.0, IntList{0, 1, 0, 0, 1, 2}).shape(),
            (IntList{2, 5, 6}));
  EXPECT_EQ(tile(x, {1, 2, 1}).shape(), (IntList{2, 6, 4}));
  EXPECT_EQ(broadcast(input({3, 1}), {2, 3, 4}).shape(), (IntList{2, 3, 4}));
  EXPECT_EQ(reduce(x).shape(), (IntList{2, 1, 1}));
  EXPECT_EQ(reduce(x, "ReduceMean", {-1}, false).shape(), (IntList{2, 3}));
  auto [ind, val] = arg(x, "max", 1, false);
  EXPECT_EQ(ind.shape(), (IntList{2, 4}));
  EXPECT_EQ(ind.dtype(), "float32");
  EXPECT_EQ(val.shape(), (IntList{2, 4}));
  EXPECT_EQ(squeeze(input({1, 3, 1}), {0, 2}).shape(), (IntList{3}));
  EXPECT_EQ(unsqueeze(input({3}), {0, 2}).shape(), (IntList{1, 3, 1}));
  Tensor idx({2}, "int64", "idx", std::vector<int64_t>{0, 1}, "coeff");
  EXPECT_EQ(index_select(x, idx, 0).shape(), (IntList{2, 3, 4}));
  expectError([&] { split(x, 1, 2); }, {"split", "num", "2", "3"});
  expectError([&] { pad(x, "symmetric"); }, {"pad", "method", "symmetric"});
  expectError([&] { reduce(x, "ReduceL2"); }, {"reduce", "method", "ReduceL2"});
  expectError([&] { permute(x, {0, 0, 1}); }, {"permute"});
}

TEST_F(TpuLangTest, NumericConcatPermuteArg) {
  fs::path dir = tempDir();
  Tensor a({1, 2}, "float32", "a");
  Tensor b({1, 2}, "float32", "b");
  Tensor c = concat({a, b}, std::nullopt, std::nullopt, 0);   // 2x2
  Tensor t = permute(c, {1, 0}, std::string("t"));           // transpose
  auto [ind, val] = arg(t, "min", 1, false, std::string("m")); // min per row
  strata::TensorMap inputs;
  auto row = [](std::vector<float> v) {
    return TensorData(v).tensor().reshaped({1, 2});
  };
  inputs.set("a", row({5, -1}));
  inputs.set("b", row({2, 7}));
  strata::TensorMap out =
      runCompiled(dir, "cpa", {a, b}, {t, ind, val}, inputs);
  // c = [[5, -1], [2, 7]], t = [[5, 2], [-1, 7]]; row minima 2 (idx 1), -1
  // (idx 0).
  const strata::Tensor *tt = out.find("t");
  const strata::Tensor *ti = out.find("m_ind");
  const strata::Tensor *tv = out.find("m_val");
  ASSERT_TRUE(tt && ti && tv);
  float wantT[4] = {5, 2, -1, 7};
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(tt->data<float>()[i], wantT[i]);
  EXPECT_FLOAT_EQ(ti->data<float>()[0], 1);
  EXPECT_FLOAT_EQ(ti->data<float>()[1], 0);
  EXPECT_FLOAT_EQ(tv->data<float>()[0], 2);
  EXPECT_FLOAT_EQ(tv->data<float>()[1], -1);
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, ConvV2DTypeRule) {
  Tensor w = coeff({4, 3, 1, 1});
  EXPECT_EQ(conv_v2(input({1, 3, 4, 4}), w).dtype(), "float32");
  Tensor w16 = coeff({4, 3, 1, 1}, "float16");
  EXPECT_EQ(conv_v2(input({1, 3, 4, 4}, "float16"), w16).dtype(), "float16");
  Tensor w8 = coeff({4, 3, 1, 1}, "int8");
  EXPECT_EQ(conv_v2(input({1, 3, 4, 4}, "int8"), w8).dtype(), "int32");
  EXPECT_EQ(conv_v2(input({1, 3, 4, 4}, "uint8"), w8).dtype(), "int32");
  EXPECT_EQ(conv_v2(input({1, 3, 4, 4}, "int8"), w8, std::nullopt,
                    std::nullopt, std::nullopt, std::nullopt, 1, std::nullopt,
                    std::nullopt, std::string("uint32"))
                .dtype(),
            "uint32");
  EXPECT_EQ(conv_v2(input({1, 3, 4, 4}, "int8"), w8, std::nullopt,
                    std::nullopt, std::nullopt, std::nullopt, 1, std::nullopt,
                    std::nullopt, std::string("float32"))
                .dtype(),
            "float32");
  // Float and integer operands do not mix.
  expectError([&] { conv_v2(input({1, 3, 4, 4}), w8); },
              {"conv_v2", "weight", "int8", "float32"});
}

TEST_F(TpuLangTest, ConvV2ReordersPads) {
  Tensor x = input({1, 1, 8, 8}, "float32", "x");
  Tensor w = coeff({1, 1, 3, 3});
  // [up, down, left, right] = [1, 2, 3, 4] -> [top, left, bottom, right].
  Tensor y = conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                     IntList{1, 2, 3, 4});
  EXPECT_EQ(y.shape(), (IntList{1, 1, 9, 13}));
  std::string text = module_text({x}, {y});
  EXPECT_NE(text.find("pads = array<i64: 1, 3, 2, 4>"), std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel_shape = array<i64: 3, 3>"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// compile
//===----------------------------------------------------------------------===//

TEST_F(TpuLangTest, CompileWritesModelAndWeights) {
  fs::path dir = tempDir();
  Tensor x = input({1, 3, 8, 8}, "float32", "image");
  Tensor w = coeff({4, 3, 3, 3}, "float32", "conv1_w");
  Tensor b = coeff({1, 4, 1, 1}, "float32", "conv1_b");
  Tensor y = relu(conv_v2(x, w, b, std::nullopt, std::nullopt,
                          IntList{1, 1, 1, 1}, 1, std::nullopt, std::nullopt,
                          std::nullopt, std::string("conv1")),
                  std::string("prob"));
  compile((dir / "Net").string(), {x}, {y});

  fs::path mlir = dir / "Net_origin.mlir";
  fs::path npz = dir / "Net_TOP_F32_all_weight.npz";
  ASSERT_TRUE(fs::exists(mlir));
  ASSERT_TRUE(fs::exists(npz));
  std::string text = readFile(mlir);
  EXPECT_NE(text.find("top.weight_file = \"Net_TOP_F32_all_weight.npz\""),
            std::string::npos);
  EXPECT_NE(text.find("top.name = \"Net\""), std::string::npos);
  EXPECT_NE(text.find("loc(\"conv1\")"), std::string::npos) << text;

  strata::TensorMap weights;
  std::string error;
  ASSERT_TRUE(strata::readNpz(npz.string(), weights, error)) << error;
  EXPECT_EQ(weights.size(), 2u);
  const strata::Tensor *wt = weights.find("conv1_w");
  ASSERT_NE(wt, nullptr);
  EXPECT_EQ(wt->shape(), (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_FLOAT_EQ(wt->data<float>()[1], w.data()->data<float>()[1]);
  EXPECT_NE(weights.find("conv1_b"), nullptr);

  // The file parses back, with names as attributes and locations.
  mlir::MLIRContext ctx;
  strata::registerAndLoadDialects(ctx);
  auto module = strata::parseModuleFile(mlir.string(), ctx);
  ASSERT_TRUE(module);
  auto func = strata::findEntryFunction(*module);
  ASSERT_TRUE(mlir::succeeded(func));
  EXPECT_EQ(strata::inputName(*func, 0), "image");
  EXPECT_EQ(strata::outputName(*func, 0), "prob");
  std::string error2;
  EXPECT_EQ(*strata::weightFileFor(*module, mlir.string(), error2),
            fs::canonical(npz).string());
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, CompiledModelRoundTripsThroughStrataOpt) {
  fs::path dir = tempDir();
  Tensor x = input({1, 2, 4, 4}, "float32", "x");
  Tensor y = maxpool2d(relu(x), IntList{2, 2}, IntList{2, 2});
  compile((dir / "rt").string(), {x}, {y});
  std::string cmd = std::string(STRATA_OPT_PATH) + " " +
                    (dir / "rt_origin.mlir").string() + " -o " +
                    (dir / "again.mlir").string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(fs::exists(dir / "again.mlir"));
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, CompileOrdersInputsAndChecksThem) {
  Tensor a = input({2}, "float32", "a");
  Tensor b = input({2}, "float32", "b");
  Tensor s = sub(a, b, std::nullopt, std::nullopt, std::nullopt,
                 std::string("s"));
  // Listed in the other order than first used: arguments follow `inputs`.
  std::string text = module_text({b, a}, {s});
  size_t pb = text.find("top.name = \"b\""), pa = text.find("top.name = \"a\"");
  ASSERT_NE(pb, std::string::npos);
  ASSERT_NE(pa, std::string::npos);
  EXPECT_LT(pb, pa);
  expectError([&] { module_text({a}, {s}); }, {"module_text", "'b'", "inputs"});
  expectError([&] { module_text({a, s}, {s}); }, {"inputs", "'s'"});
  expectError([&] { compile("m", {a, b}, {s}, true, std::nullopt, "f64"); },
              {"compile", "mode", "f64"});
}

//===----------------------------------------------------------------------===//
// Numeric checks through the interpreter
//===----------------------------------------------------------------------===//

TEST_F(TpuLangTest, NumericConvReluMatchesHandComputation) {
  fs::path dir = tempDir();
  // x: 1x1x3x3 = 1..9; w: 2x1x2x2; bias [0.5, -20]; pad up=1 only.
  std::vector<float> xv{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> wv{1, 0, 0, -1, /*oc1*/ 1, 1, 1, 1};
  Tensor x({1, 1, 3, 3}, "float32", "x");
  Tensor w({2, 1, 2, 2}, "float32", "w", wv, "coeff");
  Tensor b({1, 2, 1, 1}, "float32", "b", std::vector<float>{0.5f, -20.f},
           "coeff");
  Tensor y = relu(conv_v2(x, w, b, std::nullopt, std::nullopt,
                          IntList{1, 0, 0, 0}),
                  std::string("y"));
  ASSERT_EQ(y.shape(), (IntList{1, 2, 3, 2}));

  // Reference: padded input has a zero row on top.
  float padded[4][3] = {{0, 0, 0}, {1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  std::vector<float> expect;
  for (int oc = 0; oc < 2; ++oc)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) {
        float acc = oc == 0 ? 0.5f : -20.f;
        for (int ki = 0; ki < 2; ++ki)
          for (int kj = 0; kj < 2; ++kj)
            acc += padded[i + ki][j + kj] * wv[oc * 4 + ki * 2 + kj];
        expect.push_back(acc > 0 ? acc : 0);
      }

  strata::TensorMap inputs;
  inputs.set("x", TensorData(xv).tensor().reshaped({1, 1, 3, 3}));
  strata::TensorMap out = runCompiled(dir, "convrelu", {x}, {y}, inputs);
  const strata::Tensor *t = out.find("y");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->numElements(), 12);
  for (int i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(t->data<float>()[i], expect[i]) << "element " << i;
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, NumericIntegerConvWithZeroPoints) {
  fs::path dir = tempDir();
  // 1x2x2x2 int8 input, 1x2x1x1 filter; per-channel input_zp [1, 2],
  // weight_zp 1: y = sum_c (x[c] - izp[c]) * (w[c] - 1).
  std::vector<int8_t> xv{1, 2, 3, 4, 10, 20, 30, 40};
  Tensor x({1, 2, 2, 2}, "int8", "xi");
  Tensor w({1, 2, 1, 1}, "int8", "wi", std::vector<int8_t>{3, -1}, "coeff");
  Tensor y = conv_v2(x, w, std::nullopt, std::nullopt, std::nullopt,
                     std::nullopt, 1, IntList{1, 2}, 1, std::nullopt,
                     std::string("yi"));
  ASSERT_EQ(y.dtype(), "int32");
  strata::TensorMap inputs;
  inputs.set("xi", TensorData(xv).tensor().reshaped({1, 2, 2, 2}));
  strata::TensorMap out = runCompiled(dir, "intconv", {x}, {y}, inputs);
  const strata::Tensor *t = out.find("yi");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->dtype(), strata::DType::I32);
  for (int p = 0; p < 4; ++p) {
    int32_t want = (xv[p] - 1) * (3 - 1) + (xv[4 + p] - 2) * (-1 - 1);
    EXPECT_EQ(t->data<int32_t>()[p], want) << "pixel " << p;
  }
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, NumericElementwiseChain) {
  fs::path dir = tempDir();
  Tensor x({4}, "float32", "v");
  // (x * 2 - 1) clamped to [-2, 3].
  Tensor y = clamp(sub(mul(x, 2.0), 1.0), -2.0, 3.0, std::string("out"));
  strata::TensorMap inputs;
  inputs.set("v", TensorData(std::vector<float>{-3, 0, 1, 5}).tensor());
  strata::TensorMap out = runCompiled(dir, "chain", {x}, {y}, inputs);
  const strata::Tensor *t = out.find("out");
  ASSERT_NE(t, nullptr);
  float want[4] = {-2, -1, 1, 3};
  for (int i = 0; i < 4; ++i)
    EXPECT_FLOAT_EQ(t->data<float>()[i], want[i]);
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, QuantizedTensorsGetQuantTypes) {
  Tensor x({1, 4}, "float32", "xf");
  Tensor q = requant_fp_to_int(x, 0.5, 3, 2, "int8");
  EXPECT_EQ(q.dtype(), "int8");
  EXPECT_TRUE(q.is_quantized());
  Tensor f = dequant_int_to_fp(Tensor({1, 4}, "int8", "qi"), 0.25, -1);
  std::string text = module_text({x, Tensor({1, 4}, "int8", "unused")}, {q});
  EXPECT_NE(text.find("!quant.uniform<i8:f32, 5.000000e-01:3>"),
            std::string::npos)
      << text;
  EXPECT_EQ(f.dtype(), "float32");
}

} // namespace

//===----------------------------------------------------------------------===//
// composite()
//===----------------------------------------------------------------------===//

namespace {
/// Loads the compiled `<name>_origin.mlir` and its weights.
struct LoadedModel {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  strata::TensorMap weights;
  LoadedModel(const fs::path &dir, const std::string &name) {
    strata::registerAndLoadDialects(ctx);
    std::string path = (dir / (name + "_origin.mlir")).string();
    module = strata::parseModuleFile(path, ctx);
    std::string error;
    if (module)
      EXPECT_TRUE(strata::readNpz(*strata::weightFileFor(*module, path, error),
                                  weights, error))
          << error;
  }
  std::string text() {
    std::string s;
    llvm::raw_string_ostream os(s);
    module->print(os);
    return s;
  }
};

/// x * sigmoid(x), op by op.
std::vector<Tensor> siluBody(const std::vector<Tensor> &args) {
  return {mul(args[0], sigmoid(args[0]))};
}
} // namespace

TEST_F(TpuLangTest, CompositeRecordsFunctionCallAndFuses) {
  fs::path dir = tempDir();
  Tensor x = input({2, 5}, "float32", "x");
  std::vector<Tensor> ys =
      composite("silu", {x}, siluBody, {}, std::string("y"));
  ASSERT_EQ(ys.size(), 1u);
  EXPECT_EQ(ys[0].shape(), (IntList{2, 5}));
  EXPECT_EQ(ys[0].name(), "y");
  std::string text = module_text({x}, {ys[0]});
  EXPECT_NE(text.find("func.func private @silu("), std::string::npos) << text;
  EXPECT_NE(text.find("strata.implements = \"silu\""), std::string::npos);
  EXPECT_NE(text.find("call @silu("), std::string::npos);

  std::vector<float> xv;
  for (int i = 0; i < 10; ++i)
    xv.push_back(0.7f * static_cast<float>(i) - 3.f);
  strata::TensorMap inputs;
  inputs.set("x", TensorData(xv).tensor().reshaped({2, 5}));
  strata::TensorMap out = runCompiled(dir, "silu", {x}, {ys[0]}, inputs);
  const strata::Tensor *y = out.find("y");
  ASSERT_NE(y, nullptr);
  for (int i = 0; i < 10; ++i)
    EXPECT_NEAR(y->data<float>()[i], xv[i] / (1 + std::exp(-xv[i])), 1e-6);

  // top-optimize fuses the composite into top.SiLU; same outputs.
  LoadedModel m(dir, "silu");
  ASSERT_TRUE(m.module);
  auto weights = strata::optimizeTopModule(*m.module, m.weights);
  ASSERT_TRUE(mlir::succeeded(weights));
  std::string optimized = m.text();
  EXPECT_NE(optimized.find("top.SiLU("), std::string::npos) << optimized;
  EXPECT_EQ(optimized.find("call @"), std::string::npos) << optimized;
  auto fused = strata::interpretModule(*m.module, inputs, *weights);
  ASSERT_TRUE(mlir::succeeded(fused));
  const strata::Tensor *yf = fused->find("y");
  ASSERT_NE(yf, nullptr);
  for (int i = 0; i < 10; ++i)
    EXPECT_NEAR(yf->data<float>()[i], y->data<float>()[i], 1e-6);
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, CompositeLayerNormWithAttributes) {
  fs::path dir = tempDir();
  Tensor x = input({2, 3, 8}, "float32", "x");
  Tensor g = coeff({8}, "float32", "gamma");
  Tensor b = coeff({8}, "float32", "beta");
  double eps = 1e-3;
  auto body = [eps](const std::vector<Tensor> &a) {
    Tensor mean = reduce(a[0], "ReduceMean", {2});
    Tensor d = sub(a[0], mean);
    Tensor var = reduce(mul(d, d), "ReduceMean", {2});
    Tensor n = mul(d, rsqrt(add(var, eps)));
    return std::vector<Tensor>{add(mul(n, a[1]), a[2])};
  };
  Tensor y = composite("LayerNorm", {x, g, b}, body, {{"epsilon", eps}},
                       std::string("y"))[0];
  std::string text = module_text({x}, {y});
  EXPECT_NE(text.find("strata.composite_attributes = {epsilon = 1.000000e-03 : f64}"),
            std::string::npos)
      << text;

  std::vector<float> xv;
  for (int i = 0; i < 48; ++i)
    xv.push_back(std::sin(0.37f * static_cast<float>(i)) * 2.f);
  strata::TensorMap inputs;
  inputs.set("x", TensorData(xv).tensor().reshaped({2, 3, 8}));
  strata::TensorMap ref = runCompiled(dir, "ln", {x}, {y}, inputs);
  LoadedModel m(dir, "ln");
  ASSERT_TRUE(m.module);
  auto weights = strata::optimizeTopModule(*m.module, m.weights);
  ASSERT_TRUE(mlir::succeeded(weights));
  std::string optimized = m.text();
  EXPECT_NE(optimized.find("top.LayerNorm("), std::string::npos) << optimized;
  EXPECT_NE(optimized.find("epsilon = 1.000000e-03"), std::string::npos);
  auto fused = strata::interpretModule(*m.module, inputs, *weights);
  ASSERT_TRUE(mlir::succeeded(fused));
  const strata::Tensor *a = ref.find("y"), *f = fused->find("y");
  ASSERT_TRUE(a && f);
  for (int i = 0; i < 48; ++i)
    EXPECT_NEAR(f->data<float>()[i], a->data<float>()[i],
                1e-5 * (1 + std::abs(a->data<float>()[i])));
  fs::remove_all(dir);
}

TEST_F(TpuLangTest, CompositeBodyIsIsolated) {
  Tensor x = input({4}, "float32", "x");
  Tensor outer = relu(x);
  // A tensor of the enclosing graph inside the body.
  expectError(
      [&] {
        composite("silu", {x}, [&](const std::vector<Tensor> &a) {
          return std::vector<Tensor>{add(a[0], outer)};
        });
      },
      {"add", "'" + outer.name() + "'", "outside composite 'silu'"});
  // A graph input not passed through 'inputs'.
  Tensor other = input({4}, "float32", "other");
  expectError(
      [&] {
        composite("silu", {x}, [&](const std::vector<Tensor> &a) {
          return std::vector<Tensor>{add(a[0], other)};
        });
      },
      {"graph input 'other'", "composite 'silu'"});
  // A tensor made inside the body, used outside.
  std::optional<Tensor> inner;
  composite("silu", {x}, [&](const std::vector<Tensor> &a) {
    inner = sigmoid(a[0]);
    return std::vector<Tensor>{mul(a[0], *inner)};
  });
  expectError([&] { relu(*inner); }, {"relu", "inside a composite body"});
  expectError([&] { composite("", {x}, siluBody); }, {"composite", "'name'"});
  expectError([&] { composite("silu", {}, siluBody); }, {"'inputs'"});
  expectError(
      [&] {
        composite("silu", {x},
                  [](const std::vector<Tensor> &) { return std::vector<Tensor>{}; });
      },
      {"returned no tensors"});
  // The graph still works after the failures.
  EXPECT_NO_THROW(module_text({x}, {relu(x)}));
}

namespace {
/// The converter of docs/optimize.md ("Registering a converter").
struct MySwish : strata::top::CompositeConverter {
  std::optional<std::string> verify(mlir::func::FuncOp fn,
                                    mlir::DictionaryAttr attrs) const override {
    if (fn.getNumArguments() != 1 || fn.getNumResults() != 1)
      return std::string("takes 1 input and returns 1 result");
    if (!strata::top::rankedFloatTensor(fn.getArgumentTypes()[0]))
      return std::string("input 0 must be a ranked float tensor");
    return std::nullopt;
  }
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  build(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange in,
        mlir::DictionaryAttr attrs) const override {
    auto elem =
        llvm::cast<mlir::RankedTensorType>(in[0].getType()).getElementType();
    auto op =
        strata::top::createFused<strata::top::SiLUOp>(b, loc, 1, elem, in, {});
    if (mlir::failed(op))
      return mlir::failure();
    return llvm::SmallVector<mlir::Value>{op->getOutput()};
  }
};
} // namespace

TEST_F(TpuLangTest, CompositeWithRegisteredCustomConverter) {
  auto &registry = strata::top::CompositeRegistry::global();
  EXPECT_EQ(registry.lookup("My-Swish"), nullptr);
  registry.add("my_swish", std::make_shared<MySwish>());
  EXPECT_NE(registry.lookup("vendor.MySwish"), nullptr);
  fs::path dir = tempDir();
  Tensor x = input({3}, "float32", "x");
  Tensor y = composite("my_swish", {x}, siluBody, {}, std::string("y"))[0];
  compile((dir / "sw").string(), {x}, {y});
  LoadedModel m(dir, "sw");
  ASSERT_TRUE(m.module);
  ASSERT_TRUE(mlir::succeeded(strata::optimizeTopModule(*m.module, m.weights)));
  std::string text = m.text();
  EXPECT_NE(text.find("top.SiLU("), std::string::npos) << text;
  EXPECT_EQ(text.find("top.Sigmoid("), std::string::npos) << text;
  fs::remove_all(dir);
}
