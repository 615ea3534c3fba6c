#include "rocesim/nic/rc_transport.hpp"

#include <algorithm>
#include <bit>

namespace rocesim {
namespace {

// Makes a ring of per-PSN slots (slot psn % size, a power of two) long enough to hold `psn`, keeping what it held
// for the PSNs from `base` on (base .. base + size - 1).
template <class T>
void fit_psn_ring(std::vector<T>& ring, uint32_t base, uint32_t psn) {
  if (psn - base < ring.size()) {
    return;
  }
  std::vector<T> bigger(std::bit_ceil(std::max<size_t>(psn - base + 1, 64)));
  for (size_t k = 0; k < ring.size(); ++k) {
    const uint32_t at = base + static_cast<uint32_t>(k);
    bigger[at & (bigger.size() - 1)] = ring[at & (ring.size() - 1)];
  }
  ring = std::move(bigger);
}

// Drops the entries of a queue consumed from `head` once they are most of it (and at least 64), keeping at least
// `keep` entries; returns how many were dropped, by which the caller moves its other indices into the queue down.
template <class T>
size_t drop_consumed(std::vector<T>& queue, size_t& head, size_t keep = 0) {
  if (head < 64 || head * 2 < queue.size()) {
    return 0;
  }
  const size_t n = std::min(head, queue.size() - keep);
  queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(n));
  head -= n;
  return n;
}

}  // namespace

RcTransport::RcTransport(const TransportContext& ctx, const NicParams& p, const CcAlgorithm& cc)
    : telemetry_(cc.wants_telemetry()), irn_(p.irn()), ctx_(ctx), p_(p), cc_alg_(cc), np_(cc.cnp_interval()) {}

void RcTransport::use_fabric(wire::Fabric f) {
  fabric_ = f;
  wire_flags_ = f == wire::Fabric::kInfiniband ? Packet::kFlagIb : 0;
}

void RcTransport::post(const WorkPost& post) {
  switch (post.kind) {
    case WorkPost::kRecv:
      recv_[post.qpn].credits += post.count;
      break;
    case WorkPost::kSend:
      start_send(post.qpn, post.wr, post.record, post.flow);
      break;
    case WorkPost::kRead:
      start_read(post.qpn, post.wr, post.record, post.flow);
      break;
  }
}

RcTransport::Peer RcTransport::send_peer(uint32_t qpn) const {
  const SendQp& q = send_[qpn];
  return {q.dst, q.prio, q.sport, sq_side_[qpn].conn};
}

RcTransport::Peer RcTransport::read_peer(uint32_t qpn) const {
  const RecvQp& r = recv_[qpn];
  return {r.src, r.prio, r.sport, r.conn};
}

