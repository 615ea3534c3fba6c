// An RDMA NIC: reliable-connected queue pairs over RoCEv2, paced by per-QP congestion control, honouring PFC.
#pragma once

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

#include "rocesim/cc/cc.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/net/credits.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/net/ring.hpp"
#include "rocesim/nic/completion_queue.hpp"
#include "rocesim/nic/flow.hpp"
#include "rocesim/nic/notification_point.hpp"
#include "rocesim/nic/pfc_source.hpp"
#include "rocesim/nic/post_engine.hpp"
#include "rocesim/nic/tcp.hpp"

namespace rocesim {

struct NicParams {
  int64_t mtu = 0;  // payload bytes per packet
  int64_t ack_interval = 0;
  Time retransmit_timeout;
  int64_t ack_priority = 0;
  int64_t cnp_priority = 0;
  Time rnr_timer;
  Time tx_pipeline;           // from the NIC's send engine to the wire, per packet
  Time rx_pipeline;           // from the wire to host memory (and the receive engine), per packet
  Time wqe_fetch;             // from a doorbell to the NIC holding the work request (MMIO write, DMA read of the WQE)
  Time wqe_gap;               // the send engine's time per work request: its message rate is 1 / wqe_gap
  int64_t max_rd_atomic = 0;  // READs a requester has outstanding per QP; the responder keeps as many
  int64_t retry_count = 0;    // timeouts in a row a requester retries before its QP goes to the error state
  std::string dscp_map;       // priority to the DSCP the NIC writes, "auto" to follow the switches' map
  Bytes rx_buffer;            // the receive buffer a slow receiver fills (nic/rx_buffer.hpp)
  int64_t cable_length = 0;   // metres, for the receive buffer's PFC headroom
  Time post_cpu;              // host CPU time of posting one work request (ibv_post_send)
  static const Schema<NicParams>& schema();
};

// Parses "3:26, 6:48" (priority:DSCP) into the DSCP of each priority, -1 where unlisted (throws UnitError).
std::array<int, 8> parse_prio_dscp_map(const std::string& s);

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

// What one NIC counts itself.
struct NicOwnCounters {
  int64_t data_sent = 0;  // data packets put on the wire, retransmissions included
  int64_t data_rcvd = 0;  // data packets that reached this NIC (in order or not)
  int64_t ctrl_sent = 0;  // ACK, NAK and CNP packets sent
  int64_t ctrl_rcvd = 0;
  int64_t cnps_sent = 0;
  int64_t naks_sent = 0;
  int64_t acks_sent = 0;
  int64_t tx_bytes = 0;  // frame bytes
  int64_t rx_bytes = 0;
  int64_t lost_link_down = 0;  // packets sent on, or in flight on, this NIC's link when it was down
  Time post_cpu;               // host CPU time spent posting RDMA work requests
};

// Counters of one NIC: its own and its PFC source's.
struct NicCounters : NicOwnCounters, PfcSourceCounters {};

// Fields of an ACK or NAK beyond the addressing (see Nic::send_ctrl).
struct CtrlExtra {
  uint8_t flags = 0;
  uint16_t ack_pkts = 0;
  uint16_t ack_ce = 0;
};

class Nic final : public Node, public CcTimers, private TransportHost, private PfcSourceHost, private PostEngineHost {
 public:
  Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
      std::array<uint8_t, 8> prio_to_dscp);

  void connect(const LinkEnd& link) {
    link_ = link;
    tx_ = TxLink::of(link);
  }
  const LinkEnd& link() const { return link_; }
  void set_sink(CompletionSink* s) { cq_.set_sink(s); }

