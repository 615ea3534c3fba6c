#include "rocesim/core/params.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rocesim/io/scenario.hpp"
#include "rocesim/run/simulation.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {

namespace {
const char* kMinimal = R"(seed: 3
stop: 1ms
topology: {type: star, hosts: 4}
)";

InputError parse_error(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    Simulation s(parse_scenario(yaml, "bad.yaml", ".", sets));
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return InputError("", 0, "", "");
}
}  // namespace

TEST(Params, DefaultsComeFromTheDeclaration) {
  const Scenario sc = parse_scenario(kMinimal, "t.yaml", ".", {});
  EXPECT_EQ(sc.sw.buffer, Bytes(16'000'000));
  EXPECT_EQ(sc.sw.ecn.kmin, Bytes(150'000));
  EXPECT_EQ(sc.sw.ecn.kmax, Bytes(1'500'000));
  EXPECT_EQ(sc.nic.mtu, 4096);
  EXPECT_EQ(sc.top.stop, Time::ms(1));
}

TEST(Params, UnknownKeySuggestsTheClosestOne) {
  const InputError e = parse_error(std::string(kMinimal) + "switch:\n  ecn: {kmni: 100KB}\n");
  EXPECT_EQ(e.file(), "bad.yaml");
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.key(), "switch.ecn.kmni");
  EXPECT_NE(e.problem().find("did you mean 'kmin'"), std::string::npos) << e.what();
}

TEST(Params, BadUnitNamesKeyAndLine) {
  const InputError e = parse_error(std::string(kMinimal) + "switch:\n  buffer: 16MBB\n");
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.key(), "switch.buffer");
  EXPECT_NE(e.problem().find("unknown unit"), std::string::npos) << e.what();
}

TEST(Params, ImpossibleValuesAreRejected) {
  EXPECT_EQ(parse_error(std::string(kMinimal) + "switch: {ecn: {kmin: 2MB, kmax: 1MB}}\n").key(), "switch.ecn.kmin");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "nic: {mtu: 9000}\n").key(), "nic.mtu");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "nic: {mtu: 128}\n").key(), "nic.mtu");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "switch: {ecn: {pmax: 1.5}}\n").key(), "switch.ecn.pmax");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "workload:\n  - {type: incast, receiver: 9, senders: 2}\n").key(),
            "workload.0.receiver");
  EXPECT_EQ(parse_error("topology: {type: star, hosts: 4, host_link: {rate: -5Gbps}}\n").key(),
            "topology.host_link.rate");
  EXPECT_EQ(parse_error("topology: {type: fat-tree, k: 5}\n").key(), "topology.k");
}

TEST(Params, TextParameterErrorsAreTheParsersMessageAfterTheKeywordsItAlsoTakes) {
  const InputError headroom = parse_error(std::string(kMinimal) + "switch: {pfc: {headroom: 3 apples}}\n");
  EXPECT_EQ(headroom.line(), 4);
  EXPECT_EQ(headroom.key(), "switch.pfc.headroom");
  EXPECT_NE(headroom.problem().find("must be 'auto', 'hpcc-ns3' or a size: "), std::string::npos) << headroom.what();
  const InputError credits = parse_error(std::string(kMinimal) + "fabric: infiniband\ninfiniband: {vl_buffer: 32B}\n");
  EXPECT_EQ(credits.key(), "infiniband.vl_buffer");
  EXPECT_EQ(credits.problem(), "must be 'auto' or a size of at least one 64-byte credit: '32B' is smaller");
  const InputError dscp = parse_error(std::string(kMinimal) + "switch: {dscp_map: '26:x'}\n");
  EXPECT_EQ(dscp.key(), "switch.dscp_map");
  EXPECT_EQ(dscp.problem().find("must be"), std::string::npos) << "no keywords, the parser's message alone";
  for (const char* ok : {"switch: {pfc: {headroom: auto}}\n", "switch: {pfc: {headroom: hpcc-ns3}}\n",
                         "switch: {pfc: {headroom: 40KB}}\n"}) {
    EXPECT_NO_THROW(parse_scenario(std::string(kMinimal) + ok, "t.yaml", ".", {})) << ok;
  }
}

TEST(Params, ASectionWithoutItsTypedChildTakesTheDefaultType) {
  // `nic` without `cc` means the default congestion control.
  const Scenario sc = parse_scenario(std::string(kMinimal) + "nic: {mtu: 1000}\n", "t.yaml", ".", {});
  EXPECT_EQ(sc.cc->dump()["type"], "dcqcn");
}

