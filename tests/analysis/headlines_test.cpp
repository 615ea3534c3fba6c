// The summary table leads with what each workload is for: perftest's rows, a training step, a collective's
// bandwidth; FCT lines for flow workloads only; credit waits and FECN/BECN on InfiniBand.
#include "rocesim/analysis/headlines.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

constexpr const char* kStar =
    "stop: 10ms\ntopology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
    "switch: {pfc: {priorities: [3]}}\nnic: {cc: dcqcn}\n";

std::string table_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  auto s = test::run_sim(yaml, sets);
  return summary_table(summary_json(*s, RunInfo{}));
}

bool has_line(const std::string& table, const std::string& start) {
  return table.find("\n  " + start) != std::string::npos || table.rfind("  " + start, 0) == 0;
}

TEST(Headlines, APerftestRunLeadsWithItsRowsAndHasNoFctLines) {
  auto s = test::run_sim(std::string(kStar) +
                         "workload:\n  - {type: perftest, test: write_bw, client: 1, server: 0, sizes: [4KiB, 64KiB],"
                         " iterations: 200}\n");
  const nlohmann::json j = summary_json(*s, RunInfo{});
  const std::string t = summary_table(j);
  ASSERT_EQ(j["perftest"].size(), 2u);
  for (const auto& row : j["perftest"]) {
    EXPECT_NE(t.find(fmt::format("{:>10} B: peak {:.2f} Gb/s, average {:.2f} Gb/s, {:.3f} Mpps",
                                 row["bytes"].get<int>(), row["bw_peak_gbps"].get<double>(),
                                 row["bw_average_gbps"].get<double>(), row["msg_rate_mpps"].get<double>())),
              std::string::npos)
        << t;
  }
  EXPECT_FALSE(j["workloads"][0]["fct"].get<bool>());
  EXPECT_FALSE(has_line(t, "FCT")) << t;
  EXPECT_TRUE(has_line(t, "messages         400 completed of 400")) << t;
  // The perftest lines come before the fabric's.
  EXPECT_LT(t.find("perftest"), t.find("PFC"));
}

TEST(Headlines, ALatencyTestShowsItsPercentiles) {
  auto s = test::run_sim(std::string(kStar) +
                         "workload:\n  - {type: perftest, test: write_lat, client: 1, server: 0, sizes: [64B],"
                         " iterations: 100}\n");
  const nlohmann::json j = summary_json(*s, RunInfo{});
  const auto& row = j["perftest"].at(0);
  EXPECT_NE(summary_table(j).find(fmt::format("typical {:.2f} us, average {:.2f} us, p99 {:.2f} us, p99.9 {:.2f} us",
                                              row["t_typical_us"].get<double>(), row["t_avg_us"].get<double>(),
                                              row["p99_us"].get<double>(), row["p999_us"].get<double>())),
            std::string::npos);
}

TEST(Headlines, FlowWorkloadsKeepTheirFctLines) {
  const std::string t =
      table_of(std::string(kStar) + "workload:\n  - {type: incast, receiver: 0, senders: [1, 2, 3], size: 100KB}\n");
  EXPECT_TRUE(has_line(t, "flows            3 completed of 3")) << t;
  EXPECT_TRUE(has_line(t, "FCT              p50")) << t;
  EXPECT_TRUE(has_line(t, "FCT slowdown")) << t;
}

TEST(Headlines, BesideACollectiveOnlyTheFlowWorkloadHasFctLines) {
  auto s = test::run_sim(std::string(test::kTwoDgxFabric) + R"(
workload:
  - {type: training, iterations: 2, compute: 100us, overlap: 0, collectives: "all_reduce:4MiB"}
  - {type: incast, receiver: 0, senders: [8, 9], size: 100KB, priority: 3}
)");
  const nlohmann::json j = summary_json(*s, RunInfo{});
  const std::string t = summary_table(j);
  // The training line: its mean step, as summary.json says.
  EXPECT_NE(t.find(fmt::format("training         workload.0: 2 steps, {} a step: compute 100.000 us",
                               time_text(j["training"][0]["mean_time_us"].get<double>() * 1e3))),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("collective       workload.0 all_reduce, 16 ranks (ring, Simple): 4 MiB in"), std::string::npos)
      << t;
  // No run-wide FCT line (it would count the all-reduce's messages); the incast's own line.
  EXPECT_FALSE(has_line(t, "FCT ")) << t;
  EXPECT_FALSE(has_line(t, "workload.0       ")) << t;
  EXPECT_TRUE(has_line(t, "workload.1       incast: FCT p50")) << t;
  // The incast's 2 flows and the training loop's messages, each under its own name.
  EXPECT_TRUE(has_line(t, "flows            2 completed of 2")) << t;
  const int64_t messages = j["workloads"][0]["created"].get<int64_t>();
  EXPECT_TRUE(has_line(t, fmt::format("messages         {} completed of {}", messages, messages))) << t;
}

TEST(Headlines, BesideACollectiveTheUnfinishedFlowsCountedAreTheFlowWorkloads) {
  // Stopped at 20 us: the incast's 2 flows of 10 MB and some 40 of the all-reduce's messages are under way.
  auto s = test::run_sim(std::string(test::kTwoDgxFabric) + R"(
workload:
  - {type: collective, op: all_reduce, sizes: [4MiB]}
  - {type: incast, receiver: 0, senders: [8, 9], size: 10MB, priority: 3}
)",
                         {"stop=20us"});
  const nlohmann::json j = summary_json(*s, RunInfo{});
  ASSERT_GT(j["coverage"]["unfinished_flows"].get<int64_t>(), 2);  // all records, messages among them
  const std::string t = summary_table(j);
  EXPECT_TRUE(has_line(t, "not in the FCTs  2 unfinished flows\n")) << t;
  EXPECT_TRUE(has_line(t, "flows            0 completed of 2")) << t;
}

TEST(Headlines, InfinibandSaysCreditWaitsAndFecnBecnNotPausesAndCnps) {
  auto s =
      test::run_sim(std::string(kStar) + "workload:\n  - {type: incast, receiver: 0, senders: [1, 2, 3], size: 1MB}\n",
                    {"fabric=infiniband", "switch.pfc.priorities=[]", "nic.cc=ib-cca"});
  const nlohmann::json j = summary_json(*s, RunInfo{});
  const std::string t = summary_table(j);
  EXPECT_FALSE(has_line(t, "PFC")) << t;
  EXPECT_FALSE(has_line(t, "ECN / DCQCN")) << t;
  EXPECT_TRUE(has_line(t, "FECN / BECN")) << t;
  ASSERT_TRUE(has_line(t, "credit waits")) << t;
  // A 3:1 incast at line rate: the switch port to host0 runs out of host0's credits; the waits summed equal
  // ports.csv's and nics.csv's.
  double sum = 0;
  for (const auto& row : test::csv_rows(ports_csv(s->net(), s->now()))) {
    sum += std::stod(row.at("credit_wait_ns"));
  }
  for (const auto& row : test::csv_rows(nics_csv(s->net(), s->now()))) {
    sum += std::stod(row.at("credit_wait_ns"));
  }
  EXPECT_GT(j["credits"]["wait_ns"].get<double>(), 0.0);
  EXPECT_NEAR(j["credits"]["wait_ns"].get<double>(), sum, 0.01 * sum);
}

}  // namespace
}  // namespace rocesim
