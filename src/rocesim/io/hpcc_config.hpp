// Import of the HPCC ns-3 simulator's config.txt (docs/hpcc-compat.md): the keys that map onto rocesim's model
// become a rocesim scenario; the ones rocesim cannot honour are listed as warnings, never silently dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocesim/core/units.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {

struct HpccImport {
  std::string yaml;                   // the equivalent rocesim scenario
  std::vector<std::string> warnings;  // keys and values rocesim does not honour
};

// `config`: the config.txt path. Relative TOPOLOGY_FILE/FLOW_FILE paths are looked up from the current folder
// first (where that simulator runs), then from the config file's folder. Paths in the scenario are written
// relative to `scenario_dir`. Throws InputError naming the file, line and key.
HpccImport import_hpcc_config(const std::string& config, const std::string& scenario_dir);

// That simulator's maxRtt, the T of every flow under GLOBAL_T 1: over every pair of hosts, twice the propagation
// delay plus one `payload`'s serialisation per hop along the path its breadth-first search reaches first; the
// largest (hosts do not forward). Nothing for a fabric too large to search pair by pair (hosts x links > 10^9).
std::optional<Time> hpcc_max_rtt(const TopologyGraph& g, int64_t payload);

}  // namespace rocesim
