#include "rocesim/nic/nic.hpp"

#include <algorithm>
#include <sstream>

namespace rocesim {

const Schema<NicParams>& NicParams::schema() {
  static const Schema<NicParams> s = [] {
    Schema<NicParams> sc("nic", "every host's RDMA NIC");
    sc.add(&NicParams::mtu, "mtu", "4096", "payload bytes per packet (RoCE MTU: 256, 512, 1024, 2048 or 4096)",
           in_range<int64_t>(256, 4096), "bytes")
        .add(&NicParams::ack_interval, "ack_interval", "16",
             "the receiver acknowledges every this many packets, and always the last packet of a message",
             in_range<int64_t>(1, 1 << 20), "packets")
        .add(&NicParams::retransmit_timeout, "retransmit_timeout", "67108.864us",
             "go back to the first unacknowledged packet when no ACK advances for this long (IBTA local ACK "
             "timeout 4.096 us x 2^14, the rdma-core default exponent)",
             at_least(Time::ns(1)))
        .add(&NicParams::ack_priority, "ack_priority", "3", "priority of ACK and NAK packets", in_range<int64_t>(0, 7),
             "priority")
        .add(&NicParams::cnp_priority, "cnp_priority", "6", "priority of CNPs (NVIDIA cnp_802p_prio)",
             in_range<int64_t>(0, 7), "priority")
        .add(&NicParams::rnr_timer, "rnr_timer", "640us",
             "wait after a receiver-not-ready NAK before resending (IBTA RNR timer code 12, the rdma-core default)",
             at_least(Time::ns(1)))
        .add(&NicParams::tx_pipeline, "tx_pipeline", "0ns",
             "latency of each packet from the send engine to the wire (0: an ideal NIC, as the HPCC simulator and "
             "htsim model it; docs/model.md composes ConnectX figures)")
        .add(&NicParams::rx_pipeline, "rx_pipeline", "0ns",
             "latency of each packet from the wire to host memory and the receive engine (0: an ideal NIC)")
        .add(&NicParams::wqe_fetch, "wqe_fetch", "0ns",
             "from posting a work request (doorbell) to the NIC holding it: MMIO write and DMA read of the WQE")
        .add(&NicParams::wqe_gap, "wqe_gap", "0ns",
             "send-engine time per work request; the NIC's message rate is 1 / wqe_gap (ConnectX-6: 215 M "
             "messages/s, about 4.65 ns; NVIDIA ConnectX-6 EN user manual, Introduction)")
        .add(&NicParams::max_rd_atomic, "max_rd_atomic", "16",
             "READs outstanding per QP: further READs wait at the requester, and the responder keeps that many "
             "for re-requests (IBTA max_rd_atomic / max_dest_rd_atomic; ConnectX reports max_qp_rd_atom 16)",
             in_range<int64_t>(1, 256), "messages")
        .add(&NicParams::retry_count, "retry_count", "7",
             "retransmission timeouts in a row a requester retries before its QP goes to the error state and its "
             "requests fail (IBTA retry_cnt, 3 bits; 7 is the rdma-core and perftest default)",
             in_range<int64_t>(0, 7), "retries")
        .add(
            &NicParams::dscp_map, "dscp_map", "auto",
            "DSCP the NIC writes per priority, \"prio:dscp, ...\" (NVIDIA: mlnx_qos --trust dscp with the QP's "
            "traffic class); auto, and any priority not listed: the smallest DSCP that switch.dscp_map sends to it",
            [](const std::string& v) -> std::optional<std::string> {
              if (v == "auto") {
                return std::nullopt;
              }
              try {
                parse_prio_dscp_map(v);
              } catch (const UnitError& e) {
                return e.message;
              }
              return std::nullopt;
            },
            "auto | prio:dscp, ...")
        .add(&NicParams::rx_buffer, "rx_buffer", "130944B",
             "receive buffer for lossless traffic, which fills when the host drains it slower than the link (events: "
             "slow_receiver); default: one of the two buffers of a ConnectX port (262016 B, NVIDIA community "
             "'HowTo Tune Receive Buffers on Mellanox Adapter Cards')",
             at_least(Bytes(1)))
        .add(&NicParams::cable_length, "cable_length", "7",
             "cable length the receive buffer's PFC headroom allows for (the mlx5 driver's default: 7 m)",
             in_range<int64_t>(0, 100000), "m")
        .add(&NicParams::post_cpu, "post_cpu", "100ns",
             "host CPU time of posting one work request (writing the WQE, ringing the doorbell): an assumption of "
             "the order of an MMIO write; counted in nics.csv cpu_s")
        .reserved("cc", "congestion control, see nic.cc.*");
    return sc;
  }();
  return s;
}

std::array<int, 8> parse_prio_dscp_map(const std::string& s) {
  std::array<int, 8> m;
  m.fill(-1);
  if (s == "auto") {
    return m;
  }
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int prio = -1, dscp = -1;
    char colon = 0, extra = 0;
    std::istringstream is(item);
    if (!(is >> prio >> colon >> dscp) || colon != ':' || (is >> extra) || prio < 0 || prio > 7 || dscp < 0 ||
        dscp > 63) {
      throw UnitError{"bad entry '" + item + "' (expected 'PRIORITY:DSCP', priority 0..7, DSCP 0..63)"};
    }
    m[static_cast<size_t>(prio)] = dscp;
  }
  return m;
}

Nic::Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
         std::array<uint8_t, 8> prio_to_dscp)
    : Node(sim, pool, std::move(name), NodeKind::kNic),
      telemetry_(cc.wants_telemetry()),
      host_(host),
      prio_to_dscp_(prio_to_dscp),
      p_(p),
      cc_alg_(cc),
      np_(cc.cnp_interval()),
      pfc_(sim, pool, *this, *this),
      posts_(sim, *this, *this, p.wqe_fetch, p.wqe_gap),
      cq_(sim, *this) {
  pause_ = &pause_states_;
}

