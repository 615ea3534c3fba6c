#include <fmt/format.h>

#include "rocesim/analysis/fabric_report.hpp"
#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim::cli {
namespace {

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

}  // namespace

void add_topology(CLI::App& app, Action& action) {
  struct Args : ScenarioArgs {
    bool json = false;
    std::string ports;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "topology", "show the fabric a scenario builds: tiers, ports, oversubscription, rails, PFC headroom, buffers");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML)")->required();
  cmd->add_flag("--json", a->json, "print the report as JSON");
  cmd->add_option("--ports-csv", a->ports,
                  "also write the port map (switch, tier, port, peer, rate, delay, headroom) to this file");
  add_set_option(*cmd, *a);
  add_seed_option(*cmd, *a);
  cmd->callback(
      [a, &action] { action = [a] { return cmd_topology(a->scenario, a->sets, a->seed, a->json, a->ports); }; });
}

}  // namespace rocesim::cli
