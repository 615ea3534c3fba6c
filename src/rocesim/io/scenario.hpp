// Scenario files: YAML mirroring the component tree (docs/scenario-reference.md). Loading applies `--set`
// overrides, checks every key against the components' declarations and builds the network and its flows.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/analysis/output_params.hpp"
#include "rocesim/analysis/timeseries.hpp"
#include "rocesim/cc/cc.hpp"
#include "rocesim/cluster/deadlock.hpp"
#include "rocesim/cluster/network.hpp"
#include "rocesim/core/simulator.hpp"
#include "rocesim/engine/engine.hpp"
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
  EngineParams engine;
  YAML::Node engine_node;  // for messages
  YAML::Node output_node;  // for messages
  InfinibandParams ib;
  std::vector<std::string> fabric_warnings;  // settings the fabric ignores
  std::vector<FabricEvent> events;
  std::optional<CaptureParams> capture;
  OutputParams output;
  std::vector<std::string> overrides;  // the --set assignments applied
  std::vector<std::string> inputs;     // the files read: the scenario's own (if a file) and every file it names
  std::optional<PresetUse> preset;     // switch.preset, and the keys the scenario set over it
  ServerParams server;
  std::optional<PresetUse> server_preset;
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

// A built simulation: kernel, network, flows.
class Simulation {
 public:
  explicit Simulation(Scenario sc);
  // The first partition's simulator: the whole run's in a run of one partition (what tests step through), and
  // the random streams' seed in any.
  Simulator& sim() { return engine_->sim(0); }
  Engine& engine() { return *engine_; }
  const Engine& engine() const { return *engine_; }
  // Where the run ended, and the events it ran (every partition's).
  Time now() const { return engine_->now(); }
  uint64_t events() const { return engine_->events(); }
  // Ends a run at the next window boundary.
  void request_stop() { engine_->request_stop(); }
  // Said once on the terminal, never in results: why the run has fewer partitions than asked (results are the
  // same whatever the engine's settings), and what output.flows: auto chose.
  const std::vector<std::string>& notes() const { return notes_; }
  Network& net() { return *net_; }
  const Network& net() const { return *net_; }
  const Scenario& scenario() const { return sc_; }
  nlohmann::json resolved() const { return resolved_; }
  // The capture, if the scenario asked for one.
  Capture* capture() { return capture_.get(); }
  // The sampled time series, if the scenario asked for one.
  const TimeSeries* timeseries() const { return timeseries_ && timeseries_->enabled() ? timeseries_.get() : nullptr; }
  const HpccOutputs* hpcc_outputs() const { return hpcc_.get(); }
  // The Perfetto timeline, if output.trace names nodes.
  const Trace* trace() const { return trace_.get(); }
  // The PFC deadlock detector, if switch.pfc.deadlock.detect_after turned it on.
  const DeadlockDetector* deadlock() const { return deadlock_.get(); }
  // What workloads' applications measured beyond the flows (perftest), in workload order.
  const std::vector<std::shared_ptr<WorkloadReport>>& reports() const { return reports_; }
  // Flows each workload created.
  const std::vector<size_t>& workload_flow_counts() const { return workload_flows_; }
  // What the scenario asks for that is probably not what its author meant, found while building it (a receiver
  // offered more than its link rate, inputs a topology builder cannot honour). The command line prints them;
  // summary.json lists them.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The memory the run is estimated to hold at most (what the memory limit is checked against), in bytes.
  double memory_estimate() const { return memory_estimate_; }
  // Runs to the stop time or until every flow has finished. Returns the wall time in seconds.
  double run(const std::function<void(const RunProgress&)>& progress = {}, uint64_t progress_every = 1 << 18);

 private:
  void build();
  // Which message records the run keeps (output.flows), from what the installed workloads will post; refuses a
  // run whose records would not fit in memory.
  void keep_records();
  Partitioning plan_partitions();
  Scenario sc_;
  int threads_ = 1;
  std::vector<std::string> notes_;
  double memory_estimate_ = 0;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Network> net_;
  std::unique_ptr<Capture> capture_;
  std::unique_ptr<TimeSeries> timeseries_;
  std::unique_ptr<HpccOutputs> hpcc_;
  std::unique_ptr<Trace> trace_;
  std::unique_ptr<DeadlockDetector> deadlock_;
  std::vector<size_t> workload_flows_;
  std::vector<std::shared_ptr<WorkloadReport>> reports_;
  std::vector<std::string> warnings_;
  nlohmann::json resolved_;
  bool uses_tcp_ = false;  // some flow runs over TCP or iWARP
};

}  // namespace rocesim
