// Workloads: each entry of the scenario's `workload` list is chosen by `type` (one file each, registered in
// workload_registry()). A flow generator turns its parameters into flows before the run starts; an application
// workload (perftest) installs applications on servers, which post messages as the run goes.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/cluster/output.hpp"
#include "rocesim/core/params.hpp"
#include "rocesim/core/registry.hpp"
#include "rocesim/core/rng.hpp"
#include "rocesim/nic/flow.hpp"

namespace rocesim {

struct WorkloadContext {
  uint32_t hosts = 0;
  Time stop;
  std::string base_dir;                            // where relative file paths are resolved
  std::vector<Rate> host_rate;                     // each host's link rate (for loads)
  std::vector<int> node_host;                      // topology node index -> host index, -1 for switches
  std::vector<std::vector<uint32_t>> server_nics;  // per server: its NICs' host indices, NIC 0 first
  std::vector<std::string> endpoint_names;         // per host: its NIC's node name (`host3`, `host1.nic0`)
  int64_t gpus_per_server = 0;                     // server.gpus (0: no GPUs modelled)
};

class Network;

// One generator's output: its flows, its parameters as used (for summary.json), and the applications it runs
// instead of (or beside) flows. A flow's `after` is the index of another flow in this list.
struct WorkloadFlows {
  std::vector<FlowSpec> flows;
  nlohmann::json resolved;
  // Installs the workload's applications on the network's servers before the run (connections, first posts);
  // `workload` is the workload's index. May return what its applications measure beyond the flow records, as
  // an output (nullptr if nothing).
  std::function<std::shared_ptr<Output>(Network& net, uint16_t workload)> install;
};

// A generator: the workload's mapping (of its type) at `path` to flows.
using WorkloadGenerator = std::function<WorkloadFlows(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                                      const WorkloadContext& wc, Rng& rng)>;
using WorkloadEntry = Registered<WorkloadGenerator>;

// The `transport` key of every flow workload (read by generate_workload; each such workload's schema reserves it).
inline constexpr const char* kTransportDoc =
    "how the flows' data crosses the network: rdma (the fabric's RoCEv2 queue pairs), tcp (the kernel's TCP, see "
    "tcp.*), iwarp (RDMA over a TCP the NIC runs)";

// Filled by the implementations' own files (core/registry.hpp).
Registry<WorkloadGenerator>& workload_registry();
WorkloadFlows generate_workload(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng& rng);

// Generators, one file each.

// Reads the HPCC ns-3 simulator's flow file (count, then `src dst pg dport size start_s` lines, node ids).
std::vector<FlowSpec> read_hpcc_flows(std::istream& in, const std::string& file, const std::vector<int>& node_host);
// Hosts named by a workload's `hosts` list (all hosts if empty), checked against the topology.
// The most flows one workload may generate: 10 million (half a gigabyte of flow records), so that a count
// typed wrong fails at once with a message instead of exhausting memory. Throws at `key` above it.
inline constexpr int64_t kMaxWorkloadFlows = 10'000'000;
void check_flow_count(double flows, const YAML::Node& at, const ParseCtx& ctx, const std::string& key,
                      const std::string& hint = "");

std::vector<uint32_t> select_hosts(const std::vector<int64_t>& hosts, const YAML::Node& n, const ParseCtx& ctx,
                                   const std::string& path, const WorkloadContext& wc);
// Reads a flow file (CSV with header `src,dst,size,start,priority,operation`); errors name the line. An endpoint
// is its index or, when `names` are given, its NIC's name.
std::vector<FlowSpec> read_flow_csv(std::istream& in, const std::string& file, uint32_t hosts,
                                    const std::vector<std::string>& names = {});

}  // namespace rocesim
