#include "rocesim/analysis/trace.hpp"

#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {

OutputKind trace_output() {
  return {"trace",
          "trace.json: a Perfetto timeline of the nodes output.trace names",
          {"trace.json"},
          [](Simulation& s) -> std::unique_ptr<Output> {
            const TraceParams& p = s.scenario().output.trace;
            if (!p.enabled()) {
              return nullptr;
            }
            return std::make_unique<Trace>(p, s.engine(), s.net(), s.scenario().file);
          }};
}

}  // namespace rocesim
