// The RC transport of an RDMA NIC: reliable-connected queue pairs over RoCEv2 (or InfiniBand), each paced by its
// congestion control.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "rocesim/cc/cc.hpp"
#include "rocesim/nic/flow.hpp"
#include "rocesim/nic/nic_params.hpp"
#include "rocesim/nic/notification_point.hpp"
#include "rocesim/nic/port_arbiter.hpp"
#include "rocesim/nic/post_engine.hpp"
#include "rocesim/nic/transport.hpp"

namespace rocesim {

// The transport's event kinds (after the post engine's and the port's, nic/port_arbiter.hpp): kEvRto: a send half;
// kEvCcTimer: the send half and the algorithm's timer id; kEvReadRto: a READ requester's receive half. The NIC hands
// each back to RcTransport::on_event.
enum RcTransportEvent : uint32_t { kEvRto = kEvWake + 1, kEvCcTimer, kEvReadRto };

// One end of a connection as Network::connect sets it up: a half queue pair carries one direction of data.
struct SendQpInit {
  uint32_t peer = 0;      // the data receiver (NIC index)
  uint32_t peer_qpn = 0;  // its receive half
  int priority = 3;
  uint16_t sport = 0;
  Time base_rtt;                // what the congestion control takes as the round trip (Network::ack_clocked_rtt)
  bool read_responder = false;  // sends READ responses when READ requests arrive
  uint32_t owner = 0;           // the application (at this NIC's server) told of completions
  uint32_t handle = 0;          // the application's name for the queue pair
  uint32_t conn = 0;            // the network's connection index (for records)
};
struct RecvQpInit {
  uint32_t peer = 0;  // the data sender (NIC index)
  int priority = 3;
  uint16_t sport = 0;
  bool read_requester = false;  // takes READ responses for READs posted here
  bool notify_landed = false;   // report WcKind::kLanded for plain WRITEs
  uint32_t owner = 0;
  uint32_t handle = 0;
  uint32_t conn = 0;
};

// Buckets of reorder depth (how far past the next expected PSN a data packet arrives): 1, 2-3, 4-7, ... and the
// last one every depth from 2^(kReorderBuckets - 1) on.
inline constexpr int kReorderBuckets = 12;
inline int reorder_bucket(uint32_t depth) {
  return std::min(kReorderBuckets - 1, 31 - __builtin_clz(std::max<uint32_t>(depth, 1)));
}

// What the RC transport counts.
struct RcCounters {
  int64_t data_sent = 0;  // data packets put on the wire, retransmissions included
  int64_t ctrl_sent = 0;  // ACK, NAK, CNP and READ request packets sent
  int64_t cnps_sent = 0;
  int64_t naks_sent = 0;
  int64_t acks_sent = 0;
  // Data packets that arrived past the next expected PSN (out of order), by depth bucket (reorder_bucket).
  std::array<int64_t, kReorderBuckets> reorder_depth{};
};

// Fields of an ACK or NAK beyond the addressing (see RcTransport::send_ctrl).
struct CtrlExtra {
  uint8_t flags = 0;
  uint16_t ack_pkts = 0;
  uint16_t ack_ce = 0;
};

// Reliable-connected queue pairs (IBTA vol 1, chapter 9), as half queue pairs: WRITE and SEND data flows from a send
// half to the peer's receive half; a READ's requester holds a receive half (read_requester) and the responder a
// send half (read_responder) that starts when a READ request arrives. The receive half delivers in order and answers
// the first PSN gap with a NAK (go-back-N), coalesces ACKs every nic.ack_interval packets, answers a SEND without a
// posted receive with an RNR NAK, and is DCQCN's notification point. The send half paces each queue pair at its
// congestion control's rate, retransmits from a NAK's PSN or after nic.retransmit_timeout, and goes to the error
// state after nic.retry_count timeouts in a row.
//
// With nic.loss_recovery: irn (IRN, Mittal et al., SIGCOMM 2018, section 3.1) the receive half keeps WRITE and SEND
// packets past a gap and answers each with a NACK that carries the next expected PSN and the PSN it got (a SACK);
// the send half resends only the PSNs below the highest SACKed one that no NACK reported, times out after
// nic.irn_rto_low or nic.irn_rto_high, and keeps at most nic.irn_bdp_cap packets in flight (BDP-FC). READ responses
// are still recovered by the requester asking again from the first missing one.
//
// Contract: that of a NicTransport. It reaches the NIC only through TransportHost: wake() when something may be sent,
// queue_control() for ACKs, NAKs, CNPs and READ requests, the records of its messages, and completions.
class RcTransport final : public NicTransport {
 public:
  RcTransport(const TransportContext& ctx, const NicParams& p, const CcAlgorithm& cc);
  RcTransport(const RcTransport&) = delete;
  RcTransport& operator=(const RcTransport&) = delete;

