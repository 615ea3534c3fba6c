#include "rocesim/engine/engine.hpp"

#include <algorithm>
#include <barrier>
#include <charconv>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "rocesim/net/node.hpp"

namespace rocesim {

namespace {

// A whole number in [lo, hi], or nullopt.
std::optional<int64_t> whole(const std::string& v, int64_t lo, int64_t hi) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || n < lo || n > hi) {
    return std::nullopt;
  }
  return n;
}

}  // namespace

const Schema<EngineParams>& EngineParams::schema() {
  static const Schema<EngineParams> s = [] {
    Schema<EngineParams> sc("engine", "how the run is executed: the same results for every setting");
    sc.add(&EngineParams::threads, "threads", "1",
           "threads that run partitions side by side: a number from 1 to 1024, or auto (the machine's cores); "
           "--threads overrides it",
           [](const std::string& v) -> std::optional<std::string> {
             if (v == "auto" || whole(v, 1, kMaxThreads)) {
               return std::nullopt;
             }
             return "must be a whole number from 1 to " + std::to_string(kMaxThreads) + ", or auto";
           })
        .add(&EngineParams::partitions, "partitions", "auto",
             "parts the network is cut into (at links; a switch, or a server with its NICs, is never cut): a "
             "number no larger than the switches and servers, or auto (one per thread)",
             [](const std::string& v) -> std::optional<std::string> {
               if (v == "auto" || whole(v, 1, 1 << 20)) {
                 return std::nullopt;
               }
               return "must be a whole number of at least 1, or auto";
             })
        .add(&EngineParams::assign, "assign", "[]",
             "the cut, given: a list with an entry per partition, each the names of its nodes separated by spaces "
             "(a switch, a server with all its NICs, a NIC, or a prefix ending in * for every name it begins); "
             "every node in exactly one partition, no server split. Empty: engine.partitions cuts automatically")
        .add(&EngineParams::profile, "profile", "false",
             "write engine.json: events per partition, windows, the critical path's events and each thread's time "
             "busy and at the barrier (describes the machine's run, so it differs between thread counts)");
    return sc;
  }();
  return s;
}

