// rocesim: the command line. Exit status: 0 success, 2 bad input, 1 any other failure.
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include "rocesim/analysis/fabric_report.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/analysis/report.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/check/check.hpp"
#include "rocesim/core/memory.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/io/hpcc_config.hpp"
#include "rocesim/io/output.hpp"
#include "rocesim/io/qos_import.hpp"
#include "rocesim/io/report_html.hpp"
#include "rocesim/io/scenario.hpp"
#include "rocesim/sweep/runner.hpp"
#include "rocesim/sweep/summary.hpp"
#include "rocesim/sweep/sweep.hpp"

using namespace rocesim;

#if defined(ROCESIM_JEMALLOC)
// jemalloc's compile-time options (read once, when it starts): transparent huge pages for all memory, its own
// bookkeeping included. With the kernel's default "madvise" mode, jemalloc asks for them with MADV_HUGEPAGE.
extern "C" {
[[gnu::used]] const char* malloc_conf = "thp:always,metadata_thp:always";  // NOLINT: jemalloc's name
}
#endif

namespace {

// Interrupts (SIGINT, SIGTERM). In a phase that stops gracefully (a run's event loop, a sweep waiting for its
// runs) the first one ends that phase where it is, and the results so far are written, marked partial; anywhere
// else (loading, generating flows, check, validate, topology) it ends the program at once, as the second always
// does. Writing results holds interrupts until the files are in place. Signals reach the process, not a
// simulation, so this is the one process-wide state; the library never sees it.
std::atomic<int> g_interrupts{0};
std::atomic<int> g_signal{0};
std::atomic<bool> g_graceful{false};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "used from a signal handler");

extern "C" void on_interrupt(int sig) {
  g_signal.store(sig);
  if (g_interrupts.fetch_add(1) >= 1 || !g_graceful.load()) {
    static const char kMsg[] = "\nrocesim: interrupted\n";
    [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    _exit(128 + sig);
  }
}

// While alive, the first interrupt is the phase's to act on (it polls g_interrupts).
class GracefulPhase {
 public:
  GracefulPhase() { g_graceful.store(true); }
  ~GracefulPhase() { g_graceful.store(false); }
  GracefulPhase(const GracefulPhase&) = delete;
  GracefulPhase& operator=(const GracefulPhase&) = delete;
};

// A run a sweep started ends when the sweep does, however it ends (PR_SET_PDEATHSIG); if the sweep is gone
// already, at once.
void end_with_sweep() {
  const char* parent = std::getenv(kSweepParentEnv);
  if (parent == nullptr) {
    return;
  }
  const long pid = std::strtol(parent, nullptr, 10);
  unsetenv(kSweepParentEnv);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (pid > 0 && getppid() != static_cast<pid_t>(pid)) {
    fmt::print(stderr, "rocesim: the sweep that started this run (pid {}) has ended\n", pid);
    _exit(1);
  }
}

// The exit status of a command whose phase an interrupt ended: 128 + the signal, as a shell reports it.
int interrupted_status() { return 128 + g_signal.load(); }

// A signal the parent made the process ignore (a shell's background job ignores SIGINT) stays ignored.
void catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) {
      sigaction(sig, &sa, nullptr);
    }
  }
}

// While result files are being moved into place an interrupt waits (and then, if it is the second, exits): no
// half-renamed folder, no temporary file left behind.
class InterruptsHeld {
 public:
  InterruptsHeld() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~InterruptsHeld() { sigprocmask(SIG_SETMASK, &old_, nullptr); }
  InterruptsHeld(const InterruptsHeld&) = delete;
  InterruptsHeld& operator=(const InterruptsHeld&) = delete;

 private:
  sigset_t old_;
};

// Warnings quote the input: control bytes in it are shown escaped, never sent to the terminal.
void warn(const std::string& w) { fmt::print(stderr, "rocesim: warning: {}\n", printable(w)); }

// The memory a run may take: ROCESIM_MEMORY_LIMIT (a size, e.g. 8GB), or what the machine, the process's limits and
// its control group leave.
MemoryLimit memory_limit() {
  if (const char* env = std::getenv("ROCESIM_MEMORY_LIMIT")) {
    try {
      return {static_cast<double>(parse_bytes(env).count()), "ROCESIM_MEMORY_LIMIT"};
    } catch (const UnitError& e) {
      throw InputError("environment", 0, "ROCESIM_MEMORY_LIMIT", e.message);
    }
  }
  return machine_memory_limit();
}

void limit_memory(Scenario& sc) {
  const MemoryLimit limit = memory_limit();
  sc.memory_limit = limit.bytes;
  sc.memory_limit_source = limit.source;
  sc.memory_in_use = resident_bytes();
}

// A scenario from the HPCC ns-3 simulator's config.txt; its warnings go to stderr.
Scenario load_hpcc(const std::string& config, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  const std::string dir = std::filesystem::path(config).parent_path().string();
  const HpccImport imp = import_hpcc_config(config, dir.empty() ? "." : dir);
  for (const auto& w : imp.warnings) {
    warn(w);
  }
  Scenario sc = parse_scenario(imp.yaml, config, dir.empty() ? "." : dir, sets, seed);
  sc.inputs.insert(sc.inputs.begin(), config);
  limit_memory(sc);
  return sc;
}

Scenario load(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  Scenario sc = path.empty() ? parse_scenario(kDefaultScenario, kDefaultScenarioName, ".", sets, seed)
                             : load_scenario(path, sets, seed);
  limit_memory(sc);
  return sc;
}

