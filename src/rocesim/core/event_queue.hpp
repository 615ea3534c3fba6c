// The event queue: a 4-ary min-heap of compact 32-byte event records.
#pragma once

#include <cstdint>
#include <vector>

#include "rocesim/core/units.hpp"

namespace rocesim {

// Anything that receives events.
// Contract: handle_event runs on the simulator's thread at the event's time; it may schedule new events at
// the current time or later, never earlier. `kind` and `arg` are the values given to schedule().
class EventHandler {
 public:
  virtual void handle_event(uint32_t kind, uint64_t arg) = 0;
  // Called a couple of events before handle_event(kind, arg) runs (not always, and never with other effects):
  // a handler may start loading the memory that event will touch. Contract: only prefetches; reads only its own
  // state (a server's host, interconnect and applications count as one) and changes nothing, so results never
  // depend on it.
  virtual void prefetch(uint32_t kind, uint64_t arg) const {}

  // The tie-break key of the next event this handler schedules: its source number (Simulator::new_source) in the
  // top bits, then how many events it has scheduled.
  uint64_t next_key() const { return next_key_; }

 protected:
  explicit EventHandler(uint64_t source) : next_key_(source) {}
  ~EventHandler() = default;

 private:
  friend class Simulator;
  uint64_t next_key_;
};

// An event: its time, its tie-break key and where it goes. Among equal times events run in key order; the
// simulator makes keys that do not depend on what else runs (Simulator::at), so a partitioned run orders ties as
// the sequential one does.
struct Event {
  // A user-space address fits 48 bits (x86-64 and AArch64): the bits above hold the kind (and, on the calendar
  // queue's wheel, a time offset), and an argument may carry a field there too (txdone_arg).
  static constexpr int kAddressBits = 48;
  static constexpr uint64_t kAddressMask = (uint64_t{1} << kAddressBits) - 1;
  Time t;
  uint64_t key;
  uint64_t word;  // the handler's address | kind << kAddressBits
  uint64_t arg;
  static uint64_t pack(EventHandler* h, uint32_t kind) {
    return reinterpret_cast<uint64_t>(h) | uint64_t{kind & 0xFFFF} << kAddressBits;
  }
  EventHandler* handler() const { return reinterpret_cast<EventHandler*>(word & kAddressMask); }
  uint32_t kind() const { return static_cast<uint32_t>(word >> kAddressBits); }
  bool before(const Event& o) const { return t < o.t || (t == o.t && key < o.key); }
};
static_assert(sizeof(Event) == 32, "events stay compact");

// Contract: pop() returns events in (time, key) order; keys are unique. The storage grows geometrically and is
// never shrunk, so a steady-state simulation allocates nothing per event. `Arity` children per node: 4 measured
// best (bench/event_queue_bench.cpp compares 2, 4 and 8; docs/performance.md).
template <size_t Arity>
class BasicEventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }

  void push(Time t, EventHandler* h, uint32_t kind, uint64_t arg, uint64_t key) {
    push(Event{t, key, Event::pack(h, kind), arg});
  }
  void push(const Event& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }

  Event pop() {
    Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      sift_down(last);
    }
    return out;
  }

 private:
  static constexpr size_t kArity = Arity;

  void sift_up(size_t i) {
    const Event e = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!e.before(heap_[parent])) {
        break;
      }
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  // Places `e` (the former last element) starting from the root.
  void sift_down(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = i * kArity + 1;
      if (first >= n) {
        break;
      }
      size_t best = first;
      const size_t end = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < end; ++c) {
        if (heap_[c].before(heap_[best])) {
          best = c;
        }
      }
      if (!heap_[best].before(e)) {
        break;
      }
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
};

using EventQueue = BasicEventQueue<4>;

}  // namespace rocesim
