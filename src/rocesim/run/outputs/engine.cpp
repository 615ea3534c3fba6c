#include "rocesim/analysis/results.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// engine.json: how the partitioned engine shared the run out (engine.profile).
class EngineProfileOutput final : public Output {
 public:
  explicit EngineProfileOutput(const Simulation& s) : s_(s) {}
  OutputFiles files(const OutputContext&) override {
    return {{"engine.json", engine_json(s_.engine(), s_.scenario().graph)}};
  }

 private:
  const Simulation& s_;
};

}  // namespace

OutputKind engine_output() {
  return {"engine",
          "engine.json: each partition's nodes, events and threads' time (engine.profile)",
          {"engine.json"},
          [](Simulation& s) -> std::unique_ptr<Output> {
            if (!s.scenario().engine.profile) {
              return nullptr;
            }
            return std::make_unique<EngineProfileOutput>(s);
          }};
}

}  // namespace rocesim
