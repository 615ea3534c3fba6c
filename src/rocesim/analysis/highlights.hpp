// What a run's summary leads with: the answers a user asks of a run before reading any CSV. Absolute FCTs (an
// N:1 incast's slowdown is about N by construction), what the busiest receivers got, the deepest queues and the
// most-paused ports by name, and how much of the traffic the percentiles leave out (unfinished flows, warm-up).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/cluster/network.hpp"

namespace rocesim {

// Whether a flow counts in the run's percentiles: finished, and started at or after `warmup` (output.warmup).
inline bool measured(const FlowRecord& f, Time warmup) { return f.done && f.spec.start >= warmup; }

// FCT percentiles (ns) of the measured flows among `flows` (p50, p99, max; null when none).
nlohmann::json fct_ns_json(const std::vector<const FlowRecord*>& flows, Time warmup);

// summary.json's highlights at time `now` (the end of the run): "coverage" (measured, unfinished, warmed-up
// flows and bytes delivered), "receivers" (the three endpoints that took the most payload), "deepest_queues" and
// "most_paused" (three each).
nlohmann::json highlights_json(const Network& net, Time warmup, Time now);

// The summary table's lines for them.
std::string highlights_table(const nlohmann::json& summary);

}  // namespace rocesim
