// Reading scenarios: input that is wrong in ways a parser would let through is an error naming file, line, key.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "../test_util.hpp"
#include "rocesim/net/wire.hpp"
#include "rocesim/topology/topology.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
using namespace test;

InputError error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    make_sim(yaml, sets);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return InputError("", 0, "", "");
}

TEST(ScenarioInput, AKeyGivenTwiceIsAnErrorNamingBothLines) {
  InputError e = error_of("stop: 1ms\nseed: 1\nstop: 2ms\ntopology: {type: star, hosts: 2}\n");
  EXPECT_EQ(e.key(), "stop");
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.problem().find("lines 1 and 3"), std::string::npos) << e.what();
  e = error_of("topology: {type: star, hosts: 2}\nnic:\n  mtu: 1024\nnic:\n  cc: none\n");
  EXPECT_EQ(e.key(), "nic");
  e = error_of("topology: {type: star, hosts: 2, hosts: 3}\n");
  EXPECT_EQ(e.key(), "topology.hosts");
  // In an override's value too.
  e = error_of("topology: {type: star, hosts: 2}\n", {"workload=[{type: incast, size: 1KB, size: 2KB}]"});
  EXPECT_EQ(e.key(), "workload.0.size");
}

TEST(ScenarioInput, TextThatIsNotUtf8IsRefusedAndMessagesEscapeControlBytes) {
  // Invalid UTF-8 in a name used to run the whole simulation and then fail writing summary.json.
  InputError e = error_of("seed: 1\nname: \"ab\xff\xfe\"\ntopology: {type: star, hosts: 2}\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(e.problem().find("not UTF-8"), std::string::npos) << e.what();
  // A key holding an escape sequence is shown escaped: it cannot recolour the terminal.
  e = error_of("topology: {type: star, hosts: 2}\nswitch:\n  \"\x1b[31mred\": 1\n");
  EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("\\x1B[31mred"), std::string::npos) << e.what();
  // Valid UTF-8 passes through untouched; stray bytes are escaped one by one.
  EXPECT_EQ(printable("h\xc3\xa9llo \xe2\x82\xac"), "h\xc3\xa9llo \xe2\x82\xac");
  EXPECT_EQ(printable("a\xff"
                      "b\xc3"),
            "a\\xFFb\\xC3");
  EXPECT_EQ(invalid_utf8("\xed\xa0\x80"), 0u);  // a UTF-16 surrogate
  EXPECT_EQ(invalid_utf8("\xc0\xaf"), 0u);      // an overlong '/'
  EXPECT_EQ(invalid_utf8("ok \xf0\x9f\x98\x80"), std::string::npos);
}

TEST(ScenarioInput, ExplicitHeadroomBelowWhatTheLinksNeedIsWarnedAtLoad) {
  // A star of 100G, 1 us links with 1024 B frames: each port needs pfc_headroom(100G, 1us, ..) of headroom.
  const std::string base =
      "topology: {type: star, hosts: 3}\nnic: {mtu: 1024}\nswitch: {pfc: {priorities: [3], headroom: ";
  const auto warned = [&](const std::string& headroom) {
    auto sim = make_sim(base + headroom + "}}\n");
    for (const std::string& w : sim->warnings()) {
      if (w.find("switch.pfc.headroom") != std::string::npos) {
        EXPECT_NE(w.find("3 switch port(s)"), std::string::npos) << w;
        return true;
      }
    }
    return false;
  };
  const Bytes need = pfc_headroom(Rate::gbps(100), Time::us(1), Bytes(wire::roce_frame(1024, wire::kReth)),
                                  Time());  // switch.pfc.response_time defaults to 0
  EXPECT_TRUE(warned("0B"));
  EXPECT_TRUE(warned(to_string(Bytes(need.count() - 1))));
  EXPECT_FALSE(warned(to_string(need)));
  EXPECT_FALSE(warned("auto"));
}

