// A switch with eight traffic classes per port: link-level flow control (PFC or InfiniBand credits), ECN marking
// and ETS scheduling.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/net/credits.hpp"  // InfinibandParams
#include "rocesim/net/node.hpp"
#include "rocesim/switch/balance.hpp"
#include "rocesim/switch/buffer.hpp"
#include "rocesim/switch/ecmp.hpp"
#include "rocesim/switch/ecn.hpp"
#include "rocesim/switch/egress_stage.hpp"
#include "rocesim/switch/flow_control.hpp"
#include "rocesim/switch/mmu.hpp"
#include "rocesim/switch/pfc.hpp"
#include "rocesim/switch/scheduler.hpp"
#include "rocesim/switch/tagger.hpp"
#include "rocesim/switch/watchdog.hpp"

namespace rocesim {

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

// Drops: the admission's reasons (switch/mmu.hpp), and kLinkDown (queued for, routed to or in flight on a link
// that failed), kNoRoute (no path to the destination in the switch's current routes, after a failure) and
// kWatchdog (a queue the PFC watchdog drops).

// A switch: ingress classification and admission by its link-level flow control (switch/flow_control.hpp),
// forwarding by its route table and ECMP, egress queues with ECN marking, and a scheduler per port. This is what
// the rest of the program sees of one; its pipeline is switch/pipeline.hpp, built for one flow control by
// make_switch().
class Switch : public Node {
 public:
  // Wiring, before the run: ports in order, then the routing table.
  uint16_t add_port(const LinkEnd& link);
  const LinkEnd& link(uint16_t port) const { return ports_[port].link; }
  void set_link(uint16_t port, const LinkEnd& link);
  // Sizes the flow control's buffers once every port exists; throws InputError if they exceed the buffer.
  void finalize(const std::string& scenario_file);
  // The forwarding table (possibly shared with other switches) and this switch's ECMP hash seed.
  void set_routes(std::shared_ptr<const RouteTable> table, const Ecmp& ecmp);
  const Ecmp& ecmp() const { return ecmp_; }
  // Per-packet or per-flowlet choices among the next hops (routing.balance), instead of the ECMP hash; nullptr:
  // the hash.
  void set_balancer(std::unique_ptr<LoadBalancer> balancer);
  // Whether `port` leads to a switch nearer the top of the fabric (Tagger's bounces; switch/tagger.hpp); before
  // finalize(), which hands it to the stages.
  void set_upward(uint16_t port, bool up) { upward_[port] = up; }
  // Routes the switch installs at `at` (after a fabric change, once its routing has converged). Tables are
  // numbered in the order of the changes; a table older than the installed one is skipped.
  void schedule_routes(std::shared_ptr<const RouteTable> table, Time at);

  size_t num_ports() const { return ports_.size(); }
  PortPrioCounters counters(uint16_t port, int prio) const;
  const PauseState& pause_state(uint16_t port) const { return pause_states_[port]; }
  virtual const LinkFlowControl& flow_control() const = 0;
  virtual LinkFlowControl& flow_control() = 0;
  Bytes headroom(uint16_t port) const { return flow_control().headroom(port); }
  // With an explicit switch.pfc.headroom on lossless priorities: the ports whose link needs more.
  const ShortHeadroom& short_headroom() const { return flow_control().short_headroom(); }
  // The shared pool: the buffer less every port's reserves and headroom (0 without a shared-buffer MMU).
  Bytes shared_pool() const { return flow_control().shared_pool(); }
  int64_t queued_bytes(uint16_t port, int prio) const { return ports_[port].out[prio].qbytes; }
  int64_t sent_packets(uint16_t port, int prio) const { return ports_[port].out[prio].tx_packets; }
  // Whether this port has asked its upstream to pause `prio`.
  bool pausing_upstream(uint16_t port, int prio) const { return flow_control().pausing_upstream(port, prio); }
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
  int64_t pfc_pause_frames(uint16_t port) const { return flow_control().pause_frames(port); }
  int64_t pfc_resume_frames(uint16_t port) const { return flow_control().resume_frames(port); }
  // The egress port of `p`: its destination's next hops, one picked by the balancer or the ECMP hash.
  uint16_t route(const Packet& p) {
    if (balancer_) [[unlikely]] {
      return balanced_route(p);
    }
    return hashed_route(p);
  }
  // The port the ECMP hash picks (route() without a balancer; a guess for prefetching with one).
  uint16_t hashed_route(const Packet& p) const {
    const uint16_t set = route_set_[p.dst];
    const uint32_t b = set_offset_[set];
    const uint32_t n = set_offset_[set + 1u] - b;
    // Hashed also when the set has one port (it picks index 0 then): whether it has one depends on the packet's
    // direction, so a branch on it mispredicted on one switch hop in three or four (cachegrind's branch
    // simulation, ft16).
    return set_ports_[b + ecmp_.pick(p, n)];
  }
  // Packets that arrived beyond the advertised buffer (zero unless a sender ignored its credits).
  int64_t credit_overflows() const { return flow_control().overflows(); }
  // The PFC watchdog's storms, if switch.pfc.watchdog is enabled.
  const PfcWatchdog* watchdog() const { return wd_.get(); }