uint32_t RcTransport::add_recv_qp(const RecvQpInit& init) {
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

uint32_t RcTransport::add_send_qp(const SendQpInit& init, Rate line_rate) {
  SendQp q;
  q.dst = init.peer;
  q.dst_qpn = init.peer_qpn;
  q.prio = static_cast<uint8_t>(init.priority);
  q.dscp = ctx_.prio_to_dscp[q.prio];
  q.sport = init.sport;
  q.read_response = init.read_responder;
  q.op = init.read_responder ? RdmaOp::kRead : RdmaOp::kWrite;
  q.cc = cc_alg_.make(CcFlowInfo{line_rate, init.base_rtt, p_.mtu}, timers_);
  if (irn_ && !init.read_responder) {
    // BDP-FC (IRN section 3.2): auto is the QP's line rate over its path's round trip, in packets, rounded up.
    const int64_t cap = parse_bdp_cap(p_.irn_bdp_cap);
    const __int128 per_packet = __int128{8'000'000'000'000} * p_.mtu;
    const __int128 bdp = (static_cast<__int128>(line_rate.bps()) * init.base_rtt.ps() + per_packet - 1) / per_packet;
    q.max_inflight = cap > 0   ? static_cast<uint32_t>(cap)
                     : cap < 0 ? static_cast<uint32_t>(std::clamp<__int128>(bdp, 1, kMaxPlaceWindow))
                               : UINT32_MAX;
  }
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

RcTransport::QpMessage RcTransport::message(uint32_t first_psn, const WorkRequest& wr, uint32_t record,
                                            uint32_t flow) const {
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

bool RcTransport::admit(const QpMessage& m, bool error, uint32_t owner, uint32_t handle, int64_t& posted_bytes) {
  if (error) {
    fail_message(m, owner, handle, WcStatus::kFlushed);
    return false;
  }
  ctx_.nic.set_offset(m.record, posted_bytes);
  posted_bytes += m.size;
  return true;
}

void RcTransport::start_send(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow) {
  SendQp& q = send_[qpn];
  SendSide& side = sq_side_[qpn];
  const QpMessage m = message(q.end_psn, wr, record, flow);
  if (!admit(m, q.error, side.owner, side.handle, side.posted_bytes)) {
    return;
  }
  side.msgs.push_back(m);
  q.end_psn = m.end_psn;
  start_qp(q);
  activate(qpn);
  ctx_.nic.wake();
}

void RcTransport::start_read(uint32_t qpn, const WorkRequest& wr, uint32_t record, uint32_t flow) {
  RecvQp& r = recv_[qpn];
  const QpMessage m = message(r.read_end, wr, record, flow);
  if (!admit(m, r.error, r.owner, r.handle, r.posted_bytes)) {
    return;
  }
  r.read_end = m.end_psn;
  const bool idle = r.read_head == r.reads.size();
  r.reads.push_back(m);
  if (idle) {
    r.deadline = ctx_.sim.now() + p_.retransmit_timeout;
  }
  if (!r.rto_armed) {
    r.rto_armed = true;
    ctx_.sim.at(r.deadline, &ctx_.node, kEvReadRto, qpn);
  }
  issue_reads(r);
}

// Sends the requests of waiting READs while fewer than max_rd_atomic are outstanding.
void RcTransport::issue_reads(RecvQp& r) {
  while (r.read_next < r.reads.size() && r.read_next - r.read_head < static_cast<size_t>(p_.max_rd_atomic)) {
    const QpMessage& m = r.reads[r.read_next++];
    send_read_request(r, m, m.first_psn);
  }
}

void RcTransport::Timers::arm(CongestionControl* cc, Time at, uint32_t id) {
  ctx.sim.at(at, &ctx.node, kEvCcTimer, CcTimerArg{cc->owner, id}.encode());
}

void RcTransport::count_resent(uint32_t qpn) {
  SendSide& side = sq_side_[qpn];
  const uint32_t record = side.msgs[side.tx].record;
  if (record == kNoRecord) {
    ++side.retransmits;
  } else {
    ++ctx_.nic.record(record).retransmits;
  }
}

FlowRecord* RcTransport::head_record(uint32_t qpn) {
  const SendSide& side = sq_side_[qpn];
  // The oldest message not yet acknowledged; after the last one completed, the last one (late CNPs count there).
  const size_t i = side.head < side.msgs.size() ? side.head : side.msgs.size() - 1;
  if (side.msgs.empty() || side.msgs[i].record == kNoRecord) {
    return nullptr;
  }
  return &ctx_.nic.record(side.msgs[i].record);
}

void RcTransport::finish_message(const QpMessage& m, uint32_t owner, uint32_t handle) {
  FlowRecord& rec = ctx_.nic.record(m.record);
  rec.end = ctx_.sim.now();
  rec.done = --rec.open == 0;
  if (m.signaled) {
    ctx_.nic.complete(owner,
                      Completion{m.wr_id, handle, WcKind::kSend, WcStatus::kSuccess, m.op, m.size, ctx_.sim.now()});
  }
  ctx_.sim.release();
}

void RcTransport::fail_message(const QpMessage& m, uint32_t owner, uint32_t handle, WcStatus status) {
  FlowRecord& rec = ctx_.nic.record(m.record);
  rec.end = ctx_.sim.now();
  rec.failed = true;
  --rec.open;
  ctx_.nic.complete(owner, Completion{m.wr_id, handle, WcKind::kSend, status, m.op, 0, ctx_.sim.now()});
  ctx_.sim.release();
}

void RcTransport::fail_send_qp(uint32_t qpn) {
  SendQp& q = send_[qpn];
  SendSide& side = sq_side_[qpn];
  q.error = true;
  q.next_psn = q.acked = q.end_psn;  // nothing more goes out
  q.resend = false;
  for (size_t i = side.head; i < side.msgs.size(); ++i) {
    fail_message(side.msgs[i], side.owner, side.handle, i == side.head ? WcStatus::kRetryExceeded : WcStatus::kFlushed);
  }
  side.head = side.msgs.size();
}

void RcTransport::fail_read_qp(uint32_t qpn) {
  RecvQp& r = recv_[qpn];
  r.error = true;
  for (size_t i = r.read_head; i < r.reads.size(); ++i) {
    fail_message(r.reads[i], r.owner, r.handle, i == r.read_head ? WcStatus::kRetryExceeded : WcStatus::kFlushed);
  }
  r.read_head = r.read_next = r.reads.size();
}

void RcTransport::activate(uint32_t qpn) {
  SendQp& q = send_[qpn];
  if (!q.active && (q.next_psn < q.end_psn || q.resend)) {
    q.active = true;
    active_.push_back(qpn);
  }
}

void RcTransport::arm_rto(SendQp& q, uint32_t qpn) {
  if (!q.rto_armed || q.rto_deadline < q.rto_at) {
    q.rto_armed = true;
    q.rto_at = q.rto_deadline;
    ctx_.sim.at(q.rto_at, &ctx_.node, kEvRto, qpn);
  }
}

void RcTransport::go_back(SendQp& q, uint32_t psn, uint32_t qpn) {
  q.next_psn = std::min(q.next_psn, psn);
  q.rto_deadline = ctx_.sim.now() + rto_after(q);
  if (irn_) {
    irn_reset(q, qpn);
    sq_side_[qpn].rto_base = ctx_.sim.now();
    arm_rto(q, qpn);
  }
  activate(qpn);
  ctx_.nic.wake();
}

void RcTransport::seek_tx(SendQp& q, uint32_t qpn, uint32_t psn) {
  SendSide& side = sq_side_[qpn];
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

void RcTransport::send_ctrl(PacketKind kind, const Packet& about, uint32_t dst, uint32_t qpn, uint32_t psn,
                            CtrlExtra extra) {
  Packet* c = addressed(kind, dst, qpn, about.flow, psn, about.sport);
  c->flags = extra.flags | wire_flags_;
  c->ack_pkts = extra.ack_pkts;
  c->ack_ce = extra.ack_ce;
  if (kind == PacketKind::kCnp) {
    c->opcode = wire::kCnp;
    c->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, wire::kCnpReserved, 0));
    c->sent = ctx_.sim.now();
    c->priority = static_cast<uint8_t>(p_.cnp_priority);
    ++cnt_.cnps_sent;
  } else {
    c->opcode = wire::kAcknowledge;
    c->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, 0, wire::kAeth));
    c->sent = about.sent;  // echoed
    if (telemetry_) {
      c->frame = static_cast<uint16_t>(c->frame + kIntHeaderBytes);
      if (about.int_hops() > 0) {
        PacketExt& x = ctx_.pool.ext(c);
        x.int_hops = static_cast<uint8_t>(about.int_hops());
        std::copy(about.telemetry(), about.telemetry() + about.int_hops(), x.telemetry);
      }
    }
    c->priority = static_cast<uint8_t>(p_.ack_priority);
    ++(kind == PacketKind::kNak ? cnt_.naks_sent : cnt_.acks_sent);
  }
  c->dscp = ctx_.prio_to_dscp[c->priority];
  ++cnt_.ctrl_sent;
  ctx_.nic.queue_control(c);
}

