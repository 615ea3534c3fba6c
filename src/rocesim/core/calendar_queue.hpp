// The simulator's event queue: a calendar (timing wheel) for the near future, a heap for the far future.
//
// Almost every event of a packet simulation is due within a few microseconds (a serialisation time, a link
// delay, a pacing gap), so a wheel of short buckets holds them: a push appends to its bucket, and a bucket is
// sorted once, when the clock reaches it. Events beyond the wheel's horizon (timeouts, far timers) wait in a
// 4-ary heap. A heap of all events costs a walk down log4(n) levels per event; here the per-event cost is an
// append, a share of a small sort and a pop from the back of a sorted array.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "rocesim/core/event_queue.hpp"

namespace rocesim {

// Contract: the same as BasicEventQueue: pop() returns events in (time, key) order, so swapping one for the
// other never changes a simulation. A push must not be earlier than the last event popped (the simulator
// never schedules into the past); kinds are below 64 and handlers live at addresses below 2^48 (x86-64 and
// AArch64 user space). Storage grows and is kept, so a steady state allocates nothing.
class CalendarQueue {
 public:
  // Bucket width 2^10 ps (1.02 ns) and by default 2,048 buckets: a horizon of 2.1 us, a link delay plus a frame
  // with room to spare; later events (timers) wait in the heap. At 20,000 events per simulated microsecond (a
  // 1,024-host fat-tree under load) a bucket sorts about 20 events. Measured with bench/event_queue_bench.cpp and
  // the suite (docs/performance.md).
  static constexpr int kShift = 10;
  static constexpr size_t kMinBuckets = 2048;
  static constexpr size_t kMaxBuckets = size_t{1} << 20;  // 1.07 ms; 8 MiB of bucket heads
  static constexpr uint32_t kKinds = 64;
  // A wheel event's word, low to high: the handler's address, the kind, the time's offset within its bucket.
  static constexpr int kKindShift = Event::kAddressBits;
  static constexpr int kOffsetShift = kKindShift + std::countr_zero(kKinds);

  // An event on the wheel, in 24 bytes instead of an Event's 32: the handler's address (48 bits), the kind (6
  // bits) and the time's offset within its bucket (kShift bits) in one word, then the argument and the key. The
  // rest of the time is the bucket's number, so it is not stored. A 1,024-host fabric keeps about 16,000 events
  // on the wheel per simulated microsecond (a link delay's worth), so their size decides how much of the cache
  // the wheel takes.
  struct Slim {
    uint64_t word;
    uint64_t arg;
    uint64_t key;
    EventHandler* handler() const { return reinterpret_cast<EventHandler*>(word & kAddress); }
    uint32_t kind() const { return static_cast<uint32_t>(word >> kKindShift) & (kKinds - 1); }
    uint32_t offset() const { return static_cast<uint32_t>(word >> kOffsetShift); }
  };

  CalendarQueue() { resize(kMinBuckets); }

  // Widens the wheel (while the queue is empty) so that events up to `span` ahead of the clock skip the heap: the
  // network asks for twice its longest link delay plus a frame, so that every arrival lands on the wheel.
  void ensure_horizon(Time span) {
    const auto want = static_cast<uint64_t>(std::max<int64_t>(span.ps(), 0) >> kShift) + 1;
    size_t n = buckets_;
    while (n < want && n < kMaxBuckets) {
      n *= 2;
    }
    if (n != buckets_ && empty()) {
      resize(n);
    }
  }
  size_t buckets() const { return buckets_; }