uint32_t Nic::add_recv_qp(const RecvQpInit& init) {
  RecvQp r;
  r.read = init.read_requester;
  r.src = init.peer;  // where the data comes from
  r.prio = static_cast<uint8_t>(init.priority);
  r.sport = init.sport;
  r.notify_landed = init.notify_landed;
  r.owner = init.owner;
  r.handle = init.handle;
  r.conn = init.conn;
  recv_.push_back(std::move(r));
  return static_cast<uint32_t>(recv_.size() - 1);
}

uint32_t Nic::add_send_qp(const SendQpInit& init) {
  SendQp q;
  q.dst = init.peer;
  q.dst_qpn = init.peer_qpn;
  q.prio = static_cast<uint8_t>(init.priority);
  q.dscp = prio_to_dscp_[q.prio];
  q.sport = init.sport;
  q.read_response = init.read_responder;
  q.op = init.read_responder ? RdmaOp::kRead : RdmaOp::kWrite;
  q.cc = cc_alg_.make(CcFlowInfo{link_.rate, init.base_rtt, p_.mtu}, *this);
  const auto qpn = static_cast<uint32_t>(send_.size());
  q.cc->owner = qpn;
  send_.push_back(std::move(q));
  SendSide side;
  side.owner = init.owner;
  side.handle = init.handle;
  side.conn = init.conn;
  sq_side_.push_back(std::move(side));
  return qpn;
}

Nic::NewMessage Nic::new_record(uint32_t peer, int prio, uint16_t sport, uint32_t conn, const WorkRequest& wr,
                                uint32_t id, Time at) {
  sim_.hold();  // the run goes on until the message completes
  const uint32_t flow = id != kUnnumbered ? id : messages_;
  ++messages_;
  const bool grouped = group_records_ && id == kUnnumbered && wr.group != WorkRequest::kNoGroup;
  if (grouped) {
    const auto row = group_row_.find(conn);
    if (row != group_row_.end() && records_[row->second].group == wr.group) {
      FlowRecord& g = records_[row->second];
      g.spec.size += wr.size;
      ++g.messages;
      ++g.open;
      g.done = false;
      return {row->second, flow};
    }
  }
  FlowRecord r;
  r.spec.src = host_;
  r.spec.dst = peer;
  r.spec.size = wr.size;
  r.spec.start = at;
  r.spec.priority = prio;
  r.spec.op = wr.op;
  r.spec.workload = wr.workload;
  r.spec.app_port = wr.app_port;
  r.id = id;
  r.sport = sport;
  r.posted = at;
  r.conn = conn;
  const auto index = static_cast<uint32_t>(records_.size());
  if (grouped) {
    r.group = wr.group;
    group_row_[conn] = index;
  }
  records_.push_back(r);
  return {index, flow};
}

void Nic::set_offset(uint32_t record, int64_t offset) {
  FlowRecord& r = records_[record];
  if (r.messages == 1) {
    r.offset = offset;
  }
}

uint32_t Nic::add_tcp_send(const TcpSendInit& init) { return tcp_->add_send(init) | kTcpBit; }
uint32_t Nic::add_tcp_recv(const TcpRecvInit& init) { return tcp_->add_recv(init) | kTcpBit; }

void Nic::post_send(uint32_t send_qpn, const WorkRequest& wr, Time at, uint32_t id) {
  if (send_qpn & kTcpBit) {
    const TcpStack::Peer peer = tcp_->peer(send_qpn & ~kTcpBit);
    const NewMessage m = new_record(peer.dst, peer.prio, peer.sport, peer.conn, wr, id, at);
    // A kernel send() is a system call, not a doorbell: no WQE to fetch (its cost is the CPU's).
    const WorkPost post{WorkPost::kSend, send_qpn, wr, m.record, m.flow, 0};
    if (peer.offload) {
      posts_.ring(post, at);
    } else {
      posts_.direct(post, at);
    }
    return;
  }
  cnt_.post_cpu += p_.post_cpu;
  const SendQp& q = send_[send_qpn];
  const NewMessage m = new_record(q.dst, q.prio, q.sport, sq_side_[send_qpn].conn, wr, id, at);
  posts_.ring(WorkPost{WorkPost::kSend, send_qpn, wr, m.record, m.flow, 0}, at);
}

void Nic::post_read(uint32_t recv_qpn, const WorkRequest& wr, Time at, uint32_t id) {
  cnt_.post_cpu += p_.post_cpu;
  const RecvQp& r = recv_[recv_qpn];
  const NewMessage m = new_record(r.src, r.prio, r.sport, r.conn, wr, id, at);
  posts_.ring(WorkPost{WorkPost::kRead, recv_qpn, wr, m.record, m.flow, 0}, at);
}

void Nic::post_recv(uint32_t recv_qpn, int64_t count, Time at) {
  if (recv_qpn & kTcpBit) {  // a TCP receiver takes whatever arrives: nothing to post
    return;
  }
  posts_.direct(WorkPost{WorkPost::kRecv, recv_qpn, WorkRequest{}, 0, 0, count}, at);
}

void Nic::posted(const WorkPost& post) {
  if (post.kind == WorkPost::kRecv) {
    recv_[post.qpn].credits += post.count;
  } else if (post.qpn & kTcpBit) {
    tcp_->post(post.qpn & ~kTcpBit, post.wr, post.record, post.flow);
  } else if (post.kind == WorkPost::kSend) {
    start_send(post.qpn, post.wr, post.record, post.flow);
  } else {
    start_read(post.qpn, post.wr, post.record, post.flow);
  }
}

Nic::QpMessage Nic::message(uint32_t first_psn, const WorkRequest& wr, uint32_t record, uint32_t flow) const {
  QpMessage m;
  m.first_psn = first_psn;
  m.size = wr.size.count();
  m.end_psn = first_psn + static_cast<uint32_t>(std::max<int64_t>(1, (m.size + p_.mtu - 1) / p_.mtu));
  m.op = wr.op;
  m.signaled = wr.signaled;
  m.wr_id = wr.wr_id;
  m.record = record;
  m.flow = flow;
  return m;
}

