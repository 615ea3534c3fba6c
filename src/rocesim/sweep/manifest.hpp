// A sweep folder's manifest.json: the scenario, the grid, and per run its overrides, seed, command and the hash
// of the scenario it resolves to. Local runs, Slurm array tasks, GNU parallel lines and `--collect` all read it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/sweep/grid.hpp"

namespace rocesim {

struct SweepRun {
  std::string name;  // zero-padded index: its folder is runs/NAME, its log logs/NAME.log
  GridPoint point;
  std::vector<std::string> argv;  // the `rocesim run ... -o SWEEP/runs/NAME -q` command, absolute paths
  std::string hash;               // scenario_hash() of the scenario this run resolves to
};

struct Manifest {
  std::string rocesim;            // the program, absolute
  std::string scenario;           // the scenario file, absolute
  std::vector<std::string> sets;  // overrides every run gets (`sweep --set`), before the grid's
  std::vector<GridAxis> axes;
  std::vector<int64_t> seeds;  // empty: every run has the scenario's seed
  std::vector<SweepRun> runs;

  std::string to_json() const;
  // Throws InputError naming `file` and the JSON key that is missing or wrong.
  static Manifest parse(const std::string& text, const std::string& file);
};

// FNV-1a (64 bits) of the resolved scenario's canonical JSON (sorted keys), as 16 hex digits: equal scenarios
// have equal hashes, so a finished run whose summary.json holds another scenario is seen to be stale.
std::string scenario_hash(const nlohmann::json& resolved);

// What a run folder holds: a finished run of this scenario, an interrupted one, a run of another scenario (the
// grid or the scenario file changed since), a summary.json that is not one rocesim wrote (damaged: redone like a
// missing one), or nothing.
enum class RunState { kComplete, kPartial, kStale, kDamaged, kMissing };
// The run folder's summary.json, parsed: null if there is none, discarded (is_discarded()) if it is not JSON.
nlohmann::json run_summary(const std::string& sweep_dir, const SweepRun& run);
// What a run folder holding `summary` (as run_summary gives it) holds.
RunState state_of(const nlohmann::json& summary, const SweepRun& run);
inline RunState run_state(const std::string& sweep_dir, const SweepRun& run) {
  return state_of(run_summary(sweep_dir, run), run);
}
const char* to_string(RunState s);

// Single-quoted for a POSIX shell.
std::string shell_quote(const std::string& s);

}  // namespace rocesim
