//===- OneDnnStrategyTest.cpp - oneDNN candidates register only with it ---===//

#include "TestWorkloads.h"

#include "strata/Strategy/CpuStrategies.h"
#include "strata/Strategy/OptionalLibraries.h"
#include "strata/Strategy/Select.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::strategy;
using namespace strata::strategy::test;

namespace {

SelectOptions cpu(const TuningLog *log = nullptr) { return cpuOptions(log); }

std::string winner(const StrategyRegistry &r, const Workload &w,
                   const TuningLog *log = nullptr) {
  ShapeOr<Selection> s = select(r, w, cpu(log));
  EXPECT_TRUE(bool(s)) << s.error();
  return s ? s->winner() : "";
}

TEST(OneDnnStrategyTest, AbsentWithoutTheLibrary) {
  StrategyRegistry r = buildRegistry({});
  EXPECT_FALSE(r.lookup("top.Conv", "cpu").find("conv2d.onednn_f32"));
  EXPECT_FALSE(r.lookup("top.MatMul", "cpu").find("matmul.onednn_f32"));
  ASSERT_EQ(r.missingLibraries(), std::vector<std::string>{"onednn"});
  std::string text = explain(r, conv(1, 32, 32, 3), cpu());
  EXPECT_NE(text.find("not built: implementations needing library 'onednn'"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("onednn_f32"), std::string::npos) << text;
  // A record naming the oneDNN implementation is not usable there.
  Workload w = conv(1, 32, 32, 3, 1, "f32", 6);
  TuningLog log;
  log.records.push_back(
      {w.key(), "cpu", "test-machine", "conv2d.onednn_f32", {}, 1e-6, 1});
  EXPECT_EQ(winner(r, w, &log), "conv2d.im2col_gemm");
}

TEST(OneDnnStrategyTest, PresentWithTheLibraryBelowTheHandKernels) {
  StrategyRegistry r = buildRegistry({"onednn"});
  EXPECT_TRUE(r.missingLibraries().empty());
  std::optional<Implementation> conv2d =
      r.lookup("top.Conv", "cpu").find("conv2d.onednn_f32");
  std::optional<Implementation> mm =
      r.lookup("top.MatMul", "cpu").find("matmul.onednn_f32");
  ASSERT_TRUE(conv2d);
  ASSERT_TRUE(mm);
  EXPECT_EQ(conv2d->library, "onednn");
  EXPECT_EQ(conv2d->lowering.kernel, "onednn_conv2d_f32");
  EXPECT_EQ(mm->lowering.kernel, "onednn_matmul_f32");
  // By priority the hand kernels still win ...
  Workload w = conv(1, 32, 32, 3, 1, "f32", 6);
  EXPECT_EQ(winner(r, w), "conv2d.im2col_gemm");
  EXPECT_EQ(winner(r, matmul(4, 64, 32)), "matmul.gemm_f32");
  EXPECT_NE(explain(r, w, cpu()).find("conv2d.onednn_f32: held"),
            std::string::npos);
  // ... and a tuning record where oneDNN measured faster picks it.
  TuningLog log;
  log.records.push_back(
      {w.key(), "cpu", "test-machine", "conv2d.im2col_gemm", {}, 2e-6, 1});
  log.records.push_back(
      {w.key(), "cpu", "test-machine", "conv2d.onednn_f32", {}, 1e-6, 2});
  EXPECT_EQ(winner(r, w, &log), "conv2d.onednn_f32");
  // Not for an int8 conv (its condition fails).
  EXPECT_EQ(winner(r, conv(1, 32, 32, 3, 1, "qi8")), "conv2d.im2col_gemm_i8");
}

TEST(OneDnnStrategyTest, BuiltinRegistryFollowsTheBuild) {
  bool found = libraryFoundAtBuild("onednn");
  EXPECT_EQ(bool(builtinRegistry()
                     .lookup("top.Conv", "cpu")
                     .find("conv2d.onednn_f32")),
            found);
  EXPECT_EQ(builtinRegistry().missingLibraries().empty(), found);
}

} // namespace
