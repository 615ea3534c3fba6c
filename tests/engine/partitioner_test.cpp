#include "rocesim/engine/partitioner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "../test_util.hpp"

namespace rocesim {
namespace {

TopologyGraph graph(const std::string& topology) {
  return parse_scenario("topology: " + topology + "\n", "test.yaml", ".", {}).graph;
}

// A rail-optimised cluster: 4 servers of 4 NICs, each NIC on the leaf of its rail.
const char* kRail =
    "{type: leaf-spine, rail: true, nics_per_host: 4, leaves: 4, servers_per_leaf: 4, spines: 2, "
    "host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 500ns}}";

}  // namespace

TEST(Partitioner, TheLookaheadIsTheLeastLinkDelayPlusTheSmallestFramesSerialisation) {
  // Host links: 1 us + 84 B at 100 Gb/s (6.72 ns); fabric links: 500 ns + 84 B at 400 Gb/s (1.68 ns).
  EXPECT_EQ(fabric_lookahead(graph(kRail), wire::Fabric::kRoceV2), Time::ps(501'680));
  // InfiniBand's smallest packet is a flow-control packet: 6 B and 2 B of delimiters, 0.16 ns at 400 Gb/s.
  EXPECT_EQ(fabric_lookahead(graph(kRail), wire::Fabric::kInfiniband), Time::ps(500'160));
}

TEST(Partitioner, AServerWithAllItsNicsIsOneUnitAndEverySwitchIsItsOwn) {
  const TopologyGraph g = graph(kRail);
  const std::vector<uint32_t> unit = units_of(g);
  std::set<uint32_t> distinct(unit.begin(), unit.end());
  EXPECT_EQ(distinct.size(), 4u + 2u + 4u);  // leaves, spines, servers
  for (size_t h = 0; h < g.hosts.size(); ++h) {
    const size_t first_of_server = h - h % 4;
    EXPECT_EQ(unit[g.hosts[h]], unit[g.hosts[first_of_server]]) << "endpoint " << h;
  }
}

TEST(Partitioner, EveryPartitionGetsAShareOfThePortsAndNoServerIsSplit) {
  const TopologyGraph g = graph("{type: fat-tree, k: 8}");
  for (size_t parts : {2u, 3u, 5u, 8u}) {
    const Partitioning p = partition_fabric(g, parts, wire::Fabric::kRoceV2);
    std::vector<int64_t> load(parts, 0);
    for (const TopoLink& l : g.links) {
      ++load[p.node_part[l.a]];
      ++load[p.node_part[l.b]];
    }
    const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
    EXPECT_GT(*lo, 0) << parts << " partitions";
    // 1,024 link ends in all; a unit holds at most 8 (a switch), so shares differ by little more than one unit.
    EXPECT_LE(*hi - *lo, 2 * 8 + 1024 / static_cast<int64_t>(parts) / 4) << parts << " partitions";
  }
  const TopologyGraph rail = graph(kRail);
  const Partitioning p = partition_fabric(rail, 4, wire::Fabric::kRoceV2);
  for (size_t h = 0; h < rail.hosts.size(); ++h) {
    EXPECT_EQ(p.node_part[rail.hosts[h]], p.node_part[rail.hosts[h - h % 4]]) << "endpoint " << h;
  }
}

TEST(Partitioner, OnARailFabricEachShareOfTheLeavesGetsAShareOfTheServers) {
  // Every server reaches every rail's leaf: the servers (whose GPUs and NICs do much of a collective's work) must
  // not all go with the first leaf.
  const TopologyGraph rail = graph(kRail);
  const Partitioning p = partition_fabric(rail, 2, wire::Fabric::kRoceV2);
  std::vector<int> servers(2, 0);
  for (size_t h = 0; h < rail.hosts.size(); h += 4) {
    ++servers[p.node_part[rail.hosts[h]]];
  }
  EXPECT_EQ(servers[0], 2);
  EXPECT_EQ(servers[1], 2);
}

TEST(Partitioner, AsManyPartitionsAsUnitsGivesEachUnitItsOwn) {
  const TopologyGraph g = graph(kRail);
  const Partitioning p = partition_fabric(g, 10, wire::Fabric::kRoceV2);
  const std::vector<uint32_t> unit = units_of(g);
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    pairs.insert({unit[i], p.node_part[i]});
  }
  std::set<uint32_t> parts;
  for (const auto& [u, part] : pairs) {
    parts.insert(part);
  }
  EXPECT_EQ(pairs.size(), 10u);
  EXPECT_EQ(parts.size(), 10u);
}

}  // namespace rocesim
