#include "rocesim/check/dependency.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {

// n switches in a ring (s_i linked to s_i+1), one host on each; ports: 0 the host, then the ring links in
// link order (s0: 1 toward s1, 2 toward s_n-1; s_i, i > 0: 1 toward s_i-1, 2 toward s_i+1).
TopologyGraph ring(int n) {
  TopologyGraph g;
  std::vector<int> h, s;
  for (int i = 0; i < n; ++i) {
    h.push_back(g.add_node("h" + std::to_string(i), NodeKind::kNic));
  }
  for (int i = 0; i < n; ++i) {
    s.push_back(g.add_node("s" + std::to_string(i), NodeKind::kSwitch));
  }
  for (int i = 0; i < n; ++i) {
    g.add_link(h[i], s[i], Rate::gbps(100), Time::us(1));
  }
  for (int i = 0; i < n; ++i) {
    g.add_link(s[i], s[(i + 1) % n], Rate::gbps(100), Time::us(1));
  }
  return g;
}

TEST(BufferDependencies, RingOfFiveClosesOneCycleEachWayRound) {
  // Hosts two switches apart are two hops one way and three the other: every route is unique, and the
  // clockwise two-hop routes chain s0->s1, s1->s2, ..., s4->s0 (likewise anticlockwise).
  const DependencyReport r = find_dependency_cycles(ring(5), 0);
  EXPECT_EQ(r.failure_sets, 1u);
  EXPECT_EQ(r.sets_with_cycles, 1u);
  ASSERT_EQ(r.cycles.size(), 2u);
  EXPECT_EQ(r.cycles[0].queues, (std::vector<std::string>{"s0:1", "s1:2", "s2:2", "s3:2", "s4:2"}));
  EXPECT_EQ(r.cycles[1].queues, (std::vector<std::string>{"s0:2", "s4:1", "s3:1", "s2:1", "s1:1"}));
  EXPECT_TRUE(r.cycles[0].failed.empty());
  EXPECT_FALSE(r.cycles[0].transient);
}

TEST(BufferDependencies, TriangleHasNoCycleBecauseEveryRouteIsOneHop) {
  const DependencyReport r = find_dependency_cycles(ring(3), 0);
  EXPECT_TRUE(r.cycles.empty());
}

TEST(BufferDependencies, UpDownRoutesOfAClosHaveNoCycle) {
  for (const char* topo : {"topology: {type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 2}\n",
                           "topology: {type: fat-tree, k: 4}\n"}) {
    const Scenario sc = parse_scenario(topo, "t.yaml", ".", {});
    EXPECT_TRUE(find_dependency_cycles(sc.graph, 0).cycles.empty()) << topo;
  }
}

TEST(BufferDependencies, FailedSpineLinkLoopsTrafficWhileRoutesConverge) {
  // leaf0: ports 0-1 hosts, 2 spine0, 3 spine1; spine0: 0 leaf0, 1 leaf1. With leaf0-spine0 down, spine0's new
  // route to leaf0 bounces down to leaf1 (then up through spine1), while leaf1, still on its old routes, may
  // send leaf0's traffic up to spine0: a two-queue loop. Once leaf1 has converged it sends only via spine1.
  const Scenario sc =
      parse_scenario("topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2}\n", "t.yaml", ".", {});
  const DependencyReport r = find_dependency_cycles(sc.graph, 1);
  EXPECT_EQ(r.failure_sets, 5u);  // as built, and each of the 4 leaf-spine links down
  EXPECT_EQ(r.sets_with_cycles, 0u);
  EXPECT_EQ(r.sets_with_transient, 4u);
  ASSERT_EQ(r.cycles.size(), 4u);
  EXPECT_EQ(r.cycles[0].failed, (std::vector<std::string>{"leaf0:2-spine0:0"}));
  EXPECT_EQ(r.cycles[0].queues, (std::vector<std::string>{"leaf1:2", "spine0:1"}));
  EXPECT_TRUE(r.cycles[0].transient);
}

TEST(BufferDependencies, TwoFailuresCountEverySetOfOneAndTwo) {
  const Scenario sc =
      parse_scenario("topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 1}\n", "t.yaml", ".", {});
  EXPECT_EQ(find_dependency_cycles(sc.graph, 2).failure_sets, 1u + 4u + 6u);
  // The progress line counts the same sets, up to the same total.
  std::vector<std::pair<size_t, size_t>> seen;
  find_dependency_cycles(sc.graph, 2, false, [&](size_t done, size_t total) { seen.emplace_back(done, total); });
  ASSERT_EQ(seen.size(), 11u);
  EXPECT_EQ(seen.front(), (std::pair<size_t, size_t>{1, 11}));
  EXPECT_EQ(seen.back(), (std::pair<size_t, size_t>{11, 11}));
}

TEST(BufferDependencies, TaggerBreaksTheConvergenceLoopOfAFailedSpineLinkAtItsBounce) {
  // The loop leaf1:2 -> spine0:1 -> leaf1:2 turns down then up at leaf1: a packet there moves to the next priority.
  const Scenario sc =
      parse_scenario("topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2}\n", "t.yaml", ".", {});
  EXPECT_FALSE(find_dependency_cycles(sc.graph, 1, false).cycles.empty());
  const DependencyReport r = find_dependency_cycles(sc.graph, 1, true);
  EXPECT_TRUE(r.tagged);
  EXPECT_EQ(r.failure_sets, 5u);
  EXPECT_TRUE(r.cycles.empty());
}

TEST(BufferDependencies, TaggerKeepsEveryFatTreeAcyclicAfterTwoFailures) {
  // Without bounces only up-then-down waits remain, which cannot close a cycle, however routes go after failures.
  const Scenario sc = parse_scenario("topology: {type: fat-tree, k: 4}\n", "t.yaml", ".", {});
  EXPECT_FALSE(find_dependency_cycles(sc.graph, 2, false).cycles.empty());
  EXPECT_TRUE(find_dependency_cycles(sc.graph, 2, true).cycles.empty());
}

TEST(BufferDependencies, TaggerLeavesTheCyclesOfARingWhichHasNoBounce) {
  // Every ring switch has a host: all are on level 1, so no route turns down then up.
  EXPECT_EQ(find_dependency_cycles(ring(5), 0, true).cycles.size(), 2u);
}

}  // namespace
}  // namespace rocesim
