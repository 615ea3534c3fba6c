#include "rocesim/analysis/report.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "rocesim/analysis/fabric_report.hpp"
#include "rocesim/analysis/highlights.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim {

nlohmann::json cdf_points(const std::vector<double>& sorted, size_t max_points) {
  nlohmann::json out = nlohmann::json::array();
  const size_t n = sorted.size();
  if (n == 0) {
    return out;
  }
  const size_t m = std::min(n, std::max<size_t>(max_points, 2));
  for (size_t i = 0; i < m; ++i) {
    // Rank (0-based) of the i-th kept point; with m == n every rank.
    const size_t r = m == 1 ? n - 1 : (i * (n - 1) + (m - 1) / 2) / (m - 1);
    out.push_back({sorted[r], static_cast<double>(r + 1) / static_cast<double>(n)});
  }
  return out;
}

namespace {

constexpr size_t kTopRows = 10;
// A fabric with more nodes than this is drawn without its NICs (switches and switch-to-switch links only); one
// with more switches than this is not drawn.
constexpr size_t kMaxDrawnNodes = 1500;

double ns(Time t) { return static_cast<double>(t.ps()) / 1000.0; }

nlohmann::json flow_cdfs(const Network& net, Time warmup) {
  std::vector<double> fct, sd;
  for (const auto& f : net.flows()) {
    if (measured(f, warmup)) {
      fct.push_back(ns(f.end - f.spec.start));
      sd.push_back(slowdown(f.end - f.spec.start, f.ideal_fct));
    }
  }
  std::sort(fct.begin(), fct.end());
  std::sort(sd.begin(), sd.end());
  return {{"fct_ns", cdf_points(fct)}, {"slowdown", cdf_points(sd)}, {"flows", fct.size()}};
}

// The finished flows slowed down most (ties: lower id first).
nlohmann::json top_flows(const Network& net, Time warmup) {
  std::vector<std::pair<double, const FlowRecord*>> v;
  for (const auto& f : net.flows()) {
    if (measured(f, warmup)) {
      v.emplace_back(slowdown(f.end - f.spec.start, f.ideal_fct), &f);
    }
  }
  const size_t k = std::min(kTopRows, v.size());
  std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->id < b.second->id;
  });
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < k; ++i) {
    const FlowRecord& f = *v[i].second;
    out.push_back({{"flow_id", f.id},
                   {"src", net.nics()[f.spec.src]->name()},
                   {"dst", net.nics()[f.spec.dst]->name()},
                   {"size_bytes", f.spec.size.count()},
                   {"fct_ns", ns(f.end - f.spec.start)},
                   {"slowdown", v[i].first}});
  }
  return out;
}

// Switch egress queues and NICs paused longest, per priority.
nlohmann::json top_ports(const Network& net, Time now) {
  struct Row {
    double paused_ns;
    std::string port, peer;
    int prio;
    int64_t pauses;
  };
  std::vector<Row> rows;
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      for (int c = 0; c < 8; ++c) {
        if (const Time t = paused_for(sw->pause_state(p), c, now); t > Time()) {
          rows.push_back({ns(t), sw->name() + ":" + std::to_string(p), sw->link(p).peer->name(), c,
                          sw->pause_state(p).xoff_rcvd[c]});
        }
      }
    }
  }
  for (const auto& n : net.nics()) {
    for (int c = 0; c < 8; ++c) {
      if (const Time t = paused_for(n->pause_state(), c, now); t > Time()) {
        rows.push_back({ns(t), n->name(), n->link().peer->name(), c, n->pause_state().xoff_rcvd[c]});
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.paused_ns > b.paused_ns; });
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < std::min(kTopRows, rows.size()); ++i) {
    out.push_back({{"port", rows[i].port},
                   {"peer", rows[i].peer},
                   {"priority", rows[i].prio},
                   {"paused_ns", rows[i].paused_ns},
                   {"pauses_received", rows[i].pauses}});
  }
  return out;
}

