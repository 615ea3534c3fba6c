// Priority flow control (IEEE 802.1Qbb) over the shared-buffer MMU: the link-level flow control of an Ethernet
// switch (switch/flow_control.hpp). An ingress class admitted into its PFC headroom, or within a frame of its
// shared limit, asks its upstream to pause (XOFF) and lets it resume (XON) once it has drained; the pauses the
// downstream peers sent hold back the egress classes they name.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/switch/flow_control.hpp"
#include "rocesim/switch/mmu.hpp"
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
  // The lossless priorities as a mask.
  uint8_t lossless() const;
};

// Headroom that absorbs everything in flight after an XOFF trigger (docs/model.md, "PFC headroom"):
//   2 x max frame (the frame being sent on each side) + the PFC frame + rate x (2 x delay + response time).
Bytes pfc_headroom(Rate rate, Time delay, Bytes max_frame, Time response_time);
// A port's headroom per lossless priority: switch.pfc.headroom, or with "auto" pfc_headroom() for its link.
Bytes port_headroom(const PfcParams& p, Rate rate, Time delay, Bytes max_frame);

class PfcControl final : public LinkFlowControl {
 public:
  static constexpr PacketKind kFrame = PacketKind::kPfc;
  static constexpr bool kClassByDscp = true;

  explicit PfcControl(const FlowControlHost& host);

  void count(uint16_t port, int prio, PortPrioCounters& c) const override;
  void finalize(const std::vector<LinkEnd>& links, const std::string& switch_name,
                const std::string& scenario_file) override;
  bool pausing_upstream(uint16_t port, int prio) const override { return ports_[port].xoff >> prio & 1u; }
  int64_t pause_frames(uint16_t port) const override { return ports_[port].pause_frames; }
  int64_t resume_frames(uint16_t port) const override { return ports_[port].resume_frames; }
  Bytes headroom(uint16_t port) const override { return Bytes(ports_[port].headroom); }
  Bytes shared_pool() const override { return Bytes(mmu_.shared_pool()); }
  const ShortHeadroom& short_headroom() const override { return short_headroom_; }

  // The hot part (switch/flow_control.hpp).
  IngressLine<MmuGroup>& ingress(uint16_t port, int c) { return in_[port][c]; }
  const IngressLine<MmuGroup>& ingress(uint16_t port, int c) const { return in_[port][c]; }
  Admit admit(Packet* p) {
    const uint16_t port = p->in_port;
    const int pg = p->priority;
    IngressLine<MmuGroup>& g = in_[port][pg];
    g.count.rx_bytes += p->frame;
    const Mmu::Admission a = mmu_.admit(g.fc, p->frame, lossless_ >> pg & 1u, ports_[port].headroom);
    if (!a.admitted) [[unlikely]] {
      return {false, a.drop, false};
    }
    p->charge = a.charge;
    if (a.charge == Mmu::kHeadroom) {
      int64_t& deepest = ports_[port].cls[pg].max_headroom;
      deepest = std::max(deepest, g.fc.hdrm_used);
    }
    if (a.xoff) {
      ports_[port].xoff |= static_cast<uint8_t>(1u << pg);
    }
    return {true, a.drop, a.xoff};
  }
  bool release(const Packet* p) {
    if (mmu_.release(in_[p->in_port][p->priority].fc, p->frame, static_cast<Mmu::Charge>(p->charge))) {
      ports_[p->in_port].xoff &= static_cast<uint8_t>(~(1u << p->priority));
      return true;
    }
    return false;
  }
  uint8_t may_block(uint16_t port) const { return host_.pauses[port].armed; }
  uint8_t blocked(uint16_t port, const ClassView&, Time now) const { return host_.pauses[port].paused_mask(now); }
  static constexpr bool may_mark(uint16_t, int) { return true; }
  static constexpr void sent(uint16_t, int, int) {}
  Packet* frame(uint16_t port, const LinkEnd& link, uint8_t& owed, bool link_down);
  template <typename HeadFrame>
  uint8_t on_frame(Packet* p, const LinkEnd& link, HeadFrame&&) {
    const uint16_t port = p->in_port;
    const uint8_t resumed = host_.node.apply_pfc(host_.pauses[port], port, *p, link.rate, response_time_);
    host_.pool.release(p);
    return resumed;
  }
  uint8_t resignal(uint16_t port) const { return ports_[port].xoff; }
  LinkSignal on_timer(uint64_t arg) const;

 private:
  // A refresh of the XOFF numbered `gen` of (port, prio): stale if another XOFF was sent since.
  struct RefreshArg {
    uint32_t gen = 0;
    uint16_t port = 0;
    uint8_t prio = 0;
    uint64_t encode() const { return uint64_t{gen} << 24 | uint64_t{port} << 8 | prio; }
    static RefreshArg decode(uint64_t a) {
      return {static_cast<uint32_t>(a >> 24), static_cast<uint16_t>(a >> 8), static_cast<uint8_t>(a & 7)};
    }
  };
  static_assert(sizeof(IngressLine<MmuGroup>) == 64, "admission touches one cache line");
  // What only PFC frames and the use of headroom touch, per (port, class).
  struct Class {
    uint32_t refresh_gen = 0;
    int64_t xoff_sent = 0;
    int64_t xon_sent = 0;
    int64_t max_headroom = 0;  // deepest headroom use seen at ingress
  };
  struct Port {
    uint8_t xoff = 0;  // classes we have asked the upstream port to pause
    int64_t headroom = 0;
    int64_t pause_frames = 0;
    int64_t resume_frames = 0;
    std::array<Class, 8> cls;
  };

  // What every packet touches first (it follows the switch's own hot state).
  Mmu mmu_;
  // Per port: the ingress lines admission touches, and the rest.
  std::vector<std::array<IngressLine<MmuGroup>, 8>> in_;
  std::vector<Port> ports_;
  uint8_t lossless_;
  FlowControlHost host_;
  int64_t quanta_;
  Time response_time_;
  ShortHeadroom short_headroom_;
};

}  // namespace rocesim
