// The barrier the partitioned engine's threads meet at after each window (engine.hpp).
//
// Windows are short (a microsecond of simulated time, a millisecond or less of work), so the time a thread takes
// to wake up counts: std::barrier's waiters sleep in the kernel at once, and on the project's virtual machine
// each wake-up cost 100-200 us, a seventh of a 1,024-GPU all-reduce's run on two threads (docs/performance.md).
// Here a waiter spins first (with the CPU's pause hint), and sleeps (std::atomic::wait) only if the others take
// longer than the spin; with more threads than cores it sleeps at once, as spinning would hold a core the others
// need.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace rocesim {

class SpinBarrier {
 public:
  // `threads` meet at each phase; waiters spin about `spins` pause instructions before they sleep.
  SpinBarrier(int threads, uint32_t spins) : threads_(threads), left_(threads), spins_(spins) {}

  // Contract: every one of the threads calls it once per phase; the last to arrive runs `completion` before any
  // thread leaves, and what each thread wrote before it arrived is visible to all after they leave.
  template <class F>
  void arrive_and_wait(F&& completion) {
    const uint32_t phase = phase_.load(std::memory_order_acquire);
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      completion();
      left_.store(threads_, std::memory_order_relaxed);
      phase_.store(phase + 1, std::memory_order_release);
      phase_.notify_all();
      return;
    }
    for (uint32_t i = 0; i < spins_; ++i) {
      if (phase_.load(std::memory_order_acquire) != phase) {
        return;
      }
      pause();
    }
    while (phase_.load(std::memory_order_acquire) == phase) {
      phase_.wait(phase, std::memory_order_acquire);
    }
  }

  // Spins worth doing for `threads` threads: about 50 us when every thread has a core, none otherwise.
  static uint32_t spins_for(int threads) {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 || static_cast<unsigned>(threads) > cores ? 0 : 1u << 16;
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  const int threads_;
  std::atomic<int> left_;
  std::atomic<uint32_t> phase_{0};
  const uint32_t spins_;
};

}  // namespace rocesim
