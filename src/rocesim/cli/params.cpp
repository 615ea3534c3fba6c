#include <fmt/format.h>

#include "rocesim/cli/command.hpp"
#include "rocesim/core/error.hpp"
#include "rocesim/io/scenario.hpp"

namespace rocesim::cli {
namespace {

int cmd_params(const std::string& component, bool markdown) {
  if (markdown) {
    fmt::print("{}", scenario_reference_markdown());
    return 0;
  }
  // A key of one kind of component ("topology[leaf-spine].rail") is also found without the kind
  // ("topology.rail"), in every kind that has it.
  const auto without_kinds = [](const std::string& key) {
    std::string out;
    for (size_t i = 0; i < key.size(); ++i) {
      if (key[i] == '[') {
        const size_t close = key.find(']', i);
        if (close == std::string::npos) {
          break;
        }
        i = close;
      } else {
        out += key[i];
      }
    }
    return out;
  };
  bool any = false;
  for (const auto& d : all_params()) {
    if (!component.empty() && d.key.rfind(component, 0) != 0 && without_kinds(d.key).rfind(component, 0) != 0) {
      continue;
    }
    any = true;
    fmt::print("{:48} {:>14}  {}{}\n", d.key, d.default_text.empty() ? "-" : d.default_text, d.doc,
               d.unit.empty() ? "" : " [" + d.unit + "]");
  }
  if (!any) {
    throw InputError("command line", 0, "params",
                     "no parameters under '" + component + "' (try: topology, switch, nic, workload)");
  }
  return 0;
}

}  // namespace

void add_params(CLI::App& app, Action& action) {
  struct Args {
    std::string component;
    bool markdown = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("params", "list every parameter with its default and doc");
  cmd->add_option("component", a->component, "only keys that start with this, e.g. switch.ecn");
  cmd->add_flag("--markdown", a->markdown, "print docs/scenario-reference.md");
  cmd->callback([a, &action] { action = [a] { return cmd_params(a->component, a->markdown); }; });
}

}  // namespace rocesim::cli
