#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/io/hpcc_config.hpp"
#include "rocesim/io/qos_import.hpp"

namespace rocesim::cli {
namespace {

int cmd_import_hpcc(const std::string& config, const std::string& out) {
  const std::string dir = std::filesystem::path(out).parent_path().string();
  // The import's paths are relative to the output's folder, which must exist for them to resolve: folders made
  // for it go again if the import, or the check of what it wrote, fails.
  std::filesystem::path made;
  for (std::filesystem::path p = dir; !p.empty() && !std::filesystem::exists(p); p = p.parent_path()) {
    made = p;
  }
  std::unique_ptr<Simulation> checked;
  try {
    if (!dir.empty()) {
      std::filesystem::create_directories(dir);
    }
    const HpccImport imp = import_hpcc_config(config, dir.empty() ? "." : dir);
    for (const auto& w : imp.warnings) {
      warn(w);
    }
    // Check the result before writing it: an import that does not load is an error, not a file.
    checked = std::make_unique<Simulation>(parse_scenario(imp.yaml, out, dir.empty() ? "." : dir, {}));
    std::vector<std::string> inputs = checked->scenario().inputs;
    inputs.push_back(config);
    write_whole(out, imp.yaml, inputs);
  } catch (...) {
    std::error_code ec;
    if (!made.empty()) {
      std::filesystem::remove_all(made, ec);
    }
    throw;
  }
  const Simulation& check = *checked;
  fmt::print("{}: written ({} hosts, {} switches, {} flows)\n", printable(out), check.net().num_hosts(),
             check.net().switches().size(), check.net().flows().size());
  return 0;
}

// `rocesim import sonic|mlnx-qos FILE -o OUT`: a scenario fragment from real gear's QoS configuration.
int cmd_import_qos(const std::string& kind, const std::string& in, const std::string& out, const std::string& port) {
  const std::string text = read_text(in);
  const QosImport imp = kind == "sonic" ? import_sonic_config_db(text, in, port) : import_mlnx_qos(text, in);
  for (const auto& w : imp.warnings) {
    warn(w);
  }
  write_whole(out, imp.yaml, {in});
  fmt::print("{}: written ({} warnings); paste its sections into a scenario\n", printable(out), imp.warnings.size());
  return 0;
}

}  // namespace

void add_import(CLI::App& app, Action& action) {
  struct Args {
    std::string config, out = "scenario.yaml";
    std::string file, port, sonic_out = "switch.yaml", nic_out = "nic.yaml";
  };
  auto a = std::make_shared<Args>();
  auto* imp = app.add_subcommand("import", "convert another simulator's input into a rocesim scenario");
  imp->require_subcommand(1);
  auto* hpcc = imp->add_subcommand("hpcc", "the HPCC ns-3 simulator's config.txt");
  hpcc->add_option("config", a->config, "config.txt")->required();
  hpcc->add_option("-o,--out", a->out, "scenario file to write")->capture_default_str();
  hpcc->callback([a, &action] { action = [a] { return cmd_import_hpcc(a->config, a->out); }; });
  auto* sonic = imp->add_subcommand("sonic", "a SONiC switch's config_db.json: its QoS as the switch section");
  sonic->add_option("config_db", a->file, "config_db.json (or show runningconfiguration all)")->required();
  sonic->add_option("--port", a->port, "the port whose QoS to take (default: the first with PFC enabled)");
  sonic->add_option("-o,--out", a->sonic_out, "scenario fragment to write")->capture_default_str();
  sonic->callback([a, &action] { action = [a] { return cmd_import_qos("sonic", a->file, a->sonic_out, a->port); }; });
  auto* mlnx =
      imp->add_subcommand("mlnx-qos", "mlnx_qos -i IF output and DCQCN sysfs/mlxconfig parameters: the NIC section");
  mlnx->add_option("file", a->file, "the text: mlnx_qos report, NAME VALUE lines")->required();
  mlnx->add_option("-o,--out", a->nic_out, "scenario fragment to write")->capture_default_str();
  mlnx->callback([a, &action] { action = [a] { return cmd_import_qos("mlnx-qos", a->file, a->nic_out, ""); }; });
}

}  // namespace rocesim::cli