// RDMA READ request (IBTA vol 1, 9.4.3): BTH + RETH (with the message's length), no payload, on the data
// priority. `psn` is the first response packet wanted: the message's first at first, later the first missing.
void RcTransport::send_read_request(RecvQp& r, const QpMessage& m, uint32_t psn) {
  Packet* c = addressed(PacketKind::kReadRequest, r.src, r.src_qpn, m.flow, psn, r.sport);
  c->opcode = wire::kReadRequest;
  c->frame = static_cast<uint16_t>(wire::rdma_frame(fabric_, 0, wire::kReth));
  c->flags = wire_flags_;
  c->set_dma_length(static_cast<uint32_t>(m.size));
  c->priority = r.prio;
  c->dscp = ctx_.prio_to_dscp[r.prio];
  c->ecn = wire::kEct0;
  c->sent = ctx_.sim.now();
  ++cnt_.ctrl_sent;
  ctx_.nic.queue_control(c);
}

// The responder's side of a READ: a request for the next PSN is a new READ (its length from the RETH); one for
// an earlier PSN asks again from there. It keeps the last max_rd_atomic READs: the requester has no more
// outstanding, so older ones are complete there.
void RcTransport::on_read_request(Packet* p) {
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
  ctx_.nic.wake();
}

void RcTransport::start_qp(SendQp& q) {
  if (!q.started) {
    q.started = true;
    q.last_tx = q.next_send = ctx_.sim.now();
    q.last_wire = 0;
    q.cc->on_start(ctx_.sim.now());
  }
}

