// A switch's link-level flow control on its own (switch/flow_control.hpp): PFC over the shared-buffer MMU and
// InfiniBand's credits, each driven through the calls the switch's pipeline makes, against hand-computed values.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "node_stub.hpp"
#include "rocesim/switch/credit_control.hpp"
#include "rocesim/switch/pfc.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

SwitchParams params(const std::string& yaml) {
  return SwitchParams::schema().parse(YAML::Load(yaml), ParseCtx{"t"}, "switch");
}

const LinkEnd kLink{nullptr, 0, Rate::gbps(100), Time::us(1)};

Packet* arrival(PacketPool& pool, int prio, int frame) {
  Packet* p = pool.acquire(PacketKind::kData);
  p->in_port = 0;
  p->priority = static_cast<uint8_t>(prio);
  p->frame = static_cast<uint16_t>(frame);
  return p;
}

struct PfcRig {
  Simulator sim{1};
  PacketPool pool;
  test::NodeStub owner{sim, pool, 1};
  // A static limit of 10,000 shared bytes per group, 2,000 reserved, 20,000 of headroom; 1,000-byte frames
  // (1,020 on the wire).
  SwitchParams p = params(
      "{buffer: 1MB, admission: {type: static, static_limit: 10000B, reserved: 2000B}, "
      "pfc: {priorities: [3], headroom: 20000B}}");
  PfcControl pfc{FlowControlHost{owner, sim, pool, owner.pauses, p, 1'020}};
  PfcRig() { pfc.finalize({kLink}, "sw", "t"); }
};

}  // namespace

TEST(PfcControl, LosslessClassWithinAFrameOfItsLimitOwesAnXoffCarryingTheQuantaAndAnXonOnceDrained) {
  PfcRig r;
  std::vector<Packet*> held;
  int signalled_at = 0;
  for (int i = 1; i <= 12 && !signalled_at; ++i) {
    held.push_back(arrival(r.pool, 3, 1'000));
    const Admit a = r.pfc.admit(held.back());
    ASSERT_TRUE(a.ok);
    signalled_at = a.signal ? i : 0;
  }
  // 2 reserved, then shared: after the 9th shared packet 9,000 + 1,020 > 10,000.
  EXPECT_EQ(signalled_at, 11);
  EXPECT_TRUE(r.pfc.pausing_upstream(0, 3));
  uint8_t owed = 1u << 3;
  Packet* xoff = r.pfc.frame(0, kLink, owed, false);
  ASSERT_NE(xoff, nullptr);
  EXPECT_EQ(owed, 0);
  EXPECT_EQ(xoff->kind, PacketKind::kPfc);
  EXPECT_EQ(xoff->ext->pfc_enable, 1u << 3);
  EXPECT_EQ(xoff->ext->pfc_quanta[3], 65535);
  r.pool.release(xoff);

  // XON once shared use is xon_offset (3,000) and a frame below the limit: at 6,000 shared bytes, 4 packets out.
  int resumed_after = 0;
  for (int i = 1; i <= 11 && !resumed_after; ++i) {
    resumed_after = r.pfc.release(held[static_cast<size_t>(11 - i)]) ? i : 0;
  }
  EXPECT_EQ(resumed_after, 4);
  EXPECT_FALSE(r.pfc.pausing_upstream(0, 3));
  owed = 1u << 3;
  Packet* xon = r.pfc.frame(0, kLink, owed, false);
  EXPECT_EQ(xon->ext->pfc_quanta[3], 0);
  r.pool.release(xon);
  PortPrioCounters c;
  r.pfc.count(0, 3, c);
  EXPECT_EQ(c.xoff_sent, 1);
  EXPECT_EQ(c.xon_sent, 1);
  EXPECT_EQ(c.rx_bytes, 11'000);
  EXPECT_EQ(r.pfc.pause_frames(0), 1);
  EXPECT_EQ(r.pfc.resume_frames(0), 1);
  for (Packet* p : held) {
    r.pool.release(p);
  }
}

TEST(PfcControl, AnXoffStillInForceIsRefreshedAtHalfItsPauseTime) {
  PfcRig r;
  for (int i = 0; i < 11; ++i) {
    ASSERT_TRUE(r.pfc.admit(arrival(r.pool, 3, 1'000)).ok);  // the packets stay queued (the pool keeps them)
  }
  uint8_t owed = 1u << 3;
  r.pool.release(r.pfc.frame(0, kLink, owed, false));
  // 65,535 quanta of 512 bit times at 100 Gb/s: 335.5392 us; the refresh comes at half of it.
  r.sim.run(Time::ps(167'769'600 - 1));
  EXPECT_TRUE(r.owner.timers.empty());
  r.sim.run(Time::ps(167'769'600));
  ASSERT_EQ(r.owner.timers.size(), 1u);
  const LinkSignal s = r.pfc.on_timer(r.owner.timers[0]);
  EXPECT_EQ(s.port, 0);
  EXPECT_EQ(s.classes, 1u << 3);
}

TEST(PfcControl, AReceivedPauseHoldsItsClassBackUntilItsQuantaRunOut) {
  PfcRig r;
  Packet* f = r.pool.acquire(PacketKind::kPfc);
  f->in_port = 0;
  PacketExt& x = r.pool.ext(f);
  x.pfc_enable = 1u << 3;
  x.pfc_quanta[3] = 1'000;  // 1,000 x 512 bit times at 100 Gb/s: 5.12 us
  r.pfc.on_frame(f, kLink, [](int) { return 0; });
  EXPECT_NE(r.pfc.may_block(0), 0);
  EXPECT_EQ(r.pfc.blocked(0, ClassView{}, Time()), 1u << 3);
  EXPECT_EQ(r.pfc.blocked(0, ClassView{}, Time::ps(5'120'000 - 1)), 1u << 3);
  r.sim.run(Time::us(10));
  EXPECT_EQ(r.owner.ended, 1u << 3);
  EXPECT_EQ(r.pfc.may_block(0), 0);
  EXPECT_EQ(r.owner.pauses[0].total[3], Time::ps(5'120'000));
}

namespace {
struct CreditRig {
  Simulator sim{1};
  PacketPool pool;
  test::NodeStub owner{sim, pool, 1};
  SwitchParams p = params("{}");
  CreditControl credits{FlowControlHost{owner, sim, pool, owner.pauses, p, 1'020}};
  // The port advertises 64 blocks (4,096 B) per VL and returns them 16 at a time; its peer advertises 32.
  CreditRig() {
    credits.finalize({kLink}, "sw", "t");
    credits.set_credits(0, CreditConfig{64, 16}, 32);
  }
};
}  // namespace

TEST(CreditControl, AClassWhoseHeadExceedsThePeersCreditsWaitsUntilACreditPacketRaisesTheLimit) {
  CreditRig r;
  r.credits.sent(0, 3, 1'024);  // 16 blocks each: the peer's 32 are used up
  r.credits.sent(0, 3, 1'024);
  ClassView v;
  v.head_bytes[3] = 1'024;
  v.nonempty = 1u << 3;
  EXPECT_EQ(r.credits.blocked(0, v, r.sim.now()), 1u << 3);
  EXPECT_FALSE(r.credits.may_mark(0, 3));  // a victim of congestion downstream does not mark (annex A10.2.1)
  Packet* fc = r.pool.acquire(PacketKind::kCredit);
  fc->in_port = 0;
  fc->priority = 3;
  fc->psn = 48;                                               // the peer freed 16 blocks
  r.sim.at(Time::us(2), &r.owner, kEvTxDone, txdone_arg(0));  // the credits come 2 us later
  r.sim.run(Time::us(2));
  EXPECT_EQ(r.credits.on_frame(fc, kLink, [](int) { return 1'024; }), 1u << 3);
  EXPECT_EQ(r.credits.blocked(0, v, r.sim.now()), 0);
  EXPECT_TRUE(r.credits.may_mark(0, 3));
  PortPrioCounters c;
  r.credits.count(0, 3, c);
  EXPECT_EQ(c.credit_wait, Time::us(2));
}

TEST(CreditControl, TheReceiverReturnsCreditsOnceABatchIsFreedAndAdvertisesFreedPlusItsBuffer) {
  CreditRig r;
  std::vector<Packet*> in;
  for (int i = 0; i < 4; ++i) {  // 4 x 16 blocks fill the 64
    in.push_back(arrival(r.pool, 3, 1'024));
    ASSERT_TRUE(r.credits.admit(in.back()).ok);
  }
  Packet* beyond = arrival(r.pool, 3, 1'024);
  const Admit a = r.credits.admit(beyond);
  EXPECT_FALSE(a.ok);
  EXPECT_EQ(a.drop, DropReason::kBufferFull);
  EXPECT_EQ(r.credits.overflows(), 1);
  EXPECT_TRUE(r.credits.release(in[0]));  // 16 blocks freed: a batch
  uint8_t owed = 1u << 3;
  Packet* f = r.credits.frame(0, kLink, owed, false);
  EXPECT_EQ(owed, 0);
  EXPECT_EQ(f->kind, PacketKind::kCredit);
  EXPECT_EQ(f->priority, 3);
  EXPECT_EQ(f->psn, 16u + 64u);
  for (Packet* p : {f, beyond, in[0], in[1], in[2], in[3]}) {
    r.pool.release(p);
  }
}

}  // namespace rocesim
