#include "rocesim/nic/port_arbiter.hpp"

namespace rocesim {

// The highest ready priority's oldest control packet.
PortArbiter::Frame PortArbiter::control(uint8_t ready) {
  const int prio = 31 - __builtin_clz(ready);
  Packet* c = ctrl_[prio].pop();
  if (ctrl_[prio].empty()) {
    ctrl_ready_ &= static_cast<uint8_t>(~(1u << prio));
  }
  if (credit_fc_) [[unlikely]] {
    credits_->on_sent(c->priority, c->frame);
  }
  return {c, false};
}

}  // namespace rocesim
