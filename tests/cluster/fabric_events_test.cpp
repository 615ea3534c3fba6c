// A fabric that changes during the run: links and switches fail and come back, routes reconverge after
// routing.convergence, frames on dead links are lost and counted, and RC queue pairs recover by go-back-N or
// fail after nic.retry_count timeouts.
#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {
// Two leaves, two spines, two hosts per leaf, every link 100 Gb/s: host0 on leaf0 writes to host2 on leaf1 at
// line rate (no congestion control), so its packets leave exactly one serialisation time apart. ACKs go on
// priority 6, so that priority 3 counts data packets only.
const std::string kFabric = R"(seed: 1
stop: 100ms
topology:
  type: leaf-spine
  leaves: 2
  spines: 2
  servers_per_leaf: 2
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
nic: {cc: none, retransmit_timeout: 1ms, ack_priority: 6}
routing: {convergence: 100us}
)";
const Bytes kSize(4'000'000);

// One data packet's time on a 100 Gb/s wire (4096-byte payload, no extension header), in ns.
double data_packet_ns() { return wire::on_wire(wire::roce_frame(4096, 0)) * 8 / 100.0; }

struct FlowRun {
  std::unique_ptr<Simulation> sim;
  FlowRecord flow;
};
FlowRun run_flow(const std::string& events, const std::vector<std::string>& sets = {}) {
  FlowRun r;
  r.sim = test::make_sim(kFabric + events, sets);
  r.sim->net().add_flow(test::write_flow(0, 2, kSize));
  r.sim->run();
  r.flow = r.sim->net().flows().at(0);
  return r;
}

Switch& sw(Network& net, const std::string& name) {
  for (const auto& s : net.switches()) {
    if (s->name() == name) {
      return *s;
    }
  }
  throw std::runtime_error("no switch " + name);
}

// The leaf0 uplink the flow takes on the idle fabric (its ECMP choice), as a port number.
uint16_t uplink_of(FlowRun& idle) {
  Packet probe;
  probe.src = 0;
  probe.dst = 2;
  probe.sport = idle.flow.sport;
  return sw(idle.sim->net(), "leaf0").route(probe);
}

int64_t drops(Network& net, DropReason r, int prio) {
  int64_t n = 0;
  for (const auto& s : net.switches()) {
    for (uint16_t p = 0; p < s->num_ports(); ++p) {
      n += s->counters(p, prio).drops[static_cast<int>(r)];
    }
  }
  return n;
}
}  // namespace