TEST(ScenarioInput, IncastRoundsAfterTheStopAreNotMadeAndCountsAreBounded) {
  // 2^31 - 1 rounds a millisecond apart with a 200 us stop: one round starts before the stop; the rest never
  // would (the fuzzing audit's 7.4 GB).
  auto sim = make_sim(
      "stop: 200us\ntopology: {type: star, hosts: 4}\n"
      "workload: [{type: incast, receiver: 0, senders: 2, size: 1KB, repeat: 2147483647, interval: 1ms}]\n");
  EXPECT_EQ(sim->net().flows().size(), 2u);
  // 1 ms apart up to a 10 ms stop: rounds at 0, 1, .., 10 ms.
  sim = make_sim(
      "stop: 10ms\ntopology: {type: star, hosts: 4}\n"
      "workload: [{type: incast, receiver: 0, senders: 2, size: 1KB, repeat: 100, interval: 1ms}]\n");
  EXPECT_EQ(sim->net().flows().size(), 22u);
  // All at once: 2 x (2^31 - 1) flows is beyond any run: an error at the key.
  const InputError e = error_of(
      "stop: 200us\ntopology: {type: star, hosts: 4}\n"
      "workload: [{type: incast, receiver: 0, senders: 2, size: 1KB, repeat: 2147483647, interval: 0ns}]\n");
  EXPECT_EQ(e.key(), "workload.0.repeat");
  EXPECT_EQ(e.line(), 3);
  // Found by the fuzzer: a stop of 2^32 ms under a Poisson load asked for 4.7 x 10^8 flows (std::bad_alloc).
  const InputError p =
      error_of("stop: 4294967296ms\ntopology: {type: star, hosts: 128}\nworkload: [{type: poisson, load: 0.5}]\n");
  EXPECT_EQ(p.key(), "workload.0.load");
}

TEST(ScenarioInput, ARunEstimatedAboveTheMemoryLimitIsRefusedBeforeItIsBuilt) {
  // 10^5 incast flows at 2 KB each (the estimate's bound per flow) need about 0.23 GB with the fabric.
  const std::string yaml =
      "stop: 100s\ntopology: {type: star, hosts: 4}\n"
      "workload: [{type: incast, receiver: 0, senders: 2, size: 1KB, repeat: 50000, interval: 1ms}]\n";
  // The error a scenario gives under a memory limit (empty key: none).
  const auto key_refused = [](const std::string& text, double limit, std::string* problem = nullptr) {
    Scenario sc = parse_scenario(text, "t.yaml", ".", {});
    sc.memory_limit = limit;
    try {
      Simulation s(std::move(sc));
    } catch (const InputError& e) {
      if (problem) {
        *problem = std::to_string(e.line()) + ": " + e.problem();
      }
      return e.key();
    }
    return std::string();
  };
  std::string problem;
  EXPECT_EQ(key_refused(yaml, 0.2e9, &problem), "workload.0");
  EXPECT_EQ(problem.rfind("3: ", 0), 0u) << problem;  // the workload's line
  EXPECT_NE(problem.find("100000 flows"), std::string::npos) << problem;
  EXPECT_EQ(key_refused(yaml, 0.3e9), "");
  // The fabric alone is checked before it is built.
  EXPECT_EQ(key_refused("topology: {type: fat-tree, k: 16}\n", 1e6), "topology");
}

TEST(ScenarioInput, DirectoriesDevicesAndHugeCountsAreNotRead) {
  for (const char* path : {"/dev/zero", "/tmp"}) {
    try {
      load_scenario(path, {});
      ADD_FAILURE() << path;
    } catch (const InputError& e) {
      EXPECT_NE(e.problem().find(std::string(path) == "/tmp" ? "is a directory" : "is a device"), std::string::npos)
          << e.what();
    }
  }
  // An HPCC topology announcing 10^8 nodes fails on its first line instead of allocating them.
  std::istringstream topo("100000000 1 2\n");
  try {
    read_hpcc_topology(topo, "topology.txt");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "header");
    EXPECT_EQ(e.line(), 1);
  }
  // An HPCC flow starting at 1e308 s is outside the time rocesim holds (it used to wrap to a negative start).
  std::istringstream flows("1\n0 1 3 100 1000 1e308\n");
  try {
    read_hpcc_flows(flows, "flow.txt", {0, 1});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "start_time");
    EXPECT_EQ(e.line(), 2);
  }
}

