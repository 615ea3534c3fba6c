// Runs a sweep's commands as child processes, at most `jobs` at a time, each with its output in a log file.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rocesim/sweep/manifest.hpp"

namespace rocesim {

struct PoolStatus {
  size_t total = 0;    // runs to do
  size_t done = 0;     // finished, failed included
  size_t failed = 0;   // exited with a non-zero status or were killed
  size_t running = 0;  // started and not yet finished
  double elapsed_s = 0;
};

// Contract: starts `runs[i].argv` for every i in `todo`, each in a process group of its own with stdout and
// stderr to `log_dir/NAME.log`, keeps `jobs` of them running until all have ended or `stop()` says to start no
// more; then each running one gets one SIGTERM (it writes its results so far, marked partial) and is waited for.
// `progress` is called when a run starts or ends. Returns each started run's exit status (128 + signal if
// killed; 127 if it could not start). Each run has kSweepParentEnv set to this process's pid.
// The environment variable that gives each run its sweep's pid (the run ends when that process does).
inline constexpr const char* kSweepParentEnv = "ROCESIM_SWEEP_PARENT";

std::map<std::string, int> run_pool(const std::vector<SweepRun>& runs, const std::vector<size_t>& todo,
                                    const std::string& log_dir, int jobs, const std::function<bool()>& stop,
                                    const std::function<void(const PoolStatus&)>& progress);

}  // namespace rocesim