  // Half queue pairs, set up before the run. WRITE and SEND data flows from a send half to the peer's receive
  // half; a READ's requester holds a receive half (read_requester) and the responder a send half
  // (read_responder) that starts when a READ request arrives.
  uint32_t add_send_qp(const SendQpInit& init);
  uint32_t add_recv_qp(const RecvQpInit& init);
  void set_recv_peer(uint32_t recv_qpn, uint32_t send_qpn) {
    if (recv_qpn & kTcpBit) {
      tcp_->set_recv_peer(recv_qpn & ~kTcpBit, send_qpn & ~kTcpBit);
    } else {
      recv_[recv_qpn].src_qpn = send_qpn;
    }
  }
  // TCP connections (kernel TCP on `cpu`, or iWARP when offloaded), beside the queue pairs: their halves are
  // numbered with kTcpBit set, and post_send, delivered and set_recv_peer take them like a queue pair's.
  static constexpr uint32_t kTcpBit = 1u << 31;
  void enable_tcp(const TcpParams& p, const TcpCcAlgorithm& cc, HostCpu* cpu) {
    if (!tcp_) {
      tcp_ = std::make_unique<TcpStack>(TransportContext{sim_, pool_, *this, host_, prio_to_dscp_, *this}, p, cc, cpu);
    }
  }
  bool has_tcp() const { return tcp_ != nullptr; }
  uint32_t add_tcp_send(const TcpSendInit& init);
  uint32_t add_tcp_recv(const TcpRecvInit& init);
  const TcpStack* tcp() const { return tcp_.get(); }
  // The link layer its packets are framed for (before the run; RoCEv2 unless set).
  void use_fabric(wire::Fabric f);
  wire::Fabric fabric() const { return fabric_; }
  // InfiniBand credits (net/credits.hpp): this port's receive buffer per VL, and the peer's, which sets the
  // initial limit of what this port may send. Before the run.
  void enable_credits(const CreditConfig& rx, uint32_t peer_buffer_blocks);
  // This port's receive buffer per VL from now on (before traffic): a NIC that buffers what PCIe is slow to take
  // advertises its receive buffer.
  void set_rx_credits(const CreditConfig& rx);
  const CreditTx* credit_tx() const { return credits_ ? &credits_->tx : nullptr; }
  // The largest frame this NIC sends (a full MTU packet with a RETH and, with HPCC, its INT header).
  int max_frame() const;
  // Host CPU time this NIC's traffic used: posting RDMA work requests, and kernel TCP's copies and protocol work.
  Time cpu_time() const { return cnt_.post_cpu + (tcp_ ? tcp_->cpu_time() : Time()); }

  // Work requests. A post names the time the application rings the doorbell (now or later); the message's
  // record is this NIC's (see records()). `id`: the record's flow id if known now (setup), else kUnnumbered.
  // WRITE, WRITE with immediate and SEND go on a send half; READ on a read-requester receive half.
  static constexpr uint32_t kUnnumbered = UINT32_MAX;
  void post_send(uint32_t send_qpn, const WorkRequest& wr, Time at, uint32_t id = kUnnumbered);
  void post_read(uint32_t recv_qpn, const WorkRequest& wr, Time at, uint32_t id = kUnnumbered);
  // Posts `count` receive buffers (ibv_post_recv) on a receive half at `at`: each SEND that arrives takes one.
  void post_recv(uint32_t recv_qpn, int64_t count, Time at);

  NicCounters counters() const { return NicCounters{cnt_, pfc_.counters()}; }
  const PauseState& pause_state() const { return pause_states_[0]; }
  // The messages this NIC requested, in posting order; with grouped records, a group's record where its first
  // message was posted.
  const std::vector<FlowRecord>& records() const { return records_; }
  // Keep one record per message group and queue pair instead of one per grouped message (output.flows:
  // aggregate): memory by the queue pairs and calls, not by the messages.
  void group_records(bool on) { group_records_ = on; }
  // What the receive half has taken in order, in payload bytes (for records and time series).
  int64_t delivered(uint32_t recv_qpn) const {
    return recv_qpn & kTcpBit ? tcp_->delivered(recv_qpn & ~kTcpBit) : recv_[recv_qpn].delivered;
  }
  // Retransmissions and CNPs of a READ responder's send half (the requester holds the record).
  std::pair<int64_t, int64_t> responder_counters(uint32_t send_qpn) const {
    return {sq_side_[send_qpn].retransmits, sq_side_[send_qpn].cnps};
  }
  // For tests: drop the next data packet this NIC would send with this PSN on this send half (once).
  void inject_drop(uint32_t send_qpn, uint32_t psn) { drops_.push_back({send_qpn, psn}); }
  // The current rate of a send half (for time series and tests); a TCP connection's is its window's.
  Rate qp_rate(uint32_t send_qpn) const {
    return send_qpn & kTcpBit ? tcp_->window_rate(send_qpn & ~kTcpBit) : send_[send_qpn].cc->rate;
  }
  int64_t injected_drops() const { return injected_; }
  // A fault (events: pause_storm): from `from` to `until` the NIC keeps its switch port paused on `prio`, an XOFF
  // of 65535 quanta every half pause lifetime, as a NIC whose receive pipeline is stuck does.
  void schedule_pause_storm(Time from, Time until, int prio);
  // A fault (events: slow_receiver): from `from` to `until` the NIC moves received frames to host memory at `rate`;
  // they wait in its receive buffer, which pauses the switch on the `lossless` priorities when it fills.
  void schedule_slow_receiver(Time from, Time until, Rate rate, uint8_t lossless);
  // PCIe between the NIC and the memory its data comes from and goes to, where it is slower than the link: data
  // packets leave no faster than `read` fetches their payload (0: no limit), and received data frames wait in the
  // receive buffer, pausing the switch on the `lossless` priorities as it fills, while `write` moves their
  // payload to memory (0: no limit). With InfiniBand credits instead of PFC they hold the switch.
  void set_dma(Rate read, Rate write, uint8_t lossless);
  // The least nic.rx_buffer that PFC of the receive buffer works with on this NIC's link: the headroom above the
  // XOFF point, the XON gap below it and one frame.
  Bytes rx_buffer_needed() const;