// Nodes with their level (0: NICs, then the switch tiers upward) and links with, per direction, the share of
// the run the link was busy and the time its sender was paused (longest over priorities).
nlohmann::json topology(const Network& net, Time now) {
  const Tiers tiers = switch_tiers(net.graph());
  const std::vector<int> tier = tier_of_switches(net, tiers);
  const double span = std::max(ns(now), 1e-9);
  const bool with_nics = net.switches().size() + net.nics().size() <= kMaxDrawnNodes;
  nlohmann::json nodes = nlohmann::json::array(), links = nlohmann::json::array();
  if (net.switches().size() > kMaxDrawnNodes) {  // not even the switches: a page that large would not draw
    return {{"nodes", nodes}, {"links", links}, {"nics_drawn", false}, {"span_ns", ns(now)}, {"omitted", true}};
  }
  std::map<const Node*, size_t> index;
  if (with_nics) {
    for (const auto& n : net.nics()) {
      index[n.get()] = nodes.size();
      nodes.push_back({{"name", n->name()}, {"level", 0}});
    }
  }
  for (size_t i = 0; i < net.switches().size(); ++i) {
    const Switch* sw = net.switches()[i].get();
    index[sw] = nodes.size();
    nodes.push_back({{"name", sw->name()}, {"level", tier[i] + 1}, {"tier", tier[i] >= 0 ? tiers.names[tier[i]] : ""}});
  }
  const auto busy = [&](int64_t bytes, Rate rate) {
    return rate.bps() > 0 ? static_cast<double>(bytes) * 8.0 / static_cast<double>(rate.bps()) * 1e9 / span : 0.0;
  };
  for (const auto& sw : net.switches()) {
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      const LinkEnd& l = sw->link(p);
      const auto peer = index.find(l.peer);
      if (peer == index.end()) {
        continue;
      }
      int64_t bytes = 0;
      double paused = 0;
      for (int c = 0; c < 8; ++c) {
        bytes += sw->counters(p, c).tx_bytes;
        paused = std::max(paused, ns(paused_for(sw->pause_state(p), c, now)));
      }
      nlohmann::json link = {{"from", index[sw.get()]},
                             {"to", peer->second},
                             {"port", p},
                             {"rate_gbps", static_cast<double>(l.rate.bps()) / 1e9},
                             {"utilisation", busy(bytes, l.rate)},
                             {"paused_ns", paused}};
      links.push_back(std::move(link));
    }
  }
  // A NIC's own direction (NIC to switch).
  if (with_nics) {
    for (const auto& n : net.nics()) {
      double paused = 0;
      for (int c = 0; c < 8; ++c) {
        paused = std::max(paused, ns(paused_for(n->pause_state(), c, now)));
      }
      const auto peer = index.find(n->link().peer);
      if (peer != index.end()) {
        links.push_back({{"from", index[n.get()]},
                         {"to", peer->second},
                         {"rate_gbps", static_cast<double>(n->link().rate.bps()) / 1e9},
                         {"utilisation", busy(n->counters().tx_bytes, n->link().rate)},
                         {"paused_ns", paused}});
      }
    }
  }
  return {{"nodes", nodes}, {"links", links}, {"nics_drawn", with_nics}, {"span_ns", span}};
}

// timeseries.csv regrouped: one series per (entity, metric), on a shared time axis, thinned to at most
// kReportMaxPoints samples (every k-th).
nlohmann::json timeseries(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  std::vector<double> t;
  std::map<std::string, std::vector<double>> series;
  std::vector<std::string> order;
  while (std::getline(in, line)) {
    const std::vector<std::string> c = csv_split(line);
    if (c.size() != 4) {
      continue;
    }
    const double tn = std::stod(c[0]);
    if (t.empty() || t.back() != tn) {
      t.push_back(tn);
    }
    const std::string key = c[1] + " " + c[2];
    auto [it, fresh] = series.try_emplace(key);
    if (fresh) {
      order.push_back(key);
    }
    it->second.resize(t.size() - 1, 0.0);
    it->second.push_back(std::stod(c[3]));
  }
  const size_t step = t.size() > kReportMaxPoints ? (t.size() + kReportMaxPoints - 1) / kReportMaxPoints : 1;
  const auto thin = [&](const std::vector<double>& v) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < t.size(); i += step) {
      out.push_back(i < v.size() ? v[i] : 0.0);
    }
    return out;
  };
  nlohmann::json s = nlohmann::json::array();
  for (const std::string& key : order) {
    const size_t sp = key.find(' ');
    s.push_back({{"entity", key.substr(0, sp)}, {"metric", key.substr(sp + 1)}, {"values", thin(series[key])}});
  }
  return {{"t_ns", thin(t)}, {"series", s}};
}

}  // namespace

nlohmann::json report_data(const Network& net, Time now, Time warmup, const TimeSeries* ts,
                           const nlohmann::json& summary, const std::string& name) {
  nlohmann::json j;
  j["name"] = name;
  j["summary"] = summary;
  j["cdf"] = flow_cdfs(net, warmup);
  j["top_flows"] = top_flows(net, warmup);
  j["top_ports"] = top_ports(net, now);
  j["topology"] = topology(net, now);
  if (ts) {
    j["timeseries"] = timeseries(ts->csv());
  }
  return j;
}

}  // namespace rocesim
