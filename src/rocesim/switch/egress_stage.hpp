// Optional steps a packet goes through on its way out of a switch (Tagger's moves, refusals on failed links or
// storming queues, in-band telemetry), composed when the switch is built: a switch runs only the stages its
// scenario enables, and one that enables none runs none. Adding such a feature is one file that implements
// EgressStage and registers it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/core/registry.hpp"
#include "rocesim/net/node.hpp"
#include "rocesim/switch/mmu.hpp"

namespace rocesim {

struct SwitchParams;
class PfcWatchdog;

// A stage's view of one egress port, at the moments it is called.
// Contract: a stage sees every packet its switch routes that no earlier stage refused (on_route; `out` is
// RouteTable::kNoRoute when there is none), then, if the packet joined a queue, on_leave when it leaves that queue:
// sent, or dropped from it (a failed link, a storming queue), with the bytes its port still queues then. It may move
// the packet to another class and rewrite its DSCP (on_route), refuse it (on_route returns why: the switch drops it),
// keep its own per-port state and write the packet's telemetry as it is sent; it schedules no events and draws no
// random numbers. The switch calls a hook only on the stages that have it (hooks()), in the registry's order: on_route
// of "faults" before "tagger" before "watchdog", which sees the class Tagger gave.
class EgressStage {
 public:
  enum Hook : uint8_t { kRoute = 1, kLeave = 2 };
  virtual ~EgressStage() = default;
  virtual uint8_t hooks() const = 0;
  virtual std::optional<DropReason> on_route(Packet* p, uint16_t out, int& c) { return std::nullopt; }
  virtual void on_leave(Packet* p, uint16_t out, uint32_t port_queued, bool sent) {}
};

// What a stage is made from: its switch as built (every port exists), and the run's settings. The references are
// valid during the factory's call only (a stage copies what it keeps), except `node`, `sim` and `pool`.
struct EgressStageContext {
  const Node& node;  // the switch (whether a link is down)
  Simulator& sim;
  PacketPool& pool;
  const SwitchParams& params;
  const std::vector<LinkEnd>& links;  // per port
  const std::vector<char>& upward;    // per port: toward a switch nearer the top of the fabric
  const std::array<uint8_t, 64>& dscp_to_prio;
  bool telemetry;         // the congestion control wants in-band telemetry (HPCC)
  bool faults;            // fabric events are possible in this run
  PfcWatchdog* watchdog;  // switch.pfc.watchdog, if enabled
  const std::string& scenario_file;
};

// A stage's factory returns nullptr when the run does not enable the stage; it may throw InputError.
using EgressStageFactory = std::function<std::unique_ptr<EgressStage>(const EgressStageContext&)>;
using EgressStageEntry = Registered<EgressStageFactory>;
// Filled by the stages' own files (core/registry.hpp); not selected by a scenario key: each stage decides from
// the context whether it runs.
Registry<EgressStageFactory>& egress_stage_registry();

// The stages `ctx` enables, in the registry's order.
std::vector<std::unique_ptr<EgressStage>> make_egress_stages(const EgressStageContext& ctx);

}  // namespace rocesim
