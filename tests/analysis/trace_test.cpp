#include "rocesim/analysis/trace.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

// Three senders write 400 KB each to host0 through one switch with PFC and DCQCN: pauses, CNPs, queues.
const std::string kIncast =
    "stop: 2ms\ntopology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
    "switch: {buffer: 600KB, pfc: {priorities: [3]}, ecn: {kmin: 20KB, kmax: 100KB, pmax: 0.2}}\n"
    "workload: [{type: incast, receiver: 0, senders: 3, size: 400KB, priority: 3}]\n";

nlohmann::json trace_of(const Simulation& s) { return nlohmann::json::parse(s.output<Trace>()->json()); }

std::vector<nlohmann::json> events(const nlohmann::json& t, const std::string& ph,
                                   const std::string& name_prefix = "") {
  std::vector<nlohmann::json> out;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == ph && e["name"].get<std::string>().rfind(name_prefix, 0) == 0) {
      out.push_back(e);
    }
  }
  return out;
}

TEST(Trace, EachMessageIsASliceOnItsSendersTrackWithTheFlowsStartAndCompletionTime) {
  auto s = test::run_sim(kIncast, {"output.trace.nodes=all"});
  const auto t = trace_of(*s);
  const auto slices = events(t, "X");
  ASSERT_EQ(slices.size(), s->net().flows().size());
  for (const auto& e : slices) {
    const FlowRecord& f = s->net().flows()[e["args"]["flow"].get<size_t>()];
    EXPECT_EQ(e["pid"], s->net().nics()[f.spec.src]->graph_id() + 1);
    EXPECT_EQ(e["tid"], f.id + 1);  // one track per queue pair
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), f.spec.start.ps() / 1e6);
    EXPECT_NEAR(e["dur"].get<double>(), (f.end - f.spec.start).ps() / 1e6, 1e-6);
    EXPECT_EQ(e["args"]["status"], "ok");
  }
}

TEST(Trace, PfcFramesAndCnpsAreInstantsOneForEachFrameSent) {
  auto s = test::run_sim(kIncast, {"output.trace.nodes=all"});
  const auto t = trace_of(*s);
  const nlohmann::json sum = summary_json(*s, RunInfo{});
  ASSERT_GT(sum["pfc"]["pause_frames"].get<int64_t>(), 0);
  ASSERT_GT(sum["cnp"]["sent"].get<int64_t>(), 0);
  EXPECT_EQ(events(t, "i", "PFC XOFF").size(), sum["pfc"]["pause_frames"].get<size_t>());
  EXPECT_EQ(events(t, "i", "PFC XON").size(), sum["pfc"]["resume_frames"].get<size_t>());
  EXPECT_EQ(events(t, "i", "CNP").size(), sum["cnp"]["sent"].get<size_t>());
  // The congested queue (the switch's port to host0) shows up as a counter that rises and drains to zero.
  const auto queues = events(t, "C", "queue port 0 p3");
  ASSERT_FALSE(queues.empty());
  int64_t deepest = 0;
  for (const auto& q : queues) {
    deepest = std::max(deepest, q["args"]["bytes"].get<int64_t>());
  }
  EXPECT_GT(deepest, 20000);
  EXPECT_EQ(queues.back()["args"]["bytes"], 0);
  EXPECT_FALSE(events(t, "C", "rate flow").empty());
}

TEST(Trace, TracingChangesNoResult) {
  auto with = test::run_sim(kIncast, {"output.trace.nodes=all", "output.trace.interval=100ns"});
  auto without = test::run_sim(kIncast);
  EXPECT_EQ(flows_csv(with->net()), flows_csv(without->net()));
  EXPECT_EQ(ports_csv(with->net(), with->sim().now()), ports_csv(without->net(), without->sim().now()));
}

TEST(Trace, TheNodeFilterTheWindowAndTheEventLimitBoundWhatIsWritten) {
  auto s = test::run_sim(kIncast, {"output.trace.nodes=host1", "output.trace.start=20us", "output.trace.stop=40us"});
  const auto t = trace_of(*s);
  const uint32_t host1 = s->net().nics()[1]->graph_id() + 1;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["pid"] == 0) {
      continue;  // the trace's own name
    }
    EXPECT_EQ(e["pid"], host1) << e.dump();
    if (e["ph"] == "C" || e["ph"] == "i") {
      EXPECT_GE(e["ts"].get<double>(), 20.0) << e.dump();
      EXPECT_LE(e["ts"].get<double>(), 40.0) << e.dump();
    }
  }
  EXPECT_EQ(events(t, "X").size(), 1u);

  auto small = test::run_sim(kIncast, {"output.trace.nodes=all", "output.trace.max_events=10"});
  const auto ts = trace_of(*small);
  EXPECT_EQ(events(ts, "C").size() + events(ts, "i").size(), 10u);
  EXPECT_GT(small->output<Trace>()->dropped(), 0);
  EXPECT_EQ(ts["otherData"]["events_left_out"], small->output<Trace>()->dropped());

  EXPECT_THROW(test::make_sim(kIncast, {"output.trace.nodes=host1, nosuch"}), InputError);
}

TEST(Trace, AFlowThatHadNotStartedWhenTheRunEndedHasNoSlice) {
  auto s = test::make_sim(kIncast, {"output.trace.nodes=all", "stop=300us"});
  s->net().add_flow(test::write_flow(1, 0, Bytes(1000), Time::us(500)));
  s->run();
  for (const auto& e : events(trace_of(*s), "X")) {
    EXPECT_GE(e["dur"].get<double>(), 0) << e.dump();
    EXPECT_NE(e["args"]["flow"], s->net().flows().size() - 1) << e.dump();
  }
}

TEST(Trace, AKernelTcpSendersRateIsItsWindowPerRoundTrip) {
  // Tracing the NIC of a kernel-TCP flow used to read a DCQCN state it does not have (a segmentation fault).
  auto s = test::run_sim(
      "seed: 1\nstop: 2ms\ntopology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}\n"
      "workload: [{type: incast, receiver: 1, senders: 1, size: 2MB, transport: tcp}]\n",
      {"output.trace.nodes=host0"});
  ASSERT_TRUE(s->net().flows()[0].done);
  const auto rates = events(trace_of(*s), "C", "rate");
  ASSERT_FALSE(rates.empty());
  double peak = 0;
  for (const auto& e : rates) {
    for (const auto& [k, v] : e["args"].items()) {
      peak = std::max(peak, v.get<double>());
    }
  }
  // The window's rate (Gb/s) is positive, and a kernel connection's cycles keep it below line rate.
  EXPECT_GT(peak, 0.1);
  EXPECT_LT(peak, 100);
}

}  // namespace
}  // namespace rocesim
