#include "rocesim/cluster/fabric_events.hpp"

namespace rocesim {

const Schema<RoutingParams>& RoutingParams::schema() {
  static const Schema<RoutingParams> s = [] {
    Schema<RoutingParams> sc("routing", "how switches spread flows over equal paths and follow fabric events");
    sc.add(&RoutingParams::convergence, "convergence", "50ms",
           "after a link or switch goes down or up, each switch recomputes its routes (ECMP over the remaining "
           "shortest paths) this much later; until then packets routed to a dead port are dropped (50 ms: the "
           "restoration target commonly set for fast convergence, FD.io VPP FIB documentation, 'Fast "
           "Convergence')",
           at_least(Time()))
        .add(&RoutingParams::jitter, "jitter", "0ns",
             "each switch converges a further uniform random time in [0, jitter] later, from its own random "
             "stream, so that routes can be inconsistent for a while, as in real fabrics",
             at_least(Time()))
        .add(&RoutingParams::ecmp, "ecmp", "rocesim",
             "how a switch hashes a packet onto one of its equal-cost next hops: rocesim (a 64-bit mix of addresses, "
             "UDP ports and a per-switch random seed) or hpcc-ns3 (the HPCC ns-3 simulator's MurmurHash3 of its "
             "addresses and ports, seeded with the switch's node id: the paths that simulator takes, for "
             "same-input comparisons; --hpcc-config sets it)",
             one_of({"rocesim", "hpcc-ns3"}))
        .add(&RoutingParams::ecmp_dport, "ecmp_dport", "100",
             "with ecmp hpcc-ns3: the UDP destination port of every flow in that hash (its flow file's dport)",
             in_range<int64_t>(0, 65535))
        .reserved("balance", "how packets spread over equal-cost paths, see routing.balance.*");
    return sc;
  }();
  return s;
}

const char* to_string(FabricEvent::Kind k) {
  switch (k) {
    case FabricEvent::Kind::kLinkDown:
      return "link_down";
    case FabricEvent::Kind::kLinkUp:
      return "link_up";
    case FabricEvent::Kind::kSwitchDown:
      return "switch_down";
    case FabricEvent::Kind::kSwitchUp:
      return "switch_up";
    case FabricEvent::Kind::kPauseStorm:
      return "pause_storm";
    case FabricEvent::Kind::kSlowReceiver:
      return "slow_receiver";
  }
  return "?";
}

namespace {
struct EventParams {
  Time at;
  std::string type, link, sw, nic;
  int64_t priority = 3;
  Time until;
  Rate rate;
  static const Schema<EventParams>& schema() {
    static const Schema<EventParams> s = [] {
      Schema<EventParams> sc("events[]", "one change of the fabric during the run");
      sc.add(&EventParams::at, "at", "0ns", "when it happens", at_least(Time()))
          .add(&EventParams::type, "type", "link_down",
               "link_down, link_up, switch_down, switch_up, or a fault of a NIC: pause_storm (it keeps pausing its "
               "switch, as a stuck receive pipeline does) or slow_receiver (it drains received frames into host "
               "memory slower than they arrive)",
               one_of({"link_down", "link_up", "switch_down", "switch_up", "pause_storm", "slow_receiver"}))
          .add(&EventParams::link, "link", "",
               "link_down, link_up: the link, by a switch port at either end (leaf0:4) or by the NIC on it (host3, "
               "host3.nic1); both directions fail")
          .add(&EventParams::sw, "switch", "", "switch_down, switch_up: the switch; every link on it fails")
          .add(&EventParams::nic, "nic", "", "pause_storm, slow_receiver: the faulty NIC (host3, host3.nic1)")
          .add(&EventParams::priority, "priority", "3",
               "pause_storm: the priority it pauses (a lossless one: switch.pfc.priorities), refreshing its XOFF "
               "(65535 quanta) every half pause lifetime; slow_receiver: the priority whose pause spread is reported "
               "(it pauses every lossless one)",
               in_range<int64_t>(0, 7), "priority")
          .add(&EventParams::until, "until", "0ns", "pause_storm, slow_receiver: when it stops (absent: never)",
               at_least(Time()))
          .add(&EventParams::rate, "rate", "25Gbps",
               "slow_receiver (required): how fast the NIC moves received frames into host memory, below its link "
               "rate")
          .validate_keys(
              [](const EventParams& e, const YAML::Node& n) -> std::optional<std::pair<std::string, std::string>> {
                const bool link = e.type == "link_down" || e.type == "link_up";
                if (!n["at"]) {
                  return std::make_pair("at", "every event needs a time (at: 1ms)");
                }
                if (e.type == "pause_storm" || e.type == "slow_receiver") {
                  if (e.nic.empty()) {
                    return std::make_pair("nic", e.type + " needs `nic:` (the faulty NIC, e.g. host3)");
                  }
                  for (const char* k : {"link", "switch"}) {
                    if (n[k]) {
                      return std::make_pair(std::string(k), "does not go with type " + e.type);
                    }
                  }
                  if (n["until"] && e.until <= e.at) {
                    return std::make_pair("until", "must be after at (" + to_string(e.at) + ")");
                  }
                  if (e.type == "pause_storm" && n["rate"]) {
                    return std::make_pair("rate", "goes with type slow_receiver only");
                  }
                  if (e.type == "slow_receiver" && !n["rate"]) {
                    return std::make_pair("rate", "slow_receiver needs `rate:` (how fast it drains, e.g. 25Gbps)");
                  }
                  return std::nullopt;
                }
                for (const char* k : {"nic", "priority", "until", "rate"}) {
                  if (n[k]) {
                    return std::make_pair(std::string(k), "goes with the NIC faults (pause_storm, slow_receiver) only");
                  }
                }
                if (link && e.link.empty()) {
                  return std::make_pair("link", e.type + " needs `link:` (a switch port such as leaf0:4, or a NIC)");
                }
                if (!link && e.sw.empty()) {
                  return std::make_pair("switch", e.type + " needs `switch:` (a switch name)");
                }
                if (link ? !e.sw.empty() : !e.link.empty()) {
                  return std::make_pair(link ? "switch" : "link", "does not go with type " + e.type);
                }
                return std::nullopt;
              });
      return sc;
    }();
    return s;
  }
};
}  // namespace

std::vector<FabricEvent> parse_fabric_events(const YAML::Node& n, const ParseCtx& ctx) {
  std::vector<FabricEvent> out;
  if (!n.IsDefined() || n.IsNull()) {
    return out;
  }
  if (!n.IsSequence()) {
    throw InputError(ctx.file, line_of(n), "events", "expected a list of events (- {at: 1ms, type: link_down, ...})");
  }
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string path = "events." + std::to_string(i);
    const EventParams p = EventParams::schema().parse(n[i], ctx, path);
    FabricEvent e;
    e.at = p.at;
    e.kind = p.type == "link_down"     ? FabricEvent::Kind::kLinkDown
             : p.type == "link_up"     ? FabricEvent::Kind::kLinkUp
             : p.type == "switch_down" ? FabricEvent::Kind::kSwitchDown
             : p.type == "switch_up"   ? FabricEvent::Kind::kSwitchUp
             : p.type == "pause_storm" ? FabricEvent::Kind::kPauseStorm
                                       : FabricEvent::Kind::kSlowReceiver;
    e.target = e.is_fault() ? p.nic : e.on_link() ? p.link : p.sw;
    e.line = line_of(n[i]);
    e.path = path;
    e.prio = static_cast<int>(p.priority);
    e.rate = p.rate;
    if (n[i]["until"]) {
      e.until = p.until;
    }
    out.push_back(e);
  }
  return out;
}

void describe_fabric_events(std::vector<ParamDoc>& out) { EventParams::schema().describe("events[]", out); }

}  // namespace rocesim
