// The switch's buffer accounting on its own: reserve, shared pool up to the admission limit, PFC headroom, and
// the XOFF and XON decisions, against hand-computed byte counts.
#include "rocesim/switch/mmu.hpp"

#include <gtest/gtest.h>

#include "rocesim/switch/ecn.hpp"
#include "rocesim/switch/scheduler.hpp"

namespace rocesim {
namespace {
// A static shared limit of 10,000 B per group, 2,000 B reserved, XON 3,000 B below the limit, 1,000-byte frames.
Mmu make_mmu(int64_t buffer = 100'000) {
  BufferParams bp;
  bp.type = "static";
  bp.static_limit = Bytes(10'000);
  bp.reserved = Bytes(2'000);
  Mmu m(buffer, 2'000, 3'000, 1'000, make_buffer_admission(bp));
  m.set_shared_pool(50'000);
  return m;
}
}  // namespace

TEST(Mmu, LosslessGroupFillsReserveThenSharedThenHeadroomAndPausesAtTheLimit) {
  Mmu m = make_mmu();
  MmuGroup g;
  EXPECT_EQ(m.admit(g, 1'000, true, 3'000).charge, Mmu::kMin);
  EXPECT_EQ(m.admit(g, 1'000, true, 3'000).charge, Mmu::kMin);
  // Shared: no XOFF while one more frame still fits under the limit (9,000 + 1,000 <= 10,000).
  for (int i = 1; i <= 9; ++i) {
    const Mmu::Admission a = m.admit(g, 1'000, true, 3'000);
    EXPECT_EQ(a.charge, Mmu::kShared);
    EXPECT_FALSE(a.xoff) << i;
  }
  const Mmu::Admission tenth = m.admit(g, 1'000, true, 3'000);  // shared 10,000: the next frame would not fit
  EXPECT_EQ(tenth.charge, Mmu::kShared);
  EXPECT_TRUE(tenth.xoff);
  EXPECT_TRUE(g.xoff);
  // Beyond the limit: headroom, 3,000 B of it; the fourth frame overflows.
  for (int i = 0; i < 3; ++i) {
    const Mmu::Admission a = m.admit(g, 1'000, true, 3'000);
    EXPECT_EQ(a.charge, Mmu::kHeadroom);
    EXPECT_FALSE(a.xoff);  // paused already
  }
  const Mmu::Admission over = m.admit(g, 1'000, true, 3'000);
  EXPECT_FALSE(over.admitted);
  EXPECT_EQ(over.drop, DropReason::kHeadroomOverflow);
  EXPECT_EQ(m.used(), 15'000);
  EXPECT_EQ(g.min_used, 2'000);
  EXPECT_EQ(g.shared_used, 10'000);
  EXPECT_EQ(g.hdrm_used, 3'000);
}

TEST(Mmu, PausedGroupResumesOnceHeadroomIsEmptyAndSharedUseIsXonOffsetBelowTheLimit) {
  Mmu m = make_mmu();
  MmuGroup g;
  std::vector<Mmu::Charge> held;
  for (int i = 0; i < 15; ++i) {
    held.push_back(m.admit(g, 1'000, true, 3'000).charge);
  }
  ASSERT_TRUE(g.xoff);
  // Headroom drains first (the newest packets): no XON while shared use is 10,000.
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(m.release(g, 1'000, held.back()));
    held.pop_back();
  }
  // XON when shared use + xon_offset + a frame <= limit: at 6,000 B, after four more leave.
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(m.release(g, 1'000, Mmu::kShared)) << i;
  }
  EXPECT_TRUE(m.release(g, 1'000, Mmu::kShared));
  EXPECT_EQ(g.shared_used, 6'000);
  EXPECT_FALSE(g.xoff);
}

TEST(Mmu, LossyGroupIsDroppedAtTheSharedLimitAndNeverPauses) {
  Mmu m = make_mmu();
  MmuGroup g;
  for (int i = 0; i < 12; ++i) {  // 2 reserved + 10 shared
    const Mmu::Admission a = m.admit(g, 1'000, false, 3'000);
    EXPECT_TRUE(a.admitted);
    EXPECT_FALSE(a.xoff);
  }
  const Mmu::Admission a = m.admit(g, 1'000, false, 3'000);
  EXPECT_FALSE(a.admitted);
  EXPECT_EQ(a.drop, DropReason::kSharedLimit);
  EXPECT_FALSE(g.xoff);
}

TEST(Mmu, NothingIsAdmittedBeyondTheWholeBuffer) {
  Mmu m = make_mmu(2'500);
  MmuGroup a, b;
  EXPECT_TRUE(m.admit(a, 1'000, true, 3'000).admitted);
  EXPECT_TRUE(m.admit(b, 1'000, true, 3'000).admitted);
  const Mmu::Admission full = m.admit(a, 1'000, true, 3'000);
  EXPECT_FALSE(full.admitted);
  EXPECT_EQ(full.drop, DropReason::kBufferFull);
  m.release(b, 1'000, Mmu::kMin);
  EXPECT_TRUE(m.admit(a, 1'000, true, 3'000).admitted);
}

TEST(Mmu, DynamicThresholdLimitsAGroupToAlphaTimesTheFreeSharedPool) {
  BufferParams bp;
  bp.type = "dynamic";
  bp.alpha = 1.0;
  bp.reserved = Bytes(0);
  Mmu m(100'000, 0, 0, 1'000, make_buffer_admission(bp));
  m.set_shared_pool(20'000);
  MmuGroup g;
  // Alone, a group with alpha 1 can hold x = 1 x (pool - x): half the pool, 10,000 B.
  int admitted = 0;
  while (m.admit(g, 1'000, false, 0).admitted) {
    ++admitted;
  }
  EXPECT_EQ(admitted, 10);
}

TEST(Mmu, APortsLimitScaleMultipliesItsDynamicThreshold) {
  // alpha 1/8 for the switch, 1/2 on a group scaled by 4 (admission.alpha_by_rate). Alone in a 90,000 B pool a
  // group can hold x = alpha (pool - x): 10,000 B at 1/8, 30,000 B at 1/2.
  BufferParams bp;
  bp.type = "dynamic";
  bp.alpha = 0.125;
  bp.reserved = Bytes(0);
  for (const auto& [scale, expect] : {std::pair{1.0f, 10}, std::pair{4.0f, 30}}) {
    Mmu m(1'000'000, 0, 0, 1'000, make_buffer_admission(bp));
    m.set_shared_pool(90'000);
    MmuGroup g;
    g.limit_scale = scale;
    int admitted = 0;
    while (m.admit(g, 1'000, false, 0).admitted) {
      ++admitted;
    }
    EXPECT_EQ(admitted, expect) << scale;
  }
}

}  // namespace rocesim

namespace rocesim {
TEST(SwitchRegistries, AdmissionEcnAndSchedulerAreSelectedByRegisteredName) {
  EXPECT_EQ(buffer_admission_registry().names(), (std::vector<std::string>{"dynamic", "static"}));
  EXPECT_EQ(ecn_registry().names(), (std::vector<std::string>{"none", "red"}));
  EXPECT_EQ(scheduler_registry().names(), (std::vector<std::string>{"ets"}));
  EcnParams none;
  none.type = "none";
  EXPECT_EQ(make_ecn_marker(none), nullptr);  // no marking at all
  BufferParams st;
  st.type = "static";
  st.static_limit = Bytes(4'000);
  EXPECT_EQ(make_buffer_admission(st)->shared_limit(1'000'000), 4'000);
}
}  // namespace rocesim

#include "../test_util.hpp"

namespace rocesim {
namespace {

// A leaf-spine with 100G, 1 us host links and 400G, 1 us fabric links.
const std::string kLeafSpine =
    "topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2, host_link: {rate: 100Gbps, delay: 1us}, "
    "fabric_link: {rate: 400Gbps, delay: 1us}}\nworkload: [{type: incast, receiver: 0, senders: 1, size: 10KB}]\n";

TEST(SwitchHeadroom, HpccNs3HeadroomIsThreeTimesRateTimesDelayPerPort) {
  // The HPCC simulator's third.cc: rate x delay / 8 x 3: 100 Gb/s x 1 us = 12,500 B, x 3 = 37,500 B; 400G: 150,000 B.
  auto s = test::make_sim(kLeafSpine, {"switch.pfc.headroom=hpcc-ns3"});
  const Switch& leaf = *s->net().switches()[0];
  for (uint16_t p = 0; p < leaf.num_ports(); ++p) {
    const int64_t want = leaf.link(p).rate.bps() == 400'000'000'000 ? 150'000 : 37'500;
    EXPECT_EQ(leaf.headroom(p).count(), want) << p;
  }
}

TEST(SwitchHeadroom, AlphaByRateOnlyAppliesToDynamicAdmission) {
  EXPECT_NO_THROW(test::make_sim(kLeafSpine, {"switch.admission.alpha_by_rate=400Gbps 0.5"}));
  EXPECT_THROW(
      test::make_sim(kLeafSpine, {"switch.admission.type=static", "switch.admission.alpha_by_rate=400Gbps 0.5"}),
      InputError);
  EXPECT_THROW(test::make_sim(kLeafSpine, {"switch.admission.alpha_by_rate=400Gbps lots"}), InputError);
}

}  // namespace
}  // namespace rocesim