void Nic::start_send(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow) {
  SendQp& q = send_[qpn];
  SendSide& side = sq_side_[qpn];
  const QpMessage m = message(q.end_psn, wr, record, flow);
  if (q.error) {
    fail_message(m, side.owner, side.handle, WcStatus::kFlushed);
    return;
  }
  set_offset(record, side.posted_bytes);
  side.posted_bytes += m.size;
  side.msgs.push_back(m);
  q.end_psn = m.end_psn;
  start_qp(q);
  activate(qpn);
  try_send();
}

void Nic::start_read(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow) {
  RecvQp& r = recv_[qpn];
  const QpMessage m = message(r.read_end, wr, record, flow);
  if (r.error) {
    fail_message(m, r.owner, r.handle, WcStatus::kFlushed);
    return;
  }
  set_offset(record, r.posted_bytes);
  r.posted_bytes += m.size;
  r.read_end = m.end_psn;
  const bool idle = r.read_head == r.reads.size();
  r.reads.push_back(m);
  if (idle) {
    r.deadline = sim_.now() + p_.retransmit_timeout;
  }
  if (!r.rto_armed) {
    r.rto_armed = true;
    sim_.at(r.deadline, this, kEvReadRto, qpn);
  }
  issue_reads(r);
}

// Sends the requests of waiting READs while fewer than max_rd_atomic are outstanding.
void Nic::issue_reads(RecvQp& r) {
  while (r.read_next < r.reads.size() && r.read_next - r.read_head < static_cast<size_t>(p_.max_rd_atomic)) {
    const QpMessage& m = r.reads[r.read_next++];
    send_read_request(r, m, m.first_psn);
  }
}

void Nic::arm(CongestionControl* cc, Time at, uint32_t id) {
  sim_.at(at, this, kEvCcTimer, CcTimerArg{cc->owner, id}.encode());
}

FlowRecord* Nic::head_record(uint32_t qpn) {
  const SendSide& side = sq_side_[qpn];
  // The oldest message not yet acknowledged; after the last one completed, the last one (late CNPs count there).
  const size_t i = side.head < side.msgs.size() ? side.head : side.msgs.size() - 1;
  if (side.msgs.empty() || side.msgs[i].record == kNoRecord) {
    return nullptr;
  }
  return &records_[side.msgs[i].record];
}

void Nic::finish_message(const QpMessage& m, uint32_t owner, uint32_t handle) {
  FlowRecord& rec = records_[m.record];
  rec.end = sim_.now();
  rec.done = --rec.open == 0;
  if (m.signaled) {
    complete(owner, Completion{m.wr_id, handle, WcKind::kSend, WcStatus::kSuccess, m.op, m.size, sim_.now()});
  }
  sim_.release();
}

void Nic::fail_message(const QpMessage& m, uint32_t owner, uint32_t handle, WcStatus status) {
  FlowRecord& rec = records_[m.record];
  rec.end = sim_.now();
  rec.failed = true;
  --rec.open;
  complete(owner, Completion{m.wr_id, handle, WcKind::kSend, status, m.op, 0, sim_.now()});
  sim_.release();
}

void Nic::fail_send_qp(uint32_t qpn) {
  SendQp& q = send_[qpn];
  SendSide& side = sq_side_[qpn];
  q.error = true;
  q.next_psn = q.acked = q.end_psn;  // nothing more goes out
  for (size_t i = side.head; i < side.msgs.size(); ++i) {
    fail_message(side.msgs[i], side.owner, side.handle, i == side.head ? WcStatus::kRetryExceeded : WcStatus::kFlushed);
  }
  side.head = side.msgs.size();
}

void Nic::fail_read_qp(uint32_t qpn) {
  RecvQp& r = recv_[qpn];
  r.error = true;
  for (size_t i = r.read_head; i < r.reads.size(); ++i) {
    fail_message(r.reads[i], r.owner, r.handle, i == r.read_head ? WcStatus::kRetryExceeded : WcStatus::kFlushed);
  }
  r.read_head = r.read_next = r.reads.size();
}

void Nic::schedule_pause_storm(Time from, Time until, int prio) { pfc_.schedule_storm(from, until, prio, link_.rate); }

namespace {
constexpr int64_t kMinMaxMtu = 9216;  // the XON gap: mlx5 port_buffer.c's MINIMUM_MAX_MTU
}

RxBufferLimits Nic::rx_limits() const {
  const int64_t frame = wire::rdma_frame(fabric_, static_cast<int>(p_.mtu), wire::kReth);
  return {p_.rx_buffer, mlx5_rx_headroom(link_.rate, p_.cable_length, frame), Bytes(std::max(frame, kMinMaxMtu))};
}

Bytes Nic::rx_buffer_needed() const {
  const RxBufferLimits l = rx_limits();
  return l.headroom + l.xon_gap + Bytes(wire::rdma_frame(fabric_, static_cast<int>(p_.mtu), wire::kReth));
}

void Nic::schedule_slow_receiver(Time from, Time until, Rate rate, uint8_t lossless) {
  pfc_.schedule_slow_receiver(from, until, rate, lossless, rx_limits(), link_.rate);
}

void Nic::set_dma(Rate read, Rate write, uint8_t lossless) {
  dma_read_ = read;
  dma_paced_ = read.bps() > 0;
  if (credit_fc_) {
    // InfiniBand: each VL's credits (set_rx_credits) bound what waits, so the buffer never refuses a frame.
    pfc_.set_dma_write(write, 0xff, {Bytes(p_.rx_buffer.count() * 8), Bytes(0), Bytes(0)}, link_.rate);
  } else {
    pfc_.set_dma_write(write, lossless, rx_limits(), link_.rate);
  }
  rx_slow_ = pfc_.buffering();
}

