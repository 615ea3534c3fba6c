// Where PFC pauses went, rolled up: per switch tier (and the NICs), and per rail on fabrics whose servers have
// several NICs. A port counts as paused if a PFC pause held one of its priorities at some time.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/cluster/network.hpp"

namespace rocesim {

// {"by_tier": [...], "by_rail": [...]} at time `now`. A tier row: tier, ports, ports_paused, paused_ns (summed
// over ports and priorities), pause_frames_sent, pause_frames_received, first_paused_ns (null if none); the
// last row is tier "nic", the NICs. A rail row (rail k: the NICs of index k, and the switches whose NICs are
// all of index k): rail, nics, nics_paused, nic_paused_ns, switches, switch_ports_paused, switch_paused_ns,
// first_paused_ns.
nlohmann::json pfc_rollup_json(const Network& net, Time now);

// The summary table's lines for them (none when nothing was paused).
std::string pfc_rollup_table(const nlohmann::json& summary);

}  // namespace rocesim
