#include "rocesim/analysis/results.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// nics.csv: every NIC's counters.
class Nics final : public Output {
 public:
  explicit Nics(const Simulation& s) : s_(s) {}
  OutputFiles files(const OutputContext&) override { return {{"nics.csv", nics_csv(s_.net(), s_.now())}}; }

 private:
  const Simulation& s_;
};

}  // namespace

OutputKind nics_output() {
  return {
      "nics", "nics.csv: every NIC's counters", {"nics.csv"}, [](Simulation& s) { return std::make_unique<Nics>(s); }};
}

}  // namespace rocesim
