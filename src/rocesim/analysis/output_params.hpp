// The scenario's `output` section: what analysis to write beside the standard result files.
#pragma once

#include <string>
#include <vector>

#include "rocesim/analysis/hpcc_outputs.hpp"
#include "rocesim/analysis/trace.hpp"
#include "rocesim/core/params.hpp"

namespace rocesim {

struct TimeSeriesParams {
  Time interval;
  std::string ports;           // "leaf0:0, spine1:2"
  std::vector<int64_t> flows;  // flow ids
  Time start, stop;
  static const Schema<TimeSeriesParams>& schema();
};

struct OutputParams {
  std::string flows;    // auto, all, aggregate, off: which message records the run keeps and writes
  std::string buckets;  // upper edges of the flow-size buckets of the slowdown table
  Time warmup;          // flows that start earlier are left out of the percentiles
  bool report = true;   // write report.html
  TimeSeriesParams timeseries;
  TraceParams trace;
  HpccOutputParams hpcc;
  static const Schema<OutputParams>& schema();
};

// "1KB, 10KB" -> sizes in bytes, strictly increasing; throws UnitError.
std::vector<int64_t> parse_bucket_edges(const std::string& s);

}  // namespace rocesim
