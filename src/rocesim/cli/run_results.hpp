// Running a scenario to its end (or an interrupt, or its memory limit) and writing its result files: what `run`
// and `nccl-tests` share.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/io/output.hpp"
#include "rocesim/io/scenario.hpp"
#include "rocesim/run/simulation.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim::cli {

// How a run shows its progress on stderr (`--progress`, `--progress-every`): `auto` unless -q, `always` even with
// -q, `never`. On a terminal, one line redrawn in place; off one (a batch job, nohup, a log file), a line of its own
// every `every_s` seconds of wall time, so that a long run can be told from a hung one.
struct ProgressArgs {
  std::string mode = "auto";
  double every_s = 30;
};
void add_progress_options(CLI::App& cmd, ProgressArgs& a);

// The progress report: simulated time done, events per second, memory held, and an estimate of the rest
// (`open_ended`: a run that ends with its work, not at its stop time, which has no rest to estimate).
class Progress {
 public:
  enum class Form { kOff, kInPlace, kLines };
  Progress(Form form, double every_s, bool open_ended = false)
      : form_(form), every_s_(every_s), open_ended_(open_ended), t0_(std::chrono::steady_clock::now()) {}
  // From the command's options: off for `never`, or for `auto` with -q; in place when stderr is a terminal.
  Progress(const ProgressArgs& a, bool quiet, bool open_ended = false);
  void operator()(const RunProgress& p);
  void done();
  bool enabled() const { return form_ != Form::kOff; }

 private:
  Form form_;
  double every_s_;
  bool open_ended_;
  std::chrono::steady_clock::time_point t0_;
  double last_ = 0;
  bool shown_ = false;
};

// How a run ended: at its stop or when its events ran out; at an interrupt; or near its memory limit.
enum class RunEnd { kFinished, kInterrupted, kMemory };

// Runs the simulation until it ends, an interrupt arrives, or what it holds grows near the memory limit (captures,
// time series and records grow as it runs, beyond what was estimated before it started). Both are looked for every
// 2^16 events, the memory at most every 5 ms of wall time (a capture grows by a frame every few events). Returns
// the wall time.
double run_interruptible(Simulation& s, Progress& progress, RunEnd& end);
// Marks `info` partial when the run did not finish, and says so on stderr.
void report_end(Simulation& s, RunEnd end, RunInfo& info);
// The exit status of a run that ended as `end`.
int end_status(RunEnd end);
// Readies the output folder before a run (docs/outputs.md): made, writable, locked, and no file the run may write
// or remove there is a folder, a device, a FIFO or one of the run's inputs.
void prepare_output(ResultWriter& rw, const Simulation& s);
// Writes every result file of a finished run into `out_dir` (all or nothing) and returns the summary; the names
// of the files it wrote go to `extra` (", flows.csv, ports.csv, ...").
nlohmann::json write_results(Simulation& s, const RunInfo& info, ResultWriter& rw, const std::string& out_dir,
                             bool quiet, std::string& extra);

}  // namespace rocesim::cli