TEST(ScenarioInput, HpccTopologiesFollowTheRulesOfYamlOnes) {
  // node_num switch_num link_num; the switch ids; links 'a b rate delay error_rate'.
  const auto error_of_topology = [](const std::string& text) {
    std::istringstream in(text);
    try {
      read_hpcc_topology(in, "topology.txt");
    } catch (const InputError& e) {
      return std::make_pair(e.line(), e.problem());
    }
    return std::make_pair(0, std::string());
  };
  EXPECT_EQ(error_of_topology("3 1 2\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n").first, 0);
  auto [line, problem] = error_of_topology("4 2 2\n2 2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n");
  EXPECT_EQ(line, 2);
  EXPECT_NE(problem.find("listed twice"), std::string::npos) << problem;
  std::tie(line, problem) = error_of_topology("4 2 2\n2 3\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n");
  EXPECT_EQ(line, 2);
  EXPECT_NE(problem.find("switch 3 has no link"), std::string::npos) << problem;
  std::tie(line, problem) = error_of_topology("3 1 2\n2\n0 2 1bps 1us 0\n1 2 100Gbps 1us 0\n");
  EXPECT_EQ(line, 3);
  EXPECT_NE(problem.find("outside 1Gbps..1600Gbps"), std::string::npos) << problem;
}

TEST(ScenarioInput, AnAliasInsideTheValueItNamesIsAnErrorNamingItsLine) {
  // It used to overflow the stack in the duplicate-key walk (a segmentation fault), in a file and through --set.
  InputError e = error_of("topology: {type: star, hosts: 2}\nx:\n  a: &loop [1, *loop]\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(e.problem().find("alias inside the value it names"), std::string::npos) << e.what();
  e = error_of("topology: {type: star, hosts: 2}\n", {"workload=&w [*w]"});
  EXPECT_NE(e.problem().find("alias inside the value it names"), std::string::npos) << e.what();
}

TEST(ScenarioInput, NestedAliasesThatExpandBeyondTheBoundAreRefusedQuickly) {
  // "Billion laughs": 12 levels of 10 aliases each would be 10^12 values to walk before any key is read.
  std::string y = "topology: {type: star, hosts: 2}\nbomb:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 12; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    y += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 10; ++k) {
      y += ", " + prev;
    }
    y += "]\n";
  }
  const InputError e = error_of(y);
  EXPECT_NE(e.problem().find("expands to more than"), std::string::npos) << e.what();
  EXPECT_EQ(e.key().rfind("bomb.", 0), 0u) << e.key();
  // A few aliases that stay small are ordinary YAML and load.
  EXPECT_NO_THROW(make_sim(
      "topology: {type: star, hosts: 2}\nnic: &n {mtu: 1024}\nworkload: [{type: incast, receiver: 0, senders: 1, "
      "size: 1KB}]\n"));
}

TEST(ScenarioInput, ASecondYamlDocumentIsAnErrorNotDropped) {
  const InputError e = error_of("topology: {type: star, hosts: 2}\n---\nstop: 1ms\n");
  EXPECT_EQ(e.line(), 2);  // the '---' that starts it
  EXPECT_NE(e.problem().find("second YAML document"), std::string::npos) << e.what();
  // A document marker before the only document is fine.
  EXPECT_NO_THROW(make_sim("---\ntopology: {type: star, hosts: 2}\n"));
}

TEST(ScenarioInput, AStrayCommaIsMalformedYamlNotAHang) {
  // yaml-cpp 0.7's LoadAll looped forever, allocating, on these (jbeder/yaml-cpp issue 1040).
  for (const std::string text : {",# x\nname: a\n", ",\n", "name: a\n,\n"}) {
    const InputError e = error_of(text);
    EXPECT_NE(e.problem().find("malformed YAML"), std::string::npos) << e.what();
  }
  EXPECT_EQ(error_of("seed: 1\n, x\n").line(), 2);
}

