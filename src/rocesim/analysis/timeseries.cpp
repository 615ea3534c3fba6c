#include "rocesim/analysis/timeseries.hpp"

#include <fmt/format.h>

#include <sstream>

#include "rocesim/core/text.hpp"

namespace rocesim {

TimeSeries::TimeSeries(const TimeSeriesParams& p, Engine& engine, Network& net, const std::string& file)
    : p_(p), net_(net) {
  ports_ = net.parse_ports(p.ports, file, "output.timeseries.ports", &port_names_);
  for (std::string& name : port_names_) {
    name = csv_field(name);  // written into every sample's row
  }
  last_tx_.assign(ports_.size(), 0);
  for (int64_t f : p.flows) {
    if (f < 0 || static_cast<size_t>(f) >= net.setup_flows()) {
      throw InputError(
          file, 0, "output.timeseries.flows",
          "flow " + std::to_string(f) + " does not exist (" + std::to_string(net.setup_flows()) + " flows)");
    }
    flows_.push_back(static_cast<uint32_t>(f));
  }
  if (enabled()) {
    engine.watch(this, p.start);
  }
}

Time TimeSeries::look(Time now) {
  sample(now);
  const Time next = now + p_.interval;
  return next <= p_.stop ? next : Time::max();
}

void TimeSeries::sample(Time now) {
  const int64_t t = now.ps() / 1000;
  const double interval_s = p_.interval.sec_f();
  for (size_t i = 0; i < ports_.size(); ++i) {
    auto [sw, port] = ports_[i];
    int64_t tx = 0;
    const PauseState& ps = sw->pause_state(port);
    for (int c = 0; c < 8; ++c) {
      const auto& k = sw->counters(port, c);
      tx += k.tx_bytes;
      if (k.tx_packets > 0 || sw->queued_bytes(port, c) > 0) {
        csv_ += fmt::format("{},{},queue_bytes.p{},{}\n", t, port_names_[i], c, sw->queued_bytes(port, c));
        csv_ += fmt::format("{},{},paused.p{},{}\n", t, port_names_[i], c, ps.paused(c, now) ? 1 : 0);
      }
    }
    if (now > p_.start) {
      csv_ += fmt::format("{},{},tx_gbps,{:.3f}\n", t, port_names_[i],
                          static_cast<double>(tx - last_tx_[i]) * 8 / interval_s / 1e9);
    }
    last_tx_[i] = tx;
  }
  for (uint32_t f : flows_) {
    const Network::FlowPath at = net_.flow_path(f);
    csv_ += fmt::format("{},flow{},rate_gbps,{:.3f}\n", t, f, net_.nic(at.sender).qp_rate(at.send_qpn).gbps_f());
    csv_ += fmt::format("{},flow{},delivered_bytes,{}\n", t, f, net_.nic(at.receiver).delivered(at.recv_qpn));
  }
}

}  // namespace rocesim