  const NicParams& params() const { return p_; }
  // The link layer its packets are framed for (before the run).
  void use_fabric(wire::Fabric f);
  // Data packets carry, and ACKs echo, an INT header (HPCC).
  bool telemetry() const { return telemetry_; }
  // Each send half spreads its data packets over `n` UDP source ports (routing.balance: source), from its own.
  void use_entropies(int n) { entropies_ = n; }

  // Half queue pairs, set up before the run; `line_rate` is the NIC's link's (the congestion control's start).
  uint32_t add_send_qp(const SendQpInit& init, Rate line_rate);
  uint32_t add_recv_qp(const RecvQpInit& init);
  void set_recv_peer(uint32_t recv_qpn, uint32_t send_qpn) override { recv_[recv_qpn].src_qpn = send_qpn; }
  // Where a half's messages go, for their records: a send half's, and a READ requester's (the data's source).
  struct Peer {
    uint32_t dst = 0;
    int prio = 0;
    uint16_t sport = 0;
    uint32_t conn = 0;
  };
  Peer send_peer(uint32_t qpn) const;
  Peer read_peer(uint32_t qpn) const;

  // Work requests, as the post engine hands them on: a WRITE or SEND on a send half, a READ on a read requester's
  // receive half (its record is the NIC's `record`, its packets carry `flow`), receive buffers on a receive half.
  void post(const WorkPost& post) override;
  // Data, ACK, NAK, READ request and CNP packets for its queue pairs; it releases them. Inline: the NIC's own
  // dispatch on the packet's kind, around it, then picks the branch at compile time.
  void receive(Packet* p) override {
    switch (p->kind) {
      case PacketKind::kData:
        on_data(p);
        break;
      case PacketKind::kAck:
      case PacketKind::kNak:
        on_ack(p);
        break;
      case PacketKind::kReadRequest:
        on_read_request(p);
        break;
      case PacketKind::kCnp:
        on_cnp(p);
        break;
      default:
        break;
    }
    ctx_.pool.release(p);
  }
  void on_event(uint32_t kind, uint64_t arg) override;

  // The port arbiter's side. The next data packet, round robin over the queue pairs with packets to send, skipping
  // those whose priority is `paused`, whose pacing or RNR timer holds them (the earliest such time lowers
  // `earliest`) or whose window is full. `lost`: an injected loss (inject_drop), which takes the wire but never
  // arrives. Inlined into PortArbiter::next (nic/port_arbiter.hpp), the port's hot loop: a call measured +1.2 %
  // instructions on ft16, GCC keeping it out of line as the virtual table holds its address.
  [[gnu::always_inline]] Next next_packet(uint8_t paused, Time now, Time& earliest) override;
  bool wants_port() const override { return !active_.empty(); }
  // Queue pairs with packets to send (or sent and not yet leaving the round-robin list).
  size_t active() const { return active_.size(); }
  // With one active queue pair: when its pacing and RNR timer let it send next, or Time::max() if it has nothing
  // to send or its window is full (an ACK, NAK or timeout wakes the NIC then).
  Time lone_ready() const;
  // Priorities on which an active queue pair has packets to send.
  uint8_t waiting_prios() const;
  // Starts loading the queue pair a packet arriving for it will touch, and the one the round robin serves next.
  void prefetch_arrival(const Packet& p) const {
    if (p.kind == PacketKind::kData) {
      __builtin_prefetch(&recv_[p.qpn]);
    } else if (p.kind == PacketKind::kAck || p.kind == PacketKind::kNak || p.kind == PacketKind::kCnp) {
      __builtin_prefetch(&send_[p.qpn]);
    }
  }
  // ... and the send half a WRITE or SEND is posted on, and its messages.
  void prefetch_post(uint32_t send_qpn) const {
    __builtin_prefetch(&send_[send_qpn]);
    __builtin_prefetch(&sq_side_[send_qpn]);
  }
  void prefetch_next() const {
    if (!active_.empty()) {
      __builtin_prefetch(&send_[active_[rr_ < active_.size() ? rr_ : 0]]);
    }
  }

