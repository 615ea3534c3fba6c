#include "rocesim/nic/nic.hpp"

#include <algorithm>

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
        .reserved("cc", "congestion control, see nic.cc.*");
    return sc;
  }();
  return s;
}

Nic::Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
         FlowTable& flows, std::array<uint8_t, 8> prio_to_dscp)
    : Node(sim, pool, std::move(name)),
      telemetry_(cc.wants_telemetry()),
      host_(host),
      prio_to_dscp_(prio_to_dscp),
      flows_(flows),
      p_(p),
      cc_alg_(cc),
      cnp_interval_(cc.cnp_interval()) {
  pause_ = &pause_states_;
}

uint32_t Nic::add_recv_qp(uint32_t flow, bool as_read_requester) {
  const FlowRecord& f = flows_[flow];
  RecvQp r;
  r.flow = flow;
  r.read = as_read_requester;
  r.src = as_read_requester ? f.spec.dst : f.spec.src;  // where the data comes from
  r.prio = static_cast<uint8_t>(f.spec.priority);
  r.recv_posted = f.spec.op == RdmaOp::kSend ? f.spec.recv_posted : Time();
  recv_.push_back(r);
  const auto qpn = static_cast<uint32_t>(recv_.size() - 1);
  if (as_read_requester) {
    sim_.at(f.spec.start, this, kEvReadStart, qpn);
  }
  return qpn;
}

uint32_t Nic::add_send_qp(uint32_t flow, uint32_t dst_qpn, bool as_read_responder) {
  const FlowRecord& f = flows_[flow];
  SendQp q;
  q.flow = flow;
  q.dst = as_read_responder ? f.spec.src : f.spec.dst;
  q.dst_qpn = dst_qpn;
  q.size = f.spec.size.count();
  q.npkts = static_cast<uint32_t>(std::max<int64_t>(1, (q.size + p_.mtu - 1) / p_.mtu));
  q.prio = static_cast<uint8_t>(f.spec.priority);
  q.dscp = prio_to_dscp_[q.prio];
  q.sport = f.sport;
  q.op = f.spec.op;
  q.read_response = as_read_responder;
  q.cc = cc_alg_.make(CcFlowInfo{link_.rate, f.base_rtt, p_.mtu}, *this);
  const auto qpn = static_cast<uint32_t>(send_.size());
  q.cc->owner = qpn;
  send_.push_back(std::move(q));
  if (!as_read_responder && f.spec.after < 0) {
    sim_.at(f.spec.start, this, kEvStart, qpn);
  }
  return qpn;
}

void Nic::arm(CongestionControl* cc, Time at, uint32_t id) {
  sim_.at(at, this, kEvCcTimer, (uint64_t{cc->owner} << 32) | id);
}

void Nic::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kEvStart: {
      SendQp& q = send_[arg];
      if (q.started) {
        break;
      }
      q.started = true;
      q.last_tx = sim_.now();
      q.last_wire = 0;
      q.next_send = sim_.now();
      q.cc->on_start(sim_.now());
      activate(static_cast<uint32_t>(arg));
      try_send();
      break;
    }
    case kEvWake:
      if (wake_at_ <= sim_.now()) {
        wake_at_ = Time::max();
        try_send();
      }
      break;
    case kEvRto: {
      SendQp& q = send_[arg];
      q.rto_armed = false;
      if (q.acked >= q.npkts || q.acked >= q.next_psn) {  // nothing outstanding: the next send re-arms
        break;
      }
      if (sim_.now() < q.rto_deadline) {
        arm_rto(q, static_cast<uint32_t>(arg));
        break;
      }
      ++flows_[q.flow].timeouts;
      go_back(q, q.acked, static_cast<uint32_t>(arg));
      break;
    }
    case kEvReadStart: {
      RecvQp& r = recv_[arg];
      r.deadline = sim_.now() + p_.retransmit_timeout;
      r.rto_armed = true;
      sim_.at(r.deadline, this, kEvReadRto, arg);
      send_read_request(r, 0);
      break;
    }
    case kEvReadRto: {
      RecvQp& r = recv_[arg];
      r.rto_armed = false;
      if (flows_[r.flow].done) {
        break;
      }
      if (sim_.now() >= r.deadline) {  // no response advanced for a whole timeout: ask again
        ++flows_[r.flow].timeouts;
        r.deadline = sim_.now() + p_.retransmit_timeout;
        send_read_request(r, r.expected);
      }
      r.rto_armed = true;
      sim_.at(r.deadline, this, kEvReadRto, arg);
      break;
    }
    case kEvCcTimer: {
      SendQp& q = send_[arg >> 32];
      q.cc->on_timer(sim_.now(), static_cast<uint32_t>(arg));
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
  if (!q.active && q.next_psn < q.npkts) {
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
    flows_[q.flow].retransmits += q.next_psn - psn;
    q.next_psn = psn;
  }
  q.rto_deadline = sim_.now() + p_.retransmit_timeout;
  activate(qpn);
  try_send();
}

