// A fabric that changes during the run: the scenario's `events:` (links and switches failing and coming back)
// and `routing:` (how long the switches' routing takes to converge after a change).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "rocesim/core/params.hpp"

namespace rocesim {

struct RoutingParams {
  Time convergence;
  Time jitter;
  std::string ecmp;    // how switches hash flows onto next hops: rocesim, or hpcc-ns3 (switch/ecmp.hpp)
  int64_t ecmp_dport;  // hpcc-ns3: the flows' UDP destination port in that simulator's hash
  static const Schema<RoutingParams>& schema();
};

// One entry of `events:`. `target` names a link (a switch port "leaf0:4", or a NIC "host3") or a switch.
struct FabricEvent {
  // Faults of a NIC from `at` to `until`. kPauseStorm: it sends PFC pause frames for `prio` (a stuck receive
  // pipeline). kSlowReceiver: it moves received frames to host memory at `rate` only, and its receive buffer
  // pauses the switch when it fills; `prio` is the priority whose pauses the run follows (pause spread).
  enum class Kind { kLinkDown, kLinkUp, kSwitchDown, kSwitchUp, kPauseStorm, kSlowReceiver };
  Time at;
  Kind kind = Kind::kLinkDown;
  std::string target;
  int prio = 3;
  Time until = Time::max();
  Rate rate;         // kSlowReceiver
  int line = 0;      // in the scenario file, for messages
  std::string path;  // "events.2", for messages
  // The key of one of this event's parameters ("events.2.rate"), and of its target ("events.2.link").
  std::string key(const char* k) const { return path + "." + k; }
  std::string target_key() const { return key(is_fault() ? "nic" : on_link() ? "link" : "switch"); }
  bool on_link() const { return kind == Kind::kLinkDown || kind == Kind::kLinkUp; }
  bool up() const { return kind == Kind::kLinkUp || kind == Kind::kSwitchUp; }
  bool is_fault() const { return kind == Kind::kPauseStorm || kind == Kind::kSlowReceiver; }
};
const char* to_string(FabricEvent::Kind k);

// Parses `events:` (a list, or absent); throws InputError naming the entry's line and key. Targets are checked
// against the network when the events are scheduled (Network::schedule_events).
std::vector<FabricEvent> parse_fabric_events(const YAML::Node& n, const ParseCtx& ctx);
// The keys of one event, for `rocesim params` and the scenario reference.
void describe_fabric_events(std::vector<ParamDoc>& out);

}  // namespace rocesim
