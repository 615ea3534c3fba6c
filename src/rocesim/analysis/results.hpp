// Results of a run: the per-flow table, per-port counters and the summary, as data. Writers in io/ turn them
// into files; components never open files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rocesim/cluster/network.hpp"
#include "rocesim/engine/engine.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {

// Value at quantile q (0..1) of `v` by the nearest-rank method; v is sorted in place. NaN if empty.
double percentile(std::vector<double>& v, double q);

// slowdown = fct / ideal, never below 1 (HPCC convention: alibaba-edu/High-Precision-Congestion-Control
// simulation/scratch/third.cc qp_finish and analysis/fct_analysis.py).
double slowdown(Time fct, Time ideal);

std::string flows_csv(const Network& net);
// One row per message group (output.flows: aggregate): a collective call's messages on one queue pair.
std::string messages_csv(const Network& net);
// summary.json's message_groups: how the records were kept, and the groups' totals.
nlohmann::json message_groups_json(const Network& net, const std::string& records);
std::string ports_csv(const Network& net, Time now);
std::string nics_csv(const Network& net, Time now);
// engine.json (engine.profile): how the partitioned engine shared the run out.
std::string engine_json(const Engine& engine, const TopologyGraph& g);
// FCT slowdown per flow-size bucket (p50/p95/p99, the layout of the HPCC paper's figures): rows of
// `lo_bytes,hi_bytes,flows,p50,p95,p99`; `edges` are the buckets' upper edges, a last bucket takes the rest.
struct SizeBucket {
  int64_t lo = 0, hi = 0;  // (lo, hi] bytes; hi = -1 for the open last bucket
  size_t flows = 0;
  double p50 = 0, p95 = 0, p99 = 0;
};
// Of the flows that count (finished, started at or after `warmup`).
std::vector<SizeBucket> slowdown_by_size(const Network& net, const std::vector<int64_t>& edges, Time warmup);
std::string buckets_csv(const std::vector<SizeBucket>& b);
// A short human summary for the terminal.
std::string summary_table(const nlohmann::json& summary);

}  // namespace rocesim
