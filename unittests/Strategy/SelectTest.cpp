//===- SelectTest.cpp - tuning records, guard chains, explain, CPU table --===//

#include "TestWorkloads.h"

#include "strata/Strategy/CpuStrategies.h"
#include "strata/Strategy/Select.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::strategy;
using namespace strata::strategy::test;
using Cmp = Clause::Cmp;

namespace {

TensorRef in0 = TensorRef::operand(0);

SelectOptions cpu(const TuningLog *log = nullptr) { return cpuOptions(log); }

Selection selectOk(const Workload &w, const SelectOptions &o) {
  ShapeOr<Selection> s = select(builtinRegistry(), w, o);
  EXPECT_TRUE(bool(s)) << s.error();
  return *s;
}

std::string winner(const Workload &w, const SelectOptions &o = cpu()) {
  Selection s = selectOk(w, o);
  EXPECT_TRUE(s.decided());
  return s.winner();
}

TuningRecord record(const Workload &w, std::string impl, double cost,
                    ScheduleParams config = {}, unsigned line = 1) {
  return {w.key(), "cpu", "test-machine", std::move(impl), std::move(config),
          cost,    line};
}

TEST(CpuTableTest, ConvCandidates) {
  EXPECT_EQ(winner(conv(1, 32, 16, 1)), "conv2d.1x1_gemm");
  // Winograd above im2col for 3x3 stride-1 convs with outputs of at least
  // 7x7 and 16 channels; im2col for smaller outputs (a tuning record can
  // still pick Winograd: TuningRecordOverridesPriority).
  EXPECT_EQ(winner(conv(1, 32, 32, 3, 1, "f32", 6)), "conv2d.im2col_gemm");
  EXPECT_EQ(winner(conv(1, 32, 32, 3)), "conv2d.winograd_f43");
  EXPECT_EQ(winner(conv(1, 32, 32, 3, 1, "f32", 14)), "conv2d.winograd_f43");
  EXPECT_EQ(winner(conv(1, 8, 32, 3, 1, "f32", 14)), "conv2d.im2col_gemm");
  EXPECT_EQ(winner(conv(1, 8, 32, 3)), "conv2d.im2col_gemm");
  EXPECT_EQ(winner(conv(1, 32, 32, 3, /*group=*/32)), "conv2d.depthwise");
  EXPECT_EQ(winner(conv(1, 32, 32, 5)), "conv2d.im2col_gemm");
  EXPECT_EQ(winner(conv(1, 32, 32, 3, 1, "qi8")), "conv2d.im2col_gemm_i8");
  // Strided 3x3: not Winograd.
  Workload strided = conv(1, 32, 32, 3);
  strided.attrs["strides"] = AttrValue::intList({2, 2});
  EXPECT_EQ(winner(strided), "conv2d.im2col_gemm");
  // NHWC and 1-d convs go to codegen.
  Workload nhwc = conv(1, 32, 32, 3);
  nhwc.attrs["layout"] = AttrValue::string("NHWC");
  EXPECT_EQ(winner(nhwc), "codegen");
  Workload f16 = conv(1, 32, 32, 3, 1, "f16");
  EXPECT_EQ(winner(f16), "codegen");
}

TEST(CpuTableTest, OtherOps) {
  EXPECT_EQ(winner(matmul(8, 64, 32)), "matmul.gemm_f32");
  EXPECT_EQ(winner(matmul(1, 64, 32)), "matmul.gemv_f32");
  EXPECT_EQ(winner(matmul(8, 64, 32, "i8")), "matmul.gemm_i8");
  Workload batched = matmul(8, 64, 32);
  batched.operands[1].shape = {4, 64, 32};
  EXPECT_EQ(winner(batched), "matmul.batched_gemm_f32");

  Workload softmax{"top.Softmax",
                   {t("f32", {2, 10})},
                   {t("f32", {2, 10})},
                   {{"axis", AttrValue::integer(1)}}};
  completeWorkloadDefaults(softmax); // axis 1 of rank 2 is -1
  EXPECT_EQ(winner(softmax), "softmax.last_axis_f32");
  softmax.attrs["axis"] = AttrValue::integer(0);
  completeWorkloadDefaults(softmax);
  EXPECT_EQ(winner(softmax), "codegen");

  Workload relu{"top.Relu", {t("f32", {2, 3})}, {t("f32", {2, 3})}, {}};
  EXPECT_EQ(winner(relu), "relu.eltwise_f32");
  Workload add{
      "top.Add", {t("f32", {2, 3}), t("f32", {3})}, {t("f32", {2, 3})}, {}};
  EXPECT_EQ(winner(add), "add.eltwise_f32");
  Workload pool{"top.MaxPool",
                {t("f32", {1, 4, 8, 8})},
                {t("f32", {1, 4, 4, 4})},
                {{"kernel_shape", AttrValue::intList({2, 2})},
                 {"layout", AttrValue::string("NCHW")}}};
  completeWorkloadDefaults(pool);
  EXPECT_EQ(winner(pool), "maxpool2d.nchw_f32");
}

TEST(SelectTest, TuningRecordOverridesPriority) {
  Workload w = conv(1, 32, 32, 3, 1, "f32", 14);
  ASSERT_EQ(winner(w), "conv2d.winograd_f43");
  TuningLog log{"log",
                {record(w, "conv2d.winograd_f43", 2e-3, {{"tile_hw", 16}}, 1),
                 record(w, "conv2d.im2col_gemm", 1e-3, {{"tile_m", 32}}, 2),
                 record(w, "codegen", 5e-3, {}, 3)}};
  Selection s = selectOk(w, cpu(&log));
  ASSERT_TRUE(s.decided());
  EXPECT_EQ(s.winner(), "conv2d.im2col_gemm");
  ASSERT_TRUE(s.record);
  EXPECT_EQ(s.record->line, 2u);
  // The record's config replaces the defaults it names.
  EXPECT_EQ(s.alternatives[0].schedule,
            (ScheduleParams{{"tile_k", 256}, {"tile_m", 32}, {"tile_n", 128}}));
  // Without the log: priority.
  EXPECT_FALSE(selectOk(w, cpu()).record);
}

TEST(SelectTest, UnusableRecordsIgnored) {
  Workload w = conv(1, 32, 32, 3, 1, "f32", 6);
  TuningRecord otherMachine = record(w, "conv2d.im2col_gemm", 1e-6);
  otherMachine.machine = "elsewhere";
  TuningRecord otherTarget = record(w, "conv2d.im2col_gemm", 1e-6);
  otherTarget.target = "npu";
  TuningRecord otherWorkload =
      record(conv(1, 32, 32, 5), "conv2d.im2col_gemm", 1e-6);
  TuningRecord unknownImpl = record(w, "conv2d.fft", 1e-6, {}, 4);
  TuningRecord falseCondition = record(w, "conv2d.1x1_gemm", 1e-6, {}, 5);
  TuningRecord badParam =
      record(w, "conv2d.im2col_gemm", 1e-6, {{"tile_q", 3}}, 6);
  TuningLog log{"log.jsonl",
                {otherMachine, otherTarget, otherWorkload, unknownImpl,
                 falseCondition, badParam}};
  Selection s = selectOk(w, cpu(&log));
  EXPECT_FALSE(s.record);
  EXPECT_EQ(s.winner(), "conv2d.im2col_gemm");
  std::string text = explain(builtinRegistry(), w, cpu(&log));
  EXPECT_NE(text.find("ignored, measured on machine 'elsewhere', not "
                      "'test-machine'"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("line 4: conv2d.fft {} 1e-06 s: ignored, implementation "
                      "'conv2d.fft' is not registered"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("line 5: conv2d.1x1_gemm {} 1e-06 s: ignored, its "
                      "condition is false"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ignored, config parameter 'tile_q' is not a schedule "
                      "parameter of 'conv2d.im2col_gemm'"),
            std::string::npos)
      << text;
  // Records for other targets and workloads are not listed at all.
  EXPECT_EQ(text.find("npu"), std::string::npos) << text;
}

TEST(SelectTest, GuardChainForDynamicDims) {
  Workload w = matmul(Q, 64, 32);
  Selection s = selectOk(w, cpu());
  ASSERT_FALSE(s.decided());
  ASSERT_EQ(s.alternatives.size(), 2u);
  EXPECT_EQ(s.alternatives[0].implementation, "matmul.gemv_f32");
  ASSERT_EQ(s.alternatives[0].when.size(), 1u);
  // Only the unknown clause remains to check at run time.
  EXPECT_EQ(s.alternatives[0].when[0].str(), "operand 0 dim -2 == 1");
  EXPECT_EQ(s.alternatives[1].implementation, "matmul.gemm_f32");
  EXPECT_TRUE(s.alternatives[1].when.empty());

  // The runtime resolves it on the actual shapes.
  const GuardAlternative *one = resolveGuard(s, matmul(1, 64, 32));
  const GuardAlternative *many = resolveGuard(s, matmul(7, 64, 32));
  ASSERT_TRUE(one && many);
  EXPECT_EQ(one->implementation, "matmul.gemv_f32");
  EXPECT_EQ(many->implementation, "matmul.gemm_f32");
  // A guard at run time agrees with selecting on the static workload.
  EXPECT_EQ(one->implementation, winner(matmul(1, 64, 32)));
  EXPECT_EQ(many->implementation, winner(matmul(7, 64, 32)));
}

TEST(SelectTest, GuardChainKeepsSeveralUnknowns) {
  StrategyRegistry r;
  ASSERT_FALSE(registerGenericStrategies(r));
  auto mk = [](std::string n, int p, Condition c) {
    Implementation i;
    i.name = std::move(n);
    i.priority = p;
    i.condition = std::move(c);
    return i;
  };
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul",
      mk("small", 30,
         {Clause::dim(in0, 0, Cmp::Le, 4), Clause::dim(in0, 1, Cmp::Eq, 64)})));
  ASSERT_FALSE(r.addGeneric(
      "top.MatMul",
      mk("aligned", 20, {Clause::dim(in0, 0, Cmp::DivisibleBy, 8)})));
  ASSERT_FALSE(r.addGeneric("top.MatMul",
                            mk("i8only", 25, {Clause::dtypeIn(in0, {"i8"})})));
  ShapeOr<Selection> s = select(r, matmul(Q, 64, 32), cpu());
  ASSERT_TRUE(bool(s));
  ASSERT_EQ(s->alternatives.size(), 3u);
  EXPECT_EQ(s->alternatives[0].implementation, "small");
  EXPECT_EQ(Condition(s->alternatives[0].when).str(), "operand 0 dim 0 <= 4");
  EXPECT_EQ(s->alternatives[1].implementation, "aligned");
  EXPECT_EQ(s->alternatives[2].implementation, "codegen");
  EXPECT_EQ(resolveGuard(*s, matmul(3, 64, 32))->implementation, "small");
  EXPECT_EQ(resolveGuard(*s, matmul(16, 64, 32))->implementation, "aligned");
  EXPECT_EQ(resolveGuard(*s, matmul(13, 64, 32))->implementation, "codegen");
  // A condition that holds ends the chain; failed ones never enter it.
  ShapeOr<Selection> st = select(r, matmul(16, 64, 32), cpu());
  ASSERT_TRUE(bool(st));
  EXPECT_TRUE(st->decided());
  EXPECT_EQ(st->winner(), "aligned");
}

TEST(SelectTest, ExplainShowsClausesValuesAndWinner) {
  Workload w = conv(1, 8, 32, 3);
  std::string text = explain(builtinRegistry(), w, cpu());
  EXPECT_NE(text.find("top.Conv on target 'cpu'\n  workload: " + w.key()),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[12] conv2d.winograd_f43: failed -> kernel "
                      "conv2d_winograd_f43_f32"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("failed: operand 0 dim 1 >= 16 (dim 1 = 8)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[0] codegen: held -> codegen\n        always"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tuning log: none"), std::string::npos);
  EXPECT_NE(text.find("winner: conv2d.im2col_gemm (highest priority whose "
                      "condition holds)"),
            std::string::npos)
      << text;
  // The winner's kernel parameters, evaluated.
  EXPECT_NE(
      text.find("kernel call: conv2d_im2col_gemm_f32(N = 1, C = 8, H = 8, "
                "W = 8, OH = 8, OW = 8, O = 32, KH = 3, KW = 3, SH = 1, "
                "SW = 1, PT = 1, PL = 1, PB = 1, PR = 1, DH = 1, DW = 1, "
                "G = 1)"),
      std::string::npos)
      << text;
  std::string guarded = explain(builtinRegistry(), matmul(Q, 64, 32), cpu());
  EXPECT_NE(guarded.find("unknown: operand 0 dim -2 == 1 (dim -2 is dynamic)"),
            std::string::npos)
      << guarded;
  EXPECT_NE(guarded.find("winner decided at run time (guard chain):\n"
                         "    if operand 0 dim -2 == 1 -> matmul.gemv_f32\n"
                         "    otherwise -> matmul.gemm_f32\n"),
            std::string::npos)
      << guarded;
}

TEST(ParamSourceTest, Evaluate) {
  Workload w = matmul(Q, 64, 32);
  EXPECT_EQ(*ParamSource::dim(in0, -1).evaluate(w), 64);
  EXPECT_EQ(*ParamSource::dim(in0, 0).evaluate(w), kDynamicDim);
  EXPECT_EQ(*ParamSource::dimProduct(in0, 0, -1).evaluate(w), kDynamicDim);
  EXPECT_EQ(*ParamSource::dimProduct(TensorRef::result(0), 1, ParamSource::kEnd)
                 .evaluate(w),
            32);
  EXPECT_EQ(*ParamSource::dimProduct(in0, 1, 1).evaluate(w), 1);
  EXPECT_EQ(*ParamSource::attrInt("right_transpose").evaluate(w), 0);
  EXPECT_EQ(*ParamSource::constant(7).evaluate(w), 7);
  Workload c = conv(2, 8, 16, 3);
  EXPECT_EQ(*ParamSource::attrElement("pads", 3).evaluate(c), 1);
  EXPECT_EQ(*ParamSource::dimProduct(in0, 2, ParamSource::kEnd).evaluate(c),
            64);
  EXPECT_EQ(ParamSource::dim(in0, 4).evaluate(c).error(),
            "parameter reads dim 4 of operand 0 of rank 4");
  EXPECT_EQ(ParamSource::attrInt("nope").evaluate(c).error(),
            "parameter reads attribute 'nope', which is absent");
  EXPECT_EQ(ParamSource::attrElement("pads", 9).evaluate(c).error(),
            "parameter reads element 9 of attribute 'pads' = [1, 1, 1, 1]");
  EXPECT_EQ(ParamSource::dim(TensorRef::operand(2), 0).evaluate(c).error(),
            "parameter reads operand 2, which the op does not have");
  EXPECT_EQ(ParamSource::dimProduct(in0, 0, ParamSource::kEnd).str(),
            "product(operand 0 dims [0, end))");
  EXPECT_EQ(ParamSource::dimProduct(in0, 0, -1).str(),
            "product(operand 0 dims [0, -1))");
}

TEST(WorkloadTest, KeysAreStable) {
  Workload w = conv(1, 3, 4, 3);
  EXPECT_EQ(
      w.key(),
      "top.Conv(f32[1, 3, 8, 8], f32[4, 3, 3, 3], none) -> "
      "(f32[1, 4, 8, 8]) {dilations = [1, 1], group = 1, kernel_shape = "
      "[3, 3], layout = \"NCHW\", pads = [1, 1, 1, 1], strides = [1, 1]}");
  // Spelling the defaults or leaving them out gives one key.
  Workload spelled = w;
  spelled.attrs.erase("strides");
  spelled.attrs.erase("dilations");
  completeWorkloadDefaults(spelled);
  EXPECT_EQ(spelled.key(), w.key());
  // Any difference shows.
  Workload other = w;
  other.attrs["strides"] = AttrValue::intList({2, 2});
  EXPECT_NE(other.key(), w.key());
  EXPECT_EQ(matmul(Q, 8, 8).key(),
            "top.MatMul(f32[?, 8], f32[8, 8], none) -> (f32[?, 8]) "
            "{right_transpose = false}");
  Workload unranked{"top.Relu",
                    {{"f32", {}, false}},
                    {{"f32", {}, false}},
                    {{"eps", AttrValue::floating(0.1)},
                     {"tiny", AttrValue::floating(1.0000001e-5)},
                     {"names", AttrValue::stringList({"a", "b\""})},
                     {"fl", AttrValue::floatList({1.5, 1e-5})}}};
  EXPECT_EQ(unranked.key(),
            "top.Relu(f32[*]) -> (f32[*]) {eps = 1.000000e-01, fl = "
            "[1.500000e+00, 1.000000e-05], names = [\"a\", \"b\\\"\"], tiny = "
            "1.0000001e-05}");
}

TEST(WorkloadTest, AxisNormalization) {
  Workload ln{"top.LayerNorm",
              {t("f32", {2, 3, 4}), none(), none()},
              {t("f32", {2, 3, 4})},
              {{"axis", AttrValue::integer(2)}}};
  completeWorkloadDefaults(ln);
  EXPECT_EQ(ln.attr("axis")->getInt(), -1);
  ln.attrs["axis"] = AttrValue::integer(1);
  completeWorkloadDefaults(ln);
  EXPECT_EQ(ln.attr("axis")->getInt(), -2);
  // Not for ops whose axis means something else.
  Workload concat{"top.Concat",
                  {t("f32", {2, 3})},
                  {t("f32", {2, 3})},
                  {{"axis", AttrValue::integer(1)}}};
  completeWorkloadDefaults(concat);
  EXPECT_EQ(concat.attr("axis")->getInt(), 1);
}

TEST(TuningLogTest, FormatRecord) {
  TuningRecord r{"top.X(f32[1]) -> (f32[1]) {mode = \"a\"}",
                 "cpu",
                 "m",
                 "x.impl",
                 {{"tile_n", 8}, {"tile_m", 4}},
                 0.00125,
                 0};
  EXPECT_EQ(formatTuningRecord(r),
            "{\"workload\": \"top.X(f32[1]) -> (f32[1]) {mode = \\\"a\\\"}\", "
            "\"target\": \"cpu\", \"machine\": \"m\", \"implementation\": "
            "\"x.impl\", \"config\": {\"tile_m\": 4, \"tile_n\": 8}, \"cost\": "
            "0.00125}");
}

} // namespace
