// Link-level flow control of a switch: how its ingress admits and accounts what arrives, which frames it sends
// its upstream peers to hold them back or let them go, and which egress classes its downstream peers hold back.
// Two implementations, one per fabric, chosen when the network is built: PFC over a shared-buffer MMU
// (switch/pfc.hpp, Ethernet) and credits per virtual lane (switch/credit_control.hpp, InfiniBand).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rocesim/core/units.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/switch/mmu.hpp"
#include "rocesim/switch/scheduler.hpp"

namespace rocesim {

struct SwitchParams;

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

// An ingress class's arrivals and the admission's drops.
struct IngressCounters {
  int64_t rx_bytes = 0;
  std::array<int64_t, kAdmissionDrops> drops{};  // the admission's reasons; faults count at the switch
};
// One ingress (port, class) as admission sees it, a cache line: the flow control's own accounting `fc` and the
// class's counters. A packet's admission and release touch this line only.
template <typename Group>
struct alignas(64) IngressLine {
  [[no_unique_address]] Group fc;
  IngressCounters count;
};

// The group state of a flow control that keeps none per ingress class.
struct NoGroup {};

// The event kind of a flow control's own timers at its switch (its argument is the flow control's).
enum FlowControlEvent : uint32_t { kEvFlowControl = kNodeEventBase + 1 };

// What admission decided about an arriving packet.
struct Admit {
  bool ok = false;
  DropReason drop = DropReason::kBufferFull;  // if not ok
  bool signal = false;                        // the packet's ingress class owes its upstream a frame now
};

// A frame owed to the peer of `port` for the classes in `classes` (a timer's outcome; classes 0: none).
struct LinkSignal {
  uint16_t port = 0;
  uint8_t classes = 0;
};

// With an explicit switch.pfc.headroom on lossless priorities: the ports whose link needs more (what auto would
// give it), and the most any of them needs.
struct ShortHeadroom {
  int ports = 0;
  Bytes need;
  uint16_t example = 0;
};

// What a switch's flow control works with: the switch (which gets its timers, kEvFlowControl, and applies received
// pauses), its clock, its packets, the pause state of each port (what the peers asked), and its configuration.
struct FlowControlHost {
  Node& node;
  Simulator& sim;
  PacketPool& pool;
  std::vector<PauseState>& pauses;
  const SwitchParams& params;
  int64_t max_frame;  // wire bytes of the largest frame
};

// What the rest of the program asks of a switch's flow control: set-up and counters.
//
// Contract: besides these, an implementation F offers the switch's pipeline (switch/pipeline.hpp) its hot part,
// bound statically (F is final):
//   kFrame                       the PacketKind of its control frames
//   kClassByDscp                 classify arrivals by DSCP (Ethernet) rather than keep the packet's class (SL)
//   ingress(port, c)             the IngressLine of (port, class c), for prefetching and counting
//   admit(p)                     admission of an arriving, classified packet; sets p->charge if it needs to
//   release(p)                   p leaves the buffer; true if p's ingress class owes its upstream a frame now
//   may_block(port)              non-zero if blocked() may hold back a class of `port` (the switch keeps a copy)
//   blocked(port, view, now)     the classes of `port` its peer does not let send now
//   may_mark(port, c)            whether ECN marking at enqueue applies to class c of `port` now
//   sent(port, c, frame)         a frame of class c left `port`
//   frame(port, link, owed, link_down)  the control frame for the classes in `owed` (which it clears as it covers
//                                them), or nullptr if none is to be sent
//   on_frame(p, link, head_frame)  a control frame arrived (it returns it to the pool; head_frame(c) is the size
//                                of class c's head packet at that port, 0 if none); the classes it unblocked
//   resignal(port)               the classes whose state to send again when the link of `port` comes back
//   on_timer(arg)                one of its own timers (an event kEvFlowControl to the switch) fired
// and nothing of it touches the switch's egress queues: the pipeline asks, the flow control answers.
class LinkFlowControl {
 public:
  virtual ~LinkFlowControl() = default;
  // Adds the flow control's part of (port, prio)'s counters to `c`.
  virtual void count(uint16_t port, int prio, PortPrioCounters& c) const = 0;
  // Once every port exists (the links are the switch's, in port order): sizes buffers, throws InputError.
  virtual void finalize(const std::vector<LinkEnd>& links, const std::string& switch_name,
                        const std::string& scenario_file) = 0;
  // Whether `port` has asked its upstream to hold `prio` back now.
  virtual bool pausing_upstream(uint16_t port, int prio) const = 0;
  // Control frames `port` sent that pause at least one class, and those that only resume.
  virtual int64_t pause_frames(uint16_t port) const { return 0; }
  virtual int64_t resume_frames(uint16_t port) const { return 0; }
  // PFC headroom per lossless priority of `port`, the shared pool and ports short of headroom (0 without PFC).
  virtual Bytes headroom(uint16_t port) const { return Bytes(); }
  virtual Bytes shared_pool() const { return Bytes(); }
  virtual const ShortHeadroom& short_headroom() const {
    static const ShortHeadroom none;
    return none;
  }
  // Packets that arrived beyond the buffer advertised to a credit-based sender (zero unless one broke the rules).
  virtual int64_t overflows() const { return 0; }
};

}  // namespace rocesim