void Nic::drained(Packet* p) {
  rx_slow_ = pfc_.buffering();
  ++cnt_.data_rcvd;
  on_data(p);
  pool_.release(p);
}

void Nic::send_pause() {
  Packet* f = pfc_.frame(pfc_pending_);
  pfc_pending_ = 0;
  cnt_.tx_bytes += f->frame;
  busy_until_ = transmit(0, tx_, tx_.tx_time(f->wire_bytes(), link_), f);
  wake_after_send();
}

void Nic::use_fabric(wire::Fabric f) {
  fabric_ = f;
  wire_flags_ = f == wire::Fabric::kInfiniband ? Packet::kFlagIb : 0;
}

int Nic::max_frame() const {
  return wire::rdma_frame(fabric_, static_cast<int>(p_.mtu), wire::kReth) + (telemetry_ ? kIntHeaderBytes : 0);
}

void Nic::enable_credits(const CreditConfig& rx, uint32_t peer_buffer_blocks) {
  credits_ = std::make_unique<Credits>();
  credit_fc_ = true;
  credits_->rx.cfg = rx;
  credits_->tx.limit.fill(peer_buffer_blocks);
}

void Nic::set_rx_credits(const CreditConfig& rx) { credits_->rx.cfg = rx; }

uint8_t Nic::credit_blocked(int frame) const {
  uint8_t m = 0;
  for (int vl = 0; vl < 8; ++vl) {
    m |= static_cast<uint8_t>(!credits_->tx.fits(vl, frame) << vl);
  }
  return m;
}

// Queue pairs with data to send on a VL without credits wait (nics.csv credit_wait_ns).
void Nic::note_credit_wait(uint8_t held) {
  uint8_t waiting = 0;
  for (uint32_t qpn : active_) {
    const SendQp& q = send_[qpn];
    waiting |= static_cast<uint8_t>((q.next_psn < q.end_psn) << q.prio);
  }
  credits_->tx.hold(waiting & held, sim_.now());
}

void Nic::free_credits(const Packet& p) {
  if (credits_->rx.release(p.priority, p.frame)) {
    pfc_pending_ |= static_cast<uint8_t>(1u << p.priority);
    try_send();
  }
}

// One flow control packet (IBTA vol 1, 7.9.4) per VL with credits to return, lowest VL first; ahead of data and
// never held for credits itself.
void Nic::send_credit() {
  Packet* f = credit_packet(pool_, credits_->rx, pfc_pending_);
  cnt_.tx_bytes += f->frame;
  busy_until_ = transmit(0, tx_, tx_.tx_time(f->wire_bytes(), link_), f);
  wake_after_send();
}

void Nic::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kEvStorm:
    case kEvSlowRx:
    case kEvRxDrain:
    case kEvRxRefresh:
      pfc_.on_event(kind, arg);
      rx_slow_ = pfc_.buffering();
      break;
    case kEvPost:
      posts_.on_event(arg);
      break;
    case kEvCqe:
      cq_.on_event();
      break;
    case kEvSegmentProcessed:
      tcp_->on_processed(reinterpret_cast<Packet*>(arg));
      break;
    case kEvSegmentCopied:
      tcp_->on_copied(static_cast<uint32_t>(arg));
      break;
    case kEvTransportRto:
      tcp_->on_rto(static_cast<uint32_t>(arg));
      break;
    case kEvDelayedAck:
      tcp_->on_delack(static_cast<uint32_t>(arg));
      break;
    case kEvWake:
      if (wake_at_ <= sim_.now()) {
        wake_at_ = Time::max();
        try_send();
      }
      break;
    case kEvRto: {
      SendQp& q = send_[arg];
      q.rto_armed = false;
      if (q.acked >= q.end_psn || q.acked >= q.next_psn) {  // nothing outstanding: the next send re-arms
        break;
      }
      if (sim_.now() < q.rto_deadline) {
        arm_rto(q, static_cast<uint32_t>(arg));
        break;
      }
      if (FlowRecord* rec = head_record(static_cast<uint32_t>(arg))) {
        ++rec->timeouts;
      }
      if (++q.retries > p_.retry_count) {
        fail_send_qp(static_cast<uint32_t>(arg));
        break;
      }
      go_back(q, q.acked, static_cast<uint32_t>(arg));
      break;
    }
    case kEvReadRto: {
      RecvQp& r = recv_[arg];
      r.rto_armed = false;
      if (r.read_head == r.reads.size()) {  // no READ outstanding: the next one re-arms
        break;
      }
      if (sim_.now() >= r.deadline) {  // no response advanced for a whole timeout: ask again
        const QpMessage& m = r.reads[r.read_head];
        ++records_[m.record].timeouts;
        if (++r.retries > p_.retry_count) {
          fail_read_qp(static_cast<uint32_t>(arg));
          break;
        }
        r.deadline = sim_.now() + p_.retransmit_timeout;
        send_read_request(r, m, r.expected);
      }
      r.rto_armed = true;
      sim_.at(r.deadline, this, kEvReadRto, arg);
      break;
    }
    case kEvCcTimer: {
      const auto [qpn, id] = CcTimerArg::decode(arg);
      SendQp& q = send_[qpn];
      q.cc->on_timer(sim_.now(), id);
      pacing_changed(q);
      try_send();  // a rate increase may make a waiting QP eligible sooner than its scheduled wake-up
      break;
    }
    default:
      break;
  }
}

void Nic::activate(uint32_t qpn) {
  SendQp& q = send_[qpn];
  if (!q.active && q.next_psn < q.end_psn) {
    q.active = true;
    active_.push_back(qpn);
  }
}

void Nic::arm_rto(SendQp& q, uint32_t qpn) {
  if (!q.rto_armed) {
    q.rto_armed = true;
    sim_.at(q.rto_deadline, this, kEvRto, qpn);
  }
}

