#include "rocesim/core/simulator.hpp"

namespace rocesim {

bool Simulator::run(Time stop, const std::function<void(const RunProgress&)>& progress, uint64_t progress_every) {
  stop_requested_ = false;
  uint64_t next_report = events_ + progress_every;
  Event e{};
  while (!queue_.empty() && !stop_requested_) {
    if (!queue_.pop_if_due(stop, e)) {
      now_ = stop;
      source_ = &setup_key_;
      return false;
    }
    // Second stage of the prefetch pipeline: the queue loaded the handler and packet of this event seven events
    // ago; five events ahead, the handler can follow pointers from them (e.g. to the ports a packet will use).
    // (12 and 5 replaced 6 and 3: faster in short ft16 runs, neutral over the whole suite; docs/performance.md.)
    if (const CalendarQueue::Slim* n = queue_.ahead(5)) {
      n->handler()->prefetch(n->kind(), n->arg);
    }
    dispatch(e);
    if (progress && events_ >= next_report) {
      source_ = &setup_key_;
      next_report = events_ + progress_every;
      progress(RunProgress{now_, stop, events_});
    }
  }
  source_ = &setup_key_;
  return queue_.empty();
}

}  // namespace rocesim

namespace rocesim {

void Simulator::run_window(Time end) {
  const Time last = end - Time::ps(1);
  Event e{};
  while (!stop_requested_ && !queue_.empty() && queue_.pop_if_due(last, e)) {
    if (const CalendarQueue::Slim* n = queue_.ahead(5)) {
      n->handler()->prefetch(n->kind(), n->arg);
    }
    dispatch(e);
  }
  source_ = &setup_key_;
}

}  // namespace rocesim
