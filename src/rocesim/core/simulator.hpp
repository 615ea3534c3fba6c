// The simulation kernel: a clock, an event queue and a run loop. One Simulator per simulation; nothing is
// global, so several simulations can run in one process.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
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

// Ties: events due at the same time run in the order of their keys. An event's key is its source's number and
// how many events that source had scheduled before it, the source being the handler whose event was running when
// it was scheduled (or the set-up, source 0, outside the run). A handler's events and its own count depend only on
// the events it ran, never on what ran elsewhere in between, so the order of ties does not depend on how a
// network is cut into partitions: what a partitioned engine needs to give the sequential run's results.
class Simulator {
 public:
  // Bits of a key that count a source's events: 2^40 (10^12) events per source, then 23 bits of source number
  // (8 million handlers) and the top bit for at_end_of_now.
  static constexpr int kCountBits = 40;
  static constexpr uint64_t kLastKey = uint64_t{1} << 63;

  explicit Simulator(uint64_t seed) : sources_(&own_sources_), seed_(seed) { queue_.reserve(1 << 16); }
  // One partition's simulator of a partitioned run: sources are numbered from `shared_sources`, the count all
  // partitions' handlers draw from in the order they are made.
  Simulator(uint64_t seed, uint64_t* shared_sources) : sources_(shared_sources), seed_(seed) {
    queue_.reserve(1 << 16);
  }
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Time now() const { return now_; }
  // The key of the event running now (0 outside the run): with now(), where a record written now falls in the
  // order of a run of one partition (engine/journal.hpp).
  uint64_t event_key() const { return key_; }
  uint64_t seed() const { return seed_; }
  uint64_t events() const { return events_; }

  // Before the run: keep events up to `span` ahead on the event wheel (see CalendarQueue::ensure_horizon).
  void ensure_horizon(Time span) { queue_.ensure_horizon(span); }
  // How far ahead of the clock events go on the wheel rather than into the heap.
  Time horizon() const { return Time::ps(static_cast<int64_t>(queue_.buckets()) << CalendarQueue::kShift); }

  void at(Time t, EventHandler* h, EventKind kind, uint64_t arg = 0) {
    queue_.push(t, h, kind.value(), arg, (*source_)++);
  }
  void after(Time d, EventHandler* h, EventKind kind, uint64_t arg = 0) { at(now_ + d, h, kind, arg); }
  // An event that runs after every other event due now, for work that gathers what this picosecond brings (e.g.
  // one reallocation for every transfer starting now): its key has the top bit set, above every source.
  void at_end_of_now(EventHandler* h, EventKind kind, uint64_t arg = 0) {
    queue_.push(now_, h, kind.value(), arg, (*source_)++ | kLastKey);
  }

  // The first key of a new source of events, for an EventHandler's constructor. Sources are numbered in the
  // order they are made, which the scenario alone decides.
  uint64_t new_source() {
    if (*sources_ + 1 >= kLastKey >> kCountBits) {
      throw std::length_error("more than 8 million event sources");
    }
    return ++*sources_ << kCountBits;
  }
  // The key of an event scheduled now that another partition will queue (a frame across a cut link).
  uint64_t take_key() { return (*source_)++; }
  // Queues an event whose key was drawn in another partition (take_key); the engine, between windows.
  void at_keyed(Time t, EventHandler* h, EventKind kind, uint64_t arg, uint64_t key) {
    queue_.push(t, h, kind.value(), arg, key);
  }

  // For the partitioned engine (engine/engine.hpp). In windowed mode the release of the last hold does not stop a
  // run: the engine ends it at a window boundary where no partition holds it. run_window runs the events due
  // before `end` and leaves the clock at the last one; next_time is the earliest pending event's time
  // (Time::max() if none); finish sets the clock where the whole run ended.
  void set_windowed(bool on) { windowed_ = on; }
  void run_window(Time end);
  Time next_time() { return queue_.empty() ? Time::max() : queue_.top().t; }
  void finish(Time now) { now_ = now; }
  bool stop_requested() const { return stop_requested_; }
  void clear_stop() { stop_requested_ = false; }

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
    if (--held_ == 0 && !windowed_) {
      request_stop();
    }
  }
  int64_t held() const { return held_; }

 private:
  CalendarQueue queue_;
  // Runs one event.
  void dispatch(const Event& e) {
    now_ = e.t;
    key_ = e.key;
    ++events_;
    EventHandler* h = e.handler();
    source_ = &h->next_key_;
    h->handle_event(e.kind(), e.arg);
  }
  uint64_t setup_key_ = 0;          // source 0: events scheduled outside the run
  uint64_t* source_ = &setup_key_;  // the next key of the handler running now
  uint64_t own_sources_ = 0;
  uint64_t* sources_;
  bool windowed_ = false;
  Time now_;
  uint64_t key_ = 0;
  uint64_t events_ = 0;
  uint64_t seed_;
  bool stop_requested_ = false;
  int64_t held_ = 0;
};

}  // namespace rocesim
