#include "rocesim/cluster/deadlock.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/check/dependency.hpp"

namespace rocesim {
namespace {

// Runs scenarios/NAME.yaml with `sets`.
std::unique_ptr<Simulation> run_example(const std::string& name, const std::vector<std::string>& sets) {
  auto s = std::make_unique<Simulation>(
      load_scenario(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml", sets));
  s->run();
  return s;
}

std::unique_ptr<Simulation> ring(const std::vector<std::string>& sets) { return run_example("deadlock-ring", sets); }

TEST(Deadlock, RingDeadlocksOnTheCycleCheckFindsAndTheRunStopsWhenSeen) {
  auto s = ring({"switch.pfc.deadlock.detect_after=100us"});
  const DeadlockDetector* d = s->deadlock();
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->deadlocks().size(), 1u);
  const DeadlockReport& r = d->deadlocks()[0];
  EXPECT_EQ(r.priority, 3);
  // The clockwise cycle of the static analysis (every flow goes two switches clockwise).
  const auto cycles = find_dependency_cycles(s->scenario().graph, 0).cycles;
  EXPECT_EQ(r.queues, cycles[0].queues);
  // Seen once no queue on it has sent for detect_after, looking every detect_after / 4.
  EXPECT_GE(r.detected_at - r.formed_at, Time::us(100));
  EXPECT_LE(r.detected_at - r.formed_at, Time::us(125));
  EXPECT_TRUE(d->stopped_run());
  EXPECT_EQ(s->sim().now(), r.detected_at);
  EXPECT_EQ(test::unfinished(s->net()), 5);
}

TEST(Deadlock, DeadlockedQueuesStaySilentAndAreReportedOnce) {
  auto stop = ring({"switch.pfc.deadlock.detect_after=100us"});
  auto go_on = ring({"switch.pfc.deadlock.detect_after=100us", "switch.pfc.deadlock.action=continue"});
  ASSERT_EQ(go_on->deadlock()->deadlocks().size(), 1u);
  EXPECT_FALSE(go_on->deadlock()->stopped_run());
  EXPECT_EQ(go_on->sim().now(), Time::ms(2));  // the scenario's stop
  // Nothing moved on the ring from the detection to the end: the same packets sent by every ring queue.
  for (size_t i = 0; i < stop->net().switches().size(); ++i) {
    const Switch& a = *stop->net().switches()[i];
    const Switch& b = *go_on->net().switches()[i];
    for (uint16_t p = 0; p < a.num_ports(); ++p) {
      EXPECT_EQ(a.sent_packets(p, 3), b.sent_packets(p, 3)) << a.name() << ":" << p;
    }
  }
  EXPECT_EQ(test::unfinished(go_on->net()), 5);
}

TEST(Deadlock, PausesOfAnIncastOnAClosAreNoDeadlock) {
  auto s = test::run_sim(
      "stop: 3ms\ntopology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 4}\n"
      "switch: {buffer: 1MB, pfc: {priorities: [3], deadlock: {detect_after: 20us}}}\nnic: {cc: none}\n"
      "workload: [{type: incast, receiver: 0, senders: 7, size: 1MB}]\n");
  EXPECT_GT(test::sum_ports(s->net(), [](const PortPrioCounters& c) { return c.xoff_sent; }), 0);
  EXPECT_TRUE(s->deadlock()->deadlocks().empty());
  EXPECT_EQ(test::unfinished(s->net()), 0);
}

// scenarios/bounce-deadlock.yaml: leaf0's uplink to spine0 fails under load; seeds 1 and 4 of 1..8 have leaf1
// converge after spine0 (routing.jitter), so that leaf0's traffic loops leaf1 -> spine0 -> leaf1 meanwhile.
std::unique_ptr<Simulation> bounce(const std::vector<std::string>& sets) {
  return run_example("bounce-deadlock", sets);
}

TEST(Deadlock, BounceAfterALinkFailureDeadlocksOnTheCycleCheckFindsWithOneFailure) {
  auto s = bounce({"seed=1"});
  ASSERT_EQ(s->deadlock()->deadlocks().size(), 1u);
  const DeadlockReport& r = s->deadlock()->deadlocks()[0];
  EXPECT_EQ(r.queues, (std::vector<std::string>{"leaf1:4", "spine0:1"}));
  EXPECT_GT(r.formed_at, Time::us(200));  // after the failure
  EXPECT_EQ(test::unfinished(s->net()), 4);
  // The static analysis: no cycle on the fabric as built; with leaf0:4-spine0:0 down, this one while routes converge.
  const DependencyReport d = find_dependency_cycles(s->scenario().graph, 1);
  bool found = false;
  for (const DependencyCycle& c : d.cycles) {
    EXPECT_FALSE(c.failed.empty());
    found |= c.queues == r.queues && c.failed == std::vector<std::string>{"leaf0:4-spine0:0"} && c.transient;
  }
  EXPECT_TRUE(found);
}

TEST(Deadlock, TheSameTrafficWithoutTheFailureRunsThrough) {
  auto s = bounce({"seed=1", "events=[]"});
  EXPECT_TRUE(s->deadlock()->deadlocks().empty());
  EXPECT_EQ(test::unfinished(s->net()), 0);
}

TEST(Deadlock, TaggerMovesBouncedPacketsOffThePriorityAndNoSeedDeadlocks) {
  int untagged_deadlocks = 0;
  for (int seed = 1; seed <= 8; ++seed) {
    const std::string sd = "seed=" + std::to_string(seed);
    const bool deadlocked = !bounce({sd})->deadlock()->deadlocks().empty();
    untagged_deadlocks += deadlocked;
    auto s = bounce({sd, "switch.pfc.tagger.priorities=[3,4]"});
    EXPECT_TRUE(s->deadlock()->deadlocks().empty()) << sd;
    EXPECT_EQ(test::unfinished(s->net()), 0) << sd;
    // NICs send on 3 only: priority 4 carries the packets that bounced at leaf1 (where the loop went), back up to
    // the spines, and never down to a host.
    const Switch& leaf1 = *s->net().switches()[1];
    ASSERT_EQ(leaf1.name(), "leaf1");
    if (deadlocked) {
      EXPECT_GT(leaf1.counters(4, 4).tx_packets, 0) << sd;
    }
    EXPECT_EQ(leaf1.counters(0, 4).tx_packets, 0) << sd;
  }
  EXPECT_EQ(untagged_deadlocks, 2);
  // `check` agrees: the tagged priorities' graph has no cycle after any one failure.
  const Scenario sc = load_scenario(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/bounce-deadlock.yaml", {});
  EXPECT_TRUE(find_dependency_cycles(sc.graph, 1, true).cycles.empty());
}

TEST(Deadlock, DetectorIsOffByDefaultAndRejectsANegativeTime) {
  EXPECT_EQ(test::make_sim("topology: {type: star, hosts: 2}\n")->deadlock(), nullptr);
  try {
    test::make_sim("topology: {type: star, hosts: 2}\nswitch: {pfc: {deadlock: {detect_after: -1us}}}\n");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "switch.pfc.deadlock.detect_after");
    EXPECT_EQ(e.line(), 2);
  }
}

}  // namespace
}  // namespace rocesim
