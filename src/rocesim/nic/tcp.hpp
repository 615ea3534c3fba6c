// TCP connections at a NIC: the kernel's TCP (its protocol work and copies run on the server's CPU, nic.cpu) and
// iWARP's TCP offloaded into the NIC (no host work). Both share the NIC's port with its RDMA queue pairs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocesim/cc/tcp_cc.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/net/packet.hpp"
#include "rocesim/nic/flow.hpp"
#include "rocesim/nic/transport.hpp"
#include "rocesim/server/cpu.hpp"

namespace rocesim {

struct TcpParams {
  int64_t mss = 0;
  int64_t init_cwnd = 0;
  Time rto_min, rto_initial, rto_max;
  Time delack;
  int64_t ack_every = 0;
  bool tlp = true;
  Time pto_extra;
  Bytes rcvbuf, sndbuf;
  std::string ecn;
  double tx_cycles_per_byte = 0, tx_cycles_per_frame = 0;
  double rx_cycles_per_byte = 0, rx_cycles_per_frame = 0;
  double call_cycles = 0;
  Bytes batch;
  bool lossless_ok = false;  // read by the scenario's checks only
  static const Schema<TcpParams>& schema();
};

// One end of a TCP connection as Network::connect sets it up: a send half carries one direction of data.
struct TcpSendInit {
  uint32_t peer = 0, peer_conn = 0;
  int priority = 0;
  uint16_t sport = 0;
  bool offload = false;  // iWARP: the NIC runs TCP; no host CPU, RDMAP/DDP/MPA framing
  uint32_t owner = 0, handle = 0, conn = 0;
};
struct TcpRecvInit {
  uint32_t peer = 0;
  int priority = 0;
  uint16_t sport = 0;
  bool offload = false;
  uint32_t owner = 0, handle = 0, conn = 0;
};

// The TCP connections of one NIC. Sequence numbers are 64-bit inside (one stream per send half, messages back to
// back) and their low 32 bits on the wire. Loss detection is RACK (RFC 8985 6, as Linux runs it, for first
// transmissions and retransmissions alike): a segment is lost once a segment sent after it has been delivered
// and RACK.rtt plus the reordering window has passed since it was sent, with a timer for the rest of that wait;
// the window is a quarter of the least RTT, or none in recovery or with three segments SACKed while no
// reordering was seen. A tail loss probe (RFC 8985 7; Linux's tcp_schedule_loss_probe) is sent 2 x SRTT after
// the last transmission plus `pto_extra` (one segment in flight: plus rto_min, for the peer's delayed ACK): new
// data if the window allows, else the highest segment again; if the probe repaired a loss (its ACK brought no
// D-SACK), the window is cut once. Fast recovery holds cwnd at ssthresh and sends while pipe < cwnd, lost segments
// first (RFC 6675); a timeout (RFC 6298) marks every unSACKed segment lost and restarts from a window of one MSS.
// The receiver acknowledges every ack_every segments, at once on out-of-order data, on a duplicate (with a
// D-SACK, RFC 2883), on a hole filled and on a message's last segment (PSH), else after `delack`. A kernel
// connection's data is copied into the socket buffer by its sending core in batches (TSO) of up to `batch`
// bytes, at most sndbuf ahead of the acknowledged data, and each received segment is processed by the receiving
// core (per frame and per byte) before it is acknowledged; the window is also capped by rcvbuf.
// Contract: part of its NIC (which owns it, gives it turns on the port, hands it TCP segments and its events,
// nic/transport.hpp); it touches only its own connections, the NIC's records of their messages (through
// TransportHost), and the CPU of its server.
class TcpStack final : public NicTransport {
 public:
  TcpStack(const TransportContext& ctx, const TcpParams& p, const TcpCcAlgorithm& cc, HostCpu* cpu);
  ~TcpStack();

  uint32_t add_send(const TcpSendInit& init);
  uint32_t add_recv(const TcpRecvInit& init);
  void set_recv_peer(uint32_t recv, uint32_t send) override;
  // Where a send half goes (for the records of its messages).
  struct Peer {
    uint32_t dst = 0;
    int prio = 0;
    uint16_t sport = 0;
    uint32_t conn = 0;
    bool offload = false;
  };
  Peer peer(uint32_t send) const;
  // A message on a send half (WorkPost::kSend; `record` is its record at the NIC).
  void post(const WorkPost& post) override;
  // The next segment to put on the wire (none if no connection may send now), skipping paused priorities. Its
  // connections are not paced: `earliest` is left as it is.
  Next next_packet(uint8_t paused, Time now, Time& earliest) override;
  // Whether some connection has something it could send now or after a pause or an ACK.
  bool wants_port() const override { return !active_.empty(); }
  // TCP segments; a data segment stays until its core has processed it.
  void receive(Packet* p) override;
  // The NIC's TCP events (nic/transport.hpp): a received segment processed, a copy done, a timer.
  void on_event(uint32_t kind, uint64_t arg) override;

