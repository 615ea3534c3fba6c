// A switch's pipeline for one link-level flow control Fc (switch/flow_control.hpp), bound at compile time: a
// packet arrives (receive), is classified and admitted by Fc, routed, queued at its egress class (enqueue) and
// sent when the scheduler picks its class on a free port (send_next), which releases its buffer at ingress. Fc's
// control frames go ahead of data. Nothing here tests which flow control the switch runs.
#pragma once

#include <algorithm>
#include <optional>

#include "rocesim/switch/switch.hpp"

namespace rocesim {

// `kMarkOnDequeue`: ECN marking as a packet leaves its queue (switch.ecn.at: dequeue), else as it joins it.
template <typename Fc, bool kMarkOnDequeue>
class SwitchOn final : public Switch {
 public:
  SwitchOn(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p, Bytes max_frame, bool telemetry,
           std::unique_ptr<EcnMarker> marker)
      : Switch(sim, pool, std::move(name), p, max_frame, telemetry, std::move(marker)), fc_(flow_control_host()) {}
  const Fc& flow_control() const override { return fc_; }
  Fc& flow_control() override { return fc_; }

 private:
  void receive(Packet* p) override {
    if (p->kind == Fc::kFrame) [[unlikely]] {
      on_link_frame(p);
      return;
    }
    if constexpr (Fc::kClassByDscp) {
      p->priority = dscp_to_prio_[p->dscp & 63];
    }
    ++p->hops;
    if (!admit(p)) {
      return;
    }
    if (latency_ > Time()) {
      sim_.after(latency_, this, kEvForward, reinterpret_cast<uint64_t>(p));
    } else {
      enqueue(p);
    }
  }

  bool admit(Packet* p) {
    const Admit a = fc_.admit(p);
    if (!a.ok) [[unlikely]] {
      drop(p, a.drop);
      return false;
    }
    if (a.signal) {
      owe(p->in_port, p->priority);
    }
    return true;
  }
  // Inlined into send_next, its hot caller (out of line it measured 5 % slower on ft8-perm-hpcc).
  [[gnu::always_inline]] void release(Packet* p) {
    if (fc_.release(p)) {
      owe(p->in_port, p->priority);
    }
  }
  // The ingress class `c` of `port` owes its upstream a control frame.
  void owe(uint16_t port, int c) {
    ports_[port].owed |= static_cast<uint8_t>(1u << c);
    try_send(port);
  }

  void enqueue(Packet* p) {
    const uint16_t out = route(*p);
    int c = p->priority;
    if (stage_hooks_ & EgressStage::kRoute) [[unlikely]] {
      for (EgressStage* s : on_route_) {
        if (const auto why = s->on_route(p, out, c)) {
          drop_admitted(p, *why);
          return;
        }
      }
    }
    Port& port = ports_[out];
    EgressClass& q = port.out[c];
    if constexpr (!kMarkOnDequeue) {
      if (fc_.may_mark(out, c)) {
        maybe_mark(port, q, p);
      }
    }
    p->next = nullptr;
    if (q.tail) {
      q.tail->next = p;
    } else {
      q.head = p;
      port.view.head_bytes[c] = p->frame;
      port.view.nonempty |= static_cast<uint8_t>(1u << c);
    }
    q.tail = p;
    ++q.size;
    q.qbytes += p->frame;
    port.queued += p->frame;
    q.max_queue = std::max(q.max_queue, q.qbytes);
    try_send(out);
  }

  // Sends the next frame on `port` if it is free; if it is busy, makes sure a kEvTxDone will come. The busy case
  // (about half the calls on a loaded fabric) is inline: a call to the whole of sending cost its register saves
  // and restores for nothing.
  void try_send(uint16_t port) {
    if (sim_.now() < busy_until_[port]) {
      wake_when_busy(port);
      return;
    }
    send_next(port);
  }
  void wake_when_busy(uint16_t port) {
    if (Port& pt = ports_[port]; !pt.txdone_pending) {
      pt.txdone_pending = true;
      sim_.at(busy_until_[port], this, kEvTxDone, wake_arg(port, -1));
    }
  }

