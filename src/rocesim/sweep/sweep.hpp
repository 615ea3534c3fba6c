// `rocesim sweep`: a scenario run over a grid of parameter values and seeds, into one folder:
//   DIR/manifest.json   what each run is (manifest.hpp)
//   DIR/runs/NAME/      each run's result files, as `rocesim run -o` writes them
//   DIR/logs/NAME.log   each run's terminal output
//   DIR/summary.csv     one row per run (summary.hpp)
// or, for a cluster, DIR/sweep.slurm (a Slurm job array) or DIR/commands.txt (GNU parallel's input), each line
// or array task running one run through `rocesim sweep --task I DIR`.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/sweep/manifest.hpp"

namespace rocesim {

struct SweepPlan {
  std::string rocesim;            // this program, absolute
  std::string scenario;           // the scenario file
  std::string out_dir;            // the sweep folder
  std::vector<std::string> sets;  // overrides for every run
  std::vector<std::string> grid;  // the --grid arguments
  std::string seeds;              // the --seeds argument; empty: the scenario's seed
};

// Resolves the scenario with these overrides and seed, as `rocesim run` would (throws InputError); returns the
// resolved scenario, as summary.json's `scenario` holds it.
using ResolveScenario =
    std::function<nlohmann::json(const std::vector<std::string>& sets, std::optional<int64_t> seed)>;

// Expands the grid and resolves every run's scenario before any runs, so that a bad key or value stops the
// sweep with one error (InputError naming `--grid`, `--set` or the scenario file) and nothing written.
// `checking(i, n)` is called before run i of n is resolved.
Manifest plan_sweep(const SweepPlan& plan, const ResolveScenario& resolve,
                    const std::function<void(size_t, size_t)>& checking = {});

// The Slurm job array script and the GNU parallel command file for a sweep in `abs_dir`.
std::string slurm_script(const Manifest& m, const std::string& abs_dir);
std::string parallel_commands(const Manifest& m, const std::string& abs_dir);

// Reads DIR/manifest.json (InputError if it is missing or malformed).
Manifest read_manifest(const std::string& dir);

}  // namespace rocesim
