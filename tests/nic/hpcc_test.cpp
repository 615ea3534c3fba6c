// HPCC and DCTCP: the window laws against hand-computed values, and HPCC against DCQCN in an incast.
#include <gtest/gtest.h>

#include <cstdio>

#include "../test_util.hpp"
#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct NoTimers final : CcTimers {
  void arm(CongestionControl*, Time, uint32_t) override {}
};

std::unique_ptr<CongestionControl> make(const std::string& yaml, const CcFlowInfo& f) {
  static NoTimers timers;
  return parse_cc(YAML::Load(yaml), ParseCtx{"t"}, "nic.cc")->make(f, timers);
}

AckInfo ack_with(const IntHop& hop, int64_t acked_packets) {
  AckInfo a;
  a.int_hops = 1;
  a.telemetry = &hop;
  a.acked_packets = acked_packets;
  a.packets = 1;
  return a;
}

}  // namespace

TEST(Hpcc, WindowShrinksByUtilisationOverEta) {
  // T = 10 us at 100 Gb/s: W_init = 125,000 B, W_AI = 40 Mb/s x 10 us = 50 B.
  // Between two ACKs 10 us apart the hop sent 125,000 B (tx rate = line rate) and held 62,500 B both times:
  // u = 1 + 62,500 x 8 / (100e9 x 10e-6) = 1.5; tau = T, so the EWMA takes u = 1.5 outright.
  // W = W_c / (1.5 / 0.95) + W_AI = 125,000 x 0.95 / 1.5 + 50 = 79,216.67 B; rate = W x 8 / T = 63.37 Gb/s.
  const CcFlowInfo f{Rate::gbps(100), Time::us(10), 1000};
  auto cc = make("{type: hpcc}", f);
  EXPECT_EQ(cc->window, 125'000);
  cc->on_sent(Time(), 1000);
  IntHop h0{1'000'000, Time::us(100), 62'500, 100'000};
  cc->on_ack(Time::us(100), ack_with(h0, 1));
  IntHop h1{1'125'000, Time::us(110), 62'500, 100'000};
  cc->on_ack(Time::us(110), ack_with(h1, 2));
  EXPECT_EQ(cc->window, 79'216);
  EXPECT_NEAR(static_cast<double>(cc->rate.bps()), (125'000 * 0.95 / 1.5 + 50) * 8 / 10e-6, 10);
}

TEST(Hpcc, WindowModesFollowTheHpccSimulatorsHasWinAndVarWin) {
  // The same two ACKs as above (u = 1.5): the rate drops to 63.37 Gb/s in every mode; the window is W (varies),
  // stays at line rate x T (fixed, VAR_WIN 0), or is absent (none, HAS_WIN 0). base_rtt replaces the flow's T.
  const CcFlowInfo f{Rate::gbps(100), Time::us(10), 1000};
  for (const auto& [mode, window] :
       std::vector<std::pair<std::string, int64_t>>{{"varies", 79'216}, {"fixed", 125'000}, {"none", 0}}) {
    auto cc = make("{type: hpcc, window: " + mode + "}", f);
    cc->on_sent(Time(), 1000);
    IntHop h0{1'000'000, Time::us(100), 62'500, 100'000};
    cc->on_ack(Time::us(100), ack_with(h0, 1));
    IntHop h1{1'125'000, Time::us(110), 62'500, 100'000};
    cc->on_ack(Time::us(110), ack_with(h1, 2));
    EXPECT_EQ(cc->window, window) << mode;
    EXPECT_NEAR(static_cast<double>(cc->rate.bps()), (125'000 * 0.95 / 1.5 + 50) * 8 / 10e-6, 10) << mode;
  }
  EXPECT_EQ(make("{type: hpcc, base_rtt: 20us}", f)->window, 250'000);  // 100 Gb/s x 20 us
}

TEST(Hpcc, AnIdleHopLetsTheWindowGrowBackToLineRate) {
  // u = 0.5 (half the line rate, no queue): W = W_c / (0.5/0.95) + W_AI, capped at W_init.
  const CcFlowInfo f{Rate::gbps(100), Time::us(10), 1000};
  auto cc = make("{type: hpcc}", f);
  IntHop h0{0, Time::us(0), 0, 100'000};
  cc->on_ack(Time(), ack_with(h0, 1));
  IntHop h1{62'500, Time::us(10), 0, 100'000};
  cc->on_ack(Time::us(10), ack_with(h1, 2));
  EXPECT_EQ(cc->window, 125'000);
  EXPECT_EQ(cc->rate, Rate::gbps(100));
}

TEST(Dctcp, MarkedRoundCutsTheWindowByHalfAlpha) {
  // BDP = 100 Gb/s x 10 us = 125,000 B. With alpha = 1 (its initial value) the first marked ACK halves W.
  const CcFlowInfo f{Rate::gbps(100), Time::us(10), 1000};
  auto cc = make("{type: dctcp}", f);
  EXPECT_EQ(cc->window, 125'000);
  for (int i = 0; i < 10; ++i) {
    cc->on_sent(Time(), 1000);
  }
  AckInfo a;
  a.packets = 5;
  a.ce_packets = 1;
  a.acked_packets = 5;
  a.newly_acked = 5000;
  cc->on_ack(Time::us(10), a);
  EXPECT_EQ(cc->window, 62'500);
  // A second marked ACK in the same round does not cut again.
  a.acked_packets = 8;
  cc->on_ack(Time::us(11), a);
  EXPECT_EQ(cc->window, 62'500);
  // The round ends (all 10 packets acknowledged, 2 of 15 covered packets marked):
  // alpha = (1 - 1/16) x 1 + 1/16 x 2/15; an unmarked ACK then adds mtu x newly_acked / W.
  a.acked_packets = 10;
  a.packets = 5;
  a.ce_packets = 0;
  cc->on_ack(Time::us(12), a);
  EXPECT_EQ(cc->window, static_cast<int64_t>(62'500 + 1000.0 * 5000 / 62'500));
}

namespace {
struct IncastOutcome {
  double mean_queue_kb = 0;
  double utilisation = 0;  // receiver-link goodput over [200 us, 1000 us] / (line rate x payload efficiency)
  bool all_done = false;
};

IncastOutcome incast16(const std::string& cc) {
  auto s = test::make_sim(R"(seed: 3
stop: 20ms
topology: {type: star, hosts: 17, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MB, pfc: {priorities: [3]}, ecn: {kmin: 400KB, kmax: 1600KB, pmax: 0.2}}
nic: {mtu: 1000, ack_interval: 1}
workload: [{type: incast, receiver: 0, senders: 16, size: 2MB}]
)",
                          {"nic.cc=" + cc});
  Network& net = s->net();
  auto [sw, port] = net.attachment(0);
  auto delivered = [&] {
    int64_t d = 0;
    for (const auto& f : net.flows()) {
      d += f.delivered;
    }
    return d;
  };
  double qsum = 0;
  int n = 0;
  int64_t d0 = 0;
  for (int t = 1; t <= 100; ++t) {
    s->sim().run(Time::us(10 * t));
    if (t == 20) {
      d0 = delivered();
    }
    if (t > 20) {
      qsum += static_cast<double>(sw->queued_bytes(port, 3));
      ++n;
    }
  }
  const double goodput = static_cast<double>(delivered() - d0) * 8 / 800e-6;
  const double eff = 1000.0 / (1000 + 62 + 20 + (cc == "hpcc" ? kIntHeaderBytes : 0));
  s->run();
  return {qsum / n / 1000, goodput / (100e9 * eff), test::unfinished(net) == 0};
}
}  // namespace

TEST(Hpcc, IncastKeepsTheQueueFarBelowDcqcnsAtFullLinkUse) {
  // 16 x 2 MB into one 100 Gb/s port with the HPCC paper's DCQCN ECN settings (Kmin 400 KB, Kmax 1600 KB).
  const IncastOutcome hpcc = incast16("hpcc"), dcqcn = incast16("dcqcn");
  std::printf("16-to-1 incast, mean queue over 200-1000 us: HPCC %.1f KB (link use %.3f), DCQCN %.1f KB (%.3f)\n",
              hpcc.mean_queue_kb, hpcc.utilisation, dcqcn.mean_queue_kb, dcqcn.utilisation);
  EXPECT_TRUE(hpcc.all_done);
  EXPECT_TRUE(dcqcn.all_done);
  EXPECT_LT(hpcc.mean_queue_kb * 10, dcqcn.mean_queue_kb) << hpcc.mean_queue_kb << " KB vs " << dcqcn.mean_queue_kb;
  EXPECT_GT(hpcc.utilisation, 0.9);
}

}  // namespace rocesim