// A one-line progress report on stderr: simulated time done, events per second, and an estimate of the rest
// (`open_ended`: a run that ends with its work, not at its stop time, which has no rest to estimate).
class Progress {
 public:
  explicit Progress(bool on, bool open_ended = false)
      : on_(on), open_ended_(open_ended), t0_(std::chrono::steady_clock::now()) {}
  void operator()(const RunProgress& p) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (wall - last_ < 0.2) {
      return;
    }
    last_ = wall;
    if (open_ended_) {
      fmt::print(stderr, "\r  {:8.3f} ms simulated, {:.2f} M events/s   ", p.now.ps() / 1e9,
                 static_cast<double>(p.events) / wall / 1e6);
      shown_ = true;
      return;
    }
    const double frac = static_cast<double>(p.now.ps()) / static_cast<double>(p.stop.ps());
    const double eta = frac > 0 ? wall * (1 - frac) / frac : 0;
    fmt::print(stderr, "\r  {:8.3f} ms of {:.3f} ms simulated ({:5.1f} %), {:.2f} M events/s, at most {:.0f} s left   ",
               p.now.ps() / 1e9, p.stop.ps() / 1e9, 100 * frac, static_cast<double>(p.events) / wall / 1e6, eta);
    shown_ = true;
  }
  void done() {
    if (shown_) {
      fmt::print(stderr, "\r{:100}\r", "");
    }
  }
  bool enabled() const { return on_; }

 private:
  bool on_;
  bool open_ended_;
  std::chrono::steady_clock::time_point t0_;
  double last_ = 0;
  bool shown_ = false;
};

// How a run ended: at its stop or when its events ran out; at an interrupt; or near its memory limit.
enum class RunEnd { kFinished, kInterrupted, kMemory };

// The share of the memory limit a run may grow into before it is stopped: the rest is for writing its results.
constexpr double kMemoryStopShare = 0.8;

// Runs the simulation until it ends, an interrupt arrives, or what it holds grows near the memory limit (captures,
// time series and records grow as it runs, beyond what was estimated before it started). Both are looked for every
// 2^16 events, the memory at most every 5 ms of wall time (a capture grows by a frame every few events). Returns
// the wall time.
double run_interruptible(Simulation& s, Progress& progress, RunEnd& end) {
  end = RunEnd::kFinished;
  GracefulPhase graceful;
  const Scenario& sc = s.scenario();
  const double ceiling = sc.memory_limit > 0 ? sc.memory_in_use + kMemoryStopShare * sc.memory_limit : 0;
  auto last_look = std::chrono::steady_clock::now();
  const auto memory_full = [&] {
    const auto now = std::chrono::steady_clock::now();
    if (ceiling == 0 || now - last_look < std::chrono::milliseconds(5)) {
      return false;
    }
    last_look = now;
    return resident_bytes() > ceiling;
  };
  const double wall = s.run(
      [&](const RunProgress& p) {
        if (end == RunEnd::kFinished) {
          if (g_interrupts.load() > 0) {
            end = RunEnd::kInterrupted;
            s.request_stop();
          } else if (memory_full()) {
            end = RunEnd::kMemory;
            s.request_stop();
          }
        }
        if (progress.enabled()) {
          progress(p);
        }
      },
      1 << 16);
  return wall;
}

// Marks `info` partial when the run did not finish, and says so on stderr.
void report_end(Simulation& s, RunEnd end, RunInfo& info) {
  if (end == RunEnd::kFinished) {
    return;
  }
  info.partial = true;
  const double now_ms = s.now().ps() / 1e9;
  const Scenario& sc = s.scenario();
  if (end == RunEnd::kInterrupted) {
    info.partial_reason = "interrupt";
    fmt::print(stderr, "rocesim: interrupted at {:.3f} ms of {:.3f} ms simulated: writing partial results\n", now_ms,
               sc.top.stop.ps() / 1e9);
  } else {
    info.partial_reason = "memory limit";
    fmt::print(stderr,
               "rocesim: error: the run grew to {}, near the {} that {} leaves it, at {:.3f} ms "
               "simulated: writing partial results; simulate less (an earlier stop, fewer captured hosts, a coarser "
               "output.timeseries.interval, fewer iterations)\n",
               size_text(resident_bytes()), size_text(sc.memory_limit), sc.memory_limit_source, now_ms);
  }
}

// The exit status of a run that ended as `end`.
int end_status(RunEnd end) {
  switch (end) {
    case RunEnd::kInterrupted:
      return interrupted_status();
    case RunEnd::kMemory:
      return 1;
    default:
      return 0;
  }
}

void print_warnings(const Simulation& s) {
  for (const std::string& w : s.warnings()) {
    warn(w);
  }
  for (const std::string& note : s.notes()) {
    fmt::print(stderr, "rocesim: note: {}\n", note);
  }
}

// How a report names a run: its result folder's last component.
std::string run_label(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) {
    p = p.parent_path();
  }
  return p.filename().empty() ? dir : p.filename().string();
}

// A run's result files, all computed before any is written.
struct PendingFiles {
  std::vector<std::pair<std::string, std::string>> files;
  void stage(std::string name, std::string content) { files.emplace_back(std::move(name), std::move(content)); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& f : files) {
      out.push_back(f.first);
    }
    return out;
  }
};