TEST(FabricEvents, UplinkFailureReroutesOverTheOtherSpineAfterConvergenceWithTheCountedDrops) {
  FlowRun idle = run_flow("");
  ASSERT_TRUE(idle.flow.done);
  const uint16_t up = uplink_of(idle);
  const std::string spine = sw(idle.sim->net(), "leaf0").link(up).peer->name();
  const std::string other = spine == "spine0" ? "spine1" : "spine0";

  FlowRun r = run_flow("events:\n  - {at: 50us, type: link_down, link: leaf0:" + std::to_string(up) + "}\n");
  Network& net = r.sim->net();
  ASSERT_TRUE(r.flow.done);
  EXPECT_FALSE(r.flow.failed);
  EXPECT_EQ(r.flow.ideal_fct, idle.flow.ideal_fct);  // of the idle original fabric
  EXPECT_TRUE(net.conservation().holds());
  // leaf0 drops every data packet that reaches it between the failure and its convergence (100 us of packets at
  // line rate), plus those on the failed link or queued for it when it failed (1 us of link: 3, and the one
  // being sent); nothing else is lost.
  const int64_t lost = drops(net, DropReason::kLinkDown, 3);
  EXPECT_NEAR(static_cast<double>(lost), 100'000 / data_packet_ns() + 4, 2);
  EXPECT_EQ(lost + drops(net, DropReason::kLinkDown, 6), net.conservation().dropped);  // every loss is counted
  for (DropReason other_reason :
       {DropReason::kSharedLimit, DropReason::kHeadroomOverflow, DropReason::kBufferFull, DropReason::kNoRoute}) {
    EXPECT_EQ(drops(net, other_reason, 3), 0) << to_string(other_reason);
  }
  // Everything lost is sent again (go-back-N from the receiver's NAK, which also resends what arrived out of order
  // after convergence until the NAK got back).
  EXPECT_GE(r.flow.retransmits, lost);
  // Recovery: the flow loses the convergence time and about one round trip for the NAK.
  const Time late = (r.flow.end - r.flow.spec.start) - (idle.flow.end - idle.flow.spec.start);
  EXPECT_GE(late, Time::us(100));
  EXPECT_LE(late, Time::us(100) + r.flow.base_rtt * 3);
  // After convergence the flow goes over the other spine: it carried all but the first 50 us of the data.
  Switch& o = sw(net, other);
  int64_t via_other = 0;
  for (uint16_t p = 0; p < o.num_ports(); ++p) {
    if (o.link(p).peer->name() == "leaf1") {
      via_other += o.counters(p, 3).tx_bytes;
    }
  }
  EXPECT_GT(via_other, kSize.count() - 50'000 * 100 / 8 - 100'000);
}

TEST(FabricEvents, LinkThatComesBackCarriesTrafficAgainOnceRoutesConverge) {
  FlowRun idle = run_flow("");
  const uint16_t up = uplink_of(idle);
  const std::string link = "leaf0:" + std::to_string(up);
  FlowRun r = run_flow("events:\n  - {at: 50us, type: link_down, link: " + link +
                           "}\n  - {at: 100us, type: link_up, link: " + link + "}\n",
                       {"routing.convergence=20us"});
  Network& net = r.sim->net();
  ASSERT_TRUE(r.flow.done);
  EXPECT_TRUE(net.conservation().holds());
  // Drops only between the failure and the first convergence (70 us): from then until the link is back and
  // routes converge again (120 us), the other spine carries the flow.
  EXPECT_NEAR(static_cast<double>(drops(net, DropReason::kLinkDown, 3)), 20'000 / data_packet_ns() + 4, 2);
  // Routes are those of the original fabric again, and the restored link carried the end of the flow: more than
  // the 50 us it carried before failing.
  Packet probe;
  probe.src = 0;
  probe.dst = 2;
  probe.sport = r.flow.sport;
  EXPECT_EQ(sw(net, "leaf0").route(probe), up);
  EXPECT_GT(sw(net, "leaf0").counters(up, 3).tx_bytes, 50'000 * 100 / 8 + 1'000'000);
}

TEST(FabricEvents, ServerWhoseOnlyPathIsGoneFailsAfterRetryCountTimeoutsAndTheRunEnds) {
  for (int retries : {0, 3}) {
    FlowRun r = run_flow("events:\n  - {at: 50us, type: link_down, link: host2}\n",
                         {"nic.retry_count=" + std::to_string(retries)});
    EXPECT_FALSE(r.flow.done);
    EXPECT_TRUE(r.flow.failed);
    EXPECT_EQ(r.flow.timeouts, retries + 1);
    // The first timeout comes one retransmit_timeout after the last ACK (within a round trip of the failure);
    // each retry waits one more.
    const Time expected = Time::us(50) + Time::ms(1) * (retries + 1);
    EXPECT_NEAR(r.flow.end.sec_f(), expected.sec_f(), 5e-6) << retries;
    EXPECT_EQ(r.sim->sim().now(), r.flow.end);  // nothing holds the run after the failure
    EXPECT_TRUE(r.sim->net().conservation().holds());
  }
}

TEST(FabricEvents, FramesInFlightOnALinkThatFailsAreLostAtTheFarEnd) {
  // host2's link is 10 us long: when it fails, 10 us of frames are on it (the switch sends at line rate) and
  // host2's NIC counts them as lost.
  FlowRun r = run_flow("events:\n  - {at: 100us, type: link_down, link: host2}\n",
                       {"topology.host_link.delay=10us", "nic.retry_count=0"});
  const int64_t lost = r.sim->net().nic(2).counters().lost_link_down;
  EXPECT_NEAR(static_cast<double>(lost), 10'000 / data_packet_ns(), 1.5);
  EXPECT_TRUE(r.sim->net().conservation().holds());
}

TEST(FabricEvents, FailedRequestsReachTheApplicationAsRetryExceededThenFlushed) {
  auto s = test::make_sim(kFabric + "events:\n  - {at: 10us, type: link_down, link: host2}\n");
  Network& net = s->net();
  // Remembers completions; at the first error it posts once more, on the QP now in the error state.
  struct Recorder final : Application {
    std::vector<Completion> seen;
    void on_completion(Host& h, const Completion& c) override {
      seen.push_back(c);
      if (c.status == WcStatus::kRetryExceeded) {
        WorkRequest wr;
        wr.wr_id = 9;
        wr.size = Bytes(1000);
        h.post(c.qp, wr);
      }
    }
  };
  auto rec = std::make_unique<Recorder>();
  Recorder* seen = rec.get();
  const uint32_t a = net.server(0).add_app(std::move(rec));
  const uint32_t b = net.server(2).add_app(std::make_unique<Recorder>());
  const uint32_t qa = net.connect(0, a, 2, b, {}).first;
  for (uint64_t i = 0; i < 3; ++i) {
    WorkRequest wr;
    wr.wr_id = i;
    wr.size = Bytes(1'000'000);
    wr.signaled = i == 0;  // error completions come whether signaled or not
    net.server(0).post(qa, wr, Time());
  }
  s->run();
  ASSERT_EQ(seen->seen.size(), 4u);
  EXPECT_EQ(seen->seen[0].status, WcStatus::kRetryExceeded);
  EXPECT_EQ(seen->seen[0].wr_id, 0u);
  EXPECT_EQ(seen->seen[1].status, WcStatus::kFlushed);
  EXPECT_EQ(seen->seen[2].status, WcStatus::kFlushed);
  // The request posted on the QP in the error state is flushed as soon as the NIC has it.
  EXPECT_EQ(seen->seen[3].wr_id, 9u);
  EXPECT_EQ(seen->seen[3].status, WcStatus::kFlushed);
  EXPECT_EQ(seen->seen[3].at, seen->seen[0].at);
  ASSERT_EQ(net.flows().size(), 4u);
  for (const auto& f : net.flows()) {
    EXPECT_TRUE(f.failed);
  }
}

TEST(FabricEvents, SwitchDownTakesAllItsLinksAndSwitchUpBringsThemBack) {
  FlowRun r = run_flow(
      "events:\n  - {at: 50us, type: switch_down, switch: spine0}\n  - {at: 50us, type: switch_down, switch: "
      "spine1}\n  - {at: 200us, type: switch_up, switch: spine1}\n");
  Network& net = r.sim->net();
  ASSERT_TRUE(r.flow.done);  // over spine1, after it came back and routes converged (300 us)
  EXPECT_GT(r.flow.end, Time::us(300));
  // Until routes converge after the failure (150 us) leaf0 sends to dead ports; from then until spine1's routes
  // are back it has no route at all.
  EXPECT_GT(drops(net, DropReason::kLinkDown, 3), 0);
  EXPECT_GT(drops(net, DropReason::kNoRoute, 3), 0);
  EXPECT_TRUE(net.conservation().holds());
}

TEST(FabricEvents, JitteredConvergenceIsDeterministic) {
  const std::string ev = "events:\n  - {at: 50us, type: switch_down, switch: spine0}\n";
  FlowRun a = run_flow(ev, {"routing.jitter=80us"});
  FlowRun b = run_flow(ev, {"routing.jitter=80us"});
  EXPECT_EQ(a.flow.end, b.flow.end);
  EXPECT_EQ(a.flow.retransmits, b.flow.retransmits);
}

TEST(FabricEvents, BadEventsNameTheirKey) {
  const auto error_of = [](const std::string& events) -> std::string {
    try {
      test::make_sim(kFabric + events);
    } catch (const InputError& e) {
      return e.key() + ": " + e.problem();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("events:\n  - {at: 1us, type: link_down, link: leaf0:9}\n").rfind("events.0.link: ", 0), 0u);
  EXPECT_EQ(error_of("events:\n  - {at: 1us, type: link_down, link: nosuchhost}\n").rfind("events.0.link: ", 0), 0u);
  EXPECT_EQ(error_of("events:\n  - {at: -1us, type: link_down, link: host0}\n").rfind("events.0.at: ", 0), 0u);
  EXPECT_EQ(error_of("events:\n  - {at: 1us, type: link_up, link: host0}\n"),
            "events.0.link: link_up at 1us: the link on 'host0' is up already");
  EXPECT_EQ(error_of("events:\n  - {at: 1us, type: switch_down, switch: spine7}\n"),
            "events.0.switch: 'spine7' is not a switch");
  EXPECT_EQ(error_of("events:\n  - {type: link_down, link: host0}\n").rfind("events.0.at: ", 0), 0u);
  EXPECT_EQ(error_of("events:\n  - {at: 1us, type: link_down}\n").rfind("events.0.link: ", 0), 0u);
  EXPECT_EQ(error_of("events:\n  - {at: 1us, type: reboot, switch: spine0}\n").rfind("events.0.type: ", 0), 0u);
  EXPECT_EQ(error_of("events: {at: 1us}\n").rfind("events: ", 0), 0u);
}

}  // namespace rocesim

namespace rocesim {
TEST(FabricEvents, PauseTowardADeadLinkIsClearedAndStopsCounting) {
  // Three senders at line rate into one 100 Gb/s receiver behind a small buffer: the switch pauses them. host1's
  // link fails at 30 us while host1 is paused (from 11.6 us); the pause its switch had set is void from then on.
  const std::string yaml = R"(seed: 1
stop: 10ms
topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 1MB, pfc: {priorities: [3]}}
nic: {cc: none, retransmit_timeout: 100us, retry_count: 0}
events:
  - {at: 30us, type: link_down, link: host1}
)";
  auto s = test::make_sim(yaml);
  for (uint32_t h = 1; h < 4; ++h) {
    s->net().add_flow(test::write_flow(h, 0, Bytes(2'000'000)));
  }
  s->sim().run(Time::us(30) - Time::ps(1));
  const PauseState& ps = s->net().nic(1).pause_state();
  ASSERT_TRUE(ps.paused(3, s->sim().now()));
  const Time until = ps.until[3];
  ASSERT_GT(until, Time::us(30));
  s->sim().run(Time::ms(10));
  EXPECT_EQ(ps.armed, 0);
  EXPECT_EQ(ps.until[3], Time());
  EXPECT_LT(ps.total[3], Time::us(30) - Time::us(11));  // nothing of the pause counts after the failure
  EXPECT_TRUE(s->net().conservation().holds());
}
}  // namespace rocesim
