// The data behind report.html: what a person looks at first, computed from a finished run. The HTML page
// (io/report_html.hpp) only draws it; `rocesim report` overlays the data of several runs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocesim/analysis/timeseries.hpp"
#include "rocesim/cluster/network.hpp"

namespace rocesim {

// Points kept of a CDF or a time series: enough for a screen, small for a 10^6-flow run.
inline constexpr size_t kReportMaxPoints = 1000;

// `summary` is the run's summary.json; `name` labels the run in an overlay. Keys (docs/outputs.md, report.html):
// name, summary, cdf {fct_ns, slowdown} (each [[value, fraction], ...]), top_flows, top_ports, topology {nodes,
// links}, timeseries {t_ns, series}.
// `ts`: the run's sampled time series (null: none).
nlohmann::json report_data(const Network& net, Time now, Time warmup, const TimeSeries* ts,
                           const nlohmann::json& summary, const std::string& name);

// `n` sorted values as at most `max_points` [value, fraction ≤ value] pairs: every value when they fit, else the
// values at evenly spaced ranks, the first and the last included.
nlohmann::json cdf_points(const std::vector<double>& sorted, size_t max_points = kReportMaxPoints);

}  // namespace rocesim