void Nic::go_back(SendQp& q, uint32_t psn, uint32_t qpn) {
  if (psn < q.next_psn) {
    if (FlowRecord* rec = head_record(qpn)) {
      rec->retransmits += q.next_psn - psn;
    } else {
      sq_side_[qpn].retransmits += q.next_psn - psn;
    }
    q.next_psn = psn;
  }
  q.rto_deadline = sim_.now() + p_.retransmit_timeout;
  activate(qpn);
  try_send();
}

void Nic::seek_tx(SendQp& q, uint32_t qpn) {
  SendSide& side = sq_side_[qpn];
  const uint32_t psn = q.next_psn;
  size_t i = std::min(side.tx, side.msgs.size() - 1);
  while (i > side.head && side.msgs[i].first_psn > psn) {
    --i;
  }
  while (i + 1 < side.msgs.size() && side.msgs[i].end_psn <= psn) {
    ++i;
  }
  side.tx = i;
  const QpMessage& m = side.msgs[i];
  q.tx_first = m.first_psn;
  q.tx_end = m.end_psn;
  q.tx_size = m.size;
  q.op = m.op;
  q.tx_flow = m.flow;
}

void Nic::send_ctrl(PacketKind kind, const Packet& about, uint32_t dst, uint32_t qpn, uint32_t psn, CtrlExtra extra) {
  const uint16_t sport = about.sport;
  Packet* c = pool_.acquire(kind);
  c->src = host_;
  c->dst = dst;
  c->qpn = qpn;
  c->flow = about.flow;
  c->psn = psn;
  c->sport = sport;
  c->flags = extra.flags | wire_flags_;
  c->ack_pkts = extra.ack_pkts;
  c->ack_ce = extra.ack_ce;
  if (kind == PacketKind::kCnp) {
    c->opcode = wire::kCnp;
    c->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, wire::kCnpReserved, 0));
    c->sent = sim_.now();
    c->priority = static_cast<uint8_t>(p_.cnp_priority);
    ++cnt_.cnps_sent;
  } else {
    c->opcode = wire::kAcknowledge;
    c->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, 0, wire::kAeth));
    c->sent = about.sent;  // echoed
    if (telemetry_) {
      c->frame = static_cast<uint16_t>(c->frame + kIntHeaderBytes);
      if (about.int_hops() > 0) {
        PacketExt& x = pool_.ext(c);
        x.int_hops = static_cast<uint8_t>(about.int_hops());
        std::copy(about.telemetry(), about.telemetry() + about.int_hops(), x.telemetry);
      }
    }
    c->priority = static_cast<uint8_t>(p_.ack_priority);
    ++(kind == PacketKind::kNak ? cnt_.naks_sent : cnt_.acks_sent);
  }
  c->dscp = prio_to_dscp_[c->priority];
  ++cnt_.ctrl_sent;
  queue_ctrl(c);
}

// RDMA READ request (IBTA vol 1, 9.4.3): BTH + RETH (with the message's length), no payload, on the data
// priority. `psn` is the first response packet wanted: the message's first at first, later the first missing.
void Nic::send_read_request(RecvQp& r, const QpMessage& m, uint32_t psn) {
  Packet* c = pool_.acquire(PacketKind::kReadRequest);
  c->src = host_;
  c->dst = r.src;
  c->qpn = r.src_qpn;
  c->flow = m.flow;
  c->psn = psn;
  c->sport = r.sport;
  c->opcode = wire::kReadRequest;
  c->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, 0, wire::kReth));
  c->flags = wire_flags_;
  c->set_dma_length(static_cast<uint32_t>(m.size));
  c->priority = r.prio;
  c->dscp = prio_to_dscp_[r.prio];
  c->ecn = wire::kEct0;
  c->sent = sim_.now();
  ++cnt_.ctrl_sent;
  ctrl_[c->priority].push(c);
  ctrl_ready_ |= static_cast<uint8_t>(1u << c->priority);
  try_send();
}

// The responder's side of a READ: a request for the next PSN is a new READ (its length from the RETH); one for
// an earlier PSN asks again from there. It keeps the last max_rd_atomic READs: the requester has no more
// outstanding, so older ones are complete there.
void Nic::on_read_request(Packet* p) {
  const uint32_t qpn = p->qpn;
  SendQp& q = send_[qpn];
  SendSide& side = sq_side_[qpn];
  start_qp(q);
  if (p->psn == q.end_psn) {
    WorkRequest wr;
    wr.op = RdmaOp::kRead;
    wr.size = Bytes(p->dma_length());
    wr.signaled = false;
    side.msgs.push_back(message(q.end_psn, wr, kNoRecord, 0));
    q.end_psn = side.msgs.back().end_psn;
  }
  while (side.msgs.size() - side.head > static_cast<size_t>(p_.max_rd_atomic)) {
    ++side.head;
  }
  compact(side);
  if (p->psn < q.next_psn) {
    go_back(q, p->psn, qpn);
    return;
  }
  activate(qpn);
  try_send();
}

void Nic::start_qp(SendQp& q) {
  if (!q.started) {
    q.started = true;
    q.last_tx = q.next_send = sim_.now();
    q.last_wire = 0;
    q.cc->on_start(sim_.now());
  }
}

// Drops the messages before `head` once they are most of the list (their records stay in records_).
// The last message stays: late CNPs count there (head_record).
void Nic::compact(SendSide& side) {
  if (side.head >= 64 && side.head * 2 >= side.msgs.size()) {
    const size_t n = std::min(side.head, side.msgs.size() - 1);
    side.msgs.erase(side.msgs.begin(), side.msgs.begin() + static_cast<std::ptrdiff_t>(n));
    side.tx -= std::min(side.tx, n);
    side.head -= n;
  }
}

