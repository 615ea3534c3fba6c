#include "rocesim/cli/run_results.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "rocesim/cli/common.hpp"
#include "rocesim/cli/interrupts.hpp"
#include "rocesim/core/memory.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/run/outputs.hpp"

namespace rocesim::cli {
namespace {

// The share of the memory limit a run may grow into before it is stopped: the rest is for writing its results.
constexpr double kMemoryStopShare = 0.8;

}  // namespace

void add_progress_options(CLI::App& cmd, ProgressArgs& a) {
  cmd.add_option("--progress", a.mode,
                 "progress on stderr: auto (unless -q), always (even with -q) or never; off a terminal, a line every "
                 "--progress-every seconds")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  cmd.add_option("--progress-every", a.every_s, "seconds of wall time between progress lines off a terminal")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
}

Progress::Progress(const ProgressArgs& a, bool quiet, bool open_ended)
    : Progress(a.mode == "never" || (a.mode == "auto" && quiet) ? Form::kOff
               : isatty(STDERR_FILENO)                          ? Form::kInPlace
                                                                : Form::kLines,
               a.every_s, open_ended) {}

void Progress::operator()(const RunProgress& p) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  if (wall - last_ < (form_ == Form::kLines ? every_s_ : 0.2)) {
    return;
  }
  last_ = wall;
  const double rate = static_cast<double>(p.events) / wall / 1e6;
  std::string line;
  if (open_ended_) {
    line = fmt::format("{:8.3f} ms simulated, {:.2f} M events/s", p.now.ps() / 1e9, rate);
  } else {
    const double frac = static_cast<double>(p.now.ps()) / static_cast<double>(p.stop.ps());
    const double eta = frac > 0 ? wall * (1 - frac) / frac : 0;
    line = fmt::format("{:8.3f} ms of {:.3f} ms simulated ({:5.1f} %), {:.2f} M events/s, at most {:.0f} s left",
                       p.now.ps() / 1e9, p.stop.ps() / 1e9, 100 * frac, rate, eta);
  }
  if (form_ == Form::kLines) {
    // A line of its own, with what a log reader needs to tell progress from a hang: the wall time and memory.
    fmt::print(stderr, "rocesim: progress at {:.1f} s: {}, {} resident\n", wall, trim(line),
               size_text(static_cast<double>(resident_bytes())));
    return;
  }
  fmt::print(stderr, "\r  {}   ", line);
  shown_ = true;
}

void Progress::done() {
  if (shown_) {
    fmt::print(stderr, "\r{:100}\r", "");
  }
}

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
          if (interrupted()) {
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

nlohmann::json write_results(Simulation& s, const RunInfo& info, ResultWriter& rw, const std::string& out_dir,
                             bool quiet, std::string& extra) {
  nlohmann::json summary = summary_json(s, info);
  const OutputFiles files = result_files(s, info, summary, run_label(out_dir));
  summary["files"] = nlohmann::json::array();  // what the next run into this folder removes if it does not rewrite it
  for (const auto& [name, content] : files) {
    summary["files"].push_back(name);
    extra += ", " + name;
  }
  summary["files"].push_back("summary.json");
  // Every file is computed; writing them is quick, and no interrupt cuts it short.
  std::vector<std::string> removed;
  {
    InterruptsHeld held;
    for (const auto& [name, content] : files) {
      rw.stage(name, content);
    }
    rw.stage("summary.json", summary.dump(2) + "\n");
    std::vector<std::string> candidates = fixed_output_names();
    const std::vector<std::string> previous = rw.previous_outputs();
    candidates.insert(candidates.end(), previous.begin(), previous.end());
    rw.commit();
    removed = rw.remove_stale(candidates);
  }
  for (const std::string& name : removed) {
    if (!quiet) {
      fmt::print(stderr, "rocesim: removed {}/{} (an earlier run's, not written by this one)\n", out_dir, name);
    }
  }
  for (const auto& o : s.outputs()) {
    for (const std::string& note : o->notes()) {
      if (!quiet) {
        warn(note);
      }
    }
  }
  return summary;
}

void prepare_output(ResultWriter& rw, const Simulation& s) {
  std::vector<std::string> names = fixed_output_names();
  for (const Scenario::NamedResult& r : s.scenario().named_results) {
    names.push_back(r.name);
  }
  const std::vector<std::string> previous = rw.previous_outputs();
  names.insert(names.end(), previous.begin(), previous.end());
  rw.prepare(names, s.scenario().inputs);
}

}  // namespace rocesim::cli
