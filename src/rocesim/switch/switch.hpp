// A shared-buffer Ethernet switch with eight traffic classes per port, PFC, ECN marking and ETS scheduling.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/net/credits.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/switch/buffer.hpp"
#include "rocesim/switch/ecmp.hpp"
#include "rocesim/switch/ecn.hpp"
#include "rocesim/switch/mmu.hpp"
#include "rocesim/switch/scheduler.hpp"
#include "rocesim/switch/tagger.hpp"
#include "rocesim/switch/watchdog.hpp"

namespace rocesim {

// The run's PFC deadlock detector (cluster/deadlock.hpp): off unless detect_after > 0.
struct DeadlockParams {
  Time detect_after;   // a cycle of paused queues that has not moved for this long is a deadlock
  std::string action;  // "stop" the run when one is found, or "continue"
  static const Schema<DeadlockParams>& schema();
};

struct PfcParams {
  std::vector<int64_t> priorities;  // lossless priorities
  std::string headroom;             // "auto" or a size per ingress port and lossless priority
  Bytes xon_offset;
  int64_t quanta = 0;
  Time response_time;
  DeadlockParams deadlock;
  WatchdogParams watchdog;
  TaggerParams tagger;
  static const Schema<PfcParams>& schema();
};

struct SwitchParams {
  Bytes buffer;
  Time latency;
  std::string dscp_map;
  BufferParams admission;
  PfcParams pfc;
  EcnParams ecn;
  EtsParams ets;
  static const Schema<SwitchParams>& schema();
};

// Parses "26:3, 48:6" into a 64-entry DSCP to priority table (unlisted DSCPs map to priority 0).
std::array<uint8_t, 64> parse_dscp_map(const std::string& s);

// Headroom that absorbs everything in flight after an XOFF trigger (docs/model.md, "PFC headroom"):
//   2 x max frame (the frame being sent on each side) + the PFC frame + rate x (2 x delay + response time).
Bytes pfc_headroom(Rate rate, Time delay, Bytes max_frame, Time response_time);
// A port's headroom per lossless priority: switch.pfc.headroom, or with "auto" pfc_headroom() for its link.
Bytes port_headroom(const PfcParams& p, Rate rate, Time delay, Bytes max_frame);
// What a switch sets aside for one port before its shared pool: a reserve for each of the 8 groups and the
// headroom of each lossless priority.
Bytes port_set_aside(const SwitchParams& p, Bytes headroom);

// A switch's forwarding table: per destination host, the set of next-hop ports (ECMP picks among more than one).
// Destinations share next-hop sets (in a fat-tree, every host beyond the pod has the same uplinks), so the table
// keeps each distinct set once and a 16-bit set number per destination: 2 bytes per host instead of a span of
// ports. Immutable once built, and switches whose tables are equal share one (Network::build_routes): in a k=16
// fat-tree the 320 switches need 145 distinct tables, 0.3 MB instead of 0.66 MB, which stays in cache.
struct RouteTable {
  static constexpr uint16_t kNoRoute = 0xFFFF;  // the one "port" of an unreachable destination's set
  std::vector<uint16_t> set_of;                 // per destination host: its next-hop set
  std::vector<uint32_t> set_offset;             // set s is set_ports[set_offset[s] .. set_offset[s + 1])
  std::vector<uint16_t> set_ports;
  auto operator<=>(const RouteTable&) const = default;
  // The port a switch choosing by `ecmp` sends `p` to (Switch::route does the same on its own copy).
  uint16_t port(const Packet& p, const Ecmp& ecmp) const;
};

// Drops: the MMU's reasons (switch/mmu.hpp), and kLinkDown (queued for, routed to or in flight on a link
// that failed) and kNoRoute (no path to the destination in the switch's current routes, after a failure).

// Counters of one (port, priority).
struct PortPrioCounters {
  int64_t tx_bytes = 0;  // frame bytes sent
  int64_t tx_packets = 0;
  int64_t rx_bytes = 0;
  int64_t max_queue = 0;  // deepest egress queue seen
  int64_t ecn_marked = 0;
  std::array<int64_t, kDropReasons> drops{};
  int64_t xoff_sent = 0;  // PFC frames sent with quanta > 0 for this priority
  int64_t xon_sent = 0;
  int64_t max_headroom = 0;  // deepest headroom use seen at ingress
  Time credit_wait;          // InfiniBand: time the class's head packet waited for credits
};

class Switch final : public Node {
 public:
  // `max_frame`: the largest frame the hosts send (sizes the headroom and DWRR quantum).
  // `telemetry`: stamp in-band telemetry on data packets as they leave (HPCC).
  Switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p, Bytes max_frame,
         bool telemetry = false);

