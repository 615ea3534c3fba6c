// Load balancing over equal-cost paths (switch/balance.hpp): each balancer's choice on hand-built loads and
// times, on a k=8 fat-tree permutation against the ideal FCT, and a ring all-reduce on a cross-rail fabric against
// its NIC bound (docs/model.md, "Load balancing").
#include "rocesim/switch/balance.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "../test_util.hpp"
#include "rocesim/collective/report.hpp"
#include "rocesim/core/error.hpp"

namespace rocesim {
namespace {

std::unique_ptr<LoadBalancer> balancer(const std::string& yaml, size_t sets = 1) {
  const auto alg = parse_balance(YAML::Load(yaml), ParseCtx{"t.yaml"}, "routing.balance");
  auto b = alg->make(BalancerInit{7, 11, 8});
  if (b) {
    b->sets_changed(sets);
  }
  return b;
}

// Loads set by hand, per port of kPorts (ports 10 to 17).
struct Loads final : PortLoad {
  std::vector<int64_t> b = std::vector<int64_t>(8, 0);
  int64_t bytes(uint16_t port, Time) const override { return b.at(port - 10u); }
};

Packet packet(uint32_t src, uint32_t dst, uint16_t sport, uint32_t psn = 0) {
  Packet p;
  p.src = src;
  p.dst = dst;
  p.sport = sport;
  p.psn = psn;
  return p;
}

constexpr uint16_t kPorts[8] = {10, 11, 12, 13, 14, 15, 16, 17};

}  // namespace

TEST(Balance, EcmpAndSourceLeaveTheChoiceToTheHash) {
  EXPECT_EQ(balancer("ecmp"), nullptr);
  EXPECT_EQ(balancer("{type: source, entropies: 16}"), nullptr);
  const auto source = parse_balance(YAML::Load("{type: source, entropies: 16}"), ParseCtx{"t"}, "routing.balance");
  EXPECT_EQ(source->entropies(), 16);
  EXPECT_TRUE(source->per_packet());
  EXPECT_FALSE(parse_balance(YAML::Node(), ParseCtx{"t"}, "routing.balance")->per_packet());  // ecmp by default
}

TEST(Balance, RandomSprayUsesEveryNextHopAboutEquallyAndRoundRobinInTurn) {
  // 8000 packets of one flow over 8 hops: 1000 expected on each, standard deviation sqrt(8000 x 1/8 x 7/8) = 29.6.
  auto spray = balancer("spray");
  Loads load;
  std::map<uint32_t, int> used;
  for (uint32_t i = 0; i < 8000; ++i) {
    ++used[spray->pick(packet(0, 1, 50000, i), 0, kPorts, 8, Time(), load)];
  }
  ASSERT_EQ(used.size(), 8u);
  for (auto [hop, n] : used) {
    EXPECT_NEAR(n, 1000, 120) << "hop " << hop;
  }
  // Round robin: each next-hop set in turn, on its own count.
  auto rr = balancer("{type: spray, order: round_robin}", 2);
  std::vector<uint32_t> set0, set1;
  for (uint32_t i = 0; i < 6; ++i) {
    set0.push_back(rr->pick(packet(0, 1, 50000, i), 0, kPorts, 4, Time(), load));
    if (i % 2 == 0) {
      set1.push_back(rr->pick(packet(0, 2, 50000, i), 1, kPorts, 3, Time(), load));
    }
  }
  EXPECT_EQ(set0, (std::vector<uint32_t>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(set1, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(Balance, AdaptivePicksTheNextHopWithTheFewestBytesAndSpreadsTiesPerPacket) {
  auto ar = balancer("adaptive");
  Loads load;
  load.b = {9000, 4000, 1500, 7000, 0, 0, 0, 0};
  for (uint32_t psn = 0; psn < 100; ++psn) {
    EXPECT_EQ(ar->pick(packet(3, 9, 50000, psn), 0, kPorts, 4, Time(), load), 2u);  // port 12: 1500 B
  }
  // A hot port among idle ones is never taken; the idle ones share one flow's packets.
  Loads hot;
  hot.b = {0, 0, 200'000, 0, 0, 0, 0, 0};
  std::map<uint32_t, int> used;
  for (uint32_t psn = 0; psn < 3000; ++psn) {
    ++used[ar->pick(packet(3, 9, 50000, psn), 0, kPorts, 4, Time(), hot)];
  }
  EXPECT_EQ(used.count(2), 0u);
  ASSERT_EQ(used.size(), 3u);
  for (auto [hop, n] : used) {
    EXPECT_NEAR(n, 1000, 100) << "hop " << hop;
  }
}

TEST(Balance, AdaptiveRoutingLeavesAPortWhoseLinkIsDownAlone) {
  // The switch reports a dead port as infinitely loaded (Switch::Load); an idle-looking dead port is never taken.
  auto ar = balancer("adaptive");
  Loads load;
  load.b = {5000, INT64_MAX, 7000, 6000, 0, 0, 0, 0};
  for (uint32_t psn = 0; psn < 100; ++psn) {
    EXPECT_EQ(ar->pick(packet(3, 9, 50000, psn), 0, kPorts, 4, Time(), load), 0u);
  }
  // On a leaf-spine where leaf0's uplink to spine0 fails at 100 us and routes converge 200 us later: leaf0's ECMP
  // keeps hashing its hosts' flows onto the dead link until then; its adaptive routing never sends one there.
  // (Drops count at the ingress port; spine0's packets for leaf0 have no other way down with either.)
  const auto lost_from_leaf0_hosts = [](const std::string& balance) {
    auto s = test::run_sim(test::slurp(std::string(ROCESIM_SOURCE_DIR) + "/scenarios/link-failure.yaml"),
                           {"routing.balance=" + balance, "nic.ooo_placement=true", "stop=2ms"});
    const Switch& leaf0 = *s->net().attachment(0).first;
    int64_t n = 0;
    for (uint16_t port = 0; port < 4; ++port) {  // ports 0-3: host0 .. host3
      for (int c = 0; c < 8; ++c) {
        n += leaf0.counters(port, c).drops[static_cast<int>(DropReason::kLinkDown)];
      }
    }
    return n;
  };
  EXPECT_GT(lost_from_leaf0_hosts("ecmp"), 100);  // measured 728
  EXPECT_EQ(lost_from_leaf0_hosts("adaptive"), 0);
}

TEST(Balance, AFlowletKeepsItsNextHopWithinTheGapAndDrawsAgainAfterIt) {
  auto fl = balancer("{type: flowlet, gap: 10us}");
  Loads load;
  const Packet p = packet(1, 5, 50000);
  // Packets 2 us apart for 1 ms: one flowlet, one next hop.
  const uint32_t first = fl->pick(p, 0, kPorts, 8, Time(), load);
  for (int i = 1; i < 500; ++i) {
    ASSERT_EQ(fl->pick(p, 0, kPorts, 8, Time::us(2 * i), load), first) << "packet " << i;
  }
  // Then bursts separated by 11 us gaps: each burst keeps one hop, and the bursts use many (8 hops, 64 bursts).
  std::set<uint32_t> hops;
  Time t = Time::ms(1);
  for (int burst = 0; burst < 64; ++burst) {
    t = t + Time::us(11);
    const uint32_t h = fl->pick(p, 0, kPorts, 8, t, load);
    hops.insert(h);
    for (int i = 0; i < 5; ++i) {
      t = t + Time::us(1);
      ASSERT_EQ(fl->pick(p, 0, kPorts, 8, t, load), h);
    }
  }
  EXPECT_GE(hops.size(), 6u);
}

TEST(Balance, AnUnknownModeAZeroGapAndZeroEntropiesNameTheirKey) {
  const auto error = [](const std::string& balance) {
    try {
      parse_scenario("stop: 1ms\ntopology: {type: star, hosts: 2}\nrouting:\n  balance: " + balance + "\n", "t.yaml",
                     ".", {});
    } catch (const InputError& e) {
      return e.key() + " line " + std::to_string(e.line());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("sprinkle"), "routing.balance.type line 4");
  EXPECT_EQ(error("{type: flowlet, gap: 0us}"), "routing.balance.gap line 4");
  EXPECT_EQ(error("{type: source, entropies: 0}"), "routing.balance.entropies line 4");
  EXPECT_EQ(error("{type: spray, order: sideways}"), "routing.balance.order line 4");
}

namespace {
// k=8 fat-tree, 100G links of 1 us, PFC, no congestion control: every host writes 2 MB to another (a
// permutation): non-blocking, so the ideal FCT is reachable if paths do not collide.
const char* kFt8Perm = R"(seed: 1
stop: 50ms
topology: {type: fat-tree, k: 8, host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {priorities: [3]}}
nic: {cc: none, mtu: 1000}
workload:
  - {type: permutation, size: 2MB, spread: 20us, priority: 3}
)";

struct Outcome {
  double median_over_ideal = 0;
  int64_t retransmits = 0, out_of_order = 0, unfinished = 0;
};
Outcome permutation(const std::string& balance, bool ooo, const char* yaml = kFt8Perm) {
  auto s =
      test::run_sim(yaml, {"routing.balance=" + balance, std::string("nic.ooo_placement=") + (ooo ? "true" : "false")});
  std::vector<double> fct, ideal;
  Outcome o;
  for (const FlowRecord& f : s->net().flows()) {
    if (!f.done) {
      ++o.unfinished;
      continue;
    }
    fct.push_back(static_cast<double>((f.end - f.spec.start).ps()));
    ideal.push_back(static_cast<double>(f.ideal_fct.ps()));
    o.retransmits += f.retransmits;
    o.out_of_order += f.out_of_order;
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  o.median_over_ideal = median(fct) / median(ideal);
  return o;
}
}  // namespace

TEST(Balance, OnAFatTreePermutationSprayingWithPlacementReachesTheIdealAndEcmpDoesNot) {
  // Measured: ecmp 2.05 (flows hashed onto one link share it), spray 1.04, adaptive 1.25, source 1.15.
  const Outcome ecmp = permutation("ecmp", true);
  EXPECT_GT(ecmp.median_over_ideal, 1.5);
  EXPECT_EQ(ecmp.out_of_order, 0);  // a path per flow: nothing arrives out of order
  const Outcome spray = permutation("spray", true);
  EXPECT_LT(spray.median_over_ideal, 1.10);
  EXPECT_GT(spray.out_of_order, 0);
  EXPECT_EQ(spray.retransmits, 0);  // placed, not resent
  // Adaptive routing reads only its own queues: it cannot see the collision on a core's one link down into a
  // pod, so it ends between the two (docs/model.md).
  const Outcome adaptive = permutation("adaptive", true);
  EXPECT_LT(adaptive.median_over_ideal, 1.4);
  EXPECT_LT(adaptive.median_over_ideal, ecmp.median_over_ideal * 0.75);
  const Outcome source = permutation("{type: source, entropies: 64}", true);
  EXPECT_LT(source.median_over_ideal, ecmp.median_over_ideal * 0.75);
  for (const Outcome& o : {ecmp, spray, adaptive, source}) {
    EXPECT_EQ(o.unfinished, 0);
  }
}

TEST(Balance, SprayingWithoutPlacementCostsNaksAndRetransmissions) {
  // A leaf-spine of 2 x 4 hosts over 4 spines, four 256 KB writes across it: sprayed packets overtake each
  // other, and go-back-N resends from every gap.
  const char* ls = R"(seed: 1
stop: 50ms
topology: {type: leaf-spine, leaves: 2, spines: 4, servers_per_leaf: 4,
           host_link: {rate: 100Gbps, delay: 1us}, fabric_link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {priorities: [3]}}
nic: {cc: none, mtu: 1000}
workload:
  - {type: permutation, size: 256KB, spread: 1us, priority: 3}
)";
  const Outcome placed = permutation("spray", true, ls);
  const Outcome go_back = permutation("spray", false, ls);
  EXPECT_EQ(placed.retransmits, 0);
  EXPECT_GT(go_back.retransmits, 0);
  EXPECT_GT(go_back.out_of_order, 0);
  EXPECT_EQ(go_back.unfinished, 0);
  EXPECT_GT(go_back.median_over_ideal, placed.median_over_ideal);
}

namespace {

// 4 DGX H100 servers, each with its 8 x 400G NICs on a leaf of its own (not rail-optimised), 8 spines: non-blocking,
// but every hop of a ring between servers is 8 flows over 8 uplinks.
const char* kCrossRail = R"(seed: 1
stop: 100ms
topology: {type: leaf-spine, rail: false, nics_per_host: 8, leaves: 4, servers_per_leaf: 1, spines: 8,
           host_link: {rate: 400Gbps, delay: 1us}, fabric_link: {rate: 400Gbps, delay: 1us}}
server: {preset: dgx-h100}
switch: {buffer: 64MB, pfc: {priorities: [3]}, ecn: {kmin: 150KB, kmax: 1500KB, pmax: 0.2}}
nic: {cc: dcqcn, mtu: 4096, ooo_placement: true}
workload:
  - {type: collective, op: all_reduce, sizes: [256MiB], placement: out_of_place}
)";

struct RingRun {
  double busbw = 0;
  int most_flows_on_an_uplink = 0;  // the most ring flows one leaf's uplink carried
};
RingRun cross_rail_ring(const std::string& balance) {
  auto s = test::run_sim(kCrossRail, {"routing.balance=" + balance});
  const auto* r = dynamic_cast<const CollectiveReport*>(s->reports().at(0).get());
  EXPECT_NE(r, nullptr);
  const auto rows = r->size_rows();
  EXPECT_TRUE(!rows.empty() && rows.front().out_of_place && rows.front().out_of_place->complete);
  RingRun out{rows.front().out_of_place->busbw, 0};
  // A flow's bytes: what one NIC sent its leaf; an uplink's over it is the number of flows hashed onto it.
  const Switch& leaf0 = *s->net().switches()[0];
  int64_t nic_bytes = 0, up_bytes = 0;
  for (uint16_t p = 0; p < leaf0.num_ports(); ++p) {
    int64_t& most = leaf0.link(p).peer->is_switch() ? up_bytes : nic_bytes;
    most = std::max(most, leaf0.counters(p, 3).tx_bytes);
  }
  out.most_flows_on_an_uplink = static_cast<int>(std::llround(static_cast<double>(up_bytes) / nic_bytes));
  return out;
}

}  // namespace

TEST(Balance, OnACrossRailFabricARingAllReduceReachesItsNicBoundPerPacketAndEcmpIsHeldByItsBusiestUplink) {
  // Ring all-reduce over 32 ranks, 8 channels, one NIC of 400G per channel at each server: busbw is bounded by
  // 8 x 50 GB/s = 400 GB/s (tests/collective/engine_test.cpp). ECMP hashes the 8 flows of a hop between leaves
  // onto 8 uplinks, and k flows on one uplink hold that ring hop, and so the all-reduce, to 400 / k.
  const RingRun ecmp = cross_rail_ring("ecmp");
  ASSERT_GE(ecmp.most_flows_on_an_uplink, 2);  // 8 flows on 8 uplinks: no collision 0.24 % of the time
  EXPECT_LE(ecmp.busbw, 400.0 / ecmp.most_flows_on_an_uplink);
  // Per packet, the uplinks share every hop's load: measured 386.7 (adaptive) and 379.1 (spray) of 400.
  for (const char* mode : {"adaptive", "spray"}) {
    const RingRun per_packet = cross_rail_ring(mode);
    EXPECT_LE(per_packet.busbw, 400.0) << mode;
    EXPECT_GE(per_packet.busbw, 400.0 * 0.93) << mode;
    EXPECT_GT(per_packet.busbw, ecmp.busbw * 2) << mode;
  }
}

}  // namespace rocesim