// Writes every result file of a finished run into `out_dir` (all or nothing) and returns the summary; the names
// of the files it wrote go to `extra` (", flows.csv, ports.csv, ...").
nlohmann::json write_results(Simulation& s, const RunInfo& info, const Simulation* baseline, ResultWriter& rw,
                             const std::string& out_dir, bool quiet, std::string& extra) {
  nlohmann::json summary = summary_json(s, info);
  PendingFiles w;
  const std::string& records = s.scenario().output.flows;
  if (records != "off") {
    w.stage("flows.csv", flows_csv(s.net()));
    extra += ", flows.csv";
  }
  extra += ", ports.csv, nics.csv, fct_buckets.csv";
  if (records == "aggregate") {
    w.stage("messages.csv", messages_csv(s.net()));
    extra += ", messages.csv";
  }
  w.stage("ports.csv", ports_csv(s.net(), s.now()));
  w.stage("nics.csv", nics_csv(s.net(), s.now()));
  if (s.scenario().engine.profile) {
    w.stage("engine.json", engine_json(s));
    extra += ", engine.json";
  }
  w.stage("fct_buckets.csv", buckets_csv(slowdown_by_size(s.net(), parse_bucket_edges(s.scenario().output.buckets),
                                                          s.scenario().output.warmup)));
  if (const HpccOutputs* h = s.hpcc_outputs()) {
    const auto& hp = s.scenario().output.hpcc;
    if (!hp.fct.empty()) {
      w.stage(hp.fct, h->fct_txt());
    }
    if (!hp.pfc.empty()) {
      w.stage(hp.pfc, h->pfc_txt());
    }
    if (!hp.qlen.empty()) {
      w.stage(hp.qlen, h->qlen_txt());
    }
  }
  if (const TimeSeries* ts = s.timeseries()) {
    w.stage("timeseries.csv", ts->csv());
  }
  if (const Trace* tr = s.trace()) {
    w.stage("trace.json", tr->json());
    extra += ", trace.json";
    if (tr->dropped() > 0 && !quiet) {
      warn(fmt::format("trace.json stopped at output.trace.max_events ({}): {} later events left out",
                       s.scenario().output.trace.max_events, tr->dropped()));
    }
  }
  if (baseline) {
    w.stage("victims.csv",
            victims_csv(s.net(), victim_flows(s.net(), baseline->net(), faulty_endpoints(s), kVictimThreshold)));
  }
  for (const auto& [name, content] : report_files(s)) {
    w.stage(name, content);
    extra += ", " + name;
  }
  if (Capture* cap = s.capture()) {
    w.stage(cap->file_name(), cap->contents());
  }
  if (s.scenario().output.report) {
    nlohmann::json shown = summary;  // the page shows the summary as the file holds it
    shown["files"] = w.names();
    shown["files"].push_back("report.html");
    shown["files"].push_back("summary.json");
    w.stage("report.html", report_html({report_data(s, shown, run_label(out_dir))}));
    extra += ", report.html";
  }
  summary["files"] = w.names();  // what the next run into this folder removes if it does not rewrite it
  summary["files"].push_back("summary.json");
  w.stage("summary.json", summary.dump(2) + "\n");
  // Every file is computed; writing them is quick, and no interrupt cuts it short.
  std::vector<std::string> removed;
  {
    InterruptsHeld held;
    for (const auto& [name, content] : w.files) {
      rw.stage(name, content);
    }
    const std::vector<std::string> previous = rw.previous_outputs();
    rw.commit();
    removed = rw.remove_stale(previous);
  }
  for (const std::string& name : removed) {
    if (!quiet) {
      fmt::print(stderr, "rocesim: removed {}/{} (an earlier run's, not written by this one)\n", out_dir, name);
    }
  }
  if (s.timeseries()) {
    extra += ", timeseries.csv";
  }
  if (baseline) {
    extra += ", victims.csv";
  }
  if (s.capture()) {
    extra += ", " + s.capture()->file_name();
  }
  for (const std::string& f :
       {s.scenario().output.hpcc.fct, s.scenario().output.hpcc.pfc, s.scenario().output.hpcc.qlen}) {
    if (!f.empty()) {
      extra += ", " + f;
    }
  }
  return summary;
}

// Readies the output folder before a run (docs/outputs.md): made, writable, locked, and no file the run may write
// or remove there is a folder, a device, a FIFO or one of the run's inputs.
void prepare_output(ResultWriter& rw, const Simulation& s) {
  std::vector<std::string> names = fixed_result_names();
  const Scenario& sc = s.scenario();
  for (const std::string& f :
       {sc.output.hpcc.fct, sc.output.hpcc.pfc, sc.output.hpcc.qlen, sc.capture ? sc.capture->file : std::string()}) {
    if (!f.empty()) {
      names.push_back(f);
    }
  }
  const std::vector<std::string> previous = rw.previous_outputs();
  names.insert(names.end(), previous.begin(), previous.end());
  rw.prepare(names, sc.inputs);
}

int cmd_run(const std::string& path, const std::string& hpcc_config, const std::string& out_dir,
            const std::vector<std::string>& sets, std::optional<int64_t> seed, bool quiet) {
  Simulation s(hpcc_config.empty() ? load(path, sets, seed) : load_hpcc(hpcc_config, sets, seed));
  print_warnings(s);
  ResultWriter rw(out_dir);
  prepare_output(rw, s);
  Progress progress(!quiet && isatty(STDERR_FILENO));
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
    Progress quiet_progress(false);
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
  const nlohmann::json summary = write_results(s, info, baseline.get(), rw, out_dir, quiet, extra);
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
  Progress progress(!a.quiet && isatty(STDERR_FILENO), true);
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
    write_results(s, info, nullptr, *rw, a.out_dir, true, extra);
  }
  fmt::print("{}", table);
  return end_status(end);
}

