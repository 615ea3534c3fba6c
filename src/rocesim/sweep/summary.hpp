// sweep/summary.csv: one row per run of a sweep, its grid values, seed, state and key results.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "rocesim/core/text.hpp"
#include "rocesim/sweep/manifest.hpp"

namespace rocesim {

// The key results taken from each run's summary.json, as (column, JSON pointer) pairs in column order.
struct SummaryColumn {
  const char* column;
  const char* pointer;
};
extern const SummaryColumn kSweepColumns[];
extern const size_t kSweepColumnCount;

// A run's status: that of its folder's `state` (ok, partial, stale, missing), or `failed` where `exit_codes`
// holds a non-zero exit status for a run whose folder holds no finished run.
std::string run_status(RunState state, const SweepRun& run, const std::map<std::string, int>& exit_codes);

// Columns: run, one per grid key, seed, status (run_status), then kSweepColumns; the result columns are empty
// unless the status is `ok` or `partial`.
std::string sweep_summary_csv(const Manifest& m, const std::string& sweep_dir,
                              const std::map<std::string, int>& exit_codes = {});

// `rocesim compare`: the key results (kSweepColumns) of runs, named, side by side, with each run's ratio to the
// first where both are numbers; then, for each collective operation of summary.json's collectives_by_op, its bus
// bandwidth and time per call. `runs`: (name, summary.json).
std::string compare_table(const std::vector<std::pair<std::string, nlohmann::json>>& runs);

}  // namespace rocesim
