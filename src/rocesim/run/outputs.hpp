// The kinds of output a run can write, one file each under run/outputs/, listed once in output_kinds(): the run
// makes those its scenario asks for (and the outputs its workloads add), summary.json merges their parts, and the
// output folder is written from their files (docs/outputs.md).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rocesim/cluster/output.hpp"

namespace rocesim {

class Simulation;

struct OutputKind {
  std::string name;
  std::string summary;  // what it writes, one line
  // The names it writes its files under whatever the scenario says (names the scenario gives are the output's
  // named_files()); no other output may take them.
  std::vector<std::string> files;
  // Made when the run is built, after its workloads; null when the scenario does not ask for it. May throw
  // InputError.
  std::function<std::unique_ptr<Output>(Simulation&)> make;
};

// Contract: in the order their files are listed (summary.json's `files`), report.html last, since its page lists
// the others'; names unique.
const std::vector<OutputKind>& output_kinds();
// The names output_kinds() write under, whatever the scenario says.
std::vector<std::string> fixed_output_names();

// Each in its own file.
OutputKind totals_output();
OutputKind flows_output();
OutputKind ports_output();
OutputKind nics_output();
OutputKind engine_output();
OutputKind buckets_output();
OutputKind hpcc_output();
OutputKind timeseries_output();
OutputKind trace_output();
OutputKind victims_output();
OutputKind workloads_output();
OutputKind capture_output();
OutputKind report_output();

}  // namespace rocesim