  void arm(CongestionControl* cc, Time at, uint32_t id) override;

 private:
  // The post engine's kind first (nic/post_engine.hpp), then the NIC's own: kEvWake: none; kEvRto: a send QP;
  // kEvCcTimer: CcTimerArg; kEvReadRto: a READ requester's receive QP. Then the completion queue's kind
  // (nic/completion_queue.hpp), the PFC source's (nic/pfc_source.hpp) and the TCP stack's (nic/transport.hpp),
  // each handed to its part.
  enum : uint32_t { kEvWake = kEvPost + 1, kEvRto, kEvCcTimer, kEvReadRto, kEvLast = kEvDelayedAck + 1 };
  static_assert(kEvCqe == kEvReadRto + 1, "the completion queue's event kind follows the NIC's own");
  static_assert(kEvStorm == kEvCqe + 1, "the PFC source's event kinds follow the completion queue's");
  static_assert(kEvSegmentProcessed == kEvRxRefresh + 1, "a transport's event kinds follow the PFC source's");
  // A congestion-control timer: the send QP and the algorithm's timer id.
  struct CcTimerArg {
    uint32_t qpn = 0;
    uint32_t id = 0;
    uint64_t encode() const { return uint64_t{qpn} << 32 | id; }
    static CcTimerArg decode(uint64_t a) { return {static_cast<uint32_t>(a >> 32), static_cast<uint32_t>(a)}; }
  };
  static_assert(kEvLast <= kMaxEventKinds, "event kinds fit the event queue's six bits");

  static constexpr uint32_t kNoRecord = UINT32_MAX;
  // A message on a half queue pair, in PSN order: packets first_psn .. end_psn - 1.
  struct QpMessage {
    uint32_t first_psn = 0;
    uint32_t end_psn = 0;
    int64_t size = 0;
    uint32_t record = kNoRecord;  // index into records_, or none (a READ responder's)
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
    uint8_t retries = 0;    // timeouts in a row without an ACK advancing
    Time last_tx;           // when the QP last started a packet
    int32_t last_wire = 0;  // its wire bytes
    Time next_send;         // last_tx + last_wire x 8 / rate, at the current rate (see pacing_changed)
    Time hold_until;        // after a receiver-not-ready NAK: the RNR timer
    Time rto_deadline;
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
  };

  void receive(Packet* p) override;
  // What the PFC source asks of its NIC (nic/pfc_source.hpp).
  void owe_pfc(uint8_t prios) override {
    pfc_pending_ |= prios;
    try_send();
  }
  void leaving(const Packet& p) override {
    if (credit_fc_) {
      free_credits(p);
    }
  }
  void drained(Packet* p) override;
  // The receive buffer's thresholds for this NIC's link and frames (mlx5 port_buffer.c).
  RxBufferLimits rx_limits() const;
  void prefetch(uint32_t kind, uint64_t arg) const override;
  void tx_done(uint16_t) override;
  void pause_ended(uint16_t, uint8_t) override {
    pause_armed_ = pause_states_[0].armed;
    try_send();
  }
  void link_changed(uint16_t, bool up) override {
    pause_armed_ = pause_states_[0].armed;
    if (up) {
      try_send();
    }
  }
  void lost_to_link(Packet* p, uint16_t, bool) override {
    if (p->kind != PacketKind::kPfc && p->kind != PacketKind::kCredit) {
      ++cnt_.lost_link_down;
    }
    pool_.release(p);
  }
  void on_event(uint32_t kind, uint64_t arg) override;

