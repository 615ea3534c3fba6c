// The partitioned engine: the network cut into partitions (partitioner.hpp), each with its own simulator (event
// queue, clock, hold count) and packet pool, run side by side on threads in conservative windows.
//
// Windows: every window ends at a multiple of the fabric's lookahead L, the least latency of any link between
// two units (fabric_lookahead), and starts at the earliest pending event. A frame sent in a window arrives at
// least L after it was sent, so no partition's window can receive an event from another partition's same window:
// the partitions run a window independently, then meet at a barrier, where frames that crossed a cut are handed
// over (net/channel.hpp). Barrier windows rather than null messages: with a handful of partitions per machine
// and every partition exchanging frames with most others in every window, one barrier per window costs less than
// a null message per pair of partitions per window, and the windows are the same for every cut.
//
// Same results for every cut: ties are ordered by keys that do not depend on the cut (Simulator), each partition
// runs its events in that order, and the run ends at the first window boundary where no partition holds it (the
// last message complete) or at the stop time, boundaries being multiples of L whatever the cut.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/simulator.hpp"
#include "rocesim/engine/partitioner.hpp"
#include "rocesim/net/channel.hpp"
#include "rocesim/net/packet.hpp"

namespace rocesim {

// The `engine` section of a scenario: how the run is executed, never what it computes.
struct EngineParams {
  std::string threads;              // a number 1..kMaxThreads, or auto (the machine's cores)
  std::string partitions;           // a number, or auto (one per thread)
  std::vector<std::string> assign;  // the cut, given: per partition, the nodes in it (names, or prefixes with *)
  bool profile = false;             // engine.json: how the run's work was shared out
  static const Schema<EngineParams>& schema();
};
inline constexpr int kMaxThreads = 1024;
// The thread count `threads` names (auto: the machine's cores). Throws std::invalid_argument on anything else.
int resolve_threads(const std::string& threads);

// How a run's work was shared out between partitions and windows (engine.json, docs/outputs.md). The counts do
// not depend on the threads, only on the cut; the times measure the machine.
struct EngineProfile {
  struct Part {
    uint64_t events = 0;
    uint64_t received = 0;  // frames that crossed a cut into it
  };
  struct Thread {
    double busy_s = 0;  // running its partitions' windows
    double sync_s = 0;  // at the barrier: waiting for the others, and deciding the next window
  };
  std::vector<Part> parts;
  std::vector<Thread> threads;
  uint64_t windows = 0;
  // Per window, the most events any one partition ran, summed over the windows: the run's critical path with a
  // thread per partition and free synchronisation.
  uint64_t critical_events = 0;
  // Per window, the events of the busiest thread (its partitions' sum), summed: the same with these threads.
  uint64_t critical_thread_events = 0;
};

// Something that looks at the whole network while the run goes (a time series, the PFC deadlock detector).
// Contract: look(now) runs between windows, when every partition has run its events due before `now` and none due
// at or after it, so what it sees does not depend on the cut. It may read any node and change none; it may end the
// run (Engine::request_stop). It returns when it next wants to look, later than `now` (Time::max(): never). Looks
// happen while the run goes on: not once no partition holds it.
class Observer {
 public:
  virtual Time look(Time now) = 0;

 protected:
  ~Observer() = default;
};

class Engine {
 public:
  // `cut`: the partitions; `threads`: at most that many run at once (partition p on thread p mod threads, or on
  // another that has finished its own).
  Engine(uint64_t seed, Partitioning cut, int threads);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine();

  size_t partitions() const { return parts_.size(); }
  int threads() const { return threads_; }
  const Partitioning& cut() const { return cut_; }
  uint32_t partition_of(uint32_t graph_node) const { return cut_.node_part[graph_node]; }
  Simulator& sim(size_t p) { return parts_[p]->sim; }
  const Simulator& sim(size_t p) const { return parts_[p]->sim; }
  PacketPool& pool(size_t p) { return parts_[p]->pool; }
  Outboxes* outboxes(size_t p) { return parts_.size() > 1 ? &parts_[p]->out : nullptr; }

  // Runs until `stop` (events due at it included), until no partition holds the run at a window boundary, or
  // until request_stop(). `progress` is called at window boundaries, about every `progress_every` events.
  void run(Time stop, const std::function<void(const RunProgress&)>& progress, uint64_t progress_every);
  // Ends the run at the next window boundary (from the progress callback, or an observer).
  void request_stop() { stop_requested_ = true; }
  // `o` looks first at `first` (before the run; the engine does not own it).
  void watch(Observer* o, Time first) { observers_.push_back({o, first}); }

  // After a run, the same in every partition: where the run ended, and the events run in all partitions.
  Time now() const { return parts_[0]->sim.now(); }
  uint64_t events() const;
  int64_t held() const;
  // Frames handed from one partition to another, and windows run (for docs/performance.md).
  uint64_t crossings() const;
  uint64_t windows() const { return windows_; }
  EngineProfile profile() const;

 private:
  struct Partition {
    Partition(uint64_t seed, uint64_t* sources, size_t parts) : sim(seed, sources), out(parts) {}
    Simulator sim;
    PacketPool pool;
    Outboxes out;
    uint64_t received = 0;
    uint64_t events_at_boundary = 0;   // events() where the last window ended
    std::atomic<uint64_t> claimed{0};  // the last window a thread took it for (Engine::claim)
  };
  // The frames other partitions sent to partition p in the window before: into its pool and queue.
  void receive(size_t p);
  // Between windows, on one thread: what every partition did decides the next window (or the end).
  void between_windows();
  // Adds the window just run to the critical-path counts.
  void count_window();
  void work(int thread);
  // Takes partition p for this window: false if another thread has.
  bool claim(size_t p);
  void run_partition(size_t p);

  Partitioning cut_;
  int threads_;
  uint64_t sources_ = 0;
  std::vector<std::unique_ptr<Partition>> parts_;
  // The run in progress.
  Time stop_;
  Time window_end_;
  bool done_ = false;
  bool stop_requested_ = false;
  Time ended_;
  Time boundary_;  // where the last window ended (where the run starts, before the first)
  struct Watch {
    Observer* observer;
    Time next;
  };
  std::vector<Watch> observers_;
  std::function<void(const RunProgress&)> progress_;
  uint64_t progress_every_ = 0;
  uint64_t next_report_ = 0;
  uint64_t windows_ = 0;
  uint64_t critical_events_ = 0;
  uint64_t critical_thread_events_ = 0;
  std::vector<uint64_t> thread_events_;       // per thread, in the window just run
  std::vector<EngineProfile::Thread> times_;  // per thread
  std::vector<std::exception_ptr> errors_;    // per thread
};

}  // namespace rocesim
