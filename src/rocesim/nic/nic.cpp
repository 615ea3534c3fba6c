#include "rocesim/nic/nic.hpp"

#include <algorithm>

namespace rocesim {

Nic::Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
         std::array<uint8_t, 8> prio_to_dscp)
    : Node(sim, pool, std::move(name), NodeKind::kNic),
      host_(host),
      prio_to_dscp_(prio_to_dscp),
      rc_(TransportContext{sim, pool, *this, host, prio_to_dscp, *this}, p, cc),
      pfc_(sim, pool, *this, *this),
      posts_(sim, *this, *this, p.wqe_fetch, p.wqe_gap),
      cq_(sim, *this) {
  pause_ = &pause_states_;
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
  cnt_.post_cpu += rc_.params().post_cpu;
  const RcTransport::Peer q = rc_.send_peer(send_qpn);
  const NewMessage m = new_record(q.dst, q.prio, q.sport, q.conn, wr, id, at);
  posts_.ring(WorkPost{WorkPost::kSend, send_qpn, wr, m.record, m.flow, 0}, at);
}

void Nic::post_read(uint32_t recv_qpn, const WorkRequest& wr, Time at, uint32_t id) {
  cnt_.post_cpu += rc_.params().post_cpu;
  const RcTransport::Peer r = rc_.read_peer(recv_qpn);
  const NewMessage m = new_record(r.dst, r.prio, r.sport, r.conn, wr, id, at);
  posts_.ring(WorkPost{WorkPost::kRead, recv_qpn, wr, m.record, m.flow, 0}, at);
}

void Nic::post_recv(uint32_t recv_qpn, int64_t count, Time at) {
  if (recv_qpn & kTcpBit) {  // a TCP receiver takes whatever arrives: nothing to post
    return;
  }
  posts_.direct(WorkPost{WorkPost::kRecv, recv_qpn, WorkRequest{}, 0, 0, count}, at);
}

void Nic::posted(const WorkPost& post) {
  if (post.qpn & kTcpBit) {
    WorkPost own = post;
    own.qpn &= ~kTcpBit;
    tcp_->post(own);
  } else {
    rc_.post(post);
  }
}

void Nic::schedule_pause_storm(Time from, Time until, int prio) { pfc_.schedule_storm(from, until, prio, link_.rate); }

namespace {
constexpr int64_t kMinMaxMtu = 9216;  // the XON gap: mlx5 port_buffer.c's MINIMUM_MAX_MTU
}

RxBufferLimits Nic::rx_limits() const {
  const NicParams& p = rc_.params();
  const int64_t frame = wire::rdma_frame(fabric_, static_cast<int>(p.mtu), wire::kReth);
  return {p.rx_buffer, mlx5_rx_headroom(link_.rate, p.cable_length, frame), Bytes(std::max(frame, kMinMaxMtu))};
}

Bytes Nic::rx_buffer_needed() const {
  const RxBufferLimits l = rx_limits();
  return l.headroom + l.xon_gap + Bytes(wire::rdma_frame(fabric_, static_cast<int>(rc_.params().mtu), wire::kReth));
}

void Nic::schedule_slow_receiver(Time from, Time until, Rate rate, uint8_t lossless) {
  pfc_.schedule_slow_receiver(from, until, rate, lossless, rx_limits(), link_.rate);
}

void Nic::set_dma(Rate read, Rate write, uint8_t lossless) {
  dma_read_ = read;
  dma_paced_ = read.bps() > 0;
  if (credit_fc_) {
    // InfiniBand: each VL's credits (set_rx_credits) bound what waits, so the buffer never refuses a frame.
    pfc_.set_dma_write(write, 0xff, {Bytes(rc_.params().rx_buffer.count() * 8), Bytes(0), Bytes(0)}, link_.rate);
  } else {
    pfc_.set_dma_write(write, lossless, rx_limits(), link_.rate);
  }
  rx_slow_ = pfc_.buffering();
}

void Nic::drained(Packet* p) {
  rx_slow_ = pfc_.buffering();
  ++cnt_.data_rcvd;
  rc_.receive(p);
}

void Nic::send_pause() {
  Packet* f = pfc_.frame(pfc_pending_);
  pfc_pending_ = 0;
  put_on_wire(f);
}

inline void Nic::put_on_wire(Packet* p) {
  cnt_.tx_bytes += p->frame;
  busy_until_ = transmit(0, tx_, tx_.tx_time(p->wire_bytes(), link_), p);
  wake_after_send();
}

void Nic::use_fabric(wire::Fabric f) {
  fabric_ = f;
  rc_.use_fabric(f);
}

