// A server's CPU as the kernel network stack uses it: a number of cores at one clock, each running the work
// given to it in order (a connection's protocol processing stays on one core, as receive-side scaling and
// socket affinity keep it).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rocesim/core/units.hpp"

namespace rocesim {

// Contract: work runs on a core after everything queued on it before, never before `now`; time is counted in
// whole picoseconds, each piece rounded up. busy() is the core time spent so far by everything run.
class HostCpu {
 public:
  HostCpu(int64_t cores, double ghz) : free_(static_cast<size_t>(std::max<int64_t>(cores, 1))), ghz_(ghz) {}

  int64_t cores() const { return static_cast<int64_t>(free_.size()); }
  double ghz() const { return ghz_; }
  // How long `cycles` take on one core.
  Time duration(double cycles) const { return Time::ps(static_cast<int64_t>(std::ceil(cycles * 1000.0 / ghz_))); }
  // Runs `cycles` on `core` (taken modulo the core count); returns when they are done.
  Time run(uint64_t core, double cycles, Time now) {
    Time& f = free_[core % free_.size()];
    const Time d = duration(cycles);
    f = std::max(f, now) + d;
    busy_ += d;
    return f;
  }
  Time busy() const { return busy_; }

 private:
  std::vector<Time> free_;  // per core: when it has finished what it was given
  double ghz_;
  Time busy_;
};

}  // namespace rocesim
