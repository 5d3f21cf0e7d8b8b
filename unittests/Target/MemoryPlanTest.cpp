//===- MemoryPlanTest.cpp - arena planning --------------------------------===//

#include "strata/Target/MemoryPlan.h"

#include <gtest/gtest.h>

#include <random>

using namespace strata::plan;

namespace {

/// Whether `b` was written in place of `a` (a hint the planner may take).
bool inPlacePair(const std::vector<Lifetime> &ts, const ArenaPlan &p, size_t a,
                 size_t b) {
  return ts[b].inPlaceOf == static_cast<int64_t>(a) &&
         ts[a].last == ts[b].first && p.offsets[a] == p.offsets[b];
}

/// Checks the invariant every plan must keep: tensors alive at the same
/// step never share a byte, except a tensor and the one written in place of
/// it at the step the first dies, and all lie inside the arena.
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
      if (inPlacePair(ts, p, i, j) || inPlacePair(ts, p, j, i))
        continue;
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

TEST(MemoryPlan, InPlaceChainUsesOneSlot) {
  // a -> b -> c -> d, each elementwise over the previous one, which dies
  // there: all four share one slot.
  std::vector<Lifetime> ts = {
      {100, 0, 1, -1}, {100, 1, 2, 0}, {100, 2, 3, 1}, {100, 3, 3, 2}};
  ArenaPlan p;
  std::string error;
  ASSERT_TRUE(planArena(ts, 64, p, error)) << error;
  expectValid(ts, p, 64);
  EXPECT_EQ(p.inPlace, 3u);
  EXPECT_EQ(p.arenaSize, 128u);
  for (uint64_t off : p.offsets)
    EXPECT_EQ(off, 0u);
}

TEST(MemoryPlan, InPlaceHintsThatDoNotHoldAreIgnored) {
  std::vector<Lifetime> ts = {
      {100, 0, 2, -1}, // 0: still read at step 2
      {100, 1, 3, 0},  // 1: in place of 0, which outlives step 1: ignored
      {200, 3, 4, 1},  // 2: in place of 1, but larger: ignored
      {100, 3, 5, 1},  // 3: in place of 1: taken
      {100, 3, 5, 1},  // 4: in place of 1 again: ignored (1 is taken)
      {100, 4, 5, 4},  // 5: in place of itself: ignored
      {100, 5, 6, 99}, // 6: no such tensor: ignored
  };
  ArenaPlan p;
  std::string error;
  ASSERT_TRUE(planArena(ts, 64, p, error)) << error;
  expectValid(ts, p, 64);
  EXPECT_EQ(p.inPlace, 1u);
  EXPECT_EQ(p.offsets[3], p.offsets[1]);
  EXPECT_NE(p.offsets[4], p.offsets[1]);
  EXPECT_NE(p.offsets[1], p.offsets[0]);
}

TEST(MemoryPlan, RandomInPlacePlansAreValid) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<Lifetime> ts(2 + rng() % 40);
    for (size_t i = 0; i < ts.size(); ++i) {
      Lifetime &t = ts[i];
      t.size = 64 * (1 + rng() % 4);
      t.first = rng() % 30;
      t.last = t.first + rng() % 10;
      if (rng() % 2)
        t.inPlaceOf = rng() % ts.size();
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
