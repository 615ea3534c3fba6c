// The NIC's RC transport on its own (nic/rc_transport.hpp): two transports joined by an ideal wire, against
// hand-computed PSNs, counts and times (IBTA vol 1, chapter 9).
#include "rocesim/nic/rc_transport.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rocesim {
namespace {

constexpr uint32_t kEvDeliver = kNodeEventBase + 30;  // the rig's own: a packet reaches the other end

Rate line() { return Rate::gbps(100); }

NicParams params() {
  NicParams p;
  NicParams::schema().set_defaults(p);
  p.mtu = 1000;
  p.ack_interval = 1;
  p.retransmit_timeout = Time::us(100);
  p.rnr_timer = Time::us(50);
  return p;
}

const CcAlgorithm& no_cc() {
  static const auto alg = parse_cc(YAML::Load("{type: none}"), ParseCtx{"t"}, "nic.cc");
  return *alg;
}

// One end: stands in for a NIC whose port is always free (its queue pairs pace themselves at the line rate),
// sends what its transport gives it over a wire of `delay` to the other end, and notes what happened.
class End final : public EventHandler, public TransportHost {
 public:
  struct Sent {
    Time at;
    PacketKind kind;
    uint32_t psn;
  };
  Simulator& sim;
  PacketPool& pool;
  RcTransport rc;
  End* peer = nullptr;
  Time delay = Time::us(1);
  bool drop_data = false;          // every data packet is lost on the wire
  uint32_t late_psn = UINT32_MAX;  // the data packet with this PSN takes `late_by` longer (it is overtaken)
  Time late_by;
  uint16_t mark_sport = 0;            // data packets with this UDP source port arrive CE-marked
  std::vector<uint16_t> data_sports;  // the UDP source port of each data packet sent
  std::vector<Sent> sent;
  std::vector<Completion> done;
  std::vector<FlowRecord> records;

  End(Simulator& s, PacketPool& p, uint32_t host, const NicParams& np, const CcAlgorithm& cc = no_cc())
      : EventHandler(s.new_source()), sim(s), pool(p), rc(TransportContext{s, p, *this, host, {}, *this}, np, cc) {}

  // A work request from the application: its record and its hold on the run, as the NIC makes them.
  void post(uint32_t qpn, RdmaOp op, int64_t bytes, uint64_t wr_id = 0) {
    sim.hold();
    records.emplace_back();
    WorkRequest wr;
    wr.op = op;
    wr.size = Bytes(bytes);
    wr.wr_id = wr_id;
    const auto r = static_cast<uint32_t>(records.size() - 1);
    rc.post(WorkPost{op == RdmaOp::kRead ? WorkPost::kRead : WorkPost::kSend, qpn, wr, r, r, 0});
  }
  int count(PacketKind k) const {
    int n = 0;
    for (const Sent& s : sent) {
      n += s.kind == k;
    }
    return n;
  }

