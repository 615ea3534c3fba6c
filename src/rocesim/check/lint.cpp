#include "rocesim/check/lint.hpp"

#include <algorithm>
#include <map>

#include "rocesim/net/packet.hpp"
#include "rocesim/net/wire.hpp"
#include "rocesim/nic/nic.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

struct PortLink {
  Rate rate;
  Time delay;
  auto operator<=>(const PortLink&) const = default;
};

// What the rules read, worked out once from the scenario as the network would build it.
struct Config {
  explicit Config(const Scenario& s) : sc(s) {
    for (int64_t c : sc.sw.pfc.priorities) {
      lossless |= 1u << c;
    }
    const int int_bytes = sc.cc && sc.cc->wants_telemetry() ? kIntHeaderBytes : 0;
    fabric = fabric_of(sc.top.fabric);
    frame = Bytes(wire::rdma_frame(fabric, static_cast<int>(sc.nic.mtu), wire::kReth) + int_bytes);
    int_extra = int_bytes;
    explicit_headroom = sc.sw.pfc.headroom != "auto";
    ports.resize(sc.graph.nodes.size());
    for (const TopoLink& l : sc.graph.links) {
      ports[l.a].push_back({l.rate, l.delay});
      ports[l.b].push_back({l.rate, l.delay});
    }
  }
  bool is_lossless(int64_t c) const { return lossless >> c & 1u; }
  Bytes need(const PortLink& link, Bytes max_frame) const {
    return pfc_headroom(link.rate, link.delay, max_frame, sc.sw.pfc.response_time);
  }
  // Bytes a switch sets aside before its shared pool, as PfcControl::finalize works it out.
  Bytes set_aside(int node) const {
    Bytes b;
    for (const PortLink& l : ports[node]) {
      b += port_set_aside(sc.sw, port_headroom(sc.sw.pfc, l.rate, l.delay, frame));
    }
    return b;
  }

  const Scenario& sc;
  wire::Fabric fabric = wire::Fabric::kRoceV2;
  unsigned lossless = 0;
  Bytes frame;  // the largest frame (a full data packet with RETH, and INT if the CC uses it)
  int int_extra = 0;
  bool explicit_headroom = false;            // a size, or hpcc-ns3's rule: what each port gets comes from port_headroom
  std::vector<std::vector<PortLink>> ports;  // per graph node
};

std::string describe(const PortLink& l) { return to_string(l.rate) + ", " + to_string(l.delay); }

// Explicit headroom against what each kind of port needs; told apart by whether the headroom would do for
// smaller frames (the MTU is the problem) or not even for the smallest (the cable is).
void check_headroom(const Config& c, std::vector<Finding>& out) {
  if (!c.explicit_headroom || !c.lossless) {
    return;
  }
  std::map<PortLink, std::pair<int, std::string>> kinds;  // link -> (ports, an example)
  for (size_t n = 0; n < c.sc.graph.nodes.size(); ++n) {
    if (c.sc.graph.nodes[n].is_nic()) {
      continue;
    }
    for (size_t p = 0; p < c.ports[n].size(); ++p) {
      auto& k = kinds[c.ports[n][p]];
      if (k.first++ == 0) {
        k.second = c.sc.graph.nodes[n].name + ":" + std::to_string(p);
      }
    }
  }
  for (const auto& [link, k] : kinds) {
    const Bytes need = c.need(link, c.frame);
    const Bytes have = port_headroom(c.sc.sw.pfc, link.rate, link.delay, c.frame);
    if (have >= need) {
      continue;
    }
    const std::string where =
        std::to_string(k.first) + " switch ports at " + describe(link) + " (e.g. " + k.second + ")";
    int mtu_fits = 0;
    for (int mtu : {256, 512, 1024, 2048, 4096}) {
      if (c.need(link, Bytes(wire::rdma_frame(c.fabric, mtu, wire::kReth) + c.int_extra)) <= have) {
        mtu_fits = mtu;
      }
    }
    if (mtu_fits > 0) {
      out.push_back(
          {"error", "mtu_exceeds_headroom", "nic.mtu", where,
           "headroom " + to_string(have) +
               " covers the cable's in-flight bytes but not two frames of "
               "MTU " +
               std::to_string(c.sc.nic.mtu) + " (" + to_string(c.frame) + " each); it needs " + to_string(need) +
               ": packets arriving after XOFF can be dropped",
           "nic.mtu: " + std::to_string(mtu_fits) + ", or switch.pfc.headroom: " + to_string(need) + " (or auto)"});
    } else {
      out.push_back({"error", "headroom_short", "switch.pfc.headroom", where,
                     "headroom " + to_string(have) + " is below the " + to_string(need) +
                         " in flight after XOFF (rate x (2 x delay + response time), two frames and the PFC frame): "
                         "packets can be dropped on a lossless priority",
                     "switch.pfc.headroom: " + to_string(need) + " (or auto)"});
    }
  }
}

