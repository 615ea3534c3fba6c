#include "rocesim/analysis/pause_spread.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {

// Four leaves of two hosts under two spines; every host writes 1 MB to every other (more than the 2 MB
// buffers hold for host0); host0 (on leaf0) pauses its leaf port for ever from 20 us.
const std::string kFabric = R"(seed: 2
stop: 3ms
topology: {type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 2, fabric_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 2MB, pfc: {priorities: [3]}}
nic: {cc: dcqcn}
workload: [{type: all-to-all, size: 1MB}]
)";
const std::string kStorm = "events: [{at: 20us, type: pause_storm, nic: host0}]\n";

TEST(PauseSpread, PausesFromAStormingNicReachEveryTierAndSlowFlowsThatNeverCrossedIt) {
  auto with = test::run_sim(kFabric + kStorm);
  auto without = test::run_sim(kFabric);
  const PauseSpread sp = pause_spread(with->net(), "host0", 3, with->sim().now());
  // Every tier: leaf0 (1 hop), the spines and leaf0's other NIC (2), the other leaves (3), their NICs (4).
  ASSERT_EQ(sp.by_hops.size(), 4u);
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(sp.by_hops[h].hops, h + 1);
    EXPECT_GE(sp.by_hops[h].ports, 1);
  }
  EXPECT_EQ(sp.max_hops, 4);
  // leaf0's port to host0 stays paused from the storm's first XOFF (20 us, plus 1 us of cable) to the end.
  const auto [leaf, port] = with->net().attachment(0);
  EXPECT_GT(paused_for(leaf->pause_state(port), 3, with->sim().now()), with->sim().now() - Time::us(22));
  const auto v = victim_flows(with->net(), without->net(), {0}, kVictimThreshold);
  EXPECT_GT(v.size(), 0u);
  for (const Victim& x : v) {
    const FlowRecord& f = with->net().flows()[x.id];
    EXPECT_NE(f.spec.src, 0u);
    EXPECT_NE(f.spec.dst, 0u);
    EXPECT_TRUE(x.fct == Time::max() || x.fct.ps() > x.baseline_fct.ps() * 105 / 100);
  }
  // The same run compared with itself has no victims.
  EXPECT_TRUE(victim_flows(without->net(), without->net(), {0}, kVictimThreshold).empty());
}

TEST(PauseSpread, WatchdogContainsTheStormSoFlowsAwayFromTheFaultyNicFinish) {
  const std::string wd =
      "switch: {buffer: 2MB, pfc: {priorities: [3], watchdog: {enabled: true, detect: 400us, restore: 400us, poll: "
      "200us}}}\n";
  std::string yaml = kFabric + kStorm;
  yaml.replace(yaml.find("switch:"), yaml.find('\n', yaml.find("switch:")) - yaml.find("switch:") + 1, wd);
  auto contained = test::run_sim(yaml, {"nic.retransmit_timeout=500us"});
  auto spread = test::run_sim(kFabric + kStorm, {"nic.retransmit_timeout=500us"});
  const auto innocent_done = [](Network& net) {
    int n = 0;
    for (const auto& f : net.flows()) {
      n += f.done && f.spec.src != 0 && f.spec.dst != 0;
    }
    return n;
  };
  EXPECT_EQ(innocent_done(contained->net()), 7 * 6);  // every flow between the other 7 hosts
  EXPECT_LT(innocent_done(spread->net()), 7 * 6);
}

}  // namespace
}  // namespace rocesim
