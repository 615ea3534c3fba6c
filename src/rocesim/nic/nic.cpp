#include "rocesim/nic/nic.hpp"

#include <algorithm>

namespace rocesim {

Nic::Nic(Simulator& sim, PacketPool& pool, std::string name, uint32_t host, const NicParams& p, const CcAlgorithm& cc,
         std::array<uint8_t, 8> prio_to_dscp)
    : Node(sim, pool, std::move(name), NodeKind::kNic),
      host_(host),
      prio_to_dscp_(prio_to_dscp),
      port_(sim, *this, *this, pause_states_[0]),
      rc_(TransportContext{sim, pool, *this, host, prio_to_dscp, *this}, p, cc),
      pfc_(sim, pool, *this, *this),
      posts_(sim, *this, *this, p.wqe_fetch, p.wqe_gap),
      cq_(sim, *this) {
  pause_ = &pause_states_;
}

Nic::NewMessage Nic::new_record(uint32_t peer, int prio, uint16_t sport, uint32_t conn, std::vector<uint32_t>& rows,
                                uint32_t qpn, const WorkRequest& wr, uint32_t id, Time at) {
  sim_.hold();  // the run goes on until the message completes
  const uint32_t flow = id != kUnnumbered ? id : messages_;
  ++messages_;
  const bool grouped = group_records_ && id == kUnnumbered && wr.group != WorkRequest::kNoGroup;
  if (grouped) {
    if (qpn >= rows.size()) {
      rows.resize(qpn + 1, kNoRow);
    }
    const uint32_t half = rows[qpn];
    if (half != kNoRow && records_[half].group == wr.group) {
      FlowRecord& g = records_[half];
      g.spec.size += wr.size;
      ++g.messages;
      ++g.open;
      g.done = false;
      return {half, flow};
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
    rows[qpn] = index;
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
    const NewMessage m =
        new_record(peer.dst, peer.prio, peer.sport, peer.conn, group_rows_.tcp, send_qpn & ~kTcpBit, wr, id, at);
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
  const NewMessage m = new_record(q.dst, q.prio, q.sport, q.conn, group_rows_.send, send_qpn, wr, id, at);
  posts_.ring(WorkPost{WorkPost::kSend, send_qpn, wr, m.record, m.flow, 0}, at);
}

void Nic::post_read(uint32_t recv_qpn, const WorkRequest& wr, Time at, uint32_t id) {
  cnt_.post_cpu += rc_.params().post_cpu;
  const RcTransport::Peer r = rc_.read_peer(recv_qpn);
  const NewMessage m = new_record(r.dst, r.prio, r.sport, r.conn, group_rows_.read, recv_qpn, wr, id, at);
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

void Nic::schedule_pause_storm(Time from, Time until, int prio) { pfc_.schedule_storm(from, until, prio, link().rate); }

namespace {
constexpr int64_t kMinMaxMtu = 9216;  // the XON gap: mlx5 port_buffer.c's MINIMUM_MAX_MTU
}

RxBufferLimits Nic::rx_limits() const {
  const NicParams& p = rc_.params();
  const int64_t frame = wire::rdma_frame(fabric_, static_cast<int>(p.mtu), wire::kReth);
  return {p.rx_buffer, mlx5_rx_headroom(link().rate, p.cable_length, frame), Bytes(std::max(frame, kMinMaxMtu))};
}

Bytes Nic::rx_buffer_needed() const {
  const RxBufferLimits l = rx_limits();
  return l.headroom + l.xon_gap + Bytes(wire::rdma_frame(fabric_, static_cast<int>(rc_.params().mtu), wire::kReth));
}

void Nic::schedule_slow_receiver(Time from, Time until, Rate rate, uint8_t lossless) {
  pfc_.schedule_slow_receiver(from, until, rate, lossless, rx_limits(), link().rate);
}

void Nic::set_dma(Rate read, Rate write, uint8_t lossless) {
  port_.set_dma_read(read);
  if (credits_) {
    // InfiniBand: each VL's credits (set_rx_credits) bound what waits, so the buffer never refuses a frame.
    pfc_.set_dma_write(write, 0xff, {Bytes(rc_.params().rx_buffer.count() * 8), Bytes(0), Bytes(0)}, link().rate);
  } else {
    pfc_.set_dma_write(write, lossless, rx_limits(), link().rate);
  }
  rx_slow_ = pfc_.buffering();
}

void Nic::drained(Packet* p) {
  rx_slow_ = pfc_.buffering();
  ++cnt_.data_rcvd;
  rc_.receive(p);
}

// One flow control packet (IBTA vol 1, 7.9.4) per VL with credits to return, lowest VL first; on Ethernet, the PFC
// source's frame for every priority owed.
Packet* Nic::link_frame(uint8_t& owed) {
  if (credits_) {
    return credit_packet(pool_, credits_->rx, owed);
  }
  Packet* f = pfc_.frame(owed);
  owed = 0;
  return f;
}

void Nic::use_fabric(wire::Fabric f) {
  fabric_ = f;
  rc_.use_fabric(f);
  if (credits_) {
    port_.use_credits(credits_->tx, max_frame());
  }
}

int Nic::max_frame() const {
  return wire::rdma_frame(fabric_, static_cast<int>(rc_.params().mtu), wire::kReth) +
         (rc_.telemetry() ? kIntHeaderBytes : 0);
}

void Nic::enable_credits(const CreditConfig& rx, uint32_t peer_buffer_blocks) {
  credits_ = std::make_unique<Credits>();
  credits_->rx.cfg = rx;
  credits_->tx.limit.fill(peer_buffer_blocks);
  port_.use_credits(credits_->tx, max_frame());
}

void Nic::set_rx_credits(const CreditConfig& rx) { credits_->rx.cfg = rx; }

void Nic::free_credits(const Packet& p) {
  if (credits_->rx.release(p.priority, p.frame)) {
    port_.owe_link_frame(static_cast<uint8_t>(1u << p.priority));
    try_send();
  }
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
    case kEvSegmentCopied:
    case kEvTransportRto:
    case kEvDelayedAck:
      tcp_->on_event(kind, arg);
      break;
    case kEvWake:
      if (port_.woken(sim_.now())) {
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
  const Time now = sim_.now();
  const PortArbiter::Frame f = port_.next(now, rc_, tcp_.get());
  if (!f.packet) {
    return;
  }
  cnt_.tx_bytes += f.packet->frame;
  const Time ser = port_.tx_time(*f.packet);
  Time end;
  if (f.lost) [[unlikely]] {  // an injected loss: the packet takes the wire but never arrives
    end = now + ser;
    pool_.release(f.packet);
  } else {
    end = transmit(0, port_.tx(), ser, f.packet);
  }
  port_.sent(end, rc_, tcp_.get());
}

// Starts loading the queue pair an arriving packet will update, the one a free port will serve next, and the one a
// work request is posted on (see EventHandler::prefetch).
void Nic::prefetch(uint32_t kind, uint64_t arg) const {
  if (kind == kEvArrive) {
    rc_.prefetch_arrival(*reinterpret_cast<const Packet*>(arg));
  } else if (kind == kEvTxDone || kind == kEvWake) {
    rc_.prefetch_next();
  } else if (kind == kEvPost) {
    const WorkPost& post = posts_.pending(arg);
    if (post.kind == WorkPost::kSend && !(post.qpn & kTcpBit)) {
      rc_.prefetch_post(post.qpn);
    }
  }
}

void Nic::tx_done(uint16_t) { try_send(); }  // (the NIC schedules no kEvTxDone: see PortArbiter::sent)

void Nic::receive(Packet* p) {
  cnt_.rx_bytes += p->frame;
  if (port_.has_credits()) [[unlikely]] {  // (the port's line, read anyway, rather than credits_'s)
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
      const uint8_t resumed = apply_pfc(pause_states_[0], 0, *p, link().rate, Time());
      port_.pause_changed();
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
