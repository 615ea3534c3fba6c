// Results of a run: the per-flow table, per-port counters and the summary, as data. Writers in io/ turn them
// into files; components never open files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/io/scenario.hpp"

namespace rocesim {

// Value at quantile q (0..1) of `v` by the nearest-rank method; v is sorted in place. NaN if empty.
double percentile(std::vector<double>& v, double q);

// slowdown = fct / ideal, never below 1 (HPCC convention, ground-truth.md 3.2).
double slowdown(Time fct, Time ideal);

struct RunInfo {
  double wall_time_s = 0;
};

nlohmann::json summary_json(Simulation& s, const RunInfo& info);
std::string flows_csv(const Network& net);
std::string ports_csv(const Network& net, Time now);
// A short human summary for the terminal.
std::string summary_table(const nlohmann::json& summary);

}  // namespace rocesim
