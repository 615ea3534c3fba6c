// An RDMA NIC: reliable-connected queue pairs over RoCEv2, paced by per-QP congestion control, honouring PFC.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "rocesim/cc/cc.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/net/ring.hpp"
#include "rocesim/nic/flow.hpp"

namespace rocesim {

struct NicParams {
  int64_t mtu = 0;  // payload bytes per packet
  int64_t ack_interval = 0;
  Time retransmit_timeout;
  int64_t ack_priority = 0;
  int64_t cnp_priority = 0;
  Time rnr_timer;
  static const Schema<NicParams>& schema();
};

// Counters of one NIC.
struct NicCounters {
  int64_t data_sent = 0;  // data packets put on the wire, retransmissions included
  int64_t data_rcvd = 0;  // data packets that reached this NIC (in order or not)
  int64_t ctrl_sent = 0;  // ACK, NAK and CNP packets sent
  int64_t ctrl_rcvd = 0;
  int64_t cnps_sent = 0;
  int64_t naks_sent = 0;
  int64_t acks_sent = 0;
  int64_t tx_bytes = 0;  // frame bytes
  int64_t rx_bytes = 0;
};

// Fields of an ACK or NAK beyond the addressing (see Nic::send_ctrl).
struct CtrlExtra {
  uint8_t flags = 0;
  uint16_t ack_pkts = 0;
  uint16_t ack_ce = 0;
};

class Nic final : public Node, public CcTimers {
 public:
  Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
      FlowTable& flows, std::array<uint8_t, 8> prio_to_dscp);

  void connect(const LinkEnd& link) {
    link_ = link;
    tx_ = TxLink::of(link);
  }
  const LinkEnd& link() const { return link_; }
  // Queue pairs are set up before the run. For WRITE and SEND the data sender is the flow's src: add the
  // receiver's QP at dst, then the sender's at src. For READ the data comes from the responder (dst): add the
  // requester's QP at src (as_read_requester), then the responder's send QP at dst (as_read_responder), which
  // starts when the READ request arrives.
  uint32_t add_recv_qp(uint32_t flow, bool as_read_requester = false);
  uint32_t add_send_qp(uint32_t flow, uint32_t dst_qpn, bool as_read_responder = false);
  void set_recv_peer(uint32_t recv_qpn, uint32_t send_qpn) { recv_[recv_qpn].src_qpn = send_qpn; }
  // Starts a flow that waited for another (FlowSpec::after), now.
  void start_now(uint32_t send_qpn) { sim_.at(sim_.now(), this, kEvStart, send_qpn); }

  const NicCounters& counters() const { return cnt_; }
  bool is_switch() const override { return false; }
  const PauseState& pause_state() const { return pause_states_[0]; }
  // For tests: drop the next data packet this NIC would send with this PSN on this flow (once).
  void inject_drop(uint32_t flow, uint32_t psn) { drops_.push_back({flow, psn}); }
  // The current rate of the send QP of `flow` (for time series and tests).
  Rate qp_rate(uint32_t send_qpn) const { return send_[send_qpn].cc->rate; }
  int64_t injected_drops() const { return injected_; }

  void arm(CongestionControl* cc, Time at, uint32_t id) override;

 private:
  enum : uint32_t { kEvStart = kNodeEventBase, kEvWake, kEvRto, kEvCcTimer, kEvReadStart, kEvReadRto };

  // Two cache lines, aligned: the vector's entries would otherwise straddle three.
  struct alignas(64) SendQp {
    uint32_t flow = 0;
    uint32_t dst = 0;
    uint32_t dst_qpn = 0;
    uint32_t npkts = 0;
    uint32_t next_psn = 0;
    uint32_t acked = 0;  // packets acknowledged (cumulative)
    uint32_t high = 0;   // one past the highest PSN ever sent
    int64_t size = 0;
    uint8_t prio = 0;
    uint8_t dscp = 0;
    uint16_t sport = 0;
    RdmaOp op = RdmaOp::kWrite;
    bool read_response = false;  // a READ responder: no ACKs; the requester asks again for what it misses
    bool active = false;         // in the round-robin list
    bool started = false;
    bool rto_armed = false;
    Time last_tx;           // when the QP last started a packet
    int32_t last_wire = 0;  // its wire bytes
    Time next_send;         // last_tx + last_wire x 8 / rate, at the current rate (see pacing_changed)
    Time hold_until;        // after a receiver-not-ready NAK: no sending before this
    Time rto_deadline;
    std::unique_ptr<CongestionControl> cc;
  };
  struct RecvQp {
    uint32_t flow = 0;
    uint32_t src = 0;
    uint32_t src_qpn = 0;
    uint32_t expected = 0;
    uint32_t since_ack = 0;
    uint32_t ce_since_ack = 0;
    bool nak_sent = false;
    bool cnp_ever = false;
    Time last_cnp;
    bool read = false;  // the requester of a READ: takes responses, sends no ACKs
    uint8_t prio = 0;
    Time recv_posted;  // SEND: receiver not ready before this
    Time deadline;     // READ: re-request if no response advances before this
    bool rto_armed = false;
  };

  void receive(Packet* p) override;
  void prefetch(uint32_t kind, uint64_t arg) const override;
  void tx_done(uint16_t) override;
  void pause_ended(uint16_t, uint8_t) override {
    pause_armed_ = pause_states_[0].armed;
    try_send();
  }
  void on_event(uint32_t kind, uint64_t arg) override;

  void try_send();
  bool send_data(SendQp& q, uint32_t qpn);
  void activate(uint32_t qpn);
  // Queues an ACK, NAK or CNP; `about` is the data packet that caused it (ACKs echo its time and telemetry).
  // Everything is filled in before the packet is queued: it may leave at once.
  void send_ctrl(PacketKind kind, const Packet& about, uint32_t dst, uint32_t qpn, uint32_t flow, uint32_t psn,
                 CtrlExtra extra = {});
  void on_data(Packet* p);
  void on_ack(Packet* p);
  void go_back(SendQp& q, uint32_t psn, uint32_t qpn);
  void arm_rto(SendQp& q, uint32_t qpn);
  void send_read_request(RecvQp& r, uint32_t psn);
  void on_read_request(Packet* p);
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
  bool telemetry_ = false;   // data packets carry, and ACKs echo, an INT header (HPCC)
  uint32_t host_;
  std::array<uint8_t, 8> prio_to_dscp_;
  std::vector<SendQp> send_;
  std::vector<uint32_t> active_;  // round-robin list of send QPs with packets to send
  size_t rr_ = 0;
  FlowTable& flows_;
  std::vector<RecvQp> recv_;
  NicCounters cnt_;
  NicParams p_;
  std::array<PacketRing, 8> ctrl_;  // ACK, NAK and CNP packets waiting, per priority
  const CcAlgorithm& cc_alg_;
  std::optional<Time> cnp_interval_;
  std::vector<PauseState> pause_states_{1};
  LinkEnd link_;
  std::vector<std::pair<uint32_t, uint32_t>> drops_;
  int64_t injected_ = 0;
};

}  // namespace rocesim
