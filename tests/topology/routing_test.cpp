#include "rocesim/topology/routing.hpp"

#include <gtest/gtest.h>

#include <map>

#include "../test_util.hpp"

namespace rocesim {
namespace {

std::map<std::string, int> level_by_name(const std::string& topo) {
  const Scenario sc = parse_scenario("topology: " + topo + "\n", "t.yaml", ".", {});
  const std::vector<int> level = levels(sc.graph);
  std::map<std::string, int> out;
  for (size_t n = 0; n < sc.graph.nodes.size(); ++n) {
    out[sc.graph.nodes[n].name] = level[n];
  }
  return out;
}

TEST(Levels, LeavesAreOneHopFromTheHostsAndSpinesTwo) {
  const auto l = level_by_name("{type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2}");
  EXPECT_EQ(l.at("host0"), 0);
  EXPECT_EQ(l.at("leaf1"), 1);
  EXPECT_EQ(l.at("spine0"), 2);
}

TEST(Levels, FatTreeTiersAreEdgeOneAggregationTwoCoreThree) {
  const auto l = level_by_name("{type: fat-tree, k: 4}");
  int per_level[4] = {0, 0, 0, 0};
  for (const auto& [name, level] : l) {
    ASSERT_GE(level, 0) << name;
    ASSERT_LE(level, 3) << name;
    ++per_level[level];
  }
  // k = 4: 16 hosts, 8 edge, 8 aggregation and 4 core switches.
  EXPECT_EQ(per_level[0], 16);
  EXPECT_EQ(per_level[1], 8);
  EXPECT_EQ(per_level[2], 8);
  EXPECT_EQ(per_level[3], 4);
}

}  // namespace
}  // namespace rocesim
