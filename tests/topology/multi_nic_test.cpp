// Servers with several NICs: how leaf-spine, fat-tree and topology files wire them, how outputs name them, and
// perftest's choice of NIC.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"

namespace rocesim {

TEST(Topology, ServersWithSeveralNicsOnRails) {
  // 2 leaves as one rail group, 2 NICs per server, 4 servers: NIC k of every server is on leaf k.
  auto s = test::make_sim(
      "topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 4, nics_per_host: 2, rail: true}\n");
  Network& net = s->net();
  ASSERT_EQ(net.num_hosts(), 8u);  // endpoints: server-major, NIC-minor
  EXPECT_EQ(net.nic(0).name(), "host0.nic0");
  EXPECT_EQ(net.nic(3).name(), "host1.nic1");
  EXPECT_EQ(net.attachment(0).first->name(), "leaf0");
  EXPECT_EQ(net.attachment(1).first->name(), "leaf1");
  EXPECT_EQ(net.attachment(2).first->name(), "leaf0");
  EXPECT_EQ(net.path(0, 2).size(), 2u);  // same rail: NIC, leaf, NIC
  EXPECT_EQ(net.path(0, 3).size(), 4u);  // across rails: through a spine
  // Without rail, both NICs of a server share its leaf.
  auto t =
      test::make_sim("topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2, nics_per_host: 2}\n");
  EXPECT_EQ(t->net().num_hosts(), 8u);
  EXPECT_EQ(t->net().attachment(1).first->name(), "leaf0");
  EXPECT_EQ(t->net().attachment(4).first->name(), "leaf1");
  EXPECT_THROW(test::make_sim("topology: {type: leaf-spine, leaves: 3, nics_per_host: 2, rail: true}\n"), InputError);
}

TEST(Topology, FileHostsMayHaveSeveralNics) {
  const std::string dir = "/tmp/rocesim_topo_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/t.txt") << "host a nics=2\nhost b\nswitch s0\nswitch s1\n"
                                   "link a.nic0 s0 100Gbps 1us\nlink a.nic1 s1 100Gbps 1us\nlink b s0 100Gbps 1us\n"
                                   "link s0 s1 400Gbps 1us\n";
  const Scenario sc = parse_scenario("topology: {type: file, path: t.txt}\n", "t.yaml", dir, {});
  ASSERT_EQ(sc.graph.hosts.size(), 3u);
  EXPECT_EQ(sc.graph.nodes[sc.graph.hosts[1]].name, "a.nic1");
  std::ofstream(dir + "/bad.txt") << "host a nics=0\n";
  EXPECT_THROW(parse_scenario("topology: {type: file, path: bad.txt}\n", "t.yaml", dir, {}), InputError);
  std::filesystem::remove_all(dir);
}

TEST(Topology, FatTreeServersShareAnEdgeOrSpreadOverRails) {
  // k = 4: 16 NIC ports, 2 per edge switch. Two NICs per server: 8 servers.
  auto s = test::make_sim("topology: {type: fat-tree, k: 4, nics_per_host: 2}\n");
  Network& net = s->net();
  ASSERT_EQ(net.num_hosts(), 16u);
  ASSERT_EQ(net.num_servers(), 8u);
  EXPECT_EQ(net.nic(3).name(), "host1.nic1");
  EXPECT_EQ(net.server(1).name(), "host1");
  EXPECT_EQ(net.attachment(2).first->name(), "edge0_1");  // server 1's NICs share edge0_1
  EXPECT_EQ(net.attachment(3).first->name(), "edge0_1");
  // Rail: edge switches in groups of 2; NIC k of the group's 2 servers on its k-th edge switch.
  auto r = test::make_sim("topology: {type: fat-tree, k: 4, nics_per_host: 2, rail: true}\n");
  EXPECT_EQ(r->net().attachment(0).first->name(), "edge0_0");  // server 0, NIC 0
  EXPECT_EQ(r->net().attachment(1).first->name(), "edge0_1");  // server 0, NIC 1
  EXPECT_EQ(r->net().attachment(2).first->name(), "edge0_0");  // server 1, NIC 0
  EXPECT_EQ(r->net().attachment(4).first->name(), "edge1_0");  // server 2, NIC 0: the next pod's group
  EXPECT_EQ(r->net().path(0, 2).size(), 2u);                   // same rail, same edge: NIC, edge, NIC
  // An edge switch's 2 host ports cannot hold whole 4-NIC servers.
  try {
    test::make_sim("topology: {type: fat-tree, k: 4, nics_per_host: 4}\n");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "topology.nics_per_host");
  }
}