void Nic::try_send() {
  if (!tx_.peer) {
    return;
  }
  const Time now = sim_.now();
  if (now < busy_until_) {  // something new to send waits for the port
    wake_by(busy_until_);
    return;
  }
  if (pfc_pending_) [[unlikely]] {  // MAC control frames go first and are not subject to pause
    credit_fc_ ? send_credit() : send_pause();
    return;
  }
  // A copy of the pause state's armed mask: a NIC never paused does not touch its pause state's cache line.
  // On InfiniBand, a VL without credits for a frame is held the same way.
  uint8_t paused = pause_armed_ ? pause_states_[0].paused_mask(now) : 0;
  if (credit_fc_) [[unlikely]] {
    paused |= credit_blocked(2 * kCreditBlock);
  }
  // Control packets (ACK, NAK, CNP) go first, highest priority first: they are small and their delay is everyone's
  // delay. A paused priority holds back only its own control packets.
  if (const uint8_t ready = ctrl_ready_ & static_cast<uint8_t>(~paused)) {
    const int prio = 31 - __builtin_clz(ready);
    Packet* c = ctrl_[prio].pop();
    if (ctrl_[prio].empty()) {
      ctrl_ready_ &= static_cast<uint8_t>(~(1u << prio));
    }
    cnt_.tx_bytes += c->frame;
    if (credit_fc_) [[unlikely]] {
      credits_->tx.on_sent(c->priority, c->frame);
    }
    busy_until_ = transmit(0, tx_, tx_.tx_time(c->wire_bytes(), link_), c);
    wake_after_send();
    return;
  }
  if (credit_fc_) [[unlikely]] {
    const uint8_t held = credit_blocked(max_frame());
    paused |= held;
    note_credit_wait(held);
  }
  // TCP segments and queue-pair packets take turns on the port.
  const bool tcp_first = tcp_ && tcp_turn_;
  if (tcp_first && send_tcp(paused)) [[unlikely]] {
    return;
  }
  if (dma_paced_ && dma_ready_ > now) [[unlikely]] {  // PCIe has not yet fetched the next payload
    wake_by(dma_ready_);
    return;
  }
  // Data: round robin over active QPs, each paced at its congestion control's rate.
  Time earliest = Time::max();
  for (size_t tries = 0; tries < active_.size();) {
    if (rr_ >= active_.size()) {
      rr_ = 0;
    }
    const uint32_t qpn = active_[rr_];
    SendQp& q = send_[qpn];
    if (q.next_psn >= q.end_psn) {  // everything sent: leave the list until a post, NAK or timeout brings it back
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
    if (window_full(q)) {  // a window-based controller caps the bytes in flight; an ACK reopens it
      ++rr_;
      continue;
    }
    ++rr_;
    if (send_data(q, qpn)) {
      tcp_turn_ = tcp_ != nullptr;
      return;
    }
  }
  if (tcp_ && !tcp_first && send_tcp(paused)) [[unlikely]] {
    return;
  }
  if (earliest < Time::max() && earliest < wake_at_) {
    wake_at_ = earliest;
    sim_.at(earliest, this, kEvWake);
  }
}

bool Nic::send_data(SendQp& q, uint32_t qpn) {
  if (q.next_psn < q.tx_first || q.next_psn >= q.tx_end) {
    seek_tx(q, qpn);
  }
  const uint32_t psn = q.next_psn++;
  const int64_t offset = int64_t{psn - q.tx_first} * p_.mtu;
  const int payload = static_cast<int>(std::min<int64_t>(p_.mtu, q.tx_size - offset));
  const bool first = psn == q.tx_first, last = psn + 1 == q.tx_end;
  Packet* p = pool_.acquire(PacketKind::kData);
  p->src = host_;
  p->dst = q.dst;
  p->qpn = q.dst_qpn;
  p->flow = q.tx_flow;
  p->psn = psn;
  p->sport = q.sport;
  p->payload = static_cast<uint16_t>(std::max(payload, 0));
  p->opcode = wire::data_opcode(q.op, first, last);
  p->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, p->payload, wire::ext_headers(p->opcode)) +
                                   (telemetry_ ? kIntHeaderBytes : 0));
  if (first && wire::has_reth(p->opcode)) {
    p->set_dma_length(static_cast<uint32_t>(q.tx_size));
  }
  p->priority = q.prio;
  p->dscp = q.dscp;
  p->ecn = wire::kEct0;
  // AckReq on the last packet, and on the packet that fills the congestion window, so that a window-limited QP
  // is never left waiting for an ACK the receiver is still coalescing.
  p->flags = static_cast<uint8_t>(
      (last ? Packet::kFlagLast : 0) | (last && !q.read_response ? Packet::kFlagAckReq : 0) |
      (window_full(q) ? Packet::kFlagAckReq : 0) | (psn < q.high ? Packet::kFlagRetx : 0) | wire_flags_);
  q.high = std::max(q.high, psn + 1);
  p->sent = sim_.now();
  const Time now = sim_.now();
  if (dma_paced_) [[unlikely]] {
    dma_ready_ = std::max(dma_ready_, now) + dma_read_.tx_time(Bytes(p->payload));
  }
  q.last_tx = now;
  q.last_wire = p->wire_bytes();
  q.cc->on_sent(now, p->wire_bytes());
  pacing_changed(q);
  if (!q.rto_armed && !q.read_response) {  // a READ's requester, not its responder, recovers losses
    q.rto_deadline = now + p_.retransmit_timeout;
    arm_rto(q, qpn);
  }
  ++cnt_.data_sent;
  cnt_.tx_bytes += p->frame;
  // An injected loss: the packet leaves the NIC (it used the wire) but never arrives.
  for (auto it = drops_.begin(); it != drops_.end(); ++it) {
    if (it->first == qpn && it->second == psn) {
      drops_.erase(it);
      ++injected_;
      busy_until_ = now + tx_.tx_time(p->wire_bytes(), link_);
      pool_.release(p);
      wake_after_send();
      return true;
    }
  }
  if (credit_fc_) [[unlikely]] {
    credits_->tx.on_sent(p->priority, p->frame);
  }
  busy_until_ = transmit(0, tx_, tx_.tx_time(p->wire_bytes(), link_), p);
  wake_after_send();
  return true;
}

