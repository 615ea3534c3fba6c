// Event-queue throughput: a hold model (pop one event, push one at a random later time) at several queue
// sizes, the access pattern of a packet simulator. Reports events per second.
#include <benchmark/benchmark.h>

#include <barrier>
#include <thread>
#include <vector>

#include "rocesim/core/calendar_queue.hpp"
#include "rocesim/core/event_queue.hpp"
#include "rocesim/core/rng.hpp"

namespace {

struct Sink final : rocesim::EventHandler {
  Sink() : rocesim::EventHandler(0) {}
  uint64_t n = 0;
  void handle_event(uint32_t, uint64_t arg) override { n += arg; }
};

template <typename Queue>
void BM_EventQueueHold(benchmark::State& state) {
  Queue q;
  rocesim::Rng rng(1, "bench");
  Sink sink;
  const auto size = static_cast<size_t>(state.range(0));
  for (size_t i = 0; i < size; ++i) {
    q.push(rocesim::Time::ps(static_cast<int64_t>(rng.below(1'000'000))), &sink, 0, i, i);
  }
  uint64_t key = size;
  for (auto _ : state) {
    const rocesim::Event e = q.pop();
    e.handler()->handle_event(e.kind(), e.arg);
    q.push(e.t + rocesim::Time::ps(static_cast<int64_t>(1 + rng.below(1'000'000))), &sink, 0, e.arg, key++);
  }
  state.SetItemsProcessed(state.iterations());
  benchmark::DoNotOptimize(sink.n);
}
// Heaps of arity 2, 4 and 8 against the calendar queue (the simulator's), compared in one run. The hold times are
// uniform over 1 us, about a link delay: the near future the calendar is built for.
BENCHMARK(BM_EventQueueHold<rocesim::BasicEventQueue<2>>)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);
BENCHMARK(BM_EventQueueHold<rocesim::BasicEventQueue<4>>)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);
BENCHMARK(BM_EventQueueHold<rocesim::BasicEventQueue<8>>)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);
BENCHMARK(BM_EventQueueHold<rocesim::CalendarQueue>)->Arg(64)->Arg(1024)->Arg(16384)->Arg(262144);

// The partitioned engine's barrier (std::barrier): one phase with state.range(0) threads meeting (the others
// spawned here). What a window costs the engine beyond its events (bench/project uses it).
void BM_BarrierPhase(benchmark::State& state) {
  const auto threads = static_cast<int>(state.range(0));
  uint64_t phases = 0;
  auto completion = [&]() noexcept { ++phases; };
  std::barrier<decltype(completion)> barrier(threads, completion);
  const auto rounds = static_cast<uint64_t>(state.max_iterations);
  std::vector<std::jthread> others;
  for (int t = 1; t < threads; ++t) {
    others.emplace_back([&] {
      for (uint64_t i = 0; i < rounds; ++i) {
        barrier.arrive_and_wait();
      }
    });
  }
  for (auto _ : state) {
    barrier.arrive_and_wait();
  }
  benchmark::DoNotOptimize(phases);
}
BENCHMARK(BM_BarrierPhase)->Arg(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
