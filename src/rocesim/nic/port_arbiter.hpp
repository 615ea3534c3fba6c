// The NIC's port arbiter: which frame goes on the link next, and when the port wants to be woken to ask again.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "rocesim/core/simulator.hpp"
#include "rocesim/net/credits.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/net/ring.hpp"
#include "rocesim/nic/transport.hpp"

namespace rocesim {

// The NIC's event kind for its port (no argument): the time the port asked to be woken at (PortArbiter::woken).
enum PortArbiterEvent : uint32_t { kEvWake = kNodeEventBase + 1 };

// The frames a port sends that are not its transports': link flow control frames (PFC, or InfiniBand credit
// packets) for the priorities or VLs that owe one.
// Contract: implemented by the NIC; called only when a frame is owed and the port is free. It clears in `owed` the
// priorities (VLs) the frame covers; those left get their own frame next.
class LinkFrameSource {
 public:
  virtual Packet* link_frame(uint8_t& owed) = 0;

 protected:
  ~LinkFrameSource() = default;
};

// Order on the port, highest first: a link frame owed (PFC, or credits to return; not subject to pause), control
// packets (ACK, NAK, CNP, READ request) by priority, highest first, then data, the RC queue pairs and TCP taking
// turns. A priority the peer paused (or, on InfiniBand, a VL without credits for the frame) holds back its own
// control packets and data only. PCIe paces data to the rate it fetches payloads at (set_dma_read). The port
// serialises one frame at a time (busy_until); no event marks the end of each frame: after a send the port asks to
// be woken (the NIC's wake event) when it may send next, which for a lone paced queue pair is its pacing time.
// Contract: part of one NIC, on its simulator's thread; the NIC hands it its kEvWake events (woken). The NIC asks
// next() whenever something may have become sendable (a post, a control packet, an ACK, a pause's end, credits, its
// wake event), puts the frame it returns on the link (a lost one, an injected loss, it releases instead) and reports
// when the frame leaves the port to sent(). Rc and Tcp are the transports
// (nic/transport.hpp): next() and sent() are templates so that the port's hot loop inlines the RC transport's round
// robin.
class PortArbiter {
 public:
  using Frame = NicTransport::Next;

  PortArbiter(Simulator& sim, EventHandler& node, LinkFrameSource& frames, const PauseState& pause)
      : sim_(&sim), node_(&node), frames_(&frames), pause_(&pause) {}

  void connect(const LinkEnd& link) {
    link_ = link;
    tx_ = TxLink::of(link);
  }
  const LinkEnd& link() const { return link_; }
  const TxLink& tx() const { return tx_; }
  Time tx_time(const Packet& p) const { return tx_.tx_time(p.wire_bytes(), link_); }

  // The frame to put on the link now, if the port is free and something may go. Otherwise none: the port has
  // arranged to be woken if a busy port, PCIe or pacing holds it; a pause's end, credits or new work ask again.
  template <class Rc, class Tcp>
  [[gnu::always_inline]] Frame next(Time now, Rc& rc, Tcp* tcp);
  // A frame from next() went on the link and leaves it at `end`: wake when the port may send next.
  template <class Rc, class Tcp>
  void sent(Time end, const Rc& rc, const Tcp* tcp);
  // The wake event: whether it is still the one the port asked for (then the NIC asks next()).
  bool woken(Time now) {
    if (wake_at_ > now) {
      return false;
    }
    wake_at_ = Time::max();
    return true;
  }

  // A control packet waits on its priority, ahead of data.
  void queue_control(Packet* c) {
    ctrl_[c->priority].push(c);
    ctrl_ready_ |= static_cast<uint8_t>(1u << c->priority);
  }
  // Link frames are owed for these priorities (PFC) or VLs (credits).
  void owe_link_frame(uint8_t prios) { pfc_pending_ |= prios; }
  // The received pause state changed (a PFC frame, a pause's end, the link).
  void pause_changed() { pause_armed_ = pause_->armed; }
  // InfiniBand: what this port may send per VL (the peer's credits), instead of PFC; `max_frame`, the largest data
  // frame, is what a VL needs credits for to send data (set again if the NIC's framing changes).
  void use_credits(CreditTx& tx, int max_frame) {
    credits_ = &tx;
    max_frame_ = max_frame;
    credit_fc_ = true;
  }
  bool has_credits() const { return credit_fc_; }
  // PCIe fetches the payload of data packets at `rate` (0: no limit).
  void set_dma_read(Rate rate) {
    dma_read_ = rate;
    dma_paced_ = rate.bps() > 0;
  }

 private:
  // An event at `t`, unless one is due by then already.
  [[gnu::always_inline]] void wake_by(Time t) {
    if (t < wake_at_) {
      wake_at_ = t;
      sim_->at(t, node_, kEvWake);
    }
  }
  // The VLs a frame of `frame` bytes cannot take now for want of credits.
  uint8_t credit_blocked(int frame) const {
    uint8_t m = 0;
    for (int vl = 0; vl < 8; ++vl) {
      m |= static_cast<uint8_t>(!credits_->fits(vl, frame) << vl);
    }
    return m;
  }
  Frame control(uint8_t ready);
  // A data packet of the queue pairs goes: PCIe fetches its payload (an injected loss's too), credits are taken.
  [[gnu::always_inline]] void data_taken(const Frame& f, Time now) {
    if (dma_paced_) [[unlikely]] {
      dma_ready_ = std::max(dma_ready_, now) + dma_read_.tx_time(Bytes(f.packet->payload));
    }
    if (credit_fc_ && !f.lost) [[unlikely]] {
      credits_->on_sent(f.packet->priority, f.packet->frame);
    }
  }
  template <class Tcp>
  Frame tcp_segment(Tcp& tcp, uint8_t paused, Time now);

