#include "rocesim/nic/tcp.hpp"

#include <algorithm>

namespace rocesim {

const Schema<TcpParams>& TcpParams::schema() {
  static const Schema<TcpParams> s = [] {
    Schema<TcpParams> sc("tcp", "TCP connections: the kernel's (transport: tcp) and iWARP's offloaded one");
    sc.add(&TcpParams::mss, "mss", "1448",
           "payload bytes per segment (1500-byte IP MTU less IPv4, TCP and timestamps; 8948 with 9000-byte jumbo "
           "frames). iWARP segments carry 20 bytes of MPA, DDP and RDMAP of it",
           in_range<int64_t>(256, 9000), "bytes")
        .add(&TcpParams::init_cwnd, "init_cwnd", "10", "initial window (RFC 6928; Linux TCP_INIT_CWND)",
             in_range<int64_t>(1, 1000), "segments")
        .add(&TcpParams::rto_min, "rto_min", "200ms", "least retransmission timeout (Linux TCP_RTO_MIN)",
             at_least(Time::us(1)))
        .add(&TcpParams::rto_initial, "rto_initial", "1s", "timeout before the first round-trip sample (RFC 6298 2.1)",
             at_least(Time::us(1)))
        .add(&TcpParams::rto_max, "rto_max", "120s", "largest backed-off timeout (Linux TCP_RTO_MAX)",
             at_least(Time::us(1)))
        .add(&TcpParams::delack, "delack", "40ms",
             "a lone segment's ACK waits at most this long (Linux TCP_DELACK_MIN; RFC 1122 allows 500 ms)",
             at_least(Time::ns(1)))
        .add(&TcpParams::tlp, "tlp", "true",
             "tail loss probes (RFC 8985 7; Linux net.ipv4.tcp_early_retrans 3, its default): a lost last segment "
             "is probed for after about 2 x SRTT, not left to the retransmission timeout")
        .add(&TcpParams::pto_extra, "pto_extra", "2ms",
             "added to 2 x SRTT for a probe's timeout with more than one segment in flight (Linux "
             "TCP_TIMEOUT_MIN_US; with one, tcp.rto_min is added for the peer's delayed ACK)",
             at_least(Time()))
        .add(&TcpParams::ack_every, "ack_every", "2",
             "the receiver acknowledges every this many segments (RFC 5681 4.2)", in_range<int64_t>(1, 64), "segments")
        .add(&TcpParams::rcvbuf, "rcvbuf", "6291456B",
             "receive buffer: bytes in flight never exceed it (Linux net.ipv4.tcp_rmem maximum); at least tcp.mss",
             at_least(Bytes(1)))
        .add(&TcpParams::sndbuf, "sndbuf", "4194304B",
             "send buffer: the sender copies at most this far ahead of what is acknowledged (net.ipv4.tcp_wmem "
             "maximum); at least tcp.mss",
             at_least(Bytes(1)))
        .add(&TcpParams::ecn, "ecn", "auto",
             "segments ECN-capable: auto (when tcp.cc needs marks: dctcp), on, off; the receiver echoes each "
             "segment's mark (RFC 8257 3.2)",
             one_of({"auto", "on", "off"}))
        .add(&TcpParams::tx_cycles_per_byte, "tx_cycles_per_byte", "0.34",
             "sender cycles per byte (copy from the application, TCP/IP): 42.2 Gb/s at 59.8 % of a 3 GHz core with "
             "every offload (Cai et al., SIGCOMM 2021, artifact's example)",
             in_range(0.0, 1e6), "cycles")
        .add(&TcpParams::tx_cycles_per_frame, "tx_cycles_per_frame", "0",
             "sender cycles per MTU frame (0: TSO, the NIC cuts frames; without TSO set it as rx_cycles_per_frame)",
             in_range(0.0, 1e9), "cycles")
        .add(&TcpParams::rx_cycles_per_byte, "rx_cycles_per_byte", "0.37",
             "receiver cycles per byte (the copy to the application is over half of them); with rx_cycles_per_frame "
             "it fits Cai et al.'s one-core receivers at 3 GHz: 42.2 Gb/s with 9000-byte frames, 15 Gb/s with 1500 "
             "(TSO/GRO on both)",
             in_range(0.0, 1e6), "cycles")
        .add(&TcpParams::rx_cycles_per_frame, "rx_cycles_per_frame", "1785",
             "receiver cycles per frame (driver, GRO, TCP/IP, socket); about 6700 without GRO (4.8 Gb/s per core, "
             "Cai et al.)",
             in_range(0.0, 1e9), "cycles")
        .add(&TcpParams::call_cycles, "call_cycles", "5000",
             "cycles of a send() or of the recv() that returns a message, wake-up included (an assumption, "
             "about 1.7 us at 3 GHz: measure yours with netperf TCP_RR)",
             in_range(0.0, 1e9), "cycles")
        .add(&TcpParams::batch, "batch", "65536B", "bytes a sending core copies and hands to the NIC at once (TSO)",
             at_least(Bytes(1)))
        .add(&TcpParams::lossless_ok, "lossless_ok", "false",
             "kernel TCP on a priority of switch.pfc.priorities is meant (no warning): it is then paused, never "
             "dropped, and its pauses hold the RDMA traffic of that priority")
        .reserved("cc", "congestion control, see tcp.cc.*")
        .validate([](const TcpParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (p.rto_max < p.rto_min) {
            return std::make_pair("rto_max", "must be at least rto_min");
          }
          // A full segment (tcp.mss of payload) must fit the receive window, or the sender never sends one and
          // the connection stalls; the send buffer likewise holds at least one.
          for (const auto& [key, buf] : {std::pair{"rcvbuf", p.rcvbuf}, std::pair{"sndbuf", p.sndbuf}}) {
            if (buf < Bytes(p.mss)) {
              return std::make_pair(std::string(key), std::to_string(buf.count()) + " bytes" +
                                                          " is below one segment (tcp.mss: " + std::to_string(p.mss) +
                                                          " payload bytes): a full segment would never fit it");
            }
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

struct TcpStack::Send {
  uint32_t dst = 0, dst_conn = 0;
  uint8_t prio = 0, dscp = 0;
  uint16_t sport = 0;
  bool offload = false;
  bool active = false;
  bool copying = false;
  bool rtt_seen = false;
  bool cwnd_limited = false;
  State state = State::kOpen;
  uint32_t core = 0, owner = 0, handle = 0, conn = 0;
  int64_t seg_payload = 0;  // payload bytes per full segment
  int64_t posted = 0;       // stream bytes posted
  int64_t ready = 0;        // in the socket buffer (copied), may be sent
  int64_t copy_end = 0;     // the copy under way ends here
  int64_t una = 0, nxt = 0;
  int64_t wire_nxt = 0;    // nxt in the bytes TCP carries (Seg::wire)
  int64_t recover = 0;     // recovery ends when una reaches it (RFC 6582 "recover")
  int64_t cwr_end = 0;     // one ECN reaction per window: until una reaches it
  int64_t tlp_end = -1;    // nxt when a loss probe was sent, until una passes it (none: -1)
  bool tlp_retx = false;   // that probe resent a segment
  bool probe_due = false;  // the probe timer fired: the next turn sends the probe
  std::vector<Seg> segs;   // sent and not cumulatively acknowledged, from `head`
  size_t head = 0;
  int64_t sacked = 0;            // bytes SACKed above una
  int64_t lost = 0;              // bytes marked lost and not yet sent again
  int64_t sacked_segs = 0;       // segments SACKed above una
  size_t lost_scan = 0;          // segments below it are SACKed or lost
  size_t retx_scan = 0;          // no segment below it waits for retransmission
  std::vector<size_t> retx_out;  // retransmitted segments not yet delivered (indices into segs)
  // RACK (RFC 8985 6.1): the latest-sent segment delivered (its transmission time and end) and its RTT; the
  // highest end delivered; whether a segment was delivered below it without a retransmission (reordering).
  Time rack_xmit, rack_rtt;
  int64_t rack_end = 0, fack = 0;
  bool reordering_seen = false;
  Time min_rtt = Time::max();
  TcpWindow w;
  std::unique_ptr<TcpCongestion> cc;
  Time srtt, rttvar, rto;
  Time rto_deadline;                // the timeout, unless an ACK advances first
  Time pto_deadline = Time::max();  // the loss probe's (none: max)
  Time reo_deadline = Time::max();  // RACK's reordering timer (none: max)
  Time timer_at = Time::max();      // when the timer's event is due (none: max)
  std::vector<Msg> msgs;
  size_t msg_head = 0;  // the oldest message not yet acknowledged
};

struct TcpStack::Recv {
  uint32_t src = 0, src_conn = 0;
  uint8_t prio = 0;
  uint16_t sport = 0;
  bool offload = false;
  bool ce = false;  // the CE state of the last segment (RFC 8257 3.2)
  bool delack_armed = false;
  uint32_t core = 0;
  int64_t rcv_nxt = 0;
  std::vector<std::pair<int64_t, int64_t>> ooo;  // out-of-order blocks above rcv_nxt, sorted
  int64_t last_left = -1;                        // left edge of the block that changed last (the first SACK block)
  int64_t unacked = 0;                           // segments since the last ACK
  Time ts_echo;                                  // TSval of the segment an ACK answers (TSecr)
  Time delack_deadline;
};

namespace {
// The 64-bit sequence number nearest `ref` whose low 32 bits are `wire`.
int64_t unwrap(uint32_t wire, int64_t ref) { return ref + static_cast<int32_t>(wire - static_cast<uint32_t>(ref)); }
}  // namespace

TcpStack::TcpStack(const TransportContext& ctx, const TcpParams& p, const TcpCcAlgorithm& cc, HostCpu* cpu)
    : ctx_(ctx), p_(p), cc_(cc), cpu_(cpu) {
  ecn_ = p.ecn == "on" || (p.ecn == "auto" && cc.wants_ecn());
}
TcpStack::~TcpStack() = default;

uint32_t TcpStack::add_send(const TcpSendInit& init) {
  Send s;
  s.dst = init.peer;
  s.dst_conn = init.peer_conn;
  s.prio = static_cast<uint8_t>(init.priority);
  s.dscp = ctx_.prio_to_dscp[s.prio];
  s.sport = init.sport;
  s.offload = init.offload;
  s.core = init.conn;
  s.owner = init.owner;
  s.handle = init.handle;
  s.conn = init.conn;
  s.seg_payload = init.offload ? p_.mss - wire::kIwarpOverhead : p_.mss;
  s.w.mss = static_cast<double>(s.seg_payload);
  s.w.cwnd = s.w.mss * static_cast<double>(p_.init_cwnd);
  s.w.ssthresh = 1e18;
  s.cc = cc_.make();
  s.rto = p_.rto_initial;
  send_.push_back(std::move(s));
  return static_cast<uint32_t>(send_.size() - 1);
}

uint32_t TcpStack::add_recv(const TcpRecvInit& init) {
  Recv r;
  r.src = init.peer;
  r.prio = static_cast<uint8_t>(init.priority);
  r.sport = init.sport;
  r.offload = init.offload;
  r.core = init.conn;
  recv_.push_back(std::move(r));
  return static_cast<uint32_t>(recv_.size() - 1);
}

void TcpStack::set_recv_peer(uint32_t recv, uint32_t send) { recv_[recv].src_conn = send; }

TcpStack::Peer TcpStack::peer(uint32_t id) const {
  const Send& s = send_[id];
  return Peer{s.dst, s.prio, s.sport, s.conn, s.offload};
}

void TcpStack::post(const WorkPost& post) {
  const uint32_t id = post.qpn;
  const WorkRequest& wr = post.wr;
  const uint32_t record = post.record, flow = post.flow;
  Send& s = send_[id];
  ctx_.nic.set_offset(record, s.posted);
  s.posted += wr.size.count();
  Msg m;
  m.end = s.posted;
  m.size = wr.size.count();
  m.record = record;
  m.flow = flow;
  m.op = wr.op;
  m.signaled = wr.signaled;
  m.wr_id = wr.wr_id;
  s.msgs.push_back(m);
  if (kernel(s.offload)) {  // the send() call itself
    run_on_core(s.core, p_.call_cycles);
  }
  activate(s, id);
  refill(s, id);
  ctx_.nic.wake();
}

void TcpStack::activate(Send& s, uint32_t id) {
  if (!s.active) {
    s.active = true;
    active_.push_back(id);
  }
}

// A kernel sender's core copies the next batch into the socket buffer (then on_copied); an offloading NIC reads
// the data itself as it sends.
void TcpStack::refill(Send& s, uint32_t id) {
  if (!kernel(s.offload)) {
    s.ready = s.posted;
    return;
  }
  const int64_t limit = s.una + p_.sndbuf.count();
  if (s.copying || s.ready >= s.posted || s.ready >= limit) {
    return;
  }
  // Whole segments per batch, so that only the stream's end makes a short one.
  const int64_t batch = std::max(s.seg_payload, p_.batch.count() / s.seg_payload * s.seg_payload);
  const int64_t len = std::min({batch, s.posted - s.ready, limit - s.ready});
  const int64_t frames = (len + s.seg_payload - 1) / s.seg_payload;
  const double cycles =
      p_.tx_cycles_per_byte * static_cast<double>(len) + p_.tx_cycles_per_frame * static_cast<double>(frames);
  const Time done = run_on_core(s.core, cycles);
  s.copying = true;
  s.copy_end = s.ready + len;
  ctx_.sim.at(done, &ctx_.node, kEvSegmentCopied, id);
}

Time TcpStack::run_on_core(uint32_t core, double cycles) {
  cpu_time_ += cpu_->duration(cycles);
  return cpu_->run(core, cycles, ctx_.sim.now());
}

void TcpStack::on_copied(uint32_t id) {
  Send& s = send_[id];
  s.copying = false;
  s.ready = s.copy_end;
  refill(s, id);
  ctx_.nic.wake();
}

int64_t TcpStack::pipe(const Send& s) const { return s.nxt - s.una - s.sacked - s.lost; }

TcpStack::Next TcpStack::next_packet(uint8_t paused, Time, Time&) { return next_segment(paused); }

void TcpStack::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kEvSegmentProcessed:
      on_processed(reinterpret_cast<Packet*>(arg));
      break;
    case kEvSegmentCopied:
      on_copied(static_cast<uint32_t>(arg));
      break;
    case kEvTransportRto:
      on_timer(static_cast<uint32_t>(arg));
      break;
    case kEvDelayedAck:
      on_delack(static_cast<uint32_t>(arg));
      break;
    default:
      break;
  }
}

TcpStack::Next TcpStack::next_segment(uint8_t paused) {
  for (size_t tries = 0; tries < active_.size();) {
    if (rr_ >= active_.size()) {
      rr_ = 0;
    }
    const uint32_t id = active_[rr_];
    Send& s = send_[id];
    if (s.una >= s.posted) {  // everything acknowledged: leave the list until the next post
      s.active = false;
      active_[rr_] = active_.back();
      active_.pop_back();
      continue;
    }
    ++tries;
    ++rr_;
    if (paused & (1u << s.prio)) {
      continue;
    }
    if (Packet* p = next_of(s, id)) {
      ++segments_sent_;
      const bool lost = !drops_.empty() && !(p->flags & Packet::kFlagRetx) && take_injected(id, p->psn);
      return {p, lost};
    }
  }
  return {};
}

bool TcpStack::take_injected(uint32_t send, uint32_t seq) {
  const auto it = std::ranges::find(drops_, std::make_pair(send, seq));
  if (it == drops_.end()) {
    return false;
  }
  drops_.erase(it);
  return true;
}

// RFC 6675 NextSeg(), with cwnd - pipe >= 1 SMSS: a lost segment first, else new data within the receive window;
// a due loss probe goes first and past cwnd.
Packet* TcpStack::next_of(Send& s, uint32_t id) {
  if (s.probe_due) {
    s.probe_due = false;
    if (Packet* p = probe(s, id)) {
      return p;
    }
  }
  const int64_t in_pipe = pipe(s);
  const bool can_more = s.lost > 0 || s.nxt < s.ready;
  if (static_cast<double>(in_pipe + s.seg_payload) > s.w.cwnd && in_pipe > 0) {
    s.cwnd_limited = s.cwnd_limited || can_more;
    return nullptr;
  }
  if (s.lost > 0) {
    for (size_t j = std::max(s.retx_scan, s.head); j < s.segs.size(); ++j) {
      Seg& g = s.segs[j];
      if ((g.flags & (kLost | kRetx | kSacked)) == kLost) {
        g.flags |= kRetx | kResent;
        s.lost -= g.len;
        s.retx_scan = j + 1;
        s.retx_out.push_back(j);
        return segment(s, g, true);
      }
    }
    s.retx_scan = s.segs.size();
  }
  return new_segment(s, id, in_pipe);
}

// The next segment of new data, if the receive window takes it.
Packet* TcpStack::new_segment(Send& s, uint32_t id, int64_t in_pipe) {
  if (s.nxt >= s.ready) {
    return nullptr;
  }
  int64_t len = std::min(s.seg_payload, s.ready - s.nxt);
  if (s.offload) {  // an FPDU carries one DDP segment, of one message (RFC 5041 5.2)
    len = std::min(len, message_at(s, s.nxt).end - s.nxt);
  }
  if (s.nxt + len - s.una > p_.rcvbuf.count()) {  // the receiver's window is full
    return nullptr;
  }
  const bool idle = s.una == s.nxt;
  s.segs.push_back(Seg{s.nxt, static_cast<int32_t>(len), 0, Time(), s.wire_nxt});
  s.nxt += len;
  s.wire_nxt += s.offload ? wire::iwarp_frame(static_cast<int>(len)) - wire::tcp_frame(0) : len;
  if (static_cast<double>(in_pipe + 2 * s.seg_payload) > s.w.cwnd) {
    s.cwnd_limited = true;
  }
  Packet* p = segment(s, s.segs.back(), false);
  if (idle) {  // RFC 6298 5.1: the timer runs while data is outstanding
    s.rto_deadline = ctx_.sim.now() + s.rto;
  }
  schedule_probe(s);
  arm_timer(s, id);
  return p;
}

// RFC 8985 7.3: new data if the receive window allows (cwnd does not hold a probe), else the highest segment sent
// again; then the retransmission timer runs from now.
Packet* TcpStack::probe(Send& s, uint32_t id) {
  if (s.state != State::kOpen || s.una >= s.nxt) {
    return nullptr;
  }
  Packet* p = new_segment(s, id, pipe(s));
  s.tlp_retx = p == nullptr;
  if (p == nullptr) {
    Seg& g = s.segs.back();
    if ((g.flags & (kLost | kRetx | kSacked)) == kLost) {
      s.lost -= g.len;
    }
    if (!(g.flags & kRetx) && !(g.flags & kSacked)) {
      s.retx_out.push_back(s.segs.size() - 1);
    }
    if (!(g.flags & kSacked)) {
      g.flags |= kLost | kRetx;
    }
    g.flags |= kResent;
    p = segment(s, g, true);
  }
  s.tlp_end = s.nxt;
  s.pto_deadline = Time::max();
  s.rto_deadline = ctx_.sim.now() + s.rto;
  arm_timer(s, id);
  return p;
}

const TcpStack::Msg& TcpStack::message_at(const Send& s, int64_t seq) const {
  const auto it = std::upper_bound(s.msgs.begin() + static_cast<std::ptrdiff_t>(s.msg_head), s.msgs.end(), seq,
                                   [](int64_t q, const Msg& m) { return q < m.end; });
  return it != s.msgs.end() ? *it : s.msgs.back();
}

Packet* TcpStack::segment(Send& s, Seg& g, bool retx) {
  const Time now = ctx_.sim.now();
  // The message the segment starts in (its flow id and record), and whether one ends in it (PSH).
  const Msg& m = message_at(s, g.seq);
  Packet* p = ctx_.pool.acquire(PacketKind::kTcp);
  p->src = ctx_.host;
  p->dst = s.dst;
  p->qpn = s.dst_conn;
  p->flow = m.flow;
  p->psn = static_cast<uint32_t>(g.seq);
  p->sport = s.sport;
  p->payload = static_cast<uint16_t>(g.len);
  p->frame = static_cast<uint16_t>(s.offload ? wire::iwarp_frame(g.len) : wire::tcp_frame(g.len));
  p->priority = s.prio;
  p->dscp = s.dscp;
  p->ecn = ecn_ ? wire::kEct0 : wire::kNotEct;
  p->sent = now;
  g.sent = now;
  if (s.offload) {
    p->set_tcp_wire_seq(static_cast<uint32_t>(g.wire));
  }
  p->flags = static_cast<uint8_t>((m.end <= g.seq + g.len ? Packet::kFlagLast : 0) | (retx ? Packet::kFlagRetx : 0) |
                                  (s.offload ? Packet::kFlagIwarp : 0));
  if (retx) {
    ++ctx_.nic.record(m.record).retransmits;
  }
  return p;
}

// One event per connection, at its earliest deadline; an event made stale by an earlier one is ignored when it
// comes, and a deadline moved later is found when the event comes (on_timer then sets the next).
void TcpStack::arm_timer(Send& s, uint32_t id) {
  const Time due = std::min({s.una < s.nxt ? s.rto_deadline : Time::max(), s.pto_deadline, s.reo_deadline});
  if (due < s.timer_at) {
    s.timer_at = due;
    ctx_.sim.at(due, &ctx_.node, kEvTransportRto, id);
  }
}

// RFC 6298 2.2-2.4 (with the timestamps of every ACK as samples, RFC 7323 4.1).
void TcpStack::update_rtt(Send& s, Time sample) {
  s.min_rtt = std::min(s.min_rtt, sample);
  if (!s.rtt_seen) {
    s.rtt_seen = true;
    s.srtt = sample;
    s.rttvar = sample / 2;
  } else {
    const Time err = s.srtt > sample ? s.srtt - sample : sample - s.srtt;
    s.rttvar = Time::ps((3 * s.rttvar.ps() + err.ps()) / 4);
    s.srtt = Time::ps((7 * s.srtt.ps() + sample.ps()) / 8);
  }
  s.rto = std::clamp(s.srtt + std::max(Time::ns(1), s.rttvar * 4), p_.rto_min, p_.rto_max);
}

// RFC 8985 7.2 as Linux computes it (tcp_schedule_loss_probe): 2 x SRTT, plus rto_min with one segment in flight
// (the peer may hold its ACK) or pto_extra with more; never after the retransmission timeout. Only in the open
// state, with an RTT measured and no probe outstanding.
void TcpStack::schedule_probe(Send& s) {
  if (!p_.tlp || s.state != State::kOpen || !s.rtt_seen || s.tlp_end >= 0 || s.una >= s.nxt) {
    s.pto_deadline = Time::max();
    return;
  }
  const bool one = s.segs.size() - s.head == 1;
  const Time pto = s.srtt * 2 + (one ? p_.rto_min : p_.pto_extra);
  s.pto_deadline = std::min(ctx_.sim.now() + pto, s.rto_deadline);
}

void TcpStack::on_timer(uint32_t id) {
  Send& s = send_[id];
  const Time now = ctx_.sim.now();
  if (now != s.timer_at) {  // superseded by an earlier deadline
    return;
  }
  s.timer_at = Time::max();
  if (s.una >= s.nxt) {
    s.pto_deadline = s.reo_deadline = Time::max();
    return;
  }
  if (s.reo_deadline <= now) {  // RFC 8985 6.3: the reordering window has passed
    s.reo_deadline = Time::max();
    detect_losses(s);
    start_recovery_on_loss(s);
    ctx_.nic.wake();
  }
  if (s.pto_deadline <= now) {  // the probe instead of a timeout due now: the timer restarts with the probe
    s.pto_deadline = Time::max();
    s.rto_deadline = std::max(s.rto_deadline, now + s.rto);
    s.probe_due = true;
    ctx_.nic.wake();
  } else if (s.rto_deadline <= now) {
    // RFC 6298 5.4-5.7: resend from the oldest unacknowledged segment, every unSACKed one now counting as lost,
    // with the timeout doubled.
    ++ctx_.nic.record(s.msgs[s.msg_head].record).timeouts;
    s.cc->on_rto(s.w, static_cast<double>(s.nxt - s.una), now);
    s.lost = 0;
    for (size_t j = s.head; j < s.segs.size(); ++j) {
      Seg& g = s.segs[j];
      g.flags &= static_cast<uint8_t>(~kRetx);
      if (!(g.flags & kSacked)) {
        g.flags |= kLost;
        s.lost += g.len;
      }
    }
    s.lost_scan = s.segs.size();
    s.retx_scan = s.head;
    s.retx_out.clear();
    s.state = State::kLoss;
    s.recover = s.nxt;
    s.probe_due = false;
    s.tlp_end = -1;
    s.pto_deadline = s.reo_deadline = Time::max();
    s.rto = std::min(s.rto * 2, p_.rto_max);
    s.rto_deadline = now + s.rto;
    ctx_.nic.wake();
  }
  arm_timer(s, id);
}

int64_t TcpStack::mark_sacked(Send& s, int64_t left, int64_t right, Time echo, int64_t prior_fack) {
  int64_t newly = 0;
  // Segments are in sequence order: find the first that starts at or after `left`.
  auto it = std::lower_bound(s.segs.begin() + static_cast<std::ptrdiff_t>(s.head), s.segs.end(), left,
                             [](const Seg& g, int64_t v) { return g.seq < v; });
  for (; it != s.segs.end() && it->seq + it->len <= right; ++it) {
    if (it->flags & kSacked) {
      continue;
    }
    if ((it->flags & (kLost | kRetx)) == kLost) {
      s.lost -= it->len;
    }
    it->flags |= kSacked;
    s.sacked += it->len;
    ++s.sacked_segs;
    newly += it->len;
    rack_delivered(s, *it, echo, prior_fack);
  }
  return newly;
}

// RFC 8985 6.2 steps 2 and 3 (RACK_update, RACK_detect_reordering), against the highest end delivered before
// the ACK (a delayed cumulative ACK beside a SACK of later data is not reordering; Linux's prior_fack).
void TcpStack::rack_delivered(Send& s, const Seg& g, Time echo, int64_t prior_fack) {
  const int64_t end = g.seq + g.len;
  s.fack = std::max(s.fack, end);
  if (end < prior_fack && !(g.flags & kResent)) {
    s.reordering_seen = true;
  }
  const Time rtt = ctx_.sim.now() - g.sent;
  if ((g.flags & kResent) && (echo < g.sent || rtt < s.min_rtt)) {
    return;  // the ACK may answer an earlier transmission
  }
  s.rack_rtt = rtt;
  if (g.sent > s.rack_xmit || (g.sent == s.rack_xmit && end > s.rack_end)) {
    s.rack_xmit = g.sent;
    s.rack_end = end;
  }
}

// RFC 8985 6.2 (RACK_update_reo_wnd, without D-SACK's growth of the window).
Time TcpStack::reo_wnd(const Send& s) const {
  if (!s.reordering_seen && (s.state != State::kOpen || s.sacked_segs >= 3)) {
    return Time();
  }
  return std::min(s.min_rtt / 4, s.srtt);
}

// RFC 8985 6.2 step 5 (RACK_detect_loss): a segment sent before the latest-sent delivered one is lost once
// RACK.rtt and the reordering window have passed since it was sent; the reordering timer is set for the first
// that is not yet. First transmissions are in sequence order, which is their sending order: the scan stops at the
// first that is not due. Retransmissions in flight are checked one by one.
void TcpStack::detect_losses(Send& s) {
  if (s.rack_end == 0) {
    return;  // nothing delivered yet
  }
  const Time now = ctx_.sim.now(), wait = s.rack_rtt + reo_wnd(s);
  const auto before_rack = [&](const Seg& g) {
    return g.sent < s.rack_xmit || (g.sent == s.rack_xmit && g.seq + g.len < s.rack_end);
  };
  Time next = Time::max();
  size_t j = std::max(s.lost_scan, s.head);
  for (; j < s.segs.size(); ++j) {
    Seg& g = s.segs[j];
    if (g.flags & (kSacked | kLost)) {
      continue;
    }
    if (!before_rack(g)) {
      break;
    }
    if (g.sent + wait > now) {
      next = g.sent + wait;
      break;
    }
    g.flags |= kLost;
    s.lost += g.len;
    s.retx_scan = std::min(s.retx_scan, j);
  }
  s.lost_scan = j;
  std::erase_if(s.retx_out, [&](size_t k) {
    if (k < s.head) {
      return true;  // acknowledged
    }
    Seg& g = s.segs[k];
    if ((g.flags & kSacked) || !(g.flags & kRetx)) {
      return true;
    }
    if (!before_rack(g)) {
      return false;
    }
    if (g.sent + wait > now) {
      next = std::min(next, g.sent + wait);
      return false;
    }
    g.flags &= static_cast<uint8_t>(~kRetx);
    s.lost += g.len;
    s.retx_scan = std::min(s.retx_scan, k);
    return true;
  });
  s.reo_deadline = next;
}

// RFC 6675 5: a loss found in the open state starts fast recovery.
void TcpStack::start_recovery_on_loss(Send& s) {
  if (s.state == State::kOpen && s.lost > 0) {
    s.state = State::kRecovery;
    s.recover = s.nxt;
    s.pto_deadline = Time::max();
    s.tlp_end = -1;  // recovery's cut covers a probe's loss
    s.cc->on_congestion(s.w, static_cast<double>(s.nxt - s.una), ctx_.sim.now());
  }
}

// RFC 8985 7.4, as Linux's tcp_process_tlp_ack: a probe of new data ends its episode once acknowledged. A probe
// that resent a segment ends it with no cut on a D-SACK (both copies arrived) or on an ACK that brings nothing new;
// an ACK past the probe without either means the probe repaired a loss: the window is cut, as for any loss.
void TcpStack::on_probe_acked(Send& s, bool dsack, bool news) {
  if (s.tlp_end < 0 || s.una < s.tlp_end) {
    return;
  }
  if (!s.tlp_retx || dsack) {
    s.tlp_end = -1;
  } else if (s.una > s.tlp_end) {
    s.cc->on_congestion(s.w, static_cast<double>(s.nxt - s.una), ctx_.sim.now());
    s.tlp_end = -1;
  } else if (!news) {
    s.tlp_end = -1;
  }
}

void TcpStack::complete_messages(Send& s) {
  while (s.msg_head < s.msgs.size() && s.msgs[s.msg_head].end <= s.una) {
    const Msg& m = s.msgs[s.msg_head++];
    FlowRecord& rec = ctx_.nic.record(m.record);
    rec.end = ctx_.sim.now();
    rec.done = --rec.open == 0;
    if (m.signaled) {
      ctx_.nic.complete(s.owner,
                        Completion{m.wr_id, s.handle, WcKind::kSend, WcStatus::kSuccess, m.op, m.size, rec.end});
    }
    ctx_.sim.release();
  }
}

void TcpStack::on_ack(Packet* p) {
  const uint32_t id = p->qpn;
  Send& s = send_[id];
  const Time now = ctx_.sim.now();
  const int64_t ack = unwrap(p->psn, s.una);
  if (ack < s.una || ack > s.nxt) {  // an old ACK overtaken by a newer one
    return;
  }
  const int blocks = p->ext ? p->ext->sack_blocks : 0;
  if (ack > s.una || blocks > 0) {
    update_rtt(s, now - p->sent);
  }
  const int64_t prior_fack = s.fack;
  int64_t sacked_now = 0;
  for (int b = 0; b < blocks; ++b) {
    sacked_now +=
        mark_sacked(s, unwrap(p->ext->sack[2 * b], s.una), unwrap(p->ext->sack[2 * b + 1], s.una), p->sent, prior_fack);
  }
  const int64_t newly = ack - s.una;
  if (newly > 0) {
    while (s.head < s.segs.size() && s.segs[s.head].seq + s.segs[s.head].len <= ack) {
      const Seg& g = s.segs[s.head++];
      if (g.flags & kSacked) {
        s.sacked -= g.len;
        --s.sacked_segs;
      } else {
        rack_delivered(s, g, p->sent, prior_fack);
        if ((g.flags & (kLost | kRetx)) == kLost) {
          s.lost -= g.len;
        }
      }
    }
    s.una = ack;
    s.rto_deadline = now + s.rto;  // RFC 6298 5.3
    if (s.head > 1024 && 2 * s.head > s.segs.size()) {
      s.segs.erase(s.segs.begin(), s.segs.begin() + static_cast<std::ptrdiff_t>(s.head));
      s.lost_scan = s.lost_scan > s.head ? s.lost_scan - s.head : 0;
      s.retx_scan = s.retx_scan > s.head ? s.retx_scan - s.head : 0;
      std::erase_if(s.retx_out, [&](size_t j) { return j < s.head; });
      for (size_t& j : s.retx_out) {
        j -= s.head;
      }
      s.head = 0;
    }
    complete_messages(s);
  }
  detect_losses(s);
  if (s.state != State::kOpen && s.una >= s.recover) {
    s.state = State::kOpen;
  }
  on_probe_acked(s, (p->flags & Packet::kFlagDsack) != 0, newly > 0 || sacked_now > 0);
  start_recovery_on_loss(s);
  const bool ece = ecn_ && (p->flags & Packet::kFlagEce);
  if (newly > 0 && s.state != State::kRecovery) {
    s.cc->on_ack(s.w, TcpAck{static_cast<double>(newly), ece ? static_cast<double>(newly) : 0.0, s.una, s.nxt, now,
                             s.srtt, s.cwnd_limited});
    s.cwnd_limited = false;
  }
  if (ece && s.state == State::kOpen && s.una >= s.cwr_end) {  // RFC 3168 6.1.2: once per window
    s.cc->on_ece(s.w, static_cast<double>(s.nxt - s.una), now);
    s.cwr_end = s.nxt;
  }
  s.w.cwnd = std::max(s.w.cwnd, s.w.mss);
  if (newly > 0) {
    schedule_probe(s);
  }
  arm_timer(s, id);
  refill(s, id);
  ctx_.nic.wake();
}

void TcpStack::receive(Packet* p) {
  if (p->payload == 0) {
    ++segments_rcvd_;
    on_ack(p);
    ctx_.pool.release(p);
    return;
  }
  Recv& r = recv_[p->qpn];
  if (kernel(r.offload)) {  // the receiving core processes it (and, at a message's end, the recv() call)
    const double cycles = p_.rx_cycles_per_frame + p_.rx_cycles_per_byte * p->payload +
                          ((p->flags & Packet::kFlagLast) ? p_.call_cycles : 0.0);
    const Time done = run_on_core(r.core, cycles);
    ctx_.sim.at(done, &ctx_.node, kEvSegmentProcessed, reinterpret_cast<uint64_t>(p));
    return;
  }
  on_processed(p);
}

void TcpStack::on_processed(Packet* p) {
  ++segments_rcvd_;
  on_data(recv_[p->qpn], p->qpn, p);
  ctx_.pool.release(p);
}

void TcpStack::on_data(Recv& r, uint32_t id, Packet* p) {
  const int64_t seq = unwrap(p->psn, r.rcv_nxt), end = seq + p->payload;
  const bool ce = p->ecn == wire::kCe;
  if (ecn_ && ce != r.ce) {  // RFC 8257 3.2: what came before is acknowledged with the old state
    if (r.unacked > 0) {
      send_ack(r);
    }
    r.ce = ce;
  }
  r.ts_echo = p->sent;
  bool at_once = (p->flags & Packet::kFlagLast) != 0;
  bool dsack = false;
  if (end <= r.rcv_nxt) {
    at_once = dsack = true;  // a duplicate (RFC 5681 4.2), reported (RFC 2883)
  } else if (seq > r.rcv_nxt) {
    // Out of order: into the blocks, merged with its neighbours; acknowledged at once with SACK (RFC 2018).
    dsack = std::ranges::any_of(r.ooo, [&](const auto& b) { return b.first <= seq && end <= b.second; });
    auto it = std::lower_bound(r.ooo.begin(), r.ooo.end(), std::make_pair(seq, end));
    it = r.ooo.insert(it, {seq, end});
    if (it != r.ooo.begin() && std::prev(it)->second >= it->first) {
      --it;
      it->second = std::max(it->second, std::next(it)->second);
      r.ooo.erase(std::next(it));
    }
    while (std::next(it) != r.ooo.end() && std::next(it)->first <= it->second) {
      it->second = std::max(it->second, std::next(it)->second);
      r.ooo.erase(std::next(it));
    }
    r.last_left = it->first;
    at_once = true;
  } else {
    r.rcv_nxt = end;
    if (!r.ooo.empty()) {  // a hole filled: acknowledged at once (RFC 5681 4.2)
      size_t k = 0;
      while (k < r.ooo.size() && r.ooo[k].first <= r.rcv_nxt) {
        r.rcv_nxt = std::max(r.rcv_nxt, r.ooo[k++].second);
      }
      r.ooo.erase(r.ooo.begin(), r.ooo.begin() + static_cast<std::ptrdiff_t>(k));
      at_once = true;
    }
  }
  if (at_once || ++r.unacked >= p_.ack_every) {
    send_ack(r, dsack);
  } else if (!r.delack_armed) {
    r.delack_armed = true;
    r.delack_deadline = ctx_.sim.now() + p_.delack;
    ctx_.sim.at(r.delack_deadline, &ctx_.node, kEvDelayedAck, id);
  }
}

void TcpStack::on_delack(uint32_t id) {
  Recv& r = recv_[id];
  r.delack_armed = false;
  if (r.unacked > 0) {
    send_ack(r);
  }
}

void TcpStack::send_ack(Recv& r, bool dsack) {
  Packet* a = ctx_.pool.acquire(PacketKind::kTcp);
  a->src = ctx_.host;
  a->dst = r.src;
  a->qpn = r.src_conn;
  a->psn = static_cast<uint32_t>(r.rcv_nxt);
  a->sport = r.sport;
  a->priority = r.prio;
  a->dscp = ctx_.prio_to_dscp[r.prio];
  a->sent = r.ts_echo;
  a->flags = static_cast<uint8_t>((ecn_ && r.ce ? Packet::kFlagEce : 0) | (r.offload ? Packet::kFlagIwarp : 0) |
                                  (dsack ? Packet::kFlagDsack : 0));
  int blocks = 0;
  if (!r.ooo.empty()) {  // the block that changed last first, then the highest others (RFC 2018 4)
    PacketExt& x = ctx_.pool.ext(a);
    const auto add = [&](const std::pair<int64_t, int64_t>& b) {
      x.sack[2 * blocks] = static_cast<uint32_t>(b.first);
      x.sack[2 * blocks + 1] = static_cast<uint32_t>(b.second);
      ++blocks;
    };
    for (const auto& b : r.ooo) {
      if (b.first == r.last_left) {
        add(b);
      }
    }
    for (auto it = r.ooo.rbegin(); it != r.ooo.rend() && blocks < wire::kMaxSackBlocks; ++it) {
      if (it->first != r.last_left) {
        add(*it);
      }
    }
    x.sack_blocks = static_cast<uint8_t>(blocks);
  }
  a->frame = static_cast<uint16_t>(wire::tcp_frame(0, blocks));
  r.unacked = 0;
  ++segments_sent_;
  ctx_.nic.queue_control(a);
}

int64_t TcpStack::delivered(uint32_t recv) const { return recv_[recv].rcv_nxt; }

Rate TcpStack::send_rate(uint32_t send) const {
  const Send& s = send_[send];
  if (!s.rtt_seen || s.srtt <= Time()) {
    return Rate();
  }
  return Rate::bps(static_cast<int64_t>(s.w.cwnd * 8 * 1e12 / static_cast<double>(s.srtt.ps())));
}

}  // namespace rocesim
