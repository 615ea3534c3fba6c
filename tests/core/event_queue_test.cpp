#include "rocesim/core/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "rocesim/core/calendar_queue.hpp"
#include "rocesim/core/rng.hpp"
#include "rocesim/core/simulator.hpp"

namespace rocesim {
namespace {
struct Recorder final : EventHandler {
  Recorder() : EventHandler(0) {}
  std::vector<std::pair<int64_t, uint64_t>> seen;
  Simulator* sim = nullptr;
  void handle_event(uint32_t, uint64_t arg) override { seen.push_back({sim ? sim->now().ps() : 0, arg}); }
};
}  // namespace

// Unique keys in no particular order (multiplication by an odd number is a bijection of 64-bit words).
uint64_t scrambled(uint64_t i) { return i * 0x9E3779B97F4A7C15u; }

TEST(EventQueue, PopsInTimeOrderAndTiesInKeyOrder) {
  EventQueue q;
  Recorder r;
  Rng rng(3, "t");
  std::vector<std::tuple<int64_t, uint64_t, uint64_t>> expect;
  for (uint64_t i = 0; i < 20000; ++i) {
    const int64_t t = static_cast<int64_t>(rng.below(500));  // many ties
    q.push(Time::ps(t), &r, 0, i, scrambled(i));
    expect.push_back({t, scrambled(i), i});
  }
  std::sort(expect.begin(), expect.end());
  for (const auto& [t, key, i] : expect) {
    ASSERT_FALSE(q.empty());
    const Event e = q.pop();
    ASSERT_EQ(e.t.ps(), t);
    ASSERT_EQ(e.arg, i);
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, KeepsKindAndHandler) {
  EventQueue q;
  Recorder r;
  q.push(Time::ns(1), &r, 0xABC, 7, 0);
  const Event e = q.pop();
  EXPECT_EQ(e.kind(), 0xABCu);
  EXPECT_EQ(e.handler(), &r);
}

TEST(Simulator, RunsEventsUpToStopAndAdvancesTheClock) {
  Simulator sim(1);
  Recorder r;
  r.sim = &sim;
  sim.at(Time::us(1), &r, 0, 1);
  sim.at(Time::us(3), &r, 0, 2);
  sim.at(Time::us(2), &r, 0, 3);
  EXPECT_FALSE(sim.run(Time::us(2)));
  ASSERT_EQ(r.seen.size(), 2u);
  EXPECT_EQ(r.seen[0], (std::pair<int64_t, uint64_t>{1'000'000, 1}));
  EXPECT_EQ(r.seen[1], (std::pair<int64_t, uint64_t>{2'000'000, 3}));
  EXPECT_EQ(sim.now(), Time::us(2));
  EXPECT_TRUE(sim.run(Time::us(10)));
  EXPECT_EQ(sim.events(), 3u);
}

namespace {
// Schedules a probe for itself at t = 10 us when its first event runs.
struct Prober final : EventHandler {
  Prober(Simulator& s, std::vector<char>& log, char name)
      : EventHandler(s.new_source()), sim(s), log(log), name(name) {}
  Simulator& sim;
  std::vector<char>& log;
  char name;
  void handle_event(uint32_t kind, uint64_t) override {
    if (kind == 0) {
      sim.at(Time::us(10), this, 1);
    } else {
      log.push_back(name);
    }
  }
};
// The order the probes of x and y run in when x's first event runs at `x_at` and y's at `y_at`.
std::string probe_order(Time x_at, Time y_at) {
  Simulator sim(1);
  std::vector<char> log;
  Prober x(sim, log, 'x'), y(sim, log, 'y');
  sim.at(x_at, &x, 0);
  sim.at(y_at, &y, 0);
  sim.run(Time::ms(1));
  return std::string(log.begin(), log.end());
}
}  // namespace

TEST(Simulator, TiesRunInTheOrderOfTheirSourcesNotTheOrderTheyWereScheduled) {
  // x was made first (the smaller source), so its probe runs first whichever of them scheduled first: what lets a
  // partition that sees only some of the sources order its ties as the whole simulation does.
  EXPECT_EQ(probe_order(Time::us(1), Time::us(2)), "xy");
  EXPECT_EQ(probe_order(Time::us(2), Time::us(1)), "xy");
}

TEST(Rng, StreamsAreDeterministicAndIndependentPerComponent) {
  Rng a(7, "switch.leaf0"), b(7, "switch.leaf0"), c(7, "switch.leaf1"), d(8, "switch.leaf0");
  int same_c = 0, same_d = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    same_c += x == c.next();
    same_d += x == d.next();
  }
  EXPECT_EQ(same_c, 0);
  EXPECT_EQ(same_d, 0);
}

TEST(Rng, UniformHasMeanOneHalf) {
  Rng r(1, "u");
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    sum += r.uniform();
  }
  // Standard error of the mean is sqrt(1/12/n) = 0.00065; allow 5 of them.
  EXPECT_NEAR(sum / n, 0.5, 0.0033);
}

}  // namespace rocesim

