#include "rocesim/engine/engine.hpp"

#include <gtest/gtest.h>

#include "../test_util.hpp"

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

TEST(Engine, ScenariosWithACaptureRunInOnePartitionAndSaySo) {
  auto s = test::make_sim(std::string(kIncast) + "capture: {hosts: [0]}\n", {"engine.partitions=3"});
  EXPECT_EQ(s->engine().partitions(), 1u);
  ASSERT_EQ(s->notes().size(), 1u);
  EXPECT_NE(s->notes()[0].find("capture"), std::string::npos) << s->notes()[0];
}

TEST(Engine, ATimeSeriesSampleSeesTheSameStateForEveryCut) {
  const std::string yaml =
      std::string(kIncast) + "output: {timeseries: {ports: \"leaf0:0, spine0:0\", flows: [0, 3], interval: 1us}}\n";
  auto one = test::make_sim(yaml, {"engine.partitions=1"});
  auto four = test::make_sim(yaml, {"engine.partitions=4", "engine.threads=2"});
  one->run();
  four->run();
  EXPECT_EQ(four->engine().partitions(), 4u);
  ASSERT_NE(one->timeseries(), nullptr);
  EXPECT_GT(one->timeseries()->csv().size(), 1000u);
  EXPECT_EQ(one->timeseries()->csv(), four->timeseries()->csv());
}

}  // namespace rocesim
