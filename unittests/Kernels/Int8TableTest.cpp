//===- Int8TableTest.cpp - the int8 table lookup kernel -------------------===//
//
// int8Table on every length class (empty, shorter than a vector, whole
// vectors, tails) and in place, against table[x + 128] written out here;
// the runtime's table_i8 entry with params packed as the compiler packs
// them, split over workgroups, and its rejections.
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

} // namespace
