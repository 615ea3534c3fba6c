#include "rocesim/check/check.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim::cli {
namespace {

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

}  // namespace

void add_check(CLI::App& app, Action& action) {
  struct Args : ScenarioArgs {
    int failures = 0;
    bool json = false, quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "check", "find PFC deadlock cycles (also after link failures) and lossless misconfiguration without running");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML)")->required();
  cmd->add_option("--failures", a->failures,
                  "also check routes with every set of up to N switch-to-switch links down (0..2)")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "print the report as JSON");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress line");
  add_set_option(*cmd, *a);
  add_seed_option(*cmd, *a);
  cmd->callback([a, &action] {
    action = [a] { return cmd_check(a->scenario, a->sets, a->seed, a->failures, a->json, a->quiet); };
  });
}

}  // namespace rocesim::cli
