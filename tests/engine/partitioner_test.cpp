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

TEST(Partitioner, NodesJoinedByALinkWithoutDelayAreOneUnitAndTheLookaheadSkipsThatLink) {
  // Fabric links without delay: the 4 leaves and 2 spines become one unit; the 4 servers stay their own.
  const TopologyGraph g = graph(
      "{type: leaf-spine, rail: true, nics_per_host: 4, leaves: 4, servers_per_leaf: 4, spines: 2, "
      "host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 0ns}}");
  const std::vector<uint32_t> unit = units_of(g);
  EXPECT_EQ(std::set<uint32_t>(unit.begin(), unit.end()).size(), 1u + 4u);
  EXPECT_EQ(zero_delay_joins(g), 4u * 2u);  // every leaf-spine link
  EXPECT_EQ(zero_delay_joins(graph(kRail)), 0u);
  // What is left to cut: the host links, 1 us + 84 B at 100 Gb/s.
  EXPECT_EQ(fabric_lookahead(g, wire::Fabric::kRoceV2), Time::ps(1'006'720));
  const Partitioning p = partition_fabric(g, 3, wire::Fabric::kRoceV2);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!g.nodes[i].is_nic()) {
      EXPECT_EQ(p.node_part[i], p.node_part[0 + g.hosts.size()]) << g.nodes[i].name;
    }
  }
}

TEST(Partitioner, AnAssignmentByNamePutsEachSwitchServerAndPrefixWhereItSays) {
  const TopologyGraph g = graph(kRail);
  const Partitioning p = partition_named(g, {"leaf0 leaf1 spine0 host0 host1", "leaf2 leaf3 spine1 host2 host3.nic*"},
                                         wire::Fabric::kRoceV2);
  ASSERT_EQ(p.parts, 2u);
  EXPECT_EQ(p.lookahead, fabric_lookahead(g, wire::Fabric::kRoceV2));
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const std::string& n = g.nodes[i].name;
    const bool first =
        n == "leaf0" || n == "leaf1" || n == "spine0" || n.starts_with("host0.") || n.starts_with("host1.");
    EXPECT_EQ(p.node_part[i], first ? 0u : 1u) << n;
  }
}

TEST(Partitioner, AnAssignmentThatMissesSplitsRepeatsOrNamesNothingIsRefusedSayingWhich) {
  const TopologyGraph g = graph(kRail);
  auto refusal = [&](const std::vector<std::string>& parts) -> AssignmentError {
    try {
      partition_named(g, parts, wire::Fabric::kRoceV2);
    } catch (const AssignmentError& e) {
      return e;
    }
    return {0, "accepted"};
  };
  const std::string rest = " leaf2 leaf3 spine1 host2 host3";
  AssignmentError e = refusal({"leaf0 leaf1 spine0 host0 host1", "lief2" + rest});
  EXPECT_EQ(e.partition, 1u);
  EXPECT_NE(e.message.find("'lief2' names no switch"), std::string::npos) << e.message;
  e = refusal({"leaf0 leaf1 spine0 host0 host1", "leaf0" + rest});
  EXPECT_EQ(e.partition, 1u);
  EXPECT_NE(e.message.find("leaf0 is already in partition 0"), std::string::npos) << e.message;
  e = refusal({"leaf0 leaf1 host0 host1", rest});
  EXPECT_EQ(e.partition, SIZE_MAX);
  EXPECT_NE(e.message.find("spine0 is in no partition"), std::string::npos) << e.message;
  e = refusal(
      {"leaf0 leaf1 spine0 host0 host1 host2.nic0", "leaf2 leaf3 spine1 host2.nic1 host2.nic2 host2.nic3 host3"});
  EXPECT_EQ(e.partition, SIZE_MAX);
  EXPECT_NE(e.message.find("host2.nic0 (partition 0) and host2.nic1 (partition 1) must stay together"),
            std::string::npos)
      << e.message;
  e = refusal({"leaf* spine* host*", " "});
  EXPECT_EQ(e.partition, 1u);
  EXPECT_NE(e.message.find("no nodes"), std::string::npos) << e.message;
}

}  // namespace rocesim