  // What every send reads, in one cache line: a large fabric visits a NIC every few thousand events, and each line
  // of NIC state a packet touches is then a cache miss.
  TxLink tx_;  // link_ as sending reads it
  Time busy_until_;
  Time wake_at_ = Time::max();
  Simulator* sim_;
  EventHandler* node_;
  uint8_t pause_armed_ = 0;  // pause_->armed, kept in step with it
  uint8_t ctrl_ready_ = 0;   // priorities whose control queue is not empty
  uint8_t pfc_pending_ = 0;  // priorities (VLs) a link frame must signal: it goes ahead of everything
  bool dma_paced_ = false;   // PCIe paces the fetch of payloads to send (dma_read_, dma_ready_: cold otherwise)
  bool tcp_turn_ = false;    // the next data turn is TCP's (it alternates with the queue pairs)
  bool credit_fc_ = false;   // InfiniBand: credits_ says what may be sent
  // Cold: read when a control packet, a pause, credits, PCIe or a link frame is involved.
  LinkFrameSource* frames_;
  const PauseState* pause_;
  CreditTx* credits_ = nullptr;
  int max_frame_ = 0;
  Rate dma_read_;   // how fast PCIe fetches the payload of data packets to send
  Time dma_ready_;  // when the payload of the next data packet has been fetched
  LinkEnd link_;
  std::array<PacketRing, 8> ctrl_;  // control packets waiting, per priority
};

template <class Rc, class Tcp>
inline PortArbiter::Frame PortArbiter::next(Time now, Rc& rc, Tcp* tcp) {
  if (!tx_.peer) {
    return {};
  }
  if (now < busy_until_) {  // something new to send waits for the port
    wake_by(busy_until_);
    return {};
  }
  if (pfc_pending_) [[unlikely]] {  // link frames go first and are not subject to pause
    return {frames_->link_frame(pfc_pending_), false};
  }
  // A copy of the pause state's armed mask: a port never paused does not touch its pause state's cache line. On
  // InfiniBand, a VL without credits for a frame is held the same way.
  uint8_t paused = pause_armed_ ? pause_->paused_mask(now) : 0;
  if (credit_fc_) [[unlikely]] {
    paused |= credit_blocked(2 * kCreditBlock);
  }
  // Control packets first: they are small and their delay is everyone's delay.
  if (const uint8_t ready = ctrl_ready_ & static_cast<uint8_t>(~paused)) {
    return control(ready);
  }
  if (credit_fc_) [[unlikely]] {
    const uint8_t held = credit_blocked(max_frame_);
    paused |= held;
    credits_->hold(rc.waiting_prios() & held, now);  // nics.csv credit_wait_ns
  }
  const bool tcp_first = tcp && tcp_turn_;
  if (tcp_first) [[unlikely]] {
    if (const Frame f = tcp_segment(*tcp, paused, now); f.packet) {
      return f;
    }
  }
  if (dma_paced_ && dma_ready_ > now) [[unlikely]] {  // PCIe has not yet fetched the next payload
    wake_by(dma_ready_);
    return {};
  }
  // Data: the queue pairs' round robin, each paced at its congestion control's rate.
  Time earliest = Time::max();
  if (const Frame f = rc.next_packet(paused, now, earliest); f.packet) {
    data_taken(f, now);
    tcp_turn_ = tcp != nullptr;
    return f;
  }
  if (tcp && !tcp_first) [[unlikely]] {
    if (const Frame f = tcp_segment(*tcp, paused, now); f.packet) {
      return f;
    }
  }
  if (earliest < Time::max()) {
    wake_by(earliest);
  }
  return {};
}

template <class Tcp>
PortArbiter::Frame PortArbiter::tcp_segment(Tcp& tcp, uint8_t paused, Time now) {
  if (!tcp.wants_port()) {
    return {};
  }
  Time unpaced = Time::max();  // TCP is not paced: its segments go when the port is free
  const Frame f = tcp.next_packet(paused, now, unpaced);
  if (f.packet) {
    tcp_turn_ = false;
  }
  return f;
}

template <class Rc, class Tcp>
void PortArbiter::sent(Time end, const Rc& rc, const Tcp* tcp) {
  busy_until_ = end;
  if ((tcp && tcp->wants_port()) || pfc_pending_) [[unlikely]] {  // TCP is not paced, nor link frames
    wake_by(busy_until_);
    return;
  }
  if (!ctrl_ready_ && rc.active() <= 1) {
    if (rc.active() == 0) {
      return;  // nothing to send: a new message, ACK or CNP will ask again
    }
    // A lone queue pair: it may send when the port is free and its pacing allows. Nothing to wake for if it has
    // sent everything or its window is full (an ACK, NAK or timeout asks again); a pause's end asks too.
    if (const Time ready = rc.lone_ready(); ready < Time::max()) {
      wake_by(std::max(busy_until_, ready));
    }
    return;
  }
  wake_by(busy_until_);
}

}  // namespace rocesim
