#include "rocesim/analysis/results.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// FCT slowdown per flow-size bucket (output.buckets): fct_buckets.csv and summary.json's fct_slowdown_by_size.
class Buckets final : public Output {
 public:
  explicit Buckets(const Simulation& s) : s_(s) {}
  nlohmann::json summary(const RunInfo&) const override {
    nlohmann::json buckets = nlohmann::json::array();
    for (const SizeBucket& b : by_size()) {
      buckets.push_back({{"lo_bytes", b.lo},
                         {"hi_bytes", b.hi < 0 ? nlohmann::json(nullptr) : nlohmann::json(b.hi)},
                         {"flows", b.flows},
                         {"p50", b.flows ? nlohmann::json(b.p50) : nlohmann::json(nullptr)},
                         {"p95", b.flows ? nlohmann::json(b.p95) : nlohmann::json(nullptr)},
                         {"p99", b.flows ? nlohmann::json(b.p99) : nlohmann::json(nullptr)}});
    }
    return {{"fct_slowdown_by_size", buckets}};
  }
  OutputFiles files(const OutputContext&) override { return {{"fct_buckets.csv", buckets_csv(by_size())}}; }

 private:
  std::vector<SizeBucket> by_size() const {
    const OutputParams& p = s_.scenario().output;
    return slowdown_by_size(s_.net(), parse_bucket_edges(p.buckets), p.warmup);
  }
  const Simulation& s_;
};

}  // namespace

OutputKind buckets_output() {
  return {"buckets",
          "fct_buckets.csv: FCT slowdown percentiles per flow-size bucket (output.buckets)",
          {"fct_buckets.csv"},
          [](Simulation& s) { return std::make_unique<Buckets>(s); }};
}

}  // namespace rocesim
