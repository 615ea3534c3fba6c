#include "rocesim/switch/pipeline.hpp"

#include "rocesim/switch/credit_control.hpp"
#include "rocesim/switch/pfc.hpp"

namespace rocesim {

std::unique_ptr<Switch> make_switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p,
                                    Bytes max_frame, bool telemetry, const InfinibandParams* ib) {
  if (ib) {
    return std::make_unique<SwitchOn<CreditControl>>(sim, pool, std::move(name), p, max_frame, telemetry,
                                                     make_fecn_marker(ib->fecn_threshold, ib->marking_rate));
  }
  return std::make_unique<SwitchOn<PfcControl>>(sim, pool, std::move(name), p, max_frame, telemetry, nullptr);
}

}  // namespace rocesim
