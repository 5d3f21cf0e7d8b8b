//===- TuningLogReaderTest.cpp - reading tuning logs, every error ---------===//

#include "strata/StrategyMLIR/TuningLogReader.h"

#include <gtest/gtest.h>

using namespace strata;
using namespace strata::strategy;

namespace {

const char *kGood =
    R"({"workload": "top.Relu(f32[2]) -> (f32[2]) {}", "target": "cpu", )"
    R"("machine": "m1", "implementation": "relu.eltwise_f32", )"
    R"("config": {"vector_w": 16}, "cost": 1.5e-06})";

/// The error of parsing `line` as the second line of a log.
std::string errorOf(const std::string &line) {
  ShapeOr<TuningLog> log =
      parseTuningLog(std::string(kGood) + "\n" + line + "\n", "t.jsonl");
  EXPECT_FALSE(log) << line;
  return log ? "" : log.error();
}

TEST(TuningLogReaderTest, ReadsRecords) {
  ShapeOr<TuningLog> log = parseTuningLog(
      std::string("\n") + kGood + "\n   \n" + kGood + "\n", "t.jsonl");
  ASSERT_TRUE(bool(log)) << log.error();
  EXPECT_EQ(log->source, "t.jsonl");
  ASSERT_EQ(log->records.size(), 2u);
  const TuningRecord &r = log->records[0];
  EXPECT_EQ(r.workload, "top.Relu(f32[2]) -> (f32[2]) {}");
  EXPECT_EQ(r.target, "cpu");
  EXPECT_EQ(r.machine, "m1");
  EXPECT_EQ(r.implementation, "relu.eltwise_f32");
  EXPECT_EQ(r.config, (ScheduleParams{{"vector_w", 16}}));
  EXPECT_DOUBLE_EQ(r.cost, 1.5e-6);
  // Lines count blank ones.
  EXPECT_EQ(log->records[0].line, 2u);
  EXPECT_EQ(log->records[1].line, 4u);
  EXPECT_TRUE(parseTuningLog("", "empty")->records.empty());
}

TEST(TuningLogReaderTest, FormattedRecordsReadBack) {
  TuningRecord r{"top.Conv(f32[1, 3, 8, 8], ...) {layout = \"NCHW\"}",
                 "cpu",
                 "x86_64-znver3",
                 "conv2d.im2col_gemm",
                 {{"tile_m", 64}, {"tile_n", -1}},
                 0.00123,
                 0};
  ShapeOr<TuningLog> log = parseTuningLog(formatTuningRecord(r), "f");
  ASSERT_TRUE(bool(log)) << log.error();
  ASSERT_EQ(log->records.size(), 1u);
  const TuningRecord &b = log->records[0];
  EXPECT_EQ(b.workload, r.workload);
  EXPECT_EQ(b.machine, r.machine);
  EXPECT_EQ(b.implementation, r.implementation);
  EXPECT_EQ(b.config, r.config);
  EXPECT_EQ(b.cost, r.cost);
}

TEST(TuningLogReaderTest, EveryError) {
  std::string prefix = "tuning log 't.jsonl' line 2: ";
  EXPECT_EQ(errorOf("{\"workload\": "),
            prefix + "not valid JSON: [1:12, byte=12]: Unexpected EOF");
  EXPECT_EQ(errorOf("[1, 2]"),
            prefix + "a record must be a JSON object, got [1,2]");
  EXPECT_EQ(errorOf(R"({"workload": "w", "costs": 1})"),
            prefix + "unknown field 'costs' (fields: workload, target, "
                     "machine, implementation, config, cost)");
  const char *fields[] = {"workload", "target", "machine", "implementation"};
  for (const char *missing : fields) {
    std::string rec = "{";
    for (const char *f : fields)
      if (std::string(f) != missing)
        rec += std::string("\"") + f + "\": \"x\", ";
    rec += "\"config\": {}, \"cost\": 1}";
    EXPECT_EQ(errorOf(rec), prefix + "field '" + missing + "' is missing");
  }
  std::string base =
      R"("target": "cpu", "machine": "m", "implementation": "i", )";
  EXPECT_EQ(
      errorOf(R"({"workload": 3, )" + base + R"("config": {}, "cost": 1})"),
      prefix + "field 'workload' must be a non-empty string, got 3");
  EXPECT_EQ(
      errorOf(R"({"workload": "", )" + base + R"("config": {}, "cost": 1})"),
      prefix + "field 'workload' must be a non-empty string, got \"\"");
  std::string head = R"({"workload": "w", )" + base;
  EXPECT_EQ(errorOf(head + R"("cost": 1})"),
            prefix + "field 'config' is missing");
  EXPECT_EQ(errorOf(head + R"("config": [1], "cost": 1})"),
            prefix + "field 'config' must be an object of integers, got [1]");
  EXPECT_EQ(errorOf(head + R"("config": {"tile": 1.5}, "cost": 1})"),
            prefix + "field 'config' parameter 'tile' must be an integer, "
                     "got 1.5");
  EXPECT_EQ(errorOf(head + R"("config": {"tile": "8"}, "cost": 1})"),
            prefix + "field 'config' parameter 'tile' must be an integer, "
                     "got \"8\"");
  EXPECT_EQ(errorOf(head + R"("config": {}})"),
            prefix + "field 'cost' is missing");
  for (const char *bad : {"\"fast\"", "0", "-0.5", "null"})
    EXPECT_EQ(errorOf(head + R"("config": {}, "cost": )" + bad + "}"),
              prefix +
                  "field 'cost' must be a finite number > 0 (seconds), "
                  "got " +
                  bad);
}

TEST(TuningLogReaderTest, ReadFileErrors) {
  ShapeOr<TuningLog> log = readTuningLog("/nonexistent/strata-tuning.jsonl");
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().find("cannot read tuning log "
                             "'/nonexistent/strata-tuning.jsonl': "),
            std::string::npos)
      << log.error();
  EXPECT_NE(hostMachine().find('-'), std::string::npos);
}

} // namespace
