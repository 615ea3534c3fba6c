// InfiniBand congestion control (IBTA annex A10; Linux hfi1 process_becn, cca_timer_fn, set_link_ipg) against
// hand-computed CCT indices and rates, and on a fabric: it relieves the head-of-line blocking that credits cause.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct FakeTimers final : CcTimers {
  std::vector<std::pair<Time, uint32_t>> armed;
  void arm(CongestionControl*, Time at, uint32_t id) override { armed.push_back({at, id}); }
};

std::unique_ptr<CongestionControl> make(FakeTimers& t, const std::string& extra = "") {
  const auto alg = parse_cc(YAML::Load("{type: ib-cca" + extra + "}"), ParseCtx{"t"}, "nic.cc");
  EXPECT_EQ(alg->cnp_interval(), Time());  // a BECN for every FECN
  return alg->make(CcFlowInfo{Rate::gbps(100), Time::us(10), 1024}, t);
}

double gbps(const CongestionControl& cc) { return static_cast<double>(cc.rate.bps()) / 1e9; }

}  // namespace

TEST(IbCca, EachBecnRaisesTheIndexAndTheRateIsLineRateOverOnePlusTheDelay) {
  FakeTimers t;
  auto cc = make(t, ", ccti_increase: 2, ipd_step: 0.25");
  EXPECT_DOUBLE_EQ(gbps(*cc), 100);
  for (int i = 0; i < 3; ++i) {
    cc->on_cnp(Time::us(1 + i));
  }
  // CCTI 6: a delay of 6 x 0.25 = 1.5 packet times after each packet, 100 / 2.5 = 40 Gb/s.
  EXPECT_NEAR(gbps(*cc), 40, 1e-9);
  // One timer runs, started by the first BECN.
  ASSERT_EQ(t.armed.size(), 1u);
  EXPECT_EQ(t.armed[0].first, Time::us(1) + Time::ns(2048));
}

TEST(IbCca, TheIndexStopsAtItsLimit) {
  FakeTimers t;
  auto cc = make(t, ", ccti_increase: 5, ccti_limit: 12, ipd_step: 1");
  for (int i = 0; i < 10; ++i) {
    cc->on_cnp(Time::us(1));
  }
  EXPECT_NEAR(gbps(*cc), 100.0 / 13, 1e-9);
}

TEST(IbCca, TheTimerLowersTheIndexByOnePerPeriodDownToItsMinimum) {
  FakeTimers t;
  auto cc = make(t, ", ccti_min: 1, ccti_timer: 10us, ipd_step: 1");
  cc->on_cnp(Time::us(0));
  cc->on_cnp(Time::us(0));
  cc->on_cnp(Time::us(0));  // CCTI 3 (it starts at ccti_min 1, +3 = 4)
  EXPECT_NEAR(gbps(*cc), 100.0 / 5, 1e-9);
  std::vector<double> rates;
  for (size_t k = 0; k < t.armed.size() && k < 10; ++k) {
    cc->on_timer(t.armed[k].first, t.armed[k].second);
    rates.push_back(gbps(*cc));
  }
  // 4 -> 3 -> 2 -> 1, then the timer stops: three periods, each re-armed 10 us after the last.
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_NEAR(rates[0], 100.0 / 4, 1e-9);
  EXPECT_NEAR(rates[1], 100.0 / 3, 1e-9);
  EXPECT_NEAR(rates[2], 100.0 / 2, 1e-9);
  EXPECT_EQ(t.armed[2].first, Time::us(30));
  // A later BECN starts the timer again.
  cc->on_cnp(Time::us(100));
  ASSERT_EQ(t.armed.size(), 4u);
  EXPECT_EQ(t.armed[3].first, Time::us(110));
}

TEST(IbCca, BadParametersNameTheirKey) {
  for (const auto& [extra, key] :
       std::vector<std::pair<std::string, std::string>>{{", ccti_increase: 0", "nic.cc.ccti_increase"},
                                                        {", ccti_limit: 20000", "nic.cc.ccti_limit"},
                                                        {", ipd_step: -1", "nic.cc.ipd_step"},
                                                        {", ccti_timer: 0us", "nic.cc.ccti_timer"}}) {
    try {
      parse_cc(YAML::Load("{type: ib-cca" + extra + "}"), ParseCtx{"t"}, "nic.cc");
      ADD_FAILURE() << extra;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << extra;
    }
  }
}

