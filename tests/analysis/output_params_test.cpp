// The analysis outputs' parameters: windows that cannot hold anything are bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../test_util.hpp"

namespace rocesim {
namespace {

// `rocesim validate` of a small star with `sets`: its exit status and what it printed.
test::ShellResult validate(const std::string& sets) {
  const auto file = std::filesystem::temp_directory_path() / ("rocesim_windows_" + std::to_string(getpid()) + ".yaml");
  std::ofstream(file) << "topology: {type: star, hosts: 2}\nworkload: [{type: incast, receiver: 0, senders: 1, "
                         "size: 1KB}]\n";
  const auto r = test::shell(std::string(ROCESIM_BINARY) + " validate " + file.string() + " " + sets);
  std::filesystem::remove(file);
  return r;
}

TEST(OutputParams, AWindowThatStopsBeforeItStartsExitsTwoNamingItsKey) {
  for (const auto& [sets, key] : {
           std::pair{"--set 'output.trace={nodes: all, start: 20us, stop: 10us}'", "output.trace.stop"},
           std::pair{"--set output.trace.start=10us --set output.trace.stop=10us", "output.trace.stop"},
           std::pair{"--set 'output.timeseries={ports: \"switch0:0\", start: 20us, stop: 10us}'",
                     "output.timeseries.stop"},
           std::pair{"--set output.timeseries.start=-5us", "output.timeseries.start"},
           std::pair{"--set output.hpcc.qlen=q.txt --set output.hpcc.qlen_start=2ms --set output.hpcc.qlen_end=1ms",
                     "output.hpcc.qlen_end"},
           std::pair{"--set output.hpcc.qlen_start=-1us", "output.hpcc.qlen_start"},
       }) {
    const auto r = validate(sets);
    EXPECT_EQ(r.status, 2) << sets << "\n" << r.out;
    EXPECT_NE(r.out.find(std::string(": ") + key + ": "), std::string::npos) << sets << "\n" << r.out;
  }
  // Windows in order load; the HPCC simulator's configs give the queue monitor equal start and end.
  for (const char* sets :
       {"--set 'output.trace={nodes: all, start: 10us, stop: 20us}'",
        "--set 'output.timeseries={ports: \"switch0:0\", start: 10us, stop: 20us}'",
        "--set output.hpcc.qlen=q.txt --set output.hpcc.qlen_start=3s --set output.hpcc.qlen_end=3s"}) {
    const auto r = validate(sets);
    EXPECT_EQ(r.status, 0) << sets << "\n" << r.out;
  }
}

}  // namespace
}  // namespace rocesim
