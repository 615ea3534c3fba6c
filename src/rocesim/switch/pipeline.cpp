#include "rocesim/switch/pipeline.hpp"

#include "rocesim/switch/credit_control.hpp"
#include "rocesim/switch/pfc.hpp"

namespace rocesim {

std::unique_ptr<Switch> make_switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p,
                                    Bytes max_frame, bool telemetry, const InfinibandParams* ib) {
  const bool on_dequeue = p.ecn.at == "dequeue";
  if (ib) {
    auto fecn = make_fecn_marker(ib->fecn_threshold, ib->marking_rate);
    if (on_dequeue) {
      return std::make_unique<SwitchOn<CreditControl, true>>(sim, pool, std::move(name), p, max_frame, telemetry,
                                                             std::move(fecn));
    }
    return std::make_unique<SwitchOn<CreditControl, false>>(sim, pool, std::move(name), p, max_frame, telemetry,
                                                            std::move(fecn));
  }
  if (on_dequeue) {
    return std::make_unique<SwitchOn<PfcControl, true>>(sim, pool, std::move(name), p, max_frame, telemetry, nullptr);
  }
  return std::make_unique<SwitchOn<PfcControl, false>>(sim, pool, std::move(name), p, max_frame, telemetry, nullptr);
}

}  // namespace rocesim