  int64_t delivered(uint32_t recv) const override;
  // A send half's rate as its window allows: cwnd per smoothed RTT (zero before the first RTT sample).
  Rate send_rate(uint32_t send) const override;
  // Host core time this NIC's kernel connections used (their sending and receiving work).
  Time cpu_time() const { return cpu_time_; }
  // Segments (data and ACKs) this NIC's connections sent and received.
  int64_t segments_sent() const { return segments_sent_; }
  int64_t segments_rcvd() const { return segments_rcvd_; }
  // For tests: the first transmission of the segment starting at stream byte `seq` (its low 32 bits) on send half
  // `send` takes the wire but never arrives.
  void inject_drop(uint32_t send, uint32_t seq) { drops_.push_back({send, seq}); }

 private:
  Next next_segment(uint8_t paused);
  void on_processed(Packet* p);
  void on_copied(uint32_t send);
  void on_timer(uint32_t send);
  void on_delack(uint32_t recv);
  struct Seg {
    int64_t seq = 0;
    int32_t len = 0;
    uint8_t flags = 0;
    Time sent;         // its last transmission
    int64_t wire = 0;  // where it starts in the bytes TCP carries: iWARP's count each FPDU's framing
  };
  // kRetx: a retransmission of it is in flight; kResent: it was sent more than once (its RTT is ambiguous).
  static constexpr uint8_t kSacked = 1, kLost = 2, kRetx = 4, kResent = 8;
  struct Msg {
    int64_t end = 0;  // one past its last byte in the stream
    int64_t size = 0;
    uint32_t record = 0;
    uint32_t flow = 0;
    RdmaOp op = RdmaOp::kWrite;
    bool signaled = true;
    uint64_t wr_id = 0;
  };
  enum class State : uint8_t { kOpen, kRecovery, kLoss };
  struct Send;
  struct Recv;

  bool kernel(bool offload) const { return cpu_ != nullptr && !offload; }
  void refill(Send& s, uint32_t id);
  // The message the stream byte `seq` belongs to (the last one past the stream's end).
  const Msg& message_at(const Send& s, int64_t seq) const;
  Packet* segment(Send& s, Seg& g, bool retx);
  Packet* next_of(Send& s, uint32_t id);
  Packet* new_segment(Send& s, uint32_t id, int64_t in_pipe);
  Packet* probe(Send& s, uint32_t id);
  void on_ack(Packet* p);
  // Marks the segments within [left, right) SACKed; returns the bytes newly SACKed.
  int64_t mark_sacked(Send& s, int64_t left, int64_t right, Time echo, int64_t prior_fack);
  // RACK (RFC 8985 6.2): a segment delivered (cumulatively or SACKed) at now, `echo` the ACK's timestamp echo,
  // `prior_fack` the highest end delivered before that ACK.
  void rack_delivered(Send& s, const Seg& g, Time echo, int64_t prior_fack);
  Time reo_wnd(const Send& s) const;
  void detect_losses(Send& s);
  void start_recovery_on_loss(Send& s);
  void schedule_probe(Send& s);
  void on_probe_acked(Send& s, bool dsack, bool news);
  void complete_messages(Send& s);
  // The connection's timer event at its earliest deadline (retransmission, probe or reordering).
  void arm_timer(Send& s, uint32_t id);
  bool take_injected(uint32_t send, uint32_t seq);
  void update_rtt(Send& s, Time sample);
  void on_data(Recv& r, uint32_t id, Packet* p);
  void send_ack(Recv& r, bool dsack = false);
  // Runs `cycles` of kernel work on a core of the server; returns when they are done.
  Time run_on_core(uint32_t core, double cycles);
  void activate(Send& s, uint32_t id);
  int64_t pipe(const Send& s) const;

  TransportContext ctx_;
  int64_t segments_sent_ = 0;
  int64_t segments_rcvd_ = 0;
  TcpParams p_;
  const TcpCcAlgorithm& cc_;
  HostCpu* cpu_;
  bool ecn_ = false;
  std::vector<Send> send_;
  std::vector<Recv> recv_;
  std::vector<uint32_t> active_;  // send halves with data posted and not yet acknowledged
  size_t rr_ = 0;
  Time cpu_time_;
  std::vector<std::pair<uint32_t, uint32_t>> drops_;  // injected losses: send half, sequence number
};

}  // namespace rocesim
