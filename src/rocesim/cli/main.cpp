// rocesim: the command line. Exit status: 0 success, 2 bad input, 1 any other failure.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>

#include "rocesim/analysis/results.hpp"
#include "rocesim/io/output.hpp"
#include "rocesim/io/scenario.hpp"

using namespace rocesim;

namespace {

Scenario load(const std::string& path, const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  if (path.empty()) {
    return parse_scenario(kDefaultScenario, kDefaultScenarioName, ".", sets, seed);
  }
  return load_scenario(path, sets, seed);
}

// A one-line progress report on stderr: simulated time done, events per second, and an estimate of the rest.
class Progress {
 public:
  explicit Progress(bool on) : on_(on), t0_(std::chrono::steady_clock::now()) {}
  void operator()(const RunProgress& p) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (wall - last_ < 0.2) {
      return;
    }
    last_ = wall;
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
  std::chrono::steady_clock::time_point t0_;
  double last_ = 0;
  bool shown_ = false;
};

int cmd_run(const std::string& path, const std::string& out_dir, const std::vector<std::string>& sets,
            std::optional<int64_t> seed, bool quiet) {
  Simulation s(load(path, sets, seed));
  Progress progress(!quiet && isatty(STDERR_FILENO));
  std::function<void(const RunProgress&)> cb;
  if (progress.enabled()) {
    cb = [&](const RunProgress& p) { progress(p); };
  }
  RunInfo info;
  info.wall_time_s = s.run(cb);
  progress.done();
  const nlohmann::json summary = summary_json(s, info);
  ResultWriter w(out_dir);
  w.stage("flows.csv", flows_csv(s.net()));
  w.stage("ports.csv", ports_csv(s.net(), s.sim().now()));
  w.stage("summary.json", summary.dump(2) + "\n");
  w.stage("nics.csv", nics_csv(s.net(), s.sim().now()));
  w.stage("fct_buckets.csv", buckets_csv(slowdown_by_size(s.net(), parse_bucket_edges(s.scenario().output.buckets))));
  if (const TimeSeries* ts = s.timeseries()) {
    w.stage("timeseries.csv", ts->csv());
  }
  if (Capture* cap = s.capture()) {
    w.stage(cap->params().file, cap->pcap());
  }
  w.commit();
  if (!quiet) {
    fmt::print("rocesim: {} ({})\n", s.scenario().top.name, path.empty() ? kDefaultScenarioName : path);
    fmt::print("{}", summary_table(summary));
    fmt::print("  results          {}/summary.json, flows.csv, ports.csv, nics.csv, fct_buckets.csv{}{}\n", out_dir,
               s.timeseries() ? ", timeseries.csv" : "",
               s.capture() ? ", " + s.capture()->params().file : std::string());
    fmt::print("  plots            /usr/bin/python3 tools/plot.py {}   (PNGs in {}/plots)\n", out_dir, out_dir);
  }
  return 0;
}

int cmd_validate(const std::string& path, const std::vector<std::string>& sets) {
  Simulation s(load(path, sets, std::nullopt));
  fmt::print("{}: valid ({} hosts, {} switches, {} flows)\n", path, s.net().num_hosts(), s.net().switches().size(),
             s.net().flows().all().size());
  return 0;
}

int cmd_params(const std::string& component, bool markdown) {
  if (markdown) {
    fmt::print("{}", scenario_reference_markdown());
    return 0;
  }
  bool any = false;
  for (const auto& d : all_params()) {
    if (!component.empty() && d.key.rfind(component, 0) != 0) {
      continue;
    }
    any = true;
    fmt::print("{:48} {:>14}  {}{}\n", d.key, d.default_text.empty() ? "-" : d.default_text, d.doc,
               d.unit.empty() ? "" : " [" + d.unit + "]");
  }
  if (!any) {
    fmt::print(stderr, "rocesim: no parameters under '{}' (try: topology, switch, nic, workload)\n", component);
    return 2;
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

  auto* validate = app.add_subcommand("validate", "check a scenario without running it");
  validate->add_option("scenario", scenario, "scenario file (YAML)")->required();
  validate->add_option("--set", sets, "override a parameter");

  auto* params = app.add_subcommand("params", "list every parameter with its default and doc");
  params->add_option("component", component, "only keys that start with this, e.g. switch.ecn");
  params->add_flag("--markdown", markdown, "print docs/scenario-reference.md");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*run) {
      return cmd_run(scenario, out_dir, sets, seed, quiet);
    }
    if (*validate) {
      return cmd_validate(scenario, sets);
    }
    if (*params) {
      return cmd_params(component, markdown);
    }
  } catch (const InputError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocesim: failed: {}\n", e.what());
    return 1;
  }
  return 0;
}
