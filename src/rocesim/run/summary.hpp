// summary.json: a run's totals (flows, FCT, drops, PFC, ECN, transport, CPU, packets), what its faults and
// detectors found, each workload's part, and the scenario as resolved.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rocesim/run/simulation.hpp"

namespace rocesim {

struct RunInfo {
  double wall_time_s = 0;
  bool partial = false;        // cut short: the results stop at the time reached
  std::string partial_reason;  // "interrupt" (SIGINT, SIGTERM) or "memory limit"
  // The same scenario run without its faults (events: pause_storm), for the victim flows; null if none.
  const Network* baseline = nullptr;
};

nlohmann::json summary_json(Simulation& s, const RunInfo& info);
// The files of the workloads' reports (perftest.txt, ...), same-named ones joined.
std::vector<std::pair<std::string, std::string>> report_files(const Simulation& s);

}  // namespace rocesim