  // The next frame out of a free port: a control frame first (MAC control frames go ahead of data and are not
  // subject to pause), else the class the scheduler picks among those the flow control does not hold back.
  void send_next(uint16_t out) {
    Port& port = ports_[out];
    if (port.owed) {
      send_control(out);
      return;
    }
    for (uint8_t m = port.stale; m; m &= static_cast<uint8_t>(m - 1)) {
      const int s = __builtin_ctz(m);
      port.view.head_bytes[s] = port.out[s].head->frame;
    }
    port.stale = 0;
    port.view.blocked = port.may_block ? fc_.blocked(out, port.view, sim_.now()) : 0;
    const int c = sched_->pick(port.view, port.sched);
    if (c < 0) {
      return;
    }
    EgressClass& q = port.out[c];
    Packet* p = dequeue(port, c);
    if (stage_hooks_ & EgressStage::kLeave) [[unlikely]] {
      if (sole_leave_) {  // (in-band telemetry alone: no list to read per packet)
        sole_leave_->on_leave(p, out, port.queued, true);
      } else {
        for (EgressStage* s : on_leave_) {
          s->on_leave(p, out, port.queued, true);
        }
      }
    }
    if constexpr (kMarkOnDequeue) {
      maybe_mark(port, q, p);
    }
    release(p);
    fc_.sent(out, c, p->frame);
    q.tx_bytes += p->frame;
    ++q.tx_packets;
    busy_until_[out] = transmit(out, port.tx, port.tx.tx_time(p->wire_bytes(), port.link), p);
    wake_when_free(out, c);
  }

  void send_control(uint16_t out) {
    Port& port = ports_[out];
    Packet* f = fc_.frame(out, port.link, port.owed, faults_ && (*faults_)[out].down);
    if (!f) {
      return;
    }
    busy_until_[out] = transmit(out, port.tx, port.tx.tx_time(f->wire_bytes(), port.link), f);
    wake_when_free(out, -1);
  }

  void on_link_frame(Packet* p) {
    const uint16_t port = p->in_port;
    const uint8_t unblocked = fc_.on_frame(p, ports_[port].link, [this, port](int c) {
      const Packet* head = ports_[port].out[c].head;
      return head ? static_cast<int>(head->frame) : 0;
    });
    ports_[port].may_block = fc_.may_block(port);
    if (unblocked) {
      try_send(port);
    }
  }

  // Takes the head packet of class c off the port's queue.
  Packet* dequeue(Port& port, int c) {
    EgressClass& q = port.out[c];
    Packet* p = q.head;
    q.head = p->next;
    --q.size;
    if (!q.head) {
      q.tail = nullptr;
      port.view.head_bytes[c] = 0;
      port.view.nonempty &= static_cast<uint8_t>(~(1u << c));
    } else {
      port.stale |= static_cast<uint8_t>(1u << c);
    }
    q.qbytes -= p->frame;
    port.queued -= p->frame;
    return p;
  }

  // After a send: a kEvTxDone when the port is free, if something is already waiting for it. `served`: the class
  // just sent from (-1 for a control frame).
  [[gnu::always_inline]] void wake_when_free(uint16_t out, int served) {
    Port& port = ports_[out];
    if ((port.view.nonempty || port.owed) && !port.txdone_pending) {
      port.txdone_pending = true;
      sim_.at(busy_until_[out], this, kEvTxDone, wake_arg(out, served));
    }
  }
  // The kEvTxDone argument for `port`, with the packet likely to leave next as the hint: the head of the class
  // just served if it has one, else of the lowest non-empty class.
  uint64_t wake_arg(uint16_t out, int served) const {
    const Port& port = ports_[out];
    const uint8_t ne = port.view.nonempty;
    if (!ne) {
      return txdone_arg(out);
    }
    return txdone_arg(out, port.out[served >= 0 && (ne & (1u << served)) ? served : __builtin_ctz(ne)].head);
  }

  // The prefetches are written here, not in a helper: GCC treats a function that only reads memory and
  // prefetches as pure, and drops a call to it whose result is unused.
  void prefetch(uint32_t kind, uint64_t arg) const override {
    if (kind == kEvArrive) {
      // The ingress class, the egress port's first line and the class that receiving the packet touches. If the
      // port is idle, sending also needs the scheduler's line: loaded only then (loading what sending needs for
      // every arrival measured 2-4 % slower on ft16 and ls-websearch; a busy port does not need it).
      const Packet& p = *reinterpret_cast<const Packet*>(arg);
      if (p.kind == Fc::kFrame) {
        return;
      }
      const int prio = Fc::kClassByDscp ? dscp_to_prio_[p.dscp & 63] : p.priority & 7;
      const uint16_t o = hashed_route(p);
      if (faults_ && o >= ports_.size()) [[unlikely]] {  // no route: only routes computed after a failure have none
        return;
      }
      const Port& out = ports_[o];
      __builtin_prefetch(&fc_.ingress(p.in_port, prio));
      __builtin_prefetch(&out);
      __builtin_prefetch(&out.out[prio]);
      if (busy_until_[o] <= sim_.now()) {
        __builtin_prefetch(&out.sched);
      }
    } else if (kind == kEvTxDone) {
      const uint16_t o = txdone_port(arg);
      const Port& port = ports_[o];
      __builtin_prefetch(&port);
      __builtin_prefetch(&port.sched);
      // The packet likely to leave was loaded by the queue a few events ago: the ingress class it will release
      // (last touched when it arrived, a queueing delay ago). (A stale hint may name another switch's port: check
      // the range.)
      const Packet* p = txdone_hint(arg);
      if (p && p->in_port < ports_.size()) {
        __builtin_prefetch(&fc_.ingress(p->in_port, p->priority & 7));
      }
    }
  }