  const RcCounters& counters() const { return cnt_; }
  // What a receive half has taken in order, in payload bytes.
  int64_t delivered(uint32_t recv_qpn) const override { return recv_[recv_qpn].delivered; }
  // Data packets a receive half saw arrive out of order (past the next expected PSN).
  int64_t out_of_order(uint32_t recv_qpn) const { return recv_[recv_qpn].ooo; }
  // Retransmissions and CNPs of a READ responder's send half (the requester holds the record).
  std::pair<int64_t, int64_t> responder_counters(uint32_t send_qpn) const {
    return {sq_side_[send_qpn].retransmits, sq_side_[send_qpn].cnps};
  }
  Rate send_rate(uint32_t send_qpn) const override { return send_[send_qpn].cc->rate; }
  // For tests: drop the next data packet this NIC would send with this PSN on this send half (once).
  void inject_drop(uint32_t send_qpn, uint32_t psn) { drops_.push_back({send_qpn, psn}); }
  int64_t injected_drops() const { return injected_; }

 private:
  static constexpr uint32_t kNoRecord = UINT32_MAX;
  // A congestion-control timer's argument: the send QP and the algorithm's timer id.
  struct CcTimerArg {
    uint32_t qpn = 0;
    uint32_t id = 0;
    uint64_t encode() const { return uint64_t{qpn} << 32 | id; }
    static CcTimerArg decode(uint64_t a) { return {static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(a)}; }
  };
  // A message on a half queue pair, in PSN order: packets first_psn .. end_psn - 1.
  struct QpMessage {
    uint32_t first_psn = 0;
    uint32_t end_psn = 0;
    int64_t size = 0;
    uint32_t record = kNoRecord;  // the NIC's record, or none (a READ responder's)
    uint32_t flow = 0;  // what its packets carry as Packet::flow (the RETH R_Key): the flow id, or the NIC's count
    RdmaOp op = RdmaOp::kWrite;
    bool signaled = false;
    uint64_t wr_id = 0;
  };

