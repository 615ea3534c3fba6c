#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/core/error.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/sweep/summary.hpp"

namespace rocesim::cli {
namespace {

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

}  // namespace

void add_compare(CLI::App& app, Action& action) {
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("compare", "print the key results of result folders side by side");
  cmd->add_option("runs", *dirs, "result folders (each with its summary.json)")->required()->expected(2, -1);
  cmd->callback([dirs, &action] { action = [dirs] { return cmd_compare(*dirs); }; });
}

}  // namespace rocesim::cli