int resolve_threads(const std::string& threads) {
  if (threads == "auto") {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  const auto n = whole(threads, 1, kMaxThreads);
  if (!n) {
    throw std::invalid_argument("threads must be a whole number from 1 to " + std::to_string(kMaxThreads) +
                                ", or auto");
  }
  return static_cast<int>(*n);
}

Engine::Engine(uint64_t seed, Partitioning cut, int threads)
    : cut_(std::move(cut)), threads_(std::max(1, std::min<int>(threads, static_cast<int>(cut_.parts)))) {
  for (size_t p = 0; p < cut_.parts; ++p) {
    parts_.push_back(std::make_unique<Partition>(seed, &sources_, cut_.parts));
  }
}

Engine::~Engine() = default;

uint64_t Engine::events() const {
  uint64_t n = 0;
  for (const auto& p : parts_) {
    n += p->sim.events();
  }
  return n;
}

int64_t Engine::held() const {
  int64_t n = 0;
  for (const auto& p : parts_) {
    n += p->sim.held();
  }
  return n;
}

uint64_t Engine::crossings() const {
  uint64_t n = 0;
  for (const auto& p : parts_) {
    n += p->received;
  }
  return n;
}

void Engine::receive(size_t p) {
  Partition& me = *parts_[p];
  for (size_t s = 0; s < parts_.size(); ++s) {
    if (s == p) {
      continue;
    }
    Outbox& box = parts_[s]->out.filled(p);
    for (const Crossing& c : box.frames) {
      Packet* q = me.pool.acquire(c.frame.kind);
      *q = c.frame;
      q->next = nullptr;
      q->ext = nullptr;
      if (c.ext >= 0) {
        me.pool.ext(q) = box.exts[static_cast<size_t>(c.ext)];
      }
      me.sim.at_keyed(c.at, c.peer, kEvArrive, reinterpret_cast<uint64_t>(q), c.key);
    }
    me.received += box.frames.size();
    box.clear();
  }
}

EngineProfile Engine::profile() const {
  EngineProfile out;
  for (const auto& p : parts_) {
    out.parts.push_back({p->sim.events(), p->received});
  }
  out.threads = times_;
  out.windows = windows_;
  out.critical_events = critical_events_;
  out.critical_thread_events = critical_thread_events_;
  return out;
}

void Engine::count_window() {
  uint64_t most = 0;
  std::fill(thread_events_.begin(), thread_events_.end(), 0);
  for (size_t p = 0; p < parts_.size(); ++p) {
    Partition& part = *parts_[p];
    const uint64_t ran = part.sim.events() - part.events_at_boundary;
    part.events_at_boundary = part.sim.events();
    most = std::max(most, ran);
    thread_events_[p % static_cast<size_t>(threads_)] += ran;
  }
  critical_events_ += most;
  critical_thread_events_ += *std::max_element(thread_events_.begin(), thread_events_.end());
}

void Engine::between_windows() {
  count_window();
  Time earliest = Time::max();
  for (auto& p : parts_) {
    earliest = std::min(earliest, p->out.earliest_filling());
    p->out.flip();
  }
  Time last = Time();
  bool stop = stop_requested_;
  for (auto& p : parts_) {
    last = std::max(last, p->sim.now());
    stop = stop || p->sim.stop_requested();
    earliest = std::min(earliest, p->sim.next_time());
  }
  for (const std::exception_ptr& e : errors_) {
    stop = stop || e != nullptr;
  }
  ended_ = last;
  Time look = Time::max();
  if (!stop && held() > 0) {
    for (Watch& w : observers_) {
      if (w.next <= boundary_) {
        w.next = w.observer->look(boundary_);
      }
      look = std::min(look, w.next);
    }
    if (stop_requested_) {  // an observer ended the run: its look was the run's last act
      stop = true;
      ended_ = boundary_;
    }
  }
  if (progress_) {
    if (const uint64_t n = events(); n >= next_report_) {
      next_report_ = n + progress_every_;
      try {
        progress_(RunProgress{last, stop_, n});
      } catch (...) {
        errors_[0] = std::current_exception();
        stop = true;
      }
      stop = stop || stop_requested_;
    }
  }
  if (stop || held() == 0 || (earliest == Time::max() && look == Time::max())) {
    done_ = true;
    return;
  }
  if (std::min(earliest, look) > stop_) {
    ended_ = stop_;
    done_ = true;
    return;
  }
  const int64_t l = cut_.lookahead.ps();
  const Time grid = earliest == Time::max() ? Time::max() : Time::ps((earliest.ps() / l + 1) * l);
  window_end_ = std::min({grid, look, stop_ + Time::ps(1)});
  boundary_ = window_end_;
  ++windows_;
}

bool Engine::claim(size_t p) { return parts_[p]->claimed.exchange(windows_, std::memory_order_relaxed) != windows_; }

void Engine::run_partition(size_t p) {
  receive(p);
  parts_[p]->sim.run_window(window_end_);
}

void Engine::work(int thread) {
  // Its own partitions first, then those the others have not started, from the last: a thread on a faster core,
  // or with less to do, takes on more of the window. Which thread runs a partition changes nothing it computes.
  for (size_t p = static_cast<size_t>(thread); p < parts_.size(); p += static_cast<size_t>(threads_)) {
    if (claim(p)) {
      run_partition(p);
    }
  }
  for (size_t p = parts_.size(); p-- > 0;) {
    if (claim(p)) {
      run_partition(p);
    }
  }
}

void Engine::run(Time stop, const std::function<void(const RunProgress&)>& progress, uint64_t progress_every) {
  stop_ = stop;
  progress_ = progress;
  progress_every_ = progress_every;
  next_report_ = events() + progress_every;
  done_ = false;
  stop_requested_ = false;
  errors_.assign(static_cast<size_t>(threads_), nullptr);
  thread_events_.assign(static_cast<size_t>(threads_), 0);
  times_.resize(static_cast<size_t>(threads_));
  boundary_ = Time();
  for (auto& p : parts_) {
    p->sim.set_windowed(true);
    p->sim.clear_stop();
    boundary_ = std::max(boundary_, p->sim.now());
  }
  between_windows();
  // Each thread runs its partitions' windows, then waits for the others; the last to arrive decides the next
  // window (the barrier's completion), so every decision sees every partition at the same boundary.
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  auto run_thread = [&](int t, auto&& meet) {
    EngineProfile::Thread& time = times_[static_cast<size_t>(t)];
    while (!done_) {
      const Clock::time_point start = Clock::now();
      try {
        work(t);
      } catch (...) {
        errors_[static_cast<size_t>(t)] = std::current_exception();
      }
      const Clock::time_point ran = Clock::now();
      meet();
      time.busy_s += seconds(ran - start);
      time.sync_s += seconds(Clock::now() - ran);
    }
  };
  if (threads_ == 1) {
    run_thread(0, [this] { between_windows(); });
  } else {
    auto completion = [this]() noexcept { between_windows(); };
    std::barrier<decltype(completion)> barrier(threads_, completion);
    auto meet = [&] { barrier.arrive_and_wait(); };
    std::vector<std::jthread> others;
    for (int t = 1; t < threads_; ++t) {
      others.emplace_back([&, t] { run_thread(t, meet); });
    }
    run_thread(0, meet);
  }
  // Frames of the last window stay in flight, as arrivals pending in their receivers' queues.
  for (size_t p = 0; p < parts_.size(); ++p) {
    receive(p);
  }
  for (auto& p : parts_) {
    p->sim.finish(ended_);
    p->sim.set_windowed(false);
  }
  progress_ = {};
  for (const std::exception_ptr& e : errors_) {
    if (e) {
      std::rethrow_exception(e);
    }
  }
}

}  // namespace rocesim
