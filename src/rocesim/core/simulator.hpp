// The simulation kernel: a clock, an event queue and a run loop. One Simulator per simulation; nothing is
// global, so several simulations can run in one process.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "rocesim/core/calendar_queue.hpp"
#include "rocesim/core/rng.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

struct RunProgress {
  Time now;
  Time stop;
  uint64_t events;
};

// An event kind, checked when the program is compiled: every kind a component schedules is a constant below
// CalendarQueue::kKinds (the wheel keeps a kind in six bits), so none is cut short in a Release build.
class EventKind {
 public:
  template <class K>
  consteval EventKind(K kind) : v_(static_cast<uint32_t>(kind)) {  // NOLINT: implicit from each kind enumerator
    if (v_ >= CalendarQueue::kKinds) {
      throw "an event kind must be below CalendarQueue::kKinds";
    }
  }
  constexpr uint32_t value() const { return v_; }

 private:
  uint32_t v_;
};

class Simulator {
 public:
  explicit Simulator(uint64_t seed) : seed_(seed) { queue_.reserve(1 << 16); }
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Time now() const { return now_; }
  uint64_t seed() const { return seed_; }
  uint64_t events() const { return events_; }

  // Before the run: keep events up to `span` ahead on the event wheel (see CalendarQueue::ensure_horizon).
  void ensure_horizon(Time span) { queue_.ensure_horizon(span); }
  // How far ahead of the clock events go on the wheel rather than into the heap.
  Time horizon() const { return Time::ps(static_cast<int64_t>(queue_.buckets()) << CalendarQueue::kShift); }

  void at(Time t, EventHandler* h, EventKind kind, uint64_t arg = 0) { queue_.push(t, h, kind.value(), arg); }
  void after(Time d, EventHandler* h, EventKind kind, uint64_t arg = 0) { queue_.push(now_ + d, h, kind.value(), arg); }

  // A random stream for the component at `path`, independent of every other component's stream.
  Rng rng(std::string_view path) const { return Rng(seed_, path); }

  // Runs events with time <= stop (or until the queue is empty, or request_stop()). `progress` is called about
  // every `progress_every` events. Returns true if the queue drained before `stop`.
  bool run(Time stop, const std::function<void(const RunProgress&)>& progress = {}, uint64_t progress_every = 1 << 18);

  // Ends the run after the current event (e.g. when every flow has finished).
  void request_stop() { stop_requested_ = true; }

  // Work that keeps the run going: each message not yet complete and each application not yet finished holds
  // the run once; when the last hold is released, the run ends after the current event. (The one count all
  // nodes share: a parallel engine would keep one per partition and end when all reach zero.)
  void hold() { ++held_; }
  void release() {
    if (--held_ == 0) {
      request_stop();
    }
  }
  int64_t held() const { return held_; }

 private:
  CalendarQueue queue_;
  Time now_;
  uint64_t events_ = 0;
  uint64_t seed_;
  bool stop_requested_ = false;
  int64_t held_ = 0;
};

}  // namespace rocesim
