#include "rocesim/sweep/grid.hpp"

#include <gtest/gtest.h>

#include "rocesim/core/error.hpp"

namespace rocesim {
namespace {

TEST(SweepGrid, ValuesSplitAtCommasOutsideBrackets) {
  const GridAxis a = parse_grid_axis("switch.pfc.priorities=[3],[3,4],{a: 1, b: 2}");
  EXPECT_EQ(a.key, "switch.pfc.priorities");
  EXPECT_EQ(a.values, (std::vector<std::string>{"[3]", "[3,4]", "{a: 1, b: 2}"}));
  EXPECT_EQ(parse_grid_axis("nic.cc=dcqcn").values, (std::vector<std::string>{"dcqcn"}));
}

TEST(SweepGrid, MalformedAxesAreRejectedNamingTheGrid) {
  for (const char* bad : {"switch.ecn.kmin", "=1KB", "k=1KB,,2KB", "k=", "k=[1,2", "k=1]", "k=a,a"}) {
    try {
      parse_grid_axis(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "--grid") << bad;
    }
  }
}

TEST(SweepGrid, SeedRangesAndListsInTheOrderGiven) {
  EXPECT_EQ(parse_seeds("1-5"), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(parse_seeds("9,3,1-2"), (std::vector<int64_t>{9, 3, 1, 2}));
  EXPECT_EQ(parse_seeds("0"), (std::vector<int64_t>{0}));
  EXPECT_EQ(parse_seeds("9223372036854775806-9223372036854775807").size(), 2u);  // stops at the largest int64
  for (const char* bad : {"", "5-1", "a", "1,,2", "1-", "-3", "1,1", "1-3,2", "0-100000"}) {
    EXPECT_THROW(parse_seeds(bad), InputError) << bad;
  }
}

TEST(SweepGrid, ExpansionIsTheProductWithTheFirstAxisSlowestAndSeedsFastest) {
  const std::vector<GridAxis> axes{{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}};
  const auto pts = expand_grid(axes, {7, 8});
  ASSERT_EQ(pts.size(), 2u * 3u * 2u);
  EXPECT_EQ(pts[0].sets(), (std::vector<std::string>{"a=1", "b=x"}));
  EXPECT_EQ(*pts[0].seed, 7);
  EXPECT_EQ(*pts[1].seed, 8);
  EXPECT_EQ(pts[2].sets(), (std::vector<std::string>{"a=1", "b=y"}));
  EXPECT_EQ(pts[11].sets(), (std::vector<std::string>{"a=2", "b=z"}));
  // Without seeds, one point per combination, each with the scenario's own seed.
  const auto unseeded = expand_grid(axes, {});
  ASSERT_EQ(unseeded.size(), 6u);
  EXPECT_FALSE(unseeded[0].seed.has_value());
  // No axes, seeds only.
  EXPECT_EQ(expand_grid({}, {1, 2, 3}).size(), 3u);
}

TEST(SweepGrid, ATwiceNamedKeyOrAnOversizedGridIsRejected) {
  EXPECT_THROW(expand_grid({{"a", {"1"}}, {"a", {"2"}}}, {}), InputError);
  std::vector<std::string> many;
  for (int i = 0; i < 1000; ++i) {
    many.push_back(std::to_string(i));
  }
  EXPECT_THROW(expand_grid({{"a", many}, {"b", many}}, {}), InputError);
}

}  // namespace
}  // namespace rocesim
