#include "rocesim/switch/pipeline.hpp"

#include "rocesim/switch/credit_control.hpp"
#include "rocesim/switch/pfc.hpp"

namespace rocesim {

namespace {
// The pipeline for flow control Fc, with ECN marking at dequeue or at enqueue.
template <typename Fc>
std::unique_ptr<Switch> make_for(bool mark_on_dequeue, Simulator& sim, PacketPool& pool, std::string name,
                                 const SwitchParams& p, Bytes max_frame, bool telemetry,
                                 std::unique_ptr<EcnMarker> marker) {
  if (mark_on_dequeue) {
    return std::make_unique<SwitchOn<Fc, true>>(sim, pool, std::move(name), p, max_frame, telemetry, std::move(marker));
  }
  return std::make_unique<SwitchOn<Fc, false>>(sim, pool, std::move(name), p, max_frame, telemetry, std::move(marker));
}
}  // namespace

std::unique_ptr<Switch> make_switch(Simulator& sim, PacketPool& pool, std::string name, const SwitchParams& p,
                                    Bytes max_frame, bool telemetry, const InfinibandParams* ib) {
  const bool on_dequeue = p.ecn.at == "dequeue";
  if (ib) {
    return make_for<CreditControl>(on_dequeue, sim, pool, std::move(name), p, max_frame, telemetry,
                                   make_fecn_marker(ib->fecn_threshold, ib->marking_rate));
  }
  return make_for<PfcControl>(on_dequeue, sim, pool, std::move(name), p, max_frame, telemetry, nullptr);
}

}  // namespace rocesim