// Drops the messages before `head` once they are most of the list (their records stay the NIC's).
// The last message stays: late CNPs count there (head_record).
void RcTransport::compact(SendSide& side) {
  const size_t n = drop_consumed(side.msgs, side.head, 1);
  side.tx -= std::min(side.tx, n);
}

Packet* RcTransport::data_packet(SendQp& q, uint32_t qpn, uint32_t psn, Time now) {
  if (psn < q.tx_first || psn >= q.tx_end) {
    seek_tx(q, qpn, psn);
  }
  const int64_t offset = int64_t{psn - q.tx_first} * p_.mtu;
  const int payload = static_cast<int>(std::min<int64_t>(p_.mtu, q.tx_size - offset));
  const bool first = psn == q.tx_first, last = psn + 1 == q.tx_end;
  Packet* p = addressed(PacketKind::kData, q.dst, q.dst_qpn, q.tx_flow, psn, q.sport);
  if (entropies_ > 1 && !q.read_response) [[unlikely]] {
    p->sport = next_entropy(q, qpn, psn);
  }
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
  if (psn < q.high) [[unlikely]] {
    count_resent(qpn);
  }
  q.high = std::max(q.high, psn + 1);
  p->sent = now;
  q.last_tx = now;
  q.last_wire = p->wire_bytes();
  q.cc->on_sent(now, p->wire_bytes());
  pacing_changed(q);
  if (!q.rto_armed && !q.read_response) {  // a READ's requester, not its responder, recovers losses
    q.rto_deadline = now + rto_after(q);
    sq_side_[qpn].rto_base = now;
    arm_rto(q, qpn);
  } else if (irn_ && !q.read_response) {  // the timeout is chosen again by the packets now in flight
    SendSide& side = sq_side_[qpn];
    if (psn == q.acked && q.next_psn == psn + 1) {  // the only one in flight: it runs from now
      side.rto_base = now;
    }
    q.rto_deadline = side.rto_base + rto_after(q);
    arm_rto(q, qpn);
  }
  ++cnt_.data_sent;
  return p;
}

bool RcTransport::take_injected(uint32_t qpn, uint32_t psn) {
  for (auto it = drops_.begin(); it != drops_.end(); ++it) {
    if (it->first == qpn && it->second == psn) {
      drops_.erase(it);
      ++injected_;
      return true;
    }
  }
  return false;
}

Time RcTransport::lone_ready() const {
  const SendQp& q = send_[active_[0]];
  if ((q.next_psn >= q.end_psn || window_full(q)) && !q.resend) {
    return Time::max();
  }
  return std::max(q.next_send, q.hold_until);
}

uint8_t RcTransport::waiting_prios() const {
  uint8_t waiting = 0;
  for (uint32_t qpn : active_) {
    const SendQp& q = send_[qpn];
    waiting |= static_cast<uint8_t>((q.next_psn < q.end_psn || q.resend) << q.prio);
  }
  return waiting;
}

void RcTransport::on_cnp(const Packet* p) {
  SendQp& q = send_[p->qpn];
  if (FlowRecord* rec = head_record(p->qpn)) {
    ++rec->cnps;
  } else {
    ++sq_side_[p->qpn].cnps;
  }
  q.cc->on_cnp(ctx_.sim.now());
  pacing_changed(q);
}

void RcTransport::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kEvRto:
      on_rto(static_cast<uint32_t>(arg));
      break;
    case kEvReadRto:
      on_read_rto(static_cast<uint32_t>(arg));
      break;
    case kEvCcTimer: {
      const auto [qpn, id] = CcTimerArg::decode(arg);
      SendQp& q = send_[qpn];
      q.cc->on_timer(ctx_.sim.now(), id);
      pacing_changed(q);
      ctx_.nic.wake();  // a rate increase may make a waiting QP eligible sooner than its scheduled wake-up
      break;
    }
    default:
      break;
  }
}

