//===- Int8TableTest.cpp - the int8 table lookup kernel -------------------===//
//
// int8Table on every length class (empty, shorter than a vector, whole
// vectors, tails) and in place, against table[x + 128] written out here;
// the runtime's table_i8 entry with params packed as the compiler packs
// them, split over workgroups, and its rejections; the per-channel tables
// (int8TableChannels, table_channels_i8) likewise.
//
//===----------------------------------------------------------------------===//

#include "strata/Kernels/Int8Table.h"
#include "CpuKernels.h"
#include "strata/Kernels/KernelAbi.h"

#include <cstring>
#include <random>

#include "gtest/gtest.h"

using namespace strata::kernels;
using strata::runtime::hal::BufferInfo;
using strata::runtime::hal::CpuKernel;
using strata::runtime::hal::findCpuKernel;

namespace {

std::vector<int8_t> randomBytes(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<int8_t> v(n);
  for (int8_t &x : v)
    x = static_cast<int8_t>(gen());
  return v;
}

TEST(Int8Table, EveryLengthAndInPlace) {
  std::vector<int8_t> table = randomBytes(256, 1);
  for (int64_t n : {0, 1, 63, 64, 65, 127, 128, 1000, 4099}) {
    std::vector<int8_t> in = randomBytes(size_t(n), unsigned(n) + 7);
    // Every byte value at least once when n allows it.
    for (int64_t i = 0; i < std::min<int64_t>(n, 256); ++i)
      in[size_t(i)] = static_cast<int8_t>(i - 128);
    std::vector<int8_t> want(static_cast<size_t>(n)), got(want), portable(want);
    for (int64_t i = 0; i < n; ++i)
      want[size_t(i)] = table[size_t(int(in[size_t(i)]) + 128)];
    int8Table(in.data(), got.data(), n, table.data());
    int8TablePortable(in.data(), portable.data(), n, table.data());
    EXPECT_EQ(got, want) << "n = " << n;
    EXPECT_EQ(portable, want) << "n = " << n;
    int8Table(in.data(), in.data(), n, table.data());
    EXPECT_EQ(in, want) << "in place, n = " << n;
  }
}

TEST(RuntimeInt8Kernels, TableMatchesAndRejects) {
  const CpuKernel *k = findCpuKernel(kabi::kTableI8);
  ASSERT_NE(k, nullptr);
  int64_t n = 1001;
  std::vector<int8_t> table = randomBytes(256, 3);
  std::vector<int64_t> params(static_cast<size_t>(kabi::kTableI8Params));
  params[0] = n;
  std::memcpy(params.data() + 1, table.data(), 256);
  ASSERT_EQ(params.size(), k->paramCount);
  std::vector<BufferInfo> infos(2);
  infos[0].size = infos[1].size = uint64_t(n);
  std::string error;
  ASSERT_TRUE(k->check(infos, params, error)) << error;
  std::vector<int8_t> in = randomBytes(static_cast<size_t>(n), 5), out(in);
  std::vector<void *> bindings = {in.data(), out.data()};
  for (int64_t id = 0; id < 3; ++id)
    ASSERT_EQ(k->fn(bindings.data(), params.data(), id, 3), 0);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(i)], table[size_t(int(in[size_t(i)]) + 128)])
        << "at " << i;

  std::vector<int64_t> negative = params;
  negative[0] = -1;
  EXPECT_FALSE(k->check(infos, negative, error));
  EXPECT_NE(error.find("count is -1"), std::string::npos) << error;
  std::vector<BufferInfo> small = infos;
  small[1].size = uint64_t(n - 1);
  EXPECT_FALSE(k->check(small, params, error));
  EXPECT_NE(error.find("out"), std::string::npos) << error;
}

/// out[i] = tables[256 * c + in[i] + 128], c = (i / inner) % channels,
/// written out here.
std::vector<int8_t> channelLookup(const std::vector<int8_t> &in,
                                  const std::vector<int8_t> &tables,
                                  int64_t channels, int64_t inner) {
  std::vector<int8_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    out[i] = tables[size_t(256 * ((int64_t(i) / inner) % channels) +
                           int(in[i]) + 128)];
  return out;
}

