// Nodes (switches, NICs) and the ports that join them. Nodes talk only through links: a frame sent on a port
// arrives at the peer node after its serialisation time plus the link's propagation delay.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocesim/core/node_kind.hpp"
#include "rocesim/core/simulator.hpp"
#include "rocesim/net/channel.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

class Node;

// Event kinds every node understands; node-specific kinds start at kNodeEventBase.
enum NodeEvent : uint32_t {
  kEvArrive = 0,    // arg: Packet*, fully received (last bit in)
  kEvTxDone = 1,    // arg: txdone_arg(port, hint); the port's serialiser is free
  kEvPauseEnd = 2,  // arg: PauseEndArg; a received PFC pause may have expired
  kEvLinkDown = 3,  // arg: port; the link on it fails (a scenario event)
  kEvLinkUp = 4,    // arg: port; the link on it works again
  kNodeEventBase = 16,
};
// Every handler's kinds are below this (the calendar queue keeps a kind in six bits): each node class checks
// its own enumeration against it at compile time.
inline constexpr uint32_t kMaxEventKinds = CalendarQueue::kKinds;

// A kEvTxDone's argument: the port in the top 16 bits and, below them, optionally the packet likely to leave
// next. The event queue loads an argument's low 48 bits ahead as an address (CalendarQueue::prefetch), so the
// hint is in cache when the port sends: a prefetch at the previous send would be evicted by then on a large
// fabric. Only a hint: the packet may have left meanwhile (its memory stays the pool's).
inline uint64_t txdone_arg(uint16_t port, const Packet* next = nullptr) {
  return uint64_t{port} << Event::kAddressBits | reinterpret_cast<uint64_t>(next);
}
inline uint16_t txdone_port(uint64_t arg) { return static_cast<uint16_t>(arg >> Event::kAddressBits); }
inline const Packet* txdone_hint(uint64_t arg) { return reinterpret_cast<const Packet*>(arg & Event::kAddressMask); }

// kEvPauseEnd's argument: the port and the priority whose pause may have expired.
struct PauseEndArg {
  uint16_t port = 0;
  uint8_t prio = 0;
  uint64_t encode() const { return uint64_t{port} << 8 | prio; }
  static PauseEndArg decode(uint64_t a) { return {static_cast<uint16_t>(a >> 8), static_cast<uint8_t>(a & 7)}; }
};

// One direction of a full-duplex link, as seen from the sending port.
struct LinkEnd {
  Node* peer = nullptr;
  uint16_t peer_port = 0;
  Rate rate;
  Time delay;
  uint16_t cut_to = 0;  // in a partitioned run, 1 + the peer's partition if that is not the sender's; else 0
};

// What sending a frame on a link reads, in 24 bytes, for the ports' hot state (a LinkEnd is 32 and has the rate,
// which only a division turns into a serialisation time): the serialisation time per byte is the link rate's
// Rate::ps_per_byte(), 0 if that is not a whole number of picoseconds (then the sender divides).
struct TxLink {
  Node* peer = nullptr;
  Time delay;
  uint32_t ps_per_byte = 0;
  uint16_t peer_port = 0;
  uint16_t cut_to = 0;
  static TxLink of(const LinkEnd& l) {
    return TxLink{l.peer, l.delay, static_cast<uint32_t>(l.rate.ps_per_byte()), l.peer_port, l.cut_to};
  }
  // Time to serialise `bytes` on `full`, the link this was made of (read only if the rate needs a division).
  Time tx_time(int bytes, const LinkEnd& full) const {
    return ps_per_byte ? Time::ps(int64_t{bytes} * ps_per_byte) : full.rate.tx_time(Bytes(bytes));
  }
};
static_assert(sizeof(TxLink) == 24, "a port's hot line has room for 24 bytes of link");

// The egress side of a port as far as PFC is concerned (IEEE 802.1Qbb): per priority, when the last received
// pause expires. A PFC frame pauses a priority for quanta x 512 bit times at the port's rate; quanta 0 resumes.
struct PauseState {
  uint8_t armed = 0;  // priorities whose `until` is set (non-zero): the only ones to check; first, so that a
                      // port never paused touches one cache line of this
  std::array<Time, 8> until{};
  std::array<Time, 8> since{};
  std::array<Time, 8> total{};         // time spent paused, per priority
  std::array<int64_t, 8> xoff_rcvd{};  // PFC frames received with quanta > 0
  std::array<int64_t, 8> xon_rcvd{};   // PFC frames received with quanta 0
  uint8_t ignored = 0;                 // priorities whose pauses a PFC watchdog ignores (storm mode, forward)
  Time first_paused = Time::max();     // when a pause of any priority first took effect (for outputs)