void RcTransport::on_rto(uint32_t qpn) {
  SendQp& q = send_[qpn];
  if (!q.rto_armed || ctx_.sim.now() != q.rto_at) {  // one armed for an earlier deadline fired already
    return;
  }
  q.rto_armed = false;
  if (q.acked >= q.end_psn || q.acked >= q.next_psn) {  // nothing outstanding: the next send re-arms
    return;
  }
  if (ctx_.sim.now() < q.rto_deadline) {
    arm_rto(q, qpn);
    return;
  }
  if (FlowRecord* rec = head_record(qpn)) {
    ++rec->timeouts;
  }
  if (++q.retries > p_.retry_count) {
    fail_send_qp(qpn);
    return;
  }
  if (irn_) {
    irn_timeout(q, qpn);
    return;
  }
  go_back(q, q.acked, qpn);
}

void RcTransport::on_read_rto(uint32_t qpn) {
  RecvQp& r = recv_[qpn];
  r.rto_armed = false;
  if (r.read_head == r.reads.size()) {  // no READ outstanding: the next one re-arms
    return;
  }
  if (ctx_.sim.now() >= r.deadline) {  // no response advanced for a whole timeout: ask again
    const QpMessage& m = r.reads[r.read_head];
    ++ctx_.nic.record(m.record).timeouts;
    if (++r.retries > p_.retry_count) {
      fail_read_qp(qpn);
      return;
    }
    r.deadline = ctx_.sim.now() + p_.retransmit_timeout;
    send_read_request(r, m, r.expected);
  }
  r.rto_armed = true;
  ctx_.sim.at(r.deadline, &ctx_.node, kEvReadRto, qpn);
}

// Responder side of an RC QP (IBTA vol 1, 9.7): in-order delivery, a NAK (PSN sequence error) on the first
// gap, cumulative ACKs coalesced every ack_interval packets; and the DCQCN notification point for CE marks.
void RcTransport::on_data(Packet* p) {
  RecvQp& r = recv_[p->qpn];
  const Time now = ctx_.sim.now();
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
    // irn: a packet that fills a gap is acknowledged once with the placed packets after it (take_placed).
    const bool fills_gap = !r.placed.empty() && r.placed[r.expected & (r.placed.size() - 1)].opcode != 0xFF;
    if ((++r.since_ack >= p_.ack_interval || (p->flags & Packet::kFlagAckReq)) && !(irn_ && fills_gap)) {
      send_ctrl(PacketKind::kAck, *p, r.src, r.src_qpn, r.expected - 1,
                CtrlExtra{0, static_cast<uint16_t>(r.since_ack), static_cast<uint16_t>(r.ce_since_ack)});
      r.since_ack = r.ce_since_ack = 0;
    }
    if (p->flags & Packet::kFlagLast) {
      message_received(r, p->opcode);
    }
    if (fills_gap) [[unlikely]] {
      take_placed(r, *p);
    }
  } else if (p->psn > r.expected) {
    if (out_of_order(r, *p)) {
      if (irn_) {  // IRN's NACK: the cumulative ACK and the PSN that arrived
        send_ctrl(PacketKind::kNak, *p, r.src, r.src_qpn, r.expected, sack_extra(p->psn));
      }
      return;
    }
    if (!r.nak_sent) {
      r.nak_sent = true;
      send_ctrl(PacketKind::kNak, *p, r.src, r.src_qpn, r.expected);
    }
  } else if (p->flags & Packet::kFlagAckReq) {
    // A duplicate that asks for an ACK (after a timeout): repeat the cumulative one.
    send_ctrl(PacketKind::kAck, *p, r.src, r.src_qpn, r.expected - 1);
  }
}

