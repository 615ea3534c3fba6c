// Import of the HPCC ns-3 simulator's config.txt (docs/hpcc-compat.md): the keys that map onto rocesim's model
// become a rocesim scenario; the ones rocesim cannot honour are listed as warnings, never silently dropped.
#pragma once

#include <string>
#include <vector>

namespace rocesim {

struct HpccImport {
  std::string yaml;                   // the equivalent rocesim scenario
  std::vector<std::string> warnings;  // keys and values rocesim does not honour
};

// `config`: the config.txt path. Relative TOPOLOGY_FILE/FLOW_FILE paths are looked up from the current folder
// first (where that simulator runs), then from the config file's folder. Paths in the scenario are written
// relative to `scenario_dir`. Throws InputError naming the file, line and key.
HpccImport import_hpcc_config(const std::string& config, const std::string& scenario_dir);

}  // namespace rocesim