 private:
  static constexpr uint32_t kEvPort = kNodeEventBase + 31;
  void put(Packet* p) {
    sent.push_back({sim.now(), p->kind, p->psn});
    if (p->kind == PacketKind::kData && drop_data) {
      pool.release(p);
      return;
    }
    Time at = sim.now() + delay;
    if (p->kind == PacketKind::kData) {
      data_sports.push_back(p->sport);
      if (p->psn == late_psn) {
        late_psn = UINT32_MAX;  // (once: not its resends)
        at = at + late_by;
      }
      if (mark_sport && p->sport == mark_sport) {
        p->ecn = wire::kCe;
      }
    }
    sim.at(at, peer, kEvDeliver, reinterpret_cast<uint64_t>(p));
  }
  void wake() override {
    Time earliest = Time::max();
    for (;;) {
      const RcTransport::Next n = rc.next_packet(0, sim.now(), earliest);
      if (!n.packet) {
        break;
      }
      if (n.lost) {
        sent.push_back({sim.now(), n.packet->kind, n.packet->psn});
        pool.release(n.packet);
      } else {
        put(n.packet);
      }
    }
    if (earliest < Time::max() && (port_at_ <= sim.now() || earliest < port_at_)) {  // one wake-up pending
      port_at_ = earliest;
      sim.at(earliest, this, kEvPort);
    }
  }
  Time port_at_;
  void queue_control(Packet* p) override { put(p); }
  FlowRecord& record(uint32_t r) override { return records[r]; }
  void set_offset(uint32_t, int64_t) override {}
  void complete(uint32_t, const Completion& c) override { done.push_back(c); }
  void handle_event(uint32_t kind, uint64_t arg) override {
    if (kind == kEvPort) {
      wake();
      return;
    }
    if (kind != kEvDeliver) {
      rc.on_event(kind, arg);
      return;
    }
    rc.receive(reinterpret_cast<Packet*>(arg));
  }
};

// A sends to B on one queue pair (A's send half 0 to B's receive half 0), or B reads from A.
struct Pair {
  Simulator sim{1};
  PacketPool pool;
  End a, b;
  explicit Pair(const NicParams& p = params(), bool read = false, Rate rate = line(), Time base_rtt = Time::us(2),
                const CcAlgorithm& cc = no_cc())
      : a(sim, pool, 0, p, cc), b(sim, pool, 1, p, cc) {
    a.peer = &b;
    b.peer = &a;
    SendQpInit s;
    s.peer = 1;
    s.read_responder = read;
    s.base_rtt = base_rtt;
    a.rc.add_send_qp(s, rate);
    RecvQpInit r;
    r.peer = 0;
    r.read_requester = read;
    b.rc.add_recv_qp(r);
    b.rc.set_recv_peer(0, 0);
  }
  void run() { sim.run(Time::sec(1)); }
};

// The PSNs of the packets of `kind` an end sent.
std::vector<uint32_t> psns(const End& e, PacketKind kind) {
  std::vector<uint32_t> v;
  for (const End::Sent& s : e.sent) {
    if (s.kind == kind) {
      v.push_back(s.psn);
    }
  }
  return v;
}

}  // namespace

