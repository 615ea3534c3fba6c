#include <fmt/format.h>
#include <unistd.h>

#include <cctype>
#include <limits>
#include <map>
#include <memory>

#include "rocesim/analysis/results.hpp"
#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/cli/run_results.hpp"
#include "rocesim/core/error.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim::cli {
namespace {

// An nccl-tests size as its programs read one (src/common.cu parsesize: K, M, G multiply by 1024), or a rocesim
// size such as 8GiB.
int64_t nccl_size(const std::string& flag, const std::string& text) {
  size_t used = 0;
  int64_t v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string rest = text.substr(used);
  if (used > 0 && v >= 0 && rest.size() <= 1) {
    const std::string suffixes = "KMGT";
    const size_t k = rest.empty() ? std::string::npos : suffixes.find(static_cast<char>(std::toupper(rest[0])));
    if (rest.empty()) {
      return v;
    }
    if (k != std::string::npos) {
      const int shift = 10 * static_cast<int>(k + 1);
      if (v > (std::numeric_limits<int64_t>::max() >> shift)) {
        throw InputError("command line", 0, flag, "'" + text + "' is larger than any size rocesim carries");
      }
      return v << shift;
    }
  }
  try {
    return parse_bytes(text).count();
  } catch (const UnitError&) {
    throw InputError("command line", 0, flag, "'" + text + "' is not a size (8, 64K, 8M, 8G or 1MiB)");
  }
}

struct NcclTestsArgs {
  std::string op = "all_reduce", algorithm;
  std::string min = "32M", max = "32M", step = "1M";
  int64_t factor = 1, iterations = 1, warmup = 0;
  std::string out_dir;
  bool quiet = false;
  ProgressArgs progress;
};

// The nccl-tests run of `sets` (the sweep's workload, `workload`, first): an error in the sweep names the flag that
// set the value, not the --set rocesim made of the flags.
Simulation nccl_tests_simulation(const std::string& path, const std::vector<std::string>& sets,
                                 std::optional<int64_t> seed, const std::string& workload) {
  try {
    return Simulation(load(path, sets, seed));
  } catch (const InputError& e) {
    if (e.file() != "--set " + workload) {
      throw;
    }
    static const std::map<std::string, std::string> kFlags = {
        {"workload.0.min_bytes", "-b"},   {"workload.0.max_bytes", "-e"},
        {"workload.0.step_factor", "-f"}, {"workload.0.step_bytes", "-i"},
        {"workload.0.iterations", "-n"},  {"workload.0.warmup", "-w"},
        {"workload.0.op", "--op"},        {"workload.0.protocol.algorithm", "--algorithm"}};
    const auto flag = kFlags.find(e.key());
    if (flag != kFlags.end()) {
      throw InputError("command line", 0, flag->second, e.problem());
    }
    // What the cluster lacks (no GPUs, a server too few): the scenario's.
    throw InputError(path.empty() ? kDefaultScenarioName : path, 0, "nccl-tests", e.problem());
  }
}

// nccl-tests on the scenario's cluster: its workloads replaced by one sweep of `op` over every GPU, the table
// printed as nccl-tests prints it.
int cmd_nccl_tests(const std::string& path, const NcclTestsArgs& a, const std::vector<std::string>& user_sets,
                   std::optional<int64_t> seed) {
  const int64_t min = nccl_size("-b", a.min), max = nccl_size("-e", a.max), step = nccl_size("-i", a.step);
  if (min < 1) {
    throw InputError("command line", 0, "-b", "the smallest size must be at least 1 byte");
  }
  if (max < min) {
    throw InputError("command line", 0, "-e", "the largest size must be at least -b (" + a.min + ")");
  }
  for (const std::string& set : user_sets) {
    if (set.rfind("stop=", 0) == 0) {  // a stop would end the sweep with sizes unmeasured
      throw InputError("--set " + set, 0, "stop", "nccl-tests runs every size to its end; use -e for fewer sizes");
    }
    if (set.rfind("workload", 0) == 0) {
      throw InputError("--set " + set, 0, "workload",
                       "nccl-tests replaces the scenario's workloads with its sweep; set it with its flags");
    }
  }
  std::string workload = fmt::format(
      "workload=[{{type: collective, op: {}, min_bytes: {}B, max_bytes: {}B, step_factor: {}, step_bytes: {}B, "
      "iterations: {}, warmup: {}{}}}]",
      a.op, min, max, a.factor, step, a.iterations, a.warmup,
      a.algorithm.empty() ? "" : ", protocol: {algorithm: " + a.algorithm + "}");
  // The run ends when the sweep does; the scenario's stop would cut a long sweep short.
  std::vector<std::string> sets = {workload, "stop=1000s"};
  sets.insert(sets.end(), user_sets.begin(), user_sets.end());
  Simulation s = nccl_tests_simulation(path, sets, seed, workload);
  print_warnings(s);
  std::unique_ptr<ResultWriter> rw;
  if (!a.out_dir.empty()) {
    rw = std::make_unique<ResultWriter>(a.out_dir);
    prepare_output(*rw, s);
  }
  RunInfo info;
  Progress progress(a.progress, a.quiet, true);
  RunEnd end = RunEnd::kFinished;
  info.wall_time_s = run_interruptible(s, progress, end);
  progress.done();
  report_end(s, end, info);
  if (info.partial) {
    fmt::print(stderr, "rocesim: the sizes not finished show '-'\n");
  }
  std::string table;
  for (const auto& [name, content] : report_files(s)) {
    if (name == "nccl-tests.txt") {
      table = content;
    }
  }
  if (rw) {
    std::string extra;
    write_results(s, info, *rw, a.out_dir, true, extra);
  }
  fmt::print("{}", table);
  return end_status(end);
}

}  // namespace

