// The PFC watchdog's drop action (switch/watchdog.hpp) as an egress stage: a packet routed to a queue in storm
// mode is dropped (kWatchdog) and counted in that storm. Runs when the watchdog is enabled with action drop.
#include "rocesim/switch/egress_stage.hpp"
#include "rocesim/switch/watchdog.hpp"

namespace rocesim {
namespace {

class WatchdogRefusal final : public EgressStage {
 public:
  explicit WatchdogRefusal(PfcWatchdog& wd) : wd_(wd) {}
  uint8_t hooks() const override { return kRoute; }
  std::optional<DropReason> on_route(Packet*, uint16_t out, int& c) override {
    if (!wd_.drops(out, c)) {
      return std::nullopt;
    }
    wd_.count_drop(out, c);
    return DropReason::kWatchdog;
  }

 private:
  PfcWatchdog& wd_;
};

}  // namespace

static EgressStageEntry watchdog_refusal() {
  return {"watchdog",
          "drop what is routed to a queue the PFC watchdog found storming (action drop)",
          [](const EgressStageContext& ctx) -> std::unique_ptr<EgressStage> {
            if (!ctx.watchdog || ctx.watchdog->action() != PfcWatchdog::Action::kDrop) {
              return nullptr;
            }
            return std::make_unique<WatchdogRefusal>(*ctx.watchdog);
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<EgressStageFactory> watchdog_refusal_registered(egress_stage_registry(), watchdog_refusal());
}  // namespace

}  // namespace rocesim
