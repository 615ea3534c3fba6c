// Fabrics beside RoCEv2. InfiniBand: credit-based flow control never drops, whatever the buffer; the credit round
// trip sets the least buffer for line rate (credit_buffer_needed); a full buffer blocks its upstream (head of line);
// switches route by destination (D-mod-K). RoCEv1: Ethernet framing with a GRH that stays in one subnet.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/io/capture.hpp"

namespace rocesim {
namespace {

std::string star(int hosts, const std::string& fabric, const std::string& extra = "") {
  return "seed: 1\nstop: 50ms\nfabric: " + fabric + "\ntopology: {type: star, hosts: " + std::to_string(hosts) +
         ", host_link: {rate: 100Gbps, delay: 1us}}\nnic: {mtu: 1024, cc: none}\n" + extra;
}

double gbps(const FlowRecord& f) {
  return static_cast<double>(f.spec.size.count()) * 8 / (f.end - f.posted).sec_f() / 1e9;
}

// A middle packet of a 1024-byte MTU on InfiniBand: LRH 8, BTH 12, payload, ICRC 4, VCRC 2; 2 delimiters.
constexpr int kFrame = 8 + 12 + 1024 + 4 + 2;
constexpr double kGoodput = 100.0 * 1024 / (kFrame + 2);

TEST(Infiniband, CreditRoundTripSetsTheLeastBufferForLineRate) {
  const Bytes least = credit_buffer_needed(Rate::gbps(100), Time::us(1), Time(), Bytes(kFrame + 16), Bytes(64));
  const auto run = [&](Bytes buffer) {
    auto s = test::make_sim(star(2, "infiniband"),
                            {"infiniband.vl_buffer=" + to_string(buffer), "infiniband.credit_batch=64B"});
    s->net().add_flow(test::write_flow(0, 1, Bytes(4'000'000)));
    s->run();
    EXPECT_EQ(test::all_drops(s->net()), 0);
    return s->net().flows()[0];
  };
  const FlowRecord full = run(least);
  ASSERT_TRUE(full.done);
  EXPECT_LE((full.end - full.posted).sec_f() / full.ideal_fct.sec_f(), 1.002);
  // With half of it, 13 frames of 17 blocks fit: 13 frames per credit round trip, which lies between the frame,
  // the flights and the flow control packet (2084.8 ns) and that plus two frames waited behind (2253.12 ns).
  const FlowRecord half = run(Bytes(least.count() / 2));
  ASSERT_TRUE(half.done);
  const double frame_ns = (kFrame + 2) * 0.08, frames = 13;
  EXPECT_GT(gbps(half), kGoodput * frames * frame_ns / 2253.12);
  EXPECT_LT(gbps(half), kGoodput * frames * frame_ns / 2084.8);
}

struct IncastRun {
  int64_t drops = 0, overflows = 0, done = 0;
  double receiver_gbps = 0;
};
IncastRun incast(const std::string& buffer) {
  auto s = test::make_sim(star(9, "infiniband"), {"infiniband.vl_buffer=" + buffer});
  for (uint32_t h = 1; h <= 8; ++h) {
    s->net().add_flow(test::write_flow(h, 0, Bytes(1'000'000)));
  }
  s->run();
  IncastRun r;
  r.drops = test::all_drops(s->net());
  Time last;
  for (const auto& sw : s->net().switches()) {
    r.overflows += sw->credit_overflows();
  }
  for (const FlowRecord& f : s->net().flows()) {
    r.done += f.done;
    last = std::max(last, f.end);
  }
  r.receiver_gbps = 8e6 * 8 / last.sec_f() / 1e9;
  return r;
}

TEST(Infiniband, IncastNeverDropsWithAnyBufferAndRunsTheBottleneckAtLineRate) {
  for (const char* buffer : {"1216B", "4KB", "64KB", "1MB"}) {
    const IncastRun r = incast(buffer);
    EXPECT_EQ(r.done, 8) << buffer;
    EXPECT_EQ(r.drops, 0) << buffer;
    EXPECT_EQ(r.overflows, 0) << buffer;
  }
  // With the buffer a link needs, the receiver's link is never idle: 8 MB at line rate less framing.
  const IncastRun r = incast("auto");
  EXPECT_GT(r.receiver_gbps, 0.98 * kGoodput);
  EXPECT_LE(r.receiver_gbps, kGoodput);
}

TEST(Infiniband, AFullBufferBlocksTheFlowsBehindItUpstream) {
  // Hosts 1..8 write 2 MB each to host 0; host 1 also writes 2 MB to idle host 9. Host 1's packets for host 0
  // fill its switch port's buffer, which drains at an eighth of the link: the write to host 9 waits behind them.
  const auto victim = [](bool incast) {
    auto s = test::make_sim(star(10, "infiniband"));
    s->net().add_flow(test::write_flow(1, 9, Bytes(2'000'000)));
    for (uint32_t h = 1; incast && h <= 8; ++h) {
      s->net().add_flow(test::write_flow(h, 0, Bytes(2'000'000)));
    }
    s->run();
    const auto nics = test::csv_rows(nics_csv(s->net(), s->sim().now()));
    return std::make_pair(s->net().flows()[0], std::stod(nics[1].at("credit_wait_ns")));
  };
  const auto [alone, alone_wait] = victim(false);
  const auto [blocked, blocked_wait] = victim(true);
  ASSERT_TRUE(alone.done && blocked.done);
  EXPECT_LE((alone.end - alone.posted).sec_f() / alone.ideal_fct.sec_f(), 1.01);
  EXPECT_EQ(alone_wait, 0);
  // Each credit host 1 gets back is shared between its two flows: the victim gets about what the incast flow
  // gets, an eighth of host 0's link, until the incast ends.
  EXPECT_LT(gbps(blocked), 0.25 * kGoodput);
  EXPECT_GT(blocked_wait, 0.5 * (blocked.end - blocked.posted).ns_f());
}

TEST(Infiniband, SwitchesRouteByDestinationSpreadingAShiftEvenlyOverTheUplinks) {
  // D-mod-K: the two hosts of leaf 0 write to the two of leaf 1; destinations 2 and 3 take different spines, so
  // no link carries two flows (a hash puts both on one uplink half the time).
  auto s = test::make_sim(
      "seed: 3\nstop: 50ms\nfabric: infiniband\ntopology: {type: leaf-spine, leaves: 2, spines: 2, "
      "servers_per_leaf: 2, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}\n"
      "nic: {mtu: 1024, cc: none}\n");
  for (uint32_t h = 0; h < 2; ++h) {
    s->net().add_flow(test::write_flow(h, h + 2, Bytes(1'000'000)));
  }
  s->run();
  const Switch& leaf0 = *s->net().switches()[0];
  std::vector<int64_t> up;
  for (uint16_t p = 0; p < leaf0.num_ports(); ++p) {
    if (leaf0.link(p).peer->is_switch()) {
      up.push_back(leaf0.counters(p, 3).tx_bytes);
    }
  }
  ASSERT_EQ(up.size(), 2u);
  EXPECT_EQ(up[0], up[1]);
  for (const FlowRecord& f : s->net().flows()) {
    EXPECT_LE((f.end - f.posted).sec_f() / f.ideal_fct.sec_f(), 1.01);  // no two flows share a link
  }
}

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    Simulation s(parse_scenario(yaml, "t.yaml", ".", sets));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(FabricInput, WhatAFabricCannotCarryIsAnErrorNamingTheKeyAndIgnoredSettingsWarn) {
  EXPECT_NE(error_of(star(2, "infiniban")).find("t.yaml:3: fabric"), std::string::npos) << error_of(star(2, "x"));
  EXPECT_NE(error_of(star(2, "infiniband", "workload:\n  - {type: permutation, transport: tcp}\n"))
                .find("workload.0.transport: tcp runs over Ethernet"),
            std::string::npos);
  EXPECT_NE(error_of(star(2, "infiniband", "events:\n  - {at: 1us, type: link_down, link: host0}\n")).find("events"),
            std::string::npos);
  EXPECT_NE(error_of(star(2, "infiniband", "capture: {hosts: [0]}\n")).find("capture"), std::string::npos);
  const auto sim = test::make_sim(star(2, "infiniband", "switch: {pfc: {priorities: [3]}, ecn: {kmin: 5KB}}\n"));
  ASSERT_EQ(sim->warnings().size(), 2u);
  EXPECT_NE(sim->warnings()[0].find("test.yaml:6: switch.pfc: has no effect with fabric: infiniband"),
            std::string::npos)
      << sim->warnings()[0];
  EXPECT_NE(sim->warnings()[1].find("test.yaml:6: switch.ecn: has no effect with fabric: infiniband: switches mark "
                                    "FECN by infiniband.fecn_threshold"),
            std::string::npos)
      << sim->warnings()[1];
  // RoCEv1 cannot leave its subnet: on two leaves it is refused, naming two hosts that cannot meet.
  const std::string two_leaves =
      "fabric: roce-v1\ntopology: {type: leaf-spine, leaves: 2, spines: 1, servers_per_leaf: 2}\n";
  EXPECT_NE(error_of(two_leaves).find("t.yaml: fabric: roce-v1 cannot join host0 and host2"), std::string::npos)
      << error_of(two_leaves);
}

TEST(RoceV1, FramesCarryAGrhInsteadOfIpAndUdpAndFctFollowsTheirSize) {
  const auto lone = [](const std::string& fabric) {
    auto s = test::make_sim(star(2, fabric));
    s->net().add_flow(test::write_flow(0, 1, Bytes(4'000'000)));
    s->run();
    return s->net().flows()[0];
  };
  const FlowRecord v1 = lone("roce-v1"), v2 = lone("roce-v2");
  ASSERT_TRUE(v1.done && v2.done);
  EXPECT_LE((v1.end - v1.posted).sec_f() / v1.ideal_fct.sec_f(), 1.01);
  // Per middle packet on the wire: 20 + 14 + 40 + 12 + 1024 + 4 + 4 against 20 + 14 + 20 + 8 + 12 + 1024 + 4 + 4.
  EXPECT_NEAR((v1.end - v1.posted).sec_f() / (v2.end - v2.posted).sec_f(), 1118.0 / 1106.0, 0.002);
}

TEST(RoceV1, AutoPfcHeadroomCoversTwoFramesWithTheirGrh) {
  // Auto headroom holds two of the largest frames; a RoCEv1 frame carries a 40-byte GRH where RoCEv2 has 28
  // bytes of IPv4 and UDP.
  const auto headroom = [](const std::string& fabric) {
    auto s = test::make_sim(star(2, fabric, "switch: {pfc: {priorities: [3], headroom: auto}}\n"));
    return s->net().switches()[0]->headroom(0);
  };
  EXPECT_EQ(headroom("roce-v1") - headroom("roce-v2"), Bytes(2 * (wire::kGrh - wire::kIpv4 - wire::kUdp)));
}

TEST(RoceV1, TsharkDecodesTheCaptureAsRoceWithAGrh) {
  ASSERT_EQ(test::shell("command -v tshark").status, 0) << "tshark is needed (scripts/install-deps --test)";
  auto s = test::make_sim(star(3, "roce-v1", "capture: {hosts: [0]}\n"));
  s->net().add_flow(test::write_flow(1, 0, Bytes(100'000)));
  s->net().add_flow(test::write_flow(2, 0, Bytes(100'000)));
  s->run();
  const std::string file = "/tmp/rocesim_v1cap_" + std::to_string(getpid()) + ".pcap";
  std::ofstream(file, std::ios::binary) << s->output<Capture>()->pcap();
  const auto count = [&](const std::string& filter) {
    return test::shell("tshark -r " + file + " -Y '" + filter + "' 2>/dev/null | wc -l").out;
  };
  const std::string all = std::to_string(s->output<Capture>()->frames().size()) + "\n";
  EXPECT_EQ(count("eth.type == 0x8915 && infiniband.grh.nxthdr == 0x1b && infiniband.grh.paylen && infiniband.bth"),
            all);
  EXPECT_EQ(count("_ws.malformed || ip || udp"), "0\n");
  std::remove(file.c_str());
}

}  // namespace
}  // namespace rocesim