// Writes one file whole (a temporary, renamed into place), with no interrupt cutting it short.
// `inputs`: the files the command read, which the output must not replace.
void write_whole(const std::string& path, const std::string& text, const std::vector<std::string>& inputs = {}) {
  if (path.empty()) {
    throw InputError("-o", 0, "", "the output file is an empty name");
  }
  if (const auto why = result_name_error(std::filesystem::path(path).filename().string())) {
    throw InputError(path, 0, "", *why);
  }
  const std::string target = write_target(path);
  for (const std::string& in : inputs) {
    // Compared as paths too: `-o missing/../input` names the input although `missing` does not exist yet.
    std::error_code ec, ec_target, ec_in;
    if (std::filesystem::equivalent(target, in, ec) ||
        std::filesystem::weakly_canonical(std::filesystem::absolute(target), ec_target) ==
            std::filesystem::weakly_canonical(std::filesystem::absolute(in), ec_in)) {
      throw InputError(path, 0, "", "is an input of this command (" + in + "): choose another output file");
    }
  }
  const auto dir = std::filesystem::path(path).parent_path();
  InterruptsHeld held;
  ResultWriter w(dir.empty() ? "." : dir.string());
  w.stage(std::filesystem::path(path).filename().string(), text);
  w.commit();
}

int cmd_import_hpcc(const std::string& config, const std::string& out) {
  const std::string dir = std::filesystem::path(out).parent_path().string();
  // The import's paths are relative to the output's folder, which must exist for them to resolve: folders made
  // for it go again if the import, or the check of what it wrote, fails.
  std::filesystem::path made;
  for (std::filesystem::path p = dir; !p.empty() && !std::filesystem::exists(p); p = p.parent_path()) {
    made = p;
  }
  std::unique_ptr<Simulation> checked;
  try {
    if (!dir.empty()) {
      std::filesystem::create_directories(dir);
    }
    const HpccImport imp = import_hpcc_config(config, dir.empty() ? "." : dir);
    for (const auto& w : imp.warnings) {
      warn(w);
    }
    // Check the result before writing it: an import that does not load is an error, not a file.
    checked = std::make_unique<Simulation>(parse_scenario(imp.yaml, out, dir.empty() ? "." : dir, {}));
    std::vector<std::string> inputs = checked->scenario().inputs;
    inputs.push_back(config);
    write_whole(out, imp.yaml, inputs);
  } catch (...) {
    std::error_code ec;
    if (!made.empty()) {
      std::filesystem::remove_all(made, ec);
    }
    throw;
  }
  const Simulation& check = *checked;
  fmt::print("{}: written ({} hosts, {} switches, {} flows)\n", printable(out), check.net().num_hosts(),
             check.net().switches().size(), check.net().flows().size());
  return 0;
}

// Writes the flows a scenario's workloads generate, as rocesim flow CSV or as an HPCC simulator flow file.
int cmd_flows(const std::string& path, const std::string& out, const std::string& format, double offset_s,
              const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  Simulation s(load(path, sets, seed));
  std::string text;
  const auto& flows = s.net().flows();
  if (format == "hpcc") {
    text = std::to_string(flows.size()) + "\n";
    const auto& g = s.net().graph();
    for (const auto& f : flows) {
      if (f.spec.op != RdmaOp::kWrite) {
        throw InputError(
            path, 0, "workload",
            "the HPCC flow format has only writes; flow " + std::to_string(f.id) + " is a " + to_string(f.spec.op));
      }
      text +=
          fmt::format("{} {} {} {} {} {:.9f}\n", g.hosts[f.spec.src], g.hosts[f.spec.dst], f.spec.priority,
                      f.spec.app_port ? f.spec.app_port : 100, f.spec.size.count(), offset_s + f.spec.start.sec_f());
    }
  } else {
    text = "src,dst,size,start,priority,operation\n";
    for (const auto& f : flows) {
      text += fmt::format("{},{},{}B,{}ps,{},{}\n", f.spec.src, f.spec.dst, f.spec.size.count(), f.spec.start.ps(),
                          f.spec.priority, to_string(f.spec.op));
    }
  }
  write_whole(out, text, s.scenario().inputs);
  fmt::print("{}: {} flows\n", printable(out), flows.size());
  return 0;
}

// A count to about two significant digits in words: "71 million", "150 thousand".
std::string approximately(double n) {
  static constexpr std::pair<double, const char*> kScales[] = {
      {1e12, "trillion"}, {1e9, "billion"}, {1e6, "million"}, {1e3, "thousand"}, {1, ""}};
  for (const auto& [scale, word] : kScales) {
    if (n >= scale || scale == 1) {
      const double v = n / scale;
      const std::string digits = v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.2g}", v);
      return *word ? digits + " " + word : digits;
    }
  }
  return "";
}

