#include "rocesim/analysis/report.hpp"

#include "rocesim/analysis/timeseries.hpp"
#include "rocesim/io/report_html.hpp"
#include "rocesim/run/outputs.hpp"
#include "rocesim/run/simulation.hpp"

namespace rocesim {
namespace {

// report.html: the run's page, drawn from summary.json and the network; it lists every file of the run.
class Report final : public Output {
 public:
  explicit Report(Simulation& s) : s_(s) {}
  OutputFiles files(const OutputContext& ctx) override {
    nlohmann::json shown = ctx.summary;  // the page shows the summary as the file holds it
    shown["files"] = ctx.written;
    shown["files"].push_back("report.html");
    shown["files"].push_back("summary.json");
    return {{"report.html", report_html({report_data(s_.net(), s_.now(), s_.scenario().output.warmup,
                                                     s_.output<TimeSeries>(), shown, ctx.label)})}};
  }

 private:
  Simulation& s_;
};

}  // namespace

OutputKind report_output() {
  return {"report",
          "report.html: the run's page (output.report)",
          {"report.html"},
          [](Simulation& s) -> std::unique_ptr<Output> {
            if (!s.scenario().output.report) {
              return nullptr;
            }
            return std::make_unique<Report>(s);
          }};
}

}  // namespace rocesim
