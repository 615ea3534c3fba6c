#include "rocesim/switch/scheduler.hpp"

namespace rocesim {

Registry<SchedulerFactory>& scheduler_registry() {
  static Registry<SchedulerFactory> r("switch.ets", "ets");
  return r;
}

std::unique_ptr<Scheduler> make_scheduler(const EtsParams& p, int32_t quantum_unit) {
  return scheduler_registry().find(p.type)->make(p, quantum_unit);
}

}  // namespace rocesim
