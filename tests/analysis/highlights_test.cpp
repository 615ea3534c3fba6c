#include "rocesim/analysis/highlights.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

// Three hosts write to host0 on a 100 Gb/s star with no congestion control: a 3:1 incast.
std::unique_ptr<Simulation> incast(const std::string& stop, Bytes size, const std::string& extra = "") {
  auto s = test::make_sim("stop: " + stop +
                          "\ntopology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
                          "switch: {pfc: {priorities: [3]}}\nnic: {cc: none}\n" +
                          extra);
  for (uint32_t h = 1; h <= 3; ++h) {
    s->net().add_flow(test::write_flow(h, 0, size));
  }
  s->run();
  return s;
}

TEST(Highlights, UnfinishedFlowsAreCountedWithWhatTheyDelivered) {
  auto s = incast("100us", Bytes(4'000'000));
  const nlohmann::json j = summary_json(*s, RunInfo{});
  const auto& c = j["coverage"];
  EXPECT_EQ(c["unfinished_flows"], 3);
  EXPECT_EQ(c["measured_flows"], 0);
  EXPECT_EQ(c["unfinished_size_bytes"], 12'000'000);
  // host0's link carries at most 100 Gb/s x 100 us = 1.25 MB, headers included.
  const int64_t delivered = c["unfinished_delivered_bytes"];
  EXPECT_GT(delivered, 1'000'000);
  EXPECT_LT(delivered, 1'250'000);
  int64_t per_flow = 0;
  for (const FlowRecord& f : s->net().flows()) {
    per_flow += f.delivered;
  }
  EXPECT_EQ(per_flow, delivered);
  EXPECT_TRUE(j["fct_ns"]["p50"].is_null());
  const std::string t = summary_table(j);
  EXPECT_NE(t.find("not in the FCTs  3 unfinished flows"), std::string::npos) << t;
  // flows.csv's delivered_bytes, last column.
  const auto rows = test::csv_rows(flows_csv(s->net()));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("status"), "unfinished");
  EXPECT_EQ(rows[0].at("delivered_bytes"), std::to_string(s->net().flows()[0].delivered));
}

TEST(Highlights, TheBusiestReceiverGetsItsLinkRateAndTheDeepestQueueIsTowardIt) {
  auto s = incast("10ms", Bytes(1'000'000));
  const nlohmann::json j = summary_json(*s, RunInfo{});
  ASSERT_EQ(j["receivers"].size(), 1u);  // only host0 receives
  const auto& r = j["receivers"][0];
  EXPECT_EQ(r["endpoint"], 0);
  EXPECT_EQ(r["delivered_bytes"], 3'000'000);
  // 3 MB of payload through one 100 Gb/s link, headers and ACK time aside: just under 100 Gb/s.
  EXPECT_GT(r["goodput_gbps"].get<double>(), 90.0);
  EXPECT_LT(r["goodput_gbps"].get<double>(), 100.0);
  const auto& q = j["deepest_queues"][0];
  EXPECT_EQ(q["port"], "switch0:0");
  EXPECT_EQ(q["peer"], "host0");
  // Time to drain it at the port's rate: bytes x 8 / 100 Gb/s, 80 ps a byte.
  EXPECT_DOUBLE_EQ(q["drain_ns"].get<double>(), q["max_queue_bytes"].get<double>() * 0.08);
  // Every flow finished: FCT max is the last completion, all three start at 0.
  Time last;
  for (const FlowRecord& f : s->net().flows()) {
    last = std::max(last, f.end);
  }
  EXPECT_DOUBLE_EQ(j["fct_ns"]["max"].get<double>(), static_cast<double>(last.ps()) / 1000.0);
  EXPECT_EQ(j["workloads"].size(), 0u);  // flows added by hand belong to no workload
}

