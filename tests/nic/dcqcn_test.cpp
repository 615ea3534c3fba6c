// DCQCN reaction point against hand-computed values (Zhu et al., SIGCOMM 2015;
// HPCC rdma-hw.cc; NVIDIA DOCA "DCQCN CC Parameters").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct FakeTimers final : CcTimers {
  std::vector<std::pair<Time, uint32_t>> armed;
  void arm(CongestionControl*, Time at, uint32_t id) override { armed.push_back({at, id}); }
};

std::unique_ptr<CongestionControl> make(const std::string& preset, FakeTimers& t, const std::string& extra = "") {
  const auto alg = parse_cc(YAML::Load("{type: " + preset + extra + "}"), ParseCtx{"t"}, "nic.cc");
  return alg->make(CcFlowInfo{Rate::gbps(100), Time::us(10), 1000}, t);
}

// Fires the most recently armed increase timer.
void fire_increase(CongestionControl& cc, FakeTimers& t) {
  const auto [at, id] = t.armed.back();
  cc.on_timer(at, id);
}

double gbps(const CongestionControl& cc) { return static_cast<double>(cc.rate.bps()) / 1e9; }

}  // namespace

TEST(Dcqcn, FirstCnpCutsTheRateByHalfOfInitialAlpha) {
  // NVIDIA: initial_alpha_value 1023/1024, so R_C = 100G x (1 - 1023/2048) = 50.048828125 Gb/s.
  FakeTimers t;
  auto cc = make("dcqcn", t);
  EXPECT_EQ(cc->rate, Rate::gbps(100));
  cc->on_cnp(Time::us(10));
  EXPECT_NEAR(gbps(*cc), 50.048828125, 1e-6);
}

TEST(Dcqcn, AlphaDecaysByOneMinusGPerQuietPeriod) {
  // After the first CNP at t = 10 us, 100 quiet alpha periods (1 us each) pass before a second CNP at 110 us:
  // alpha = 1023/1024 x (1 - 5/1024)^100. The second cut keeps R_T (no increase yet, clamp off) and gives
  // R_C = 50.048828125G x (1 - alpha/2).
  FakeTimers t;
  auto cc = make("dcqcn", t);
  cc->on_cnp(Time::us(10));
  cc->on_cnp(Time::us(110));
  const double alpha = 1023.0 / 1024 * std::pow(1 - 5.0 / 1024, 100);
  EXPECT_NEAR(gbps(*cc), 50.048828125 * (1 - alpha / 2), 1e-6);
}

TEST(Dcqcn, CutsAreRateLimitedByTheMonitorPeriod) {
  // Two CNPs 1 us apart: the second is acted on only when the 4 us monitor period ends.
  FakeTimers t;
  auto cc = make("dcqcn", t);
  cc->on_cnp(Time::us(10));
  const double after_first = gbps(*cc);
  cc->on_cnp(Time::us(11));
  EXPECT_DOUBLE_EQ(gbps(*cc), after_first);
  ASSERT_FALSE(t.armed.empty());
  const auto [at, id] = t.armed.back();
  EXPECT_EQ(at, Time::us(14));
  cc->on_timer(at, id);
  EXPECT_LT(gbps(*cc), after_first);
}

TEST(Dcqcn, CutOnPeriodEndWaitsForTheEndOfTheWindowCountedFromTheFirstCnp) {
  // The HPCC simulator's CheckRateDecreaseMlx: the first CNP (t = 10 us) sets alpha = 1 but cuts only at 14 us;
  // a CNP at 21 us falls in the window [18, 22) us and cuts at 22 us, not 4 us after the previous cut.
  FakeTimers t;
  auto cc = make("dcqcn", t, ", cut_on_period_end: true, initial_alpha: 1");
  cc->on_cnp(Time::us(10));
  EXPECT_EQ(cc->rate, Rate::gbps(100));
  ASSERT_EQ(t.armed.size(), 1u);
  EXPECT_EQ(t.armed.back().first, Time::us(14));
  cc->on_timer(t.armed.back().first, t.armed.back().second);
  // By then alpha has decayed over four 1 us update periods, as there (the cut is scheduled 1 ns after them).
  EXPECT_NEAR(gbps(*cc), 100 * (1 - std::pow(1 - 5.0 / 1024, 4) / 2), 1e-6);
  cc->on_cnp(Time::us(21));
  const auto cut = std::find_if(t.armed.rbegin(), t.armed.rend(), [](const auto& a) { return a.second == 1; });
  ASSERT_NE(cut, t.armed.rend());
  EXPECT_EQ(cut->first, Time::us(22));
}

TEST(Dcqcn, NvidiaRecoveryHalvesTheGapToLineRatePerTimerEvent) {
  // F = 1 (rpg_threshold): the first timer event is fast recovery, R_C = (R_T + R_C)/2 with R_T still 100G
  // (clamp_tgt_rate off); the second is additive, R_T = min(100G + 5M, 100G), again halving the gap.
  FakeTimers t;
  auto cc = make("dcqcn", t);
  cc->on_cnp(Time::us(10));
  const double r0 = 50.048828125;
  fire_increase(*cc, t);
  EXPECT_NEAR(gbps(*cc), (100 + r0) / 2, 1e-6);
  EXPECT_EQ(t.armed.back().first, Time::us(610));  // next increase one rpg_time_reset (300 us) later
  fire_increase(*cc, t);
  EXPECT_NEAR(gbps(*cc), (100 + (100 + r0) / 2) / 2, 1e-6);
}

TEST(Dcqcn, PaperPresetFastRecoveryHalvesTheGapFiveTimes) {
  // Paper: initial alpha 1, so the cut halves the rate to 50G; with clamping the target R_T is the rate before
  // the cut (100G). Each of F = 5 fast-recovery steps sets R_C = (R_T + R_C)/2.
  FakeTimers t;
  auto cc = make("dcqcn-paper", t);
  cc->on_cnp(Time::us(100));
  EXPECT_NEAR(gbps(*cc), 50.0, 1e-9);
  double expect = 50.0;
  for (int i = 0; i < 5; ++i) {
    fire_increase(*cc, t);
    expect = (100 + expect) / 2;
    EXPECT_NEAR(gbps(*cc), expect, 1e-6) << "step " << i;
  }
  // Then additive increase: R_T would pass line rate, so it stays at 100G and R_C halves the gap again.
  fire_increase(*cc, t);
  EXPECT_NEAR(gbps(*cc), (100 + expect) / 2, 1e-6);
}

TEST(Dcqcn, ByteCounterAlsoDrivesIncrease) {
  // 32767 B (rpg_byte_reset) sent after a cut counts as one increase event.
  FakeTimers t;
  auto cc = make("dcqcn", t);
  cc->on_cnp(Time::us(10));
  const double r0 = gbps(*cc);
  cc->on_sent(Time::us(11), 32766);
  EXPECT_DOUBLE_EQ(gbps(*cc), r0);
  cc->on_sent(Time::us(12), 1);
  EXPECT_NEAR(gbps(*cc), (100 + r0) / 2, 1e-6);
}

TEST(Dcqcn, MinRateBoundsTheCut) {
  FakeTimers t;
  auto cc = make("dcqcn", t, ", min_rate: 60Gbps");
  cc->on_cnp(Time::us(10));
  EXPECT_NEAR(gbps(*cc), 60.0, 1e-9);
}

}  // namespace rocesim
