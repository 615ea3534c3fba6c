#include "rocesim/analysis/fabric_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "rocesim/core/text.hpp"
#include "rocesim/topology/routing.hpp"

namespace rocesim {
namespace {

// A switch port's place relative to the NICs: a peer of a lower level is down, of a higher one up.
enum class Direction { kDown, kUp, kAcross };
const char* to_string(Direction d) { return d == Direction::kDown ? "down" : d == Direction::kUp ? "up" : "across"; }

struct PortView {
  const Switch* sw = nullptr;
  uint16_t port = 0;
  int tier = -1;
  Direction dir = Direction::kDown;
  std::string peer_endpoint;
};

// Every switch port with its tier and direction, in switch and port order.
std::vector<PortView> port_views(const Network& net, const Tiers& tiers) {
  const TopologyGraph& g = net.graph();
  std::unordered_map<std::string, int> node_of;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    node_of[g.nodes[n].name] = static_cast<int>(n);
  }
  std::unordered_map<const Node*, uint32_t> endpoint;
  for (uint32_t h = 0; h < net.num_hosts(); ++h) {
    endpoint[net.nics()[h].get()] = h;
  }
  const auto level = [&](const Node* n) {
    const int node = node_of.at(n->name());
    return g.nodes[node].is_nic() ? 0 : tiers.of_node[node] + 1;
  };
  std::vector<PortView> out;
  for (const auto& sw : net.switches()) {
    const int self = level(sw.get());
    for (uint16_t p = 0; p < sw->num_ports(); ++p) {
      const Node* peer = sw->link(p).peer;
      PortView v{sw.get(), p, self - 1, Direction::kDown, ""};
      const int other = level(peer);
      v.dir = other < self ? Direction::kDown : other > self ? Direction::kUp : Direction::kAcross;
      if (const auto e = endpoint.find(peer); e != endpoint.end()) {
        v.peer_endpoint = std::to_string(e->second);
      }
      out.push_back(v);
    }
  }
  return out;
}

// Smallest and largest of some numbers, as JSON {min, max}.
struct Span {
  double lo = 0, hi = 0;
  bool any = false;
  void add(double x) {
    lo = any ? std::min(lo, x) : x;
    hi = any ? std::max(hi, x) : x;
    any = true;
  }
  nlohmann::json json() const { return any ? nlohmann::json{{"min", lo}, {"max", hi}} : nlohmann::json(); }
};

std::string rates(const std::set<int64_t>& bps) {
  std::string s;
  for (int64_t r : bps) {
    if (!s.empty()) {
      s += "/";
    }
    s += to_string(Rate::bps(r));
  }
  return s;
}

}  // namespace

std::vector<int> tier_of_switches(const Network& net, const Tiers& tiers) {
  std::unordered_map<std::string, int> node_of;
  for (size_t n = 0; n < net.graph().nodes.size(); ++n) {
    node_of[net.graph().nodes[n].name] = static_cast<int>(n);
  }
  std::vector<int> out;
  for (const auto& sw : net.switches()) {
    out.push_back(tiers.of_node[node_of.at(sw->name())]);
  }
  return out;
}

