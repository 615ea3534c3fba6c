#include <fmt/format.h>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/io/report_html.hpp"

namespace rocesim::cli {
namespace {

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

}  // namespace

void add_report(CLI::App& app, Action& action) {
  struct Args {
    std::vector<std::string> dirs;
    std::string out = "report.html";
    bool quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("report", "overlay the reports of several result folders in one page");
  cmd->add_option("runs", a->dirs, "result folders (each with the report.html its run wrote)")->required();
  cmd->add_option("-o,--out", a->out, "the page to write")->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "print nothing");
  cmd->callback([a, &action] { action = [a] { return cmd_report(a->dirs, a->out, a->quiet); }; });
}

}  // namespace rocesim::cli