int Nic::max_frame() const {
  return wire::rdma_frame(fabric_, static_cast<int>(rc_.params().mtu), wire::kReth) +
         (rc_.telemetry() ? kIntHeaderBytes : 0);
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
void Nic::note_credit_wait(uint8_t held) { credits_->tx.hold(rc_.waiting_prios() & held, sim_.now()); }

void Nic::free_credits(const Packet& p) {
  if (credits_->rx.release(p.priority, p.frame)) {
    pfc_pending_ |= static_cast<uint8_t>(1u << p.priority);
    try_send();
  }
}

// One flow control packet (IBTA vol 1, 7.9.4) per VL with credits to return, lowest VL first; ahead of data and
// never held for credits itself.
void Nic::send_credit() { put_on_wire(credit_packet(pool_, credits_->rx, pfc_pending_)); }

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
    case kEvSegmentCopied:
    case kEvTransportRto:
    case kEvDelayedAck:
      tcp_->on_event(kind, arg);
      break;
    case kEvWake:
      if (wake_at_ <= sim_.now()) {
        wake_at_ = Time::max();
        try_send();
      }
      break;
    case kEvRto:
    case kEvReadRto:
    case kEvCcTimer:
      rc_.on_event(kind, arg);
      break;
    default:
      break;
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
  // Control packets (ACK, NAK, CNP, READ request) go first, highest priority first: they are small and their delay is
  // everyone's delay. A paused priority holds back only its own control packets.
  if (const uint8_t ready = ctrl_ready_ & static_cast<uint8_t>(~paused)) {
    const int prio = 31 - __builtin_clz(ready);
    Packet* c = ctrl_[prio].pop();
    if (ctrl_[prio].empty()) {
      ctrl_ready_ &= static_cast<uint8_t>(~(1u << prio));
    }
    if (credit_fc_) [[unlikely]] {
      credits_->tx.on_sent(c->priority, c->frame);
    }
    put_on_wire(c);
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
  // Data: the queue pairs' round robin, each paced at its congestion control's rate.
  Time earliest = Time::max();
  if (const RcTransport::Next next = rc_.next_packet(paused, now, earliest); next.packet) {
    send_data(next.packet, next.lost);
    tcp_turn_ = tcp_ != nullptr;
    return;
  }
  if (tcp_ && !tcp_first && send_tcp(paused)) [[unlikely]] {
    return;
  }
  if (earliest < Time::max() && earliest < wake_at_) {
    wake_at_ = earliest;
    sim_.at(earliest, this, kEvWake);
  }
}

bool Nic::send_tcp(uint8_t paused) {
  if (!tcp_->wants_port()) {
    return false;
  }
  Time unpaced = Time::max();
  const NicTransport::Next next = tcp_->next_packet(paused, sim_.now(), unpaced);
  if (!next.packet) {
    return false;
  }
  tcp_turn_ = false;
  put_on_wire(next.packet);
  return true;
}

void Nic::send_data(Packet* p, bool lost) {
  const Time now = sim_.now();
  if (dma_paced_) [[unlikely]] {
    dma_ready_ = std::max(dma_ready_, now) + dma_read_.tx_time(Bytes(p->payload));
  }
  if (lost) [[unlikely]] {  // an injected loss: the packet takes the wire but never arrives
    cnt_.tx_bytes += p->frame;
    busy_until_ = now + tx_.tx_time(p->wire_bytes(), link_);
    pool_.release(p);
    wake_after_send();
    return;
  }
  if (credit_fc_) [[unlikely]] {
    credits_->tx.on_sent(p->priority, p->frame);
  }
  put_on_wire(p);
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
  if (!ctrl_ready_ && rc_.active() <= 1) {
    if (rc_.active() == 0) {
      return;  // nothing to send: a new message, ACK or CNP will call try_send
    }
    // A lone QP: it may send when the port is free and its pacing allows. Nothing to wake for if it has sent
    // everything or its window is full (an ACK, NAK or timeout calls try_send); a pause's end calls it too.
    if (const Time ready = rc_.lone_ready(); ready < Time::max()) {
      wake_by(std::max(busy_until_, ready));
    }
    return;
  }
  wake_by(busy_until_);
}

// Starts loading the queue pair an arriving packet will update, and the queue pair a free port will serve next
// (see EventHandler::prefetch).
void Nic::prefetch(uint32_t kind, uint64_t arg) const {
  if (kind == kEvArrive) {
    rc_.prefetch_arrival(*reinterpret_cast<const Packet*>(arg));
  } else if (kind == kEvTxDone || kind == kEvWake) {
    rc_.prefetch_next();
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
      rc_.receive(p);
      return;
    case PacketKind::kAck:
    case PacketKind::kNak:
    case PacketKind::kReadRequest:
    case PacketKind::kCnp:
      ++cnt_.ctrl_rcvd;
      rc_.receive(p);
      return;
    case PacketKind::kTcp:
      tcp_->receive(p);  // the stack keeps a data segment until its core has processed it
      return;
    case PacketKind::kCredit:
      break;  // (only on InfiniBand, handled above)
  }
  pool_.release(p);
}

}  // namespace rocesim
