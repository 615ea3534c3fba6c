// The PFC watchdog as switches ship it (SONiC pfcwd: sonic-utilities pfcwd/main.py for the defaults, sonic-swss
// orchagent/pfc_detect_*.lua for the detection): every poll, an egress queue of a lossless priority is storming
// if it was paused at the previous poll and still is, and more PFC pause frames for it arrived in between.
// After `detect` of that, the queue enters storm mode and the action applies: drop (its queued packets and
// every packet routed to it are dropped), forward (pauses for it are ignored) or alert (only reported). It
// leaves storm mode once no pause frame for it has arrived for `restore`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/net/node.hpp"

namespace rocesim {

struct WatchdogParams {
  bool enabled = false;
  Time detect;   // SONiC detection_time
  Time restore;  // SONiC restoration_time
  Time poll;     // SONiC polling interval
  std::string action;
  static const Schema<WatchdogParams>& schema();
};

// One storm of one queue: when it entered storm mode and left it, and what the action dropped meanwhile.
struct Storm {
  uint16_t port = 0;
  int prio = 0;
  Time start;
  Time end = Time::ps(-1);  // still storming at the end of the run
  int64_t dropped = 0;
};

// The watchdog's state of one switch. Contract: poll() only reads the pause states it is given; the switch
// applies what it returns.
class PfcWatchdog {
 public:
  enum class Action : uint8_t { kDrop, kForward, kAlert };
  PfcWatchdog(const WatchdogParams& p, uint8_t lossless, size_t ports);
  struct Change {
    uint16_t port;
    int prio;
    bool storm;  // entered storm mode (else left it)
  };
  // The queues that enter or leave storm mode at this poll, `now`.
  std::vector<Change> poll(Time now, const std::vector<PauseState>& pauses);
  Time interval() const { return p_.poll; }
  Action action() const { return action_; }
  // Whether (port, prio) is in storm mode with the drop action.
  bool drops(uint16_t port, int prio) const { return action_ == Action::kDrop && q(port, prio).storm >= 0; }
  void count_drop(uint16_t port, int prio) { count_drops(port, prio, 1); }
  void count_drops(uint16_t port, int prio, int64_t n) {
    storms_[static_cast<size_t>(q(port, prio).storm)].dropped += n;
  }
  const std::vector<Storm>& storms() const { return storms_; }

 private:
  struct QueueState {
    int64_t xoff_seen = 0;               // pause frames received up to the previous poll
    bool paused = false;                 // paused at the previous poll
    Time storming_since = Time::ps(-1);  // since when each poll found it storming (-1: it did not)
    Time last_pause;                     // in storm mode: when a pause frame was last seen
    int storm = -1;                      // in storm mode: its index in storms_
  };
  QueueState& q(uint16_t port, int prio) { return queues_[port * 8u + static_cast<unsigned>(prio)]; }
  const QueueState& q(uint16_t port, int prio) const { return queues_[port * 8u + static_cast<unsigned>(prio)]; }

  WatchdogParams p_;
  Action action_;
  uint8_t lossless_;
  Time last_poll_;
  std::vector<QueueState> queues_;  // per (port, priority)
  std::vector<Storm> storms_;
};

}  // namespace rocesim