  // Wiring, before the run: ports in order, then the routing table.
  uint16_t add_port(const LinkEnd& link);
  const LinkEnd& link(uint16_t port) const { return ports_[port].link; }
  void set_link(uint16_t port, const LinkEnd& link);
  // Fixes headroom and the shared pool once every port exists; throws InputError if they exceed the buffer.
  void finalize(const std::string& scenario_file);
  // The forwarding table (possibly shared with other switches) and this switch's ECMP hash seed.
  void set_routes(std::shared_ptr<const RouteTable> table, const Ecmp& ecmp);
  const Ecmp& ecmp() const { return ecmp_; }
  // Whether `port` leads to a switch nearer the top of the fabric (Tagger's bounces; switch/tagger.hpp).
  void set_upward(uint16_t port, bool up) { upward_[port] = up; }
  // Routes the switch installs at `at` (after a fabric change, once its routing has converged). Tables are
  // numbered in the order of the changes; a table older than the installed one is skipped.
  void schedule_routes(std::shared_ptr<const RouteTable> table, Time at);

  size_t num_ports() const { return ports_.size(); }
  PortPrioCounters counters(uint16_t port, int prio) const;
  const PauseState& pause_state(uint16_t port) const { return pause_states_[port]; }
  Bytes headroom(uint16_t port) const { return Bytes(ports_[port].headroom); }
  // With an explicit switch.pfc.headroom on lossless priorities: the ports whose link needs more (what auto would
  // give it, pfc_headroom()), and the most any of them needs. Set by finalize().
  struct ShortHeadroom {
    int ports = 0;
    Bytes need;
    uint16_t example = 0;
  };
  const ShortHeadroom& short_headroom() const { return short_headroom_; }
  // The shared pool: the buffer less every port's reserves and headroom.
  Bytes shared_pool() const { return Bytes(mmu_.shared_pool()); }
  int64_t queued_bytes(uint16_t port, int prio) const { return ports_[port].out[prio].qbytes; }
  int64_t sent_packets(uint16_t port, int prio) const { return ports_[port].out[prio].tx_packets; }
  // Whether this port has asked its upstream to pause `prio` (its ingress group is in XOFF).
  bool pausing_upstream(uint16_t port, int prio) const { return ports_[port].xoff >> prio & 1u; }
  // Calls fn(in_port, in_prio) for each packet queued at egress (port, prio), head first: where it came in, and on
  // which priority (another than `prio` if Tagger moved it).
  template <typename F>
  void for_each_queued(uint16_t port, int prio, F&& fn) const {
    for (const Packet* p = ports_[port].out[prio].head; p; p = p->next) {
      fn(p->in_port, static_cast<int>(p->priority));
    }
  }
  int64_t drops_total() const;
  // PFC frames this port sent that pause at least one priority, and those that only resume.
  int64_t pfc_pause_frames(uint16_t port) const { return ports_[port].pause_frames; }
  int64_t pfc_resume_frames(uint16_t port) const { return ports_[port].resume_frames; }
  uint16_t route(const Packet& p) const;
  // InfiniBand (net/credits.hpp): switch to credit-based flow control before the run, with per port the receive
  // buffer it advertises and the one its peer advertises. PFC and the shared-buffer MMU are then unused, and the
  // switch forwards by the priority (service level) a packet carries, not by its DSCP. `fecn` replaces every
  // port's ECN marking (switch.ecn).
  void enable_credits(std::unique_ptr<EcnMarker> fecn);
  void set_credits(uint16_t port, const CreditConfig& rx, uint32_t peer_buffer_blocks);
  // The buffer `port`'s peer advertises from now on (before traffic).
  void set_peer_credits(uint16_t port, uint32_t peer_buffer_blocks);
  // Packets that arrived beyond the advertised buffer (zero unless a sender ignored its credits).
  int64_t credit_overflows() const;
  // The PFC watchdog's storms, if switch.pfc.watchdog is enabled.
  const PfcWatchdog* watchdog() const { return wd_.get(); }

 private:
  // kEvForward: Packet*, after the pipeline latency; kEvPfcRefresh: PfcRefreshArg; kEvRoutes: an index into
  // scheduled_routes_.
  enum : uint32_t { kEvForward = kNodeEventBase, kEvPfcRefresh, kEvRoutes, kEvWatchdog, kEvLast };
  // A refresh of the XOFF numbered `gen` of (port, prio): stale if another XOFF was sent since.
  struct PfcRefreshArg {
    uint32_t gen = 0;
    uint16_t port = 0;
    uint8_t prio = 0;
    uint64_t encode() const { return uint64_t{gen} << 24 | uint64_t{port} << 8 | prio; }
    static PfcRefreshArg decode(uint64_t a) {
      return {static_cast<uint32_t>(a >> 24), static_cast<uint16_t>(a >> 8), static_cast<uint8_t>(a & 7)};
    }
  };
  static_assert(kEvLast <= kMaxEventKinds, "event kinds fit the event queue's six bits");