  void try_send();
  // Puts a TCP segment from the stack on the port, if it has one ready.
  bool send_tcp(uint8_t paused);
  // Queues a control packet on its priority (ahead of data) and tries to send.
  void queue_ctrl(Packet* c);
  // What the TCP stack asks of its NIC (nic/transport.hpp).
  void wake() override { try_send(); }
  void queue_control(Packet* p) override { queue_ctrl(p); }
  FlowRecord& record(uint32_t r) override { return records_[r]; }
  // The PFC source's frame for the priorities in pfc_pending_, on a free port.
  void send_pause();
  bool send_data(SendQp& q, uint32_t qpn);
  void activate(uint32_t qpn);
  bool window_full(const SendQp& q) const {
    return q.cc->window > 0 && int64_t{q.next_psn - q.acked} * p_.mtu >= q.cc->window;
  }
  // Queues an ACK, NAK or CNP; `about` is the data packet that caused it (ACKs echo its time and telemetry).
  // Everything is filled in before the packet is queued: it may leave at once.
  void send_ctrl(PacketKind kind, const Packet& about, uint32_t dst, uint32_t qpn, uint32_t psn, CtrlExtra extra = {});
  // Inlined into receive(), its hot caller (drained() is the other).
  [[gnu::always_inline]] inline void on_data(Packet* p);
  void on_read_response(RecvQp& r, const Packet* p);
  void message_received(RecvQp& r, uint8_t opcode);
  void on_ack(Packet* p);
  // Resends from `psn` (go-back-N, IBTA vol 1, 9.7.5.1.1): counts the packets sent again, rewinds the message
  // being sent, and restarts the timeout.
  void go_back(SendQp& q, uint32_t psn, uint32_t qpn);
  void arm_rto(SendQp& q, uint32_t qpn);
  void send_read_request(RecvQp& r, const QpMessage& m, uint32_t psn);
  void issue_reads(RecvQp& r);
  void on_read_request(Packet* p);
  // The first message of a send half: pacing and congestion control start now.
  void start_qp(SendQp& q);
  // Makes the message next_psn is in the one being sent (after next_psn moved past it, or back).
  void seek_tx(SendQp& q, uint32_t qpn);
  // The record that counts a send half's events now (its oldest message's), or nullptr (a READ responder's).
  FlowRecord* head_record(uint32_t qpn);
  // The post engine hands on a work request (nic/post_engine.hpp): to the queue pair's transport.
  void posted(const WorkPost& post) override;
  QpMessage message(uint32_t first_psn, const WorkRequest& wr, uint32_t record, uint32_t flow) const;
  void start_send(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow);
  void start_read(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow);
  // A new message's record (its own, or its group's) and the flow tag its packets carry.
  struct NewMessage {
    uint32_t record = 0;
    uint32_t flow = 0;
  };
  NewMessage new_record(uint32_t peer, int prio, uint16_t sport, uint32_t conn, const WorkRequest& wr, uint32_t id,
                        Time at);
  // The byte offset of a record's message on its queue pair (a group's: its first message's).
  void set_offset(uint32_t record, int64_t offset) override;
  // The message is complete at the requester: its record, the run's hold on it, its completion if signaled.
  void finish_message(const QpMessage& m, uint32_t owner, uint32_t handle);
  // The message failed (its QP is in the error state): its record, the hold, an error completion.
  void fail_message(const QpMessage& m, uint32_t owner, uint32_t handle, WcStatus status);
  // A requester's retries ran out (the retry counter of IBTA vol 1, 9.7; retry_cnt in ibv_modify_qp(3)): the QP
  // goes to the error state and every request on it fails, the oldest with kRetryExceeded, the rest flushed.
  void fail_send_qp(uint32_t qpn);
  void fail_read_qp(uint32_t qpn);
  void compact(SendSide& side);
  // Reports a completion to the owner through the completion queue (after the current event).
  void complete(uint32_t owner, const Completion& c) override { cq_.push(owner, c); }
  // After the congestion control may have changed the rate: recompute when the QP may send next.
  void pacing_changed(SendQp& q) { q.next_send = q.last_tx + q.cc->rate.tx_time(Bytes(q.last_wire)); }
  // An event at `t`, unless one is due by then already.
  void wake_by(Time t) {
    if (t < wake_at_) {
      wake_at_ = t;
      sim_.at(t, this, kEvWake);
    }
  }
  // After a frame went out: wake when the NIC may send next.
  void wake_after_send();

