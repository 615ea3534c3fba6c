#include "rocesim/analysis/pfc_rollup.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

const nlohmann::json& tier(const nlohmann::json& rollup, const std::string& name) {
  for (const auto& r : rollup["by_tier"]) {
    if (r["tier"] == name) {
      return r;
    }
  }
  throw std::runtime_error("no tier " + name);
}

// An incast on a lossless leaf-spine with a small buffer and no congestion control, run for 2 ms; returns the
// rollup with the run.
std::pair<std::unique_ptr<Simulation>, nlohmann::json> lossless_incast(const std::string& topology,
                                                                       const std::string& incast) {
  auto s = test::run_sim("stop: 2ms\ntopology: {type: leaf-spine, " + topology +
                         "}\nswitch: {buffer: 1MB, pfc: {priorities: [3]}}\nnic: {cc: none}\n"
                         "workload: [{type: incast, size: 1MB, " +
                         incast + "}]\n");
  nlohmann::json j = pfc_rollup_json(s->net(), s->sim().now());
  return {std::move(s), std::move(j)};
}

TEST(PfcRollup, PausesReachTheTiersHopByHopBackFromTheCongestedPort) {
  // Hosts of leaf1 write to host0 on leaf0 with no congestion control and a small buffer: leaf0's port to host0
  // fills, leaf0 pauses the spines, the spines pause leaf1, leaf1 pauses the senders' NICs.
  const auto [s, j] = lossless_incast(
      "leaves: 2, spines: 1, servers_per_leaf: 4, host_link: {rate: 100Gbps}, fabric_link: {rate: 400Gbps}",
      "receiver: 0, senders: [4, 5, 6, 7]");
  const auto &leaf = tier(j, "leaf"), &spine = tier(j, "spine"), &nic = tier(j, "nic");
  ASSERT_FALSE(spine["first_paused_ns"].is_null());
  ASSERT_FALSE(leaf["first_paused_ns"].is_null());
  ASSERT_FALSE(nic["first_paused_ns"].is_null());
  EXPECT_LT(spine["first_paused_ns"].get<double>(), leaf["first_paused_ns"].get<double>());
  EXPECT_LT(leaf["first_paused_ns"].get<double>(), nic["first_paused_ns"].get<double>());
  EXPECT_EQ(spine["ports_paused"], 1);  // the spine's port toward leaf0
  EXPECT_EQ(nic["ports"], 8);
  EXPECT_GE(nic["ports_paused"].get<int>(), 1);
  EXPECT_LE(nic["ports_paused"].get<int>(), 4);  // only senders
  EXPECT_TRUE(j["by_rail"].empty());             // one NIC per server
  // The tiers add up to what ports.csv and nics.csv report.
  double paused_ns = 0, rows_ns = 0;
  int64_t frames = 0, rows_frames = 0;
  for (const auto& r : j["by_tier"]) {
    rows_ns += r["paused_ns"].get<double>();
    rows_frames += r["pause_frames_received"].get<int64_t>();
  }
  for (const auto& r : test::csv_rows(ports_csv(s->net(), s->sim().now()))) {
    paused_ns += std::stod(r.at("paused_ns"));
    frames += std::stoll(r.at("pause_rcvd"));
  }
  for (const auto& r : test::csv_rows(nics_csv(s->net(), s->sim().now()))) {
    paused_ns += std::stod(r.at("paused_ns"));
    frames += std::stoll(r.at("pause_rcvd"));
  }
  EXPECT_NEAR(rows_ns, paused_ns, 1.0);
  EXPECT_EQ(rows_frames, frames);
  EXPECT_NE(pfc_rollup_table(summary_json(*s, RunInfo{})).find("paused by tier   leaf"), std::string::npos);
}

TEST(PfcRollup, ARailIncastPausesOnlyItsRail) {
  // Rail-optimised, 2 NICs per server: NIC 1 of servers 1..3 write to NIC 1 of server 0 (endpoint 1).
  const auto [s, j] = lossless_incast(
      "leaves: 4, spines: 1, servers_per_leaf: 2, nics_per_host: 2, rail: true, host_link: {rate: 100Gbps}, "
      "fabric_link: {rate: 100Gbps}",
      "receiver: 1, senders: 3, same_rail: true");
  ASSERT_EQ(j["by_rail"].size(), 2u);
  const auto &rail0 = j["by_rail"][0], &rail1 = j["by_rail"][1];
  EXPECT_EQ(rail1["switches"], 2);  // leaf1 and leaf3
  EXPECT_EQ(rail1["nics"], 4);
  EXPECT_GT(rail1["nics_paused"].get<int>(), 0);
  EXPECT_GT(rail1["switch_ports_paused"].get<int>(), 0);
  EXPECT_EQ(rail0["nics_paused"], 0);
  EXPECT_EQ(rail0["switch_ports_paused"], 0);
  EXPECT_TRUE(rail0["first_paused_ns"].is_null());
}

}  // namespace
}  // namespace rocesim
