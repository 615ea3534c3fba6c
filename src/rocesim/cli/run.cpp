#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "rocesim/analysis/results.hpp"
#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/cli/run_results.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim::cli {
namespace {

int cmd_run(const std::string& path, const std::string& hpcc_config, const std::string& out_dir,
            const std::vector<std::string>& sets, std::optional<int64_t> seed, bool quiet, const ProgressArgs& shown) {
  Simulation s(hpcc_config.empty() ? load(path, sets, seed) : load_hpcc(hpcc_config, sets, seed));
  print_warnings(s);
  ResultWriter rw(out_dir);
  prepare_output(rw, s);
  Progress progress(shown, quiet);
  RunInfo info;
  RunEnd end = RunEnd::kFinished;
  info.wall_time_s = run_interruptible(s, progress, end);
  progress.done();
  report_end(s, end, info);
  // With faults, the same scenario again without them: which flows the fault slowed.
  std::unique_ptr<Simulation> baseline;
  const auto& events = s.scenario().events;
  if (!info.partial && std::any_of(events.begin(), events.end(), [](const FabricEvent& e) { return e.is_fault(); })) {
    Scenario sc = hpcc_config.empty() ? load(path, sets, seed) : load_hpcc(hpcc_config, sets, seed);
    std::erase_if(sc.events, [](const FabricEvent& e) { return e.is_fault(); });
    baseline = std::make_unique<Simulation>(std::move(sc));
    Progress quiet_progress(Progress::Form::kOff, 0);
    run_interruptible(*baseline, quiet_progress, end);
    if (end != RunEnd::kFinished) {  // the run's results stand, without the victims the baseline would give
      baseline.reset();
      report_end(s, end, info);
      fmt::print(stderr, "rocesim: the fault-free baseline did not finish: no victims.csv\n");
    } else {
      info.baseline = &baseline->net();
    }
  }
  std::string extra;
  const nlohmann::json summary = write_results(s, info, rw, out_dir, quiet, extra);
  if (!quiet) {
    fmt::print("rocesim: {} ({})\n", printable(s.scenario().top.name),
               printable(!hpcc_config.empty() ? hpcc_config
                         : path.empty()       ? kDefaultScenarioName
                                              : path));
    fmt::print("{}", printable(summary_table(summary)));
    fmt::print("  results          {}/summary.json{}\n", printable(out_dir), printable(extra));
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::string abs_out = std::filesystem::absolute(out_dir).lexically_normal().string();
    fmt::print("  plots            {} plot {}   (PNGs in {}/plots)\n", ec ? "rocesim" : exe.string(), abs_out, abs_out);
  }
  return end_status(end);
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  struct Args : ScenarioArgs {
    std::string out_dir = "results", hpcc_config;
    bool quiet = false;
    ProgressArgs progress;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("run", "simulate a scenario (the default scenario if none is given)");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML)");
  cmd->add_option("-o,--out", a->out_dir, "folder for the result files")->capture_default_str();
  add_set_option(*cmd, *a, "override a parameter, e.g. --set switch.ecn.kmin=200KB");
  add_seed_option(*cmd, *a);
  cmd->add_flag("-q,--quiet", a->quiet, "no progress and no summary");
  add_progress_options(*cmd, a->progress);
  add_threads_option(*cmd, *a, "threads to run partitions on (engine.threads): 1-1024 or auto");
  cmd->add_option("--hpcc-config", a->hpcc_config,
                  "run an HPCC ns-3 simulator config.txt (its topology and flow files)");
  cmd->callback([a, &action] {
    action = [a] {
      if (!a->hpcc_config.empty() && !a->scenario.empty()) {
        fmt::print(stderr, "rocesim: error: give a scenario or --hpcc-config, not both\n");
        return 2;
      }
      return cmd_run(a->scenario, a->hpcc_config, a->out_dir, a->all_sets(), a->seed, a->quiet, a->progress);
    };
  });
}

}  // namespace rocesim::cli
