#include "rocesim/analysis/timeseries.hpp"

#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {

OutputKind timeseries_output() {
  return {"timeseries",
          "timeseries.csv: the ports and flows output.timeseries names, sampled at its interval",
          {"timeseries.csv"},
          [](Simulation& s) -> std::unique_ptr<Output> {
            auto ts =
                std::make_unique<TimeSeries>(s.scenario().output.timeseries, s.engine(), s.net(), s.scenario().file);
            if (!ts->enabled()) {
              return nullptr;
            }
            return ts;
          }};
}

}  // namespace rocesim
