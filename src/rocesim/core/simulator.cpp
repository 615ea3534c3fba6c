#include "rocesim/core/simulator.hpp"

namespace rocesim {

bool Simulator::run(Time stop, const std::function<void(const RunProgress&)>& progress, uint64_t progress_every) {
  stop_requested_ = false;
  uint64_t next_report = events_ + progress_every;
  while (!queue_.empty() && !stop_requested_) {
    if (queue_.top().t > stop) {
      now_ = stop;
      return false;
    }
    const Event e = queue_.pop();
    if (!queue_.empty()) {
      // Start loading what the next event will touch while this one runs: its handler and, when the argument
      // is a pointer (a packet, say), what it points to. A prefetch never faults, so a non-pointer costs nothing.
      const Event& next = queue_.top();
      __builtin_prefetch(next.handler);
      if (next.arg > (uint64_t{1} << 32)) {
        __builtin_prefetch(reinterpret_cast<const void*>(next.arg));
      }
    }
    now_ = e.t;
    ++events_;
    e.handler->handle_event(e.kind(), e.arg);
    if (progress && events_ >= next_report) {
      next_report = events_ + progress_every;
      progress(RunProgress{now_, stop, events_});
    }
  }
  return queue_.empty();
}

}  // namespace rocesim