  void reserve(size_t n) {
    nodes_.reserve(n + kChunk);
    next_.reserve(n / kChunk + 1);
    far_.reserve(n / 16);
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  void push(Time t, EventHandler* h, uint32_t kind, uint64_t arg, uint64_t key) {
    assert(kind < kKinds && (reinterpret_cast<uint64_t>(h) & ~kAddress) == 0);
    ++size_;
    const uint64_t b = bucket_of(t);
    if ((b > cur_ || !open_) && b < cur_ + buckets_) [[likely]] {
      const size_t slot = b & mask_;
      Slot& s = slots_[slot];
      if (s.end % kChunk == 0) {  // the last chunk is full, or the bucket empty
        append_chunk(s, slot);
      }
      // Field by field from registers: an event built on the stack and copied in 16-byte halves waited for its
      // 8-byte stores (a store-forwarding stall, measured as most of push's time).
      Slim& n = nodes_[s.end++];
      n.word = reinterpret_cast<uint64_t>(h) | uint64_t{kind} << kKindShift | offset_bits(t);
      n.arg = arg;
      n.key = key;
      return;
    }
    push_rare(Event{t, key, Event::pack(h, kind), arg}, b);
  }

  // The earliest event (the queue must not be empty).
  Event top() {
    prepare();
    return late_first() ? late_.front() : unpack(cur_sorted_.back());
  }

  // Events run in the order of the sorted open bucket, so the queue knows what runs a few events from now: pop()
  // starts loading the handler and (when the argument is a pointer, e.g. a packet) the object of the event
  // kLookahead places ahead, so that its memory is in cache by the time it runs. A prefetch never faults, so a
  // non-pointer argument costs nothing.
  static constexpr size_t kLookahead = 12;
  static void prefetch(const Slim& e) {
    __builtin_prefetch(e.handler());
    // An address in the argument's low 48 bits (others may hold more: see txdone_arg).
    if (const uint64_t a = e.arg & Event::kAddressMask; a > (uint64_t{1} << 32)) {
      __builtin_prefetch(reinterpret_cast<const void*>(a));
    }
  }

  // The event `k` places after the next one to pop, if the open bucket holds it (else nullptr).
  const Slim* ahead(size_t k) const {
    return cur_sorted_.size() > k ? &cur_sorted_[cur_sorted_.size() - 1 - k] : nullptr;
  }

  // Pops the earliest event into `e` if it is due at or before `stop` (the queue must not be empty); otherwise
  // leaves it and returns false. The simulator's loop: one look at the top instead of top() then pop().
  bool pop_if_due(Time stop, Event& e) {
    prepare();
    const bool late = late_first();
    if ((late ? late_.front().t : time_of(cur_sorted_.back())) > stop) {
      return false;
    }
    --size_;
    if (cur_sorted_.size() > kLookahead) {
      prefetch(cur_sorted_[cur_sorted_.size() - 1 - kLookahead]);
    }
    if (late) {
      std::pop_heap(late_.begin(), late_.end(), After{});
      e = late_.back();
      late_.pop_back();
    } else {
      e = unpack(cur_sorted_.back());
      cur_sorted_.pop_back();
    }
    return true;
  }

  Event pop() {
    Event e{};
    pop_if_due(Time::max(), e);
    return e;
  }

 private:
  // The wheel: each bucket a list of chunks of kChunk events, from one pool. A push appends to its bucket's last
  // chunk, or takes the chunk the last opened bucket freed last (still in cache): pushes write memory in cache,
  // not a per-bucket array last touched a wheel turn ago. Opening a bucket reads whole chunks, whose loads go
  // out together, instead of chasing a list one event (and one miss) at a time.
  static constexpr uint64_t kAddress = Event::kAddressMask;
  static constexpr uint64_t kOffset = (uint64_t{1} << kShift) - 1;
  static_assert(kOffsetShift + kShift == 64 && std::has_single_bit(kKinds),
                "a Slim's word holds address, kind and offset");
  static uint64_t offset_bits(Time t) { return (static_cast<uint64_t>(t.ps()) & kOffset) << kOffsetShift; }
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr uint32_t kChunk = 16;  // 384 bytes: six cache lines
  struct Slot {
    uint32_t head = kNil;  // the first chunk of the bucket's list
    uint32_t end = 0;      // one past the last event (a node index; its chunk is the list's last)
  };
  Time time_of(const Slim& e) const { return Time::ps(base_ | static_cast<int64_t>(e.offset())); }
  Event unpack(const Slim& e) const { return Event{time_of(e), e.key, Event::pack(e.handler(), e.kind()), e.arg}; }
  // Whether the earliest event is in the late heap rather than at the back of the open bucket.
  bool late_first() const {
    if (late_.empty()) {
      return false;
    }
    if (cur_sorted_.empty()) {
      return true;
    }
    const Slim& b = cur_sorted_.back();
    const Time tb = time_of(b);
    return late_.front().t < tb || (late_.front().t == tb && late_.front().key < b.key);
  }
  struct After {
    bool operator()(const Event& a, const Event& b) const { return b.before(a); }
  };
  static uint64_t bucket_of(Time t) { return static_cast<uint64_t>(t.ps()) >> kShift; }

  // One past the last event of chunk c of slot s, whose next chunk is `after`: the last chunk ends at s.end,
  // the others are full.
  const Slim* chunk_end(uint32_t c, uint32_t after, const Slot& s) const {
    return after == kNil ? nodes_.data() + s.end : nodes_.data() + (size_t{c} + 1) * kChunk;
  }
  // A chunk (the most recently freed: still in cache) at the end of the slot's list.
  void append_chunk(Slot& s, size_t slot) {
    if (free_ == kNil) [[unlikely]] {
      grow_chunks();
    }
    const uint32_t c = free_;
    free_ = next_[c];
    next_[c] = kNil;
    if (s.head == kNil) {
      s.head = c;
      bitmap_[slot >> 6] |= uint64_t{1} << (slot & 63);
    } else {
      next_[(s.end - 1) / kChunk] = c;
    }
    s.end = c * kChunk;
  }
  // Out of line, so that push() stays small enough to inline: more free chunks, as many again as there are.
  [[gnu::noinline]] void grow_chunks() {
    const size_t n = next_.size();
    const size_t add = std::max<size_t>(n, 256);
    if ((n + add) * kChunk > UINT32_MAX) {
      throw std::length_error("event queue: too many pending events");
    }
    nodes_.resize((n + add) * kChunk);
    next_.resize(n + add);
    for (size_t i = n + add; i-- > n;) {
      next_[i] = free_;
      free_ = static_cast<uint32_t>(i);
    }
  }

  // Into the bucket being drained (kept apart in a small heap, merged by pop), or beyond the horizon.
  [[gnu::noinline]] void push_rare(const Event& e, uint64_t b) {
    if (b <= cur_ && open_) {
      late_.push_back(e);
      std::push_heap(late_.begin(), late_.end(), After{});
    } else {
      far_.push(e);
    }
  }

  // Makes the bucket holding the earliest event the open one, sorted latest-first so that pop takes the back.
  void prepare() {
    if (cur_sorted_.empty() && late_.empty()) [[unlikely]] {
      open_next();
    }
  }
  [[gnu::noinline]] void open_next() {
    // The open bucket is drained: move to the next non-empty one, on the wheel or in the far heap.
    uint64_t next = next_wheel_bucket();
    if (!far_.empty()) {
      next = std::min(next, bucket_of(far_.top().t));
    }
    cur_ = next;
    base_ = static_cast<int64_t>(cur_ << kShift);
    open_ = true;
    // Events that waited in the far heap join the bucket's own; the sort orders them all by (time, key).
    while (!far_.empty() && bucket_of(far_.top().t) == cur_) {
      const Event e = far_.pop();
      cur_sorted_.push_back(Slim{e.word | offset_bits(e.t), e.arg, e.key});
    }
    const size_t slot = cur_ & mask_;
    if (bitmap_[slot >> 6] & (uint64_t{1} << (slot & 63))) {
      Slot& s = slots_[slot];
      size_t n = cur_sorted_.size();
      for (uint32_t c = s.head; c != kNil; c = next_[c]) {
        n += static_cast<size_t>(chunk_end(c, next_[c], s) - &nodes_[size_t{c} * kChunk]);
      }
      if (n >= kRadixMin) {
        radix_sort_with_chunks(s, n);
      } else {
        drain_chunks(s, [&](const Slim* from, const Slim* to) { cur_sorted_.insert(cur_sorted_.end(), from, to); });
        sort_latest_first();
      }
      s = Slot{};
      bitmap_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
    } else {
      sort_latest_first();
    }
    const size_t n = cur_sorted_.size();
    for (size_t k = 1; k <= kLookahead && k <= n; ++k) {
      prefetch(cur_sorted_[n - k]);
    }
    // Under a dense load (busy buckets) the next bucket's chunks, written about a link delay ago, have mostly left
    // the cache: load them a bucket ahead. Its chunk links stay in cache, so the walk is cheap. Under a light
    // load they are still in cache, and the walk measured a small loss. (Written here, not in a helper: GCC drops
    // a call to a function that only prefetches.)
    if (const uint64_t after = n >= kDense ? next_wheel_bucket() : UINT64_MAX; after != UINT64_MAX) {
      const Slot& s = slots_[after & mask_];
      for (uint32_t c = s.head; c != kNil; c = next_[c]) {
        const char* p = reinterpret_cast<const char*>(&nodes_[size_t{c} * kChunk]);
        const char* end = reinterpret_cast<const char*>(chunk_end(c, next_[c], s));
        for (; p < end; p += 64) {
          __builtin_prefetch(p);
        }
      }
    }
  }

  // Whether `a` runs after `b`: later, or as late with a larger key.
  static bool runs_after(const Slim& a, const Slim& b) {
    return a.offset() > b.offset() || (a.offset() == b.offset() && a.key > b.key);
  }
  // Sorts the open bucket by (time, key), latest first. Its times differ only in their low kShift bits, so a radix
  // sort on those (two passes of five bits) does it without comparisons: a comparison sort of a few dozen events
  // mispredicts a branch several times per event; ties, rare, are then ordered by key. Few events: insertion sort.
  void sort_latest_first() {
    const size_t n = cur_sorted_.size();
    if (n < kRadixMin) {
      insertion_sort(cur_sorted_.data(), n);
      return;
    }
    static_assert(kShift == 2 * kDigitBits, "two radix passes cover the offset within a bucket");
    scratch_.resize(n);
    radix_pass<false>(cur_sorted_.data(), scratch_.data(), n, 0);
    radix_pass<true>(scratch_.data(), cur_sorted_.data(), n, kDigitBits);
    order_ties(cur_sorted_.data(), n);
  }
  static void insertion_sort(Slim* a, size_t n) {
    for (size_t i = 1; i < n; ++i) {
      const Slim e = a[i];
      size_t j = i;
      for (; j > 0 && runs_after(e, a[j - 1]); --j) {
        a[j] = a[j - 1];
      }
      a[j] = e;
    }
  }
  // Whether two events of the open bucket are due at the same picosecond (their offset bits agree).
  static bool same_time(const Slim& a, const Slim& b) { return ((a.word ^ b.word) >> kOffsetShift) == 0; }
  // After the radix sort (latest first by time), each run of equal times sorted by key, largest first. Most
  // events have no tie, so the scan is one comparison of neighbours per event.
  static void order_ties(Slim* a, size_t n) {
    for (size_t i = 1; i < n; ++i) {
      if (!same_time(a[i - 1], a[i])) [[likely]] {
        continue;
      }
      const size_t first = i - 1;
      size_t end = i + 1;
      while (end < n && same_time(a[end - 1], a[end])) {
        ++end;
      }
      const auto larger_key = [](const Slim& x, const Slim& y) { return x.key > y.key; };
      if (end - first <= 16) {
        insertion_sort(a + first, end - first);
      } else if (!std::is_sorted(a + first, a + end, larger_key)) {
        // A burst at one picosecond (a collective's ranks starting together); often in order already, as its
        // events were pushed by events that ran in key order.
        std::sort(a + first, a + end, larger_key);
      }
      i = end;
    }
  }
  // Calls f(first, end) on each chunk of slot s in order, and frees the chunk.
  template <typename F>
  void drain_chunks(const Slot& s, F&& f) {
    for (uint32_t c = s.head; c != kNil;) {
      const uint32_t after = next_[c];
      f(&nodes_[size_t{c} * kChunk], chunk_end(c, after, s));
      next_[c] = free_;  // freed chunks are reused first, while they are still in cache
      free_ = c;
      c = after;
    }
  }
  // The radix sort of sort_latest_first() for a bucket of n events: those already in cur_sorted_ (from the far
  // heap) then the chunks of slot s, which it frees. It reads the chunks where they are instead of copying them
  // first, and counts both digits in one pass: three passes over the events instead of five.
  void radix_sort_with_chunks(Slot& s, size_t n) {
    static_assert(kShift == 2 * kDigitBits, "two digits: the word's offset bits");
    constexpr uint64_t kMask = (uint64_t{1} << kDigitBits) - 1;
    std::array<uint32_t, (1u << kDigitBits) + 1> lo{}, hi{};
    auto count = [&](const Slim* from, const Slim* to) {
      for (; from < to; ++from) {
        ++lo[((from->word >> kOffsetShift) & kMask) + 1];
        ++hi[(from->word >> (kOffsetShift + kDigitBits)) + 1];
      }
    };
    const size_t nfar = cur_sorted_.size();
    count(cur_sorted_.data(), cur_sorted_.data() + nfar);
    for (uint32_t c = s.head; c != kNil; c = next_[c]) {
      count(&nodes_[size_t{c} * kChunk], chunk_end(c, next_[c], s));
    }
    for (size_t d = 1; d < lo.size(); ++d) {
      lo[d] += lo[d - 1];
      hi[d] += hi[d - 1];
    }
    scratch_.resize(n);
    Slim* out = scratch_.data();
    auto scatter = [&](const Slim* from, const Slim* to) {
      for (; from < to; ++from) {
        out[lo[(from->word >> kOffsetShift) & kMask]++] = *from;
      }
    };
    scatter(cur_sorted_.data(), cur_sorted_.data() + nfar);
    drain_chunks(s, scatter);
    // The second digit, written reversed: latest first.
    cur_sorted_.resize(n);
    Slim* sorted = cur_sorted_.data();
    for (size_t i = 0; i < n; ++i) {
      sorted[n - 1 - hi[out[i].word >> (kOffsetShift + kDigitBits)]++] = out[i];
    }
    order_ties(sorted, n);
  }
  static constexpr size_t kRadixMin = 12;
  static constexpr size_t kDense = 12;  // events in a bucket from which the next one is prefetched
  static constexpr int kDigitBits = 5;
  // One stable counting pass, ascending, on the time digit at `shift`; the last pass writes its output reversed,
  // latest first.
  template <bool kReversed>
  static void radix_pass(const Slim* from, Slim* to, size_t n, int shift) {
    constexpr uint64_t kMask = (uint64_t{1} << kDigitBits) - 1;
    std::array<uint32_t, (1u << kDigitBits) + 1> start{};
    for (size_t i = 0; i < n; ++i) {
      ++start[((from[i].word >> (kOffsetShift + shift)) & kMask) + 1];
    }
    for (size_t d = 1; d < start.size(); ++d) {
      start[d] += start[d - 1];
    }
    for (size_t i = 0; i < n; ++i) {
      const uint32_t pos = start[(from[i].word >> (kOffsetShift + shift)) & kMask]++;
      to[kReversed ? n - 1 - pos : pos] = from[i];
    }
  }

  // The first non-empty bucket after the open one (or from cur_ before the first pop), or UINT64_MAX. The wheel
  // holds buckets cur_ .. cur_ + buckets_ - 1, each in slot (bucket mod buckets_); the bitmap marks non-empty
  // slots, scanned a 64-bit word at a time.
  uint64_t next_wheel_bucket() const {
    for (uint64_t b = open_ ? cur_ + 1 : cur_; b < cur_ + buckets_;) {
      const size_t slot = b & mask_;
      if (const uint64_t word = bitmap_[slot >> 6] >> (slot & 63)) {
        return b + static_cast<uint64_t>(__builtin_ctzll(word));
      }
      b += 64 - (slot & 63);
    }
    return UINT64_MAX;
  }

  void resize(size_t n) {
    buckets_ = n;
    mask_ = n - 1;
    slots_.assign(n, Slot{});
    bitmap_.assign(n / 64, 0);
  }
  std::vector<Slim> nodes_;     // kChunk per chunk
  std::vector<uint32_t> next_;  // per chunk: the next in its bucket, or in the free list
  uint32_t free_ = kNil;
  size_t buckets_ = 0;  // a power of two
  size_t mask_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint64_t> bitmap_;
  std::vector<Slim> cur_sorted_;  // the open bucket, latest first
  std::vector<Slim> scratch_;     // the radix sort's other buffer
  std::vector<Event> late_;       // pushed into the open bucket after it was sorted: a min-heap
  BasicEventQueue<4> far_;        // beyond the horizon when pushed
  uint64_t cur_ = 0;              // the open bucket's number (time >> kShift)
  int64_t base_ = 0;              // its first picosecond
  bool open_ = false;             // cur_ has been opened (false only before the first pop)
  size_t size_ = 0;
};

}  // namespace rocesim
