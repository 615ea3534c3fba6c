// The pause storm fault (events: pause_storm): a NIC that keeps its switch port paused.
#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {

// host0 writes to host2 for about 2 ms (which keeps the run going) while host1 storms; nothing else uses
// host1's port.
const char* kIdle = R"(stop: 3ms
topology: {type: leaf-spine, leaves: 1, spines: 1, servers_per_leaf: 3}
switch: {pfc: {priorities: [3]}}
events:
  - {at: 10us, type: pause_storm, nic: host1, priority: 3, until: 1ms}
)";

TEST(PauseStorm, FaultyNicSendsAnXoffEveryHalfPauseLifetimeUntilItStops) {
  auto s = test::make_sim(kIdle);
  s->net().add_flow(test::write_flow(0, 2, Bytes(25'000'000)));
  s->run();
  ASSERT_TRUE(s->net().flows()[0].done);
  // 65535 quanta at 100 Gb/s: 65535 x 64 B x 80 ps/B = 335.5392 us, refreshed every 167.7696 us: XOFFs at
  // 10 us + k x 167.7696 us for k = 0..5 (k = 6 would be after 1 ms).
  const Nic& faulty = s->net().nic(1);
  EXPECT_EQ(faulty.counters().pause_sent, 6);
  const auto [leaf, port] = s->net().attachment(1);
  const PauseState& ps = leaf->pause_state(port);
  EXPECT_EQ(ps.xoff_rcvd[3], 6);
  // Paused from the first XOFF's arrival (1 us of cable and 84 B of frame at 80 ps/B later) to the last one's
  // expiry: 849.85472 us + 335.5392 us.
  const Time first = Time::us(10) + Time::us(1) + Time::ps(84 * 80);
  const Time last = Time::us(10) + Time::ps(5 * 167'769'600) + Time::us(1) + Time::ps(84 * 80);
  EXPECT_EQ(ps.total[3], last + Time::ps(335'539'200) - first);
  EXPECT_EQ(ps.xoff_rcvd[0], 0);  // only the storm's priority
}

TEST(PauseStorm, BadFaultsNameTheirKey) {
  const std::string topo = "topology: {type: leaf-spine, leaves: 1, spines: 1, servers_per_leaf: 2}\n";
  for (const auto& [event, key] : std::vector<std::pair<std::string, std::string>>{
           {"{at: 1us, type: pause_storm, nic: host9}", "events.0.nic"},
           {"{at: 1us, type: pause_storm}", "events.0.nic"},
           {"{at: 1us, type: pause_storm, nic: host1, until: 1us}", "events.0.until"},
           {"{at: 1us, type: pause_storm, nic: host1, link: host1}", "events.0.link"},
           {"{at: 1us, type: link_down, link: host1, priority: 3}", "events.0.priority"},
           {"{at: 1us, type: pause_storm, nic: host1, priority: 8}", "events.0.priority"}}) {
    try {
      test::make_sim(topo + "events:\n  - " + event + "\n");
      ADD_FAILURE() << "no error for " << event;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << event;
      EXPECT_EQ(e.line(), 3) << event;
    }
  }
}

TEST(PauseStorm, OnAPriorityThatIsNotLosslessIsRefusedNamingThePriority) {
  // Switches act on PFC only for the priorities it is enabled on (IEEE 802.1Qbb): a storm on priority 0, or on
  // the default 3 where only 5 is lossless, would pause nothing.
  const std::string topo = "topology: {type: leaf-spine, leaves: 1, spines: 1, servers_per_leaf: 2}\n";
  for (const auto& [text, problem] : std::vector<std::pair<std::string, std::string>>{
           {"switch: {pfc: {priorities: [3]}}\nevents:\n  - {at: 1us, type: pause_storm, nic: host1, priority: 0}\n",
            "pause_storm on priority 0, which is not lossless (switch.pfc.priorities: [3])"},
           {"switch: {pfc: {priorities: [5]}}\nevents:\n  - {at: 1us, type: pause_storm, nic: host1}\n",
            "pause_storm on priority 3, which is not lossless (switch.pfc.priorities: [5])"},
           {"switch: {pfc: {priorities: []}}\nevents:\n  - {at: 1us, type: pause_storm, nic: host1}\n",
            "pause_storm on priority 3, which is not lossless (switch.pfc.priorities: [])"}}) {
    try {
      test::make_sim(topo + text);
      ADD_FAILURE() << "no error for " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "events.0.priority") << text;
      EXPECT_EQ(e.line(), 4) << text;
      EXPECT_EQ(e.problem().rfind(problem, 0), 0u) << e.what();
    }
  }
  // On a lossless priority it runs.
  EXPECT_NO_THROW(test::make_sim(
      topo + "switch: {pfc: {priorities: [5]}}\nevents:\n  - {at: 1us, type: pause_storm, nic: host1, priority: 5}\n"));
}

}  // namespace
}  // namespace rocesim
