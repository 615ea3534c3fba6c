#include "rocesim/switch/watchdog.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {

WatchdogParams params(Time detect, Time restore, Time poll, const char* action = "drop") {
  WatchdogParams p;
  p.enabled = true;
  p.detect = detect;
  p.restore = restore;
  p.poll = poll;
  p.action = action;
  return p;
}

// A peer that pauses priority 3 of port 0 with a frame every 5 us from t = 5 us to 40 us (the last pause lasts
// to 45 us).
void peer(PauseState& ps, Time now) {
  for (int t = 5; t <= 42 && Time::us(t) <= now; t += 5) {
    if (ps.since[3] == Time() || ps.until[3] < Time::us(t)) {
      ps.since[3] = Time::us(t);
    }
    ps.set_until(3, Time::us(t + 5));
  }
  ps.xoff_rcvd[3] = 0;
  for (int t = 5; t <= 42 && Time::us(t) <= now; t += 5) {
    ++ps.xoff_rcvd[3];
  }
}

TEST(PfcWatchdog, StormStartsAfterDetectOfPausedPollsWithNewPausesAndEndsAfterRestoreWithout) {
  // Polls every 10 us, detect 30 us, restore 20 us. At 10 us the queue was not paused at the previous poll; from
  // 20 us every poll sees it paused twice in a row with new pause frames: storming since the 10 us poll, so storm
  // mode at 40 us. The last pause frame came at 40 us, before that poll; no poll after sees a new one, so storm
  // mode ends at the first poll restore after it: 60 us.
  PfcWatchdog wd(params(Time::us(30), Time::us(20), Time::us(10)), 1u << 3, 1);
  std::vector<PauseState> ps(1);
  std::vector<std::pair<int, bool>> changes;
  for (int t = 10; t <= 100; t += 10) {
    peer(ps[0], Time::us(t));
    for (const auto& c : wd.poll(Time::us(t), ps)) {
      changes.push_back({t, c.storm});
    }
  }
  EXPECT_EQ(changes, (std::vector<std::pair<int, bool>>{{40, true}, {60, false}}));
  ASSERT_EQ(wd.storms().size(), 1u);
  EXPECT_EQ(wd.storms()[0].start, Time::us(40));
  EXPECT_EQ(wd.storms()[0].end, Time::us(60));
}

TEST(PfcWatchdog, OneLongPauseWithoutNewFramesIsNoStorm) {
  PfcWatchdog wd(params(Time::us(30), Time::us(20), Time::us(10)), 1u << 3, 1);
  std::vector<PauseState> ps(1);
  ps[0].since[3] = Time::us(1);
  ps[0].set_until(3, Time::us(1000));
  ps[0].xoff_rcvd[3] = 1;
  for (int t = 10; t <= 200; t += 10) {
    EXPECT_TRUE(wd.poll(Time::us(t), ps).empty()) << t;
  }
}

const std::vector<std::string> kWatchdog = {"switch.pfc.watchdog.enabled=true",  "switch.pfc.watchdog.detect=400us",
                                            "switch.pfc.watchdog.restore=400us", "switch.pfc.watchdog.poll=200us",
                                            "nic.retransmit_timeout=1ms",        "stop=30ms"};

std::unique_ptr<Simulation> ring(std::vector<std::string> sets) {
  auto s = std::make_unique<Simulation>(
      load_scenario(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/deadlock-ring.yaml", sets));
  s->run();
  return s;
}

int64_t drops(Network& net, DropReason r) {
  return test::sum_ports(net, [r](const PortPrioCounters& c) { return c.drops[static_cast<int>(r)]; });
}

TEST(PfcWatchdog, DropActionBreaksTheRingDeadlockAtTheCostOfTheDropsItCounts) {
  auto sets = kWatchdog;
  sets.push_back("switch.pfc.deadlock.action=continue");
  auto s = ring(sets);
  EXPECT_EQ(test::unfinished(s->net()), 0);
  int64_t storm_drops = 0;
  size_t storms = 0;
  for (const auto& sw : s->net().switches()) {
    for (const Storm& st : sw->watchdog()->storms()) {
      storm_drops += st.dropped;
      ++storms;
      EXPECT_EQ(st.prio, 3);
      EXPECT_GE(st.end - st.start, Time::us(400));  // restore: no pause frame for that long
    }
  }
  EXPECT_GT(storms, 0u);
  EXPECT_GT(storm_drops, 0);
  EXPECT_EQ(drops(s->net(), DropReason::kWatchdog), storm_drops);
  EXPECT_EQ(test::all_drops(s->net()), storm_drops);  // no other drop
}

TEST(PfcWatchdog, ForwardActionIgnoresThePausesAndOverflowsTheNextHeadroom) {
  auto sets = kWatchdog;
  sets.push_back("switch.pfc.watchdog.action=forward");
  sets.push_back("switch.pfc.deadlock.action=continue");
  auto s = ring(sets);
  EXPECT_EQ(drops(s->net(), DropReason::kWatchdog), 0);
  EXPECT_GT(drops(s->net(), DropReason::kHeadroomOverflow), 0);
  EXPECT_EQ(test::unfinished(s->net()), 0);
}

TEST(PfcWatchdog, AlertActionOnlyReportsAndTheRingStaysDeadlocked) {
  auto sets = kWatchdog;
  sets.push_back("switch.pfc.watchdog.action=alert");
  auto s = ring(sets);
  EXPECT_EQ(s->deadlock()->deadlocks().size(), 1u);
  EXPECT_EQ(test::unfinished(s->net()), 5);
}

TEST(PfcWatchdog, BadTimesAreErrorsNamingTheKey) {
  const std::string yaml =
      "topology: {type: star, hosts: 2}\nswitch:\n  pfc:\n    watchdog: {enabled: true, detect: 100us, poll: 200us}\n";
  for (const auto& [set, key] : std::vector<std::pair<std::string, std::string>>{
           {"", "switch.pfc.watchdog.detect"},
           {"switch.pfc.watchdog.poll=0ns", "switch.pfc.watchdog.poll"},
           {"switch.pfc.watchdog.restore=-1us", "switch.pfc.watchdog.restore"}}) {
    try {
      test::make_sim(yaml, set.empty() ? std::vector<std::string>{} : std::vector<std::string>{set});
      ADD_FAILURE() << "no error for " << set;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << set;
    }
  }
}

}  // namespace
}  // namespace rocesim
