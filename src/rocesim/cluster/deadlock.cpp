#include "rocesim/cluster/deadlock.hpp"

#include <algorithm>
#include <map>

#include "rocesim/core/cycles.hpp"

namespace rocesim {

DeadlockDetector::DeadlockDetector(const DeadlockParams& p, const std::vector<int64_t>& lossless, Engine& engine,
                                   Network& net)
    : p_(p), engine_(engine), net_(net), lossless_(lossless.begin(), lossless.end()) {
  const auto& sws = net.switches();
  std::map<const Node*, uint32_t> index;
  uint32_t slots = 0;
  for (uint32_t s = 0; s < sws.size(); ++s) {
    index[sws[s].get()] = s;
    base_.push_back(slots);
    slots += static_cast<uint32_t>(sws[s]->num_ports()) * 8u;
  }
  slot_.assign(slots, UINT32_MAX);
  for (uint32_t s = 0; s < sws.size(); ++s) {
    for (uint16_t port = 0; port < sws[s]->num_ports(); ++port) {
      const LinkEnd& l = sws[s]->link(port);
      if (!l.peer->is_switch()) {
        continue;
      }
      for (int64_t c : lossless) {
        slot_[queue_index(s, port, static_cast<int>(c))] = static_cast<uint32_t>(queues_.size());
        queues_.push_back({sws[s].get(), port, static_cast<int>(c), index.at(l.peer), l.peer_port, -1, Time()});
      }
    }
  }
  if (p_.detect_after > Time() && !queues_.empty()) {
    engine.watch(this, p_.detect_after / 4);
  }
}

Time DeadlockDetector::look(Time now) {
  find_cycles(now);
  return stopped_ ? Time::max() : now + p_.detect_after / 4;
}

void DeadlockDetector::find_cycles(Time now) {
  std::vector<char> stuck(queues_.size(), 0);
  bool any = false;
  for (size_t i = 0; i < queues_.size(); ++i) {
    Queue& q = queues_[i];
    const int64_t sent = q.sw->sent_packets(q.port, q.prio);
    const bool paused = q.sw->pause_state(q.port).paused_mask(now) >> q.prio & 1u;
    if (sent != q.sent || q.sw->queued_bytes(q.port, q.prio) == 0 || !paused) {
      q.sent = sent;
      q.moved = now;
    }
    stuck[i] = now - q.moved >= p_.detect_after;
    any |= stuck[i];
  }
  if (!any) {
    return;
  }
  // A stuck queue waits on each stuck queue of the switch it feeds that holds packets it sent, if that switch
  // is what pauses it. Those packets are queued on the priority they came in on, or on another if Tagger moved
  // them (switch/tagger.hpp): every lossless queue of the next switch is looked at.
  const auto& sws = net_.switches();
  const auto next = [&](uint32_t v, auto&& fn) {
    const Queue& q = queues_[v];
    const Switch& b = *sws[q.peer];
    if (!b.pausing_upstream(q.peer_port, q.prio)) {
      return;
    }
    for (uint16_t r = 0; r < b.num_ports(); ++r) {
      for (int c : lossless_) {
        const uint32_t w = slot_[queue_index(q.peer, r, c)];
        if (w == UINT32_MAX || !stuck[w]) {
          continue;
        }
        bool holds = false;
        b.for_each_queued(r, c, [&](uint16_t in, int in_prio) { holds |= in == q.peer_port && in_prio == q.prio; });
        if (holds) {
          fn(w);
        }
      }
    }
  };
  for (const auto& cycle : one_cycle_per_component(static_cast<uint32_t>(queues_.size()), stuck, next)) {
    if (std::find(reported_.begin(), reported_.end(), cycle) != reported_.end()) {
      continue;
    }
    reported_.push_back(cycle);
    DeadlockReport r;
    r.detected_at = now;
    r.priority = queues_[cycle.front()].prio;
    for (uint32_t v : cycle) {
      const Queue& q = queues_[v];
      r.formed_at = std::max(r.formed_at, q.moved);
      r.queues.push_back(q.sw->name() + ":" + std::to_string(q.port));
    }
    found_.push_back(std::move(r));
  }
  if (!found_.empty() && p_.action == "stop") {
    stopped_ = true;
    engine_.request_stop();
  }
}

}  // namespace rocesim
