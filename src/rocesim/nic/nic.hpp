// An RDMA NIC: its port (nic/port_arbiter.hpp), honouring PFC or InfiniBand credits; its transports (the RC queue
// pairs, nic/rc_transport.hpp; TCP and iWARP, nic/tcp.hpp) and the parts that post work, complete it and send PFC.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "rocesim/cc/cc.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/net/credits.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/nic/completion_queue.hpp"
#include "rocesim/nic/flow.hpp"
#include "rocesim/nic/nic_params.hpp"
#include "rocesim/nic/pfc_source.hpp"
#include "rocesim/nic/port_arbiter.hpp"
#include "rocesim/nic/post_engine.hpp"
#include "rocesim/nic/rc_transport.hpp"
#include "rocesim/nic/tcp.hpp"

namespace rocesim {

// What one NIC counts itself.
struct NicOwnCounters {
  int64_t data_rcvd = 0;  // data packets that reached this NIC (in order or not)
  int64_t ctrl_rcvd = 0;
  int64_t tx_bytes = 0;  // frame bytes
  int64_t rx_bytes = 0;
  int64_t lost_link_down = 0;  // packets sent on, or in flight on, this NIC's link when it was down
  Time post_cpu;               // host CPU time spent posting RDMA work requests
};

// Counters of one NIC: its own, its RC transport's and its PFC source's.
struct NicCounters : NicOwnCounters, RcCounters, PfcSourceCounters {};

class Nic final : public Node,
                  private TransportHost,
                  private PfcSourceHost,
                  private PostEngineHost,
                  private LinkFrameSource {
 public:
  Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
      std::array<uint8_t, 8> prio_to_dscp);

  void connect(const LinkEnd& link) { port_.connect(link); }
  const LinkEnd& link() const { return port_.link(); }
  void set_sink(CompletionSink* s) { cq_.set_sink(s); }