TEST(Int8Table, PerChannelEveryPlaneSizeRangeAndInPlace) {
  // Planes shorter than a vector (byte loop), of whole vectors and with
  // tails; batches of 1 and 2; sub-ranges starting and ending mid-plane.
  struct Case {
    int64_t batch, channels, inner;
  };
  for (Case c :
       {Case{1, 1, 1}, Case{2, 5, 1}, Case{1, 7, 36}, Case{2, 3, 63},
        Case{1, 4, 64}, Case{2, 6, 65}, Case{1, 3, 200}, Case{2, 11, 667}}) {
    int64_t n = c.batch * c.channels * c.inner;
    std::vector<int8_t> tables =
        randomBytes(size_t(256 * c.channels), unsigned(n));
    std::vector<int8_t> in = randomBytes(size_t(n), unsigned(n) + 1);
    std::vector<int8_t> want = channelLookup(in, tables, c.channels, c.inner);
    std::string what = std::to_string(c.batch) + "x" +
                       std::to_string(c.channels) + "x" +
                       std::to_string(c.inner);
    std::vector<int8_t> got(in.size()), portable(in.size());
    int8TableChannels(in.data(), got.data(), 0, n, c.channels, c.inner,
                      tables.data());
    int8TableChannelsPortable(in.data(), portable.data(), 0, n, c.channels,
                              c.inner, tables.data());
    EXPECT_EQ(got, want) << what;
    EXPECT_EQ(portable, want) << what;
    // Pieces as workgroups of 64-element chunks split them.
    std::vector<int8_t> pieces(in.size());
    for (int64_t first = 0; first < n; first += 64 * 3)
      int8TableChannels(in.data(), pieces.data(), first,
                        std::min(n, first + 64 * 3), c.channels, c.inner,
                        tables.data());
    EXPECT_EQ(pieces, want) << what << " in pieces";
    std::vector<int8_t> inPlace = in;
    int8TableChannels(inPlace.data(), inPlace.data(), 0, n, c.channels, c.inner,
                      tables.data());
    EXPECT_EQ(inPlace, want) << what << " in place";
  }
}

TEST(RuntimeInt8Kernels, TableChannelsMatchesAndRejects) {
  const CpuKernel *k = findCpuKernel(kabi::kTableChannelsI8);
  ASSERT_NE(k, nullptr);
  int64_t channels = 5, inner = 143, n = 2 * channels * inner;
  std::vector<int8_t> tables = randomBytes(size_t(256 * channels), 9);
  std::vector<int64_t> params = {n, channels, inner};
  params.resize(size_t(3 + 32 * channels));
  std::memcpy(params.data() + 3, tables.data(), tables.size());
  std::vector<BufferInfo> infos(2);
  infos[0].size = infos[1].size = uint64_t(n);
  std::string error;
  ASSERT_TRUE(k->check(infos, params, error)) << error;
  std::vector<int8_t> in = randomBytes(size_t(n), 11), out(in.size());
  std::vector<void *> bindings = {in.data(), out.data()};
  for (int64_t id = 0; id < 3; ++id)
    ASSERT_EQ(k->fn(bindings.data(), params.data(), id, 3), 0);
  EXPECT_EQ(out, channelLookup(in, tables, channels, inner));

  std::vector<int64_t> bad = params;
  bad[1] = 0;
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("channels >= 1"), std::string::npos) << error;
  bad = params;
  bad.pop_back();
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("32 x channels"), std::string::npos) << error;
  bad = params;
  bad[1] = INT64_MAX / 8;
  EXPECT_FALSE(k->check(infos, bad, error));
  EXPECT_NE(error.find("32 x channels"), std::string::npos) << error;
  std::vector<BufferInfo> small = infos;
  small[0].size = uint64_t(n - 1);
  EXPECT_FALSE(k->check(small, params, error));
  EXPECT_NE(error.find("in"), std::string::npos) << error;
  EXPECT_FALSE(k->check(infos, {n, channels}, error));
  EXPECT_NE(error.find("at least 3"), std::string::npos) << error;
}

} // namespace