namespace rocesim {

// The calendar queue must pop exactly what the heap pops, in the same order, under the simulator's pattern of use:
// pushes interleaved with pops, never earlier than the last pop, many ties, some into the bucket being drained,
// some beyond the wheel's horizon, and gaps longer than the horizon with nothing due.
static void expect_same_sequence_as_heap(CalendarQueue& cal) {
  EventQueue heap;
  Rng rng(11, "calendar");
  Recorder r;
  const int64_t horizon = static_cast<int64_t>(cal.buckets()) << CalendarQueue::kShift;
  int64_t now = 0;
  uint64_t id = 0;
  auto push_both = [&](int64_t t) {
    cal.push(Time::ps(t), &r, static_cast<uint32_t>(id & 7), id, scrambled(id));
    heap.push(Time::ps(t), &r, static_cast<uint32_t>(id & 7), id, scrambled(id));
    ++id;
  };
  for (int i = 0; i < 64; ++i) {
    push_both(static_cast<int64_t>(rng.below(2000)));
  }
  uint64_t popped = 0, far = 0, same_time = 0;
  while (!heap.empty() && popped < 400'000) {
    ASSERT_FALSE(cal.empty());
    ASSERT_EQ(cal.size(), heap.size());
    Event a{};
    if (popped % 2) {
      a = cal.pop();
    } else {
      ASSERT_TRUE(cal.pop_if_due(Time::max(), a));
    }
    const Event b = heap.pop();
    ASSERT_EQ(a.t, b.t) << "pop " << popped;
    ASSERT_EQ(a.arg, b.arg) << "pop " << popped;
    ASSERT_EQ(a.kind(), b.kind());
    ++popped;
    now = a.t.ps();
    // Each pop schedules 0-2 events, mostly near (0 to a few ns: ties and the open bucket), some a link delay
    // away, a few beyond the horizon.
    const uint64_t n = popped < 300'000 ? rng.below(3) : rng.below(2);  // then drain
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t kind = rng.below(100);
      int64_t t = now;
      if (kind < 20) {
        same_time += 1;  // at the current time
      } else if (kind < 60) {
        t += static_cast<int64_t>(rng.below(3000));
      } else if (kind < 97) {
        t += 1'000'000 + static_cast<int64_t>(rng.below(100'000));
      } else {
        t += horizon + static_cast<int64_t>(rng.below(static_cast<uint64_t>(4 * horizon)));
        ++far;
      }
      push_both(t);
    }
    if (heap.empty() && popped < 300'000) {
      push_both(now + 10 * horizon);  // a long idle gap
    }
  }
  EXPECT_TRUE(cal.empty());
  EXPECT_GT(popped, 100'000u);
  EXPECT_GT(far, 1000u);
  EXPECT_GT(same_time, 1000u);
}

TEST(CalendarQueue, PopsTheSameSequenceAsTheHeapUnderInterleavedPushes) {
  CalendarQueue cal;
  expect_same_sequence_as_heap(cal);
}

TEST(CalendarQueue, AWiderWheelPopsTheSameSequenceAsTheHeap) {
  CalendarQueue cal;
  cal.ensure_horizon(Time::us(30));
  ASSERT_EQ(cal.buckets(), 32768u);  // 30 us / 1.024 ns = 29,297 buckets, rounded up to a power of two
  expect_same_sequence_as_heap(cal);
}

TEST(CalendarQueue, TheWheelWidensOnlyWhileEmptyAndNeverNarrows) {
  CalendarQueue q;
  EXPECT_EQ(q.buckets(), CalendarQueue::kMinBuckets);
  q.ensure_horizon(Time::ns(100));
  EXPECT_EQ(q.buckets(), CalendarQueue::kMinBuckets);
  Recorder r;
  q.push(Time::us(1), &r, 0, 1, 1);
  q.ensure_horizon(Time::us(10));  // events are pending: their slots would move
  EXPECT_EQ(q.buckets(), CalendarQueue::kMinBuckets);
  q.pop();
  q.ensure_horizon(Time::us(10));
  EXPECT_EQ(q.buckets(), 16384u);  // 10 us / 1.024 ns = 9,766
  q.ensure_horizon(Time::ms(100));
  EXPECT_EQ(q.buckets(), CalendarQueue::kMaxBuckets);
}

TEST(CalendarQueue, DenseBucketsWithTiesAndFarEventsPopInTheHeapsOrder) {
  // Dozens of events per 1 ns bucket (the radix-sorted case), many at equal picoseconds, some of them pushed
  // beyond the horizon first (they join their bucket from the far heap).
  CalendarQueue cal;
  EventQueue heap;
  Rng rng(5, "dense");
  Recorder r;
  const int64_t horizon = static_cast<int64_t>(cal.buckets()) << CalendarQueue::kShift;
  int64_t now = 0;
  uint64_t id = 0, popped = 0;
  for (int round = 0; round < 300; ++round) {
    for (int k = 0; k < 60; ++k) {
      int64_t t = now + static_cast<int64_t>(rng.below(4096));
      if (rng.below(3) == 0) {
        t &= ~int64_t{255};  // ties
      }
      if (k < 4) {
        t += 2 * horizon;  // far now, in a bucket that fills up later
      }
      cal.push(Time::ps(t), &r, 0, id, scrambled(id));
      heap.push(Time::ps(t), &r, 0, id, scrambled(id));
      ++id;
    }
    for (int k = 0; k < 56; ++k) {
      const Event a = cal.pop();
      const Event b = heap.pop();
      ASSERT_EQ(a.arg, b.arg) << "pop " << popped;
      ++popped;
      now = a.t.ps();
    }
  }
  while (!heap.empty()) {
    ASSERT_EQ(cal.pop().arg, heap.pop().arg);
  }
  EXPECT_TRUE(cal.empty());
}

TEST(CalendarQueue, BurstsAtOnePicosecondPopInKeyOrderWhateverOrderTheyWerePushedIn) {
  // Runs of 40 events due at one picosecond (a collective's ranks starting together), pushed with keys rising,
  // falling and scrambled, at the first, a middle and the last picosecond of their bucket, among single events.
  CalendarQueue cal;
  EventQueue heap;
  Recorder r;
  uint64_t id = 0;
  auto push_both = [&](int64_t t, uint64_t key) {
    cal.push(Time::ps(t), &r, 0, id, key);
    heap.push(Time::ps(t), &r, 0, id, key);
    ++id;
  };
  const int64_t bucket = int64_t{1} << CalendarQueue::kShift;
  const int64_t at[] = {5 * bucket, 5 * bucket + 300, 6 * bucket - 1};
  for (int64_t single = 5 * bucket; single < 6 * bucket; single += 97) {
    push_both(single, scrambled(id));
  }
  for (uint64_t k = 0; k < 40; ++k) {
    push_both(at[0], 1000 + k);             // rising: already in order
    push_both(at[1], 1000 - k);             // falling
    push_both(at[2], scrambled(k + 5000));  // scrambled
  }
  uint64_t popped = 0;
  while (!heap.empty()) {
    const Event a = cal.pop();
    const Event b = heap.pop();
    ASSERT_EQ(a.t, b.t) << "pop " << popped;
    ASSERT_EQ(a.key, b.key) << "pop " << popped;
    ++popped;
  }
  EXPECT_EQ(popped, id);
  EXPECT_TRUE(cal.empty());
}

TEST(CalendarQueue, PopIfDueLeavesALaterEventAndAnEarlierPushStillComesFirst) {
  CalendarQueue q;
  Recorder r;
  Event e{};
  q.push(Time::us(5), &r, 0, 1, 10);
  EXPECT_FALSE(q.pop_if_due(Time::us(4), e));  // opens the bucket of 5 us, pops nothing
  EXPECT_EQ(q.size(), 1u);
  q.push(Time::us(5), &r, 0, 2, 20);  // same time, larger key: after 1
  q.push(Time::us(3), &r, 0, 3, 30);  // earlier than the open bucket
  ASSERT_TRUE(q.pop_if_due(Time::us(4), e));
  EXPECT_EQ(e.arg, 3u);
  EXPECT_FALSE(q.pop_if_due(Time::us(4), e));
  ASSERT_TRUE(q.pop_if_due(Time::us(5), e));  // due exactly at the stop time
  EXPECT_EQ(e.arg, 1u);
  ASSERT_TRUE(q.pop_if_due(Time::us(5), e));
  EXPECT_EQ(e.arg, 2u);
  EXPECT_TRUE(q.empty());
}

TEST(CalendarQueue, TopIsThePopAndPushesAfterAPeekStillComeFirst) {
  // run() peeks at the top to compare it with the stop time, which opens the next bucket; an event pushed after
  // that, earlier than the peeked one, must still pop first.
  CalendarQueue q;
  Recorder r;
  q.push(Time::us(5), &r, 0, 1, 10);
  EXPECT_EQ(q.top().arg, 1u);
  q.push(Time::us(1), &r, 0, 2, 20);
  q.push(Time::us(5), &r, 0, 3, 30);
  EXPECT_EQ(q.top().arg, 2u);
  EXPECT_EQ(q.pop().arg, 2u);
  EXPECT_EQ(q.pop().arg, 1u);
  EXPECT_EQ(q.pop().arg, 3u);
  EXPECT_TRUE(q.empty());
}

TEST(CalendarQueue, AnEventPushedIntoTheOpenBucketWithASmallerKeyRunsBeforeItsTies) {
  // The bucket of 5 us is open (sorted) when the event of key 5 arrives at the same picosecond: it still runs
  // first, as it would have had it been pushed before the bucket opened.
  CalendarQueue q;
  Recorder r;
  q.push(Time::us(5), &r, 0, 1, 10);
  q.push(Time::us(5), &r, 0, 2, 20);
  EXPECT_EQ(q.pop().arg, 1u);
  q.push(Time::us(5), &r, 0, 3, 5);
  q.push(Time::us(5), &r, 0, 4, 30);
  EXPECT_EQ(q.pop().arg, 3u);
  EXPECT_EQ(q.pop().arg, 2u);
  EXPECT_EQ(q.pop().arg, 4u);
  EXPECT_TRUE(q.empty());
}

TEST(CalendarQueue, WheelEventsKeepTheirHandlerKindArgumentAndPicosecond) {
  // Wheel events pack handler, kind and the time's offset in its bucket into one word: every field must come back
  // whole, for the largest kind, every offset bit and an argument using all 64 bits.
  CalendarQueue q;
  Recorder a, b;
  const uint64_t big = ~uint64_t{0} - 5;
  q.push(Time::ps(1023), &a, CalendarQueue::kKinds - 1, big, big);  // the last picosecond of bucket 0
  q.push(Time::ps(1024), &b, 1, 7, 0);                              // the first of bucket 1
  q.push(Time::ps(5 * 1024 + 513), &a, 32, 9, 1);
  Event e = q.pop();
  EXPECT_EQ(e.t, Time::ps(1023));
  EXPECT_EQ(e.handler(), &a);
  EXPECT_EQ(e.kind(), CalendarQueue::kKinds - 1);
  EXPECT_EQ(e.arg, big);
  e = q.pop();
  EXPECT_EQ(e.t, Time::ps(1024));
  EXPECT_EQ(e.handler(), &b);
  EXPECT_EQ(e.kind(), 1u);
  e = q.pop();
  EXPECT_EQ(e.t, Time::ps(5 * 1024 + 513));
  EXPECT_EQ(e.kind(), 32u);
  EXPECT_EQ(e.arg, 9u);
}

}  // namespace rocesim
