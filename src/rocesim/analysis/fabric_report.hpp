// `rocesim topology`: the fabric a scenario builds, before running it. Switches per tier with their ports
// (down toward the NICs, up away from them), the oversubscription of each tier, servers, NICs and rails, the
// lossless priorities with each port's PFC headroom and each switch's shared pool; and the port map.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/cluster/network.hpp"
#include "rocesim/topology/routing.hpp"

namespace rocesim {

// Per switch of `net` (in its order), the tier (an index into `tiers.names`).
std::vector<int> tier_of_switches(const Network& net, const Tiers& tiers);

// The report as JSON (`--json`). `sw` is the scenario's switch section (lossless priorities, headroom mode).
nlohmann::json fabric_json(const Network& net, const SwitchParams& sw);
// The same, as the table `rocesim topology` prints.
std::string fabric_table(const nlohmann::json& j);
// One row per switch port: switch,tier,port,peer,peer_endpoint,direction,rate_gbps,delay_ns,headroom_bytes.
// direction is down (toward the NICs), up, or across (a peer of the same tier).
std::string port_map_csv(const Network& net);

}  // namespace rocesim
