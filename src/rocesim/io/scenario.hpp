// Scenario files: YAML mirroring the component tree (docs/scenario-reference.md). Loading applies `--set`
// overrides, checks every key against the components' declarations and builds the network and its flows.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/analysis/output_params.hpp"
#include "rocesim/cc/cc.hpp"
#include "rocesim/cluster/network.hpp"
#include "rocesim/core/simulator.hpp"
#include "rocesim/io/capture.hpp"
#include "rocesim/nic/nic.hpp"
#include "rocesim/server/server.hpp"
#include "rocesim/switch/presets.hpp"
#include "rocesim/switch/switch.hpp"
#include "rocesim/topology/topology.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {

// The scenario `rocesim run` uses when given none: a small leaf-spine cluster with an incast and background
// traffic, so that PFC, ECN and DCQCN all act.
extern const char* const kDefaultScenario;
inline constexpr const char* kDefaultScenarioName = "<default scenario>";

struct ScenarioParams {
  int64_t seed = 0;
  Time stop;
  std::string name;
  std::string fabric;
  static const Schema<ScenarioParams>& schema();
};

struct Scenario {
  std::string file;      // for messages
  std::string base_dir;  // where relative paths resolve
  ScenarioParams top;
  SwitchParams sw;
  NicParams nic;
  std::unique_ptr<CcAlgorithm> cc;
  TcpParams tcp;
  std::unique_ptr<TcpCcAlgorithm> tcp_cc;
  TopologyGraph graph;
  YAML::Node workload_node;
  RoutingParams routing;
  std::unique_ptr<BalanceAlgorithm> balance;  // routing.balance
  EngineParams engine;
  YAML::Node engine_node;  // for messages
  YAML::Node output_node;  // for messages
  InfinibandParams ib;
  std::vector<std::string> fabric_warnings;  // settings the fabric ignores
  std::vector<FabricEvent> events;
  std::optional<CaptureParams> capture;
  // The result files the scenario names (capture.file, output.hpcc.*), and where.
  struct NamedResult {
    std::string key, name;
    int line = 0;
  };
  std::vector<NamedResult> named_results;
  OutputParams output;
  std::vector<std::string> overrides;  // the --set assignments applied
  std::vector<std::string> inputs;     // the files read: the scenario's own (if a file) and every file it names
  std::optional<PresetUse> preset;     // switch.preset, and the keys the scenario set over it
  ServerParams server;
  std::optional<PresetUse> server_preset;
  std::optional<PresetUse> nic_preset;
  // The memory the run may take (0: no limit): a scenario estimated to need more is refused before it is built
  // (Simulation; the CLI sets it from ROCESIM_MEMORY_LIMIT or machine_memory_limit()), and what set it.
  double memory_limit = 0;
  std::string memory_limit_source = "the memory limit";
  double memory_in_use = 0;  // what the process held when the limit was read
};

// The link layer a `fabric` value names.
wire::Fabric fabric_of(const std::string& name);

// An error in a value that came from --set names `--set`, not a line of the scenario file.
InputError attribute_to_override(const InputError& e, const std::vector<std::string>& overrides);

// Applies `key.path=value` to the YAML tree (a list index is a number: workload.0.size=2MB).
void apply_override(YAML::Node& root, const std::string& assignment, const std::string& file);

// Parses a scenario from YAML text; `file` names it in messages. Throws InputError.
Scenario parse_scenario(const std::string& text, const std::string& file, const std::string& base_dir,
                        const std::vector<std::string>& overrides, std::optional<int64_t> seed_override = {});
// Reads and parses a scenario file.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       std::optional<int64_t> seed_override = {});

// Every parameter of every component, for `rocesim params` and the scenario reference.
std::vector<ParamDoc> all_params();
// docs/scenario-reference.md, generated from the declarations.
std::string scenario_reference_markdown();

}  // namespace rocesim
