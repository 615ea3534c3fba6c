// The benchmark guard: the FCT percentiles of the guarded benchmark scenarios stay what bench/golden.json
// recorded. A speed change must not change results; a model change that does updates the file on purpose
// (bench/update-golden).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

TEST(BenchGuard, FctPercentilesMatchTheRecordedOnes) {
  std::ifstream g(std::string(ROCESIM_SOURCE_DIR) + "/bench/golden.json");
  ASSERT_TRUE(g) << "bench/golden.json is missing";
  const auto golden = nlohmann::json::parse(g);
  ASSERT_GE(golden.size(), 2u);
  for (const auto& [name, want] : golden.items()) {
    const auto out = std::filesystem::temp_directory_path() / ("rocesim_guard_" + name + std::to_string(getpid()));
    const std::string cmd = std::string(ROCESIM_BINARY) + " run " + ROCESIM_SOURCE_DIR + "/bench/scenarios/" + name +
                            ".yaml -q -o " + out.string() + " >/dev/null 2>&1";
    const int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << cmd;
    std::ifstream in(out / "summary.json");
    const auto s = nlohmann::json::parse(in);
    char got[64];
    std::snprintf(got, sizeof got, "%.3f %.3f", s["fct_ns"]["p50"].get<double>(), s["fct_ns"]["p99"].get<double>());
    char exp[64];
    std::snprintf(exp, sizeof exp, "%.3f %.3f", want["p50"].get<double>(), want["p99"].get<double>());
    EXPECT_EQ(std::string(got), std::string(exp)) << name << ": FCT p50/p99 (ns) changed";
    EXPECT_EQ(s["flows"]["completed"], want["flows"]) << name;
    std::filesystem::remove_all(out);
  }
}

}  // namespace
