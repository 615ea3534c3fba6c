// InfiniBand's credit-based link-level flow control (IBTA vol 1, 7.9; net/credits.hpp) as a switch's flow control
// (switch/flow_control.hpp): an arriving packet always fits the buffer its sender had credits for, the freed space
// goes back to the sender in flow control packets, and a class whose head packet has no credits at the peer waits.
// Packets keep the class (service level) they carry; there is no shared buffer and no PFC.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rocesim/net/credits.hpp"
#include "rocesim/switch/flow_control.hpp"

namespace rocesim {

class CreditControl final : public LinkFlowControl {
 public:
  static constexpr PacketKind kFrame = PacketKind::kCredit;
  static constexpr bool kClassByDscp = false;

  explicit CreditControl(const FlowControlHost& host) : pool_(host.pool), sim_(host.sim) {}

  void count(uint16_t port, int prio, PortPrioCounters& c) const override;
  void finalize(const std::vector<LinkEnd>& links, const std::string&, const std::string&) override;
  bool pausing_upstream(uint16_t, int) const override { return false; }
  int64_t overflows() const override;
  // Before traffic: the buffer `port` advertises per VL, and the one its peer advertises.
  void set_credits(uint16_t port, const CreditConfig& rx, uint32_t peer_buffer_blocks);
  void set_peer_credits(uint16_t port, uint32_t peer_buffer_blocks);

  // The hot part (switch/flow_control.hpp).
  IngressLine<NoGroup>& ingress(uint16_t port, int c) { return ports_[port].in[c]; }
  const IngressLine<NoGroup>& ingress(uint16_t port, int c) const { return ports_[port].in[c]; }
  // The sender had credits for it: it fits, else the sender broke the protocol.
  Admit admit(Packet* p) {
    Port& port = ports_[p->in_port];
    port.in[p->priority].count.rx_bytes += p->frame;
    return {port.rx.take(p->priority, p->frame), DropReason::kBufferFull, false};
  }
  bool release(const Packet* p) { return ports_[p->in_port].rx.release(p->priority, p->frame); }
  static constexpr uint8_t may_block(uint16_t) { return 0xFF; }
  // The classes whose head packet has no credits at the peer (they start or go on waiting).
  uint8_t blocked(uint16_t out, const ClassView& v, Time now) {
    CreditTx& tx = ports_[out].tx;
    uint8_t m = 0;
    for (uint8_t q = v.nonempty; q; q &= static_cast<uint8_t>(q - 1)) {
      const int c = __builtin_ctz(q);
      m |= static_cast<uint8_t>(!tx.fits(c, v.head_bytes[c]) << c);
    }
    tx.hold(m, now);
    return m;
  }
  // Annex A10.2.1: a port waiting for credits is a victim of congestion downstream, not its root, and does not
  // mark.
  bool may_mark(uint16_t out, int c) const { return !(ports_[out].tx.waiting >> c & 1u); }
  void sent(uint16_t out, int c, int frame) { ports_[out].tx.on_sent(c, frame); }
  Packet* frame(uint16_t out, const LinkEnd& link, uint8_t& owed, bool link_down);
  // A flow control packet from the peer: its VL's new limit; the port may send again.
  template <typename HeadFrame>
  uint8_t on_frame(Packet* p, const LinkEnd&, HeadFrame&& head_frame) {
    const int vl = p->priority;
    ports_[p->in_port].tx.on_credit(vl, p->psn, head_frame(vl), sim_.now());
    pool_.release(p);
    return static_cast<uint8_t>(1u << vl);
  }
  static constexpr uint8_t resignal(uint16_t) { return 0; }
  static constexpr LinkSignal on_timer(uint64_t) { return {}; }

 private:
  struct Port {
    std::array<IngressLine<NoGroup>, 8> in;
    CreditTx tx;  // what it sends
    CreditRx rx;  // what it receives
  };
  PacketPool& pool_;
  Simulator& sim_;
  std::vector<Port> ports_;
};

}  // namespace rocesim