bool RcTransport::out_of_order(RecvQp& r, const Packet& p) {
  const uint32_t depth = p.psn - r.expected;
  ++r.ooo;
  ++cnt_.reorder_depth[reorder_bucket(depth)];
  const bool write = p.opcode >= wire::kWriteFirst && p.opcode <= wire::kWriteOnlyImm;
  const bool send = p.opcode <= wire::kSendOnly;
  if (!((p_.ooo_placement && write) || (irn_ && (write || send))) || depth >= kMaxPlaceWindow) {
    return false;
  }
  fit_psn_ring(r.placed, r.expected, p.psn);
  Placed& slot = r.placed[p.psn & (r.placed.size() - 1)];
  if (slot.opcode == 0xFF) {  // (a second copy of a placed packet changes nothing)
    slot = Placed{p.payload, p.opcode, p.flags, p.ecn == wire::kCe};
  }
  return true;
}

// The placed packets are taken as the in-order path takes a packet: counted, acknowledged every ack_interval (or
// at an AckReq; irn: once, after the last), a message ending in one is received.
void RcTransport::take_placed(RecvQp& r, const Packet& about) {
  const size_t mask = r.placed.size() - 1;
  for (Placed* s = &r.placed[r.expected & mask]; s->opcode != 0xFF; s = &r.placed[r.expected & mask]) {
    const Placed slot = *s;
    if (slot.opcode == wire::kSendFirst || slot.opcode == wire::kSendOnly) {  // (irn) takes a posted receive
      if (r.credits == 0) {  // receiver not ready: what was placed from here is dropped, as on_data does
        std::fill(r.placed.begin(), r.placed.end(), Placed{});
        r.nak_sent = true;
        send_ctrl(PacketKind::kNak, about, r.src, r.src_qpn, r.expected, CtrlExtra{Packet::kFlagRnr, 0, 0});
        return;
      }
      --r.credits;
    }
    *s = Placed{};
    ++r.expected;
    r.delivered += slot.payload;
    r.msg_bytes += slot.payload;
    r.ce_since_ack += slot.ce;
    if ((++r.since_ack >= p_.ack_interval || (slot.flags & Packet::kFlagAckReq)) && !irn_) {
      send_ctrl(PacketKind::kAck, about, r.src, r.src_qpn, r.expected - 1,
                CtrlExtra{0, static_cast<uint16_t>(r.since_ack), static_cast<uint16_t>(r.ce_since_ack)});
      r.since_ack = r.ce_since_ack = 0;
    }
    if (slot.flags & Packet::kFlagLast) {
      message_received(r, slot.opcode);
    }
  }
  if (irn_ && r.since_ack > 0) {  // a filled gap is acknowledged at once
    send_ctrl(PacketKind::kAck, about, r.src, r.src_qpn, r.expected - 1,
              CtrlExtra{0, static_cast<uint16_t>(r.since_ack), static_cast<uint16_t>(r.ce_since_ack)});
    r.since_ack = r.ce_since_ack = 0;
  }
}

// REPS's choice (Bonato et al., 2024, algorithm 1): the oldest entropy that came back unmarked, else the next
// fresh one of the QP's range; kept per PSN until its ACK.
uint16_t RcTransport::next_entropy(SendQp& q, uint32_t qpn, uint32_t psn) {
  SendSide& side = sq_side_[qpn];
  uint16_t e = 0;
  if (side.recycled_head < side.recycled.size()) {
    e = side.recycled[side.recycled_head++];
    drop_consumed(side.recycled, side.recycled_head);
  } else {
    const uint32_t k = side.fresh;
    side.fresh = k + 1 < static_cast<uint32_t>(entropies_) ? k + 1 : 0;
    e = static_cast<uint16_t>(49152 + (q.sport + k) % 16384);  // the ephemeral range, from the QP's own port on
  }
  fit_psn_ring(side.sent_entropy, q.acked, psn);
  side.sent_entropy[psn & (side.sent_entropy.size() - 1)] = e;
  return e;
}

void RcTransport::entropies_acked(uint32_t qpn, uint32_t from, uint32_t upto, bool marked) {
  SendSide& side = sq_side_[qpn];
  if (marked || side.sent_entropy.empty()) {
    return;
  }
  const size_t mask = side.sent_entropy.size() - 1;
  for (uint32_t psn = from; psn < upto && psn - from <= mask; ++psn) {
    side.recycled.push_back(side.sent_entropy[psn & mask]);
  }
}