  bool paused(int prio, Time now) const { return until[prio] > now && since[prio] <= now; }
  // The priorities a sender must hold back now (pauses a watchdog ignores do not count).
  uint8_t paused_mask(Time now) const {
    uint8_t m = 0;
    for (uint8_t a = armed & ~ignored; a; a &= static_cast<uint8_t>(a - 1)) {
      const int i = __builtin_ctz(a);
      if (paused(i, now)) {
        m |= static_cast<uint8_t>(1u << i);
      }
    }
    return m;
  }
  // The pause of `prio` is over at `end`: its time counts into `total`, and nothing is armed.
  void end_pause(int prio, Time end) {
    total[prio] += end - since[prio];
    set_until(prio, Time());
  }
  void set_until(int prio, Time t) {
    until[prio] = t;
    armed = t == Time() ? static_cast<uint8_t>(armed & ~(1u << prio)) : static_cast<uint8_t>(armed | (1u << prio));
  }
};

// Time of `quanta` pause quanta at `rate`: one quantum is 512 bit times (IEEE 802.1Qbb; Nokia SR Linux docs).
inline Time pause_time(int quanta, Rate rate) { return rate.tx_time(Bytes(int64_t{quanta} * 64)); }

// Something that watches the frames a port sends (a capture). Contract: it only reads the packet; it may not
// change it, schedule events or draw random numbers, so that watching never changes results.
class FrameTap {
 public:
  // `start`: when the port starts sending the frame.
  virtual void on_frame(Time start, const Packet& p) = 0;

 protected:
  ~FrameTap() = default;
};

// Something that hears about every PFC frame a node receives (for the HPCC simulator's pfc.txt).
class PfcObserver {
 public:
  // `pause`: the frame pauses at least one priority (else it only resumes).
  virtual void on_pfc(const Node& node, uint16_t port, bool pause) = 0;

 protected:
  ~PfcObserver() = default;
};

// A port's link as failures see it (only for runs with fabric events; see Node::enable_faults). Frames on a
// link when it fails are lost: a frame arriving at t left its sender at t - in_delay - its serialisation, and is
// lost if the link went down since then.
struct LinkFault {
  Time in_delay;  // propagation (and pipeline) delay of frames arriving on this port
  Rate rate;
  Time last_down = Time::ps(-1);  // when the link last went down (never: before time 0)
  bool down = false;
};

// Base of switches and NICs.
// Contract: a node only touches its own state; it reaches other nodes only by transmit(), which schedules the
// frame's arrival at the peer. Packets handed to transmit() belong to the peer from then on.
class Node : public EventHandler {
 public:
  Node(Simulator& sim, PacketPool& pool, std::string name, NodeKind kind)
      : EventHandler(sim.new_source()), sim_(sim), pool_(pool), kind_(kind), name_(std::move(name)) {}
  virtual ~Node() = default;
  const std::string& name() const { return name_; }
  // The node's index in the topology graph (for outputs that name nodes as the topology file does).
  uint32_t graph_id() const { return graph_id_; }
  void set_graph_id(uint32_t id) { graph_id_ = id; }
  NodeKind kind() const { return kind_; }
  bool is_switch() const { return kind_ == NodeKind::kSwitch; }
  // Observers are lists: a capture, the HPCC outputs and later watchers may each attach their own.
  void add_pfc_observer(PfcObserver* o) { pfc_obs_.push_back(o); }
  void remove_pfc_observer(PfcObserver* o) { std::erase(pfc_obs_, o); }
  // Watch the frames port `port` sends.
  void add_tap(uint16_t port, FrameTap* tap) {
    if (taps_.size() <= port) {
      taps_.resize(port + 1u);
    }
    taps_[port].push_back(tap);
  }
  void remove_tap(uint16_t port, FrameTap* tap) {
    if (port < taps_.size()) {
      std::erase(taps_[port], tap);
    }
  }

  void handle_event(uint32_t kind, uint64_t arg) final;

  // In a partitioned run: where frames to other partitions go.
  void set_outboxes(Outboxes* o) { outboxes_ = o; }

