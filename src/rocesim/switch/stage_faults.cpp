// Refusals on a failed fabric (scenario `events:`): a packet for which the switch's routes after a failure have
// no path, or routed to a port whose link is down, is dropped after admission (kNoRoute, kLinkDown). Runs only
// where fabric events are possible.
#include "rocesim/switch/egress_stage.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

class FaultRefusal final : public EgressStage {
 public:
  explicit FaultRefusal(const Node& node) : node_(node) {}
  uint8_t hooks() const override { return kRoute; }
  std::optional<DropReason> on_route(Packet*, uint16_t out, int&) override {
    if (out == RouteTable::kNoRoute) {
      return DropReason::kNoRoute;
    }
    if (node_.link_down(out)) {
      return DropReason::kLinkDown;
    }
    return std::nullopt;
  }

 private:
  const Node& node_;
};

}  // namespace

static EgressStageEntry fault_refusal() {
  return {"faults",
          "drop what has no route or is routed to a failed link (runs with fabric events)",
          [](const EgressStageContext& ctx) -> std::unique_ptr<EgressStage> {
            return ctx.faults ? std::make_unique<FaultRefusal>(ctx.node) : nullptr;
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<EgressStageFactory> fault_refusal_registered(egress_stage_registry(), fault_refusal());
}  // namespace

}  // namespace rocesim
