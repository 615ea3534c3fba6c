#include <algorithm>

#include "rocesim/analysis/pause_spread.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// What the scenario's faults (events: pause_storm, slow_receiver) did beyond their NICs: how far their pauses
// spread (summary.json's pause_spread) and, against the same run without them, the victim flows (victims.csv).
class Victims final : public Output {
 public:
  explicit Victims(const Simulation& s) : s_(s), faulty_(faulty_endpoints(s.net(), s.scenario().events)) {}
  nlohmann::json summary(const RunInfo& info) const override {
    const Network& net = s_.net();
    nlohmann::json j = nlohmann::json::object();
    nlohmann::json spread = nlohmann::json::array();
    for (const FabricEvent& e : s_.scenario().events) {
      if (e.is_fault()) {
        spread.push_back(spread_json(pause_spread(net, e.target, e.prio, s_.now())));
      }
    }
    j["pause_spread"] = spread;
    if (info.baseline) {
      const auto v = victim_flows(net, *info.baseline, faulty_, kVictimThreshold);
      int64_t candidates = 0, unfinished = 0;
      for (const auto& f : net.flows()) {
        candidates += !touches(f, faulty_);
      }
      for (const Victim& x : v) {
        unfinished += x.fct == Time::max();
      }
      j["victims"] = {{"flows", v.size()},
                      {"unfinished", unfinished},
                      {"of", candidates},
                      {"threshold", kVictimThreshold},
                      {"file", "victims.csv"}};
    }
    return j;
  }
  OutputFiles files(const OutputContext& ctx) override {
    if (!ctx.run.baseline) {
      return {};
    }
    return {
        {"victims.csv", victims_csv(s_.net(), victim_flows(s_.net(), *ctx.run.baseline, faulty_, kVictimThreshold))}};
  }

 private:
  const Simulation& s_;
  std::vector<uint32_t> faulty_;
};

}  // namespace

OutputKind victims_output() {
  return {"victims",
          "victims.csv: flows a fault slowed though they never crossed its NIC, against the run without faults",
          {"victims.csv"},
          [](Simulation& s) -> std::unique_ptr<Output> {
            const auto& events = s.scenario().events;
            if (std::none_of(events.begin(), events.end(), [](const FabricEvent& e) { return e.is_fault(); })) {
              return nullptr;
            }
            return std::make_unique<Victims>(s);
          }};
}

}  // namespace rocesim