 protected:
  // `max_frame`: the largest frame the hosts send (sizes the headroom and DWRR quantum). `telemetry`: stamp
  // in-band telemetry on data packets as they leave (HPCC). `marker`: every port's ECN marking, if not
  // switch.ecn's by the port's rate.
  Switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p, Bytes max_frame, bool telemetry,
         std::unique_ptr<EcnMarker> marker);

  // kEvForward: Packet*, after the pipeline latency; kEvFlowControl: the flow control's timer; kEvRoutes: an
  // index into scheduled_routes_.
  enum : uint32_t { kEvForward = kNodeEventBase, kEvRoutes = kEvFlowControl + 1, kEvWatchdog, kEvLast };
  static_assert(kEvFlowControl == kEvForward + 1, "the flow control's timer kind is the switch's second");
  static_assert(kEvLast <= kMaxEventKinds, "event kinds fit the event queue's six bits");

  // Port state is grouped by what one packet touches, a cache line per group: the port's header (two lines: what
  // enqueueing and sending read, then the scheduler's state), then per class one line of egress state (its queue,
  // linked through the packets, and its counters); the ingress lines are the flow control's. A packet touches its
  // egress class and its ingress class only; the other classes' lines stay out of the cache. On a 1,024-host
  // fabric the switches hold 14 MB of port state, so each line a hop touches is likely a miss.
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
  struct alignas(64) Port {
    // Serialising until busy_until_[port]. A kEvTxDone is scheduled only when something waits for the port then
    // (a queued packet or a control frame), so a port that goes idle costs no event.
    bool txdone_pending = false;
    uint8_t owed = 0;  // classes whose link-level state the flow control must signal upstream (a control frame)
    // Classes whose view.head_bytes is stale: the new head's size is read at the next dequeue decision (a
    // serialisation time later, after a prefetch) rather than at once, which would wait for memory.
    uint8_t stale = 0;
    // The flow control's may_block(): zero while nothing can hold a class of this port back, so that a port
    // never paused does not touch its pause state's cache line.
    uint8_t may_block = 0;
    ClassView view;  // head sizes per class, kept current by enqueue and dequeue
    // The link as sending reads it (a copy of `link`): in this line, so that a send reads two lines of the
    // header (this and the scheduler's) instead of three.
    TxLink tx;
    const EcnMarker* ecn = nullptr;  // this port's marking curve (depends on its rate with ecn.by_rate)
    int32_t ecn_silent = INT32_MAX;  // ecn->silent_up_to(): no marking (nor the marker's memory) up to this depth
    uint32_t queued = 0;             // frame bytes queued, all classes (what in-band telemetry reports)
    SchedulerState sched;            // the second line of the header: the scheduler's state of this port
    std::array<EgressClass, 8> out;
    // Read rarely: for control frames and on faults.
    LinkEnd link;
    // Drops at ingress for kLinkDown, kNoRoute and kWatchdog, per class.
    std::array<std::array<int64_t, kDropReasons - kAdmissionDrops>, 8> fault_drops{};
  };
  static_assert(sizeof(EgressClass) == 64, "one cache line per egress class");
  static_assert(offsetof(Port, sched) == 64 && offsetof(Port, out) == 128,
                "the port header is two cache lines; enqueueing behind a busy port needs only the first");

  // What the flow control is given to work with.
  FlowControlHost flow_control_host() { return {*this, sim_, pool_, pause_states_, params_, max_frame_}; }
  // finalize() is done: the pipeline reads what the flow control now knows of each port.
  virtual void ready() = 0;
  // The egress stages this switch's scenario enables (switch/egress_stage.hpp), by the hook each has: at
  // finalize(), and again when the run turns out to have fabric events (before it starts).
  void build_stages();
  std::vector<LinkEnd> port_links() const;
  void faults_enabled() override { build_stages(); }
  void poll_watchdog();
  // A queue enters or leaves the watchdog's storm mode (the pipeline applies the drop action's flush).
  virtual void storm_changed(uint16_t port, int prio, bool storm) = 0;
  void install_routes(uint64_t index);
  // ECN marking (at enqueue or dequeue, `ecn.at`, the pipeline's choice): CE with the port's marking curve at the
  // class's depth; an ECN-capable packet only, and counted once per packet. A port without marking has
  // ecn_silent at its largest, which a class deeper than 2 GiB passes: hence the test of `ecn` after it.
  void maybe_mark(const Port& port, EgressClass& q, Packet* p) {
    if (q.qbytes > port.ecn_silent && port.ecn && p->ecn != wire::kNotEct && port.ecn->mark(Bytes(q.qbytes), rng_)) {
      q.ecn_marked += p->ecn != wire::kCe;
      p->ecn = wire::kCe;
    }
  }