  // Two cache lines, aligned: the vector's entries would otherwise straddle three. The message being sent
  // (the one next_psn is in) is cached here: tx_first .. tx_end, tx_size, op, tx_flow.
  struct alignas(64) SendQp {
    uint32_t tx_flow = 0;
    uint32_t dst = 0;
    uint32_t dst_qpn = 0;
    uint32_t end_psn = 0;  // one past the last PSN posted
    uint32_t next_psn = 0;
    uint32_t acked = 0;  // packets acknowledged (cumulative)
    uint32_t high = 0;   // one past the highest PSN ever sent
    uint32_t tx_first = 0;
    uint32_t tx_end = 0;
    int64_t tx_size = 0;
    uint8_t prio = 0;
    uint8_t dscp = 0;
    uint16_t sport = 0;
    RdmaOp op = RdmaOp::kWrite;
    bool read_response = false;  // a READ responder: no ACKs; the requester asks again for what it misses
    bool active = false;         // in the round-robin list
    bool started = false;
    bool rto_armed = false;
    bool error = false;     // retries ran out: the QP sends nothing more, its requests fail (flushed)
    bool resend = false;    // irn: a PSN below next_psn may be lost and is to be sent again
    uint8_t retries = 0;    // timeouts in a row without an ACK advancing
    Time last_tx;           // when the QP last started a packet
    int32_t last_wire = 0;  // its wire bytes
    Time next_send;         // last_tx + last_wire x 8 / rate, at the current rate (see pacing_changed)
    Time hold_until;        // after a receiver-not-ready NAK: the RNR timer
    Time rto_deadline;
    Time rto_at;                         // when the armed timeout event fires (an earlier deadline arms another)
    uint32_t max_inflight = UINT32_MAX;  // irn: BDP-FC's cap on next_psn - acked
    std::unique_ptr<CongestionControl> cc;
  };
  // What a send half needs beyond the hot path: its messages (those not yet acknowledged, from `head`), its
  // owner, and the counters of a READ responder.
  struct SendSide {
    std::vector<QpMessage> msgs;
    size_t head = 0;  // the oldest message not yet acknowledged
    size_t tx = 0;    // the message next_psn is in
    uint32_t owner = 0, handle = 0, conn = 0;
    int64_t posted_bytes = 0;  // of all messages posted (a message's offset on the QP)
    int64_t acked_bytes = 0;
    int64_t retransmits = 0, cnps = 0;
    // routing.balance source: entropies acknowledged without a CE mark, to be used again (oldest first), the
    // offset from the QP's own port of the next fresh one, and the entropy each PSN not yet acknowledged went
    // out with (slot psn % size, a power of two that grows with the packets in flight).
    std::vector<uint16_t> recycled;
    size_t recycled_head = 0;
    uint32_t fresh = 0;
    std::vector<uint16_t> sent_entropy;
    // nic.loss_recovery irn: the PSNs from the cumulative ACK on that NACKs reported received (a ring of a power of
    // two slots, psn % size), one past the highest of them, the next PSN to consider resending, and while
    // recovering, the PSN the cumulative ACK must reach to end the recovery (IRN's recovery sequence).
    std::vector<uint8_t> sacked;
    uint32_t sack_high = 0;
    uint32_t retx = 0;
    uint32_t recover = 0;
    bool recovering = false;
    // After a go-back: NACKs count as cumulative ACKs only until the cumulative ACK reaches what had been sent
    // before it (the receiver may have dropped what they SACK, and the go-back sends it again anyway).
    uint32_t sacks_from = 0;
    Time rto_base;  // irn: since when the timeout runs (the last ACK advancing, or a send with none in flight)
  };
  // Out-of-order placement (nic.ooo_placement): the WRITE packets a receive half has placed past its next
  // expected PSN, in a ring of a power of two slots (slot psn % size; opcode 0xFF marks an empty one) that grows
  // with the deepest packet placed, up to kMaxPlaceWindow PSNs past the next expected one; a packet deeper than
  // that is dropped and answered with a NAK, as without placement.
  static constexpr uint32_t kMaxPlaceWindow = 8192;
  struct Placed {
    uint16_t payload = 0;
    uint8_t opcode = 0xFF;
    uint8_t flags = 0;
    bool ce = false;
  };
  struct RecvQp {
    uint32_t src = 0;
    uint32_t src_qpn = 0;
    uint32_t expected = 0;
    uint32_t since_ack = 0;
    uint32_t ce_since_ack = 0;
    bool nak_sent = false;
    bool read = false;  // the requester of READs: takes responses, sends no ACKs
    bool notify_landed = false;
    uint8_t prio = 0;
    uint16_t sport = 0;
    NotificationPoint::QpState np;
    int64_t delivered = 0;  // payload bytes taken in order
    int64_t msg_bytes = 0;  // of the message being received
    int64_t credits = 0;    // posted receives not yet taken by a SEND
    uint64_t received = 0;  // messages completed here (kRecv, kLanded)
    Time deadline;          // READ: re-request if no response advances before this
    bool rto_armed = false;
    bool error = false;   // READ requester: retries ran out
    uint8_t retries = 0;  // READ requester: timeouts in a row without a response advancing
    uint32_t owner = 0, handle = 0, conn = 0;
    // READ requester: the READs posted, from the oldest outstanding (read_head); read_end is the next PSN.
    std::vector<QpMessage> reads;
    size_t read_head = 0;
    size_t read_next = 0;  // the first READ whose request has not gone out (max_rd_atomic)
    uint32_t read_end = 0;
    int64_t posted_bytes = 0;
    int64_t ooo = 0;             // data packets that arrived past `expected`
    std::vector<Placed> placed;  // empty until a WRITE packet is placed out of order
  };

