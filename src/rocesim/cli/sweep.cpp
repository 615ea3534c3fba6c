#include "rocesim/sweep/sweep.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/cli/interrupts.hpp"
#include "rocesim/core/error.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/io/output.hpp"
#include "rocesim/io/report_html.hpp"
#include "rocesim/sweep/runner.hpp"
#include "rocesim/sweep/summary.hpp"

namespace rocesim::cli {
namespace {

struct SweepArgs {
  std::vector<std::string> grid;
  std::string seeds, emit, collect, task_dir;
  int jobs = 1;
  int64_t task = -1;
};

// Writes DIR/summary.csv from the run folders; returns how many runs are not complete.
size_t collect_sweep(const Manifest& m, const std::string& dir, const std::map<std::string, int>& codes, bool quiet) {
  std::map<std::string, size_t> by_status;
  for (const SweepRun& r : m.runs) {
    ++by_status[run_status(run_state(dir, r), r, codes)];
  }
  write_whole(dir + "/summary.csv", sweep_summary_csv(m, dir, codes));
  // The overlay holds the first finished runs: a page of hundreds would not open.
  constexpr size_t kMaxOverlaid = 50;
  std::vector<nlohmann::json> reports;
  size_t left_out = 0;
  for (const SweepRun& r : m.runs) {
    const std::string run_dir = dir + "/runs/" + r.name;
    if (run_state(dir, r) == RunState::kComplete && std::filesystem::exists(run_dir + "/report.html")) {
      if (reports.size() == kMaxOverlaid) {
        ++left_out;
        continue;
      }
      std::string label = r.name;
      for (const auto& [k, v] : r.point.values) {
        label += " " + k.substr(k.rfind('.') + 1) + "=" + v;
      }
      if (r.point.seed) {
        label += " seed=" + std::to_string(*r.point.seed);
      }
      reports.push_back(run_report(run_dir, label));
    }
  }
  if (!reports.empty()) {
    write_whole(dir + "/report.html",
                report_html(reports, left_out == 0 ? std::string()
                                                   : fmt::format("The first {} finished runs of the sweep; {} more "
                                                                 "are left out (rocesim report RUN ... overlays any).",
                                                                 kMaxOverlaid, left_out)));
  }
  if (!quiet) {
    std::string counts;
    for (const auto& [status, n] : by_status) {
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, status);
    }
    fmt::print("rocesim sweep: {} runs ({}); {}/summary.csv{}\n", m.runs.size(), counts, dir,
               reports.empty() ? "" : ", report.html");
  }
  return m.runs.size() - by_status["ok"];
}

// `rocesim sweep --task I DIR`: run I of the manifest, unless its folder already holds it.
int sweep_task(const std::string& dir, int64_t task) {
  if (dir.empty()) {
    throw InputError("command line", 0, "--task", "give the sweep's folder: sweep --task I DIR");
  }
  const Manifest m = read_manifest(dir);
  if (m.runs.empty()) {
    throw InputError(dir + "/manifest.json", 0, "runs", "the sweep has no runs");
  }
  if (task < 0 || task >= static_cast<int64_t>(m.runs.size())) {
    throw InputError("--task", 0, std::to_string(task),
                     fmt::format("the sweep in {} has runs 0 to {}", dir, m.runs.size() - 1));
  }
  const SweepRun& r = m.runs[static_cast<size_t>(task)];
  // A manifest names commands, but only `run` is run, and by this program whatever argv[0] names: a sweep folder
  // cannot make a task start another program.
  if (r.argv.size() < 2 || r.argv[1] != "run") {
    throw InputError(dir + "/manifest.json", 0, "runs." + std::to_string(task) + ".argv",
                     "not a rocesim run command: " + printable(r.argv.empty() ? "" : r.argv[0]) +
                         (r.argv.size() > 1 ? " " + printable(r.argv[1]) : ""));
  }
  if (run_state(dir, r) == RunState::kComplete) {
    fmt::print("rocesim sweep: run {} is already complete ({}/runs/{})\n", r.name, dir, r.name);
    return 0;
  }
  std::vector<char*> argv;
  for (const std::string& a : r.argv) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  execv("/proc/self/exe", argv.data());
  fmt::print(stderr, "rocesim: failed: cannot run {}: {}\n", printable(r.argv[0]), std::strerror(errno));
  return 1;
}

// `rocesim sweep SCENARIO --grid ... [-j N] -o DIR`: plans, then runs locally or writes a cluster's job file.
// Exit status 0 when every run is complete, 1 otherwise (2: bad input, nothing written).
int cmd_sweep(const std::string& scenario, const std::vector<std::string>& sets, const SweepArgs& a,
              const std::string& out_dir, bool quiet) {
  if (!a.collect.empty()) {
    const Manifest m = read_manifest(a.collect);
    return collect_sweep(m, a.collect, {}, quiet) == 0 ? 0 : 1;
  }
  if (a.task >= 0) {
    return sweep_task(a.task_dir, a.task);
  }
  if (scenario.empty()) {
    throw InputError("command line", 0, "sweep", "give a scenario file (or --collect DIR, or --task I DIR)");
  }
  if (!is_plain_text(out_dir)) {  // a newline would break commands.txt and sweep.slurm lines
    throw InputError("command line", 0, "-o", "the sweep folder's name has control bytes: " + printable(out_dir));
  }
  const bool show = !quiet && isatty(STDERR_FILENO);
  SweepPlan plan{self_exe(), scenario, out_dir, sets, a.grid, a.seeds};
  const Manifest m = plan_sweep(
      plan,
      [&](const std::vector<std::string>& s, std::optional<int64_t> seed) {
        return Simulation(load(scenario, s, seed)).resolved();
      },
      [&](size_t i, size_t n) {
        if (show) {
          fmt::print(stderr, "\r  sweep: checking run {} of {}   ", i + 1, n);
        }
      });
  if (show) {
    fmt::print(stderr, "\r{:60}\r", "");
  }
  const std::string abs_dir = std::filesystem::absolute(out_dir).lexically_normal().string();
  // One sweep at a time in a folder: a second would run every run again beside the first.
  ResultWriter lock(abs_dir);
  lock.prepare({"manifest.json", "summary.csv", "report.html", "commands.txt", "sweep.slurm"}, {scenario});
  std::filesystem::create_directories(abs_dir + "/logs");
  write_whole(abs_dir + "/manifest.json", m.to_json());
  if (a.emit == "slurm" || a.emit == "parallel") {
    const std::string file = a.emit == "slurm" ? "sweep.slurm" : "commands.txt";
    write_whole(abs_dir + "/" + file, a.emit == "slurm" ? slurm_script(m, abs_dir) : parallel_commands(m, abs_dir));
    if (!quiet) {
      fmt::print("rocesim sweep: {} runs in {}/manifest.json\n", m.runs.size(), abs_dir);
      if (a.emit == "slurm") {
        fmt::print("  submit     sbatch {}/sweep.slurm\n", abs_dir);
      } else {
        fmt::print("  run        parallel -j {} < {}/commands.txt\n", std::max(1, a.jobs), abs_dir);
      }
      fmt::print("  then       {} sweep --collect {}\n", plan.rocesim, abs_dir);
    }
    return 0;
  }
  std::vector<size_t> todo;
  for (size_t i = 0; i < m.runs.size(); ++i) {
    const RunState st = run_state(abs_dir, m.runs[i]);
    if (st == RunState::kDamaged) {
      warn(abs_dir + "/runs/" + m.runs[i].name + "/summary.json is damaged (not a summary rocesim wrote): run again");
    }
    if (st != RunState::kComplete) {
      todo.push_back(i);
    }
  }
  if (!quiet && todo.size() < m.runs.size()) {
    fmt::print(stderr, "rocesim sweep: {} of {} runs already complete in {}\n", m.runs.size() - todo.size(),
               m.runs.size(), abs_dir);
  }
  GracefulPhase graceful;
  const auto codes =
      run_pool(m.runs, todo, abs_dir + "/logs", std::max(1, a.jobs), interrupted, [&](const PoolStatus& p) {
        if (!show) {
          return;
        }
        const double left =
            p.done > 0 ? p.elapsed_s / static_cast<double>(p.done) * static_cast<double>(p.total - p.done) : 0;
        fmt::print(stderr, "\r  sweep: {} of {} runs done, {} running, {} failed, {}   ", p.done, p.total, p.running,
                   p.failed, p.done > 0 ? fmt::format("about {:.0f} s left", left) : std::string("timing the first"));
      });
  if (show) {
    fmt::print(stderr, "\r{:90}\r", "");
  }
  const size_t incomplete = collect_sweep(m, abs_dir, codes, quiet);
  for (const auto& [name, code] : codes) {
    if (code != 0 && !quiet) {
      fmt::print(stderr, "rocesim sweep: run {} failed (exit status {}): {}/logs/{}.log\n", name, code, abs_dir, name);
    }
  }
  if (interrupted()) {
    return interrupted_status();
  }
  return incomplete == 0 ? 0 : 1;
}

}  // namespace

