// Outputs: each kind of result a run writes (flows.csv, a capture, the perftest tables, ...) is one Output, made
// when the run is built (run/outputs.hpp lists the kinds; workloads add their own) and read after it ends.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace rocesim {

class Network;

// How a run ended.
struct RunInfo {
  double wall_time_s = 0;
  bool partial = false;        // cut short: the results stop at the time reached
  std::string partial_reason;  // "interrupt" (SIGINT, SIGTERM) or "memory limit"
  // The same scenario run without its faults (events: pause_storm), for the victim flows; null if none.
  const Network* baseline = nullptr;
};

// What an output's files may depend on beyond its own state.
struct OutputContext {
  const RunInfo& run;
  const nlohmann::json& summary;            // summary.json, every output's part merged
  const std::vector<std::string>& written;  // the files of the outputs before this one
  std::string label;                        // the run's name where several runs are shown together
};

// One (file name, content) pair per file.
using OutputFiles = std::vector<std::pair<std::string, std::string>>;

// Contract: one kind of result of a run. Made when the run is built (it may attach recorders to the network
// then), it is read only after the run ends: collect() once, then summary() and files(). The summaries of all
// outputs are merged into summary.json (keys are distinct, except arrays, which several outputs of one kind
// concatenate); files of the same name are joined (a CSV keeps one header).
class Output {
 public:
  virtual ~Output() = default;
  // Gathers what the run's partitions recorded.
  virtual void collect() {}
  // Its part of summary.json: an object.
  virtual nlohmann::json summary(const RunInfo& run) const { return nlohmann::json::object(); }
  virtual OutputFiles files(const OutputContext& ctx) = 0;
  // What the terminal says of it once its files are written (e.g. a trace cut short at its limit).
  virtual std::vector<std::string> notes() const { return {}; }
};

// Moves the keys of `part` (an output's summary) into `into`; an array under a key both hold is concatenated.
inline void merge_summary(nlohmann::json& into, nlohmann::json part) {
  for (auto& [key, value] : part.items()) {
    if (into.contains(key) && into[key].is_array() && value.is_array()) {
      for (nlohmann::json& v : value) {
        into[key].push_back(std::move(v));
      }
    } else {
      into[key] = std::move(value);
    }
  }
}

}  // namespace rocesim
