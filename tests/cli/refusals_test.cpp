// `rocesim check` and `rocesim topology` refuse what `rocesim validate` (and run) refuse, with the same message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../test_util.hpp"

namespace {

using rocesim::test::ShellResult;

ShellResult sh(const std::string& args) { return rocesim::test::shell(std::string(ROCESIM_BINARY) + " " + args); }

TEST(CliRefusals, CheckTopologyAndValidateRefuseTheSameFabricsAndEventsWithOneMessage) {
  const auto dir = std::filesystem::temp_directory_path() / ("rocesim_refusals_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // s0 and s1 are not linked: a cannot reach b.
  std::ofstream(dir / "split.txt") << "host a\nhost b\nswitch s0\nswitch s1\nlink a s0 100Gbps 1us\n"
                                      "link b s1 100Gbps 1us\n";
  const std::string leaf_spine =
      "topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2}\nswitch: {pfc: {priorities: [3]}}\n";
  struct Case {
    std::string name, yaml, message;  // what follows "rocesim: error: FILE:"
  };
  const std::vector<Case> cases{
      {"no_such_host", leaf_spine + "events:\n  - {at: 1us, type: link_down, link: host99}\n",
       "4: events.0.link: 'host99' is not a link"},
      {"down_twice",
       leaf_spine +
           "events:\n  - {at: 1us, type: link_down, link: host1}\n  - {at: 2us, type: link_down, link: host1}\n",
       "5: events.1.link: link_down at 2us: the link on 'host1' is down already"},
      {"fast_slow_receiver", leaf_spine + "events:\n  - {at: 1us, type: slow_receiver, nic: host1, rate: 200Gbps}\n",
       "4: events.0.rate: 200Gbps is not below host1's link rate (100Gbps)"},
      {"storm_on_switch", leaf_spine + "events:\n  - {at: 1us, type: pause_storm, nic: leaf0}\n",
       "4: events.0.nic: 'leaf0' is not a NIC"},
      {"unreachable", "topology: {type: file, path: split.txt}\n", " topology: host 'b' cannot reach host 'a'"},
  };
  for (const Case& c : cases) {
    const std::string file = (dir / (c.name + ".yaml")).string();
    std::ofstream(file) << c.yaml;
    std::string first;
    for (const std::string cmd : {"validate", "check", "topology"}) {
      const ShellResult r = sh(cmd + " " + file);
      EXPECT_EQ(r.status, 2) << cmd << " " << c.name << ":\n" << r.out;
      const std::string want = "rocesim: error: " + file + ":" + c.message;
      EXPECT_EQ(r.out.rfind(want, 0), 0u) << cmd << " " << c.name << ":\n" << r.out;
      if (first.empty()) {
        first = r.out;
      }
      EXPECT_EQ(r.out, first) << cmd << " " << c.name;  // the same one message from each
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

TEST(CliRefusals, ThreadsOutsideOneTo1024AreRefusedOnRunSweepAndNcclTestsWithStatusTwo) {
  for (const std::string cmd : {"run", "sweep", "nccl-tests"}) {
    for (const char* bad : {"0", "-3", "1025", "many"}) {
      const ShellResult r = sh(cmd + " scenarios/incast.yaml --threads " + bad);
      EXPECT_EQ(r.status, 2) << cmd << " --threads " << bad << ": " << r.out;
      EXPECT_NE(r.out.find("--threads"), std::string::npos) << cmd << " --threads " << bad << ": " << r.out;
    }
  }
}

}  // namespace
