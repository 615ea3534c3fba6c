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
  // a handler may start loading the memory that event will touch. Contract: only prefetches; reads nothing that
  // could change and changes nothing, so results never depend on it.
  virtual void prefetch(uint32_t kind, uint64_t arg) const {}

 protected:
  ~EventHandler() = default;
};

struct Event {
  Time t;
  uint64_t seq_kind;  // insertion sequence << 16 | kind: ties at equal t run in insertion order
  EventHandler* handler;
  uint64_t arg;
  uint32_t kind() const { return static_cast<uint32_t>(seq_kind & 0xFFFF); }
  bool before(const Event& o) const { return t < o.t || (t == o.t && seq_kind < o.seq_kind); }
};
static_assert(sizeof(Event) == 32, "events stay compact");

// Contract: pop() returns events in (time, insertion order). The storage grows geometrically and is never
// shrunk, so a steady-state simulation allocates nothing per event. `Arity` children per node: 4 measured best
// (bench/event_queue_bench.cpp compares 2, 4 and 8; docs/performance.md).
template <size_t Arity>
class BasicEventQueue {
 public:
  void reserve(size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }

  void push(Time t, EventHandler* h, uint32_t kind, uint64_t arg) {
    heap_.push_back(Event{t, (next_seq_++ << 16) | (kind & 0xFFFF), h, arg});
    sift_up(heap_.size() - 1);
  }

  // Pushes an event that already has its sequence number (from another queue that shares the numbering).
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
  uint64_t next_seq_ = 0;
};

using EventQueue = BasicEventQueue<4>;

}  // namespace rocesim
