// Fabric behaviour: PFC, headroom, ECN, ETS, ECMP and packet conservation, each against a value computed here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../test_util.hpp"
#include "rocesim/core/rng.hpp"
#include "rocesim/switch/ecn.hpp"

namespace rocesim {
using test::make_sim;
using test::run_sim;
using test::sum_ports;

namespace {
// 8 hosts on one 100G switch; 7 write 2 MB each to host 0 at line rate (no congestion control), on priority 3.
const char* kIncast = R"(seed: 5
stop: 20ms
topology: {type: star, hosts: 8, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 16MB, pfc: {priorities: [3]}}
nic: {cc: none, mtu: 4096}
workload:
  - {type: incast, receiver: 0, senders: 7, size: 2MB, priority: 3}
)";

void expect_conserved(Network& net) {
  const auto c = net.conservation();
  EXPECT_TRUE(c.holds()) << "sent " << c.sent << " delivered " << c.delivered << " dropped " << c.dropped
                         << " in network " << c.in_network;
}
// Two hosts on one switch, idle, no congestion control: for single injected events.
std::unique_ptr<Simulation> two_idle_hosts() {
  return make_sim(R"(seed: 1
stop: 2ms
topology: {type: star, hosts: 2}
nic: {cc: none}
workload: [{type: flows, path: unused}]
)",
                  {"workload=[]"});
}

// A PFC frame pausing priority 3 for 65535 quanta (335.5392 us at 100 Gb/s), arriving at `node` on `port` at
// t = 0 (before any flow starts).
void pause_priority3_at_start(Simulation& s, Node* node, uint16_t port) {
  Packet* pfc = s.net().pool().acquire(PacketKind::kPfc);
  pfc->frame = wire::kPfcFrame;
  pfc->in_port = port;
  PacketExt& x = s.net().pool().ext(pfc);
  x.pfc_enable = 1u << 3;
  x.pfc_quanta[3] = 65535;
  s.sim().at(Time(), node, kEvArrive, reinterpret_cast<uint64_t>(pfc));
}
}  // namespace

TEST(Pfc, LosslessIncastPausesSendersDropsNothingAndKeepsTheReceiverLinkBusy) {
  auto s = run_sim(kIncast);
  Network& net = s->net();
  EXPECT_EQ(test::unfinished(net), 0);
  EXPECT_EQ(sum_ports(net, [](const PortPrioCounters& k) { return k.drops[0] + k.drops[1] + k.drops[2]; }), 0);
  EXPECT_GT(sum_ports(net, [](const PortPrioCounters& k) { return k.xoff_sent; }), 0);
  // The receiver's link carries 7 x 2 MB of payload back to back: the last flow ends after
  // wire bytes / 100 Gb/s, plus the path's fixed latency. Payload per 4096 B packet costs 4096 + 62 + 20 wire
  // bytes (+16 on the first packet of a message), 489 packets per 2 MB message.
  const int64_t pkts = (2'000'000 + 4095) / 4096;
  const int64_t last_payload = 2'000'000 - (pkts - 1) * 4096;
  const int64_t wire_per_msg = (pkts - 1) * (4096 + 82) + (last_payload + 82) + 16;
  const Time busy = Rate::gbps(100).tx_time(Bytes(7 * wire_per_msg));
  Time last;
  for (const auto& f : net.flows()) {
    last = std::max(last, f.end);
  }
  // Lower bound: the link cannot go faster. Upper: within 1 % plus a few microseconds of path latency.
  EXPECT_GE(last, busy);
  EXPECT_LE(last.ps(), busy.ps() * 101 / 100 + Time::us(10).ps());
  expect_conserved(net);
}

TEST(Links, TheEventWheelReachesTwiceTheLongestLinkAndFrameAndLongLinksStillDeliverEverything) {
  // 20 us links: reach = 20 us + 4194 wire bytes at 100 Gb/s (335.52 ns); doubled, 40.671 us = 39,718 buckets of
  // 1.024 ns, rounded up to 65,536 buckets (67.1 us).
  auto s = run_sim(kIncast, {"topology.host_link={rate: 100Gbps, delay: 20us}"});
  EXPECT_EQ(s->sim().horizon(), Time::ps(int64_t{65536} << 10));
  EXPECT_EQ(test::unfinished(s->net()), 0);
  expect_conserved(s->net());
  // 1 us links: 2 x 1.33552 us = 2,609 buckets, rounded up to 4,096.
  EXPECT_EQ(make_sim(kIncast)->sim().horizon(), Time::ps(int64_t{4096} << 10));
  // A 10 ns star with 1000-byte frames needs less than the smallest wheel, which stays (2,048 buckets).
  EXPECT_EQ(make_sim(kIncast, {"topology.host_link={rate: 100Gbps, delay: 10ns}", "nic.mtu=1000"})->sim().horizon(),
            Time::ps(int64_t{2048} << 10));
}