TEST(ScenarioInput, ADeadlockCheckPeriodThatCannotMoveTheClockIsRefused) {
  // detect_after 3ps: a period of 3ps / 4 = 0 re-armed at the same instant forever.
  const std::string star = "topology: {type: star, hosts: 2}\n";
  EXPECT_EQ(error_of(star, {"switch.pfc.deadlock.detect_after=3ps"}).key(), "switch.pfc.deadlock.detect_after");
  EXPECT_EQ(error_of(star, {"switch.pfc.deadlock.detect_after=3ns"}).key(), "switch.pfc.deadlock.detect_after");
  EXPECT_NO_THROW(make_sim(star, {"switch.pfc.deadlock.detect_after=4ns"}));
  EXPECT_NO_THROW(make_sim(star, {"switch.pfc.deadlock.detect_after=0ns"}));
}

TEST(ScenarioInput, AHostOrPriorityListedTwiceIsAnErrorNamingItsKey) {
  const std::string star = "topology: {type: star, hosts: 4}\n";
  // A poisson workload over hosts [0, 1, 1] used to spin forever looking for a destination other than the source.
  InputError e = error_of(star + "workload: [{type: poisson, load: 0.3, until: 10us, hosts: [0, 1, 1]}]\n");
  EXPECT_EQ(e.key(), "workload.0.hosts");
  EXPECT_NE(e.problem().find("listed twice"), std::string::npos) << e.what();
  // An all-to-all over [0, 1, 1] sent host1 -> host1 flows that "completed" through the switch.
  e = error_of(star + "workload: [{type: all-to-all, size: 1KB, hosts: [0, 1, 1]}]\n");
  EXPECT_EQ(e.key(), "workload.0.hosts");
  e = error_of(star + "switch: {pfc: {priorities: [3, 3]}}\n");
  EXPECT_EQ(e.key(), "switch.pfc.priorities");
  e = error_of(star + "workload: [{type: perftest, test: write_bw, pairs: '0:1, 0:1', sizes: [64B]}]\n");
  EXPECT_EQ(e.key(), "workload.0.pairs");
  EXPECT_NE(e.problem().find("given twice"), std::string::npos) << e.what();
}

TEST(ScenarioInput, AnIbCcaIndexFloorAboveItsCeilingIsRefused) {
  const InputError e = error_of("fabric: infiniband\ntopology: {type: star, hosts: 2}\n",
                                {"nic.cc.type=ib-cca", "nic.cc.ccti_min=100", "nic.cc.ccti_limit=50"});
  EXPECT_EQ(e.key(), "nic.cc.ccti_min");
}

TEST(ScenarioInput, AnErrorFromSetBlamesTheMostSpecificSetAndTheSetThatMadeAnUnknownKey) {
  const std::string star = "topology: {type: star, hosts: 2}\n";
  // Both --set cover nic.cc.eta; the one that gave it its value is to blame, not the first.
  InputError e = error_of(star, {"nic.cc=hpcc", "nic.cc.eta=0"});
  EXPECT_EQ(e.file(), "--set nic.cc.eta=0") << e.what();
  EXPECT_EQ(e.key(), "nic.cc.eta");
  // In either order.
  e = error_of(star, {"nic.cc.eta=0", "nic.cc.type=hpcc"});
  EXPECT_EQ(e.file(), "--set nic.cc.eta=0") << e.what();
  // An unknown key the --set's path created is the --set's, not the file's.
  e = error_of(star, {"a.b.c=1"});
  EXPECT_EQ(e.file(), "--set a.b.c=1") << e.what();
  EXPECT_EQ(e.key(), "a");
  EXPECT_NE(e.problem().find("unknown key"), std::string::npos) << e.what();
  // An unknown key in the file stays the file's, even when a --set writes beneath it.
  e = error_of(star + "a: {b: 2}\n", {"a.b=1"});
  EXPECT_EQ(e.file(), "test.yaml") << e.what();
  EXPECT_EQ(e.line(), 2);
}

}  // namespace
}  // namespace rocesim