TEST(Highlights, WarmupLeavesEarlierFlowsOutOfThePercentiles) {
  auto s = test::make_sim(
      "stop: 10ms\ntopology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}\n"
      "nic: {cc: none}\noutput: {warmup: 50us}\n");
  s->net().add_flow(test::write_flow(0, 1, Bytes(100'000)));                   // alone: about 8 us
  s->net().add_flow(test::write_flow(0, 1, Bytes(1'000'000), Time::us(100)));  // about 80 us
  s->run();
  const nlohmann::json j = summary_json(*s, RunInfo{});
  EXPECT_EQ(j["coverage"]["warmup_flows"], 1);
  EXPECT_EQ(j["coverage"]["measured_flows"], 1);
  const FlowRecord& late = s->net().flows()[1];
  const double fct = static_cast<double>((late.end - late.spec.start).ps()) / 1000.0;
  EXPECT_DOUBLE_EQ(j["fct_ns"]["p50"].get<double>(), fct);
  EXPECT_DOUBLE_EQ(j["fct_ns"]["max"].get<double>(), fct);
  const auto b = slowdown_by_size(s->net(), {10'000'000}, Time::us(50));
  EXPECT_EQ(b[0].flows, 1u);
  EXPECT_NE(summary_table(j).find("warm-up          1 flows started before 50.000 us"), std::string::npos);
}

TEST(Highlights, TheSummaryNamesThePresetAndWarnsOfTheKeysSetOverIt) {
  auto s = test::make_sim(
      "stop: 1ms\ntopology: {type: star, hosts: 2}\nswitch: {preset: sonic-lossless, ecn: {kmin: 200KB}}\n");
  s->run();
  const nlohmann::json j = summary_json(*s, RunInfo{});
  EXPECT_EQ(j["switch_preset"]["name"], "sonic-lossless");
  ASSERT_EQ(j["switch_preset"]["overridden"].size(), 1u);
  EXPECT_EQ(j["switch_preset"]["overridden"][0]["key"], "switch.ecn.kmin");
  EXPECT_EQ(j["switch_preset"]["overridden"][0]["value"], "200KB");
  EXPECT_EQ(j["switch_preset"]["overridden"][0]["preset_value"], "1MiB");
  EXPECT_EQ(j["scenario"]["switch"]["preset"], "sonic-lossless");
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(
      j["warnings"][0].get<std::string>().find("switch.ecn.kmin is 200KB, not switch.preset sonic-lossless's 1MiB"),
      std::string::npos);
  EXPECT_NE(summary_table(j).find("switch preset    sonic-lossless, 1 of its keys set by the scenario"),
            std::string::npos);
}

TEST(Highlights, WithSeveralWorkloadsTheTableGivesEachOnesFcts) {
  auto s = test::run_sim(
      "stop: 10ms\ntopology: {type: star, hosts: 6, host_link: {rate: 100Gbps}}\nnic: {cc: none}\n"
      "workload: [{type: incast, receiver: 0, senders: [1, 2], size: 100KB},\n"
      "           {type: incast, receiver: 5, senders: [3], size: 10KB}]\n");
  const nlohmann::json j = summary_json(*s, RunInfo{});
  const std::string t = summary_table(j);
  // The lone 10 KB write finishes in one FCT: its p50 is its max.
  const auto& w1 = j["workloads"][1]["fct_ns"];
  EXPECT_EQ(w1["p50"], w1["max"]);
  EXPECT_NE(t.find("  workload.0       incast: FCT p50 "), std::string::npos) << t;
  EXPECT_NE(t.find("  workload.1       incast: FCT p50 " + time_text(w1["p50"].get<double>())), std::string::npos) << t;
  EXPECT_NE(t.find("(1 of 1 finished)"), std::string::npos) << t;
}

TEST(Highlights, TheReceiverOfAnRdmaReadIsItsRequester) {
  auto s = test::make_sim(
      "stop: 10ms\ntopology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}\nnic: {cc: none}\n");
  FlowSpec read = test::write_flow(2, 1, Bytes(500'000));
  read.op = RdmaOp::kRead;  // host1's memory to host2
  s->net().add_flow(read);
  s->run();
  const nlohmann::json j = summary_json(*s, RunInfo{});
  ASSERT_EQ(j["receivers"].size(), 1u);
  EXPECT_EQ(j["receivers"][0]["endpoint"], 2);
  EXPECT_EQ(j["receivers"][0]["delivered_bytes"], 500'000);
}

}  // namespace
}  // namespace rocesim