void check_buffer(const Config& c, std::vector<Finding>& out) {
  int short_switches = 0;
  std::string worst;
  Bytes worst_need;
  for (size_t n = 0; n < c.sc.graph.nodes.size(); ++n) {
    if (c.sc.graph.nodes[n].is_nic()) {
      continue;
    }
    const Bytes aside = c.set_aside(static_cast<int>(n));
    if (aside >= c.sc.sw.buffer) {
      ++short_switches;
      if (aside > worst_need) {
        worst_need = aside;
        worst = c.sc.graph.nodes[n].name;
      }
    }
  }
  if (short_switches > 0) {
    out.push_back({"error", "buffer_too_small", "switch.buffer",
                   std::to_string(short_switches) + " switches (most short: " + worst + ")",
                   "reserves (8 x switch.admission.reserved per port) and PFC headroom of " +
                       std::to_string(__builtin_popcount(c.lossless)) + " lossless priorities take " +
                       to_string(worst_need) + " of " + to_string(c.sc.sw.buffer) + ": no shared pool is left",
                   "switch.buffer above " + to_string(worst_need) + ", fewer lossless priorities, or less headroom"});
  }
}

// The ingress occupancy at which a lossless group pauses its upstream when it alone uses the shared pool:
// its reserve, then the first shared use s with s + frame above the admission limit of the pool then free
// (Mmu::admit). Egress queues fed by one ingress reach the same depth.
Bytes xoff_point(const Config& c, const BufferAdmission& adm, Bytes pool) {
  const int64_t frame = wire::on_wire(static_cast<int>(c.frame.count()));
  int64_t lo = 0, hi = std::max<int64_t>(pool.count(), 0);
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (mid + frame > adm.shared_limit(pool.count() - mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return c.sc.sw.admission.reserved + Bytes(lo);
}

void check_ecn(const Config& c, std::vector<Finding>& out) {
  if (!c.lossless || !make_ecn_marker(c.sc.sw.ecn)) {
    return;
  }
  const auto adm = make_buffer_admission(c.sc.sw.admission);
  struct Worst {
    Bytes xoff;
    std::string sw;
    int switches = 0;
  };
  std::map<Rate, Worst> after_pfc, kmax_above;
  for (size_t n = 0; n < c.sc.graph.nodes.size(); ++n) {
    if (c.sc.graph.nodes[n].is_nic() || c.set_aside(static_cast<int>(n)) >= c.sc.sw.buffer) {
      continue;
    }
    const Bytes xoff = xoff_point(c, *adm, c.sc.sw.buffer - c.set_aside(static_cast<int>(n)));
    std::vector<Rate> rates;
    for (const PortLink& l : c.ports[n]) {
      if (std::find(rates.begin(), rates.end(), l.rate) == rates.end()) {
        rates.push_back(l.rate);
      }
    }
    for (Rate r : rates) {
      const EcnParams e = c.sc.sw.ecn.for_rate(r);
      auto* w = e.kmin >= xoff ? &after_pfc[r] : e.kmax >= xoff ? &kmax_above[r] : nullptr;
      if (w && (w->switches++ == 0 || xoff < w->xoff)) {
        w->xoff = xoff;
        w->sw = c.sc.graph.nodes[n].name;
      }
    }
  }
  const std::string key = c.sc.sw.ecn.by_rate.empty() ? "switch.ecn" : "switch.ecn.by_rate";
  struct Rule {
    const std::map<Rate, Worst>& found;
    const char *severity, *code, *field, *name, *effect, *fix;
  };
  for (const Rule& rule : {Rule{after_pfc, "error", "ecn_after_pfc", "kmin", "Kmin",
                                "PFC acts before ECN marks anything", "kmin and kmax below "},
                           Rule{kmax_above, "warning", "ecn_kmax_above_xoff", "kmax", "Kmax",
                                "PFC fires before marking reaches Pmax", "kmax below "}}) {
    for (const auto& [r, w] : rule.found) {
      const EcnParams e = c.sc.sw.ecn.for_rate(r);
      const Bytes value = std::string(rule.field) == "kmin" ? e.kmin : e.kmax;
      out.push_back(
          {rule.severity, rule.code, key + "." + rule.field,
           std::to_string(w.switches) + " switches' " + to_string(r) + " ports (lowest XOFF point: " + w.sw + ")",
           std::string("ECN ") + rule.name + " " + to_string(value) + " is at or above the " + to_string(w.xoff) +
               " at which one ingress pauses its upstream: " + rule.effect,
           rule.fix + to_string(w.xoff)});
    }
  }
}

void check_cnp(const Config& c, std::vector<Finding>& out) {
  if (!c.sc.cc || !c.sc.cc->cnp_interval()) {
    return;
  }
  const int64_t p = c.sc.nic.cnp_priority;
  const auto& strict = c.sc.sw.ets.strict;
  if (std::find(strict.begin(), strict.end(), p) != strict.end() || c.is_lossless(p)) {
    return;
  }
  std::string fixed = "[";
  for (int64_t s : strict) {
    fixed += std::to_string(s) + ", ";
  }
  fixed += std::to_string(p) + "]";
  out.push_back({"warning", "cnp_unprotected", "switch.ets.strict", "priority " + std::to_string(p) + " (CNPs)",
                 "CNPs ride priority " + std::to_string(p) +
                     ", which is neither strict nor lossless: they wait behind data in DWRR and can be dropped, "
                     "so senders slow down late",
                 "switch.ets.strict: " + fixed + " (or nic.cnp_priority on a strict class)"});
}

void check_dscp(const Config& c, std::vector<Finding>& out) {
  const auto to_prio = parse_dscp_map(c.sc.sw.dscp_map);
  const auto nic = parse_prio_dscp_map(c.sc.nic.dscp_map);
  std::vector<std::pair<int64_t, std::string>> used;
  for (int64_t p : c.sc.sw.pfc.priorities) {
    used.push_back({p, "lossless"});
  }
  used.push_back({c.sc.nic.ack_priority, "ACKs"});
  if (c.sc.cc && c.sc.cc->cnp_interval()) {
    used.push_back({c.sc.nic.cnp_priority, "CNPs"});
  }
  std::vector<int64_t> done;
  for (const auto& [p, what] : used) {
    if (std::find(done.begin(), done.end(), p) != done.end()) {
      continue;
    }
    done.push_back(p);
    const std::string where = "priority " + std::to_string(p) + " (" + what + ")";
    if (nic[p] < 0) {
      if (std::find(to_prio.begin(), to_prio.end(), p) == to_prio.end()) {
        out.push_back({"error", "no_dscp_for_priority", "switch.dscp_map", where,
                       "no DSCP of switch.dscp_map selects priority " + std::to_string(p) +
                           ", so NICs cannot mark packets for it",
                       "switch.dscp_map: add a DSCP for " + std::to_string(p) + " (e.g. " + std::to_string(p * 8) +
                           ":" + std::to_string(p) + ")"});
      }
      continue;
    }
    const int lands = to_prio[static_cast<size_t>(nic[p])];
    if (lands != p) {
      out.push_back({"error", "dscp_mismatch", "nic.dscp_map", where,
                     "NICs mark priority " + std::to_string(p) + " with DSCP " + std::to_string(nic[p]) +
                         ", which switch.dscp_map sends to priority " + std::to_string(lands) +
                         (c.is_lossless(lands) ? " (another lossless class)" : " (lossy)"),
                     "switch.dscp_map: " + std::to_string(nic[p]) + ":" + std::to_string(p) +
                         ", or nic.dscp_map naming a DSCP the switches send to " + std::to_string(p)});
    }
  }
}

// A paused queue's peer refreshes its XOFF every half pause lifetime (quanta x 512 bit times at the port's rate):
// slower ports refresh less often. A watchdog that polls more often than that can find no new pause frame
// between two polls of a queue paused all along, and one that restores sooner ends storms that go on.
void check_watchdog(const Config& c, std::vector<Finding>& out) {
  const WatchdogParams& w = c.sc.sw.pfc.watchdog;
  if (!w.enabled || !c.lossless) {
    return;
  }
  Rate slowest;
  for (const TopoLink& l : c.sc.graph.links) {
    if (slowest == Rate() || l.rate < slowest) {
      slowest = l.rate;
    }
  }
  const Time refresh = pause_time(static_cast<int>(c.sc.sw.pfc.quanta), slowest) / 2;
  for (const auto& [key, t] :
       {std::pair{"switch.pfc.watchdog.poll", w.poll}, {"switch.pfc.watchdog.restore", w.restore}}) {
    if (t < refresh) {
      out.push_back({"warning", "watchdog_below_refresh", key, to_string(slowest) + " ports",
                     std::string(key).substr(20) + " " + to_string(t) + " is shorter than the " + to_string(refresh) +
                         " between XOFF refreshes (half of " + std::to_string(c.sc.sw.pfc.quanta) +
                         " quanta): a queue paused all along can look quiet to the watchdog",
                     std::string(key) + ": " + to_string(refresh) + " or more (or switch.pfc.quanta lower)"});
    }
  }
}

// Per-packet balancing reorders a queue pair's packets; RC without out-of-order placement answers every gap with a
// NAK and resends everything after it (go-back-N).
void check_reordering(const Config& c, std::vector<Finding>& out) {
  if (!c.sc.balance || !c.sc.balance->per_packet() || c.sc.nic.ooo_placement) {
    return;
  }
  const std::string mode = c.sc.balance->dump().value("type", std::string());
  out.push_back({"warning", "reorder_without_placement", "nic.ooo_placement", "every RDMA queue pair",
                 "routing.balance " + mode +
                     " sends one queue pair's packets on several paths, and without out-of-order placement each "
                     "packet that overtakes another is dropped with a NAK and everything after the gap is sent again",
                 "nic.ooo_placement: true (or routing.balance: ecmp)"});
}

}  // namespace

std::vector<Finding> lint(const Scenario& sc) {
  const Config c(sc);
  std::vector<Finding> out;
  check_headroom(c, out);
  check_buffer(c, out);
  check_ecn(c, out);
  check_cnp(c, out);
  check_dscp(c, out);
  check_watchdog(c, out);
  check_reordering(c, out);
  return out;
}

}  // namespace rocesim
