#include <fmt/format.h>

#include "rocesim/cli/command.hpp"
#include "rocesim/cli/common.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim::cli {
namespace {

// Writes the flows a scenario's workloads generate, as rocesim flow CSV or as an HPCC simulator flow file.
int cmd_flows(const std::string& path, const std::string& out, const std::string& format, double offset_s,
              const std::vector<std::string>& sets, std::optional<int64_t> seed) {
  Simulation s(load(path, sets, seed));
  std::string text;
  const auto& flows = s.net().flows();
  if (format == "hpcc") {
    text = std::to_string(flows.size()) + "\n";
    const auto& g = s.net().graph();
    for (const auto& f : flows) {
      if (f.spec.op != RdmaOp::kWrite) {
        throw InputError(
            path, 0, "workload",
            "the HPCC flow format has only writes; flow " + std::to_string(f.id) + " is a " + to_string(f.spec.op));
      }
      text +=
          fmt::format("{} {} {} {} {} {:.9f}\n", g.hosts[f.spec.src], g.hosts[f.spec.dst], f.spec.priority,
                      f.spec.app_port ? f.spec.app_port : 100, f.spec.size.count(), offset_s + f.spec.start.sec_f());
    }
  } else {
    text = "src,dst,size,start,priority,operation\n";
    for (const auto& f : flows) {
      text += fmt::format("{},{},{}B,{}ps,{},{}\n", f.spec.src, f.spec.dst, f.spec.size.count(), f.spec.start.ps(),
                          f.spec.priority, to_string(f.spec.op));
    }
  }
  write_whole(out, text, s.scenario().inputs);
  fmt::print("{}: {} flows\n", printable(out), flows.size());
  return 0;
}

}  // namespace

void add_flows(CLI::App& app, Action& action) {
  struct Args : ScenarioArgs {
    std::string out = "flows.txt", format = "csv";
    double offset = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("flows", "write the flows a scenario's workloads generate, without running it");
  cmd->add_option("scenario", a->scenario, "scenario file (YAML)")->required();
  cmd->add_option("-o,--out", a->out, "file to write")->capture_default_str();
  cmd->add_option("--format", a->format, "csv (rocesim flow file) or hpcc (the HPCC ns-3 flow file)")
      ->check(CLI::IsMember({"csv", "hpcc"}))
      ->capture_default_str();
  cmd->add_option("--offset", a->offset, "seconds added to start times (hpcc; that simulator starts at 2 s)");
  add_set_option(*cmd, *a);
  add_seed_option(*cmd, *a);
  cmd->callback([a, &action] {
    action = [a] { return cmd_flows(a->scenario, a->out, a->format, a->offset, a->sets, a->seed); };
  });
}

}  // namespace rocesim::cli