void add_nccl_tests(CLI::App& app, Action& action) {
  struct Args : ScenarioArgs {
    NcclTestsArgs nccl;
  };
  auto a = std::make_shared<Args>();
  NcclTestsArgs& n = a->nccl;
  auto* cmd = app.add_subcommand(
      "nccl-tests",
      "run nccl-tests' size sweep (all_reduce_perf and siblings) on a scenario's GPUs and print its table");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML): its fabric and servers")->required();
  cmd->add_option("--op", n.op, "all_reduce, reduce_scatter, all_gather, broadcast or all_to_all")
      ->check(CLI::IsMember({"all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"}))
      ->capture_default_str();
  cmd->add_option("-b,--minbytes", n.min, "smallest size (nccl-tests -b: 8, 64K, 8M, 8G)")->capture_default_str();
  cmd->add_option("-e,--maxbytes", n.max, "largest size (nccl-tests -e)")->capture_default_str();
  cmd->add_option("-f,--stepfactor", n.factor, "multiply the size by this (nccl-tests -f; 1: add -i)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("-i,--stepbytes", n.step, "increment when -f is 1 (nccl-tests -i)")->capture_default_str();
  cmd->add_option("-n,--iters", n.iterations,
                  "timed iterations per size (nccl-tests' default is 20; a simulation gives the same time each "
                  "iteration once the fabric is warm, so 1 unless congestion control state matters)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("-w,--warmup_iters", n.warmup, "warm-up iterations per size (nccl-tests -w)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--algorithm", n.algorithm, "all-reduce algorithm, as NCCL_ALGO: ring, tree or halving_doubling");
  cmd->add_option("-o,--out", n.out_dir, "also write every result file of the run to this folder");
  cmd->add_flag("-q,--quiet", n.quiet, "no progress line (the table is printed)");
  add_progress_options(*cmd, n.progress);
  add_set_option(*cmd, *a, "override a parameter, e.g. --set workload.0.protocol.channels=16");
  add_seed_option(*cmd, *a);
  add_threads_option(*cmd, *a, "threads to run partitions on (engine.threads): 1-1024 or auto");
  cmd->callback(
      [a, &action] { action = [a] { return cmd_nccl_tests(a->scenario, a->nccl, a->all_sets(), a->seed); }; });
}

}  // namespace rocesim::cli
