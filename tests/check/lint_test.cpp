#include "rocesim/check/lint.hpp"

#include <gtest/gtest.h>

#include "rocesim/net/wire.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

// Two leaves of two hosts under one spine, every link 100 Gb/s with 1 us; DCQCN, MTU 4096, PFC on priority 3.
const std::string kTopo =
    "topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2, host_link: {rate: 100Gbps, delay: 1us},"
    " fabric_link: {rate: 100Gbps, delay: 1us}}\n";
const std::string kFabric = kTopo + "switch: {pfc: {priorities: [3]}}\n";

std::vector<Finding> lint_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return lint(parse_scenario(yaml, "t.yaml", ".", sets));
}

std::vector<std::string> codes(const std::vector<Finding>& fs) {
  std::vector<std::string> c;
  for (const auto& f : fs) {
    c.push_back(f.code);
  }
  return c;
}

using Codes = std::vector<std::string>;

// The headroom a 100 Gb/s, 1 us port needs for frames of `mtu` (docs/model.md, "PFC headroom"): two frames,
// the PFC frame and 2 us of line rate.
Bytes need(int mtu) {
  return Bytes(2 * wire::roce_frame(mtu, wire::kReth) + wire::on_wire(wire::kPfcFrame) +
               100'000'000'000 / 8 * 2 / 1'000'000 + 1);
}

TEST(Lint, DefaultLosslessFabricIsClean) { EXPECT_TRUE(lint_of(kFabric).empty()); }

TEST(Lint, HeadroomBelowTheCablesInFlightBytesIsAnError) {
  EXPECT_EQ(need(4096), pfc_headroom(Rate::gbps(100), Time::us(1), Bytes(wire::roce_frame(4096, wire::kReth)), Time()));
  const auto fs = lint_of(kFabric, {"switch.pfc.headroom=20KB"});  // below the 25 KB in flight alone
  ASSERT_EQ(codes(fs), Codes{"headroom_short"});
  EXPECT_EQ(fs[0].severity, "error");
  EXPECT_EQ(fs[0].fix, "switch.pfc.headroom: " + to_string(need(4096)) + " (or auto)");
  EXPECT_TRUE(lint_of(kFabric, {"switch.pfc.headroom=" + std::to_string(need(4096).count()) + "B"}).empty());
}

TEST(Lint, HeadroomSizedForASmallerMtuNamesTheMtuThatFits) {
  const std::string h = "switch.pfc.headroom=" + std::to_string(need(1024).count()) + "B";
  const auto fs = lint_of(kFabric, {h});
  ASSERT_EQ(codes(fs), Codes{"mtu_exceeds_headroom"});
  EXPECT_EQ(fs[0].key, "nic.mtu");
  EXPECT_EQ(fs[0].fix.substr(0, 14), "nic.mtu: 1024,");
  EXPECT_TRUE(lint_of(kFabric, {h, "nic.mtu=1024"}).empty());
}

TEST(Lint, BufferThatReservesAndHeadroomFillIsAnError) {
  // A leaf: 3 ports x (8 x reserved + one lossless priority's headroom).
  EXPECT_EQ(codes(lint_of(kFabric, {"switch.buffer=80KB"})), Codes{"buffer_too_small"});
}

// The XOFF point of a dynamic-threshold group alone in the pool: its reserve, then the shared use s at which
// s + frame exceeds alpha x (pool - s), i.e. s = (alpha x pool - frame) / (1 + alpha).
Bytes xoff(Bytes buffer, int ports, Bytes reserved, double alpha) {
  const double pool = static_cast<double>((buffer - (reserved * 8 + need(4096)) * ports).count());
  const double frame = wire::on_wire(wire::roce_frame(4096, wire::kReth));
  return reserved + Bytes(static_cast<int64_t>((alpha * pool - frame) / (1 + alpha)));
}

TEST(Lint, EcnThresholdsAtOrAboveTheXoffPointFireAfterPfc) {
  const std::string base = kTopo + "switch: {buffer: 2MB, pfc: {priorities: [3]}}\n";
  const Scenario sc = parse_scenario(base, "t.yaml", ".", {});
  // The leaves (3 ports) have the smaller pool and pause first.
  const Bytes x = xoff(sc.sw.buffer, 3, sc.sw.admission.reserved, sc.sw.admission.alpha);
  const auto kb = [](Bytes b) { return std::to_string(b.count()) + "B"; };
  const auto at = [&](Bytes kmin, Bytes kmax) {
    return codes(lint_of(base, {"switch.ecn.kmin=" + kb(kmin), "switch.ecn.kmax=" + kb(kmax)}));
  };
  EXPECT_EQ(at(Bytes(50'000), x - Bytes(1'000)), Codes{});
  EXPECT_EQ(at(Bytes(50'000), x + Bytes(1'000)), Codes{"ecn_kmax_above_xoff"});
  EXPECT_EQ(at(x + Bytes(1'000), x + Bytes(2'000)), Codes{"ecn_after_pfc"});
  EXPECT_EQ(at(x - Bytes(1'000), x + Bytes(2'000)), Codes{"ecn_kmax_above_xoff"});
}

TEST(Lint, PerPacketBalancingWithoutOutOfOrderPlacementIsAWarning) {
  EXPECT_EQ(codes(lint_of(kFabric, {"routing.balance=spray"})), Codes{"reorder_without_placement"});
  EXPECT_EQ(codes(lint_of(kFabric, {"routing.balance=adaptive"})), Codes{"reorder_without_placement"});
  EXPECT_EQ(codes(lint_of(kFabric, {"routing.balance=spray", "nic.ooo_placement=true"})), Codes{});
  EXPECT_EQ(codes(lint_of(kFabric, {"routing.balance=ecmp"})), Codes{});
}

TEST(Lint, CnpsOnAClassNeitherStrictNorLosslessAreAWarning) {
  EXPECT_EQ(codes(lint_of(kFabric, {"switch.ets.strict=[]"})), Codes{"cnp_unprotected"});
  EXPECT_EQ(codes(lint_of(kFabric, {"switch.ets.strict=[]", "switch.pfc.priorities=[3, 6]"})), Codes{});
  EXPECT_EQ(codes(lint_of(kFabric, {"switch.ets.strict=[]", "nic.cc=none"})), Codes{});  // no CNPs
}

TEST(Lint, NicDscpThatSwitchesMapElsewhereIsAnError) {
  const auto fs = lint_of(kFabric, {"nic.dscp_map=3:24"});  // the switches' map sends 24 to priority 0
  ASSERT_EQ(codes(fs), Codes{"dscp_mismatch"});
  EXPECT_NE(fs[0].reason.find("priority 0 (lossy)"), std::string::npos);
  EXPECT_EQ(codes(lint_of(kFabric, {"nic.dscp_map=3:26, 6:48"})), Codes{});
  EXPECT_EQ(codes(lint_of(kFabric, {"nic.dscp_map=3:24", "switch.dscp_map=24:3, 48:6"})), Codes{});
}

TEST(Lint, PriorityNoSwitchDscpSelectsIsAnError) {
  const auto fs = lint_of(kFabric, {"switch.dscp_map=26:3"});  // nothing for the CNPs' priority 6
  ASSERT_EQ(codes(fs), Codes{"no_dscp_for_priority"});
  EXPECT_EQ(fs[0].where, "priority 6 (CNPs)");
}

TEST(Lint, WatchdogPollingFasterThanXoffRefreshIsAWarning) {
  // 65535 quanta at 100 Gb/s: a pause lasts 65535 x 64 B x 80 ps/B = 335.54 us, refreshed every 167.77 us.
  const Time refresh = pause_time(65535, Rate::gbps(100)) / 2;
  EXPECT_EQ(refresh, Time::ps(167'769'600));
  const std::vector<std::string> on = {"switch.pfc.watchdog.enabled=true", "switch.pfc.watchdog.detect=1ms"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.begin(), on.begin(), on.end());
    return lint_of(kFabric, more);
  };
  const auto fs = with({"switch.pfc.watchdog.poll=100us", "switch.pfc.watchdog.restore=400us"});
  ASSERT_EQ(codes(fs), Codes{"watchdog_below_refresh"});
  EXPECT_EQ(fs[0].key, "switch.pfc.watchdog.poll");
  EXPECT_EQ(codes(with({"switch.pfc.watchdog.poll=200us", "switch.pfc.watchdog.restore=100us"})),
            Codes{"watchdog_below_refresh"});
  EXPECT_EQ(codes(with({"switch.pfc.watchdog.poll=200us", "switch.pfc.watchdog.restore=400us"})), Codes{});
}

TEST(Lint, TheHpccSimulatorsHeadroomRuleIsCheckedPerLinkNotReadAsASize) {
  // headroom: hpcc-ns3 (what `import hpcc` writes) is 3 x rate x delay: 37.5 KB at 100 Gb/s and 1 us, enough
  // for MTU 4096; 3.75 KB at 100 ns, enough only for MTU 256. `check` used to abort reading it as a size.
  EXPECT_TRUE(lint_of(kFabric, {"switch.pfc.headroom=hpcc-ns3"}).empty());
  const std::string near =
      "topology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2, host_link: {rate: 100Gbps, delay: "
      "100ns}, fabric_link: {rate: 100Gbps, delay: 100ns}}\nswitch: {pfc: {priorities: [3], headroom: hpcc-ns3}}\n";
  const auto fs = lint_of(near);
  ASSERT_EQ(codes(fs), Codes{"mtu_exceeds_headroom"});
  EXPECT_EQ(fs[0].fix.substr(0, 13), "nic.mtu: 256,");
}

}  // namespace
}  // namespace rocesim