  void ready() override {
    for (uint16_t i = 0; i < ports_.size(); ++i) {
      ports_[i].may_block = fc_.may_block(i);
    }
  }
  void tx_done(uint16_t port) override {
    ports_[port].txdone_pending = false;
    try_send(port);
  }
  void pause_ended(uint16_t port, uint8_t) override {
    ports_[port].may_block = fc_.may_block(port);
    try_send(port);
  }
  void on_event(uint32_t kind, uint64_t arg) override {
    if (kind == kEvForward) {
      enqueue(reinterpret_cast<Packet*>(arg));
    } else if (kind == kEvRoutes) {
      install_routes(arg);
    } else if (kind == kEvWatchdog) {
      poll_watchdog();
    } else if (kind == kEvFlowControl) {
      if (const LinkSignal s = fc_.on_timer(arg); s.classes) {
        ports_[s.port].owed |= s.classes;
        try_send(s.port);
      }
    }
  }

  // Storm mode: `drop` empties the queue now (and the watchdog's stage drops what is routed to it), `forward`
  // sends as if the peer's pauses had not come; leaving it, the queue obeys pauses again.
  void storm_changed(uint16_t port, int prio, bool storm) override {
    PauseState& ps = pause_states_[port];
    if (wd_->action() == PfcWatchdog::Action::kForward) {
      ps.ignored =
          storm ? static_cast<uint8_t>(ps.ignored | 1u << prio) : static_cast<uint8_t>(ps.ignored & ~(1u << prio));
      try_send(port);
    } else if (wd_->action() == PfcWatchdog::Action::kDrop && storm) {
      wd_->count_drops(port, prio, flush(port, prio, DropReason::kWatchdog));
    }
  }

  void drop(Packet* p, DropReason r) {
    const int i = static_cast<int>(r);
    ++(i < kAdmissionDrops ? fc_.ingress(p->in_port, p->priority).count.drops[static_cast<size_t>(i)]
                           : ports_[p->in_port].fault_drops[p->priority][static_cast<size_t>(i - kAdmissionDrops)]);
    pool_.release(p);
  }
  // A packet dropped after admission (its egress is dead, it has no route, the watchdog drops its queue).
  void drop_admitted(Packet* p, DropReason r) {
    release(p);
    drop(p, r);
  }

  // A port whose link fails loses what it queued (the frames can no longer leave) and forgets the pause its peer
  // asked for; one whose link comes back tells the peer again what the flow control holds back.
  void link_changed(uint16_t port, bool up) override {
    Port& pt = ports_[port];
    pt.may_block = fc_.may_block(port);
    if (up) {
      pt.owed = fc_.resignal(port);
      try_send(port);
      return;
    }
    pt.owed = 0;
    for (int c = 0; c < 8; ++c) {
      flush(port, c, DropReason::kLinkDown);
    }
  }

  // Drops every packet queued at egress (port, class c) for reason r; returns how many.
  int64_t flush(uint16_t port, int c, DropReason r) {
    Port& pt = ports_[port];
    EgressClass& q = pt.out[c];
    int64_t n = 0;
    while (Packet* p = q.head) {
      q.head = p->next;
      q.qbytes -= p->frame;
      pt.queued -= p->frame;
      for (EgressStage* s : on_leave_) {
        s->on_leave(p, port, pt.queued, false);
      }
      drop_admitted(p, r);
      ++n;
    }
    q.tail = nullptr;
    q.size = 0;
    pt.view.head_bytes[c] = 0;
    pt.view.nonempty &= static_cast<uint8_t>(~(1u << c));
    pt.stale &= static_cast<uint8_t>(~(1u << c));
    return n;
  }

  // Frames lost on a dead link: data counts as dropped at the ingress class it came in on (arriving) or was
  // admitted at (leaving); control frames are the switch's own and count nowhere.
  void lost_to_link(Packet* p, uint16_t, bool at_egress) override {
    if (p->kind == PacketKind::kPfc || p->kind == PacketKind::kCredit) {
      pool_.release(p);
      return;
    }
    if (!at_egress && Fc::kClassByDscp) {  // not yet classified here; in_port is already the port it arrived on
      p->priority = dscp_to_prio_[p->dscp & 63];
    }
    drop(p, DropReason::kLinkDown);
  }

  Fc fc_;
};

}  // namespace rocesim