TEST(Pfc, WithoutPfcASmallBufferDrops) {
  auto s = run_sim(kIncast, {"switch.pfc.priorities=[]", "switch.buffer=1MB", "stop=3ms"});
  Network& net = s->net();
  EXPECT_GT(sum_ports(net, [](const PortPrioCounters& k) { return k.drops[0]; }), 0);  // shared_limit
  EXPECT_EQ(sum_ports(net, [](const PortPrioCounters& k) { return k.xoff_sent; }), 0);
  expect_conserved(net);
}

TEST(Pfc, HeadroomTooSmallForTheCableOverflowsEnoughDoesNot) {
  // 300 m of cable (1.5 us each way) at 100 Gb/s keeps 2 x 1.5 us x 12.5 KB/us = 37.5 KB in flight after XOFF.
  const std::vector<std::string> long_cable = {"topology.host_link={rate: 100Gbps, cable_length: 300}"};
  auto sets = long_cable;
  sets.push_back("switch.pfc.headroom=20KB");
  auto small = run_sim(kIncast, sets);
  EXPECT_GT(sum_ports(small->net(), [](const PortPrioCounters& k) { return k.drops[1]; }), 0);  // headroom_overflow
  expect_conserved(small->net());
  auto enough = run_sim(kIncast, long_cable);
  EXPECT_EQ(sum_ports(enough->net(), [](const PortPrioCounters& k) { return k.drops[1]; }), 0);
  // Auto headroom = 2 x 4174 B frames + 84 B PFC frame + 100 Gb/s x 3 us (37,500 B) + 1 = 45,933 B.
  EXPECT_EQ(enough->net().switches()[0]->headroom(0), Bytes(2 * 4174 + 84 + 37'500 + 1));
  int64_t max_hdrm = 0;
  for (uint16_t p = 0; p < 8; ++p) {
    max_hdrm = std::max(max_hdrm, enough->net().switches()[0]->counters(p, 3).max_headroom);
  }
  EXPECT_GT(max_hdrm, 0);  // headroom was used, and it sufficed
}

TEST(Pfc, PauseQuantaToTime) {
  // One quantum is 512 bit times: 5.12 ns at 100 Gb/s, 1.28 ns at 400 Gb/s (IEEE 802.1Qbb).
  EXPECT_EQ(pause_time(1, Rate::gbps(100)), Time::ps(5120));
  EXPECT_EQ(pause_time(65535, Rate::gbps(100)), Time::ps(335'539'200));
  EXPECT_EQ(pause_time(65535, Rate::gbps(400)), Time::ps(83'884'800));
  EXPECT_EQ(pause_time(65535, Rate::gbps(25)), Time::ps(1'342'156'800));
}

TEST(Pfc, APauseThatIsNotRefreshedExpires) {
  // A single PFC frame (65535 quanta) reaches host 1's NIC at t = 0; host 1's 64 KB write to host 0 waits for
  // the pause to run out (335.5392 us at 100 Gb/s) and then takes its idle-fabric time.
  auto s = two_idle_hosts();
  Network& net = s->net();
  pause_priority3_at_start(*s, &net.nic(1), 0);
  const uint32_t id = net.add_flow(test::write_flow(1, 0, Bytes(65536)));
  s->run();
  const FlowRecord& r = net.flows()[id];
  ASSERT_TRUE(r.done);
  EXPECT_EQ(r.end, Time::ps(335'539'200) + r.ideal_fct);
  EXPECT_EQ(net.nic(1).pause_state().xoff_rcvd[3], 1);
  EXPECT_EQ(net.nic(1).pause_state().total[3], Time::ps(335'539'200));
}

TEST(Pfc, APausedSwitchPortHoldsItsQueueUntilThePauseRunsOut) {
  // The same pause reaches the switch on its port to host 0 at t = 0. Host 1's 64 KB write (16 full packets)
  // reaches the switch at once, waits there, and leaves back-to-back when the pause ends: the flow ends later than
  // on the idle fabric by the pause minus the time its first packet would have taken to reach that port.
  auto s = two_idle_hosts();
  Network& net = s->net();
  auto [sw, port] = net.attachment(0);
  pause_priority3_at_start(*s, sw, port);
  const uint32_t id = net.add_flow(test::write_flow(1, 0, Bytes(65536)));
  s->run();
  const FlowRecord& r = net.flows()[id];
  ASSERT_TRUE(r.done);
  const auto hops = net.path(1, 0);
  // The first packet: a full WRITE first (with RETH), serialised by the NIC, then the link delay.
  const int first_wire = wire::on_wire(wire::roce_frame(static_cast<int>(net.mtu()), wire::kReth));
  const Time first_at_switch = hops[0].first.tx_time(Bytes(first_wire)) + hops[0].second;
  EXPECT_EQ(r.end, r.ideal_fct + Time::ps(335'539'200) - first_at_switch);
  EXPECT_EQ(sw->pause_state(port).xoff_rcvd[3], 1);
  EXPECT_EQ(sw->pause_state(port).total[3], Time::ps(335'539'200));
  EXPECT_EQ(sw->counters(port, 3).tx_packets, 16);
}

TEST(Ecn, RedMarkingProbabilityFollowsTheCurve) {
  EcnParams p;
  p.type = "red";
  p.kmin = Bytes(100'000);
  p.kmax = Bytes(300'000);
  p.pmax = 0.2;
  p.at = "enqueue";
  const auto m = make_ecn_marker(p);
  EXPECT_EQ(m->probability(Bytes(50'000)), 0.0);
  EXPECT_EQ(m->probability(Bytes(100'000)), 0.0);
  EXPECT_DOUBLE_EQ(m->probability(Bytes(200'000)), 0.1);
  EXPECT_DOUBLE_EQ(m->probability(Bytes(300'000)), 0.2);
  EXPECT_EQ(m->probability(Bytes(300'001)), 1.0);
  EXPECT_EQ(m->silent_up_to(), Bytes(100'000));
  EXPECT_GT(m->probability(m->silent_up_to() + Bytes(1)), 0.0);
  // Drawn marks match the probability within 4 standard deviations.
  Rng rng(11, "ecn");
  const int n = 100'000;
  for (auto [q, prob] :
       std::vector<std::pair<int64_t, double>>{{50'000, 0.0}, {150'000, 0.05}, {250'000, 0.15}, {400'000, 1.0}}) {
    int marks = 0;
    for (int i = 0; i < n; ++i) {
      marks += m->mark(Bytes(q), rng);
    }
    const double sd = std::sqrt(prob * (1 - prob) / n);
    EXPECT_NEAR(static_cast<double>(marks) / n, prob, 4 * sd + 1e-12) << "queue " << q;
  }
}

TEST(Ecn, MarksOnlyWhenTheQueuePassesKmin) {
  // With kmin above anything the incast queue can reach, nothing is marked; with the default, marks appear.
  auto none = run_sim(kIncast, {"switch.ecn.kmin=15MB", "switch.ecn.kmax=15MB"});
  EXPECT_EQ(sum_ports(none->net(), [](const PortPrioCounters& k) { return k.ecn_marked; }), 0);
  auto some = run_sim(kIncast, {"switch.ecn.at=dequeue"});
  EXPECT_GT(sum_ports(some->net(), [](const PortPrioCounters& k) { return k.ecn_marked; }), 0);
}

namespace {
// Two senders on two classes share host 0's link; the run stops while both still have data, and the bytes the
// switch sent on each class are compared.
int64_t class_bytes(Network& net, int cls) {
  auto [sw, port] = net.attachment(0);
  return sw->counters(port, cls).tx_bytes;
}
const char* kTwoClasses = R"(seed: 2
stop: 400us
topology: {type: star, hosts: 3}
switch: {pfc: {priorities: [0, 1, 6]}, ets: {strict: [], weights: [70, 30, 1, 1, 1, 1, 1, 1]}}
nic: {cc: none}
workload:
  - {type: flows, path: unused}
)";
}  // namespace

TEST(Ets, TwoSaturatingClassesShareByWeight) {
  auto s = test::make_sim(kTwoClasses, {"workload=[]"});
  Network& net = s->net();
  net.add_flow(test::write_flow(1, 0, Bytes(100'000'000), Time(), 0));
  net.add_flow(test::write_flow(2, 0, Bytes(100'000'000), Time(), 1));
  s->run();
  const double a = static_cast<double>(class_bytes(net, 0)), b = static_cast<double>(class_bytes(net, 1));
  EXPECT_NEAR(a / (a + b), 0.70, 0.01);
  EXPECT_GT(a + b, 0.95 * 400e-6 * 100e9 / 8);  // the link stays busy
}

TEST(Ets, AStrictClassIsServedFirst) {
  auto s = test::make_sim(kTwoClasses, {"workload=[]", "switch.ets.strict=[6]"});
  Network& net = s->net();
  net.add_flow(test::write_flow(1, 0, Bytes(100'000'000), Time(), 0));
  net.add_flow(test::write_flow(2, 0, Bytes(100'000'000), Time(), 6));
  s->run();
  const double low = static_cast<double>(class_bytes(net, 0)), high = static_cast<double>(class_bytes(net, 6));
  // The strict class gets all it asks for (its sender's full line rate, minus the ACK traffic it shares with);
  // the other class gets only the first frames before the strict queue forms.
  EXPECT_GT(high / (low + high), 0.99);
}

TEST(Ecmp, FlowsSpreadEvenlyOverTheUplinks) {
  // A leaf with 8 spines: 8000 flows towards the other leaf should put 1000 on each uplink; the binomial
  // standard deviation is sqrt(8000 x 1/8 x 7/8) = 29.6, so 10 % (100 flows) is over 3 of them.
  auto s = test::make_sim(R"(topology: {type: leaf-spine, leaves: 2, spines: 8, servers_per_leaf: 4})");
  Network& net = s->net();
  const Switch& leaf0 = *net.attachment(0).first;
  std::map<uint16_t, int> per_port;
  Rng rng(5, "ecmp-test");
  for (int i = 0; i < 8000; ++i) {
    Packet p;
    p.src = static_cast<uint32_t>(rng.below(4));
    p.dst = 4 + static_cast<uint32_t>(rng.below(4));
    p.sport = static_cast<uint16_t>(49152 + rng.below(16384));
    ++per_port[leaf0.hashed_route(p)];
  }
  ASSERT_EQ(per_port.size(), 8u);
  for (auto [port, n] : per_port) {
    EXPECT_NEAR(n, 1000, 100) << "uplink " << port;
  }
}

TEST(Routing, ShortestPathsOnAFatTree) {
  // k = 4: 16 hosts. Same edge: 2 links; same pod: 4; across pods: 6.
  auto s = test::make_sim("topology: {type: fat-tree, k: 4}\n");
  Network& net = s->net();
  EXPECT_EQ(net.num_hosts(), 16u);
  EXPECT_EQ(net.switches().size(), 20u);
  EXPECT_EQ(net.path(0, 1).size(), 2u);
  EXPECT_EQ(net.path(0, 2).size(), 4u);
  EXPECT_EQ(net.path(0, 15).size(), 6u);
}

TEST(Routing, SwitchesWithEqualForwardingTablesShareOne) {
  // A k-ary fat-tree's core switches all reach pod p through port p, and a pod's aggregation switches all have
  // the same table; each edge switch has its own hosts. Distinct tables: k^2/2 edge + k pods + 1 core.
  for (int k : {4, 8}) {
    auto s = test::make_sim("topology: {type: fat-tree, k: " + std::to_string(k) + "}\n");
    EXPECT_EQ(s->net().route_tables(), static_cast<size_t>(k * k / 2 + k + 1)) << "k=" << k;
  }
  // A leaf-spine: every spine reaches leaf l through port l; the leaves differ.
  auto ls = test::make_sim("topology: {type: leaf-spine, leaves: 4, spines: 2, servers_per_leaf: 2}\n");
  EXPECT_EQ(ls->net().route_tables(), 5u);
}

TEST(Routing, NicsThatCannotReachEachOtherAreAnErrorNamingAPair) {
  // s0 and s1 are not linked: a (on s0) and b, c (on s1) cannot reach each other; the first destination in NIC
  // order is a, the first NIC that cannot reach it is b.
  const std::string dir = "/tmp/rocesim_unreachable_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/t.txt") << "host a\nhost b\nhost c\nswitch s0\nswitch s1\n"
                                   "link a s0 100Gbps 1us\nlink b s1 100Gbps 1us\nlink c s1 100Gbps 1us\n";
  try {
    Simulation sim(parse_scenario("topology: {type: file, path: t.txt}\n", "t.yaml", dir, {}));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "topology");
    EXPECT_NE(e.problem().find("host 'b' cannot reach host 'a'"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Routing, ForwardingTablesBeyondTheirMemoryBoundAreAnInputError) {
  // 2 bytes per switch per NIC: a k=64 fat-tree (5,120 switches, 65,536 NICs) takes 0.67 GB and is allowed; a
  // k=96 one (11,520 x 221,184) would take 5.1 GB.
  EXPECT_NO_THROW(check_route_table_size(5120, 65536, "t.yaml"));
  try {
    check_route_table_size(11520, 221184, "t.yaml");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "topology");
    EXPECT_NE(e.problem().find("5.1 GB"), std::string::npos) << e.what();
  }
}

}  // namespace rocesim