  // Port state is grouped by what one packet touches, a cache line per group: the port's header (two lines: what
  // enqueueing and sending read, then the scheduler's state), then per class one line of egress state (its queue,
  // linked through the packets, and its counters) and one of ingress state (buffer accounting and counters). A
  // packet touches its egress class and its ingress class only; the other classes' lines stay out of the cache.
  // On a 1,024-host fabric the switches hold 14 MB of port state, so each line a hop touches is likely a miss.
  //
  // One class's egress queue and counters. Packet::next links the queue: no memory besides the packets, and the
  // packet behind the one leaving is known, so it can be prefetched.
  struct alignas(64) EgressClass {
    Packet* head = nullptr;
    Packet* tail = nullptr;
    int64_t qbytes = 0;  // frame bytes queued
    uint32_t size = 0;   // packets queued
    int64_t tx_bytes = 0;
    int64_t tx_packets = 0;
    int64_t max_queue = 0;
    int64_t ecn_marked = 0;
  };
  // Ingress accounting of one priority group (= priority here): bytes held in each bucket, and its counters.
  struct alignas(64) IngressClass {
    // The MMU's accounting, with this group's bit of the port's xoff (admission and release read it for every
    // packet: reading the port's first line instead cost a cache miss per hop on large fabrics).
    MmuGroup mmu;
    int64_t rx_bytes = 0;
    std::array<int64_t, kAdmissionDrops> drops{};  // the MMU's reasons; link failures count in PfcClass
  };
  // What only PFC frames, the use of headroom and link failures touch.
  struct PfcClass {
    uint32_t refresh_gen = 0;
    int64_t xoff_sent = 0;
    int64_t xon_sent = 0;
    int64_t max_headroom = 0;                                           // deepest headroom use seen at ingress
    std::array<int64_t, kDropReasons - kAdmissionDrops> fault_drops{};  // kLinkDown, kNoRoute (at ingress)
  };
  struct alignas(64) Port {
    // Serialising until busy_until_[port]. A kEvTxDone is scheduled only when something waits for the port then
    // (a queued packet or a PFC frame), so a port that goes idle costs no event.
    bool txdone_pending = false;
    uint8_t pfc_pending = 0;  // priorities whose state must be signalled upstream
    uint8_t xoff = 0;         // priorities we have asked the upstream port to pause
    // Classes whose view.head_bytes is stale: the new head's size is read at the next dequeue decision (a
    // serialisation time later, after a prefetch) rather than at once, which would wait for memory.
    uint8_t stale = 0;
    // A copy of the port's PauseState::armed: a port never paused does not touch its pause state's cache line.
    uint8_t pause_armed = 0;
    ClassView view;  // head sizes per class, kept current by enqueue and dequeue
    // The link as sending reads it (a copy of `link`): in this line, so that a send reads two lines of the
    // header (this and the scheduler's) instead of three.
    TxLink tx;
    const EcnMarker* ecn = nullptr;  // this port's marking curve (depends on its rate with ecn.by_rate)
    int64_t ecn_silent = INT64_MAX;  // ecn->silent_up_to(): no marking (nor the marker's memory) up to this depth
    SchedulerState sched;            // the second line of the header: the scheduler's state of this port
    std::array<EgressClass, 8> out;
    std::array<IngressClass, 8> in;
    // Read rarely: when a packet spills into headroom, for PFC frames, and with in-band telemetry.
    LinkEnd link;
    int64_t headroom = 0;
    int64_t q_total = 0;   // frame bytes queued, all priorities (INT qlen; kept only with telemetry)
    int64_t tx_total = 0;  // frame bytes sent, all priorities (INT tx_bytes; kept only with telemetry)
    std::array<PfcClass, 8> pfc;
    int64_t pause_frames = 0;
    int64_t resume_frames = 0;
  };
  static_assert(sizeof(EgressClass) == 64 && sizeof(IngressClass) == 64, "one cache line per class and side");
  static_assert(offsetof(Port, sched) == 64 && offsetof(Port, out) == 128,
                "the port header is two cache lines; enqueueing behind a busy port needs only the first");

  void receive(Packet* p) override;
  void prefetch(uint32_t kind, uint64_t arg) const override;
  void tx_done(uint16_t port) override;
  void pause_ended(uint16_t port, uint8_t mask) override {
    ports_[port].pause_armed = pause_states_[port].armed;
    try_send(port);
  }
  void on_event(uint32_t kind, uint64_t arg) override;
  void link_changed(uint16_t port, bool up) override;
  void lost_to_link(Packet* p, uint16_t port, bool at_egress) override;
  // enqueue() of a packet whose egress is dead or that has no route: dropped after admission.
  void drop_admitted(Packet* p, DropReason r);