int cmd_validate(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  Simulation s(load(path, sets, seed));
  print_warnings(s);
  fmt::print("{}: valid ({} servers, {} NICs, {} switches, {} flows)\n", printable(path), s.net().num_servers(),
             s.net().num_hosts(), s.net().switches().size(), s.net().flows().size());
  const ExpectedTraffic& e = s.net().expected();
  if (e.messages > 0) {
    fmt::print("  collective msgs  {:.0f} ({:.4g} GB of payload), kept {}\n", e.messages, e.bytes / 1e9,
               s.scenario().output.flows == "all" ? "one record each (flows.csv)"
                                                  : fmt::format("in {:.0f} records per call and queue pair", e.groups));
  }
  // Events, to an order of magnitude: per data packet and link it crosses (a transmission and an arrival), and per
  // message (its post, completion and acknowledgements); measured on rail all-reduces and fat-tree permutations
  // (docs/performance.md).
  constexpr double kEventsPerPacketHop = 2.1, kEventsPerMessage = 13;
  ExpectedTraffic all = e;
  for (const FlowRecord& f : s.net().flows()) {
    const int64_t mtu = s.net().mtu();
    const double packets = static_cast<double>(std::max<int64_t>(1, (f.spec.size.count() + mtu - 1) / mtu));
    const uint32_t from = f.spec.op == RdmaOp::kRead ? f.spec.dst : f.spec.src;
    const uint32_t to = f.spec.op == RdmaOp::kRead ? f.spec.src : f.spec.dst;
    all.packet_hops += packets * static_cast<double>(s.net().path(from, to, f.sport).size());
    all.messages += 1;
  }
  if (all.messages > 0) {
    fmt::print("  events           about {} ({:.3g} packet-hops, {:.3g} messages)\n",
               approximately(kEventsPerPacketHop * all.packet_hops + kEventsPerMessage * all.messages), all.packet_hops,
               all.messages);
  }
  const Scenario& sc = s.scenario();
  fmt::print("  memory           about {:.3g} GB{}\n", s.memory_estimate() / 1e9,
             sc.memory_limit > 0
                 ? fmt::format(" of the {:.3g} GB that {} leaves it", sc.memory_limit / 1e9, sc.memory_limit_source)
                 : "");
  return 0;
}

// Exit status 0: clean; 1: cycles or findings (2, bad input, comes from main).
int cmd_check(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed, int failures,
              bool json, bool quiet) {
  // The scenario as validate and run build it: check refuses what they refuse (hosts that cannot reach each other,
  // an event on no NIC, link or switch, a capture of no port, ...), with their message.
  const Simulation s(load(path, sets, seed));
  const Scenario& sc = s.scenario();
  CheckOptions o{failures, {}};
  const bool show = failures > 0 && !quiet && isatty(STDERR_FILENO);
  auto last = std::chrono::steady_clock::now();
  if (show) {
    o.progress = [&](size_t done, size_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::milliseconds(200) || done == total) {
        last = now;
        fmt::print(stderr, "\r  checked {} of {} sets of failed links   ", done, total);
      }
    };
  }
  const CheckReport r = run_check(sc, o);
  if (show) {
    fmt::print(stderr, "\r{:70}\r", "");
  }
  if (json) {
    fmt::print("{}\n", check_json(r, sc.file).dump(2));
  } else {
    fmt::print("{}", printable(check_text(r, sc.file)));
  }
  return r.clean() ? 0 : 1;
}

// The fabric a scenario builds, without running it; `ports_csv` (if given) gets the port map.
int cmd_topology(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed, bool json,
                 const std::string& ports_csv) {
  // The scenario as validate and run build it: topology refuses what they refuse, with their message.
  const Simulation s(load(path, sets, seed));
  const Scenario& sc = s.scenario();
  const Network& net = s.net();
  const nlohmann::json j = fabric_json(net, sc.sw);
  if (!ports_csv.empty()) {
    write_whole(ports_csv, port_map_csv(net), sc.inputs);
  }
  if (json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", printable(fabric_table(j)));
  }
  return 0;
}

// Where plot.py is: installed beside the program (PREFIX/share/rocesim), else in the source tree it was built from.
std::filesystem::path plot_script() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "rocesim" / "plot.py";
    if (std::filesystem::exists(installed)) {
      return installed;
    }
  }
  return std::filesystem::path(ROCESIM_TOOLS_DIR) / "plot.py";
}

