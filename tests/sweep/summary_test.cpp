// `rocesim compare`'s table (sweep/summary.hpp) on hand-written summaries: collective operations get their bus
// bandwidth and time per call beside the fixed columns.
#include "rocesim/sweep/summary.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace rocesim {
namespace {

nlohmann::json summary(double busbw, double time_us) {
  return nlohmann::json::parse(R"({"wall_time_s": 1.5, "collectives_by_op": [
      {"workload": "workload.0", "op": "all_reduce", "busbw_GBps": )" +
                               std::to_string(busbw) + R"(, "time_us": )" + std::to_string(time_us) + "}]}");
}

// The cells of the row named `name` (after the name), or nothing.
std::vector<std::string> row(const std::string& table, const std::string& name) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + " ", 0) == 0) {
      std::istringstream cols(line.substr(name.size()));
      std::vector<std::string> cells;
      for (std::string c; cols >> c;) {
        cells.push_back(c);
      }
      return cells;
    }
  }
  return {};
}

}  // namespace

TEST(Compare, CollectiveOperationsGetTheirBusBandwidthAndTimeWithTheRatioToTheFirstRun) {
  const std::string t = compare_table({{"ecmp", summary(89.0, 6008.0)}, {"adaptive", summary(240.0, 2232.0)}});
  const auto busbw = row(t, "all_reduce busbw_GBps");
  ASSERT_EQ(busbw.size(), 3u) << t;
  EXPECT_EQ(std::stod(busbw[0]), 89.0);
  EXPECT_EQ(std::stod(busbw[1]), 240.0);
  EXPECT_EQ(busbw[2], "2.697");  // 240 / 89
  const auto time = row(t, "all_reduce time_us");
  ASSERT_EQ(time.size(), 3u) << t;
  EXPECT_EQ(time[2], "0.372");  // 2232 / 6008
  EXPECT_EQ(row(t, "wall_time_s")[2], "1.000");
}

TEST(Compare, AnOperationOnlyOneRunHasShowsADashWhereTheOtherHasNone) {
  nlohmann::json flows_only = nlohmann::json::parse(R"({"wall_time_s": 2.0})");
  const std::string t = compare_table({{"a", flows_only}, {"b", summary(100.0, 10.0)}});
  const auto busbw = row(t, "all_reduce busbw_GBps");
  ASSERT_EQ(busbw.size(), 3u) << t;
  EXPECT_EQ(busbw[0], "-");
  EXPECT_EQ(std::stod(busbw[1]), 100.0);
  EXPECT_EQ(busbw[2], "-");
}

TEST(Compare, TwoWorkloadsWithTheSameOperationAreNamedApart) {
  nlohmann::json two = nlohmann::json::parse(R"({"collectives_by_op": [
      {"workload": "workload.0", "op": "all_reduce", "busbw_GBps": 10, "time_us": 1},
      {"workload": "workload.1", "op": "all_reduce", "busbw_GBps": 20, "time_us": 2}]})");
  const std::string t = compare_table({{"a", two}, {"b", two}});
  EXPECT_EQ(row(t, "all_reduce (workload.0) busbw_GBps").at(0), "10") << t;
  EXPECT_EQ(row(t, "all_reduce (workload.1) busbw_GBps").at(0), "20") << t;
}

TEST(Compare, AnEditedSummaryWithEntriesOfTheWrongTypeIsReadAsMissingNotACrash) {
  nlohmann::json odd = nlohmann::json::parse(R"({"collectives_by_op": [3, {"op": 7, "busbw_GBps": 1},
      {"workload": "workload.0", "op": "all_reduce", "busbw_GBps": "fast"}]})");
  const std::string t = compare_table({{"a", odd}, {"b", summary(100.0, 10.0)}});
  const auto busbw = row(t, "all_reduce busbw_GBps");
  ASSERT_EQ(busbw.size(), 3u) << t;
  EXPECT_EQ(busbw[0], "\"fast\"");
  EXPECT_EQ(busbw[2], "-");
}

}  // namespace rocesim
