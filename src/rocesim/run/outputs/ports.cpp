#include "rocesim/analysis/results.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// ports.csv: every switch port's counters by priority.
class Ports final : public Output {
 public:
  explicit Ports(const Simulation& s) : s_(s) {}
  OutputFiles files(const OutputContext&) override { return {{"ports.csv", ports_csv(s_.net(), s_.now())}}; }

 private:
  const Simulation& s_;
};

}  // namespace

OutputKind ports_output() {
  return {"ports", "ports.csv: every switch port's counters by priority", {"ports.csv"}, [](Simulation& s) {
            return std::make_unique<Ports>(s);
          }};
}

}  // namespace rocesim
