#include "rocesim/analysis/output_params.hpp"

#include <sstream>

namespace rocesim {

std::vector<int64_t> parse_bucket_edges(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) {
      continue;
    }
    const int64_t v = parse_bytes(item.substr(b, e - b + 1)).count();
    if (!out.empty() && v <= out.back()) {
      throw UnitError{"bucket edges must increase"};
    }
    out.push_back(v);
  }
  return out;
}

const Schema<TimeSeriesParams>& TimeSeriesParams::schema() {
  static const Schema<TimeSeriesParams> s = [] {
    Schema<TimeSeriesParams> sc("timeseries", "sampled time series, written to timeseries.csv");
    sc.add(&TimeSeriesParams::interval, "interval", "10us", "sampling interval", at_least(Time::ns(1)))
        .add(&TimeSeriesParams::ports, "ports", "",
             "switch ports to sample (queue per priority, throughput, pause state), as switch:port, comma-separated",
             {}, "name:port, ...")
        .add(&TimeSeriesParams::flows, "flows", "[]", "flows whose sending rate and progress to sample", {}, "flow id")
        .add(&TimeSeriesParams::start, "start", "0ns", "first sample", at_least(Time()))
        .add(&TimeSeriesParams::stop, "stop", "1000s", "no samples after this time")
        .validate([](const TimeSeriesParams& p) -> std::optional<std::pair<std::string, std::string>> {
          if (p.stop <= p.start) {  // an empty window samples nothing: a mistake, as for capture
            return std::make_pair("stop", "must be after start");
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

const Schema<OutputParams>& OutputParams::schema() {
  static const Schema<OutputParams> s = [] {
    Schema<OutputParams> sc("output", "analysis written beside the standard result files");
    sc.add(&OutputParams::flows, "flows", "auto",
           "message records: all (a flows.csv row per message), aggregate (a collective's messages summed per call "
           "and queue pair in messages.csv, memory by the cluster, not the messages), off (neither file; the "
           "summary still counts them), auto (all for up to a million collective messages that fit in memory, else "
           "aggregate)",
           one_of({"auto", "all", "aggregate", "off"}))
        .add(&OutputParams::buckets, "buckets", "10KB, 100KB, 1MB, 10MB",
             "upper edges of the flow-size buckets of the slowdown table (a last bucket takes the rest)",
             parses(parse_bucket_edges), "sizes")
        .add(&OutputParams::warmup, "warmup", "0ns",
             "leave flows that start before this out of every FCT percentile (steady-state studies); the summary "
             "says how many",
             at_least(Time()))
        .add(&OutputParams::report, "report", "true",
             "write report.html: the run's figures, charts and fabric in one page that opens offline in a browser")
        .sub(&OutputParams::timeseries, "timeseries", TimeSeriesParams::schema())
        .sub(&OutputParams::trace, "trace", TraceParams::schema())
        .sub(&OutputParams::hpcc, "hpcc", HpccOutputParams::schema());
    return sc;
  }();
  return s;
}

}  // namespace rocesim