  void start_send(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow);
  void start_read(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow);
  void on_data(Packet* p);
  void on_ack(Packet* p);
  void on_read_request(Packet* p);
  void on_cnp(const Packet* p);
  bool window_full(const SendQp& q) const {
    return (q.cc->window > 0 && int64_t{q.next_psn - q.acked} * p_.mtu >= q.cc->window) ||
           q.next_psn - q.acked + 1 > q.max_inflight;  // (+1: UINT32_MAX, no cap, is never exceeded)
  }
  // After the congestion control may have changed the rate: recompute when the QP may send next.
  void pacing_changed(SendQp& q) { q.next_send = q.last_tx + q.cc->rate.tx_time(Bytes(q.last_wire)); }
  // The data packet of `psn` (a new one: the caller has moved next_psn past it; or one sent again).
  Packet* data_packet(SendQp& q, uint32_t qpn, uint32_t psn, Time now);
  // A new packet of `kind` from this NIC to queue pair `qpn` at `dst`: its message's flow tag, PSN and UDP source
  // port (the QP's ECMP entropy) set, the rest for the caller.
  Packet* addressed(PacketKind kind, uint32_t dst, uint32_t qpn, uint32_t flow, uint32_t psn, uint16_t sport) {
    Packet* p = ctx_.pool.acquire(kind);
    p->src = ctx_.host;
    p->dst = dst;
    p->qpn = qpn;
    p->flow = flow;
    p->psn = psn;
    p->sport = sport;
    return p;
  }
  // Whether a test asked for this packet to be lost (inject_drop), forgetting the request.
  bool take_injected(uint32_t qpn, uint32_t psn);
  void activate(uint32_t qpn);
  // Queues an ACK, NAK or CNP; `about` is the data packet that caused it (ACKs echo its time and telemetry).
  // Everything is filled in before the packet is queued: it may leave at once.
  void send_ctrl(PacketKind kind, const Packet& about, uint32_t dst, uint32_t qpn, uint32_t psn, CtrlExtra extra = {});
  void on_read_response(RecvQp& r, const Packet* p);
  // A data packet `depth` PSNs past the next expected one: counted, and with nic.ooo_placement a WRITE's packet
  // within the window is kept. Whether it was.
  bool out_of_order(RecvQp& r, const Packet& p);
  // After `about` was taken in order: takes the placed packets that now follow, as if they arrived with it.
  void take_placed(RecvQp& r, const Packet& about);
  // routing.balance source: the entropy (UDP source port) of a send half's next data packet, and what an ACK's
  // echo of one says about it.
  uint16_t next_entropy(SendQp& q, uint32_t qpn, uint32_t psn);
  // An ACK of PSNs from .. upto - 1: without a CE mark among them, their entropies are used again.
  void entropies_acked(uint32_t qpn, uint32_t from, uint32_t upto, bool marked);
  void message_received(RecvQp& r, uint8_t opcode);
  // Resends from `psn` (go-back-N, IBTA vol 1, 9.7.5.1.1): the next packet sent is `psn`'s, and the timeout
  // restarts.
  void go_back(SendQp& q, uint32_t psn, uint32_t qpn);
  // The retransmission timeout after now: nic.retransmit_timeout, or irn's by the packets in flight.
  Time rto_after(const SendQp& q) const {
    if (!irn_) {
      return p_.retransmit_timeout;
    }
    return q.next_psn - q.acked <= p_.irn_rto_low_packets ? p_.irn_rto_low : p_.irn_rto_high;
  }
  // Arms the timeout event for rto_deadline, unless one armed fires no later.
  void arm_rto(SendQp& q, uint32_t qpn);
  // irn: a NACK's SACK at the sender (section 3.1's loss recovery), after its cumulative ACK was taken.
  void irn_nack(SendQp& q, uint32_t qpn, uint32_t sacked_psn);
  // irn: the cumulative ACK moved from `from` to q.acked: forgets the SACKs below it, ends a recovery it passed.
  void irn_acked(SendQp& q, uint32_t qpn, uint32_t from);
  // irn: the next PSN to send again (below the highest SACKed one and not SACKed itself), or nullptr when there
  // is none (resend is then cleared).
  Packet* resend_packet(SendQp& q, uint32_t qpn, Time now);
  // irn: a timeout: what is in flight and not SACKed is sent again.
  void irn_timeout(SendQp& q, uint32_t qpn);
  // irn: a NACK's extra field, the PSN that arrived (+1: 0 is a plain NAK).
  static CtrlExtra sack_extra(uint32_t psn) {
    return CtrlExtra{0, static_cast<uint16_t>((psn + 1) >> 16), static_cast<uint16_t>((psn + 1) & 0xFFFF)};
  }
  // irn: forgets every SACK and ends the recovery (after a go-back).
  void irn_reset(SendQp& q, uint32_t qpn);
  void on_rto(uint32_t qpn);
  void on_read_rto(uint32_t qpn);
  void send_read_request(RecvQp& r, const QpMessage& m, uint32_t psn);
  void issue_reads(RecvQp& r);
  // The first message of a send half: pacing and congestion control start now.
  void start_qp(SendQp& q);
  // Makes the message `psn` is in the one being sent.
  void seek_tx(SendQp& q, uint32_t qpn, uint32_t psn);
  // A packet of the message being sent goes out again: its record counts it (a READ responder's half, itself).
  void count_resent(uint32_t qpn);
  // The record that counts a send half's events now (its oldest message's), or nullptr (a READ responder's).
  FlowRecord* head_record(uint32_t qpn);
  QpMessage message(uint32_t first_psn, const WorkRequest& wr, uint32_t record, uint32_t flow) const;
  // A new message on a half: on a half in the error state it fails at once (flushed); otherwise it takes its byte
  // offset on the half (`posted_bytes`, which it advances).
  bool admit(const QpMessage& m, bool error, uint32_t owner, uint32_t handle, int64_t& posted_bytes);
  // The message is complete at the requester: its record, the run's hold on it, its completion if signaled.
  void finish_message(const QpMessage& m, uint32_t owner, uint32_t handle);
  // The message failed (its QP is in the error state): its record, the hold, an error completion.
  void fail_message(const QpMessage& m, uint32_t owner, uint32_t handle, WcStatus status);
  // A requester's retries ran out (the retry counter of IBTA vol 1, 9.7; retry_cnt in ibv_modify_qp(3)): the QP
  // goes to the error state and every request on it fails, the oldest with kRetryExceeded, the rest flushed.
  void fail_send_qp(uint32_t qpn);
  void fail_read_qp(uint32_t qpn);
  // Drops the messages before `head` once they are most of the list (their records stay the NIC's).
  void compact(SendSide& side);

