#include "rocesim/sweep/sweep.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rocesim/core/error.hpp"

namespace rocesim {

Manifest plan_sweep(const SweepPlan& plan, const ResolveScenario& resolve,
                    const std::function<void(size_t, size_t)>& checking) {
  Manifest m;
  m.rocesim = plan.rocesim;
  m.scenario = std::filesystem::absolute(plan.scenario).lexically_normal().string();
  m.sets = plan.sets;
  for (const std::string& g : plan.grid) {
    m.axes.push_back(parse_grid_axis(g));
  }
  if (!plan.seeds.empty()) {
    m.seeds = parse_seeds(plan.seeds);
  }
  const std::vector<GridPoint> points = expand_grid(m.axes, m.seeds);
  const std::string abs_dir = std::filesystem::absolute(plan.out_dir).lexically_normal().string();
  const int width = std::max<int>(4, static_cast<int>(std::to_string(points.size() - 1).size()));
  for (size_t i = 0; i < points.size(); ++i) {
    if (checking) {
      checking(i, points.size());
    }
    SweepRun r;
    r.name = fmt::format("{:0{}}", i, width);
    r.point = points[i];
    std::vector<std::string> sets = plan.sets;
    for (const std::string& s : r.point.sets()) {
      sets.push_back(s);
    }
    try {
      r.hash = scenario_hash(resolve(sets, r.point.seed));
    } catch (const InputError& e) {
      // A value from the grid names the grid, not --set.
      if (e.file().rfind("--set", 0) == 0) {
        for (const auto& [k, v] : r.point.values) {
          if (e.key() == k || e.file() == "--set " + k + "=" + v) {
            throw InputError("--grid", 0, k + "=" + v, e.problem());
          }
        }
      }
      throw;
    }
    r.argv = {m.rocesim, "run", m.scenario};
    for (const std::string& s : sets) {
      r.argv.push_back("--set");
      r.argv.push_back(s);
    }
    if (r.point.seed) {
      r.argv.push_back("--seed");
      r.argv.push_back(std::to_string(*r.point.seed));
    }
    r.argv.insert(r.argv.end(), {"-o", abs_dir + "/runs/" + r.name, "-q"});
    m.runs.push_back(std::move(r));
  }
  return m;
}

std::string slurm_script(const Manifest& m, const std::string& abs_dir) {
  std::string s = "#!/bin/bash\n";
  s += "# A rocesim sweep as a Slurm job array: task I runs run I of manifest.json (skipped if already complete).\n";
  s += "# Submit: sbatch " + abs_dir + "/sweep.slurm     Afterwards: rocesim sweep --collect " + abs_dir + "\n";
  if (m.runs.size() > 1001) {
    s += "# More than 1001 tasks: Slurm's default MaxArraySize (1001) must be raised, or submit with --array ranges.\n";
  }
  s += "#SBATCH --job-name=rocesim-sweep\n";
  s += fmt::format("#SBATCH --array=0-{}\n", m.runs.size() - 1);
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  std::string log_dir = abs_dir;  // Slurm expands %-patterns in --output: a literal % is %%
  for (size_t i = 0; (i = log_dir.find('%', i)) != std::string::npos; i += 2) {
    log_dir.insert(i, "%");
  }
  s += "#SBATCH --output=\"" + log_dir + "/logs/slurm-%a.log\"\n";
  s += "set -euo pipefail\n";
  s += "exec " + shell_quote(m.rocesim) + " sweep --task \"${SLURM_ARRAY_TASK_ID:?set by Slurm}\" " +
       shell_quote(abs_dir) + "\n";
  return s;
}

std::string parallel_commands(const Manifest& m, const std::string& abs_dir) {
  std::string s;
  for (size_t i = 0; i < m.runs.size(); ++i) {
    s += fmt::format("{} sweep --task {} {} > {} 2>&1\n", shell_quote(m.rocesim), i, shell_quote(abs_dir),
                     shell_quote(abs_dir + "/logs/" + m.runs[i].name + ".log"));
  }
  return s;
}

Manifest read_manifest(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  std::ifstream in(path);
  if (!in) {
    throw InputError(path, 0, "", "no sweep manifest here (rocesim sweep writes one)");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return Manifest::parse(ss.str(), path);
}

}  // namespace rocesim
