#include "rocesim/analysis/pause_spread.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rocesim/core/text.hpp"
#include "rocesim/topology/routing.hpp"

namespace rocesim {

Time paused_for(const PauseState& ps, int c, Time now) {
  Time t = ps.total[c];
  if (ps.until[c] != Time() && ps.since[c] < now) {  // still paused at the end of the run
    t += std::min(ps.until[c], now) - ps.since[c];
  }
  return t;
}

PauseSpread pause_spread(const Network& net, const std::string& nic, int prio, Time now) {
  PauseSpread s;
  s.source = nic;
  s.prio = prio;
  const TopologyGraph& g = net.graph();
  // Hops over the fabric as built from the faulty NIC (NICs are not transit).
  std::map<std::string, int> node_of;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    node_of[g.nodes[n].name] = static_cast<int>(n);
  }
  std::vector<int> dist;
  distances_to(g, adjacency(g, std::vector<char>(g.links.size(), 1)), node_of.at(nic), dist);
  std::map<int, PauseSpread::Hops> by;
  const auto count = [&](int hops, Time paused) {
    if (paused > Time() && hops >= 0) {
      auto& h = by[hops];
      h.hops = hops;
      ++h.ports;
      h.paused += paused;
    }
  };
  for (const auto& sw : net.switches()) {
    const int d = dist[node_of.at(sw->name())];
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      count(d, paused_for(sw->pause_state(p), prio, now));
    }
  }
  for (const auto& n : net.nics()) {
    if (n->name() != nic) {
      count(dist[node_of.at(n->name())], paused_for(n->pause_state(), prio, now));
    }
  }
  for (const auto& [d, h] : by) {
    s.by_hops.push_back(h);
    s.max_hops = std::max(s.max_hops, d);
  }
  return s;
}

bool touches(const FlowRecord& f, const std::vector<uint32_t>& faulty) {
  return std::find(faulty.begin(), faulty.end(), f.spec.src) != faulty.end() ||
         std::find(faulty.begin(), faulty.end(), f.spec.dst) != faulty.end();
}

std::vector<Victim> victim_flows(const Network& with, const Network& without, const std::vector<uint32_t>& faulty,
                                 double threshold) {
  std::vector<Victim> out;
  const auto& a = with.flows();
  const auto& b = without.flows();
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const FlowRecord& f = a[i];
    if (touches(f, faulty) || !b[i].done) {
      continue;
    }
    const Time base = b[i].end - b[i].spec.start;
    const Time fct = f.done ? f.end - f.spec.start : Time::max();
    if (!f.done || static_cast<double>(fct.ps()) > static_cast<double>(base.ps()) * (1 + threshold)) {
      out.push_back({static_cast<uint32_t>(i), fct, base});
    }
  }
  return out;
}

std::string victims_csv(const Network& with, const std::vector<Victim>& v) {
  std::string out = "id,src,dst,size,fct_ns,baseline_fct_ns,slowdown_vs_baseline,src_name,dst_name\n";
  const std::vector<FlowRecord>& flows = with.flows();
  for (const Victim& x : v) {
    const FlowRecord& f = flows[x.id];
    const bool done = x.fct != Time::max();
    out += fmt::format("{},{},{},{},{},{:.3f},{},{},{}\n", x.id, f.spec.src, f.spec.dst, f.spec.size.count(),
                       done ? fmt::format("{:.3f}", x.fct.ps() / 1000.0) : "", x.baseline_fct.ps() / 1000.0,
                       done ? fmt::format("{:.3f}", static_cast<double>(x.fct.ps()) / x.baseline_fct.ps()) : "",
                       csv_field(with.nics()[f.spec.src]->name()), csv_field(with.nics()[f.spec.dst]->name()));
  }
  return out;
}

std::vector<uint32_t> faulty_endpoints(const Network& net, const std::vector<FabricEvent>& events) {
  std::vector<uint32_t> out;
  for (const FabricEvent& e : events) {
    for (uint32_t h = 0; e.is_fault() && h < net.num_hosts(); ++h) {
      if (net.nics()[h]->name() == e.target) {
        out.push_back(h);
      }
    }
  }
  return out;
}

nlohmann::json spread_json(const PauseSpread& s) {
  nlohmann::json hops = nlohmann::json::array();
  int ports = 0;
  for (const auto& h : s.by_hops) {
    hops.push_back({{"hops", h.hops}, {"ports_paused", h.ports}, {"paused_ns", h.paused.ps() / 1000}});
    ports += h.ports;
  }
  return {
      {"source", s.source}, {"priority", s.prio}, {"ports_paused", ports}, {"max_hops", s.max_hops}, {"by_hops", hops}};
}

}  // namespace rocesim
