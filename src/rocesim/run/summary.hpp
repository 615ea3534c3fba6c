// A finished run's results: summary.json, every output's part merged, and the files its outputs write.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rocesim/run/simulation.hpp"

namespace rocesim {

// summary.json without `files`: the run's time and events, its warnings, and every output's part.
nlohmann::json summary_json(const Simulation& s, const RunInfo& info);
// Every output's files, in order, same-named ones joined (a CSV keeps one header); summary.json not among them.
// `summary`: summary_json's.
OutputFiles result_files(const Simulation& s, const RunInfo& info, const nlohmann::json& summary,
                         const std::string& label);
// The files of the workloads' own outputs (perftest.txt, nccl-tests.txt, ...), same-named ones joined.
OutputFiles report_files(const Simulation& s);

}  // namespace rocesim
