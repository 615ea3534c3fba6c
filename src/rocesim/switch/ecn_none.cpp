// No ECN marking: packets keep their ECT codepoint whatever the queue.
#include "rocesim/switch/ecn.hpp"

namespace rocesim {

EcnEntry no_ecn() {
  return {"none", "no marking", [](const EcnParams&) -> std::unique_ptr<EcnMarker> { return nullptr; }, {}};
}

}  // namespace rocesim
