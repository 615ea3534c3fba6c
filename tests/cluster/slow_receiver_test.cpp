// The slow receiver fault (events: slow_receiver): a NIC that moves received frames to host memory below line rate.
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/nic/rx_buffer.hpp"

namespace rocesim {
namespace {

std::string star(const std::string& event) {
  return "stop: 10ms\ntopology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}\n"
         "switch: {pfc: {priorities: [3]}}\nnic: {cc: none}\nevents:\n  - " +
         event + "\n";
}

TEST(SlowReceiver, WriteRunsAtTheDrainRateAndTheReceiverPausesWithoutLoss) {
  auto s = test::make_sim(star("{at: 0us, type: slow_receiver, nic: host1, rate: 25Gbps}"));
  s->net().add_flow(test::write_flow(0, 1, Bytes(4'000'000)));
  s->run();
  const FlowRecord& f = s->net().flows()[0];
  ASSERT_TRUE(f.done);
  const NicCounters rx = s->net().nic(1).counters();
  // Every data frame drains at 25 Gb/s, one after the other: the FCT is their bytes at that rate, plus about a
  // base RTT (the first frame's way in, the last ACK's way back).
  const Time drain = Rate::gbps(25).tx_time(Bytes(rx.rx_bytes));
  EXPECT_GE(f.end, drain);
  EXPECT_LE(f.end, drain + Time::us(10));
  // The receive buffer paused the switch above its XOFF point and never overflowed it.
  EXPECT_GT(rx.pause_sent, 0);
  EXPECT_GT(rx.resume_sent, 0);
  EXPECT_EQ(rx.rx_dropped, 0);
  const Bytes frame(wire::roce_frame(4096, wire::kReth));
  const int64_t xoff_point = 130944 - mlx5_rx_headroom(Rate::gbps(100), 7, frame.count()).count();
  EXPECT_GT(rx.rx_buffer_max, xoff_point);
  EXPECT_LE(rx.rx_buffer_max, 130944);
  EXPECT_EQ(test::all_drops(s->net()), 0);
  EXPECT_GT(s->net().nic(0).pause_state().total[3], Time());  // the pauses reached the sender
}

TEST(SlowReceiver, OnceTheFaultEndsTheRestArrivesAtLineRate) {
  auto slow = test::make_sim(star("{at: 0us, type: slow_receiver, nic: host1, rate: 25Gbps}"));
  auto heals = test::make_sim(star("{at: 0us, type: slow_receiver, nic: host1, rate: 25Gbps, until: 500us}"));
  for (auto* s : {slow.get(), heals.get()}) {
    s->net().add_flow(test::write_flow(0, 1, Bytes(4'000'000)));
    s->run();
    ASSERT_TRUE(s->net().flows()[0].done);
  }
  // By 500 us about 25 Gb/s x 500 us = 1.56 MB has drained; the other 2.44 MB then take about 0.2 ms at 100 Gb/s.
  const Time fct = heals->net().flows()[0].end;
  EXPECT_GT(fct, Time::us(500) + Rate::gbps(100).tx_time(Bytes(2'300'000)));
  EXPECT_LT(fct, Time::us(500) + Rate::gbps(100).tx_time(Bytes(2'600'000)) + Time::us(20));
  EXPECT_LT(fct, slow->net().flows()[0].end);
}

TEST(SlowReceiver, PausesSpreadAcrossTheFabricAndSlowFlowsThatNeverTouchIt) {
  const std::string file = std::string(ROCESIM_SOURCE_DIR) + "/scenarios/slow-receiver.yaml";
  Simulation with(load_scenario(file, {}));
  with.run();
  Simulation without(load_scenario(file, {"events=[]"}));
  without.run();
  const PauseSpread sp = pause_spread(with.net(), "host3", 3, with.sim().now());
  ASSERT_FALSE(sp.by_hops.empty());
  EXPECT_GE(sp.by_hops.back().hops, 3);  // beyond host3's leaf and the spines
  const std::vector<uint32_t> faulty = faulty_endpoints(with.net(), with.scenario().events);
  ASSERT_EQ(faulty, std::vector<uint32_t>{3});
  const auto victims = victim_flows(with.net(), without.net(), faulty, kVictimThreshold);
  EXPECT_GT(victims.size(), 100u);  // of the 210 flows that neither start nor end at host3
  for (const Victim& v : victims) {
    const FlowRecord& f = with.net().flows()[v.id];
    EXPECT_NE(f.spec.src, 3u);
    EXPECT_NE(f.spec.dst, 3u);
  }
}

TEST(SlowReceiver, BadFaultsNameTheirKey) {
  const std::string topo = "topology: {type: star, hosts: 2, host_link: {rate: 100Gbps}}\n";
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {"events:\n  - {at: 1us, type: slow_receiver, nic: host1}\n", "events.0.rate"},
           {"events:\n  - {at: 1us, type: slow_receiver, nic: host1, rate: 100Gbps}\n", "events.0.rate"},
           {"events:\n  - {at: 1us, type: slow_receiver, nic: host7, rate: 10Gbps}\n", "events.0.nic"},
           {"events:\n  - {at: 1us, type: pause_storm, nic: host1, rate: 10Gbps}\n", "events.0.rate"},
           {"events:\n  - {at: 1us, type: link_down, link: host1, rate: 10Gbps}\n", "events.0.rate"},
           {"nic: {rx_buffer: 40KB}\nevents:\n  - {at: 1us, type: slow_receiver, nic: host1, rate: 10Gbps}\n",
            "nic.rx_buffer"}}) {
    try {
      test::make_sim(topo + text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << text;
    }
  }
}

}  // namespace
}  // namespace rocesim
