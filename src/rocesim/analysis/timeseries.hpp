// Sampled time series: at a fixed interval, read (never change) chosen switch ports and flows, and keep tidy rows
// `t_ns,entity,metric,value` for timeseries.csv.
#pragma once

#include <string>
#include <vector>

#include "rocesim/analysis/output_params.hpp"
#include "rocesim/cluster/network.hpp"
#include "rocesim/cluster/output.hpp"

namespace rocesim {

// Contract: an output (timeseries.csv) once enabled().
class TimeSeries final : public Observer, public Output {
 public:
  // Throws InputError for unknown ports or flows. Samples from p.start (engine.watch).
  TimeSeries(const TimeSeriesParams& p, Engine& engine, Network& net, const std::string& scenario_file);
  Time look(Time now) override;
  const std::string& csv() const { return csv_; }
  bool enabled() const { return !ports_.empty() || !flows_.empty(); }
  OutputFiles files(const OutputContext&) override { return {{"timeseries.csv", csv_}}; }

 private:
  void sample(Time now);
  TimeSeriesParams p_;
  Network& net_;
  std::vector<std::pair<Switch*, uint16_t>> ports_;
  std::vector<std::string> port_names_;  // as CSV fields
  std::vector<int64_t> last_tx_;
  std::vector<uint32_t> flows_;
  std::string csv_ = "t_ns,entity,metric,value\n";
};

}  // namespace rocesim