TEST(Topology, FileHostWithSeveralNicsIsOneServer) {
  const std::string dir = "/tmp/rocesim_topo_srv_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/t.txt") << "host a nics=2\nhost b\nswitch s0\nswitch s1\n"
                                   "link a.nic0 s0 100Gbps 1us\nlink a.nic1 s1 100Gbps 1us\nlink b s0 100Gbps 1us\n"
                                   "link s0 s1 400Gbps 1us\n";
  Simulation sim(parse_scenario("topology: {type: file, path: t.txt}\n", "t.yaml", dir, {}));
  ASSERT_EQ(sim.net().num_servers(), 2u);
  EXPECT_EQ(sim.net().server(0).name(), "a");
  EXPECT_EQ(sim.net().server(0).num_nics(), 2u);
  EXPECT_EQ(sim.net().server(1).name(), "b");
  std::filesystem::remove_all(dir);
}

TEST(Topology, NicsCsvNamesEachNicsServerAndIndex) {
  auto s = test::run_sim("stop: 1us\ntopology: {type: leaf-spine, leaves: 2, servers_per_leaf: 1, nics_per_host: 2}\n");
  const auto rows = test::csv_rows(nics_csv(s->net(), s->sim().now()));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[3].at("host"), "3");  // NIC endpoint 3: server host1, mlx5_1
  EXPECT_EQ(rows[3].at("server"), "host1");
  EXPECT_EQ(rows[3].at("nic"), "1");
  EXPECT_EQ(rows[3].at("name"), "host1.nic1");
}

TEST(Topology, OutputsNameAnEndpointTheSameWayEverywhere) {
  // Rail-optimised: host0.nic1 (endpoint 1) writes to host1.nic1 (endpoint 3), both on leaf1.
  auto s = test::make_sim(
      "stop: 1ms\ntopology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2, nics_per_host: 2, "
      "rail: true}\n");
  s->net().add_flow(test::write_flow(1, 3, Bytes(10'000)));
  s->run();
  const auto flows = test::csv_rows(flows_csv(s->net()));
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].at("src"), "1");
  EXPECT_EQ(flows[0].at("src_name"), "host0.nic1");
  EXPECT_EQ(flows[0].at("dst_name"), "host1.nic1");
  std::map<std::string, std::string> name_of;  // nics.csv: endpoint -> name
  for (const auto& r : test::csv_rows(nics_csv(s->net(), s->sim().now()))) {
    name_of[r.at("host")] = r.at("name");
  }
  EXPECT_EQ(name_of.at(flows[0].at("src")), flows[0].at("src_name"));
  EXPECT_EQ(name_of.at(flows[0].at("dst")), flows[0].at("dst_name"));
  // ports.csv: the port toward the receiver names it and its endpoint; a spine link names no endpoint.
  int64_t toward_receiver = 0;
  for (const auto& r : test::csv_rows(ports_csv(s->net(), s->sim().now()))) {
    if (r.at("peer").rfind("spine", 0) == 0) {
      EXPECT_EQ(r.at("peer_endpoint"), "");
    } else {
      EXPECT_EQ(name_of.at(r.at("peer_endpoint")), r.at("peer"));
      if (r.at("peer") == "host1.nic1" && r.at("switch") == "leaf1" && r.at("priority") == "3") {
        toward_receiver += std::stoll(r.at("tx_bytes"));
      }
    }
  }
  EXPECT_GT(toward_receiver, 10'000);  // the message and its headers
}

TEST(Topology, HostsPerLeafIsRenamedWithAHint) {
  try {
    test::make_sim("topology: {type: leaf-spine, hosts_per_leaf: 4}\n");
    FAIL() << "hosts_per_leaf was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "topology.hosts_per_leaf");
    EXPECT_NE(std::string(e.what()).find("renamed to servers_per_leaf"), std::string::npos) << e.what();
  }
}

TEST(Perftest, DeviceChoosesTheNicOnBothServers) {
  const std::string yaml = R"(stop: 1s
topology: {type: leaf-spine, leaves: 2, servers_per_leaf: 2, nics_per_host: 2, rail: true}
workload:
  - {type: perftest, test: write_lat, sizes: [2B], iterations: 10, client: 0, server: 1, device: 1}
)";
  auto s = test::run_sim(yaml);
  // Server 0's mlx5_1 (endpoint 1) talked to server 1's mlx5_1 (endpoint 3): both on leaf1, the second rail.
  ASSERT_FALSE(s->net().flows().empty());
  for (const auto& f : s->net().flows()) {
    EXPECT_TRUE((f.spec.src == 1 && f.spec.dst == 3) || (f.spec.src == 3 && f.spec.dst == 1));
  }
  try {
    std::string two = yaml;
    two.replace(two.find("device: 1"), 9, "device: 2");
    test::make_sim(two);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "workload.0.device");
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.problem().find("no mlx5_2"), std::string::npos);
  }
  EXPECT_THROW(test::make_sim(yaml, {"workload.0.server=5"}), InputError);  // no server 5
}

}  // namespace rocesim
