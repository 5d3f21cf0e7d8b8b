//===- MemoryPlanTest.cpp - arena planning --------------------------------===//

#include "strata/Target/MemoryPlan.h"

#include <gtest/gtest.h>

#include <random>

using namespace strata::plan;

namespace {

/// Checks the invariant every plan must keep: tensors alive at the same
/// step never share a byte, and all lie inside the arena.
void expectValid(const std::vector<Lifetime> &ts, const ArenaPlan &p,
                 uint64_t alignment) {
  ASSERT_EQ(p.offsets.size(), ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % alignment, 0u) << i;
    EXPECT_LE(p.offsets[i] + ts[i].size, p.arenaSize) << i;
    for (size_t j = i + 1; j < ts.size(); ++j) {
      bool timeOverlap = ts[i].first <= ts[j].last && ts[j].first <= ts[i].last;
      bool spaceOverlap = p.offsets[i] < p.offsets[j] + ts[j].size &&
                          p.offsets[j] < p.offsets[i] + ts[i].size;
      EXPECT_FALSE(timeOverlap && spaceOverlap && ts[i].size && ts[j].size)
          << "tensors " << i << " and " << j << " overlap";
    }
  }
}

TEST(MemoryPlan, ChainReusesBytes) {
  // a -> b -> c -> d: each tensor dies when the next is written, so two
  // slots suffice (a and c share, b and d share).
  std::vector<Lifetime> ts = {
      {100, 0, 1}, {100, 1, 2}, {100, 2, 3}, {100, 3, 3}};
  ArenaPlan p;
  std::string error;
  ASSERT_TRUE(planArena(ts, 64, p, error)) << error;
  expectValid(ts, p, 64);
  EXPECT_EQ(p.arenaSize, 256u);
  EXPECT_EQ(p.totalSize, 512u);
}

TEST(MemoryPlan, AllAliveNeedsTheSum) {
  std::vector<Lifetime> ts = {{10, 0, 5}, {200, 1, 5}, {64, 2, 5}};
  ArenaPlan p;
  std::string error;
  ASSERT_TRUE(planArena(ts, 64, p, error)) << error;
  expectValid(ts, p, 64);
  EXPECT_EQ(p.arenaSize, 64u + 256u + 64u);
}

TEST(MemoryPlan, SmallTensorFillsAGap) {
  // A big tensor lives throughout; two tensors alive one after another take
  // the same place after it; a small one alive with both goes after them.
  std::vector<Lifetime> ts = {
      {1024, 0, 3}, {512, 0, 1}, {512, 2, 3}, {64, 1, 2}};
  ArenaPlan p;
  std::string error;
  ASSERT_TRUE(planArena(ts, 64, p, error)) << error;
  expectValid(ts, p, 64);
  EXPECT_EQ(p.arenaSize, 1024u + 512u + 64u);
}

TEST(MemoryPlan, RandomPlansAreValid) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Lifetime> ts(1 + rng() % 40);
    for (Lifetime &t : ts) {
      t.size = rng() % 5000;
      t.first = rng() % 30;
      t.last = t.first + rng() % 10;
    }
    ArenaPlan p;
    std::string error;
    ASSERT_TRUE(planArena(ts, 64, p, error)) << error;
    expectValid(ts, p, 64);
    EXPECT_LE(p.arenaSize, p.totalSize);
  }
}

TEST(MemoryPlan, Errors) {
  ArenaPlan p;
  std::string error;
  EXPECT_FALSE(planArena({{10, 3, 2}}, 64, p, error));
  EXPECT_NE(error.find("read before it is written"), std::string::npos);
  EXPECT_FALSE(planArena({{UINT64_MAX - 10, 0, 0}}, 64, p, error));
  EXPECT_NE(error.find("overflows"), std::string::npos);
  EXPECT_FALSE(
      planArena({{UINT64_MAX / 2 + 64, 0, 1}, {UINT64_MAX / 2 + 64, 0, 1}}, 64,
                p, error));
  EXPECT_FALSE(planArena({{1, 0, 0}}, 0, p, error));
}

} // namespace
