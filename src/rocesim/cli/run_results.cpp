#include "rocesim/cli/run_results.hpp"

#include <fmt/format.h>

#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/analysis/report.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/cli/interrupts.hpp"
#include "rocesim/core/memory.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/io/capture.hpp"
#include "rocesim/io/report_html.hpp"

namespace rocesim::cli {
namespace {

// The share of the memory limit a run may grow into before it is stopped: the rest is for writing its results.
constexpr double kMemoryStopShare = 0.8;

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

}  // namespace

void Progress::operator()(const RunProgress& p) {
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
    w.stage("engine.json", engine_json(s.engine(), s.scenario().graph));
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
            victims_csv(s.net(), victim_flows(s.net(), baseline->net(), faulty_endpoints(s.net(), s.scenario().events),
                                              kVictimThreshold)));
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
    w.stage("report.html", report_html({report_data(s.net(), s.now(), s.scenario().output.warmup, s.timeseries(), shown,
                                                    run_label(out_dir))}));
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

}  // namespace rocesim::cli