  // Read at set-up, by outputs and on failures.
  SwitchParams params_;
  // Marking curves are stateless: ports of one rate share one, which stays in cache.
  std::vector<std::pair<Rate, std::unique_ptr<EcnMarker>>> markers_;
  std::unique_ptr<EcnMarker> marker_;  // every port's, if given
  std::unique_ptr<PfcWatchdog> wd_;    // only with switch.pfc.watchdog.enabled
  std::vector<std::unique_ptr<EgressStage>> stages_;
  // The egress stages with each hook, in order (empty in a run that enables none; stage_hooks_ says which are not).
  std::vector<EgressStage*> on_route_;
  std::vector<EgressStage*> on_leave_;
  std::string scenario_file_;  // for the stages' errors
  std::shared_ptr<const RouteTable> routes_;
  std::vector<std::shared_ptr<const RouteTable>> scheduled_routes_;  // kEvRoutes's argument indexes these
  size_t routes_installed_ = 0;                                      // one past the newest installed
  std::vector<char> upward_;                                         // per port: toward a higher level
  std::vector<PauseState> pause_states_;  // per port: what its peer asked (PFC; never set on InfiniBand)
  int64_t max_frame_;
  uint8_t lossless_ = 0;
  bool telemetry_ = false;
  // The hooks some egress stage has (EgressStage::kRoute, kLeave): a packet tests this byte, among what it
  // touches anyway, instead of the stage lists.
  uint8_t stage_hooks_ = 0;
  EgressStage* sole_leave_ = nullptr;  // on_leave_'s only stage, if it has one
  // What every packet touches comes last and together, next to the flow control's own (SwitchOn::fc_): on a large
  // fabric a switch is visited every few hundred events, and its state scattered over the object cost a miss per
  // field.
  Time latency_;  // params_.latency
  std::vector<Port> ports_;
  // Per port, when it finishes the frame it is sending: apart from the ports, so that an arrival's prefetch can
  // tell from a line in cache whether the port will be idle, and only then load what sending needs.
  std::vector<Time> busy_until_;
  std::unique_ptr<Scheduler> sched_;  // for every port (each port keeps its own state)
  std::array<uint8_t, 64> dscp_to_prio_{};
  // routes_'s arrays, read directly (one pointer less to follow per packet).
  const uint16_t* route_set_ = nullptr;
  const uint32_t* set_offset_ = nullptr;
  const uint16_t* set_ports_ = nullptr;
  Ecmp ecmp_;
  std::unique_ptr<LoadBalancer> balancer_;  // routing.balance, if not the ECMP hash
  // route() with a balancer; out of line so the ECMP path stays small where route() is inlined.
  [[gnu::noinline]] uint16_t balanced_route(const Packet& p);
  Rng rng_;
  // What a balancer reads: the bytes queued at each port and those left of the frame being sent; a port whose
  // link is down has no room at all (adaptive routing leaves a dead port alone, as the hardware does).
  struct Load final : PortLoad {
    Load(const std::vector<Port>& p, const std::vector<Time>& b, const Node& n) : ports(p), busy_until(b), node(n) {}
    int64_t bytes(uint16_t port, Time now) const override {
      if (node.link_down(port)) [[unlikely]] {
        return INT64_MAX;
      }
      const Time left = busy_until[port] - now;
      const int64_t sending =
          left > Time()
              ? static_cast<int64_t>(static_cast<__int128>(left.ps()) * ports[port].link.rate.bps() / 8'000'000'000'000)
              : 0;
      return ports[port].queued + sending;
    }
    const std::vector<Port>& ports;
    const std::vector<Time>& busy_until;
    const Node& node;
  };
};

// A switch with PFC over a shared-buffer MMU (Ethernet), or with InfiniBand's credits if `ib` is given (FECN
// marking from its settings replaces switch.ecn).
std::unique_ptr<Switch> make_switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p,
                                    Bytes max_frame, bool telemetry, const InfinibandParams* ib);

}  // namespace rocesim
