#include "rocesim/analysis/hpcc_outputs.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {

OutputKind hpcc_output() {
  return {"hpcc",
          "the HPCC ns-3 simulator's fct, pfc and qlen files, under the names output.hpcc gives",
          {},
          [](Simulation& s) -> std::unique_ptr<Output> {
            const HpccOutputParams& p = s.scenario().output.hpcc;
            if (!p.any()) {
              return nullptr;
            }
            return std::make_unique<HpccOutputs>(p, s.engine(), s.net());
          }};
}

}  // namespace rocesim