// Hosts 1..8 write to host 0 over an InfiniBand star; host 1 also writes to idle host 9. Without congestion
// control host 1's link carries its incast packets at an eighth of host 0's link and the write to host 9 waits
// behind them for credits (head-of-line blocking). With it, FECN marks at host 0's switch port slow the incast at
// its sources, the switch's buffers empty, and the victim runs near its share of host 1's link.
TEST(IbCca, SlowingTheIncastAtItsSourcesFreesTheVictimBehindIt) {
  const auto victim = [](const std::string& cc) {
    auto s = test::make_sim(
        "seed: 1\nstop: 50ms\nfabric: infiniband\ntopology: {type: star, hosts: 10, host_link: "
        "{rate: 100Gbps, delay: 1us}}\nnic: {mtu: 1024, cc: " +
        cc + "}\n");
    s->net().add_flow(test::write_flow(1, 9, Bytes(2'000'000)));
    for (uint32_t h = 1; h <= 8; ++h) {
      s->net().add_flow(test::write_flow(h, 0, Bytes(2'000'000)));
    }
    s->run();
    const FlowRecord& f = s->net().flows()[0];
    EXPECT_TRUE(f.done) << cc;
    EXPECT_EQ(test::all_drops(s->net()), 0) << cc;
    Time last;
    for (const FlowRecord& g : s->net().flows()) {
      last = std::max(last, g.end);
    }
    return std::make_pair(static_cast<double>(f.spec.size.count()) * 8 / (f.end - f.posted).sec_f() / 1e9, last);
  };
  const auto [blocked, incast_alone] = victim("none");
  const auto [relieved, incast_cc] = victim("ib-cca");
  EXPECT_LT(blocked, 25);
  EXPECT_GT(relieved, 2 * blocked);
  EXPECT_GT(relieved, 45);  // at least about half of host 1's link, which it shares with its incast flow
  // The price: host 0's link idles a little while the senders' indices fall back (16 MB take at most a fifth
  // longer than with credits alone).
  EXPECT_LT(incast_cc.sec_f(), 1.2 * incast_alone.sec_f());
}

// Four hosts on leaf0 write to one on leaf1 over 400G fabric links: leaf1's port to the receiver is the root of
// the congestion; spine0's port to leaf1 fills as deep only because it waits for leaf1's credits (a victim), so
// it marks (annex A10.2.1) only in the moments it has credits.
TEST(IbCca, TheRootOfCongestionMarksFecnAndItsVictimsUpstreamHardlyDo) {
  auto s = test::make_sim(
      "seed: 1\nstop: 50ms\nfabric: infiniband\ntopology: {type: leaf-spine, leaves: 2, spines: 1, "
      "servers_per_leaf: 4, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}}\n"
      "nic: {mtu: 1024, cc: ib-cca}\n");
  for (uint32_t h = 0; h < 4; ++h) {
    s->net().add_flow(test::write_flow(h, 4, Bytes(2'000'000)));
  }
  s->run();
  std::map<std::string, std::pair<double, double>> port;  // "switch:peer" -> (max queue, marks) on priority 3
  for (const auto& r : test::csv_rows(ports_csv(s->net(), s->sim().now()))) {
    if (r.at("priority") == "3") {
      port[r.at("switch") + ":" + r.at("peer")] = {std::stod(r.at("max_queue_bytes")), std::stod(r.at("ecn_marked"))};
    }
  }
  const auto root = port.at("leaf1:host4");
  const auto victim = port.at("spine0:leaf1");
  EXPECT_GT(victim.first, 4 * 16'000.0);  // deep, far above fecn_threshold, like the root
  EXPECT_GT(root.first, 4 * 16'000.0);
  EXPECT_GT(root.second, 1000);
  EXPECT_LT(victim.second, 0.1 * root.second);
}

}  // namespace rocesim