// The last packet of a message arrived in order: SEND and WRITE with immediate complete here (a receive
// completion); a plain WRITE only tells an application that watches its buffer.
void RcTransport::message_received(RecvQp& r, uint8_t opcode) {
  const int64_t bytes = r.msg_bytes;
  r.msg_bytes = 0;
  const uint64_t n = r.received++;
  if (opcode == wire::kSendLast || opcode == wire::kSendOnly) {
    ctx_.nic.complete(r.owner,
                      Completion{n, r.handle, WcKind::kRecv, WcStatus::kSuccess, RdmaOp::kSend, bytes, ctx_.sim.now()});
  } else if (wire::has_immdt(opcode)) {
    ctx_.nic.complete(
        r.owner, Completion{n, r.handle, WcKind::kRecv, WcStatus::kSuccess, RdmaOp::kWriteImm, bytes, ctx_.sim.now()});
  } else if (r.notify_landed) {
    ctx_.nic.complete(
        r.owner, Completion{n, r.handle, WcKind::kLanded, WcStatus::kSuccess, RdmaOp::kWrite, bytes, ctx_.sim.now()});
  }
}

// READ responses at the requester: no ACKs; the last one of a READ completes it; a gap or a timeout makes the
// requester ask again from the first response missing.
void RcTransport::on_read_response(RecvQp& r, const Packet* p) {
  if (r.error) {
    return;
  }
  if (p->psn == r.expected) {
    ++r.expected;
    r.retries = 0;
    r.delivered += p->payload;
    r.nak_sent = false;
    r.deadline = ctx_.sim.now() + p_.retransmit_timeout;
    if ((p->flags & Packet::kFlagLast) && r.read_head < r.reads.size()) {
      const QpMessage m = r.reads[r.read_head++];
      r.read_next -= drop_consumed(r.reads, r.read_head);
      issue_reads(r);
      finish_message(m, r.owner, r.handle);
    }
  } else if (p->psn > r.expected) {
    ++r.ooo;
    ++cnt_.reorder_depth[reorder_bucket(p->psn - r.expected)];
    if (!r.nak_sent && r.read_head < r.reads.size()) {
      r.nak_sent = true;
      const QpMessage& m = r.reads[r.read_head];
      ++ctx_.nic.record(m.record).naks;
      send_read_request(r, m, r.expected);
    }
  }
}

void RcTransport::on_ack(Packet* p) {
  const uint32_t qpn = p->qpn;
  SendQp& q = send_[qpn];
  if (q.acked >= q.end_psn) {
    return;
  }
  const uint32_t upto = p->kind == PacketKind::kAck ? p->psn + 1 : p->psn;
  // irn: a NACK with the PSN that arrived (IRN's SACK), carried where a READ request has its DMA length.
  const bool sack = irn_ && p->kind == PacketKind::kNak && !(p->flags & Packet::kFlagRnr) && p->dma_length() != 0;
  if (entropies_ > 1 && p->kind == PacketKind::kAck && upto > q.acked) [[unlikely]] {
    entropies_acked(qpn, q.acked, upto, p->ack_ce > 0);
  }
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
    const uint32_t from = q.acked;
    q.acked = upto;
    // After a go-back, an ACK of what was sent before it: what it acknowledges is not sent again.
    q.next_psn = std::max(q.next_psn, upto);
    q.retries = 0;
    q.rto_deadline = ctx_.sim.now() + rto_after(q);
    AckInfo info;
    side.acked_bytes += newly;
    info.acked_bytes = side.acked_bytes;
    info.newly_acked = newly;
    info.acked_packets = q.acked;
    info.packets = sack ? 0 : p->ack_pkts;
    info.ce_packets = sack ? 0 : p->ack_ce;
    info.rtt = ctx_.sim.now() - p->sent;
    info.int_hops = p->int_hops();
    info.telemetry = p->telemetry();
    q.cc->on_ack(ctx_.sim.now(), info);
    pacing_changed(q);
    ctx_.nic.wake();  // the window may have opened
    while (side.head < side.msgs.size() && side.msgs[side.head].end_psn <= q.acked) {
      finish_message(side.msgs[side.head++], side.owner, side.handle);
    }
    compact(side);
    if (irn_) {
      irn_acked(q, qpn, from);
    }
  }
  if (q.acked >= q.end_psn) {
    return;
  }
  if (p->kind == PacketKind::kNak && (p->flags & Packet::kFlagRnr)) {
    if (FlowRecord* rec = head_record(qpn)) {
      ++rec->rnr_naks;
    }
    q.hold_until = ctx_.sim.now() + p_.rnr_timer;
    go_back(q, p->psn, qpn);
  } else if (sack && p->psn >= q.acked) {  // (a NACK overtaken by a later ACK is stale)
    if (FlowRecord* rec = head_record(qpn)) {
      ++rec->naks;
    }
    irn_nack(q, qpn, p->dma_length() - 1);
  } else if (p->kind == PacketKind::kNak && p->psn >= q.acked) {  // (a NAK overtaken by a later ACK is stale)
    if (FlowRecord* rec = head_record(qpn)) {
      ++rec->naks;
    }
    go_back(q, p->psn, qpn);
  }
}