bool Nic::send_tcp(uint8_t paused) {
  Packet* s = tcp_->wants_port() ? tcp_->next_segment(paused) : nullptr;
  if (!s) {
    return false;
  }
  tcp_turn_ = false;
  cnt_.tx_bytes += s->frame;
  busy_until_ = transmit(0, tx_, tx_.tx_time(s->wire_bytes(), link_), s);
  wake_after_send();
  return true;
}

void Nic::queue_ctrl(Packet* c) {
  ctrl_[c->priority].push(c);
  ctrl_ready_ |= static_cast<uint8_t>(1u << c->priority);
  try_send();
}

void Nic::wake_after_send() {
  if ((tcp_ && tcp_->wants_port()) || pfc_pending_) [[unlikely]] {  // TCP is not paced, nor link frames
    wake_by(busy_until_);
    return;
  }
  if (!ctrl_ready_ && active_.size() <= 1) {
    if (active_.empty()) {
      return;  // nothing to send: a new message, ACK or CNP will call try_send
    }
    // A lone QP: it may send when the port is free and its pacing allows. Nothing to wake for if it has sent
    // everything or its window is full (an ACK, NAK or timeout calls try_send); a pause's end calls it too.
    const SendQp& q = send_[active_[0]];
    if (q.next_psn >= q.end_psn || window_full(q)) {
      return;
    }
    wake_by(std::max({busy_until_, q.next_send, q.hold_until}));
    return;
  }
  wake_by(busy_until_);
}

// Starts loading the queue pair an arriving packet will update, and the queue pair a free port will serve next
// (see EventHandler::prefetch). Written out here: GCC drops calls to helpers that only prefetch.
void Nic::prefetch(uint32_t kind, uint64_t arg) const {
  if (kind == kEvArrive) {
    const Packet& p = *reinterpret_cast<const Packet*>(arg);
    if (p.kind == PacketKind::kData) {
      __builtin_prefetch(&recv_[p.qpn]);
    } else if (p.kind == PacketKind::kAck || p.kind == PacketKind::kNak || p.kind == PacketKind::kCnp) {
      __builtin_prefetch(&send_[p.qpn]);
    }
  } else if ((kind == kEvTxDone || kind == kEvWake) && !active_.empty()) {
    __builtin_prefetch(&send_[active_[rr_ < active_.size() ? rr_ : 0]]);
  }
}

void Nic::tx_done(uint16_t) { try_send(); }  // (the NIC schedules no kEvTxDone: see wake_after_send)

void Nic::receive(Packet* p) {
  cnt_.rx_bytes += p->frame;
  if (credit_fc_) [[unlikely]] {
    if (p->kind == PacketKind::kCredit) {
      credits_->tx.on_credit(p->priority, p->psn, max_frame(), sim_.now());
      pool_.release(p);
      try_send();
      return;
    }
    if (!credits_->rx.take(p->priority, p->frame)) {
      pool_.release(p);  // beyond the advertised buffer: a sender that ignored credits (counted)
      return;
    }
    if (!(p->kind == PacketKind::kData && rx_slow_)) {
      free_credits(*p);  // the NIC takes it at once
    }
  }
  switch (p->kind) {
    case PacketKind::kPfc: {
      const uint8_t resumed = apply_pfc(pause_states_[0], 0, *p, link_.rate, Time());
      pause_armed_ = pause_states_[0].armed;
      pool_.release(p);
      if (resumed) {
        try_send();
      }
      return;
    }
    case PacketKind::kData:
      // Data goes to host memory: behind the receive buffer of a slow receiver. The NIC takes control packets itself.
      if (rx_slow_) [[unlikely]] {
        pfc_.take(p);
        return;
      }
      ++cnt_.data_rcvd;
      on_data(p);
      break;
    case PacketKind::kAck:
    case PacketKind::kNak:
      ++cnt_.ctrl_rcvd;
      on_ack(p);
      break;
    case PacketKind::kReadRequest:
      ++cnt_.ctrl_rcvd;
      on_read_request(p);
      break;
    case PacketKind::kTcp:
      tcp_->receive(p);  // the stack keeps a data segment until its core has processed it
      return;
    case PacketKind::kCredit:
      break;  // (only on InfiniBand, handled above)
    case PacketKind::kCnp: {
      ++cnt_.ctrl_rcvd;
      SendQp& q = send_[p->qpn];
      if (FlowRecord* rec = head_record(p->qpn)) {
        ++rec->cnps;
      } else {
        ++sq_side_[p->qpn].cnps;
      }
      q.cc->on_cnp(sim_.now());
      pacing_changed(q);
      break;
    }
  }
  pool_.release(p);
}