  // What the port arbiter and arriving packets touch first: the queue pairs and the round-robin list.
  std::vector<SendQp> send_;
  std::vector<uint32_t> active_;  // round-robin list of send QPs with packets to send
  size_t rr_ = 0;
  std::vector<RecvQp> recv_;
  RcCounters cnt_;
  bool telemetry_ = false;
  bool irn_ = false;        // nic.loss_recovery: irn
  int entropies_ = 0;       // routing.balance source: UDP source ports per send half; 0: its own only
  uint8_t wire_flags_ = 0;  // Packet::kFlagIb on InfiniBand
  wire::Fabric fabric_ = wire::Fabric::kRoceV2;
  TransportContext ctx_;
  NicParams p_;
  const CcAlgorithm& cc_alg_;
  NotificationPoint np_;
  std::vector<SendSide> sq_side_;
  std::vector<std::pair<uint32_t, uint32_t>> drops_;
  int64_t injected_ = 0;
  // The congestion controls' timers, as kEvCcTimer events at the NIC. A member, not a base: a second virtual table
  // pointer would push the round-robin list off the queue pairs' cache line.
  struct Timers final : CcTimers {
    explicit Timers(const TransportContext& c) : ctx(c) {}
    void arm(CongestionControl* cc, Time at, uint32_t id) override;
    const TransportContext& ctx;
  } timers_{ctx_};
};
static_assert(!std::is_move_constructible_v<RcTransport>, "its timers refer to its own context");

inline RcTransport::Next RcTransport::next_packet(uint8_t paused, Time now, Time& earliest) {
  for (size_t tries = 0; tries < active_.size();) {
    if (rr_ >= active_.size()) {
      rr_ = 0;
    }
    const uint32_t qpn = active_[rr_];
    SendQp& q = send_[qpn];
    if (q.next_psn >= q.end_psn && !q.resend) {  // all sent: leave the list until a post, NAK or timeout brings it back
      q.active = false;
      active_[rr_] = active_.back();
      active_.pop_back();
      continue;
    }
    ++tries;
    if (paused & (1u << q.prio)) {
      ++rr_;
      continue;
    }
    if (const Time at = std::max(q.next_send, q.hold_until); at > now) {
      earliest = std::min(earliest, at);
      ++rr_;
      continue;
    }
    if (q.resend) [[unlikely]] {  // irn: a lost packet goes before new ones, whatever the window
      if (Packet* p = resend_packet(q, qpn, now)) {
        ++rr_;
        return {p, !drops_.empty() && take_injected(qpn, p->psn)};
      }
      if (q.next_psn >= q.end_psn) {
        continue;  // (leaves the list)
      }
    }
    if (window_full(q)) {  // a window-based controller caps the bytes in flight; an ACK reopens it
      ++rr_;
      continue;
    }
    ++rr_;
    const uint32_t psn = q.next_psn++;
    Packet* p = data_packet(q, qpn, psn, now);
    return {p, !drops_.empty() && take_injected(qpn, psn)};
  }
  return {};
}

}  // namespace rocesim
