// The program's commands: each is one file under cli/ that adds its subcommand, with its options, to the parser.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rocesim::cli {

// A command's body: main runs it once the command line is parsed and interrupts are caught; it returns the exit
// status (0 success, 1 failure; bad input throws InputError, which main turns into status 2).
using Action = std::function<int()>;

// The scenario a command reads and the overrides it takes.
struct ScenarioArgs {
  std::string scenario;
  std::vector<std::string> sets;
  std::optional<int64_t> seed;
  std::string threads;  // --threads N: the same as --set engine.threads=N (results do not depend on it)
  // The overrides, --threads last.
  std::vector<std::string> all_sets() const;
};
void add_set_option(CLI::App& cmd, ScenarioArgs& a, const std::string& help = "override a parameter");
void add_seed_option(CLI::App& cmd, ScenarioArgs& a);
void add_threads_option(CLI::App& cmd, ScenarioArgs& a, const std::string& help);

// Contract: each adds one subcommand to `app`; when the command line names it, its callback sets `action`.
void add_run(CLI::App& app, Action& action);
void add_import(CLI::App& app, Action& action);
void add_validate(CLI::App& app, Action& action);
void add_check(CLI::App& app, Action& action);
void add_flows(CLI::App& app, Action& action);
void add_topology(CLI::App& app, Action& action);
void add_plot(CLI::App& app, Action& action);
void add_nccl_tests(CLI::App& app, Action& action);
void add_sweep(CLI::App& app, Action& action);
void add_report(CLI::App& app, Action& action);
void add_compare(CLI::App& app, Action& action);
void add_params(CLI::App& app, Action& action);

}  // namespace rocesim::cli