void Nic::send_ctrl(PacketKind kind, const Packet& about, uint32_t dst, uint32_t qpn, uint32_t flow, uint32_t psn,
                    CtrlExtra extra) {
  const uint16_t sport = about.sport;
  Packet* c = pool_.acquire(kind);
  c->src = host_;
  c->dst = dst;
  c->qpn = qpn;
  c->flow = flow;
  c->psn = psn;
  c->sport = sport;
  c->flags = extra.flags;
  c->ack_pkts = extra.ack_pkts;
  c->ack_ce = extra.ack_ce;
  if (kind == PacketKind::kCnp) {
    c->opcode = wire::kCnp;
    c->frame = wire::kCnpFrame;
    c->sent = sim_.now();
    c->priority = static_cast<uint8_t>(p_.cnp_priority);
    ++cnt_.cnps_sent;
  } else {
    c->opcode = wire::kAcknowledge;
    c->frame = wire::kAckFrame;
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
  ctrl_[c->priority].push(c);
  ctrl_ready_ |= static_cast<uint8_t>(1u << c->priority);
  try_send();
}

// RDMA READ request (IBTA vol 1, 9.4.3): BTH + RETH, no payload, on the flow's data priority. `psn` is the
// first response packet wanted: 0 at first, later the first one missing.
void Nic::send_read_request(RecvQp& r, uint32_t psn) {
  Packet* c = pool_.acquire(PacketKind::kReadRequest);
  c->src = host_;
  c->dst = r.src;
  c->qpn = r.src_qpn;
  c->flow = r.flow;
  c->psn = psn;
  c->sport = flows_[r.flow].sport;
  c->opcode = wire::kReadRequest;
  c->frame = static_cast<uint16_t>(wire::roce_frame(0, wire::kReth));
  c->priority = r.prio;
  c->dscp = prio_to_dscp_[r.prio];
  c->ecn = wire::kEct0;
  c->sent = sim_.now();
  ++cnt_.ctrl_sent;
  ctrl_[c->priority].push(c);
  ctrl_ready_ |= static_cast<uint8_t>(1u << c->priority);
  try_send();
}

// The responder's side of a READ: (re)start the response stream at the PSN the requester asks for.
void Nic::on_read_request(Packet* p) {
  const uint32_t qpn = p->qpn;
  SendQp& q = send_[qpn];
  if (!q.started) {
    q.started = true;
    q.last_tx = q.next_send = sim_.now();
    q.last_wire = 0;
    q.cc->on_start(sim_.now());
  } else if (p->psn < q.next_psn) {
    flows_[q.flow].retransmits += q.next_psn - p->psn;
    q.next_psn = p->psn;
  }
  activate(qpn);
  try_send();
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
  // A copy of the pause state's armed mask: a NIC never paused does not touch its pause state's cache line.
  const uint8_t paused = pause_armed_ ? pause_states_[0].paused_mask(now) : 0;
  // Control packets (ACK, NAK, CNP) go first, highest priority first: they are small and their delay is everyone's
  // delay. A paused priority holds back only its own control packets.
  if (const uint8_t ready = ctrl_ready_ & static_cast<uint8_t>(~paused)) {
    const int prio = 31 - __builtin_clz(ready);
    Packet* c = ctrl_[prio].pop();
    if (ctrl_[prio].empty()) {
      ctrl_ready_ &= static_cast<uint8_t>(~(1u << prio));
    }
    cnt_.tx_bytes += c->frame;
    busy_until_ = transmit(0, tx_, tx_.tx_time(c->wire_bytes(), link_), c);
    wake_after_send();
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
    if (q.next_psn >= q.npkts) {  // everything sent: leave the list until a NAK or timeout brings it back
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
    // A window-based controller caps the bytes in flight; an ACK reopens it.
    if (q.cc->window > 0 && int64_t{q.next_psn - q.acked} * p_.mtu >= q.cc->window) {
      ++rr_;
      continue;
    }
    ++rr_;
    if (send_data(q, qpn)) {
      return;
    }
  }
  if (earliest < Time::max() && earliest < wake_at_) {
    wake_at_ = earliest;
    sim_.at(earliest, this, kEvWake);
  }
}

bool Nic::send_data(SendQp& q, uint32_t qpn) {
  const uint32_t psn = q.next_psn++;
  const int64_t offset = int64_t{psn} * p_.mtu;
  const int payload = static_cast<int>(std::min<int64_t>(p_.mtu, q.size - offset));
  const bool first = psn == 0, last = psn + 1 == q.npkts;
  Packet* p = pool_.acquire(PacketKind::kData);
  p->src = host_;
  p->dst = q.dst;
  p->qpn = q.dst_qpn;
  p->flow = q.flow;
  p->psn = psn;
  p->sport = q.sport;
  p->payload = static_cast<uint16_t>(std::max(payload, 0));
  // Opcodes and extended headers (IBTA vol 1, 9.2-9.4; ground-truth.md 6): RETH on WRITE first/only, AETH on
  // READ response first/last/only, none on SEND.
  int ext = 0;
  switch (q.op) {
    case RdmaOp::kWrite:
      p->opcode = first && last ? wire::kWriteOnly
                  : first       ? wire::kWriteFirst
                  : last        ? wire::kWriteLast
                                : wire::kWriteMiddle;
      ext = first ? wire::kReth : 0;
      break;
    case RdmaOp::kSend:
      p->opcode = first && last ? wire::kSendOnly
                  : first       ? wire::kSendFirst
                  : last        ? wire::kSendLast
                                : wire::kSendMiddle;
      break;
    case RdmaOp::kRead:
      p->opcode = first && last ? wire::kReadRespOnly
                  : first       ? wire::kReadRespFirst
                  : last        ? wire::kReadRespLast
                                : wire::kReadRespMiddle;
      ext = (first || last) ? wire::kAeth : 0;
      break;
  }
  p->frame = static_cast<uint16_t>(wire::roce_frame(p->payload, ext) + (telemetry_ ? kIntHeaderBytes : 0));
  p->priority = q.prio;
  p->dscp = q.dscp;
  p->ecn = wire::kEct0;
  // AckReq on the last packet, and on the packet that fills the congestion window, so that a window-limited QP
  // is never left waiting for an ACK the receiver is still coalescing.
  const bool fills_window = q.cc->window > 0 && int64_t{q.next_psn - q.acked} * p_.mtu >= q.cc->window;
  p->flags =
      static_cast<uint8_t>((last ? Packet::kFlagLast : 0) | (last && !q.read_response ? Packet::kFlagAckReq : 0) |
                           (fills_window ? Packet::kFlagAckReq : 0) | (psn < q.high ? Packet::kFlagRetx : 0));
  q.high = std::max(q.high, psn + 1);
  p->sent = sim_.now();
  const Time now = sim_.now();
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
    if (it->first == q.flow && it->second == psn) {
      drops_.erase(it);
      ++injected_;
      busy_until_ = now + tx_.tx_time(p->wire_bytes(), link_);
      pool_.release(p);
      wake_after_send();
      return true;
    }
  }
  busy_until_ = transmit(0, tx_, tx_.tx_time(p->wire_bytes(), link_), p);
  wake_after_send();
  return true;
}

void Nic::wake_after_send() {
  if (!ctrl_ready_ && active_.size() <= 1) {
    if (active_.empty()) {
      return;  // nothing to send: a new message, ACK or CNP will call try_send
    }
    // A lone QP: it may send when the port is free and its pacing allows. Nothing to wake for if it has sent
    // everything or its window is full (an ACK, NAK or timeout calls try_send); a pause's end calls it too.
    const SendQp& q = send_[active_[0]];
    if (q.next_psn >= q.npkts || (q.cc->window > 0 && int64_t{q.next_psn - q.acked} * p_.mtu >= q.cc->window)) {
      return;
    }
    wake_by(std::max({busy_until_, q.next_send, q.hold_until}));
    return;
  }
  wake_by(busy_until_);
}

// Starts loading the queue pair and flow record an arriving packet will update, and the queue pair a free port
// will serve next (see EventHandler::prefetch). Written out here: GCC drops calls to helpers that only prefetch.
void Nic::prefetch(uint32_t kind, uint64_t arg) const {
  if (kind == kEvArrive) {
    const Packet& p = *reinterpret_cast<const Packet*>(arg);
    if (p.kind == PacketKind::kData) {
      __builtin_prefetch(&recv_[p.qpn]);
      __builtin_prefetch(&flows_.all()[p.flow]);
    } else if (p.kind == PacketKind::kAck || p.kind == PacketKind::kNak || p.kind == PacketKind::kCnp) {
      __builtin_prefetch(&send_[p.qpn]);
      __builtin_prefetch(&flows_.all()[p.flow]);
    }
  } else if ((kind == kEvTxDone || kind == kEvWake) && !active_.empty()) {
    __builtin_prefetch(&send_[active_[rr_ < active_.size() ? rr_ : 0]]);
  }
}

void Nic::tx_done(uint16_t) { try_send(); }  // (the NIC schedules no kEvTxDone: see wake_after_send)

void Nic::receive(Packet* p) {
  cnt_.rx_bytes += p->frame;
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
    case PacketKind::kCnp: {
      ++cnt_.ctrl_rcvd;
      SendQp& q = send_[p->qpn];
      ++flows_[q.flow].cnps;
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
  if (p->ecn == wire::kCe && cnp_interval_ && (!r.cnp_ever || now - r.last_cnp >= *cnp_interval_)) {
    r.cnp_ever = true;
    r.last_cnp = now;
    send_ctrl(PacketKind::kCnp, *p, r.src, r.src_qpn, r.flow, 0);
  }
  if (r.read) {  // READ responses: no ACKs; the last one completes the READ; a gap makes the requester ask again
    if (p->psn == r.expected) {
      ++r.expected;
      flows_[r.flow].delivered += p->payload;
      r.nak_sent = false;
      r.deadline = now + p_.retransmit_timeout;
      if (p->flags & Packet::kFlagLast) {
        flows_.finished(r.flow, now);
      }
    } else if (p->psn > r.expected && !r.nak_sent) {
      r.nak_sent = true;
      ++flows_[r.flow].naks;
      send_read_request(r, r.expected);
    }
    return;
  }
  // SEND needs a posted receive for its first packet; without one the responder answers with an RNR NAK and
  // drops the message (IBTA vol 1, 9.7.5.2.8).
  if (p->psn == r.expected && r.expected == 0 && now < r.recv_posted) {
    r.nak_sent = true;  // the rest of this attempt is dropped without further NAKs
    send_ctrl(PacketKind::kNak, *p, r.src, r.src_qpn, r.flow, r.expected, CtrlExtra{Packet::kFlagRnr, 0, 0});
    return;
  }
  if (p->psn == r.expected) {
    ++r.expected;
    flows_[r.flow].delivered += p->payload;
    r.nak_sent = false;
    r.ce_since_ack += p->ecn == wire::kCe;
    if (++r.since_ack >= p_.ack_interval || (p->flags & Packet::kFlagAckReq)) {
      send_ctrl(PacketKind::kAck, *p, r.src, r.src_qpn, r.flow, r.expected - 1,
                CtrlExtra{0, static_cast<uint16_t>(r.since_ack), static_cast<uint16_t>(r.ce_since_ack)});
      r.since_ack = r.ce_since_ack = 0;
    }
  } else if (p->psn > r.expected) {
    if (!r.nak_sent) {
      r.nak_sent = true;
      send_ctrl(PacketKind::kNak, *p, r.src, r.src_qpn, r.flow, r.expected);
    }
  } else if (p->flags & Packet::kFlagAckReq) {
    // A duplicate that asks for an ACK (after a timeout): repeat the cumulative one.
    send_ctrl(PacketKind::kAck, *p, r.src, r.src_qpn, r.flow, r.expected - 1);
  }
}

void Nic::on_ack(Packet* p) {
  const uint32_t qpn = p->qpn;
  SendQp& q = send_[qpn];
  if (q.acked >= q.npkts) {
    return;
  }
  const uint32_t upto = p->kind == PacketKind::kAck ? p->psn + 1 : p->psn;
  if (upto > q.acked) {
    const int64_t before = std::min<int64_t>(int64_t{q.acked} * p_.mtu, q.size);
    q.acked = upto;
    q.rto_deadline = sim_.now() + p_.retransmit_timeout;
    AckInfo info;
    info.acked_bytes = std::min<int64_t>(int64_t{q.acked} * p_.mtu, q.size);
    info.newly_acked = info.acked_bytes - before;
    info.acked_packets = q.acked;
    info.packets = p->ack_pkts;
    info.ce_packets = p->ack_ce;
    info.rtt = sim_.now() - p->sent;
    info.int_hops = p->int_hops();
    info.telemetry = p->telemetry();
    q.cc->on_ack(sim_.now(), info);
    pacing_changed(q);
    try_send();  // the window may have opened
  }
  if (q.acked >= q.npkts) {
    flows_.finished(q.flow, sim_.now());
    return;
  }
  if (p->kind == PacketKind::kNak && (p->flags & Packet::kFlagRnr)) {
    ++flows_[q.flow].rnr_naks;
    q.hold_until = sim_.now() + p_.rnr_timer;
    go_back(q, p->psn, qpn);
  } else if (p->kind == PacketKind::kNak) {
    ++flows_[q.flow].naks;
    go_back(q, p->psn, qpn);
  }
}

}  // namespace rocesim
