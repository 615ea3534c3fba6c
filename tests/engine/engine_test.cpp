#include "rocesim/engine/engine.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/hpcc_outputs.hpp"
#include "rocesim/analysis/timeseries.hpp"
#include "rocesim/analysis/trace.hpp"
#include "rocesim/io/capture.hpp"

namespace rocesim {
namespace {

const char* kIncast = R"(seed: 2
stop: 5ms
topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 4,
           host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {priorities: [3]}}
workload:
  - {type: incast, receiver: 0, senders: 7, size: 100KB}
)";

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets) {
  try {
    test::make_sim(yaml, sets);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Engine, ARunEndsAtTheFirstWindowBoundaryAfterItsLastMessageCompletes) {
  for (const char* parts : {"1", "3"}) {
    auto s = test::make_sim(kIncast, {std::string("engine.partitions=") + parts, "engine.threads=2"});
    s->run();
    Time last_end;
    for (const FlowRecord& f : s->net().flows()) {
      ASSERT_GT(f.end, Time());
      last_end = std::max(last_end, f.end);
    }
    const Time l = s->engine().cut().lookahead;  // 1 us + 84 B at 100 Gb/s
    EXPECT_EQ(l, Time::ps(1'006'720));
    const Time boundary = Time::ps((last_end.ps() / l.ps() + 1) * l.ps());
    EXPECT_GE(s->now(), last_end) << parts;
    EXPECT_LT(s->now(), boundary) << parts;  // the last event run before that boundary
  }
}

TEST(Engine, OnePartitionAndThreeRunTheSameEventsToTheSameEnd) {
  auto one = test::make_sim(kIncast, {"engine.partitions=1"});
  auto three = test::make_sim(kIncast, {"engine.partitions=3", "engine.threads=3"});
  one->run();
  three->run();
  EXPECT_EQ(three->engine().partitions(), 3u);
  EXPECT_GT(three->engine().crossings(), 0u);
  EXPECT_EQ(one->events(), three->events());
  EXPECT_EQ(one->now(), three->now());
  ASSERT_EQ(one->net().flows().size(), three->net().flows().size());
  for (size_t i = 0; i < one->net().flows().size(); ++i) {
    EXPECT_EQ(one->net().flows()[i].end, three->net().flows()[i].end) << "flow " << i;
  }
}

TEST(Engine, TheCriticalPathIsTheBusiestPartitionsEventsSummedOverWindows) {
  auto one = test::make_sim(kIncast, {"engine.partitions=1"});
  one->run();
  const EngineProfile single = one->engine().profile();
  EXPECT_EQ(single.critical_events, one->events());  // one partition: every event is on the path
  EXPECT_GT(single.windows, 10u);

  // The counts depend on the cut, not on the threads that ran it.
  auto on_one = test::make_sim(kIncast, {"engine.partitions=3", "engine.threads=1"});
  auto on_three = test::make_sim(kIncast, {"engine.partitions=3", "engine.threads=3"});
  on_one->run();
  on_three->run();
  const EngineProfile a = on_one->engine().profile();
  const EngineProfile b = on_three->engine().profile();
  EXPECT_EQ(a.critical_events, b.critical_events);
  EXPECT_EQ(a.windows, b.windows);
  ASSERT_EQ(a.parts.size(), 3u);
  uint64_t sum = 0;
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(a.parts[p].events, b.parts[p].events) << p;
    sum += a.parts[p].events;
  }
  EXPECT_EQ(sum, one->events());
  // No window can do better than an even share, nor worse than all of it in one partition.
  EXPECT_GE(a.critical_events * 3, sum);
  EXPECT_LT(a.critical_events, sum);
  // The busiest thread's path: all events on one thread, the partitions' path with a thread each.
  EXPECT_EQ(a.critical_thread_events, sum);
  EXPECT_EQ(b.critical_thread_events, b.critical_events);
  ASSERT_EQ(b.threads.size(), 3u);
  for (const EngineProfile::Thread& t : b.threads) {
    EXPECT_GT(t.busy_s, 0.0);
  }
}

