// The example scenarios run (at a small size), and the plot script turns results into pictures.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

int sh(const std::string& cmd) {
  const int st = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::filesystem::path tmp(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("rocesim_ex_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  return d;
}

TEST(Examples, EveryScenarioFileRunsAtASmallSize) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ROCESIM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") {
      continue;
    }
    const auto out = tmp(e.path().stem().string());
    EXPECT_EQ(sh(std::string(ROCESIM_BINARY) + " run " + e.path().string() + " --set stop=200us -q -o " + out.string()),
              0)
        << e.path();
    EXPECT_TRUE(std::filesystem::exists(out / "summary.json")) << e.path();
    EXPECT_TRUE(std::filesystem::exists(out / "fct_buckets.csv")) << e.path();
    std::filesystem::remove_all(out);
    ++n;
  }
  EXPECT_GE(n, 5);
}

TEST(Examples, PerftestScenarioWritesPerftestsTables) {
  const auto out = tmp("perftest");
  ASSERT_EQ(
      sh(std::string(ROCESIM_BINARY) + " run " + ROCESIM_SOURCE_DIR + "/scenarios/perftest.yaml -q -o " + out.string()),
      0);
  std::ifstream in(out / "perftest.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("t_typical[usec]"), std::string::npos);
  // 2-byte ib_write_lat on that scenario: 636.32 ns (docs/model.md, "NIC latency").
  EXPECT_NE(ss.str().find("\n 2       1000          0.64 "), std::string::npos) << ss.str();
  EXPECT_TRUE(std::filesystem::exists(out / "perftest.csv"));
  std::filesystem::remove_all(out);
}

TEST(Examples, PlotScriptWritesThePictures) {
  // One scenario with DCQCN and with HPCC, two ports and two flows sampled: every picture has data to show.
  const auto dcqcn = tmp("plot_dcqcn");
  const auto hpcc = tmp("plot_hpcc");
  const auto plots = tmp("plot_pngs");
  const std::string run = std::string(ROCESIM_BINARY) + " run " + ROCESIM_SOURCE_DIR +
                          "/scenarios/hadoop-incast.yaml --set stop=300us"
                          " --set 'output.timeseries.ports=leaf0:0, leaf0:16'"
                          " --set 'output.timeseries.flows=[0,1]' -q ";
  ASSERT_EQ(sh(run + "-o " + dcqcn.string()), 0);
  ASSERT_EQ(sh(run + "--set nic.cc=hpcc -o " + hpcc.string()), 0);
  const std::string plot = std::string("/usr/bin/python3 ") + ROCESIM_SOURCE_DIR + "/tools/plot.py";
  ASSERT_EQ(sh(plot + " " + dcqcn.string() + " " + hpcc.string() + " -o " + plots.string()), 0)
      << "tools/plot.py failed (python3-matplotlib comes with scripts/install-deps)";
  for (const char* png :
       {"fct_slowdown_by_size.png", "fct_cdf.png", "queue_depth.png", "throughput.png", "pause_state.png"}) {
    EXPECT_TRUE(std::filesystem::exists(plots / png)) << png;
    if (std::filesystem::exists(plots / png)) {
      EXPECT_GT(std::filesystem::file_size(plots / png), 1000u) << png;
    }
    EXPECT_EQ(sh(plot + " --help | grep -qF " + png), 0) << "--help does not list " << png;
  }
  EXPECT_FALSE(std::filesystem::exists(dcqcn / "plots"));  // -o chose the folder instead
  EXPECT_EQ(sh(plot + " --help"), 0);
  // A folder that is no result folder: status 2, and the message names it.
  const std::string scenarios = std::string(ROCESIM_SOURCE_DIR) + "/scenarios";
  EXPECT_EQ(sh(plot + " " + scenarios), 2);
  EXPECT_EQ(sh(plot + " " + scenarios + " 2>&1 | grep -qF '" + scenarios + ": no summary.json'"), 0);
  EXPECT_EQ(sh(plot + " /nonexistent"), 2);
  EXPECT_EQ(sh(plot), 2);  // no folder: a usage error
  std::filesystem::remove_all(dcqcn);
  std::filesystem::remove_all(hpcc);
  std::filesystem::remove_all(plots);
}

}  // namespace