// `rocesim plot DIR...`: runs plot.py with the arguments (its exit status is this command's).
int cmd_plot(const std::vector<std::string>& args) {
  const std::string script = plot_script().string();
  std::vector<char*> argv{const_cast<char*>("/usr/bin/python3"), const_cast<char*>(script.c_str())};
  for (const std::string& a : args) {
    argv.push_back(const_cast<char*>(a.c_str()));
  }
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  fmt::print(stderr, "rocesim: failed: cannot run /usr/bin/python3 {}: {}\n", script, std::strerror(errno));
  return 1;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(path, 0, "", "no such file");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The report data of the run in `dir` (its report.html), labelled `label`.
nlohmann::json run_report(const std::string& dir, const std::string& label) {
  const std::string path = (std::filesystem::path(dir) / "report.html").string();
  if (!std::filesystem::exists(path)) {
    throw InputError(path, 0, "", "missing: the run wrote no report (output.report: false?); run it again with it");
  }
  std::vector<nlohmann::json> runs = report_runs(read_text(path), path);
  runs.front()["name"] = label;
  return runs.front();
}

// `rocesim report RUN1 RUN2 ... -o FILE`: the runs' reports overlaid in one page.
int cmd_report(const std::vector<std::string>& dirs, const std::string& out, bool quiet) {
  std::vector<nlohmann::json> runs;
  std::vector<std::string> inputs;
  for (const std::string& d : dirs) {
    runs.push_back(run_report(d, d));
    inputs.push_back(d + "/summary.json");
  }
  write_whole(out, report_html(runs), inputs);
  if (!quiet) {
    fmt::print("rocesim report: {} runs in {}\n", runs.size(), out);
  }
  return 0;
}

// `rocesim import sonic|mlnx-qos FILE -o OUT`: a scenario fragment from real gear's QoS configuration.
int cmd_import_qos(const std::string& kind, const std::string& in, const std::string& out, const std::string& port) {
  const std::string text = read_text(in);
  const QosImport imp = kind == "sonic" ? import_sonic_config_db(text, in, port) : import_mlnx_qos(text, in);
  for (const auto& w : imp.warnings) {
    warn(w);
  }
  write_whole(out, imp.yaml, {in});
  fmt::print("{}: written ({} warnings); paste its sections into a scenario\n", printable(out), imp.warnings.size());
  return 0;
}

// `rocesim compare RUN1 RUN2 ...`: the runs' key results side by side, with ratios to the first.
int cmd_compare(const std::vector<std::string>& dirs) {
  std::vector<std::pair<std::string, nlohmann::json>> runs;
  for (const std::string& d : dirs) {
    const std::string path = (std::filesystem::path(d) / "summary.json").string();
    const nlohmann::json j = nlohmann::json::parse(read_text(path), nullptr, false);
    if (!j.is_object()) {
      throw InputError(path, 0, "", "not a summary.json rocesim wrote");
    }
    runs.emplace_back(d, j);
  }
  fmt::print("{}", printable(compare_table(runs)));
  return 0;
}

std::string self_exe() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw std::runtime_error("cannot find this program's path (/proc/self/exe): " + ec.message());
  }
  return exe.string();
}

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
  const auto codes = run_pool(
      m.runs, todo, abs_dir + "/logs", std::max(1, a.jobs), [] { return g_interrupts.load() > 0; },
      [&](const PoolStatus& p) {
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
  if (g_interrupts.load() > 0) {
    return interrupted_status();
  }
  return incomplete == 0 ? 0 : 1;
}

int cmd_params(const std::string& component, bool markdown) {
  if (markdown) {
    fmt::print("{}", scenario_reference_markdown());
    return 0;
  }
  // A key of one kind of component ("topology[leaf-spine].rail") is also found without the kind
  // ("topology.rail"), in every kind that has it.
  const auto without_kinds = [](const std::string& key) {
    std::string out;
    for (size_t i = 0; i < key.size(); ++i) {
      if (key[i] == '[') {
        const size_t close = key.find(']', i);
        if (close == std::string::npos) {
          break;
        }
        i = close;
      } else {
        out += key[i];
      }
    }
    return out;
  };
  bool any = false;
  for (const auto& d : all_params()) {
    if (!component.empty() && d.key.rfind(component, 0) != 0 && without_kinds(d.key).rfind(component, 0) != 0) {
      continue;
    }
    any = true;
    fmt::print("{:48} {:>14}  {}{}\n", d.key, d.default_text.empty() ? "-" : d.default_text, d.doc,
               d.unit.empty() ? "" : " [" + d.unit + "]");
  }
  if (!any) {
    throw InputError("command line", 0, "params",
                     "no parameters under '" + component + "' (try: topology, switch, nic, workload)");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocesim: a packet-level simulator of RoCEv2 cluster networks"};
  app.set_version_flag("--version", std::string("rocesim ") + ROCESIM_VERSION);
  app.require_subcommand(1);

  std::string scenario, out_dir = "results", component;
  std::vector<std::string> sets;
  std::optional<int64_t> seed;
  bool quiet = false, markdown = false;

  auto* run = app.add_subcommand("run", "simulate a scenario (the default scenario if none is given)");
  run->add_option("scenario", scenario, "scenario file (YAML)");
  run->add_option("-o,--out", out_dir, "folder for the result files")->capture_default_str();
  run->add_option("--set", sets, "override a parameter, e.g. --set switch.ecn.kmin=200KB");
  run->add_option("--seed", seed, "override the scenario's seed");
  run->add_flag("-q,--quiet", quiet, "no progress and no summary");
  // --threads N: the same as --set engine.threads=N (results do not depend on it).
  std::string threads;
  const CLI::Validator thread_count(
      [](std::string& v) -> std::string {
        try {
          resolve_threads(v);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return "";
      },
      "N|auto");
  run->add_option("--threads", threads, "threads to run partitions on (engine.threads): 1-1024 or auto")
      ->check(thread_count);
  std::string hpcc_config;
  run->add_option("--hpcc-config", hpcc_config, "run an HPCC ns-3 simulator config.txt (its topology and flow files)");

  std::string import_out = "scenario.yaml", import_config;
  auto* imp = app.add_subcommand("import", "convert another simulator's input into a rocesim scenario");
  auto* imp_hpcc = imp->add_subcommand("hpcc", "the HPCC ns-3 simulator's config.txt");
  imp->require_subcommand(1);
  imp_hpcc->add_option("config", import_config, "config.txt")->required();
  imp_hpcc->add_option("-o,--out", import_out, "scenario file to write")->capture_default_str();
  std::string import_file, import_port, qos_out_sonic = "switch.yaml", qos_out_nic = "nic.yaml";
  auto* imp_sonic = imp->add_subcommand("sonic", "a SONiC switch's config_db.json: its QoS as the switch section");
  imp_sonic->add_option("config_db", import_file, "config_db.json (or show runningconfiguration all)")->required();
  imp_sonic->add_option("--port", import_port, "the port whose QoS to take (default: the first with PFC enabled)");
  imp_sonic->add_option("-o,--out", qos_out_sonic, "scenario fragment to write")->capture_default_str();
  auto* imp_mlnx =
      imp->add_subcommand("mlnx-qos", "mlnx_qos -i IF output and DCQCN sysfs/mlxconfig parameters: the NIC section");
  imp_mlnx->add_option("file", import_file, "the text: mlnx_qos report, NAME VALUE lines")->required();
  imp_mlnx->add_option("-o,--out", qos_out_nic, "scenario fragment to write")->capture_default_str();

  auto* validate = app.add_subcommand("validate", "check a scenario without running it");
  validate->add_option("scenario", scenario, "scenario file (YAML)")->required();
  validate->add_option("--set", sets, "override a parameter");
  validate->add_option("--seed", seed, "override the scenario's seed");

  int check_failures = 0;
  bool check_json_out = false;
  auto* check = app.add_subcommand(
      "check", "find PFC deadlock cycles (also after link failures) and lossless misconfiguration without running");
  check->add_option("scenario", scenario, "scenario file (YAML)")->required();
  check
      ->add_option("--failures", check_failures,
                   "also check routes with every set of up to N switch-to-switch links down (0..2)")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  check->add_flag("--json", check_json_out, "print the report as JSON");
  check->add_flag("-q,--quiet", quiet, "no progress line");
  check->add_option("--set", sets, "override a parameter");
  check->add_option("--seed", seed, "override the scenario's seed");

  std::string flows_out = "flows.txt", flows_format = "csv";
  double flows_offset = 0;
  auto* flows_cmd = app.add_subcommand("flows", "write the flows a scenario's workloads generate, without running it");
  flows_cmd->add_option("scenario", scenario, "scenario file (YAML)")->required();
  flows_cmd->add_option("-o,--out", flows_out, "file to write")->capture_default_str();
  flows_cmd->add_option("--format", flows_format, "csv (rocesim flow file) or hpcc (the HPCC ns-3 flow file)")
      ->check(CLI::IsMember({"csv", "hpcc"}))
      ->capture_default_str();
  flows_cmd->add_option("--offset", flows_offset, "seconds added to start times (hpcc; that simulator starts at 2 s)");
  flows_cmd->add_option("--set", sets, "override a parameter");
  flows_cmd->add_option("--seed", seed, "override the scenario's seed");

  bool topology_json = false;
  std::string topology_ports;
  auto* topology = app.add_subcommand(
      "topology", "show the fabric a scenario builds: tiers, ports, oversubscription, rails, PFC headroom, buffers");
  topology->add_option("scenario", scenario, "scenario file (YAML)")->required();
  topology->add_flag("--json", topology_json, "print the report as JSON");
  topology->add_option("--ports-csv", topology_ports,
                       "also write the port map (switch, tier, port, peer, rate, delay, headroom) to this file");
  topology->add_option("--set", sets, "override a parameter");
  topology->add_option("--seed", seed, "override the scenario's seed");

  auto* plot = app.add_subcommand(
      "plot", "draw result folders as PNGs: rocesim plot DIR [DIR ...] [-o OUT] (tools/plot.py; --help lists them)");
  plot->prefix_command();  // every argument goes to plot.py
  plot->set_help_flag();   // plot.py answers --help

  NcclTestsArgs nccl;
  auto* nccl_tests = app.add_subcommand(
      "nccl-tests",
      "run nccl-tests' size sweep (all_reduce_perf and siblings) on a scenario's GPUs and print its table");
  nccl_tests->add_option("scenario", scenario, "scenario file (YAML): its fabric and servers")->required();
  nccl_tests->add_option("--op", nccl.op, "all_reduce, reduce_scatter, all_gather, broadcast or all_to_all")
      ->check(CLI::IsMember({"all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"}))
      ->capture_default_str();
  nccl_tests->add_option("-b,--minbytes", nccl.min, "smallest size (nccl-tests -b: 8, 64K, 8M, 8G)")
      ->capture_default_str();
  nccl_tests->add_option("-e,--maxbytes", nccl.max, "largest size (nccl-tests -e)")->capture_default_str();
  nccl_tests->add_option("-f,--stepfactor", nccl.factor, "multiply the size by this (nccl-tests -f; 1: add -i)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  nccl_tests->add_option("-i,--stepbytes", nccl.step, "increment when -f is 1 (nccl-tests -i)")->capture_default_str();
  nccl_tests
      ->add_option("-n,--iters", nccl.iterations,
                   "timed iterations per size (nccl-tests' default is 20; a simulation gives the same time each "
                   "iteration once the fabric is warm, so 1 unless congestion control state matters)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  nccl_tests->add_option("-w,--warmup_iters", nccl.warmup, "warm-up iterations per size (nccl-tests -w)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  nccl_tests->add_option("--algorithm", nccl.algorithm,
                         "all-reduce algorithm, as NCCL_ALGO: ring, tree or halving_doubling");
  nccl_tests->add_option("-o,--out", nccl.out_dir, "also write every result file of the run to this folder");
  nccl_tests->add_flag("-q,--quiet", nccl.quiet, "no progress line (the table is printed)");
  nccl_tests->add_option("--set", sets, "override a parameter, e.g. --set workload.0.protocol.channels=16");
  nccl_tests->add_option("--seed", seed, "override the scenario's seed");
  nccl_tests->add_option("--threads", threads, "threads to run partitions on (engine.threads): 1-1024 or auto")
      ->check(thread_count);

  SweepArgs sweep_args;
  std::string sweep_out = "sweep";
  auto* sweep = app.add_subcommand(
      "sweep", "run a scenario over a grid of parameter values and seeds, in parallel or as a cluster job array");
  sweep->add_option("scenario", scenario, "scenario file (YAML)");
  sweep->add_option("--grid", sweep_args.grid, "KEY=V1,V2,...: one axis of the grid (repeat for more)");
  sweep->add_option("--seeds", sweep_args.seeds, "seeds for every grid point: 1-5, 1,3,9 (default: the scenario's)");
  sweep->add_option("--set", sets, "override a parameter in every run");
  sweep->add_option("--threads", threads, "threads each run uses (engine.threads): 1-1024 or auto")
      ->check(thread_count);
  sweep->add_option("-j,--jobs", sweep_args.jobs, "runs at a time")->check(CLI::Range(1, 4096))->capture_default_str();
  sweep->add_option("-o,--out", sweep_out, "the sweep's folder")->capture_default_str();
  sweep->add_option("--emit", sweep_args.emit, "write a cluster job file instead of running: slurm or parallel")
      ->check(CLI::IsMember({"slurm", "parallel"}));
  sweep->add_option("--collect", sweep_args.collect, "write DIR/summary.csv from the runs done so far");
  sweep->add_option("--task", sweep_args.task, "run one run of a sweep: --task I DIR (what array tasks call)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  sweep->add_flag("-q,--quiet", quiet, "no progress and no summary line");

  std::vector<std::string> report_dirs;
  std::string report_out = "report.html";
  auto* report = app.add_subcommand("report", "overlay the reports of several result folders in one page");
  report->add_option("runs", report_dirs, "result folders (each with the report.html its run wrote)")->required();
  report->add_option("-o,--out", report_out, "the page to write")->capture_default_str();
  report->add_flag("-q,--quiet", quiet, "print nothing");

  std::vector<std::string> compare_dirs;
  auto* compare = app.add_subcommand("compare", "print the key results of result folders side by side");
  compare->add_option("runs", compare_dirs, "result folders (each with its summary.json)")->required()->expected(2, -1);

  auto* params = app.add_subcommand("params", "list every parameter with its default and doc");
  params->add_option("component", component, "only keys that start with this, e.g. switch.ecn");
  params->add_flag("--markdown", markdown, "print docs/scenario-reference.md");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::ostringstream err;  // the parser quotes the command line: shown escaped
    const int rc = app.exit(e, std::cout, err);
    fmt::print(stderr, "{}", printable(err.str()));
    return rc == 0 ? 0 : 2;
  }
  if (!threads.empty()) {
    sets.push_back("engine.threads=" + threads);
  }
  end_with_sweep();
  catch_interrupts();
  try {
    if (*run) {
      if (!hpcc_config.empty()) {
        if (!scenario.empty()) {
          fmt::print(stderr, "rocesim: error: give a scenario or --hpcc-config, not both\n");
          return 2;
        }
      }
      return cmd_run(scenario, hpcc_config, out_dir, sets, seed, quiet);
    }
    if (*imp_hpcc) {
      return cmd_import_hpcc(import_config, import_out);
    }
    if (*imp_sonic) {
      return cmd_import_qos("sonic", import_file, qos_out_sonic, import_port);
    }
    if (*imp_mlnx) {
      return cmd_import_qos("mlnx-qos", import_file, qos_out_nic, "");
    }
    if (*flows_cmd) {
      return cmd_flows(scenario, flows_out, flows_format, flows_offset, sets, seed);
    }
    if (*validate) {
      return cmd_validate(scenario, sets, seed);
    }
    if (*check) {
      return cmd_check(scenario, sets, seed, check_failures, check_json_out, quiet);
    }
    if (*topology) {
      return cmd_topology(scenario, sets, seed, topology_json, topology_ports);
    }
    if (*plot) {
      return cmd_plot(plot->remaining());
    }
    if (*report) {
      return cmd_report(report_dirs, report_out, quiet);
    }
    if (*compare) {
      return cmd_compare(compare_dirs);
    }
    if (*sweep) {
      if (sweep_args.task >= 0) {
        sweep_args.task_dir = scenario;  // --task I DIR: the positional argument is the sweep folder
      }
      return cmd_sweep(scenario, sets, sweep_args, sweep_out, quiet);
    }
    if (*params) {
      return cmd_params(component, markdown);
    }
    if (*nccl_tests) {
      return cmd_nccl_tests(scenario, nccl, sets, seed);
    }
  } catch (const InputError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const UnitError& e) {  // a value no key's check caught: still the input's fault
    fmt::print(stderr, "rocesim: error: {}\n", printable(e.message));
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "rocesim: failed: out of memory (set ROCESIM_MEMORY_LIMIT, or make the scenario smaller)\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocesim: failed: {}\n", printable(e.what()));
    return 1;
  } catch (...) {
    fmt::print(stderr, "rocesim: failed: an unknown error\n");
    return 1;
  }
  return 0;
}