void add_sweep(CLI::App& app, Action& action) {
  struct Args : ScenarioArgs {
    SweepArgs sweep;
    std::string out = "sweep";
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  SweepArgs& s = a->sweep;
  auto* cmd = app.add_subcommand(
      "sweep", "run a scenario over a grid of parameter values and seeds, in parallel or as a cluster job array");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML)");
  cmd->add_option("--grid", s.grid, "KEY=V1,V2,...: one axis of the grid (repeat for more)");
  cmd->add_option("--seeds", s.seeds, "seeds for every grid point: 1-5, 1,3,9 (default: the scenario's)");
  add_set_option(*cmd, *a, "override a parameter in every run");
  add_threads_option(*cmd, *a, "threads each run uses (engine.threads): 1-1024 or auto");
  cmd->add_option("-j,--jobs", s.jobs, "runs at a time")->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("-o,--out", a->out, "the sweep's folder")->capture_default_str();
  cmd->add_option("--emit", s.emit, "write a cluster job file instead of running: slurm or parallel")
      ->check(CLI::IsMember({"slurm", "parallel"}));
  cmd->add_option("--collect", s.collect, "write DIR/summary.csv from the runs done so far");
  cmd->add_option("--task", s.task, "run one run of a sweep: --task I DIR (what array tasks call)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  cmd->add_flag("-q,--quiet", a->quiet, "no progress and no summary line");
  cmd->callback([a, &action] {
    action = [a] {
      if (a->sweep.task >= 0) {
        a->sweep.task_dir = a->scenario;  // --task I DIR: the positional argument is the sweep folder
      }
      return cmd_sweep(a->scenario, a->all_sets(), a->sweep, a->out, a->quiet);
    };
  });
}

}  // namespace rocesim::cli