nlohmann::json fabric_json(const Network& net, const SwitchParams& sw) {
  const Tiers tiers = switch_tiers(net.graph());
  const std::vector<PortView> ports = port_views(net, tiers);
  nlohmann::json j;
  j["topology"] = net.graph().type;
  j["switches"] = net.switches().size();
  j["endpoints"] = net.num_hosts();

  // Per tier: the switches' port counts and capacities, as spans over the tier's switches.
  struct TierAcc {
    int64_t switches = 0;
    Span ports, down, up, across, oversub, shared, headroom;
    std::set<int64_t> down_rates, up_rates;
  };
  std::vector<TierAcc> acc(tiers.names.size());
  for (size_t i = 0; i < ports.size();) {
    const Switch* s = ports[i].sw;
    TierAcc& t = acc[ports[i].tier];
    int64_t n = 0, down = 0, up = 0, across = 0;
    double down_bps = 0, up_bps = 0;
    for (; i < ports.size() && ports[i].sw == s; ++i, ++n) {
      const PortView& v = ports[i];
      const int64_t bps = s->link(v.port).rate.bps();
      if (v.dir == Direction::kDown) {
        ++down, down_bps += static_cast<double>(bps), t.down_rates.insert(bps);
      } else if (v.dir == Direction::kUp) {
        ++up, up_bps += static_cast<double>(bps), t.up_rates.insert(bps);
      } else {
        ++across;
      }
      if (!sw.pfc.priorities.empty()) {
        t.headroom.add(static_cast<double>(s->headroom(v.port).count()));
      }
    }
    ++t.switches;
    t.ports.add(static_cast<double>(n));
    t.down.add(static_cast<double>(down));
    t.up.add(static_cast<double>(up));
    t.across.add(static_cast<double>(across));
    if (up_bps > 0) {
      t.oversub.add(down_bps / up_bps);
    }
    t.shared.add(static_cast<double>(s->shared_pool().count()));
  }
  nlohmann::json tj = nlohmann::json::array();
  for (size_t t = 0; t < acc.size(); ++t) {
    const TierAcc& a = acc[t];
    tj.push_back({{"tier", tiers.names[t]},
                  {"level", t + 1},
                  {"switches", a.switches},
                  {"ports", a.ports.json()},
                  {"down_ports", a.down.json()},
                  {"up_ports", a.up.json()},
                  {"across_ports", a.across.json()},
                  {"down_rate", rates(a.down_rates)},
                  {"up_rate", rates(a.up_rates)},
                  {"oversubscription", a.oversub.json()},
                  {"shared_pool_bytes", a.shared.json()},
                  {"headroom_bytes", a.headroom.json()}});
  }
  j["tiers"] = tj;

  // Servers, their NICs, and rails: NIC k of every server, and the switches those NICs sit on.
  Span nics;
  std::vector<std::vector<std::string>> rail;  // in the order the NICs meet them
  for (size_t s = 0; s < net.num_servers(); ++s) {
    const Host& h = net.server(s);
    nics.add(static_cast<double>(h.num_nics()));
    for (size_t k = 0; k < h.num_nics(); ++k) {
      if (rail.size() <= k) {
        rail.resize(k + 1);
      }
      const std::string& sw_name = net.attachment(h.endpoint(k)).first->name();
      if (std::find(rail[k].begin(), rail[k].end(), sw_name) == rail[k].end()) {
        rail[k].push_back(sw_name);
      }
    }
  }
  j["servers"] = {{"count", net.num_servers()}, {"nics", nics.json()}};
  nlohmann::json rj = nlohmann::json::array();
  bool disjoint = rail.size() > 1;
  std::set<std::string> seen;
  for (size_t k = 0; rail.size() > 1 && k < rail.size(); ++k) {
    for (const std::string& name : rail[k]) {
      disjoint &= seen.insert(name).second;
    }
    rj.push_back({{"nic", k}, {"switches", rail[k]}});
  }
  j["rails"] = rj;
  j["rail_optimised"] = disjoint;
  j["lossless_priorities"] = sw.pfc.priorities;
  j["headroom"] = sw.pfc.headroom;
  j["buffer_bytes"] = sw.buffer.count();
  return j;
}

