//===- NpuConfigTest.cpp - the NPU description and its JSON reader --------===//

#include "strata/Npu/NpuConfigJson.h"

#include "gtest/gtest.h"

using namespace strata::npu;

namespace {

/// The error message of a JSON text that must be refused.
std::string errorOf(llvm::StringRef text) {
  llvm::Expected<NpuConfig> c = parseNpuConfigJson(text, "cfg.json");
  if (c)
    return "<accepted>";
  return llvm::toString(c.takeError());
}

TEST(NpuConfig, DefaultIsValidAndModelsTheSeed) {
  NpuConfig c = defaultNpuConfig();
  EXPECT_EQ(validateNpuConfig(c), std::nullopt);
  EXPECT_EQ(c.lramBytes, 512 * 1024);
  EXPECT_EQ(c.peakMacsPerCycle(), 512);
  EXPECT_DOUBLE_EQ(c.effectiveDmaBytesPerCycle(), 8.0 * 0.65);
  EXPECT_TRUE(c.supports(NumberFormat::BF16));
}

TEST(NpuConfig, EmptyObjectGivesDefaults) {
  llvm::Expected<NpuConfig> c = parseNpuConfigJson("{}", "cfg.json");
  ASSERT_TRUE(static_cast<bool>(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->slices, defaultNpuConfig().slices);
}

TEST(NpuConfig, PrintedJsonReadsBack) {
  NpuConfig c = defaultNpuConfig();
  c.name = "small";
  c.lramBytes = 128 * 1024;
  c.slices = 1;
  c.macsPerSlice = 64;
  c.vectorModes = {{"16x4", 16, 4}, {"8x8", 8, 8}};
  c.formats = {NumberFormat::Int8};
  c.dmaEfficiency = 0.5;
  llvm::Expected<NpuConfig> back =
      parseNpuConfigJson(printNpuConfigJson(c), "cfg.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->name, "small");
  EXPECT_EQ(back->lramBytes, 128 * 1024);
  EXPECT_EQ(back->macsPerSlice, 64);
  ASSERT_EQ(back->vectorModes.size(), 2u);
  EXPECT_EQ(back->vectorModes[1].channels, 8);
  EXPECT_FALSE(back->supports(NumberFormat::BF16));
  EXPECT_DOUBLE_EQ(back->dmaEfficiency, 0.5);
}

TEST(NpuConfig, ErrorsNameTheFieldAndTheValue) {
  EXPECT_EQ(errorOf(R"({"slices": 0})"),
            "cfg.json: npu config: field 'slices' is 0, expected 1..64");
  EXPECT_NE(errorOf(R"({"slices": "two"})").find("field 'slices' is \"two\""),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"lram_size": 1})").find("unknown field 'lram_size'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"dma_efficiency": 1.5})")
                .find("field 'dma_efficiency' is 1.5"),
            std::string::npos);
  EXPECT_NE(
      errorOf(R"({"lram_alignment": 48})").find("field 'lram_alignment' is 48"),
      std::string::npos);
  EXPECT_NE(errorOf(R"({"vector_modes": [{"name": "a", "pixels": 32,
                                          "channels": 32}]})")
                .find("32x32 (mode 'a')"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"formats": ["int4"]})").find("holds \"int4\""),
            std::string::npos);
  EXPECT_NE(errorOf("[1, 2]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(errorOf("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(errorOf(R"({"lram_bytes": 1e300})").find("expected an integer"),
            std::string::npos);
}

TEST(NpuConfig, Lut16EntriesIs513OrNone) {
  EXPECT_EQ(defaultNpuConfig().lut16Entries, 513);
  EXPECT_EQ(errorOf(R"({"lut16_entries": 512})"),
            "cfg.json: npu config: field 'lut16_entries' is 512, expected 513 "
            "(the interpolated int16 table) or 0 (none)");
  llvm::Expected<NpuConfig> none =
      parseNpuConfigJson(R"({"lut16_entries": 0})", "cfg.json");
  ASSERT_TRUE(static_cast<bool>(none)) << llvm::toString(none.takeError());
  EXPECT_EQ(none->lut16Entries, 0);
  llvm::Expected<NpuConfig> back =
      parseNpuConfigJson(printNpuConfigJson(*none), "cfg.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->lut16Entries, 0);
}

} // namespace
