// What a fault's pauses did to the rest of the fabric: how far PFC pauses spread from a faulty NIC (ports paused
// and for how long, by hops from it), and the victim flows, those that never crossed the faulty NIC yet were
// slowed, found by comparing each flow with the same run without the fault.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/cluster/fabric_events.hpp"
#include "rocesim/cluster/network.hpp"

namespace rocesim {

// Time `ps` held priority c paused up to `now` (a pause still on counts to now).
Time paused_for(const PauseState& ps, int c, Time now);

struct PauseSpread {
  std::string source;  // the faulty NIC
  int prio = 0;
  struct Hops {
    int hops = 0;   // switches: 1 for the faulty NIC's own; a NIC counts at its switch's hops + 1
    int ports = 0;  // switch egress ports and NICs paused at some time on `prio`
    Time paused;    // their paused time, summed
  };
  std::vector<Hops> by_hops;  // only distances where something was paused, nearest first
  int max_hops = 0;
};
PauseSpread pause_spread(const Network& net, const std::string& nic, int prio, Time now);

// A flow is a victim of a fault if it finished more than this fraction later than without the fault.
inline constexpr double kVictimThreshold = 0.05;

struct Victim {
  uint32_t id = 0;
  Time fct;           // in the run with the fault; Time::max() if it did not finish
  Time baseline_fct;  // without it
};
// Whether the flow starts or ends at one of the `faulty` NICs (such a flow is never a victim).
bool touches(const FlowRecord& f, const std::vector<uint32_t>& faulty);
// Flows whose ends are not among `faulty` (endpoints), that finished without the fault, and with it finished
// more than `threshold` (a fraction) later or not at all. Both networks ran the same flows (same seed).
std::vector<Victim> victim_flows(const Network& with, const Network& without, const std::vector<uint32_t>& faulty,
                                 double threshold);
std::string victims_csv(const Network& with, const std::vector<Victim>& v);

nlohmann::json spread_json(const PauseSpread& s);

// The endpoints of the NICs the scenario's faults (events: pause_storm) make faulty.
std::vector<uint32_t> faulty_endpoints(const Network& net, const std::vector<FabricEvent>& events);

}  // namespace rocesim
