// TIMELY: its rate law against hand-computed values (the HPCC simulator's UpdateRateTimely, with its defaults:
// alpha 0.875, beta 0.8, T_low 50 us, T_high 500 us, min RTT 20 us).
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/timeseries.hpp"
#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct NoTimers final : CcTimers {
  void arm(CongestionControl*, Time, uint32_t) override {}
};

struct Flow {
  explicit Flow(const std::string& yaml = "{type: timely}") {
    static NoTimers timers;
    cc = parse_cc(YAML::Load(yaml), ParseCtx{"t"}, "nic.cc")
             ->make(CcFlowInfo{Rate::gbps(100), Time::us(10), 1000}, timers);
  }
  // Sends a packet, then takes the ACK of everything sent so far, with this RTT sample.
  void round(Time rtt) {
    cc->on_sent(Time(), 1000);
    AckInfo a;
    a.acked_packets = ++sent;
    a.packets = 1;
    a.rtt = rtt;
    cc->on_ack(Time(), a);
  }
  double gbps() const { return cc->rate.gbps_f(); }
  std::unique_ptr<CongestionControl> cc;
  int64_t sent = 0;
};

TEST(Timely, AnRttAboveTHighCutsByBetaTimesItsExcess) {
  Flow f;
  f.round(Time::us(100));  // the first round only records its RTT
  EXPECT_DOUBLE_EQ(f.gbps(), 100);
  f.round(Time::us(600));  // R (1 - 0.8 (1 - 500/600)) = 100 x (1 - 0.8/6)
  EXPECT_NEAR(f.gbps(), 100 * (1 - 0.8 / 6), 1e-6);
}

TEST(Timely, ARisingRttBetweenTheThresholdsCutsByBetaTimesTheGradient) {
  Flow f;
  f.round(Time::us(60));
  // diff = 0.875 x (70 - 60) us = 8.75 us; gradient = 8.75 / 20 = 0.4375; R x (1 - 0.8 x 0.4375) = 65 Gb/s.
  f.round(Time::us(70));
  EXPECT_NEAR(f.gbps(), 65, 1e-6);
  // diff = 0.125 x 8.75 + 0.875 x (65 - 70) = -3.28 us: a falling RTT, so an additive step of 100 Mb/s.
  f.round(Time::us(65));
  EXPECT_NEAR(f.gbps(), 65.1, 1e-6);
}

TEST(Timely, FiveIncreasesInARowBringTheHyperActiveStep) {
  Flow f("{type: timely, min_rate: 1Gbps}");
  f.round(Time::us(100));
  f.round(Time::us(1000));  // 100 x (1 - 0.8 x 0.5) = 60 Gb/s
  EXPECT_NEAR(f.gbps(), 60, 1e-6);
  for (int i = 1; i <= 5; ++i) {  // below T_low: + 100 Mb/s each
    f.round(Time::us(10));
    EXPECT_NEAR(f.gbps(), 60 + 0.1 * i, 1e-6) << i;
  }
  f.round(Time::us(10));  // the sixth: + 500 Mb/s
  EXPECT_NEAR(f.gbps(), 61, 1e-6);
  // Never beyond line rate, never below min_rate.
  for (int i = 0; i < 200; ++i) {
    f.round(Time::us(10));
  }
  EXPECT_DOUBLE_EQ(f.gbps(), 100);
  for (int i = 0; i < 50; ++i) {
    f.round(Time::us(5000));
  }
  EXPECT_DOUBLE_EQ(f.gbps(), 1);
}

TEST(Timely, OneUpdatePerRoundOfData) {
  Flow f;
  f.round(Time::us(100));
  // A second ACK for data sent before that update: no change, however large its RTT.
  AckInfo a;
  a.acked_packets = f.sent;
  a.rtt = Time::us(5000);
  f.cc->on_ack(Time(), a);
  EXPECT_DOUBLE_EQ(f.gbps(), 100);
}

TEST(Timely, AnIncastsQueueGrowsPastTLowsWorthAndStaysBelowTHighs) {
  // 4 senders into one 100G port, no ECN. TIMELY backs off on delay only: the queue grows until the RTT's
  // gradient turns (well past T_low = 50 us, 625 KB at 100G), the rates fall, the queue drains, and the cycle
  // repeats (TIMELY has no fixed point: Zhu et al., CoNEXT 2016). Measured: peaks of 0.8-3.3 MB, 83 % of the
  // port's time busy over 2 ms. The queue never reaches T_high's worth (500 us, 6.25 MB).
  auto s = test::run_sim(
      "stop: 2ms\ntopology: {type: star, hosts: 5, host_link: {rate: 100Gbps, delay: 1us}}\n"
      "switch: {buffer: 32MB, ecn: {type: none}, pfc: {priorities: [3]}}\n"
      "nic: {cc: timely, mtu: 1000, ack_interval: 1}\n"
      "workload: [{type: incast, receiver: 0, senders: 4, size: 6MB}]\n"
      "output: {timeseries: {ports: 'switch0:0', interval: 10us}}\n");
  ASSERT_NE(s->output<TimeSeries>(), nullptr);
  double max_q = 0, sum_tx = 0;
  int samples = 0;
  for (const auto& r : test::csv_rows(s->output<TimeSeries>()->csv())) {
    if (r.at("metric") == "queue_bytes.p3") {
      max_q = std::max(max_q, std::stod(r.at("value")));
    } else if (r.at("metric") == "tx_gbps") {
      sum_tx += std::stod(r.at("value"));
      ++samples;
    }
  }
  ASSERT_GT(samples, 150);
  EXPECT_GT(max_q, 100e9 / 8 * 50e-6);
  EXPECT_LT(max_q, 100e9 / 8 * 500e-6);
  EXPECT_GT(sum_tx / samples, 75);
}

}  // namespace
}  // namespace rocesim
