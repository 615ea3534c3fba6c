// A flow alone on an idle path must run at line rate whatever its congestion control: its FCT is the ideal FCT
// (Network::ideal_fct). Window-based control (HPCC, DCTCP) needs a window of line rate x the round trip its ACKs
// take, and with coalesced ACKs (nic.ack_interval) that round trip includes the packets the receiver waits for
// (Network::ack_clocked_rtt). HPCC may settle at its target utilisation eta, so its slowdown lies in [1, 1/eta].
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.hpp"

namespace rocesim {
namespace {

struct Builder {
  const char* name;
  std::string topology;  // the scenario's topology section
  uint32_t src, dst;     // far apart: across the spine or the core
};

std::vector<Builder> builders(const std::string& dir) {
  std::ofstream(dir + "/t.txt") << "host a\nhost b\nswitch s0\nswitch s1\nswitch s2\n"
                                   "link a s0 100Gbps 1us\nlink s0 s1 100Gbps 1us\nlink s1 s2 100Gbps 1us\n"
                                   "link b s2 100Gbps 1us\n";
  std::ofstream(dir + "/hpcc.txt") << "4 2 3\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"
                                      "2 3 100Gbps 1000ns 0\n";
  return {{"star", "{type: star, hosts: 2}", 0, 1},
          {"leaf-spine", "{type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2}", 0, 3},
          {"fat-tree", "{type: fat-tree, k: 4}", 0, 15},
          {"file", "{type: file, path: t.txt}", 0, 1},
          {"hpcc", "{type: hpcc, path: hpcc.txt}", 0, 1}};
}

TEST(LoneFlow, RunsAtLineRateForEveryCcMtuAndTopologyBuilder) {
  const std::string dir = "/tmp/rocesim_lone_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  for (const Builder& b : builders(dir)) {
    for (const char* cc : {"none", "dcqcn", "dcqcn-paper", "dctcp", "hpcc", "timely"}) {
      for (int mtu : {1024, 4096}) {
        const std::string yaml =
            "topology: " + b.topology + "\nnic: {cc: " + cc + ", mtu: " + std::to_string(mtu) + "}\n";
        Simulation s(parse_scenario(yaml, "t.yaml", dir, {}));
        s.net().add_flow(test::write_flow(b.src, b.dst, Bytes(4'000'000)));
        s.run();
        const FlowRecord& f = s.net().flows()[0];
        ASSERT_TRUE(f.done) << b.name << " " << cc << " " << mtu;
        const double slowdown = (f.end - f.posted).sec_f() / f.ideal_fct.sec_f();
        const double upper = std::string(cc) == "hpcc" ? 1 / 0.95 * 1.01 : 1.01;
        EXPECT_GE(slowdown, 1.0) << b.name << " " << cc << " mtu " << mtu;
        EXPECT_LE(slowdown, upper) << b.name << " " << cc << " mtu " << mtu;
      }
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rocesim
