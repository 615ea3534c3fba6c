// PFC deadlock in a run: a cycle of lossless egress queues, each holding packets, paused by the switch it feeds
// and waiting there on the next queue of the cycle (the packets it sent fill that switch's ingress), none of
// which has sent anything for `switch.pfc.deadlock.detect_after`. Such a cycle never drains by itself: each
// queue resumes only when the next one moves (Hu et al., HotNets 2016). The detector looks every
// detect_after / 4, reports each cycle once (its queues, when it formed and when it was seen) and stops the run
// or lets it go on (`action`). It only reads the switches, between their events, as the time series does.
#pragma once

#include <string>
#include <vector>

#include "rocesim/cluster/network.hpp"

namespace rocesim {

struct DeadlockReport {
  Time formed_at;    // the last of its queues had sent its last packet by then (to within one look)
  Time detected_at;  // when the detector saw it
  int priority = 0;
  std::vector<std::string> queues;  // "switch:port", each paused by the next's switch and the last by the first's
};

class DeadlockDetector final : public Observer {
 public:
  DeadlockDetector(const DeadlockParams& p, const std::vector<int64_t>& lossless, Engine& engine, Network& net);
  Time look(Time now) override;
  const std::vector<DeadlockReport>& deadlocks() const { return found_; }
  bool stopped_run() const { return stopped_; }

 private:
  struct Queue {
    const Switch* sw = nullptr;
    uint16_t port = 0;
    int prio = 0;
    uint32_t peer = 0;  // index of the switch it feeds
    uint16_t peer_port = 0;
    int64_t sent = -1;
    Time moved;  // the last look at which it had sent something new, held nothing or was not paused
  };
  void find_cycles(Time now);
  uint32_t queue_index(uint32_t sw, uint16_t port, int prio) const { return base_[sw] + port * 8u + prio; }

  DeadlockParams p_;
  Engine& engine_;
  Network& net_;
  std::vector<uint32_t> base_;  // per switch: the first slot of its (port, priority) table
  std::vector<uint32_t> slot_;  // (switch, port, priority) -> index into queues_, or UINT32_MAX
  std::vector<Queue> queues_;   // every lossless egress queue toward another switch
  std::vector<int> lossless_;
  std::vector<std::vector<uint32_t>> reported_;
  std::vector<DeadlockReport> found_;
  bool stopped_ = false;
};

}  // namespace rocesim