TEST(Params, WrongTypeIsAnError) {
  const InputError e = parse_error(std::string(kMinimal) + "switch:\n  pfc: {priorities: three}\n");
  EXPECT_EQ(e.key(), "switch.pfc.priorities");
}

TEST(Params, UnknownTypeSuggestsAKnownOne) {
  const InputError e = parse_error("topology: {type: leaf-spin}\n");
  EXPECT_EQ(e.key(), "topology.type");
  EXPECT_NE(e.problem().find("did you mean 'leaf-spine'"), std::string::npos) << e.what();
  EXPECT_NE(parse_error(std::string(kMinimal) + "nic: {cc: dcqnc}\n").problem().find("did you mean 'dcqcn'"),
            std::string::npos);
}

TEST(Params, MalformedYamlNamesTheLine) {
  const InputError e = parse_error("seed: 1\ntopology: {type: star\n");
  EXPECT_GT(e.line(), 0);
  EXPECT_NE(e.problem().find("malformed YAML"), std::string::npos);
}

TEST(Params, OverridesReachNestedKeysAndListItems) {
  const Scenario sc = parse_scenario(std::string(kMinimal) + "workload:\n  - {type: incast, senders: 2}\n", "t.yaml",
                                     ".", {"switch.ecn.kmin=200KB", "nic.cc.g=0.5", "workload.0.size=2MB"});
  EXPECT_EQ(sc.sw.ecn.kmin, Bytes(200'000));
  EXPECT_EQ(sc.cc->dump()["g"], 0.5);
  EXPECT_EQ(sc.workload_node[0]["size"].as<std::string>(), "2MB");
  EXPECT_THROW(parse_scenario(kMinimal, "t.yaml", ".", {"switch.ecn.kmni=1KB"}), InputError);
  EXPECT_THROW(parse_scenario(kMinimal, "t.yaml", ".", {"novalue"}), InputError);
}

TEST(Params, AnOverrideErrorNamesTheOverrideNotAFileLine) {
  const InputError e = parse_error(kMinimal, {"switch.ecn.kmin=9XB"});
  EXPECT_EQ(e.file(), "--set switch.ecn.kmin=9XB");
  EXPECT_EQ(e.line(), 0);
  EXPECT_EQ(e.key(), "switch.ecn.kmin");
}

TEST(Params, DelayAndCableLengthExcludeEachOther) {
  EXPECT_EQ(parse_error("topology: {type: star, hosts: 4, host_link: {delay: 1us, cable_length: 10}}\n").key(),
            "topology.host_link.cable_length");
  const Scenario sc =
      parse_scenario("topology: {type: star, hosts: 4, host_link: {cable_length: 10}}\n", "t.yaml", ".", {});
  EXPECT_EQ(sc.graph.links[0].delay, Time::ns(50));  // 5 ns per metre
}

TEST(Params, SwitchPresetsGiveDefaultsThatTheScenarioCanOverride) {
  const Scenario onyx = parse_scenario(
      std::string(kMinimal) + "switch: {preset: nvidia-roce-lossless, ecn: {kmax: 2MB}}\n", "t.yaml", ".", {});
  EXPECT_EQ(onyx.sw.ecn.kmin, Bytes(150'000));    // from the preset (NVIDIA Onyx "RoCE Commands")
  EXPECT_EQ(onyx.sw.ecn.kmax, Bytes(2'000'000));  // the scenario wins
  EXPECT_EQ(onyx.sw.ecn.pmax, 1.0);
  EXPECT_EQ(onyx.sw.ets.strict, std::vector<int64_t>{6});
  const Scenario sonic =
      parse_scenario(std::string(kMinimal) + "switch: {preset: sonic-lossless}\n", "t.yaml", ".", {});
  EXPECT_EQ(sonic.sw.pfc.priorities, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(sonic.sw.pfc.xon_offset, Bytes(2288));
  EXPECT_EQ(sonic.sw.ecn.kmin, Bytes(1024 * 1024));
  const InputError e = parse_error(std::string(kMinimal) + "switch: {preset: nvidia-roce-losless}\n");
  EXPECT_EQ(e.key(), "switch.preset");
  EXPECT_NE(e.problem().find("did you mean 'nvidia-roce-lossless'"), std::string::npos);
}

TEST(Params, NicPresetsGiveDefaultsAndAnUnknownOneOrABadTcpProbeKeyNamesTheKey) {
  const Scenario cx6 =
      parse_scenario(std::string(kMinimal) + "nic: {preset: connectx-6, wqe_fetch: 100ns}\n", "t.yaml", ".", {});
  EXPECT_EQ(cx6.nic.wqe_gap, Time::ps(4650));   // 1 / 215 M messages a second
  EXPECT_EQ(cx6.nic.wqe_fetch, Time::ns(100));  // the scenario wins
  ASSERT_TRUE(cx6.nic_preset);
  EXPECT_EQ(cx6.nic_preset->overrides.size(), 1u);
  const InputError e = parse_error(std::string(kMinimal) + "nic: {preset: connectx6}\n");
  EXPECT_EQ(e.key(), "nic.preset");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(parse_error(std::string(kMinimal) + "tcp: {pto_extra: -1ms}\n").key(), "tcp.pto_extra");
  EXPECT_EQ(parse_error(std::string(kMinimal) + "tcp: {tlp: maybe}\n").key(), "tcp.tlp");
}

TEST(Params, APresetRecordsTheKeysTheScenarioSetOverIt) {
  const Scenario onyx =
      parse_scenario(std::string(kMinimal) + "switch: {preset: nvidia-roce-lossless, ecn: {kmax: 2MB, kmin: 150KB}}\n",
                     "t.yaml", ".", {});
  ASSERT_TRUE(onyx.preset);
  EXPECT_EQ(onyx.preset->name, "nvidia-roce-lossless");
  ASSERT_EQ(onyx.preset->overrides.size(), 1u);  // kmin equals the preset's: no override
  EXPECT_EQ(onyx.preset->overrides[0].key, "switch.ecn.kmax");
  EXPECT_EQ(onyx.preset->overrides[0].value, "2MB");
  EXPECT_EQ(onyx.preset->overrides[0].preset_value, "1500KB");
  const Scenario plain = parse_scenario(std::string(kMinimal) + "switch: {buffer: 4MB}\n", "t.yaml", ".", {});
  EXPECT_FALSE(plain.preset);
}

TEST(Params, CcPresetsCarryTheirDefaults) {
  const Scenario nvidia = parse_scenario(std::string(kMinimal) + "nic: {cc: dcqcn}\n", "t.yaml", ".", {});
  const Scenario paper = parse_scenario(std::string(kMinimal) + "nic: {cc: dcqcn-paper}\n", "t.yaml", ".", {});
  EXPECT_EQ(nvidia.cc->dump()["rate_increase_period"], "300us");  // rpg_time_reset
  EXPECT_EQ(nvidia.cc->dump()["min_time_between_cnps"], "4us");
  EXPECT_EQ(paper.cc->dump()["rate_increase_period"], "55us");
  EXPECT_EQ(paper.cc->dump()["fast_recovery_steps"], 5);
}

TEST(Params, ScenarioReferenceDocMatchesTheDeclarations) {
  std::ifstream in(std::string(ROCESIM_SOURCE_DIR) + "/docs/scenario-reference.md");
  ASSERT_TRUE(in) << "docs/scenario-reference.md is missing; generate it with `rocesim params --markdown`";
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string want = scenario_reference_markdown(), have = ss.str();
  if (want != have) {
    // Name the first line that differs rather than printing both files.
    std::istringstream a(want), b(have);
    std::string la, lb;
    int line = 0;
    for (;;) {
      const bool ga = static_cast<bool>(std::getline(a, la)), gb = static_cast<bool>(std::getline(b, lb));
      ++line;
      if (!ga) {
        la.clear();
      }
      if (!gb) {
        lb.clear();
      }
      if (la != lb || (!ga && !gb)) {
        break;
      }
    }
    ADD_FAILURE() << "docs/scenario-reference.md is stale at line " << line << ": expected\n  " << la << "\nfound\n  "
                  << lb << "\nregenerate it with `rocesim params --markdown > docs/scenario-reference.md`";
  }
}

TEST(Params, EveryParameterHasADoc) {
  for (const auto& d : all_params()) {
    EXPECT_FALSE(d.doc.empty()) << d.key;
  }
}

TEST(Params, DscpMapParsesAndRejectsGarbage) {
  const auto m = parse_dscp_map("26:3, 48:6");
  EXPECT_EQ(m[26], 3);
  EXPECT_EQ(m[48], 6);
  EXPECT_EQ(m[0], 0);
  EXPECT_THROW(parse_dscp_map("26-3"), UnitError);
  EXPECT_THROW(parse_dscp_map("64:3"), UnitError);
}

}  // namespace rocesim