  // Fabric events are possible in this run: the node checks its links on every send and arrival. `in_delay`:
  // per port, the delay of frames arriving on it.
  void enable_faults(const std::vector<std::pair<Time, Rate>>& in_links);
  bool link_down(uint16_t port) const { return faults_ && faults_->at(port).down; }

  // Applies a PFC frame received on `port` to `ps` (the node's or one of its parts'): a pause takes effect
  // `response` after the frame arrived and ends with a kEvPauseEnd to this node. Returns the priorities it
  // resumed (quanta 0).
  uint8_t apply_pfc(PauseState& ps, uint16_t port, const Packet& pfc, Rate rate, Time response);

 protected:
  virtual void receive(Packet* p) = 0;
  virtual void tx_done(uint16_t port) = 0;
  virtual void on_event(uint32_t kind, uint64_t arg) {}
  // Called when a PFC pause on `port` ended for the priorities in `mask`.
  virtual void pause_ended(uint16_t port, uint8_t mask) = 0;
  // The link on `port` went down or came up (its received pause state is cleared already).
  virtual void link_changed(uint16_t port, bool up) = 0;
  // enable_faults() was called: the node may now check its links.
  virtual void faults_enabled() {}
  // A frame lost to a link failure: sent on a dead link (`port`, at_egress) or arriving from one. The node
  // counts it and returns it to the pool.
  virtual void lost_to_link(Packet* p, uint16_t port, bool at_egress) = 0;

  // Starts serialising `p`, which takes `ser` (link.tx_time()), on the link `link` out of port `port`; returns
  // when the last bit leaves, until which the port is busy. The caller decides whether it needs an event then.
  // Inlined into every sender (a call measured 5 % more instructions on ft8-perm-dcqcn); the dead-link case is
  // out of line.
  [[gnu::always_inline]] Time transmit(uint16_t port, const TxLink& link, Time ser, Packet* p) {
    if (port < taps_.size()) [[unlikely]] {
      for (FrameTap* t : taps_[port]) {
        t->on_frame(sim_.now(), *p);
      }
    }
    const Time end = sim_.now() + ser;
    if (faults_ && (*faults_)[port].down) [[unlikely]] {
      lose_on_dead_link(p, port);
      return end;
    }
    p->in_port = link.peer_port;
    if (link.cut_to) [[unlikely]] {
      send_across(link, end + link.delay, p);
      return end;
    }
    // One event per frame in flight, for the peer itself: the calendar queue's cost does not grow with the
    // number of pending events, and a link is FIFO by construction (arrivals are serialisation times apart).
    sim_.at(end + link.delay, link.peer, kEvArrive, reinterpret_cast<uint64_t>(p));
    return end;
  }

  // Whether a frame arriving now was on a link that failed meanwhile.
  bool arrived_dead(const Packet& p) const {
    const LinkFault& f = (*faults_)[p.in_port];
    return f.down || f.last_down >= sim_.now() - f.in_delay - f.rate.tx_time(Bytes(p.wire_bytes()));
  }
  void set_link_state(uint16_t port, bool up);
  [[gnu::noinline]] void lose_on_dead_link(Packet* p, uint16_t port) { lost_to_link(p, port, true); }
  // A frame on a link to another partition: a copy goes to that partition's outbox (net/channel.hpp), with the
  // key its arrival event would have had here.
  [[gnu::noinline]] void send_across(const TxLink& link, Time at, Packet* p) {
    outboxes_->filling(link.cut_to - 1u).push(at, sim_.take_key(), link.peer, *p);
    pool_.release(p);
  }

  // What every packet touches first (the first 64 bytes, with the vtable pointer and the event key), the name
  // last. taps_'s begin and end, read to see that it is empty, are the last 16 of them.
  Simulator& sim_;
  PacketPool& pool_;
  std::unique_ptr<std::vector<LinkFault>> faults_;  // per port; only in runs with fabric events
  std::vector<PauseState>* pause_ = nullptr;        // per port; set by the subclass
  std::vector<std::vector<FrameTap*>> taps_;        // per port; empty unless something watches
  std::vector<PfcObserver*> pfc_obs_;
  Outboxes* outboxes_ = nullptr;  // partitioned runs only
  uint32_t graph_id_ = 0;
  NodeKind kind_;
  std::string name_;
};

}  // namespace rocesim
