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
  const auto out = tmp("plot");
  ASSERT_EQ(sh(std::string(ROCESIM_BINARY) + " run " + ROCESIM_SOURCE_DIR +
               "/scenarios/hadoop-incast.yaml --set stop=300us -q -o " + out.string()),
            0);
  ASSERT_EQ(sh(std::string("/usr/bin/python3 ") + ROCESIM_SOURCE_DIR + "/tools/plot.py " + out.string()), 0)
      << "tools/plot.py failed (python3-matplotlib comes with scripts/install-deps)";
  for (const char* png : {"fct_slowdown_by_size.png", "fct_cdf.png", "queue_depth.png", "throughput.png"}) {
    EXPECT_GT(std::filesystem::file_size(out / "plots" / png), 1000u) << png;
  }
  EXPECT_EQ(sh(std::string("/usr/bin/python3 ") + ROCESIM_SOURCE_DIR + "/tools/plot.py /nonexistent"), 2);
  std::filesystem::remove_all(out);
}

}  // namespace