TEST(Engine, ThreadCountsOutsideOneTo1024OrNotANumberAreRefusedNamingTheKey) {
  for (const char* bad : {"0", "-1", "1025", "two", "1.5", ""}) {
    const std::string e = error_of(kIncast, {std::string("engine.threads=") + bad});
    EXPECT_NE(e.find("engine.threads"), std::string::npos) << bad << ": " << e;
  }
  EXPECT_EQ(error_of(kIncast, {"engine.threads=auto"}), "");
}

TEST(Engine, MorePartitionsThanSwitchesAndServersAreRefusedNamingTheFileLineAndKey) {
  const std::string yaml = std::string(kIncast) + "engine:\n  partitions: 13\n";
  const std::string e = error_of(yaml, {});
  EXPECT_NE(e.find("test.yaml:9"), std::string::npos) << e;
  EXPECT_NE(e.find("engine.partitions"), std::string::npos) << e;
  EXPECT_NE(e.find("only 12"), std::string::npos) << e;  // 2 leaves, 2 spines, 8 servers
}

TEST(Engine, AnAssignedCutRunsTheSameEventsAsOnePartition) {
  const std::string yaml = std::string(kIncast) +
                           "engine:\n  assign: [leaf0 spine0 host0 host1 host2 host3, leaf1 spine1 host4 host5 host6 "
                           "host7]\n";
  auto one = test::make_sim(kIncast, {"engine.partitions=1"});
  auto two = test::make_sim(yaml, {"engine.threads=2"});
  ASSERT_EQ(two->engine().partitions(), 2u);
  EXPECT_EQ(two->engine().partition_of(0), 0u);  // host0
  EXPECT_EQ(two->engine().partition_of(7), 1u);  // host7
  one->run();
  two->run();
  EXPECT_GT(two->engine().crossings(), 0u);
  EXPECT_EQ(one->events(), two->events());
  ASSERT_EQ(one->net().flows().size(), two->net().flows().size());
  for (size_t i = 0; i < one->net().flows().size(); ++i) {
    EXPECT_EQ(one->net().flows()[i].end, two->net().flows()[i].end) << "flow " << i;
  }
}

TEST(Engine, AnAssignmentThatNamesAnUnknownNodeOrDisagreesWithPartitionsIsRefusedNamingTheFileLineAndKey) {
  std::string e = error_of(std::string(kIncast) +
                               "engine:\n  assign:\n    - leaf0 spine0 host0 host1 host2 host3\n"
                               "    - leaf1 spine1 host4 host5 host6 host9\n",
                           {});
  EXPECT_NE(e.find("test.yaml:11"), std::string::npos) << e;
  EXPECT_NE(e.find("engine.assign"), std::string::npos) << e;
  EXPECT_NE(e.find("partition 1: 'host9' names no switch"), std::string::npos) << e;
  e = error_of(std::string(kIncast) +
                   "engine:\n  partitions: 3\n  assign: [leaf* spine* host0 host1 host2 host3, "
                   "host4 host5 host6 host7]\n",
               {});
  EXPECT_NE(e.find("test.yaml:9"), std::string::npos) << e;
  EXPECT_NE(e.find("engine.partitions"), std::string::npos) << e;
  EXPECT_NE(e.find("engine.assign gives 2"), std::string::npos) << e;
}

TEST(Engine, LinksWithoutDelayKeepTheirEndsInOnePartitionAndSaySoOnce) {
  std::string yaml = kIncast;
  yaml.replace(yaml.find("fabric_link: {rate: 100Gbps, delay: 1us}"), 40, "fabric_link: {rate: 100Gbps, delay: 0us}");
  auto s = test::make_sim(yaml, {"engine.partitions=3"});
  ASSERT_EQ(s->notes().size(), 1u);
  EXPECT_NE(s->notes()[0].find("4 links without delay"), std::string::npos) << s->notes()[0];
  EXPECT_NE(s->notes()[0].find("9 switches and servers"), std::string::npos) << s->notes()[0];
  const uint32_t switches = s->engine().partition_of(8);  // leaf0
  for (uint32_t n = 9; n < 12; ++n) {
    EXPECT_EQ(s->engine().partition_of(n), switches) << n;
  }
  auto one = test::make_sim(yaml, {"engine.partitions=1"});
  s->run();
  one->run();
  EXPECT_EQ(one->events(), s->events());
  EXPECT_EQ(one->now(), s->now());
}

