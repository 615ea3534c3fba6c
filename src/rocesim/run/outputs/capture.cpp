#include "rocesim/io/capture.hpp"

#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {

OutputKind capture_output() {
  return {"capture",
          "capture.pcap or capture.pcapng (or capture.file): the frames of the links `capture` names",
          {"capture.pcap", "capture.pcapng"},
          [](Simulation& s) -> std::unique_ptr<Output> {
            if (!s.scenario().capture) {
              return nullptr;
            }
            return std::make_unique<Capture>(*s.scenario().capture, s.net(), s.engine(), s.scenario().file);
          }};
}

}  // namespace rocesim
