#include "rocesim/cli/command.hpp"

#include <stdexcept>

#include "rocesim/engine/engine.hpp"

namespace rocesim::cli {

std::vector<std::string> ScenarioArgs::all_sets() const {
  std::vector<std::string> out = sets;
  if (!threads.empty()) {
    out.push_back("engine.threads=" + threads);
  }
  return out;
}

void add_set_option(CLI::App& cmd, ScenarioArgs& a, const std::string& help) { cmd.add_option("--set", a.sets, help); }

void add_seed_option(CLI::App& cmd, ScenarioArgs& a) {
  cmd.add_option("--seed", a.seed, "override the scenario's seed");
}

void add_threads_option(CLI::App& cmd, ScenarioArgs& a, const std::string& help) {
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
  cmd.add_option("--threads", a.threads, help)->check(thread_count);
}

}  // namespace rocesim::cli
