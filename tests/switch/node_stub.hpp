// A node that only hosts the switch part under test: it keeps the pause state of its ports, and records the flow
// control's timers it is sent and the pauses that ended.
#pragma once

#include <vector>

#include "rocesim/net/node.hpp"
#include "rocesim/switch/flow_control.hpp"

namespace rocesim::test {

class NodeStub final : public Node {
 public:
  NodeStub(Simulator& sim, PacketPool& pool, size_t ports) : Node(sim, pool, "sw", NodeKind::kSwitch), pauses(ports) {
    pause_ = &pauses;
  }
  std::vector<PauseState> pauses;
  std::vector<uint64_t> timers;
  uint8_t ended = 0;

 private:
  void receive(Packet* p) override { pool_.release(p); }
  void tx_done(uint16_t) override {}
  void pause_ended(uint16_t, uint8_t mask) override { ended |= mask; }
  void link_changed(uint16_t, bool) override {}
  void lost_to_link(Packet* p, uint16_t, bool) override { pool_.release(p); }
  void on_event(uint32_t kind, uint64_t arg) override {
    if (kind == kEvFlowControl) {
      timers.push_back(arg);
    }
  }
};

}  // namespace rocesim::test