  // What sending and receiving touch comes first and together (four cache lines): a large fabric visits a NIC
  // every few thousand events, and each line of NIC state a packet touches is then a cache miss. The port
  // serialises until busy_until_. No event marks the end of each frame: after a send the NIC wakes (kEvWake at
  // wake_at_) when it may send next, which for a lone paced QP is its pacing time, one event per frame instead of
  // a tx-done and then a wake-up.
  alignas(64) TxLink tx_;  // link_ as sending reads it
  Time busy_until_;
  Time wake_at_ = Time::max();
  uint8_t pause_armed_ = 0;  // pause_states_[0].armed, kept in step with it
  uint8_t ctrl_ready_ = 0;   // priorities whose control queue is not empty
  // Priorities a PFC frame must signal (the PFC source's), or on InfiniBand VLs with credits to return: a link
  // frame goes ahead of everything.
  uint8_t pfc_pending_ = 0;
  bool rx_slow_ = false;    // pfc_.buffering(), kept in step with it
  bool telemetry_ = false;  // data packets carry, and ACKs echo, an INT header (HPCC)
  bool credit_fc_ = false;  // InfiniBand: credits_ holds the link's credits
  uint8_t wire_flags_ = 0;  // Packet::kFlagIb on InfiniBand
  bool dma_paced_ = false;  // PCIe paces the fetch of payloads to send (dma_read_, dma_ready_: cold otherwise)
  uint32_t host_;
  std::array<uint8_t, 8> prio_to_dscp_;
  std::vector<SendQp> send_;
  std::vector<uint32_t> active_;  // round-robin list of send QPs with packets to send
  size_t rr_ = 0;
  std::vector<FlowRecord> records_;
  bool group_records_ = false;
  std::unordered_map<uint32_t, uint32_t> group_row_;  // connection -> its latest group record
  uint32_t messages_ = 0;                             // messages posted: an unnumbered message's flow tag
  std::vector<RecvQp> recv_;
  NicOwnCounters cnt_;
  NicParams p_;
  std::array<PacketRing, 8> ctrl_;  // ACK, NAK and CNP packets waiting, per priority
  const CcAlgorithm& cc_alg_;
  NotificationPoint np_;
  std::vector<PauseState> pause_states_{1};
  LinkEnd link_;
  PfcSource pfc_;
  Rate dma_read_;   // how fast PCIe fetches the payload of data packets to send (0: no limit)
  Time dma_ready_;  // when the payload of the next data packet has been fetched
  std::vector<SendSide> sq_side_;
  PostEngine posts_;
  CompletionQueue cq_;
  std::vector<std::pair<uint32_t, uint32_t>> drops_;
  int64_t injected_ = 0;
  // InfiniBand: the credits of this port's two directions.
  struct Credits {
    CreditTx tx;
    CreditRx rx;
  };
  std::unique_ptr<Credits> credits_;  // only with fabric: infiniband
  // The credits a frame of `prio` takes, and the VLs a packet of the largest data frame (data) or of two credits
  // (control) cannot take now.
  uint8_t credit_blocked(int frame) const;
  void send_credit();
  void free_credits(const Packet& p);
  void note_credit_wait(uint8_t held);
  wire::Fabric fabric_ = wire::Fabric::kRoceV2;
  std::unique_ptr<TcpStack> tcp_;  // TCP connections, if any
  bool tcp_turn_ = false;          // the port's next data turn is TCP's (it alternates with the queue pairs)
};

}  // namespace rocesim
