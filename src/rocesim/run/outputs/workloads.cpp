#include "rocesim/analysis/highlights.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// Each workload's messages (summary.json's workloads: created, finished, FCT), and what its applications
// measured beyond them: the outputs the workloads installed (perftest's tables, the collectives' rows), in
// workload order.
class Workloads final : public Output {
 public:
  explicit Workloads(const Simulation& s) : s_(s) {}
  void collect() override {
    for (const auto& r : s_.reports()) {
      r->collect();
    }
  }
  nlohmann::json summary(const RunInfo& info) const override {
    nlohmann::json j = {{"workloads", per_workload()}};
    for (const auto& r : s_.reports()) {
      merge_summary(j, r->summary(info));
    }
    return j;
  }
  std::vector<std::string> notes() const override {
    std::vector<std::string> out;
    for (const auto& r : s_.reports()) {
      for (std::string& n : r->notes()) {
        out.push_back(std::move(n));
      }
    }
    return out;
  }
  OutputFiles files(const OutputContext& ctx) override {
    OutputFiles out;
    for (const auto& r : s_.reports()) {
      for (auto& f : r->files(ctx)) {
        out.push_back(std::move(f));
      }
    }
    return out;
  }

 private:
  // By the workload each message came from (applications post messages during the run too).
  nlohmann::json per_workload() const {
    const Network& net = s_.net();
    const Time warmup = s_.scenario().output.warmup;
    const size_t nw = s_.workload_flow_counts().size();
    std::vector<size_t> created(nw, 0), done(nw, 0);
    std::vector<std::vector<const FlowRecord*>> of(nw);
    for (const auto& f : net.flows()) {
      if (f.spec.workload < nw) {
        ++created[f.spec.workload];
        done[f.spec.workload] += f.done;
        of[f.spec.workload].push_back(&f);
      }
    }
    nlohmann::json out = nlohmann::json::array();
    for (size_t w = 0; w < nw; ++w) {
      out.push_back({{"type", s_.resolved()["workload"][w]["type"]},
                     {"created", created[w]},
                     {"finished", done[w]},
                     {"unfinished", created[w] - done[w]},
                     {"fct", static_cast<bool>(s_.workload_fct()[w])},
                     {"fct_ns", fct_ns_json(of[w], warmup)}});
    }
    return out;
  }
  const Simulation& s_;
};

}  // namespace

OutputKind workloads_output() {
  // The names the workloads' own outputs write (workload/perftest.cpp, collective/report.cpp).
  return {"workloads",
          "summary.json's workloads, and the files of the workloads' applications",
          {"perftest.txt", "perftest.csv", "collectives.csv", "servers.csv", "steps.csv", "nccl-tests.txt"},
          [](Simulation& s) { return std::make_unique<Workloads>(s); }};
}

}  // namespace rocesim
