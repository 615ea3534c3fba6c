#include "rocesim/run/outputs.hpp"

#include <stdexcept>

namespace rocesim {

const std::vector<OutputKind>& output_kinds() {
  static const std::vector<OutputKind> kinds = [] {
    std::vector<OutputKind> k = {totals_output(), flows_output(),   ports_output(),     nics_output(),
                                 engine_output(), buckets_output(), hpcc_output(),      timeseries_output(),
                                 trace_output(),  victims_output(), workloads_output(), capture_output(),
                                 report_output()};
    for (size_t i = 0; i < k.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (k[i].name == k[j].name) {
          throw std::logic_error("output '" + k[i].name + "' listed twice");
        }
      }
    }
    return k;
  }();
  return kinds;
}

std::vector<std::string> fixed_output_names() {
  std::vector<std::string> out = {"summary.json"};
  for (const OutputKind& k : output_kinds()) {
    out.insert(out.end(), k.files.begin(), k.files.end());
  }
  return out;
}

}  // namespace rocesim