std::string fabric_table(const nlohmann::json& j) {
  const auto span = [](const nlohmann::json& s, auto fmt_one) -> std::string {
    if (s.is_null()) {
      return "-";
    }
    const double lo = s["min"], hi = s["max"];
    return lo == hi ? fmt_one(lo) : fmt_one(lo) + "-" + fmt_one(hi);
  };
  const auto count = [](double x) { return fmt::format("{:.0f}", x); };
  const auto bytes = [](double x) { return size_text(x); };
  const auto ratio = [](double x) { return fmt::format("{:.2f}:1", x); };

  std::string t;
  const auto& sv = j["servers"];
  t += fmt::format("  fabric           {}: {} switches in {} tier{}, {} servers, {} NICs ({} per server)\n",
                   j["topology"].get<std::string>(), j["switches"].get<int64_t>(), j["tiers"].size(),
                   j["tiers"].size() == 1 ? "" : "s", sv["count"].get<int64_t>(), j["endpoints"].get<int64_t>(),
                   span(sv["nics"], count));
  t += fmt::format("  {:<8} {:>8} {:>14}  {:<18} {:<18} {:<16} {}\n", "tier", "switches", "ports", "down", "up",
                   "oversubscription", "shared pool");
  for (const auto& r : j["tiers"]) {
    const auto side = [&](const char* n, const char* rate) {
      const std::string c = span(r[n], count);
      return c == "0" || c == "-" ? std::string("-") : c + " x " + r[rate].get<std::string>();
    };
    std::string ports = span(r["ports"], count);
    if (span(r["across_ports"], count) != "0") {
      ports += " (" + span(r["across_ports"], count) + " across)";
    }
    t += fmt::format("  {:<8} {:>8} {:>14}  {:<18} {:<18} {:<16} {}\n", r["tier"].get<std::string>(),
                     r["switches"].get<int64_t>(), ports, side("down_ports", "down_rate"), side("up_ports", "up_rate"),
                     span(r["oversubscription"], ratio), span(r["shared_pool_bytes"], bytes));
  }
  if (!j["rails"].empty()) {
    // A few rails and a few of each rail's switches: the JSON and the port map have them all.
    std::string list;
    for (const auto& r : j["rails"]) {
      if (r["nic"].get<size_t>() == 3 && j["rails"].size() > 4) {
        list += fmt::format("; ... ({} more)", j["rails"].size() - 3);
        break;
      }
      std::string sws;
      for (size_t k = 0; k < r["switches"].size() && k < 3; ++k) {
        if (!sws.empty()) {
          sws += " ";
        }
        sws += r["switches"][k].get<std::string>();
      }
      if (r["switches"].size() > 3) {
        sws += fmt::format(" ... ({} switches)", r["switches"].size());
      }
      if (!list.empty()) {
        list += "; ";
      }
      list += fmt::format("nic{}: {}", r["nic"].get<int>(), sws);
    }
    t += fmt::format("  rails            {} ({}): {}\n", j["rails"].size(),
                     j["rail_optimised"].get<bool>() ? "rail-optimised, each NIC index on switches of its own"
                                                     : "NIC indices share switches",
                     list);
  }
  std::string prios;
  for (const auto& p : j["lossless_priorities"]) {
    if (!prios.empty()) {
      prios += ", ";
    }
    prios += std::to_string(p.get<int>());
  }
  if (prios.empty()) {
    t += "  lossless         none (no PFC)\n";
  } else {
    Span all;
    for (const auto& r : j["tiers"]) {
      if (!r["headroom_bytes"].is_null()) {
        all.add(r["headroom_bytes"]["min"]);
        all.add(r["headroom_bytes"]["max"]);
      }
    }
    t += fmt::format(
        "  lossless         priorities {}; PFC headroom ({}) {} per port and priority; buffer {} per switch\n", prios,
        j["headroom"].get<std::string>(), span(all.json(), bytes), bytes(j["buffer_bytes"].get<double>()));
  }
  return t;
}

std::string port_map_csv(const Network& net) {
  const Tiers tiers = switch_tiers(net.graph());
  std::string out = "switch,tier,port,peer,peer_endpoint,direction,rate_gbps,delay_ns,headroom_bytes\n";
  for (const PortView& v : port_views(net, tiers)) {
    const LinkEnd& l = v.sw->link(v.port);
    out += fmt::format("{},{},{},{},{},{},{:g},{:.3f},{}\n", csv_field(v.sw->name()), tiers.names[v.tier], v.port,
                       csv_field(l.peer->name()), v.peer_endpoint, to_string(v.dir),
                       static_cast<double>(l.rate.bps()) / 1e9, static_cast<double>(l.delay.ps()) / 1000.0,
                       v.sw->headroom(v.port).count());
  }
  return out;
}

}  // namespace rocesim
