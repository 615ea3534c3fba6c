// Workloads: each entry of the scenario's `workload` list is a traffic generator chosen by `type`
// (one file per generator). A generator turns its parameters into flows before the run starts.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/rng.hpp"
#include "rocesim/nic/flow.hpp"

namespace rocesim {

struct WorkloadContext {
  uint32_t hosts = 0;
  Time stop;
  std::string base_dir;  // where relative file paths are resolved
};

// One generator's output: its flows, and its parameters as used (for summary.json).
struct WorkloadFlows {
  std::vector<FlowSpec> flows;
  nlohmann::json resolved;
};

std::vector<std::string> workload_types();
WorkloadFlows generate_workload(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng& rng);
void describe_workloads(std::vector<ParamDoc>& out);

WorkloadFlows generate_incast(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                              const WorkloadContext& wc, Rng& rng);
WorkloadFlows generate_permutation(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                   const WorkloadContext& wc, Rng& rng);
WorkloadFlows generate_flow_file(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                 const WorkloadContext& wc, Rng& rng);
void describe_incast(std::vector<ParamDoc>& out, const std::string& prefix);
void describe_permutation(std::vector<ParamDoc>& out, const std::string& prefix);
void describe_flow_file(std::vector<ParamDoc>& out, const std::string& prefix);

// Reads a flow file (CSV with header `src,dst,size,start,priority,operation`); errors name the line.
std::vector<FlowSpec> read_flow_csv(std::istream& in, const std::string& file, uint32_t hosts);

}  // namespace rocesim