  bool admit(Packet* p);
  // Inlined into send_next, its hot caller (out of line it measured 5 % slower on ft8-perm-hpcc).
  [[gnu::always_inline]] inline void release(Packet* p);
  void enqueue(Packet* p);
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
  // try_send() on a free port.
  void send_next(uint16_t port);
  void send_pfc(uint16_t port);
  void send_credit(uint16_t port);
  void on_credit(Packet* p);
  // The classes of `port` whose head packet has no credits at the peer.
  uint8_t credit_blocked(uint16_t out) const;
  // Takes the head packet of class c off the port's queue.
  Packet* dequeue(Port& port, int c);
  void stamp_telemetry(Port& port, Packet* p);
  // After a send: a kEvTxDone when the port is free, if something is already waiting for it. `served`: the class
  // just sent from (-1 for a PFC frame).
  [[gnu::always_inline]] inline void wake_when_free(uint16_t port, int served);
  // The kEvTxDone argument for `port`, with the packet likely to leave next as the hint: the head of the class
  // just served if it has one, else of the lowest non-empty class.
  uint64_t wake_arg(uint16_t port, int served) const;
  void drop(Packet* p, DropReason r);
  // In runs with fabric events, or while the watchdog drops a queue's packets: why a packet routed to `out` on `prio`
  // cannot be queued there (no route, a dead link, a watchdog dropping the queue's packets), if it cannot.
  std::optional<DropReason> refused(uint16_t out, int prio);
  // With Tagger: the egress class of a packet routed to `out` (its priority moves if it bounces, and its DSCP with it).
  int tag(Packet* p, uint16_t out);
  void poll_watchdog();
  // A queue enters or leaves the watchdog's storm mode.
  void storm_changed(uint16_t port, int prio, bool storm);
  // Drops every packet queued at egress (port, class c) for reason r; returns how many.
  int64_t flush(uint16_t port, int c, DropReason r);
  // ECN marking (at enqueue or dequeue, `ecn.at`): CE with the port's marking curve at the class's depth; an
  // ECN-capable packet only, and counted once per packet.
  void maybe_mark(const Port& port, EgressClass& q, Packet* p) {
    if (q.qbytes > port.ecn_silent && p->ecn != wire::kNotEct && port.ecn->mark(Bytes(q.qbytes), rng_)) {
      q.ecn_marked += p->ecn != wire::kCe;
      p->ecn = wire::kCe;
    }
  }

  // What every packet touches comes first and together (about four cache lines); on a large fabric a switch is
  // visited every few hundred events, and its state scattered over the object cost a miss per field.
  Mmu mmu_;
  int64_t max_frame_;
  Time latency_;  // params_.latency
  std::vector<Port> ports_;
  // Per port, when it finishes the frame it is sending: apart from the ports, so that an arrival's prefetch can
  // tell from a line in cache whether the port will be idle, and only then load what sending needs.
  std::vector<Time> busy_until_;
  std::vector<PauseState> pause_states_;
  std::unique_ptr<Scheduler> sched_;  // for every port (each port keeps its own state)
  uint8_t lossless_ = 0;
  ShortHeadroom short_headroom_;
  bool ecn_at_dequeue_ = false;
  bool telemetry_ = false;
  bool credits_ = false;  // InfiniBand: credit_tx_ and credit_rx_ in use
  // Queues in the watchdog's storm mode with the drop action: while any is, enqueue checks refused().
  int16_t storms_dropping_ = 0;
  TagTable tags_;             // Tagger's moves (tags_.active: on)
  std::vector<char> upward_;  // per port: toward a higher level
  std::array<uint8_t, 64> dscp_to_prio_{};
  // routes_'s arrays, read directly (one pointer less to follow per packet).
  const uint16_t* route_set_ = nullptr;
  const uint32_t* set_offset_ = nullptr;
  const uint16_t* set_ports_ = nullptr;
  std::shared_ptr<const RouteTable> routes_;
  std::vector<std::shared_ptr<const RouteTable>> scheduled_routes_;  // kEvRoutes's argument indexes these
  size_t routes_installed_ = 0;                                      // one past the newest installed
  Ecmp ecmp_;
  Rng rng_;
  SwitchParams params_;
  // Marking curves are stateless: ports of one rate share one, which stays in cache.
  std::vector<std::pair<Rate, std::unique_ptr<EcnMarker>>> markers_;
  std::unique_ptr<PfcWatchdog> wd_;  // only with switch.pfc.watchdog.enabled
  // InfiniBand: per port, the credits of what it sends and of what it receives; empty on Ethernet.
  std::vector<CreditTx> credit_tx_;
  std::vector<CreditRx> credit_rx_;
};

}  // namespace rocesim