TEST(Engine, ACaptureATraceAndHpccFilesAreTheSameForEveryCut) {
  // Pauses and CNPs cross the cut between the leaves; host 0 is the incast's receiver, host 4 a sender on the
  // other leaf.
  const std::string yaml = std::string(kIncast) +
                           "capture: {hosts: [0, 4], ports: \"spine0:0, leaf1:4\"}\n"
                           "output: {trace: {nodes: all, interval: 2us},\n"
                           "         hpcc: {fct: fct.txt, pfc: pfc.txt, qlen: qlen.txt, qlen_interval: 1us}}\n";
  const std::vector<std::string> small_buffer = {"switch.buffer=300KB", "nic.cc=dcqcn", "switch.ecn.kmin=10KB",
                                                 "switch.ecn.kmax=50KB"};
  auto with = [&](std::vector<std::string> sets) {
    sets.insert(sets.end(), small_buffer.begin(), small_buffer.end());
    auto s = test::make_sim(yaml, sets);
    s->run();
    return s;
  };
  auto one = with({"engine.partitions=1"});
  ASSERT_NE(one->output<Capture>(), nullptr);
  ASSERT_NE(one->output<Trace>(), nullptr);
  ASSERT_NE(one->output<HpccOutputs>(), nullptr);
  EXPECT_GT(one->output<Capture>()->frames().size(), 100u);
  EXPECT_NE(one->output<Trace>()->json().find("PFC XOFF"), std::string::npos) << "no pause to order across the cut";
  EXPECT_NE(one->output<Trace>()->json().find("CNP"), std::string::npos);
  EXPECT_FALSE(one->output<HpccOutputs>()->pfc_txt().empty());
  for (const char* parts : {"2", "4"}) {
    auto cut = with({std::string("engine.partitions=") + parts, "engine.threads=2"});
    ASSERT_EQ(cut->engine().partitions(), static_cast<size_t>(std::stoi(parts)));
    EXPECT_TRUE(cut->notes().empty()) << cut->notes()[0];
    EXPECT_EQ(cut->output<Capture>()->pcapng(), one->output<Capture>()->pcapng()) << parts << " partitions";
    EXPECT_EQ(cut->output<Trace>()->json(), one->output<Trace>()->json()) << parts << " partitions";
    EXPECT_EQ(cut->output<HpccOutputs>()->pfc_txt(), one->output<HpccOutputs>()->pfc_txt()) << parts << " partitions";
    EXPECT_EQ(cut->output<HpccOutputs>()->qlen_txt(), one->output<HpccOutputs>()->qlen_txt()) << parts << " partitions";
  }
}

TEST(Engine, ATimeSeriesSampleSeesTheSameStateForEveryCut) {
  const std::string yaml =
      std::string(kIncast) + "output: {timeseries: {ports: \"leaf0:0, spine0:0\", flows: [0, 3], interval: 1us}}\n";
  auto one = test::make_sim(yaml, {"engine.partitions=1"});
  auto four = test::make_sim(yaml, {"engine.partitions=4", "engine.threads=2"});
  one->run();
  four->run();
  EXPECT_EQ(four->engine().partitions(), 4u);
  ASSERT_NE(one->output<TimeSeries>(), nullptr);
  EXPECT_GT(one->output<TimeSeries>()->csv().size(), 1000u);
  EXPECT_EQ(one->output<TimeSeries>()->csv(), four->output<TimeSeries>()->csv());
}

}  // namespace rocesim