// Responder side of an RC QP (IBTA vol 1, 9.7): in-order delivery, a NAK (PSN sequence error) on the first
// gap, cumulative ACKs coalesced every ack_interval packets; and the DCQCN notification point for CE marks.
void Nic::on_data(Packet* p) {
  RecvQp& r = recv_[p->qpn];
  const Time now = sim_.now();
  if (p->ecn == wire::kCe && np_.on_ce(r.np, now)) {
    send_ctrl(PacketKind::kCnp, *p, r.src, r.src_qpn, 0);
  }
  if (r.read) {
    on_read_response(r, p);
    return;
  }
  // A SEND takes a posted receive with its first packet; without one the responder answers with an RNR NAK and
  // drops the message (IBTA vol 1, 9.7.5.2.8).
  const bool send_first = p->opcode == wire::kSendFirst || p->opcode == wire::kSendOnly;
  if (p->psn == r.expected && send_first) {
    if (r.credits == 0) {
      r.nak_sent = true;  // the rest of this attempt is dropped without further NAKs
      send_ctrl(PacketKind::kNak, *p, r.src, r.src_qpn, r.expected, CtrlExtra{Packet::kFlagRnr, 0, 0});
      return;
    }
    --r.credits;
  }
  if (p->psn == r.expected) {
    ++r.expected;
    r.delivered += p->payload;
    r.msg_bytes += p->payload;
    r.nak_sent = false;
    r.ce_since_ack += p->ecn == wire::kCe;
    if (++r.since_ack >= p_.ack_interval || (p->flags & Packet::kFlagAckReq)) {
      send_ctrl(PacketKind::kAck, *p, r.src, r.src_qpn, r.expected - 1,
                CtrlExtra{0, static_cast<uint16_t>(r.since_ack), static_cast<uint16_t>(r.ce_since_ack)});
      r.since_ack = r.ce_since_ack = 0;
    }
    if (p->flags & Packet::kFlagLast) {
      message_received(r, p->opcode);
    }
  } else if (p->psn > r.expected) {
    if (!r.nak_sent) {
      r.nak_sent = true;
      send_ctrl(PacketKind::kNak, *p, r.src, r.src_qpn, r.expected);
    }
  } else if (p->flags & Packet::kFlagAckReq) {
    // A duplicate that asks for an ACK (after a timeout): repeat the cumulative one.
    send_ctrl(PacketKind::kAck, *p, r.src, r.src_qpn, r.expected - 1);
  }
}

// The last packet of a message arrived in order: SEND and WRITE with immediate complete here (a receive
// completion); a plain WRITE only tells an application that watches its buffer.
void Nic::message_received(RecvQp& r, uint8_t opcode) {
  const int64_t bytes = r.msg_bytes;
  r.msg_bytes = 0;
  const uint64_t n = r.received++;
  if (opcode == wire::kSendLast || opcode == wire::kSendOnly) {
    complete(r.owner, Completion{n, r.handle, WcKind::kRecv, WcStatus::kSuccess, RdmaOp::kSend, bytes, sim_.now()});
  } else if (wire::has_immdt(opcode)) {
    complete(r.owner, Completion{n, r.handle, WcKind::kRecv, WcStatus::kSuccess, RdmaOp::kWriteImm, bytes, sim_.now()});
  } else if (r.notify_landed) {
    complete(r.owner, Completion{n, r.handle, WcKind::kLanded, WcStatus::kSuccess, RdmaOp::kWrite, bytes, sim_.now()});
  }
}

// READ responses at the requester: no ACKs; the last one of a READ completes it; a gap or a timeout makes the
// requester ask again from the first response missing.
void Nic::on_read_response(RecvQp& r, const Packet* p) {
  if (r.error) {
    return;
  }
  if (p->psn == r.expected) {
    ++r.expected;
    r.retries = 0;
    r.delivered += p->payload;
    r.nak_sent = false;
    r.deadline = sim_.now() + p_.retransmit_timeout;
    if ((p->flags & Packet::kFlagLast) && r.read_head < r.reads.size()) {
      const QpMessage m = r.reads[r.read_head++];
      if (r.read_head >= 64 && r.read_head * 2 >= r.reads.size()) {
        r.reads.erase(r.reads.begin(), r.reads.begin() + static_cast<std::ptrdiff_t>(r.read_head));
        r.read_next -= r.read_head;
        r.read_head = 0;
      }
      issue_reads(r);
      finish_message(m, r.owner, r.handle);
    }
  } else if (p->psn > r.expected && !r.nak_sent && r.read_head < r.reads.size()) {
    r.nak_sent = true;
    const QpMessage& m = r.reads[r.read_head];
    ++records_[m.record].naks;
    send_read_request(r, m, r.expected);
  }
}

void Nic::on_ack(Packet* p) {
  const uint32_t qpn = p->qpn;
  SendQp& q = send_[qpn];
  if (q.acked >= q.end_psn) {
    return;
  }
  const uint32_t upto = p->kind == PacketKind::kAck ? p->psn + 1 : p->psn;
  if (upto > q.acked) {
    // Payload newly acknowledged: of each message the ACK reaches, its packets up to `upto` (whole, but at most
    // its size) less those acknowledged before.
    SendSide& side = sq_side_[qpn];
    const auto covered = [&](const QpMessage& m, uint32_t psn) {
      return std::min<int64_t>(int64_t{std::clamp(psn, m.first_psn, m.end_psn) - m.first_psn} * p_.mtu, m.size);
    };
    int64_t newly = 0;
    for (size_t i = side.head; i < side.msgs.size() && side.msgs[i].first_psn < upto; ++i) {
      newly += covered(side.msgs[i], upto) - covered(side.msgs[i], q.acked);
    }
    q.acked = upto;
    q.retries = 0;
    q.rto_deadline = sim_.now() + p_.retransmit_timeout;
    AckInfo info;
    side.acked_bytes += newly;
    info.acked_bytes = side.acked_bytes;
    info.newly_acked = newly;
    info.acked_packets = q.acked;
    info.packets = p->ack_pkts;
    info.ce_packets = p->ack_ce;
    info.rtt = sim_.now() - p->sent;
    info.int_hops = p->int_hops();
    info.telemetry = p->telemetry();
    q.cc->on_ack(sim_.now(), info);
    pacing_changed(q);
    try_send();  // the window may have opened
    while (side.head < side.msgs.size() && side.msgs[side.head].end_psn <= q.acked) {
      finish_message(side.msgs[side.head++], side.owner, side.handle);
    }
    compact(side);
  }
  if (q.acked >= q.end_psn) {
    return;
  }
  if (p->kind == PacketKind::kNak && (p->flags & Packet::kFlagRnr)) {
    if (FlowRecord* rec = head_record(qpn)) {
      ++rec->rnr_naks;
    }
    q.hold_until = sim_.now() + p_.rnr_timer;
    go_back(q, p->psn, qpn);
  } else if (p->kind == PacketKind::kNak) {
    if (FlowRecord* rec = head_record(qpn)) {
      ++rec->naks;
    }
    go_back(q, p->psn, qpn);
  }
}

}  // namespace rocesim
