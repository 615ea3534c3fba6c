// No ECN marking: packets keep their ECT codepoint whatever the queue.
#include "rocesim/switch/ecn.hpp"

namespace rocesim {

static EcnEntry no_ecn() {
  return {"none", "no marking", [](const EcnParams&) -> std::unique_ptr<EcnMarker> { return nullptr; }, {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<EcnFactory> no_ecn_registered(ecn_registry(), no_ecn());
}  // namespace

}  // namespace rocesim