TEST(RcTransport, TheReceiverAcknowledgesEveryAckIntervalPacketsAndTheLastOne) {
  NicParams p = params();
  p.ack_interval = 4;
  Pair t(p);
  t.a.post(0, RdmaOp::kWrite, 10'000);  // 10 packets: PSN 0..9
  t.run();
  EXPECT_EQ(psns(t.b, PacketKind::kAck), (std::vector<uint32_t>{3, 7, 9}));
  EXPECT_EQ(t.b.rc.counters().acks_sent, 3);
  EXPECT_EQ(t.b.rc.delivered(0), 10'000);
  ASSERT_EQ(t.a.done.size(), 1u);
  EXPECT_EQ(t.a.done[0].status, WcStatus::kSuccess);
}

TEST(RcTransport, APsnGapGetsOneNakAndTheSenderGoesBackToIt) {
  Pair t;
  t.a.rc.inject_drop(0, 2);
  t.a.post(0, RdmaOp::kWrite, 8'000);  // PSN 0..7; 2 is lost
  t.run();
  // PSNs 3..7 arrive out of order: one NAK (for 2); the sender resends 2..7, which it had all sent by then.
  EXPECT_EQ(psns(t.b, PacketKind::kNak), (std::vector<uint32_t>{2}));
  EXPECT_EQ(t.a.rc.counters().data_sent, 8 + 6);
  EXPECT_EQ(t.a.records[0].retransmits, 6);
  EXPECT_EQ(t.b.rc.delivered(0), 8'000);
  ASSERT_EQ(t.a.done.size(), 1u);
}

TEST(RcTransport, AnAckPastTheGoBackPointIsNotSentAgain) {
  // At 10 Gb/s (a packet every 800 ns, 1 us wires) PSN 1 is overtaken by PSN 2: B NAKs 1 at 2.6 us (dropping 2),
  // then takes 1 at 2.8 us and acknowledges it. A gets the NAK at 3.6 us (PSN 4 sent, the next send at 4.0 us)
  // and goes back to 1; the ACK of 1 arrives at 3.8 us, before that send, so A goes on from 2, not 1. B's NAK of
  // 2 (PSN 3 arrived at 3.4 us past the gap 2 left) reaches A at 4.4 us: back to 2 again, sent at 4.8 us.
  Pair t(params(), false, Rate::gbps(10));
  t.a.late_psn = 1;
  t.a.late_by = Time::us(1);
  t.a.post(0, RdmaOp::kWrite, 8'000);  // PSN 0..7
  t.run();
  EXPECT_EQ(psns(t.b, PacketKind::kNak), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 2, 3, 4, 2, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(t.a.records[0].retransmits, 4);  // the packets sent again: 2, 2, 3, 4
  ASSERT_EQ(t.a.done.size(), 1u);
  EXPECT_EQ(t.b.rc.delivered(0), 8'000);
}

TEST(RcTransport, AWindowLimitedQueuePairGoesOnAfterAnAckPastItsGoBackPoint) {
  // The same overtaking under HPCC's window (10 Gb/s x 20 us: 25 packets, so the timeline above holds): the ACK
  // that passes the go-back point leaves 7 packets unacknowledged, not a window read as full for ever.
  static const auto hpcc = parse_cc(YAML::Load("{type: hpcc}"), ParseCtx{"t"}, "nic.cc");
  Pair t(params(), false, Rate::gbps(10), Time::us(20), *hpcc);
  t.a.late_psn = 1;
  t.a.late_by = Time::us(1);
  t.a.post(0, RdmaOp::kWrite, 8'000);
  t.run();
  EXPECT_EQ(psns(t.b, PacketKind::kNak), (std::vector<uint32_t>{1, 2}));
  ASSERT_EQ(t.a.done.size(), 1u);
  EXPECT_EQ(t.a.done[0].status, WcStatus::kSuccess);
  EXPECT_EQ(t.a.records[0].timeouts, 0);
  EXPECT_EQ(t.b.rc.delivered(0), 8'000);
}

TEST(RcTransport, ALostLastPacketIsResentOneTimeoutAfterTheLastAckAdvanced) {
  Pair t;
  t.a.rc.inject_drop(0, 3);
  t.a.post(0, RdmaOp::kWrite, 4'000);
  t.run();
  const std::vector<End::Sent>& s = t.a.sent;
  ASSERT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 2, 3, 3}));
  // The ACK of PSN 2 arrives one round trip after PSN 2 left and restarts the timeout; the resend follows it by
  // exactly nic.retransmit_timeout, and its ACK completes the message a round trip later.
  const Time ack2 = s[2].at + t.a.delay * 2;
  EXPECT_EQ(s[4].at, ack2 + Time::us(100));
  ASSERT_EQ(t.a.done.size(), 1u);
  EXPECT_EQ(t.a.records[0].timeouts, 1);
  EXPECT_EQ(t.a.records[0].end, s[4].at + t.a.delay * 2);
}

TEST(RcTransport, AfterRetryCountTimeoutsTheQueuePairFailsItsRequests) {
  NicParams p = params();
  p.retry_count = 2;
  Pair t(p);
  t.a.drop_data = true;
  t.a.post(0, RdmaOp::kWrite, 2'000, 11);
  t.a.post(0, RdmaOp::kWrite, 1'000, 12);
  t.run();
  // Timeouts at 100, 200 and 300 us; the third is one more than retry_count: the oldest request fails with
  // retries exceeded, the next is flushed, and the QP sends nothing more.
  ASSERT_EQ(t.a.done.size(), 2u);
  EXPECT_EQ(t.a.done[0].wr_id, 11u);
  EXPECT_EQ(t.a.done[0].status, WcStatus::kRetryExceeded);
  EXPECT_EQ(t.a.done[1].wr_id, 12u);
  EXPECT_EQ(t.a.done[1].status, WcStatus::kFlushed);
  EXPECT_EQ(t.a.done[0].at, Time::us(300));
  EXPECT_EQ(t.a.records[0].timeouts, 3);
  EXPECT_EQ(t.a.rc.counters().data_sent, 3 * 3);  // the first send and two retries, three packets each
  t.a.post(0, RdmaOp::kWrite, 1'000, 13);
  EXPECT_EQ(t.a.done.back().status, WcStatus::kFlushed);  // a request on a QP in the error state
}

TEST(RcTransport, ASendWithoutAPostedReceiveWaitsTheRnrTimerAndIsSentAgain) {
  Pair t;
  t.a.post(0, RdmaOp::kSend, 1'000);
  t.sim.run(Time::us(10));
  // The SEND found no receive: an RNR NAK, and nothing more before the RNR timer runs out.
  EXPECT_EQ(psns(t.b, PacketKind::kNak), (std::vector<uint32_t>{0}));
  EXPECT_EQ(t.a.records[0].rnr_naks, 1);
  t.b.rc.post(WorkPost{WorkPost::kRecv, 0, WorkRequest{}, 0, 0, 1});
  t.run();
  ASSERT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 0}));
  // Sent at 0, its NAK back at 2 us: the resend leaves 50 us (nic.rnr_timer) later.
  EXPECT_EQ(t.a.sent.back().at, Time::us(52));
  ASSERT_EQ(t.a.done.size(), 1u);
  EXPECT_EQ(t.a.done[0].at, Time::us(54));
}

TEST(RcTransport, ReadsBeyondMaxRdAtomicWaitForTheOldestToComplete) {
  NicParams p = params();
  p.max_rd_atomic = 2;
  Pair t(p, true);
  for (uint64_t i = 0; i < 3; ++i) {
    t.b.post(0, RdmaOp::kRead, 3'000, i);
  }
  t.run();
  // Two requests at once; the third when the first READ's last response arrives.
  const std::vector<End::Sent>& s = t.b.sent;
  ASSERT_EQ(psns(t.b, PacketKind::kReadRequest), (std::vector<uint32_t>{0, 3, 6}));
  ASSERT_EQ(t.b.done.size(), 3u);
  EXPECT_EQ(s[0].at, Time());
  EXPECT_EQ(s[1].at, Time());
  EXPECT_EQ(s[2].at, t.b.done[0].at);
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t.b.done[i].wr_id, i);
    EXPECT_EQ(t.b.done[i].op, RdmaOp::kRead);
  }
  // The requester does not acknowledge READ responses.
  EXPECT_EQ(t.b.count(PacketKind::kAck), 0);
}

TEST(RcTransport, WithPlacementAnOvertakenPacketCostsNoNakAndTheMessageCompletesWhenItLands) {
  // PSN 2 of 8 arrives 10 us late: PSNs 3..7 overtake it. Placed, they wait for it; nothing is sent again.
  NicParams p = params();
  p.ooo_placement = true;
  Pair t(p);
  t.a.late_psn = 2;
  t.a.late_by = Time::us(10);
  t.a.post(0, RdmaOp::kWrite, 8'000);
  t.run();
  EXPECT_TRUE(psns(t.b, PacketKind::kNak).empty());
  EXPECT_EQ(t.a.rc.counters().data_sent, 8);
  EXPECT_EQ(t.b.rc.delivered(0), 8'000);
  EXPECT_EQ(t.b.rc.out_of_order(0), 5);
  // Depths 1, 2, 3, 4, 5 past PSN 2: buckets 1, 2-3, 4-7.
  const auto& depth = t.b.rc.counters().reorder_depth;
  EXPECT_EQ(depth[0], 1);
  EXPECT_EQ(depth[1], 2);
  EXPECT_EQ(depth[2], 2);
  // ACKs 0 and 1 on arrival, then 2..7 together when PSN 2 lands; the completion follows the last one's wire.
  EXPECT_EQ(psns(t.b, PacketKind::kAck), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(t.a.done.size(), 1u);
  const Time psn2_lands = t.a.sent[2].at + t.a.delay + Time::us(10);
  EXPECT_EQ(t.a.done[0].at, psn2_lands + t.a.delay);
  // Without placement the same late packet costs a NAK and a resend of PSNs 2..7.
  Pair g;
  g.a.late_psn = 2;
  g.a.late_by = Time::us(10);
  g.a.post(0, RdmaOp::kWrite, 8'000);
  g.run();
  EXPECT_EQ(psns(g.b, PacketKind::kNak), (std::vector<uint32_t>{2}));
  EXPECT_EQ(g.a.records[0].retransmits, 6);
  EXPECT_EQ(g.b.rc.out_of_order(0), 5);
}

TEST(RcTransport, SourceEntropiesReuseThoseAckedUnmarkedAndLeaveAMarkedOne) {
  // Four entropies from the QP's port (0: 49152 .. 49155); packets on 49153 arrive CE-marked. Fresh entropies
  // go round the four; an unmarked one comes back with its ACK and is used again, a marked one is not.
  Pair t;
  t.a.rc.use_entropies(4);
  t.a.mark_sport = 49153;
  t.a.post(0, RdmaOp::kWrite, 400'000);  // 400 packets
  t.run();
  const std::vector<uint16_t>& e = t.a.data_sports;
  ASSERT_EQ(e.size(), 400u);
  EXPECT_EQ(std::vector<uint16_t>(e.begin(), e.begin() + 5),
            (std::vector<uint16_t>{49152, 49153, 49154, 49155, 49152}));
  int marked_late = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    EXPECT_GE(e[i], 49152);
    EXPECT_LE(e[i], 49155);
    marked_late += i >= 200 && e[i] == 49153;
  }
  // With ACKs back after 2 us (25 packets at 100G), the last 200 packets reuse acknowledged entropies: the marked
  // one is not among them.
  EXPECT_EQ(marked_late, 0);
  EXPECT_EQ(t.b.rc.delivered(0), 400'000);
}

namespace {

NicParams irn_params() {
  NicParams p = params();
  p.loss_recovery = "irn";
  p.irn_bdp_cap = "off";
  return p;
}

// The most data packets a sender had in flight (sent, not cumulatively acknowledged) as it sent each one, from
// when the receiver's ACKs and NACKs reached it.
uint32_t most_in_flight(const End& a, const End& b) {
  uint32_t most = 0;
  for (const End::Sent& d : a.sent) {
    if (d.kind != PacketKind::kData) {
      continue;
    }
    uint32_t acked = 0;
    for (const End::Sent& c : b.sent) {
      if (c.at + b.delay <= d.at) {
        acked = std::max(acked, c.kind == PacketKind::kAck ? c.psn + 1 : c.psn);
      }
    }
    uint32_t sent_upto = 0;
    for (const End::Sent& e : a.sent) {
      if (e.kind == PacketKind::kData && e.at <= d.at) {
        sent_upto = std::max(sent_upto, e.psn + 1);
      }
    }
    most = std::max(most, sent_upto - acked);
  }
  return most;
}

}  // namespace

TEST(RcTransportIrn, OneLostPacketIsResentAloneAndEachLaterArrivalIsNacked) {
  Pair t(irn_params());
  t.a.rc.inject_drop(0, 2);
  t.a.post(0, RdmaOp::kWrite, 8'000);  // PSN 0..7; 2 is lost
  t.run();
  // PSNs 3..7 are kept; each gets a NACK for PSN 2 (the cumulative ACK); only PSN 2 goes again.
  EXPECT_EQ(psns(t.b, PacketKind::kNak), (std::vector<uint32_t>{2, 2, 2, 2, 2}));
  EXPECT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 2}));
  EXPECT_EQ(t.a.records[0].retransmits, 1);
  EXPECT_EQ(t.a.records[0].timeouts, 0);
  EXPECT_EQ(t.b.rc.delivered(0), 8'000);
  ASSERT_EQ(t.a.done.size(), 1u);
  // The resend leaves when the first NACK arrives (PSN 3 sent, then a wire each way); the ACK of all 8 comes
  // back at once when it fills the gap.
  const Time nack = t.a.sent[3].at + t.a.delay * 2;
  EXPECT_EQ(t.a.sent.back().at, nack);
  // One ACK: 0, 1 (ack_interval 1), then the resent 2 with the 5 placed after it, once.
  EXPECT_EQ(psns(t.b, PacketKind::kAck), (std::vector<uint32_t>{0, 1, 7}));
  EXPECT_EQ(t.a.done[0].at, nack + t.a.delay * 2);
  // Go-back-N on the same loss resends PSNs 2..7.
  Pair g;
  g.a.rc.inject_drop(0, 2);
  g.a.post(0, RdmaOp::kWrite, 8'000);
  g.run();
  EXPECT_EQ(g.a.records[0].retransmits, 6);
}

TEST(RcTransportIrn, SeveralLostPacketsAreEachResentOnceAndSackedOnesAreNot) {
  Pair t(irn_params());
  for (uint32_t psn : {1u, 4u, 5u}) {
    t.a.rc.inject_drop(0, psn);
  }
  t.a.post(0, RdmaOp::kWrite, 10'000);  // PSN 0..9
  t.run();
  const std::vector<uint32_t> data = psns(t.a, PacketKind::kData);
  ASSERT_EQ(data.size(), 13u);
  EXPECT_EQ(std::vector<uint32_t>(data.begin() + 10, data.end()), (std::vector<uint32_t>{1, 4, 5}));
  EXPECT_EQ(t.a.records[0].retransmits, 3);
  EXPECT_EQ(t.b.rc.delivered(0), 10'000);
  ASSERT_EQ(t.a.done.size(), 1u);
}

TEST(RcTransportIrn, BdpCapBoundsThePacketsInFlight) {
  NicParams p = irn_params();
  p.irn_bdp_cap = "4";
  Pair t(p);
  t.a.post(0, RdmaOp::kWrite, 40'000);
  t.run();
  EXPECT_EQ(most_in_flight(t.a, t.b), 4u);
  ASSERT_EQ(t.a.done.size(), 1u);
  // Four packets per round trip of 2 us (the wire each way; the packets' own time is under 0.1 us each).
  EXPECT_GE(t.a.done[0].at, Time::us(2 * 40 / 4));
  // Without the cap the sender is limited by its line rate only.
  Pair u(irn_params());
  u.a.post(0, RdmaOp::kWrite, 40'000);
  u.run();
  EXPECT_GT(most_in_flight(u.a, u.b), 4u);
  EXPECT_LT(u.a.done[0].at, Time::us(10));
}

TEST(RcTransportIrn, AutoBdpCapIsTheLineRateTimesTheBaseRoundTripInPackets) {
  // 100 Gb/s x 2 us (the rig's base RTT) = 25,000 B = 25 packets of 1,000 B.
  NicParams p = irn_params();
  p.irn_bdp_cap = "auto";
  Pair t(p);
  t.b.delay = Time::us(20);  // ACKs come back late: the cap, not the ACK clock, holds the sender
  t.a.post(0, RdmaOp::kWrite, 100'000);
  t.run();
  EXPECT_EQ(most_in_flight(t.a, t.b), 25u);
}

TEST(RcTransportIrn, TheTimeoutIsRtoLowWithFewPacketsInFlightAndRtoHighWithMore) {
  NicParams p = irn_params();
  p.irn_rto_low = Time::us(30);
  p.irn_rto_high = Time::us(200);
  // The last of 4 packets is lost: one in flight when PSN 2's ACK arrives, so RTO_low from then.
  Pair t(p);
  t.a.rc.inject_drop(0, 3);
  t.a.post(0, RdmaOp::kWrite, 4'000);
  t.run();
  const std::vector<End::Sent>& s = t.a.sent;
  ASSERT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 2, 3, 3}));
  EXPECT_EQ(s[4].at, s[2].at + t.a.delay * 2 + Time::us(30));
  EXPECT_EQ(t.a.records[0].timeouts, 1);
  ASSERT_EQ(t.a.done.size(), 1u);
  // All 10 packets lost: 10 in flight, so RTO_high; every one is sent again, the oldest first.
  Pair h(p);
  h.a.drop_data = true;
  h.a.post(0, RdmaOp::kWrite, 10'000);
  h.sim.run(Time::us(250));
  const std::vector<uint32_t> data = psns(h.a, PacketKind::kData);
  ASSERT_EQ(data.size(), 20u);
  EXPECT_EQ(data[10], 0u);
  EXPECT_EQ(data[19], 9u);
  EXPECT_EQ(h.a.sent[10].at, Time::us(200));
}

TEST(RcTransportIrn, ATimeoutResendsOnlyWhatNoNackReported) {
  // PSNs 2 and 5 of 10 are lost, and so is PSN 2's resend. The NACKs SACK 3, 4 and 6..9: recovery resends 2 and
  // 5 once; PSN 5's resend lands, PSN 2's does not, and the timeout resends PSN 2 alone.
  NicParams p = irn_params();
  p.irn_rto_low = Time::us(30);
  p.irn_rto_high = Time::us(200);
  Pair t(p);
  for (uint32_t psn : {2u, 5u, 2u}) {
    t.a.rc.inject_drop(0, psn);
  }
  t.a.post(0, RdmaOp::kWrite, 10'000);
  t.run();
  EXPECT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 2, 5, 2}));
  EXPECT_EQ(t.a.records[0].timeouts, 1);
  EXPECT_EQ(t.a.records[0].retransmits, 3);
  EXPECT_EQ(t.b.rc.delivered(0), 10'000);
  ASSERT_EQ(t.a.done.size(), 1u);
}

TEST(RcTransportIrn, AfterAnIdleSpellTheTimeoutRunsFromTheNextSend) {
  // The first message is acknowledged at once; the second's only packet is lost 150 us later. Its timeout is
  // RTO_low from its own send, not from the last ACK.
  NicParams p = irn_params();
  p.irn_rto_low = Time::us(100);
  Pair t(p);
  t.a.post(0, RdmaOp::kWrite, 1'000);
  t.sim.run(Time::us(150));
  t.a.rc.inject_drop(0, 1);
  t.a.post(0, RdmaOp::kWrite, 1'000);
  t.run();
  ASSERT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 1}));
  EXPECT_EQ(t.a.sent.back().at - t.a.sent[1].at, Time::us(100));
  ASSERT_EQ(t.a.done.size(), 2u);
}

TEST(RcTransportIrn, APacketDeeperThanTheKeptWindowFallsBackToGoBackN) {
  // PSN 0 is lost twice (its first send and its resend after the first NACK) and the timeout is far: PSNs 1 ..
  // 8191 are kept (8,191 NACKs), PSN 8192 is 8,192 past the gap, beyond what a receiver keeps: one plain NAK,
  // the rest dropped. The sender goes back to 0; once 0 lands, the ACK covers the 8,191 kept packets, and the
  // sender goes on from 8192 rather than resending them.
  NicParams p = irn_params();
  p.irn_rto_high = Time::ms(5);
  Pair t(p);
  t.a.rc.inject_drop(0, 0);
  t.a.rc.inject_drop(0, 0);
  t.a.post(0, RdmaOp::kWrite, 10'000'000);  // PSN 0..9999
  t.run();
  EXPECT_EQ(t.b.count(PacketKind::kNak), 8'192);
  int zeros = 0;
  for (uint32_t psn : psns(t.a, PacketKind::kData)) {
    zeros += psn == 0;
  }
  EXPECT_EQ(zeros, 3);
  EXPECT_EQ(t.a.records[0].timeouts, 0);
  // Resent: PSN 0 twice; after the go-back, what went out before the ACK of the kept packets came back (a round
  // trip of 2 us: at most 26 packets at 100 Gb/s); and the packets past 8192 that were dropped, those sent in the
  // round trip before the go-back (at most 26 more). Going back over all 8,191 kept packets would be 8,000 more.
  EXPECT_LE(t.a.records[0].retransmits, 2 + 26 + 26);
  EXPECT_EQ(t.b.rc.delivered(0), 10'000'000);
  ASSERT_EQ(t.a.done.size(), 1u);
  EXPECT_EQ(t.a.done[0].status, WcStatus::kSuccess);
}

TEST(RcTransportIrn, SendPacketsPastAGapAreKeptToo) {
  Pair t(irn_params());
  t.b.rc.post(WorkPost{WorkPost::kRecv, 0, WorkRequest{}, 0, 0, 1});
  t.a.rc.inject_drop(0, 1);
  t.a.post(0, RdmaOp::kSend, 4'000);
  t.run();
  EXPECT_EQ(psns(t.a, PacketKind::kData), (std::vector<uint32_t>{0, 1, 2, 3, 1}));
  ASSERT_EQ(t.b.done.size(), 1u);
  EXPECT_EQ(t.b.done[0].kind, WcKind::kRecv);
  EXPECT_EQ(t.b.done[0].bytes, 4'000);
}

}  // namespace rocesim
