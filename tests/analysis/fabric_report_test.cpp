#include "rocesim/analysis/fabric_report.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {

nlohmann::json report(const std::string& topology, const std::string& extra = "") {
  auto s = test::make_sim("topology: " + topology + "\n" + extra);
  return fabric_json(s->net(), s->scenario().sw);
}

TEST(FabricReport, RailLeafSpineHasOneRailPerNicIndexAndItsOversubscription) {
  // 4 leaves in 2 rail groups, 2 NICs per server, 4 servers per group: 8 servers, 16 NICs, 4 per leaf.
  const auto j = report(
      "{type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 4, nics_per_host: 2, rail: true, "
      "host_link: {rate: 100Gbps}, fabric_link: {rate: 400Gbps}}");
  EXPECT_EQ(j["servers"]["count"], 8);
  EXPECT_EQ(j["endpoints"], 16);
  ASSERT_EQ(j["tiers"].size(), 2u);
  const auto& leaf = j["tiers"][0];
  EXPECT_EQ(leaf["tier"], "leaf");
  EXPECT_EQ(leaf["switches"], 4);
  EXPECT_EQ(leaf["down_ports"]["max"], 4);
  EXPECT_EQ(leaf["up_ports"]["max"], 2);
  // 4 x 100 Gb/s down against 2 x 400 Gb/s up.
  EXPECT_DOUBLE_EQ(leaf["oversubscription"]["max"].get<double>(), 0.5);
  EXPECT_EQ(j["tiers"][1]["tier"], "spine");
  EXPECT_TRUE(j["tiers"][1]["oversubscription"].is_null());  // nothing above the spines
  ASSERT_EQ(j["rails"].size(), 2u);
  EXPECT_EQ(j["rails"][0]["switches"], (std::vector<std::string>{"leaf0", "leaf2"}));
  EXPECT_EQ(j["rails"][1]["switches"], (std::vector<std::string>{"leaf1", "leaf3"}));
  EXPECT_TRUE(j["rail_optimised"]);
  const std::string t = fabric_table(j);
  EXPECT_NE(t.find("8 servers, 16 NICs (2 per server)"), std::string::npos) << t;
  EXPECT_NE(t.find("rail-optimised"), std::string::npos) << t;
}

TEST(FabricReport, WithoutRailEveryNicOfAServerSharesItsLeaf) {
  const auto j = report(
      "{type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 4, nics_per_host: 2, "
      "host_link: {rate: 100Gbps}, fabric_link: {rate: 400Gbps}}");
  EXPECT_EQ(j["servers"]["count"], 16);
  EXPECT_EQ(j["tiers"][0]["down_ports"]["max"], 8);  // servers_per_leaf x nics_per_host
  EXPECT_DOUBLE_EQ(j["tiers"][0]["oversubscription"]["max"].get<double>(), 1.0);
  ASSERT_EQ(j["rails"].size(), 2u);
  EXPECT_EQ(j["rails"][0]["switches"].size(), 4u);  // NIC 0 of some server on every leaf
  EXPECT_FALSE(j["rail_optimised"]);
}

TEST(FabricReport, FatTreeHasThreeNamedTiersAndNoRails) {
  const auto j = report("{type: fat-tree, k: 4}");
  ASSERT_EQ(j["tiers"].size(), 3u);
  const std::vector<std::pair<std::string, int>> want{{"edge", 8}, {"agg", 8}, {"core", 4}};
  for (size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(j["tiers"][t]["tier"], want[t].first);
    EXPECT_EQ(j["tiers"][t]["switches"], want[t].second);
    EXPECT_EQ(j["tiers"][t]["ports"]["max"], 4);
  }
  EXPECT_DOUBLE_EQ(j["tiers"][0]["oversubscription"]["min"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["tiers"][1]["oversubscription"]["max"].get<double>(), 1.0);
  EXPECT_EQ(j["tiers"][2]["down_ports"]["max"], 4);
  EXPECT_TRUE(j["rails"].empty());
}

TEST(FabricReport, HeadroomAndSharedPoolAreWhatTheSwitchesSetAside) {
  auto s = test::make_sim(
      "topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2}\n"
      "switch: {buffer: 4MB, pfc: {priorities: [3, 4]}}\n");
  const auto j = fabric_json(s->net(), s->scenario().sw);
  EXPECT_EQ(j["lossless_priorities"], (std::vector<int>{3, 4}));
  const Switch& leaf = *s->net().switches()[0];
  // The leaf's ports: 2 hosts (100 Gb/s default) and its spine link (400 Gb/s): headroom grows with the rate.
  EXPECT_DOUBLE_EQ(j["tiers"][0]["headroom_bytes"]["min"].get<double>(), leaf.headroom(0).count());
  EXPECT_DOUBLE_EQ(j["tiers"][0]["headroom_bytes"]["max"].get<double>(), leaf.headroom(2).count());
  EXPECT_LT(leaf.headroom(0), leaf.headroom(2));
  // What is left of 4 MB after each port's reserves and two priorities' headroom.
  const int64_t pool = j["tiers"][0]["shared_pool_bytes"]["max"];
  EXPECT_EQ(pool, leaf.shared_pool().count());
  int64_t set_aside = 0;
  for (uint16_t p = 0; p < leaf.num_ports(); ++p) {
    set_aside += port_set_aside(s->scenario().sw, leaf.headroom(p)).count();
  }
  EXPECT_EQ(pool, 4'000'000 - set_aside);
}

TEST(FabricReport, PortMapListsEverySwitchPortWithItsPeerAndDirection) {
  auto s = test::make_sim(
      "topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2, host_link: {rate: 100Gbps, delay: "
      "1us}, fabric_link: {rate: 400Gbps, delay: 500ns}}\n");
  const auto rows = test::csv_rows(port_map_csv(s->net()));
  ASSERT_EQ(rows.size(), 2u * 4 + 2u * 2);  // leaves: 2 hosts + 2 spines; spines: 2 leaves
  // leaf0's first host port, leaf0's first uplink, spine0's first port.
  const std::vector<std::tuple<size_t, std::string, std::string>> want{
      {0, "switch", "leaf0"},   {0, "tier", "leaf"},     {0, "peer", "host0"},        {0, "peer_endpoint", "0"},
      {0, "direction", "down"}, {0, "rate_gbps", "100"}, {0, "delay_ns", "1000.000"}, {2, "peer", "spine0"},
      {2, "peer_endpoint", ""}, {2, "direction", "up"},  {2, "rate_gbps", "400"},     {8, "switch", "spine0"},
      {8, "direction", "down"}, {8, "tier", "spine"},    {8, "delay_ns", "500.000"}};
  for (const auto& [row, key, value] : want) {
    EXPECT_EQ(rows[row].at(key), value) << "row " << row << " " << key;
  }
}

TEST(FabricReport, ARingIsOneTierOfSwitchesPortsAcross) {
  const auto j = report("{type: file, path: " ROCESIM_SOURCE_DIR "/scenarios/data/ring5.topo}");
  ASSERT_EQ(j["tiers"].size(), 1u);
  EXPECT_EQ(j["tiers"][0]["across_ports"]["max"], 2);
  EXPECT_TRUE(j["tiers"][0]["oversubscription"].is_null());
}

}  // namespace
}  // namespace rocesim
