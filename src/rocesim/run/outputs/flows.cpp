#include "rocesim/analysis/results.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// The message records as output.flows keeps them: flows.csv, a row per message (all); messages.csv, a row per
// message group (aggregate), with the groups' totals in summary.json's message_groups; nothing (off).
class Flows final : public Output {
 public:
  explicit Flows(const Simulation& s) : s_(s) {}
  nlohmann::json summary(const RunInfo&) const override {
    const std::string& records = s_.scenario().output.flows;
    if (records == "all") {
      return nlohmann::json::object();
    }
    return {{"message_groups", message_groups_json(s_.net(), records)}};
  }
  OutputFiles files(const OutputContext&) override {
    const std::string& records = s_.scenario().output.flows;
    OutputFiles out;
    if (records != "off") {
      out.emplace_back("flows.csv", flows_csv(s_.net()));
    }
    if (records == "aggregate") {
      out.emplace_back("messages.csv", messages_csv(s_.net()));
    }
    return out;
  }

 private:
  const Simulation& s_;
};

}  // namespace

OutputKind flows_output() {
  return {"flows",
          "flows.csv (a row per message) or messages.csv (a row per message group), as output.flows keeps them",
          {"flows.csv", "messages.csv"},
          [](Simulation& s) { return std::make_unique<Flows>(s); }};
}

}  // namespace rocesim