  // Half queue pairs of the RC transport (nic/rc_transport.hpp), set up before the run, after connect().
  uint32_t add_send_qp(const SendQpInit& init) { return rc_.add_send_qp(init, port_.link().rate); }
  uint32_t add_recv_qp(const RecvQpInit& init) { return rc_.add_recv_qp(init); }
  void set_recv_peer(uint32_t recv_qpn, uint32_t send_qpn) {
    if (recv_qpn & kTcpBit) {
      tcp_->set_recv_peer(recv_qpn & ~kTcpBit, send_qpn & ~kTcpBit);
    } else {
      rc_.set_recv_peer(recv_qpn, send_qpn);
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
  // routing.balance source: RDMA data packets spread over `n` UDP source ports per queue pair (before the run).
  void use_entropies(int n) { rc_.use_entropies(n); }
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

  NicCounters counters() const { return NicCounters{cnt_, rc_.counters(), pfc_.counters()}; }
  const PauseState& pause_state() const { return pause_states_[0]; }
  // The messages this NIC requested, in posting order; with grouped records, a group's record where its first
  // message was posted.
  const std::vector<FlowRecord>& records() const { return records_; }
  // Keep one record per message group and queue pair instead of one per grouped message (output.flows:
  // aggregate): memory by the queue pairs and calls, not by the messages.
  void group_records(bool on) { group_records_ = on; }
  // What the receive half has taken in order, in payload bytes (for records and time series).
  int64_t delivered(uint32_t recv_qpn) const {
    return recv_qpn & kTcpBit ? tcp_->delivered(recv_qpn & ~kTcpBit) : rc_.delivered(recv_qpn);
  }
  // Data packets a receive half saw arrive out of order (RDMA; TCP's reordering is not counted).
  int64_t out_of_order(uint32_t recv_qpn) const { return recv_qpn & kTcpBit ? 0 : rc_.out_of_order(recv_qpn); }
  // Retransmissions and CNPs of a READ responder's send half (the requester holds the record).
  std::pair<int64_t, int64_t> responder_counters(uint32_t send_qpn) const { return rc_.responder_counters(send_qpn); }
  // For tests: drop the next data packet this NIC would send with this PSN on this send half (once); a TCP send
  // half's first transmission of the segment starting at stream byte `psn` (its low 32 bits).
  void inject_drop(uint32_t send_qpn, uint32_t psn) {
    if (send_qpn & kTcpBit) {
      tcp_->inject_drop(send_qpn & ~kTcpBit, psn);
    } else {
      rc_.inject_drop(send_qpn, psn);
    }
  }
  // The current rate of a send half (for time series and tests); a TCP connection's is its window's.
  Rate qp_rate(uint32_t send_qpn) const {
    return send_qpn & kTcpBit ? tcp_->send_rate(send_qpn & ~kTcpBit) : rc_.send_rate(send_qpn);
  }
  int64_t injected_drops() const { return rc_.injected_drops(); }
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

 private:
  // The post engine's kind first (nic/post_engine.hpp), then the port's (nic/port_arbiter.hpp), the RC transport's
  // (nic/rc_transport.hpp), the completion queue's (nic/completion_queue.hpp), the PFC source's (nic/pfc_source.hpp)
  // and the TCP stack's (nic/transport.hpp), each handed to its part.
  enum : uint32_t { kEvLast = kEvDelayedAck + 1 };
  static_assert(kEvWake == kEvPost + 1, "the port's event kind follows the post engine's");
  static_assert(kEvRto == kEvWake + 1, "the RC transport's event kinds follow the port's");
  static_assert(kEvCqe == kEvReadRto + 1, "the completion queue's event kind follows the RC transport's");
  static_assert(kEvStorm == kEvCqe + 1, "the PFC source's event kinds follow the completion queue's");
  static_assert(kEvSegmentProcessed == kEvRxRefresh + 1, "a transport's event kinds follow the PFC source's");
  static_assert(kEvLast <= kMaxEventKinds, "event kinds fit the event queue's six bits");

  void receive(Packet* p) override;
  // What the PFC source asks of its NIC (nic/pfc_source.hpp).
  void owe_pfc(uint8_t prios) override {
    port_.owe_link_frame(prios);
    try_send();
  }
  void leaving(const Packet& p) override {
    if (credits_) {
      free_credits(p);
    }
  }
  // The port's link frame (nic/port_arbiter.hpp): the PFC source's, or credits to return on InfiniBand.
  Packet* link_frame(uint8_t& owed) override;
  void drained(Packet* p) override;
  // The receive buffer's thresholds for this NIC's link and frames (mlx5 port_buffer.c).
  RxBufferLimits rx_limits() const;
  void prefetch(uint32_t kind, uint64_t arg) const override;
  void tx_done(uint16_t) override;
  void pause_ended(uint16_t, uint8_t) override {
    port_.pause_changed();
    try_send();
  }
  void link_changed(uint16_t, bool up) override {
    port_.pause_changed();
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

  // Puts the frame the port arbiter chooses on the link (an injected loss only takes the port's time).
  void try_send();
  // What its transports (RC and TCP) ask of it (nic/transport.hpp).
  void wake() override { try_send(); }
  void queue_control(Packet* p) override {
    port_.queue_control(p);
    try_send();
  }
  FlowRecord& record(uint32_t r) override { return records_[r]; }
  // The post engine hands on a work request (nic/post_engine.hpp): to the queue pair's transport.
  void posted(const WorkPost& post) override;
  // A new message's record (its own, or its group's) and the flow tag its packets carry.
  struct NewMessage {
    uint32_t record = 0;
    uint32_t flow = 0;
  };
  // `rows[qpn]`: the half queue pair's latest group record (one of the group_rows_ lists).
  NewMessage new_record(uint32_t peer, int prio, uint16_t sport, uint32_t conn, std::vector<uint32_t>& rows,
                        uint32_t qpn, const WorkRequest& wr, uint32_t id, Time at);
  // The byte offset of a record's message on its queue pair (a group's: its first message's).
  void set_offset(uint32_t record, int64_t offset) override;
  // Reports a completion to the owner through the completion queue (after the current event).
  void complete(uint32_t owner, const Completion& c) override { cq_.push(owner, c); }

  uint32_t host_;
  std::array<uint8_t, 8> prio_to_dscp_;
  // What the peer paused (Node::apply_pfc): one element, never resized; declared before port_, which keeps a pointer
  // to it.
  std::vector<PauseState> pause_states_{1};
  // What sending and receiving touch, each part's hot state on lines of its own (a large fabric visits a NIC every
  // few thousand events, and each line of NIC state a packet touches is then a cache miss): the port's line, the
  // queue pairs and round-robin list, the counters.
  alignas(64) PortArbiter port_;
  alignas(64) RcTransport rc_;
  alignas(64) NicOwnCounters cnt_;
  bool rx_slow_ = false;  // pfc_.buffering(), kept in step with it
  std::vector<FlowRecord> records_;
  bool group_records_ = false;
  // Per half queue pair (RC send halves, RC READ requesters, TCP senders): its latest group record, or kNoRow.
  static constexpr uint32_t kNoRow = UINT32_MAX;
  struct GroupRows {
    std::vector<uint32_t> send, read, tcp;
  } group_rows_;
  uint32_t messages_ = 0;  // messages posted: an unnumbered message's flow tag
  PfcSource pfc_;
  PostEngine posts_;
  CompletionQueue cq_;
  // InfiniBand: the credits of this port's two directions.
  struct Credits {
    CreditTx tx;
    CreditRx rx;
  };
  std::unique_ptr<Credits> credits_;  // only with fabric: infiniband
  // A received frame left the receive buffer: its credits go back to the peer when enough are owed.
  void free_credits(const Packet& p);
  wire::Fabric fabric_ = wire::Fabric::kRoceV2;
  std::unique_ptr<TcpStack> tcp_;  // TCP connections, if any
};

}  // namespace rocesim
