#include "rocesim/net/node.hpp"

#include <algorithm>

namespace rocesim {

void Node::handle_event(uint32_t kind, uint64_t arg) {
  if (kind == kEvArrive) [[likely]] {  // most events: tested first, ahead of the rarer kinds' jump table
    Packet* p = reinterpret_cast<Packet*>(arg);
    if (faults_ && arrived_dead(*p)) [[unlikely]] {
      lost_to_link(p, p->in_port, false);
      return;
    }
    receive(p);
    return;
  }
  switch (kind) {
    case kEvTxDone:
      tx_done(txdone_port(arg));
      break;
    case kEvPauseEnd: {
      const auto [port, prio] = PauseEndArg::decode(arg);
      PauseState& ps = (*pause_)[port];
      // A refreshed pause moved `until` later; this expiry is then stale and the later one will fire.
      if (ps.until[prio] != Time() && ps.until[prio] <= sim_.now()) {
        ps.end_pause(prio, ps.until[prio]);
        pause_ended(port, static_cast<uint8_t>(1u << prio));
      }
      break;
    }
    case kEvLinkDown:
      set_link_state(static_cast<uint16_t>(arg), false);
      break;
    case kEvLinkUp:
      set_link_state(static_cast<uint16_t>(arg), true);
      break;
    default:
      on_event(kind, arg);
  }
}

void Node::enable_faults(const std::vector<std::pair<Time, Rate>>& in_links) {
  faults_ = std::make_unique<std::vector<LinkFault>>();
  for (const auto& [delay, rate] : in_links) {
    faults_->push_back(LinkFault{delay, rate});
  }
  faults_enabled();
}

// A dead link carries no pause: what the peer asked of this port is void (its pause state is cleared, the time
// paused counted up to now).
void Node::set_link_state(uint16_t port, bool up) {
  LinkFault& f = (*faults_)[port];
  f.down = !up;
  if (!up) {
    f.last_down = sim_.now();
    PauseState& ps = (*pause_)[port];
    for (uint8_t a = ps.armed; a; a &= static_cast<uint8_t>(a - 1)) {
      const int prio = __builtin_ctz(a);
      ps.since[prio] = std::min(ps.since[prio], sim_.now());
      ps.end_pause(prio, std::min(ps.until[prio], sim_.now()));
    }
  }
  link_changed(port, up);
}

uint8_t Node::apply_pfc(PauseState& ps, uint16_t port, const Packet& frame, Rate rate, Time response) {
  const Time now = sim_.now();
  const PacketExt none;
  const PacketExt& pfc = frame.ext ? *frame.ext : none;
  if (!pfc_obs_.empty()) {
    bool pause = false;
    for (int c = 0; c < 8; ++c) {
      pause = pause || ((pfc.pfc_enable & (1u << c)) && pfc.pfc_quanta[c] > 0);
    }
    for (PfcObserver* o : pfc_obs_) {
      o->on_pfc(*this, port, pause);
    }
  }
  uint8_t resumed = 0;
  for (int prio = 0; prio < 8; ++prio) {
    if (!(pfc.pfc_enable & (1u << prio))) {
      continue;
    }
    const bool was_paused = ps.until[prio] > now;
    if (pfc.pfc_quanta[prio] == 0) {
      ++ps.xon_rcvd[prio];
      if (was_paused) {
        ps.since[prio] = std::min(ps.since[prio], now);  // resumed before the pause took effect: none of it
        ps.end_pause(prio, now);
        resumed |= static_cast<uint8_t>(1u << prio);
      } else if (ps.until[prio] != Time()) {  // an expired pause whose expiry event has not run yet
        ps.end_pause(prio, ps.until[prio]);
      }
    } else {
      ++ps.xoff_rcvd[prio];
      if (!was_paused) {
        if (ps.until[prio] != Time()) {  // an expired pause whose expiry event has not run yet
          ps.end_pause(prio, ps.until[prio]);
        }
        ps.since[prio] = now + response;
        ps.first_paused = std::min(ps.first_paused, ps.since[prio]);
      }
      ps.set_until(prio, now + response + pause_time(pfc.pfc_quanta[prio], rate));
      sim_.at(ps.until[prio], this, kEvPauseEnd, PauseEndArg{port, static_cast<uint8_t>(prio)}.encode());
    }
  }
  return resumed;
}

}  // namespace rocesim
