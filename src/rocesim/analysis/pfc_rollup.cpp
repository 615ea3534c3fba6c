#include "rocesim/analysis/pfc_rollup.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rocesim/analysis/fabric_report.hpp"
#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/core/text.hpp"

namespace rocesim {
namespace {

// Pauses that held one port (a switch egress port or a NIC).
struct Held {
  Time paused;  // over all priorities
  int64_t received = 0;
  Time first = Time::max();
};
Held held(const PauseState& ps, Time now) {
  Held h;
  for (int c = 0; c < 8; ++c) {
    h.paused += paused_for(ps, c, now);
    h.received += ps.xoff_rcvd[c];
  }
  h.first = ps.first_paused;
  return h;
}

struct Sum {
  int64_t ports = 0, paused_ports = 0, sent = 0, received = 0;
  Time paused, first = Time::max();
  void add(const Held& h) {
    ++ports;
    paused_ports += h.paused > Time();
    paused += h.paused;
    received += h.received;
    first = std::min(first, h.first);
  }
};

double ns(Time t) { return static_cast<double>(t.ps()) / 1000.0; }
nlohmann::json first_json(Time t) { return t == Time::max() ? nlohmann::json() : nlohmann::json(ns(t)); }

}  // namespace

nlohmann::json pfc_rollup_json(const Network& net, Time now) {
  const Tiers tiers = switch_tiers(net.graph());
  const std::vector<int> tier_of = tier_of_switches(net, tiers);
  std::vector<Sum> tier(tiers.names.size());
  Sum nics;

  // Rails: a NIC's index on its server; a switch is on rail k if every NIC it links to has index k.
  std::vector<int> nic_index(net.num_hosts(), 0);
  size_t rails = 0;
  for (size_t s = 0; s < net.num_servers(); ++s) {
    for (size_t k = 0; k < net.server(s).num_nics(); ++k) {
      nic_index[net.server(s).endpoint(k)] = static_cast<int>(k);
    }
    rails = std::max(rails, net.server(s).num_nics());
  }
  if (rails < 2) {
    rails = 0;
  }
  std::unordered_map<const Node*, int> rail_of_nic;
  for (uint32_t h = 0; h < net.num_hosts(); ++h) {
    rail_of_nic[net.nics()[h].get()] = nic_index[h];
  }
  std::vector<Sum> rail_nics(rails), rail_switches(rails);
  std::vector<int64_t> rail_switch_count(rails, 0);

  for (size_t i = 0; i < net.switches().size(); ++i) {
    const Switch& sw = *net.switches()[i];
    int rail = -1;  // -2: NICs of several indices, or none
    Sum mine;
    for (uint16_t p = 0; p < sw.num_ports(); ++p) {
      const Held h = held(sw.pause_state(p), now);
      mine.add(h);
      for (int c = 0; c < 8; ++c) {
        mine.sent += sw.counters(p, c).xoff_sent;
      }
      if (const auto r = rail_of_nic.find(sw.link(p).peer); r != rail_of_nic.end()) {
        rail = rail == -1 || rail == r->second ? r->second : -2;
      }
    }
    Sum& t = tier[tier_of[i]];
    t.ports += mine.ports, t.paused_ports += mine.paused_ports, t.sent += mine.sent, t.received += mine.received;
    t.paused += mine.paused, t.first = std::min(t.first, mine.first);
    if (rails && rail >= 0) {
      Sum& r = rail_switches[rail];
      r.ports += mine.ports, r.paused_ports += mine.paused_ports, r.paused += mine.paused;
      r.first = std::min(r.first, mine.first);
      ++rail_switch_count[rail];
    }
  }
  for (uint32_t h = 0; h < net.num_hosts(); ++h) {
    const Held x = held(net.nics()[h]->pause_state(), now);
    nics.add(x);
    nics.sent += net.nics()[h]->counters().pause_sent;
    if (rails) {
      rail_nics[nic_index[h]].add(x);
    }
  }

  const auto row = [](const std::string& name, const Sum& s) {
    return nlohmann::json{{"tier", name},
                          {"ports", s.ports},
                          {"ports_paused", s.paused_ports},
                          {"paused_ns", ns(s.paused)},
                          {"pause_frames_sent", s.sent},
                          {"pause_frames_received", s.received},
                          {"first_paused_ns", first_json(s.first)}};
  };
  nlohmann::json by_tier = nlohmann::json::array();
  for (size_t t = 0; t < tier.size(); ++t) {
    by_tier.push_back(row(tiers.names[t], tier[t]));
  }
  by_tier.push_back(row("nic", nics));
  nlohmann::json by_rail = nlohmann::json::array();
  for (size_t r = 0; r < rails; ++r) {
    by_rail.push_back({{"rail", r},
                       {"nics", rail_nics[r].ports},
                       {"nics_paused", rail_nics[r].paused_ports},
                       {"nic_paused_ns", ns(rail_nics[r].paused)},
                       {"switches", rail_switch_count[r]},
                       {"switch_ports_paused", rail_switches[r].paused_ports},
                       {"switch_paused_ns", ns(rail_switches[r].paused)},
                       {"first_paused_ns", first_json(std::min(rail_nics[r].first, rail_switches[r].first))}});
  }
  return {{"by_tier", by_tier}, {"by_rail", by_rail}};
}

std::string pfc_rollup_table(const nlohmann::json& s) {
  if (!s.contains("pfc_by_tier")) {
    return "";
  }
  std::string tiers;
  for (const auto& r : s["pfc_by_tier"]) {
    if (r["ports_paused"].get<int64_t>() == 0) {
      continue;
    }
    if (!tiers.empty()) {
      tiers += "; ";
    }
    tiers += fmt::format("{} {} of {} paused {} in all, first at {}", r["tier"].get<std::string>(),
                         r["ports_paused"].get<int64_t>(), r["ports"].get<int64_t>(),
                         time_text(r["paused_ns"].get<double>()), time_text(r["first_paused_ns"].get<double>()));
  }
  if (tiers.empty()) {
    return "";
  }
  std::string t = fmt::format("  paused by tier   {}\n", tiers);
  std::string rails;
  for (const auto& r : s["pfc_by_rail"]) {
    if (r["first_paused_ns"].is_null()) {
      continue;
    }
    if (!rails.empty()) {
      rails += "; ";
    }
    const int64_t ports = r["switch_ports_paused"].get<int64_t>();
    rails += fmt::format("nic{}: {} of {} NICs, {} switch port{}, first at {}", r["rail"].get<int>(),
                         r["nics_paused"].get<int64_t>(), r["nics"].get<int64_t>(), ports, ports == 1 ? "" : "s",
                         time_text(r["first_paused_ns"].get<double>()));
  }
  if (!rails.empty()) {
    t += fmt::format("  paused by rail   {}\n", rails);
  }
  return t;
}

}  // namespace rocesim
