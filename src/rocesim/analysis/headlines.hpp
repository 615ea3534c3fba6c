// What the summary leads with for each kind of workload: the figure the workload exists for, read from
// summary.json. perftest: its table's rows; collectives: time and bus bandwidth per operation with the algorithm
// and protocol that ran; training: the step time and how much of its communication compute hid. FCTs are the
// headline of flow workloads only (summary.json workloads[].fct); a collective's or perftest's messages are
// flows.csv rows, not answers.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace rocesim {

// Whether some workload's messages are flows whose FCTs the summary reports (every workload when the summary
// names none, as before workloads said).
bool reports_fct(const nlohmann::json& summary);
// Whether every workload's messages are such flows: the run's FCT percentiles are then its answer.
bool only_fct(const nlohmann::json& summary);
// The messages of the workloads whose FCTs the summary reports (`fct` true: the flow workloads) or of the others,
// added up from summary.json's workloads.
struct WorkloadCounts {
  int64_t created = 0, finished = 0, unfinished = 0;
};
WorkloadCounts workload_counts(const nlohmann::json& summary, bool fct);
// The summary table's lines for the perftest, collective and training workloads.
std::string workload_headlines(const nlohmann::json& summary);

}  // namespace rocesim
