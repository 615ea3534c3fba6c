// A switch's egress stages (switch/egress_stage.hpp): a run builds only the stages its scenario enables, and each
// does its one job on the packets it is shown, against hand-computed values.
#include "rocesim/switch/egress_stage.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "node_stub.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

struct Rig {
  Simulator sim{1};
  PacketPool pool;
  test::NodeStub node{sim, pool, 2};
  SwitchParams p;
  std::vector<LinkEnd> links{LinkEnd{nullptr, 0, Rate::gbps(100), Time::us(1)},
                             LinkEnd{nullptr, 0, Rate::gbps(400), Time::us(1)}};
  std::vector<char> upward{0, 1};
  std::array<uint8_t, 64> dscp = parse_dscp_map("0:0, 26:3, 28:4, 48:6");
  std::string file = "t.yaml";
  explicit Rig(const std::string& yaml = "{}")
      : p(SwitchParams::schema().parse(YAML::Load(yaml), ParseCtx{"t"}, "switch")) {}
  EgressStageContext ctx(bool telemetry, bool faults, PfcWatchdog* wd = nullptr) {
    return {node, sim, pool, p, links, upward, dscp, telemetry, faults, wd, file};
  }
  Packet* data(int frame) {
    Packet* x = pool.acquire(PacketKind::kData);
    x->frame = static_cast<uint16_t>(frame);
    return x;
  }
};

}  // namespace

TEST(EgressStages, APlainRunBuildsNoneAndEachFeatureOnlyItsOwn) {
  Rig r;
  EXPECT_TRUE(make_egress_stages(r.ctx(false, false)).empty());
  const auto tele = make_egress_stages(r.ctx(true, false));
  ASSERT_EQ(tele.size(), 1u);
  EXPECT_EQ(tele[0]->hooks(), EgressStage::kLeave);
  const auto faults = make_egress_stages(r.ctx(false, true));
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0]->hooks(), EgressStage::kRoute);
}

TEST(EgressStages, IntStampCarriesThePortsBytesSentItsQueueAndItsRate) {
  Rig r;
  auto stages = make_egress_stages(r.ctx(true, false));
  EgressStage& s = *stages.at(0);
  Packet* a = r.data(1'000);
  Packet* b = r.data(1'500);
  Packet* lost = r.data(500);
  s.on_leave(lost, 1, 2'500, false);  // dropped from the queue: not sent, not stamped
  EXPECT_EQ(lost->int_hops(), 0);
  s.on_leave(a, 1, 1'500, true);
  ASSERT_EQ(a->int_hops(), 1);
  EXPECT_EQ(a->ext->telemetry[0].tx_bytes, 1'000u);
  EXPECT_EQ(a->ext->telemetry[0].qlen, 1'500u);  // what its port still queues (b)
  EXPECT_EQ(a->ext->telemetry[0].rate_mbps, 400'000u);
  s.on_leave(b, 1, 0, true);
  EXPECT_EQ(b->ext->telemetry[0].tx_bytes, 2'500u);
  EXPECT_EQ(b->ext->telemetry[0].qlen, 0u);
  r.pool.release(a);
  r.pool.release(b);
  r.pool.release(lost);
}

TEST(EgressStages, TaggerMovesOnlyABounceToTheNextPriorityAndRewritesItsDscp) {
  Rig r("{pfc: {priorities: [3, 4], tagger: {priorities: [3, 4], lossy: 0}}}");
  r.upward = {1, 1};
  auto stages = make_egress_stages(r.ctx(false, false));
  ASSERT_EQ(stages.size(), 1u);
  Packet* p = r.data(1'000);
  p->in_port = 0;  // from a higher level, leaving toward one: a bounce
  int c = 3;
  EXPECT_FALSE(stages[0]->on_route(p, 1, c));
  EXPECT_EQ(c, 4);
  EXPECT_EQ(p->dscp, 28);
  c = 4;  // the last of the ladder goes to the lossy priority
  EXPECT_FALSE(stages[0]->on_route(p, 1, c));
  EXPECT_EQ(c, 0);
  r.upward = {0, 1};
  auto up_only = make_egress_stages(r.ctx(false, false));
  c = 3;
  EXPECT_FALSE(up_only[0]->on_route(p, 1, c));  // arrived from below: not a bounce
  EXPECT_EQ(c, 3);
  r.pool.release(p);
}

TEST(EgressStages, TheWatchdogRefusesByTheClassTaggerMovedThePacketTo) {
  Rig r(
      "{pfc: {priorities: [3, 4], tagger: {priorities: [3, 4], lossy: 0},"
      " watchdog: {enabled: true, detect: 1ms, restore: 1ms, poll: 1ms, action: drop}}}");
  r.upward = {1, 1};
  // Port 1's class 4 storms: paused throughout, with a new pause frame between every two polls.
  PfcWatchdog wd(r.p.pfc.watchdog, r.p.pfc.lossless(), 2);
  std::vector<PauseState> pauses(2);
  pauses[1].set_until(4, Time::ms(100));
  bool storming = false;
  for (int i = 1; i <= 5 && !storming; ++i) {
    ++pauses[1].xoff_rcvd[4];
    storming = !wd.poll(Time::ms(i), pauses).empty();
  }
  ASSERT_TRUE(storming);
  auto stages = make_egress_stages(r.ctx(false, false, &wd));
  ASSERT_EQ(stages.size(), 2u);  // Tagger, then the watchdog
  Packet* p = r.data(1'000);
  p->in_port = 0;
  int c = 3;
  std::optional<DropReason> why;
  for (const auto& s : stages) {
    why = why ? why : s->on_route(p, 1, c);
  }
  EXPECT_EQ(c, 4);
  EXPECT_EQ(why, DropReason::kWatchdog);
  EXPECT_EQ(wd.storms().at(0).dropped, 1);
  r.pool.release(p);
}

TEST(EgressStages, FaultRefusalDropsWhatHasNoRouteOrGoesToADeadLink) {
  Rig r;
  r.node.enable_faults({{Time::us(1), Rate::gbps(100)}, {Time::us(1), Rate::gbps(400)}});
  auto stages = make_egress_stages(r.ctx(false, true));
  Packet* p = r.data(1'000);
  int c = 3;
  EXPECT_EQ(stages[0]->on_route(p, RouteTable::kNoRoute, c), DropReason::kNoRoute);
  EXPECT_FALSE(stages[0]->on_route(p, 1, c));
  r.sim.at(Time(), &r.node, kEvLinkDown, 1);
  r.sim.run(Time::ns(1));
  EXPECT_EQ(stages[0]->on_route(p, 1, c), DropReason::kLinkDown);
  r.pool.release(p);
}

}  // namespace rocesim