// IRN's loss recovery (Mittal et al., SIGCOMM 2018, section 3.1), the sender's side: a NACK's PSN is received
// (SACKed); every PSN from the cumulative ACK up to the highest SACKed one that no NACK reported is taken as lost
// and sent once more, before new packets. The first NACK starts a recovery that lasts until the cumulative ACK
// passes what had been sent then.
void RcTransport::irn_nack(SendQp& q, uint32_t qpn, uint32_t sacked_psn) {
  SendSide& side = sq_side_[qpn];
  if (sacked_psn < q.acked || sacked_psn >= q.high || q.acked < side.sacks_from) {
    return;  // (stale: acknowledged since, or sent before a go-back)
  }
  fit_psn_ring(side.sacked, q.acked, sacked_psn);
  side.sacked[sacked_psn & (side.sacked.size() - 1)] = 1;
  side.sack_high = std::max(side.sack_high, sacked_psn + 1);
  if (!side.recovering) {
    side.recovering = true;
    side.recover = q.next_psn;
    side.retx = q.acked;
  }
  side.retx = std::max(side.retx, q.acked);
  q.resend = true;
  activate(qpn);
  ctx_.nic.wake();
}

void RcTransport::irn_acked(SendQp& q, uint32_t qpn, uint32_t from) {
  SendSide& side = sq_side_[qpn];
  side.rto_base = ctx_.sim.now();
  if (!side.sacked.empty()) {
    const size_t mask = side.sacked.size() - 1;
    for (uint32_t psn = from; psn < q.acked && psn - from <= mask; ++psn) {
      side.sacked[psn & mask] = 0;
    }
  }
  side.retx = std::max(side.retx, q.acked);
  if (side.recovering && q.acked >= side.recover) {
    side.recovering = false;
  }
  if (q.acked < q.next_psn) {
    arm_rto(q, qpn);  // (fewer packets in flight may mean the shorter timeout)
  }
}

// A timeout: every PSN in flight that no NACK reported is sent again, the oldest first.
void RcTransport::irn_timeout(SendQp& q, uint32_t qpn) {
  SendSide& side = sq_side_[qpn];
  side.recovering = true;
  side.recover = q.next_psn;
  side.retx = q.acked;
  side.sack_high = std::max(side.sack_high, q.next_psn);
  q.resend = true;
  side.rto_base = ctx_.sim.now();
  q.rto_deadline = ctx_.sim.now() + rto_after(q);
  arm_rto(q, qpn);
  activate(qpn);
  ctx_.nic.wake();
}

Packet* RcTransport::resend_packet(SendQp& q, uint32_t qpn, Time now) {
  SendSide& side = sq_side_[qpn];
  const uint32_t end = std::min(side.sack_high, q.next_psn);
  uint32_t psn = std::max(side.retx, q.acked);
  const size_t mask = side.sacked.size() - 1;
  while (psn < end && psn - q.acked < side.sacked.size() && side.sacked[psn & mask]) {
    ++psn;
  }
  side.retx = psn + 1;
  if (psn >= end) {
    side.retx = psn;
    q.resend = false;
    return nullptr;
  }
  Packet* p = data_packet(q, qpn, psn, now);
  p->flags |= Packet::kFlagAckReq;  // the receiver acknowledges the gap it fills at once
  return p;
}

void RcTransport::irn_reset(SendQp& q, uint32_t qpn) {
  SendSide& side = sq_side_[qpn];
  std::fill(side.sacked.begin(), side.sacked.end(), 0);
  side.sack_high = side.retx = side.recover = 0;
  side.recovering = false;
  side.sacks_from = q.high;
  q.resend = false;
}

}  // namespace rocesim
